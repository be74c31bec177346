"""Random programs for the differential fuzzer, generated from a seed.

A program is a list of leaf tensors (data drawn from the seed, sometimes with special
values: 0, +-1, +-inf, NaN, ties) and a list of Python statements over a module ``T``
(graphgrad or torch): pointwise ops from the op table (tests/ops/op_db), broadcasting,
reductions, matmul, views, indexing, in-place ops on clones and on views, where/clamp/
softmax/norms.  The generator runs each statement on PyTorch as it goes, to learn the
shapes of the values it can use next; a statement PyTorch rejects is usually dropped,
sometimes kept as the program's last one (then graphgrad must raise the same type).

``generate(seed)`` always gives the same program: ``python -m tests.fuzz --replay SEED``
prints and re-runs it.
"""
from __future__ import annotations

import math
import random
import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import torch

from tests.ops.op_db import core as _core, nn as _nn, pointwise as _pointwise
from tests.ops.opinfo import A

DTYPES = ("float32", "float64", "complex128")
SPECIALS = (0.0, 0.0, -0.0, 1.0, -1.0, 0.5, 2.0, math.inf, -math.inf, math.nan)
_NOT_POINTWISE = {"matmul", "mm", "bmm", "mv", "dot", "polar", "complex", "sum", "mean",
                  "t", "squeeze", "clone"}


def _table():
    """Unary and binary differentiable ops of the op table that take tensors only."""
    rng = np.random.default_rng(0)
    unary, binary = [], []
    for fam in (_core, _pointwise, _nn):
        for op in fam.OPS:
            if op.fn is not None or not op.grad or op.name in _NOT_POINTWISE:
                continue
            s = op.samples(rng)[0]
            if s.kwargs:
                continue
            kinds = tuple(isinstance(a, A) for a in s.args)
            if kinds == (True,):
                unary.append(op)
            elif kinds == (True, True) and fam is not _nn:
                binary.append(op)
    return unary, binary


UNARY, BINARY = _table()


def fmt_value(v):
    if isinstance(v, complex):
        if math.isfinite(v.real) and math.isfinite(v.imag):
            return repr(v)
        return f"complex({fmt_value(v.real)}, {fmt_value(v.imag)})"
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(float(v))


def fmt_array(a):
    if a.ndim == 0:
        return fmt_value(a.item())
    return "[" + ", ".join(fmt_array(x) for x in a) + "]"


@dataclass
class Leaf:
    name: str
    data: np.ndarray            # float64 or complex128 values, exact in `dtype`
    dtype: str
    requires_grad: bool

    def source(self):
        rg = ", requires_grad=True" if self.requires_grad else ""
        return f"{self.name} = T.tensor({fmt_array(self.data)}, dtype=T.{self.dtype}{rg})"


@dataclass
class Program:
    seed: int
    dtype: str
    leaves: list = field(default_factory=list)
    lines: list = field(default_factory=list)     # statements, in order
    outputs: list = field(default_factory=list)   # names compared and differentiated
    ops: list = field(default_factory=list)       # op labels, for the known-differences list
    special: bool = False                         # data has special values
    expect_error: bool = False                    # PyTorch raised on the last statement

    def source(self):
        head = [f"# fuzz program, seed {self.seed} ({self.dtype}); T = graphgrad or torch",
                "nan, inf = float('nan'), float('inf')"]
        return "\n".join(head + [lf.source() for lf in self.leaves] + self.lines
                         + [f"outputs = [{', '.join(self.outputs)}]"])


def namespace(lib):
    return {"T": lib, "nan": math.nan, "inf": math.inf}


