"""The math of nn.MultiheadAttention (nn/modules/activation.py): the shape checks, the
masks made additive, and PyTorch's multi-head attention in the sequence-first layout."""
from __future__ import annotations

import warnings

import graphgrad as _gg
from .. import functional as F


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    qd = query.dim()
    if qd not in (2, 3):
        raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                             f"{qd}-D query tensor")
    what = "batched (3-D)" if qd == 3 else "unbatched (2-D)"
    if key.dim() != qd or value.dim() != qd:
        raise AssertionError(f"For {what} `query`, expected `key` and `value` to be {qd}-D but "
                             f"found {key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != qd - 1:
        raise AssertionError(f"For {what} `query`, expected `key_padding_mask` to be `None` or "
                             f"{qd - 1}-D but found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {what} `query`, expected `attn_mask` to be `None`, 2-D or "
                                 f"3-D but found {attn_mask.dim()}-D tensor instead")
        if qd == 2 and attn_mask.dim() == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                     f"{tuple(attn_mask.shape)}")
    return qd == 3


def _float_mask(mask, name, other, other_name, dtype):
    """A bool mask (True = do not attend) becomes an additive float mask with -inf there;
    a float mask is used as given."""
    if mask is None:
        return None
    if mask.dtype != _gg.bool and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and mask.dtype != other.dtype:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same "
                      "type for both instead.", stacklevel=3)
    if mask.dtype == _gg.bool:
        return _gg.zeros(mask.shape, dtype=dtype).masked_fill_(mask, float("-inf"))
    return mask


def _multi_head_attention(m, query, key, value, key_padding_mask, need_weights, attn_mask,
                          average_attn_weights, is_causal):
    """PyTorch's multi-head attention math (sequence-first layout (L, N, E))."""
    H = m.num_heads
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, H)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _float_mask(key_padding_mask, "key_padding_mask", attn_mask,
                                   "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    attn_mask = _float_mask(attn_mask, "attn_mask", None, "", query.dtype)
    if embed_dim != m.embed_dim:
        raise AssertionError(f"was expecting embedding dimension of {m.embed_dim}, but got "
                             f"{embed_dim}")
    head_dim = embed_dim // H
    if m._qkv_same_embed_dim:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {key.shape} does not match value shape "
                                 f"{value.shape}")
        w_q, w_k, w_v = m.in_proj_weight.chunk(3)
    else:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
        w_q, w_k, w_v = m.q_proj_weight, m.k_proj_weight, m.v_proj_weight
    b_q = b_k = b_v = None
    if m.in_proj_bias is not None:
        b_q, b_k, b_v = m.in_proj_bias.chunk(3)
    q, k, v = F.linear(query, w_q, b_q), F.linear(key, w_k, b_k), F.linear(value, w_v, b_v)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (bsz * H, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {(bsz * H, tgt_len, src_len)}.")
    if m.bias_k is not None and m.bias_v is not None:
        k = _gg.cat([k, m.bias_k.repeat(1, bsz, 1)])
        v = _gg.cat([v, m.bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    # (L, N, E) -> (N * H, L, head_dim)
    q = q.reshape(tgt_len, bsz * H, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], bsz * H, head_dim).transpose(0, 1)
    v = v.reshape(v.shape[0], bsz * H, head_dim).transpose(0, 1)
    if m.add_zero_attn:
        zeros = _gg.zeros((bsz * H, 1, head_dim), dtype=k.dtype)
        k = _gg.cat([k, zeros], dim=1)
        v = _gg.cat([v, zeros], dim=1)
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"Expected key_padded_mask.shape to be {(bsz, src_len)}, but "
                                 f"got {tuple(key_padding_mask.shape)}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, H, -1, -1) \
            .reshape(bsz * H, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    p = m.dropout if m.training else 0.0
    scores = _gg.bmm(q * (1.0 / head_dim) ** 0.5, k.transpose(-2, -1))
    dead = None
    if attn_mask is not None:
        scores = scores + attn_mask
        if not need_weights:
            # PyTorch's attention kernel (need_weights=False) gives a query whose keys are
            # all masked zero weights, not NaN (its "safe softmax"), and a zero gradient
            dead = (scores == float("-inf")).all(-1, keepdim=True)
            if bool(dead.any()):
                scores = scores.masked_fill(dead, 0.0)
            else:
                dead = None
    weights = F.softmax(scores, dim=-1)
    if dead is not None:
        weights = weights.masked_fill(dead, 0.0)
    if p > 0.0:
        weights = F.dropout(weights, p=p)
    out = _gg.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = F.linear(out, m.out_proj.weight, m.out_proj.bias).reshape(tgt_len, bsz, embed_dim)
    if not need_weights:
        return (out if batched else out.squeeze(1)), None
    weights = weights.reshape(bsz, H, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.mean(dim=1)
    if not batched:
        return out.squeeze(1), weights.squeeze(0)
    return out, weights
