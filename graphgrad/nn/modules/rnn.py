"""RNN, LSTM, GRU and their cells (PyTorch's torch.nn.modules.rnn), composed from graphgrad
ops (one input projection for the whole sequence per layer and direction, then one step per
time step), with PyTorch's parameter names (weight_ih_l0, weight_hh_l0_reverse, ...,
weight_hr_l0 for LSTM projections), gate orders (LSTM: i, f, g, o; GRU: r, z, n), default
initialisation U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) and argument checks.
PackedSequence inputs are not supported."""
from __future__ import annotations

import math
import numbers
import warnings

import graphgrad as _gg
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module
from ...ops.interpose import interposable

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _no_packed(input, name):
    if type(input).__name__ == "PackedSequence":
        raise NotImplementedError(f"{name}: PackedSequence inputs are not supported by "
                                  "graphgrad; pad the sequences and pass a tensor")


# ---------------------------------------------------------------------- one-step cells
def _rnn_step(gi, h, w_hh, b_hh, act):
    return act(gi + F.linear(h, w_hh, b_hh))


def _lstm_step(gi, h, c, w_hh, b_hh, w_hr):
    gates = gi + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, -1)
    c = _gg.sigmoid(f) * c + _gg.sigmoid(i) * _gg.tanh(g)
    h = _gg.sigmoid(o) * _gg.tanh(c)
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def _gru_step(gi, h, w_hh, b_hh):
    gh = F.linear(h, w_hh, b_hh)
    i_r, i_z, i_n = gi.chunk(3, -1)
    h_r, h_z, h_n = gh.chunk(3, -1)
    r = _gg.sigmoid(i_r + h_r)
    z = _gg.sigmoid(i_z + h_z)
    n = _gg.tanh(i_n + r * h_n)
    return (1 - z) * n + z * h


@interposable("mkldnn_rnn_layer")
def _lstm_inputs(x, h0, c0):
    """An LSTM's input and states, passed through as PyTorch's oneDNN LSTM takes them: that
    op is on autocast's lower-precision list, so under CPU autocast they arrive cast (and
    the weights are cast by the linears), and the whole recurrence runs in bfloat16."""
    return x, h0, c0


