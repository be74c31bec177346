"""TransformerEncoderLayer (PyTorch's torch.nn.modules.transformer): self-attention and a
feed-forward block, each with a residual connection and LayerNorm (after the block, or
before it with norm_first=True); TransformerEncoder, a stack of copies of one.  The decoder
side and the whole Transformer are in transformer_decoder.py."""
from __future__ import annotations

import copy
import warnings

import graphgrad as _gg
from .. import functional as F
from .activation import GELU, MultiheadAttention, ReLU, _float_mask
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["TransformerEncoder", "TransformerEncoderLayer"]


def _get_activation_fn(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _generate_square_subsequent_mask(sz, device=None, dtype=None):
    """The (sz, sz) causal mask: -inf above the diagonal, 0 elsewhere."""
    return _gg.triu(_gg.full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)


def _get_seq_len(src, batch_first):
    """The sequence length of ``src`` (unbatched (S, E) or batched, either layout)."""
    if src.dim() == 2:
        return src.shape[0]
    return src.shape[1 if batch_first else 0]


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    """``is_causal`` when given; otherwise whether ``mask`` equals the (size, size) causal
    mask (-inf above the diagonal) of its dtype, as PyTorch's transformers detect it."""
    if is_causal is not None or mask is None:
        return is_causal is True
    sz = size if size is not None else mask.shape[-2]
    causal = _generate_square_subsequent_mask(sz, dtype=mask.dtype)
    if tuple(mask.shape) != tuple(causal.shape):
        return False
    return bool((mask == causal).all())


class TransformerEncoderLayer(Module):
    """One encoder layer of "Attention Is All You Need": ``self_attn`` (MultiheadAttention),
    ``linear1`` -> activation -> ``dropout`` -> ``linear2``, ``norm1``/``norm2`` and
    ``dropout1``/``dropout2`` on the two residual branches."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        fk = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **fk)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **fk)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **fk)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


def _why_no_nested_tensors(layer):
    """PyTorch's reason (if any) why a TransformerEncoder of ``layer`` cannot use its
    nested-tensor fast path."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return (f"{name}.self_attn.batch_first was not True(use batch_first for better "
                "inference performance)")
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


class TransformerEncoder(Module):
    """``num_layers`` deep copies of ``encoder_layer`` (in ``layers``) applied in turn, then
    the optional ``norm``."""

    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _why_no_nested_tensors(encoder_layer)
        if enable_nested_tensor and why:
            warnings.warn("enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {why}", stacklevel=2)
            self.use_nested_tensor = False

    def _pads_to_zero(self, src, mask, src_key_padding_mask):
        """Whether PyTorch would take its nested-tensor path, whose output is 0 at padded
        positions: inference (eval mode, no parameter or input recording gradients),
        batched input, a left-aligned key padding mask and no attention mask."""
        first = self.layers[0]
        if not self.use_nested_tensor or first.training or src.dim() != 3 or \
                src_key_padding_mask is None or mask is not None:
            return False
        if src_key_padding_mask.dtype != _gg.bool:
            return False
        if getattr(self, "mask_check", True):
            pad = src_key_padding_mask.to(_gg.int64)
            # left-aligned: once padding starts in a row, it continues to the row's end
            if bool((pad[:, 1:] < pad[:, :-1]).any()):
                return False
        if _gg.is_grad_enabled() and (src.requires_grad or any(
                p.requires_grad for p in first.parameters())):
            return False
        return True

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        zero_pads = self._pads_to_zero(src, mask, src_key_padding_mask)
        pad_rows = src_key_padding_mask
        src_key_padding_mask = _float_mask(src_key_padding_mask, "src_key_padding_mask", mask,
                                           "mask", src.dtype)
        mask = _float_mask(mask, "mask", None, "", src.dtype)
        is_causal = _detect_is_causal_mask(mask, is_causal, _get_seq_len(
            src, self.layers[0].self_attn.batch_first))
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal,
                         src_key_padding_mask=src_key_padding_mask)
        if zero_pads:
            keep = ~pad_rows
            if not self.layers[0].self_attn.batch_first:
                keep = keep.transpose(0, 1)
            output = output * keep.unsqueeze(-1).to(output.dtype)
        if self.norm is not None:
            output = self.norm(output)
        return output