class _Gen:
    def __init__(self, seed):
        self.seed = seed
        self.r = random.Random(seed)
        self.rng = np.random.default_rng(seed)
        r = self.r
        dtype = r.choice(DTYPES)
        self.p = Program(seed, dtype, special=r.random() < 0.3)
        self.env = namespace(torch)
        self.vars = []          # names of float/complex tensors, in creation order
        self.mutated = []
        self.n = 0

    # ---------------------------------------------------------------- helpers
    def fresh(self, prefix="v"):
        self.n += 1
        return f"{prefix}{self.n}"

    def shape(self, name):
        return tuple(self.env[name].shape)

    def is_complex(self, name):
        return self.env[name].is_complex()

    def data(self, shape, dtype, op=None):
        r, rng = self.r, self.rng
        a = None
        if op is not None:   # the op's own sample data: inside its domain
            s = op.samples(rng)
            arrs = [x.arr for x in s[r.randrange(len(s))].args if isinstance(x, A)]
            a = arrs[0] if arrs else None
        if a is None:
            a = rng.standard_normal(shape) * r.choice((1.0, 1.0, 1.0, 0.2, 3.0))
        a = np.array(a, dtype=np.float64 if not np.iscomplexobj(a) else np.complex128)
        if dtype == "complex128" and not np.iscomplexobj(a):
            a = a + 1j * rng.standard_normal(a.shape)
        if a.size and self.p.special and r.random() < 0.6:
            for _ in range(r.randint(1, 3)):
                i = r.randrange(a.size)
                v = r.choice(SPECIALS)
                if dtype == "complex128" and r.random() < 0.5:
                    v = complex(r.choice((0.0, 1.0, v)), v)
                a.flat[i] = v
        if a.size > 1 and r.random() < 0.15:          # a tie
            a.flat[r.randrange(a.size)] = a.flat[r.randrange(a.size)]
        if dtype == "float32":
            a = a.real.astype(np.float32).astype(np.float64)
        elif dtype == "float64":
            a = a.real
        return a

    def leaf(self, shape, dtype=None, op=None, requires_grad=None):
        dtype = dtype or self.p.dtype
        if requires_grad is None:
            requires_grad = self.r.random() < 0.85
        name = self.fresh("x")
        lf = Leaf(name, self.data(shape, dtype, op), dtype, requires_grad)
        self.p.leaves.append(lf)
        self.env[name] = torch.tensor(lf.data, dtype=getattr(torch, dtype),
                                      requires_grad=requires_grad)
        self.vars.append(name)
        return name

    def rand_shape(self):
        nd = self.r.choice((0, 1, 1, 2, 2, 2, 3))
        return tuple(self.r.randint(1, 4) for _ in range(nd))

    def pick(self, cond=None):
        cands = [v for v in self.vars if cond is None or cond(v)]
        if not cands:
            return None
        # prefer recent values, so programs chain
        w = [1 + i for i in range(len(cands))]
        return self.r.choices(cands, weights=w)[0]

    def operand(self):
        v = self.pick()
        if v is None or self.r.random() < 0.2:
            v = self.leaf(self.rand_shape())
        return v

    def bshape(self, shape):
        """A shape that broadcasts with ``shape``."""
        r = self.r
        c = r.random()
        if c < 0.35:
            return shape
        if c < 0.55:
            return shape[r.randint(0, len(shape)):]
        if c < 0.8:
            return tuple(1 if r.random() < 0.5 else s for s in shape)
        return (r.randint(1, 3),) + tuple(1 if r.random() < 0.3 else s for s in shape)

    def other(self, shape):
        want = self.bshape(shape)
        v = self.pick(lambda n: self.shape(n) == want)
        if v is None or self.r.random() < 0.5:
            v = self.leaf(want)
        return v

    def dim(self, name, allow_scalar=True):
        nd = len(self.shape(name))
        if nd == 0:
            return self.r.choice((0, -1)) if allow_scalar else None
        return self.r.randrange(-nd, nd)

    def idx_list(self, size, n=None):
        n = n if n is not None else self.r.randint(1, 4)
        return [self.r.randrange(size) for _ in range(n)] if size else []

    # ---------------------------------------------------------------- steps
    def step(self):
        kinds = [(self.s_unary, 4), (self.s_binary, 4), (self.s_operator, 2),
                 (self.s_reduce, 3), (self.s_matmul, 1.5), (self.s_view, 4),
                 (self.s_index, 2), (self.s_where_clamp, 1.5), (self.s_cat, 0.7),
                 (self.s_inplace, 4), (self.s_setitem, 1.5)]
        f = self.r.choices([k for k, _ in kinds], weights=[w for _, w in kinds])[0]
        return f()

    def s_unary(self):
        cplx = self.p.dtype == "complex128"
        ops = [op for op in UNARY if (op.complex if cplx else op.dtypes)]
        op = self.r.choice(ops)
        a = self.leaf(self.rand_shape(), op=op) if self.r.random() < 0.3 else self.operand()
        out = self.fresh()
        if op.name.startswith("nn.functional.") or self.r.random() < 0.6:
            call = f"T.{op.name}({a})"
        else:
            call = f"{a}.{op.name}()"
        return op.name, [f"{out} = {call}"], out

    def s_binary(self):
        cplx = self.p.dtype == "complex128"
        op = self.r.choice([op for op in BINARY if (op.complex or not cplx)])
        a = self.operand()
        r = self.r.random()
        if r < 0.15:
            b = repr(self.r.choice((2.0, -0.5, 1.5, 3, 0.0)))
        else:
            b = self.other(self.shape(a))
        if self.r.random() < 0.3:
            a, b = b, a
        out = self.fresh()
        return op.name, [f"{out} = T.{op.name}({a}, {b})"], out

    def s_operator(self):
        a = self.operand()
        sym = self.r.choice(("+", "-", "*", "/", "**"))
        if self.r.random() < 0.4:
            s = repr(self.r.choice((2.0, 2, -1.0, 0.5, 3.0, 0.0)))
            expr = f"{s} {sym} {a}" if self.r.random() < 0.5 else f"{a} {sym} {s}"
        else:
            b = self.other(self.shape(a))
            expr = f"{a} {sym} {b}"
        out = self.fresh()
        return "operator" + sym, [f"{out} = {expr}"], out

    def s_reduce(self):
        a = self.operand()
        r = self.r
        d = self.dim(a)
        k = r.random() < 0.3
        kd = ", keepdim=True" if k else ""
        choices = [
            ("sum", f"{a}.sum()"), ("sum", f"{a}.sum({d}{kd})"),
            ("mean", f"{a}.mean({d}{kd})"), ("prod", f"{a}.prod()"),
            ("prod", f"{a}.prod({d}{kd})"), ("amax", f"{a}.amax({d}{kd})"),
            ("amin", f"T.amin({a}, {d}{kd})"), ("max", f"{a}.max({d}{kd}).values"),
            ("min", f"{a}.min({d}{kd})[0]"), ("max", f"{a}.max()"), ("min", f"{a}.min()"),
            ("logsumexp", f"T.logsumexp({a}, {d}{kd})"), ("norm", f"{a}.norm()"),
            ("norm", f"{a}.norm({r.choice((1, 2, 3, 0.5))}, {d}{kd})"),
            ("vector_norm", f"T.linalg.vector_norm({a}, "
                            f"{r.choice(('2', '1', 'inf', '-inf', '3', '0'))}, {d}{kd})"),
            ("var", f"{a}.var({d}{kd})"), ("std", f"{a}.std({d}{kd})"),
            ("var", f"{a}.var()"), ("cumsum", f"T.cumsum({a}, {d})"),
            ("cumprod", f"T.cumprod({a}, {d})"), ("softmax", f"T.softmax({a}, {d})"),
            ("log_softmax", f"T.log_softmax({a}, {d})"),
            ("log_softmax", f"T.nn.functional.log_softmax({a}, dim={d})"),
            ("normalize", f"T.nn.functional.normalize({a}, dim={d})"),
        ]
        name, expr = r.choice(choices)
        out = self.fresh()
        return name, [f"{out} = {expr}"], out

    def s_matmul(self):
        r = self.r
        a = self.pick(lambda n: 1 <= len(self.shape(n)) <= 3)
        if a is None or r.random() < 0.2:
            a = self.leaf(tuple(r.randint(1, 4) for _ in range(r.randint(1, 3))))
        sa = self.shape(a)
        n = sa[-1]
        m = r.randint(1, 4)
        bs = r.choice(((n,), (n, m), (n, m), (r.randint(1, 2), n, m)))
        b = self.pick(lambda v: self.shape(v) == bs)
        if b is None or r.random() < 0.5:
            b = self.leaf(bs)
        form = r.choice(("@", "matmul", "mm"))
        out = self.fresh()
        if form == "@":
            e = f"{a} @ {b}"
        elif form == "matmul":
            e = f"T.matmul({a}, {b})"
        else:
            e = f"T.mm({a}, {b})"
        return "matmul", [f"{out} = {e}"], out

    def _view_expr(self, a, like=None):
        """A view of ``a`` (whose shape and dtype are those of ``like``, default ``a``)."""
        r = self.r
        like = like or a
        s = self.shape(like)
        nd = len(s)
        opts = []
        numel = int(np.prod(s)) if s else 1
        opts.append(("reshape", f"{a}.reshape(-1)"))
        if nd >= 2:
            new = s[:-2] + (s[-2] * s[-1],)
            opts.append(("view", f"{a}.view({new})"))
            opts.append(("reshape", f"{a}.reshape({s[-1]}, -1)"))
            i, j = r.sample(range(nd), 2)
            opts.append(("transpose", f"{a}.transpose({i}, {j})"))
            opts.append(("mT", f"{a}.mT"))
            off = r.randint(-1, 1)
            opts.append(("diagonal", f"{a}.diagonal({off}, {i}, {j})"))
        if nd == 2:
            opts.append(("t", f"{a}.t()"))
        if nd >= 1:
            perm = list(range(nd))
            r.shuffle(perm)
            opts.append(("permute", f"{a}.permute({', '.join(map(str, perm))})"))
            d = r.randrange(nd)
            if s[d]:
                i = r.randrange(-s[d], s[d])
                opts.append(("select", f"{a}.select({d}, {i})"))
                opts.append(("getitem-int", f"{a}[{i % s[0] if s[0] else 0}]"))
                st = r.randint(0, s[d] - 1)
                ln = r.randint(0, s[d] - st)
                opts.append(("narrow", f"{a}.narrow({d}, {st}, {ln})"))
            lo, step = r.randint(0, 2), r.choice((1, 1, 2))
            opts.append(("slice", f"{a}[{lo}::{step}]" if r.random() < 0.5
                         else f"{a}[..., {lo}:{lo + 2}]"))
            opts.append(("unbind", f"{a}.unbind({d})[{r.randrange(s[d]) if s[d] else 0}]"))
            opts.append(("split", f"{a}.split({r.randint(1, 2)}, {d})[0]"))
            opts.append(("chunk", f"{a}.chunk(2, {d})[-1]"))
        ex = tuple(r.randint(2, 3) if x == 1 and r.random() < 0.7 else x for x in s)
        if r.random() < 0.5:
            ex = (r.randint(1, 3),) + ex
        opts.append(("expand", f"{a}.expand{ex}" if ex else f"{a}.expand(())"))
        opts.append(("unsqueeze", f"{a}.unsqueeze({r.randint(-nd - 1, nd)})"))
        opts.append(("squeeze", f"{a}.squeeze()"))
        opts.append(("view", f"{a}.view(-1)"))
        if numel > 1 and nd:
            opts.append(("view", f"{a}.view({numel}, 1)"))
        if self.is_complex(like):
            opts.append(("view_as_real", f"T.view_as_real({a})"))
            opts.append(("real", f"{a}.real"))
            opts.append(("imag", f"{a}.imag"))
        return r.choice(opts)

    def s_view(self):
        a = self.operand()
        name, e = self._view_expr(a)
        out = self.fresh()
        return name, [f"{out} = {e}"], out

    def _index_tensor(self, size, shape=None):
        shape = shape or (self.r.randint(1, 4),)
        vals = np.array([self.r.randrange(size) for _ in range(int(np.prod(shape)))]
                        ).reshape(shape)
        return f"T.tensor({vals.tolist()})"

    def s_index(self):
        r = self.r
        a = self.pick(lambda n: len(self.shape(n)) >= 1 and 0 not in self.shape(n))
        if a is None:
            a = self.leaf((r.randint(1, 4), r.randint(1, 3)))
        s = self.shape(a)
        d = r.randrange(len(s))
        idx = self._index_tensor(s[d])
        gshape = s[:d] + (r.randint(1, 3),) + s[d + 1:]
        opts = [
            ("getitem-tensor", f"{a}[{idx}]" if d == 0 else f"{a}[:, {idx}]" if d == 1
             else f"{a}[..., {idx}]"),
            ("getitem-list", f"{a}[{self.idx_list(s[0])}]"),
            ("getitem-mask", f"{a}[{a} > 0]"),
            ("index_select", f"T.index_select({a}, {d}, {idx})"),
            ("gather", f"T.gather({a}, {d}, {self._index_tensor(s[d], gshape)})"),
            ("take_along_dim", f"T.take_along_dim({a}, {self._index_tensor(s[d], gshape)}, "
                               f"dim={d})"),
            ("masked_fill", f"{a}.masked_fill({a}.abs() > 1, {r.choice(('0.0', '-inf', '2.0'))})"),
            ("flip", f"{a}.flip({d})"),
            ("roll", f"{a}.roll(1, {d})"),
            ("repeat", f"{a}.repeat({', '.join(['2'] + ['1'] * (len(s) - 1))})"),
        ]
        name, e = r.choice(opts)
        out = self.fresh()
        return name, [f"{out} = {e}"], out

    def s_where_clamp(self):
        r = self.r
        a = self.operand()
        s = self.shape(a)
        real = not self.is_complex(a)
        opts = []
        b = self.other(s)
        cond = f"{a} > 0" if real else f"{a}.abs() > 1"
        opts.append(("where", f"T.where({cond}, {a}, {b})"))
        opts.append(("where", f"T.where({cond}, {b}, 0.0)"))
        if real:
            lo, hi = sorted((round(r.uniform(-2, 1), 2), round(r.uniform(-1, 2), 2)))
            opts += [("clamp", f"{a}.clamp({lo}, {hi})"), ("clamp", f"T.clamp({a}, min={lo})"),
                     ("clamp", f"{a}.clamp(max={hi})"),
                     ("clamp", f"T.clamp({a}, {b}, None)" if r.random() < 0.5
                      else f"T.clamp({a}, max={b})"),
                     ("clamp", f"T.clamp_min({a}, {lo})"),
                     ("relu", f"T.relu({a})"), ("maximum", f"T.maximum({a}, {b})")]
        name, e = r.choice(opts)
        out = self.fresh()
        return name, [f"{out} = {e}"], out

    def s_cat(self):
        r = self.r
        a = self.operand()
        s = self.shape(a)
        if r.random() < 0.5 or not s:
            b = self.pick(lambda n: self.shape(n) == s and n != a) or self.leaf(s)
            out = self.fresh()
            return "stack", [f"{out} = T.stack([{a}, {b}], {r.randint(-len(s) - 1, len(s))})"], out
        d = r.randrange(len(s))
        bs = s[:d] + (r.randint(1, 3),) + s[d + 1:]
        b = self.pick(lambda n: self.shape(n) == bs and n != a) or self.leaf(bs)
        out = self.fresh()
        return "cat", [f"{out} = T.cat([{a}, {b}], {d})"], out

    def _target(self):
        """A value to modify in place: a clone (new), a view of a non-leaf, or a value."""
        r = self.r
        c = r.random()
        lines = []
        a = self.operand()
        if c < 0.4:
            t = self.fresh("c")
            lines.append(f"{t} = {a}.clone()")
            label = "clone"
        elif c < 0.8:
            base = a
            if self.env[a].is_leaf and self.env[a].requires_grad and r.random() < 0.9:
                base = self.fresh("c")
                lines.append(f"{base} = {a}.clone()" if r.random() < 0.5
                             else f"{base} = {a} * 1")
            name, e = self._view_expr(base, like=a)
            t = self.fresh("w")
            lines.append(f"{t} = {e}")
            label = "view:" + name
        else:
            t = a
            label = "value"
        return t, lines, label

    def _exec_probe(self, lines):
        """Run ``lines`` on a copy of the environment to learn a target's shape."""
        env = dict(self.env)
        with torch.no_grad():
            for ln in lines:
                exec(ln, env)
        return env

    def s_inplace(self):
        r = self.r
        t, lines, label = self._target()
        try:
            env = self._exec_probe(lines)
        except Exception:
            return None
        s = tuple(env[t].shape)
        cplx = env[t].is_complex()
        c = r.random()
        if c < 0.35:
            ops = [op for op in UNARY if op.inplace and (op.complex if cplx else op.dtypes)]
            op = r.choice(ops)
            stmt, name = f"{t}.{op.inplace}()", op.inplace
        elif c < 0.75:
            ops = [op for op in BINARY if op.inplace and (op.complex or not cplx)]
            op = r.choice(ops)
            bs = tuple(1 if r.random() < 0.3 else x for x in s[r.randint(0, len(s)):])
            b = self.pick(lambda n: self.shape(n) == bs)
            if b is None or r.random() < 0.5:
                b = self.leaf(bs)
            stmt, name = f"{t}.{op.inplace}({b})", op.inplace
        else:
            b = self.pick(lambda n: self.shape(n) == s)
            choices = [("zero_", f"{t}.zero_()"), ("fill_", f"{t}.fill_({r.choice((0.0, 1.5))})"),
                       ("mul_", f"{t}.mul_({r.choice((2.0, 0.0, -1.0))})"),
                       ("masked_fill_", f"{t}.masked_fill_({t}.abs() > 1, 0.0)")]
            if not cplx:
                choices.append(("clamp_", f"{t}.clamp_({round(r.uniform(-1, 0), 2)}, "
                                          f"{round(r.uniform(0, 1), 2)})"))
            if b is not None:
                choices.append(("copy_", f"{t}.copy_({b})"))
            name, stmt = r.choice(choices)
        lines.append(stmt)
        return f"inplace:{name}@{label}", lines, t

    def s_setitem(self):
        r = self.r
        t, lines, label = self._target()
        try:
            env = self._exec_probe(lines)
        except Exception:
            return None
        s = tuple(env[t].shape)
        if not s or 0 in s:
            key, ks = "...", s
        else:
            c = r.random()
            if c < 0.4:
                i = r.randrange(s[0])
                key, ks = str(i), s[1:]
            elif c < 0.7:
                key, ks = f"{r.randint(0, 1)}:", None
            elif c < 0.85:
                key, ks = str(self.idx_list(s[0], 2)), None
            else:
                key, ks = f"{t} > 0" if not env[t].is_complex() else f"{t}.abs() > 1", None
        if ks is not None and r.random() < 0.6:
            b = self.pick(lambda n: self.shape(n) == ks)
            if b is None or r.random() < 0.5:
                b = self.leaf(ks)
        else:
            b = repr(r.choice((0.0, 1.0, -2.5)))
        lines.append(f"{t}[{key}] = {b}")
        return f"setitem@{label}", lines, t

    # ---------------------------------------------------------------- driver
    def run(self):
        r = self.r
        nsteps = r.randint(2, 7)
        self.leaf(self.rand_shape(), requires_grad=True)
        done = tries = 0
        while done < nsteps and tries < 40:
            tries += 1
            try:
                res = self.step()
            except Exception:  # (PyTorch refuses even to read some values: skip this step)
                continue
            if res is None:
                continue
            label, lines, out = res
            env = dict(self.env)
            try:
                for ln in lines:
                    exec(ln, env)
                val = env[out]
                if not isinstance(val, torch.Tensor) or not (
                        val.is_floating_point() or val.is_complex()):
                    continue
            except Exception:
                if r.random() < 0.12:      # keep it: graphgrad must raise the same type
                    self.p.lines += lines
                    self.p.ops.append(label)
                    self.p.expect_error = True
                    break
                continue
            self.env = env
            self.p.lines += lines
            self.p.ops.append(label)
            if out not in self.vars:
                self.vars.append(out)
            if label.startswith(("inplace", "setitem")):
                self.mutated.append(out)
            done += 1
        outs = []
        for v in ([self.vars[-1]] + self.mutated[-2:] + [r.choice(self.vars)]):
            if v not in outs and isinstance(self.env.get(v), torch.Tensor):
                outs.append(v)
        # bases of modified views: the clones they were taken from
        for ln in self.p.lines:
            m = re.match(r"(c\d+) = ", ln)
            if m and m.group(1) not in outs and m.group(1) in self.env:
                outs.append(m.group(1))
        self.p.outputs = outs
        return self.p


def generate(seed: int) -> Program:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _Gen(seed).run()