class RNNBase(Module):
    """The shared machinery of RNN, LSTM and GRU (``mode`` 'RNN_TANH', 'RNN_RELU', 'LSTM'
    or 'GRU')."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) \
                or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        for name, v, typ in (("bias", bias, bool), ("batch_first", batch_first, bool),
                             ("input_size", input_size, int),
                             ("hidden_size", hidden_size, int)):
            if not isinstance(v, typ):
                raise TypeError(f"{name} should be of type {typ.__name__}, got: "
                                f"{type(v).__name__}")
            if typ is int and v <= 0:
                raise ValueError(f"{name} must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        fk = {"device": device, "dtype": dtype}
        D = 2 if bidirectional else 1
        out_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(D):
                in_size = input_size if layer == 0 else out_size * D
                sfx = f"l{layer}" + ("_reverse" if direction == 1 else "")
                params = [(f"weight_ih_{sfx}", (gate_size, in_size)),
                          (f"weight_hh_{sfx}", (gate_size, out_size))]
                if bias:
                    params += [(f"bias_ih_{sfx}", (gate_size,)),
                               (f"bias_hh_{sfx}", (gate_size,))]
                if proj_size > 0:
                    params.append((f"weight_hr_{sfx}", (proj_size, hidden_size)))
                for name, shape in params:
                    setattr(self, name, Parameter(_gg.empty(shape, **fk)))
                names = [n for n, _ in params]
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, w) for w in ws] for ws in self._all_weights]

    def flatten_parameters(self):
        """A no-op, as in PyTorch on the CPU (cuDNN's weight packing)."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # ------------------------------------------------------------------ checks
    def check_input(self, input, batch_sizes=None):
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({w.dtype}). Convert input: input.to({w.dtype}), or convert "
                             f"model: model.to({input.dtype})")
        if input.dim() != 3:
            raise RuntimeError(f"input must have 3 dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes=None):
        mini_batch = input.size(0) if self.batch_first else input.size(1)
        D = 2 if self.bidirectional else 1
        return (self.num_layers * D, mini_batch,
                self.proj_size if self.proj_size > 0 else self.hidden_size)

    def check_hidden_size(self, hx, expected, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected):
            raise RuntimeError(msg.format(expected, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes=None):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        return hx if permutation is None else hx.index_select(1, permutation)

    # ------------------------------------------------------------------ the recurrence
    def _run(self, x, h0, c0=None):
        """x: (T, N, in) sequence-first; h0 (and c0 for LSTM): (layers * D, N, .).
        Returns output (T, N, D * out), h_n and c_n."""
        D = 2 if self.bidirectional else 1
        T = x.shape[0]
        hs, cs = [], []
        layer_in = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(D):
                names = self._all_weights[layer * D + d]
                p = {n.split("_l")[0]: getattr(self, n) for n in names}
                w_ih, w_hh = p["weight_ih"], p["weight_hh"]
                b_ih, b_hh, w_hr = p.get("bias_ih"), p.get("bias_hh"), p.get("weight_hr")
                gi_all = F.linear(layer_in, w_ih, b_ih)  # (T, N, gates)
                h = h0[layer * D + d]
                c = c0[layer * D + d] if c0 is not None else None
                steps = [None] * T
                for t in (range(T - 1, -1, -1) if d == 1 else range(T)):
                    gi = gi_all[t]
                    if self.mode == "LSTM":
                        h, c = _lstm_step(gi, h, c, w_hh, b_hh, w_hr)
                    elif self.mode == "GRU":
                        h = _gru_step(gi, h, w_hh, b_hh)
                    else:
                        h = _rnn_step(gi, h, w_hh, b_hh,
                                      _gg.tanh if self.mode == "RNN_TANH" else _gg.relu)
                    steps[t] = h
                outs.append(_gg.stack(steps) if T else
                            _gg.zeros((0,) + tuple(h.shape), dtype=x.dtype))
                hs.append(h)
                cs.append(c)
            layer_in = outs[0] if D == 1 else _gg.cat(outs, -1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                layer_in = F.dropout(layer_in, self.dropout, True)
        h_n = _gg.stack(hs)
        c_n = _gg.stack(cs) if c0 is not None else None
        return layer_in, h_n, c_n

    def _prepare(self, input, name):
        _no_packed(input, name)
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                             + ("tensor instead" if name != "LSTM" else "instead"))
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        return input, batched

    def _seq_first(self, input):
        return input.transpose(0, 1) if self.batch_first else input

    def _zeros_state(self, input, size):
        D = 2 if self.bidirectional else 1
        n = input.size(0) if self.batch_first else input.size(1)
        return _gg.zeros((self.num_layers * D, n, size), dtype=input.dtype)

    def _simple_forward(self, input, hx, name):
        input, batched = self._prepare(input, name)
        if hx is not None:
            want = 3 if batched else 2
            if hx.dim() != want:
                raise RuntimeError(f"For {'batched 3-D' if batched else 'unbatched 2-D'} "
                                   f"input, hx should also be {want}-D but got {hx.dim()}-D "
                                   "tensor")
            if not batched:
                hx = hx.unsqueeze(1)
        else:
            hx = self._zeros_state(input, self.hidden_size)
        self.check_forward_args(input, hx)
        out, h_n, _ = self._run(self._seq_first(input), hx)
        if self.batch_first:
            out = out.transpose(0, 1)
        if not batched:
            out, h_n = out.squeeze(0 if self.batch_first else 1), h_n.squeeze(1)
        return out, h_n


class RNN(RNNBase):
    """Elman RNN: h_t = tanh (or relu)(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh); returns
    (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._simple_forward(input, hx, "RNN")


class GRU(RNNBase):
    """Gated recurrent unit (gates r, z, n); returns (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._simple_forward(input, hx, "GRU")


class LSTM(RNNBase):
    """Long short-term memory (gates i, f, g, o; optional output projection ``proj_size``);
    returns (output, (h_n, c_n))."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes=None):
        mini_batch = input.size(0) if self.batch_first else input.size(1)
        D = 2 if self.bidirectional else 1
        return (self.num_layers * D, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes=None):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input, hx=None):
        input, batched = self._prepare(input, "LSTM")
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            hx = (self._zeros_state(input, real_hidden),
                  self._zeros_state(input, self.hidden_size))
        else:
            want = 3 if batched else 2
            if hx[0].dim() != want or hx[1].dim() != want:
                raise RuntimeError(f"For {'batched 3-D' if batched else 'unbatched 2-D'} "
                                   f"input, hx and cx should also be {want}-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            if not batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx)
        x, h0, c0 = self._seq_first(input), hx[0], hx[1]
        if not self.proj_size:  # (with projections PyTorch's LSTM is not oneDNN's)
            x, h0, c0 = _lstm_inputs(x, h0, c0)
        out, h_n, c_n = self._run(x, h0, c0)
        if self.batch_first:
            out = out.transpose(0, 1)
        if not batched:
            out = out.squeeze(0 if self.batch_first else 1)
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return out, (h_n, c_n)


# ---------------------------------------------------------------------- cells
class RNNCellBase(Module):
    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        fk = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(_gg.empty((num_chunks * hidden_size, input_size), **fk))
        self.weight_hh = Parameter(_gg.empty((num_chunks * hidden_size, hidden_size), **fk))
        if bias:
            self.bias_ih = Parameter(_gg.empty(num_chunks * hidden_size, **fk))
            self.bias_hh = Parameter(_gg.empty(num_chunks * hidden_size, **fk))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += f", bias={self.bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _check(self, name, input, hx, hname="hidden"):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected {hname} to be 1D or 2D, got {hx.dim()}D "
                             "instead")

    def _check_sizes(self, input, hxs):
        if input.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} "
                               f"expected {self.input_size}")
        for i, h in enumerate(hxs):
            if h.size(0) != input.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{i} "
                                   f"batch size {h.size(0)}")
            if h.size(1) != self.hidden_size:
                raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {h.size(1)}, "
                                   f"expected {self.hidden_size}")

    def _zeros(self, input):
        return _gg.zeros((input.size(0), self.hidden_size), dtype=input.dtype)


class RNNCell(RNNCellBase):
    """One Elman RNN step: h' = tanh (or relu)(W_ih x + b_ih + W_hh h + b_hh)."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        self._check("RNNCell", input, hx)
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        hx = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        if self.nonlinearity == "tanh":
            act = _gg.tanh
        elif self.nonlinearity == "relu":
            act = _gg.relu
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        self._check_sizes(input, [hx])
        ret = _rnn_step(F.linear(input, self.weight_ih, self.bias_ih), hx, self.weight_hh,
                        self.bias_hh, act)
        return ret if batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; takes and returns (h, c)."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        if hx is not None:
            for i in range(2):
                if hx[i].dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{i}] to be 1D or 2D, got "
                                     f"{hx[i].dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            z = self._zeros(input)
            hx = (z, z)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        self._check_sizes(input, hx)
        h, c = _lstm_step(F.linear(input, self.weight_ih, self.bias_ih), hx[0], hx[1],
                          self.weight_hh, self.bias_hh, None)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: returns h'."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        self._check("GRUCell", input, hx)
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        hx = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        self._check_sizes(input, [hx])
        ret = _gru_step(F.linear(input, self.weight_ih, self.bias_ih), hx, self.weight_hh,
                        self.bias_hh)
        return ret if batched else ret.squeeze(0)
