"""Known differences the fuzzer finds, each with its reason (mirrored in
docs/differences.md, "Differential fuzzer"). ``classify(prog, mismatch)`` names the
entry that explains a mismatch, or returns None for a new one: the test fails on those.

An entry is (id, status, reason, predicate(prog, mismatch)). Status DELIBERATE: a
difference we keep; OPEN: found by the fuzzer, not fixed yet (the reason names a seed that
replays it; the entry goes when its fix lands).
"""
from __future__ import annotations

import re
import warnings

import numpy as np

import graphgrad

DELIBERATE = "deliberate"
OPEN = "open: found by the fuzzer, not fixed yet (reported with a reproducer)"


def _uses(prog, *labels):
    return any(lab in op for op in prog.ops for lab in labels)


def _uses_op(prog, *names):
    """Whether an op of ``prog`` is one of ``names`` exactly (``elu`` is not gelu's)."""
    return any(op.split("@")[0].split(":")[-1].split(".")[-1] in names for op in prog.ops)


def _torch_msg(m, pattern):
    return m.theirs is not None and isinstance(m.theirs, BaseException) and \
        re.search(pattern, str(m.theirs)) is not None


def _our_msg(m, pattern):
    return isinstance(m.ours, BaseException) and re.search(pattern, str(m.ours)) is not None


def _arrays(m):
    return isinstance(m.ours, np.ndarray) and isinstance(m.theirs, np.ndarray) \
        and m.ours.shape == m.theirs.shape


def _ours_nan_where_torch_not(m):
    return _arrays(m) and bool((np.isnan(m.ours) & ~np.isnan(m.theirs)).any())


def _ours_zero_where_torch_not(m):
    return _arrays(m) and bool(((m.ours == 0) & (m.theirs != 0)).any())


def _nonfinite(m):
    return _arrays(m) and bool((~np.isfinite(m.ours) | ~np.isfinite(m.theirs)).any())


def _nonfinite_leaf(p):
    return any(not np.isfinite(lf.data).all() for lf in p.leaves)


def _fills_inf(p):
    """Whether a line of ``p`` fills an infinity in (masked_fill(mask, -inf), fill_(inf))."""
    return any(re.search(r"(fill_?|full)\(.*\binf\b", ln) for ln in p.lines)


def _both_signed_zeros(a):
    """Whether a float array holds both 0.0 and -0.0."""
    if a.dtype.kind != "f":
        return False
    z = a[a == 0]
    return bool(np.signbit(z).any() and (~np.signbit(z)).any())


_SELF_DIVISION = re.compile(r"= (?:T\.(?:div|true_divide)\((\w+), \1\)|(\w+) / \2)$")


_DIVISION = re.compile(r"^(\w+) = (?:T\.(?:div|true_divide)\(\w+, \w+\)|\w+ / \w+)$")


def _divides_by_itself(p):
    """Whether ``p`` divides a value by itself (T.div(x, x), x / x), or by its negation
    (T.div(x, 0 - x)): a complex quotient that graphgrad computes as exactly +-1, from
    operands with an imaginary part (the program run on graphgrad to see it)."""
    if any(_SELF_DIVISION.search(ln) for ln in p.lines):
        return True
    if p.dtype != "complex128" or not any(_DIVISION.match(ln) for ln in p.lines):
        return False
    for ln, env in _on_graphgrad(p):
        m = _DIVISION.match(ln)
        if m and env[m.group(1)].is_complex():
            q = env[m.group(1)].detach().numpy()
            if ((q.imag == 0) & (np.abs(q.real) == 1)).any():
                return True
    return False


def _on_graphgrad(p):
    """Run ``p`` on graphgrad: (line, namespace after it) for each line that ran."""
    env = {"T": graphgrad, "nan": np.nan, "inf": np.inf}
    for lf in p.leaves:
        env[lf.name] = graphgrad.tensor(lf.data.copy(), dtype=getattr(graphgrad, lf.dtype),
                                        requires_grad=lf.requires_grad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ln in p.lines:
            try:
                exec(ln, env)
            except Exception:
                return
            yield ln, env


_GELU_LINE = re.compile(r"^\w+ = T\.nn\.functional\.gelu\((\w+)")


def _gelu_far_tail(p):
    """Whether ``p`` takes gelu of a value below -5 (where PyTorch's float64 1 + erf
    cancels; the program run on graphgrad to see it)."""
    if not any(_GELU_LINE.match(ln) for ln in p.lines):
        return False
    for ln, env in _on_graphgrad(p):
        m = _GELU_LINE.match(ln)
        if m and (env[m.group(1)].detach().numpy() < -5).any():
            return True
    return False


def _has_nan(m):
    return _arrays(m) and bool(np.isnan(m.ours).any() or np.isnan(m.theirs).any())


# a p-norm whose gradient has a factor sgn(x) (p = 1, +-inf, p < 1 < 2), so whose double
# backward differentiates sgn: vector_norm(a, 1, ...), a.norm(0.5, ...)
_SGN_NORM = re.compile(r"(vector_norm\(\w+, (1|inf|-inf), |\.norm\((1|0\.5), )")


def _sgn_norm(p):
    return any(_SGN_NORM.search(ln) for ln in p.lines)


_VIEW_LINE = re.compile(r"^(\w+) = (\w+)(\[|\.(t|mT|T|transpose|permute|movedim|swapaxes|"
                        r"narrow|select|view|reshape|expand|squeeze|unsqueeze|diagonal|"
                        r"unbind|chunk|split|unfold|real|imag)\b)")
_INPLACE_LINE = re.compile(r"^(\w+)\.\w+_\((\w+)")
_SETITEM_LINE = re.compile(r"^(\w+)\[.*\] = (\w+)$")


def _view_roots(p):
    """{name: the name it is a view of, followed to the first non-view} over ``p``'s lines."""
    root = {}
    for ln in p.lines:
        m = _VIEW_LINE.match(ln)
        if m:
            root[m.group(1)] = root.get(m.group(2), m.group(2))
    return root


def _inplace_reads_own_view(p):
    """An in-place op whose tensor operand shares memory with the tensor it writes (one a
    view of the other, or two views of one base), laid out differently: w = v.t();
    w.atan2_(v); or a setitem of one into the other: w = v.t(); w[3] = v[1]."""
    root = _view_roots(p)
    for ln in p.lines:
        m = _INPLACE_LINE.match(ln) or _SETITEM_LINE.match(ln)
        if m and m.group(1) != m.group(2) and \
                root.get(m.group(1), m.group(1)) == root.get(m.group(2), m.group(2)):
            return True
    return False


def _floor_divides_into_view(p):
    """Whether ``p`` calls floor_divide_ on a view (w = x.expand(1); w.floor_divide_(y))."""
    root = _view_roots(p)
    return any(re.match(r"^(\w+)\.floor_divide_\(", ln) and ln.split(".")[0] in root
               for ln in p.lines)


_MATMUL_LINE = re.compile(r"^\w+ = (?:T\.(?:matmul|mm)\((\w+), (\w+)\)|(\w+) @ (\w+))$")


_ZERO_WRITE = re.compile(r"^(\w+)(?:\[.*\] = -?0\.0$|\.fill_\(-?0\.0\)|\.zero_\(\))")


def _matmul_of_zeros(p):
    """Whether an operand of a matmul of ``p`` holds exact zeros: a leaf with zeros, or a
    value computed from one (a rough data flow over the program's lines)."""
    tainted = {lf.name for lf in p.leaves if (lf.data == 0).any()}
    root = _view_roots(p)
    for ln in p.lines:
        z = _ZERO_WRITE.match(ln)
        if z:  # (zeros written in place: w[1:] = 0.0, fill_(0.0), zero_(); seed 1693019)
            r = root.get(z.group(1), z.group(1))
            tainted |= {n for n in root if root[n] == r} | {z.group(1), r}
        m = _MATMUL_LINE.match(ln)
        if m and tainted & {g for g in m.groups() if g}:
            return True
        target = re.match(r"^(\w+)", ln).group(1)
        if tainted & set(re.findall(r"\b[xvcw]\d+\b", ln.partition("=")[2])):
            tainted.add(target)
    return False


_POW = ("pow", "operator**")
_NUMERIC = ("value", "nan-pattern", "grad", "gradgrad", "jvp")  # kinds that compare numbers

KNOWN = [
    ("float32-gradgrad-cancellation", DELIBERATE,
     "float32 double backward whose exact value is 0 (x / x, normalize(x) = x / |x|): a "
     "rounding residual of terms of ~1e3 in both libraries, apart because a first-order value "
     "feeding them is a rounding apart (mm's BLAS sum in 1257462, the normalize/logsumexp "
     "chain's first gradient in 979698; PyTorch's float32 asinh(0.0637952), one ulp below "
     "graphgrad's correctly rounded one, in 1541395). The order in which a double backward "
     "sums its "
     "terms is PyTorch's (NOTE [VJP order]: six more seeds of this kind, 971435, 1072224, "
     "1083314, 1163859, 1169733, 1191563, now agree)",
     lambda p, m: p.seed in (979698, 1257462, 1541395) and m.kind == "gradgrad"),
    ("remainder-vectorised-overflow", DELIBERATE,
     "remainder of a dividend so large that a / b overflows (nan_to_num's 1.8e308 by -0.56): "
     "PyTorch's vectorised loop computes a - b floor(a / b) and gives NaN, its scalar loop "
     "(tensors shorter than a vector, and the tail past the last full vector, so which "
     "elements depends on the CPU) and graphgrad the exact remainder (seed 1083397)",
     lambda p, m: _uses_op(p, "remainder", "remainder_") and m.kind in _NUMERIC
     and _arrays(m) and bool((np.isnan(m.theirs) & ~np.isnan(m.ours)).any())),
    ("complex-self-division", DELIBERATE,
     "complex x / x: NumPy's division gives exactly 1+0j, PyTorch's vectorised one leaves "
     "an imaginary part of a few 1e-17 of either sign, which a later op reads (sgn_ of its "
     "view_as_real: -1 vs 0; var: 3e-34 vs 0; pow's real-exponent condition; a branch "
     "cut); each library's last bit (seeds 1373886; 945050, 1025101, 1057991, 1171689 "
     "in single-seed-cases). Also x / (0 - x): -1+0j against -1+9e-18j, whose log1p is "
     "-inf in graphgrad, -39.2+1.57j in PyTorch, and its derivatives NaN against finite "
     "(seed 1552521)",
     lambda p, m: p.dtype == "complex128" and m.kind in _NUMERIC and _divides_by_itself(p)),
    ("complex-neg-signed-zero", DELIBERATE,
     "the sign of a zero part after complex128 neg: PyTorch's vectorised loop computes 0 - z "
     "(neg(2+0j) is -2+0j, neg(0j) is 0j), its scalar loop (short tensors, and the tail "
     "past the last full vector) -z (-2-0j), complex64 -z everywhere; graphgrad negates. "
     "An op with a branch cut there (log, sqrt, pow, angle) then reads the zero's sign: "
     "+-pi j, +-1j (seeds 1404355, 1460490)",
     lambda p, m: p.dtype == "complex128" and m.kind in _NUMERIC
     and (_uses_op(p, "neg", "neg_", "negative")
          # (unary minus: -1.0 ** x is -(1.0 ** x), seed 1460490)
          or any(re.search(r"= -[\w(]", ln) for ln in p.lines))
     and _uses(p, "log", "sqrt", "pow", "operator**", "angle", "acos", "asin", "atan")),
    ("float32-erf-kernel", DELIBERATE,
     "PyTorch's float32 erf is a vectorised approximation up to an ulp off (erf(3.902) is "
     "1.0 there, 0.99999994 correctly rounded, as graphgrad's); at the edge of a domain, "
     "acosh(erf(x)) above all, that ulp decides between 0 and NaN, and so the gradients "
     "and tangents after it (seed 1273106)",
     lambda p, m: p.dtype == "float32" and _uses_op(p, "erf", "erf_") and m.kind in _NUMERIC),
    ("min-max-signed-zero-tie", DELIBERATE,
     "the sign of a min or max over a tie of 0.0 and -0.0: PyTorch's reduction along a dim "
     "keeps the first, its reduction over all elements the vector unit's choice (amin of "
     "[1, 0, -0, 0.16] along its dim is 0.0, x.min() is -0.0), NumPy's another; the sign "
     "follows each library's loop, not the arithmetic, and an op of it (x ** -1, a "
     "division) then gives the opposite infinity (seed 1329284)",
     lambda p, m: _uses_op(p, "amin", "amax", "min", "max", "aminmax") and m.kind in _NUMERIC
     and any(_both_signed_zeros(lf.data) for lf in p.leaves)),
    ("matmul-signed-zero", DELIBERATE,
     "the sign of a zero that matmul gives with an inner dimension of 1 (-0.0 * 0.5): "
     "PyTorch's mm with both other dimensions > 1 (its gemm, also for a batch folded into "
     "one mm) keeps the product's -0.0, its bmm, mv and mm with one row or column give "
     "+0.0 (a sum started from 0), as NumPy's matmul always does; so the sign follows "
     "PyTorch's BLAS routing, not the arithmetic, and graphgrad does not follow it. An op "
     "of that zero then gives the opposite infinity (reciprocal, division, remainder's "
     "gradient) or the other of +-pi and 0 (atan2), which a maximum, clamp or mask then "
     "passes on (seeds 1020350, 1090382, 1115031, 1209221, 1214045, 1228118; zeros "
     "written in place: 1693019)",
     lambda p, m: p.dtype != "complex128" and _uses(p, "matmul") and m.kind in _NUMERIC
     and _matmul_of_zeros(p)
     and (_nonfinite(m) or _uses(p, "atan2", "maximum", "minimum", "clamp", "where",
                                 "masked_fill", "remainder", "fmod"))),
    ("complex-pow-nonfinite", DELIBERATE,
     "complex pow at a zero or NaN base: 0 ** z with Re z < 0 is nan+nanj (PyTorch inf+nanj), "
     "nan ** 0 is 1 (PyTorch nan+nanj); NumPy's complex power and PyTorch's (the C "
     "library's cpow, exp(z log x)) give different special values there, and graphgrad "
     "computes with NumPy's; a mask over such values then selects other elements, and "
     "so other values, gradients and tangents (212991, 722763, 1262534; a masked "
     "assignment: 1413547)",
     lambda p, m: p.dtype == "complex128" and _uses(p, *_POW) and (
         (m.kind == "nan-pattern" and m.phase == "forward")
         # (and the values a mask over them selects: 0.0 ** z, seed 1262534)
         or (m.kind == "value" and m.phase == "forward"
             and _uses(p, "where", "masked_fill", "getitem-mask", "setitem"))
         # the mask's choice then reaches the gradients and tangents (722763)
         or (m.kind in _NUMERIC and m.phase in ("grad", "jvp")
             and _uses(p, "where", "masked_fill", "getitem-mask", "setitem")))),
    ("cumprod-nonfinite", DELIBERATE,
     "cumprod's double backward and tangent with an infinite element and a zero in the "
     "row: NaN where PyTorch's are finite and finite where PyTorch's are NaN; the "
     "derivative is undefined there (an infinite factor times a zero) and which entries "
     "come out NaN follows each formula's order of operations",
     lambda p, m: m.phase in ("grad", "gradgrad", "jvp") and _uses(p, "cumprod", "prod")
     and _has_nan(m)),
    ("rounding-threshold", DELIBERATE,
     "a mask taken from values within rounding of its threshold (|sgn z| > 1, the "
     "imaginary part of z / z > 0, |normalize(z)| > 1): the last bit of each library's "
     "complex division decides it (PyTorch's vectorised loop divides by a scaled divisor, "
     "NumPy as Smith's algorithm; seed 909224); nothing to fix",
     lambda p, m: m.kind in _NUMERIC + ("meta",)
     and _uses(p, "where", "masked_fill", "getitem-mask", "setitem")
     and _uses(p, "sgn", "div", "true_divide", "operator/", "normalize")
     and p.dtype == "complex128"),
    ("complex-nonfinite-functions", DELIBERATE,
     "complex functions of infinite or NaN arguments (acosh, atanh, cosh, exp, reciprocal, "
     "...): NumPy's special values differ from PyTorch's (C++ std::complex) in which parts "
     "are inf or NaN; graphgrad's complex kernels are NumPy's",
     lambda p, m: p.dtype == "complex128" and (
         (m.kind in ("nan-pattern", "value")
          and (p.special or (m.phase == "forward" and _nonfinite(m))))
         # (a mask over such values then selects other elements, so other gradients and
         # tangents: rsqrt(-0+0j), seed 951570)
         or (m.kind in _NUMERIC and m.phase in ("grad", "gradgrad", "jvp") and p.special
             and _uses(p, "where", "masked_fill", "getitem-mask")))),
    ("std-jvp-constant", DELIBERATE,
     "the forward-mode derivative of std at a constant input is 0 (PyTorch: NaN; "
     "docs/differences.md, Op library)",
     lambda p, m: m.phase == "jvp" and _uses(p, "std") and _arrays(m)
     and bool((np.isnan(m.theirs) & (m.ours == 0)).any())),
    ("single-seed-cases", DELIBERATE,
     "found once each by the long run (replay the seed). Rounding of ill-conditioned "
     "values: a var of reciprocals, 11 % apart (119184); floor_divide of large erfc/matmul "
     "values, 4e-7 apart (519919); float32 double backward of x / expm1(x) near 0, 4 % "
     "apart (700083) and of atan2 over atanh values near +-1 (201546). Complex special "
     "values and branch points (as complex-nonfinite-functions, complex-branch-points): "
     "acosh_/atanh_ 4e-9 apart (114720), an infinity's sign after matmul, division and "
     "angle (116310), a mask over pow results (212991). Derivatives at undefined points "
     "(a zero norm, an infinite or NaN entry), where which entries are NaN, inf or 0 "
     "follows each formula's order of operations: vector_norm's double backward at a zero "
     "row (109854), norm of log10's double backward (205484), a norm's tangent at 0 "
     "(518589), the -inf-norm's double backward at a NaN entry (416326). PyTorch's internal 'Tensor must have a last dimension with stride "
     "1' for view_as_real of a gradient laid out otherwise (117439). sqrt's tangent at an exact 0 made by a matmul "
     "of zeros: the infinity's sign is the zero's, which follows the order of the tangent's "
     "products (721170). pow's double backward at an exponent of -inf (x ** -inf = inf): "
     "inf in graphgrad, NaN in PyTorch, the order of (-inf) (-inf - 1) x^(-inf) (730924). "
     "float32 double backward of v / v for a matmul's v: the exact value is 0, each "
     "library's is its rounding, 0.1 % apart (945305). 0 ** (x / x) for complex x: "
     "NumPy's x / x is exactly 1 + 0j, PyTorch's complex division leaves a tiny imaginary "
     "part, so pow's gradient condition (a real exponent >= 0 gives 0) differs: 0 vs NaN "
     "(945050, 1025101), and rsqrt(0 - x / x) on the branch cut, the sign of that tiny "
     "imaginary part choosing +-1j (1057991), and the var of such x / x (exactly 0 in "
     "graphgrad, 3e-34 in PyTorch) whose reciprocal is then inf (1171689). float32 double "
     "backward of atan2(0, erfc(5.26)) = atan2(0, 1e-13), whose intermediate 1 / w^3 "
     "overflows: PyTorch inf, graphgrad NaN, float64 (both) 8e13 (1028491). float64 double "
     "backward of softmax over expm1 values near 1e4: "
     "terms of 1e4 cancel to ~1e-8, each library's value its rounding (861567). PyTorch's "
     "internal 'Tensor must have a last dimension with stride 1' for view_as_real in "
     "backward, as 117439 (1014822), and of an empty narrow of a complex tensor (1174658)",
     lambda p, m: p.seed in (109854, 114720, 117439, 119184, 116310, 201546,
                             205484, 212991, 518589,
                             519919, 700083, 416326, 721170, 730924, 945305, 945050,
                             861567, 1025101, 1014822, 1057991, 1171689, 1174658,
                             1028491)),
    ("real-view-write-inf-grad", DELIBERATE,
     "an in-place write into the real (or imaginary) view of a complex tensor, with an "
     "infinite gradient reaching that view's region: the written part's derivative is 0 "
     "and the other part's finite, as graphgrad gives; PyTorch's gradient of the whole "
     "complex tensor is NaN there (an inf times that 0 in its reassembly of the complex "
     "gradient) (seeds 415514, 511291, 20377; through view_as_real: 1159192)",
     lambda p, m: p.dtype == "complex128"
     and _uses(p, "@view:real", "@view:imag", "@view:view_as_real")
     and m.kind == "nan-pattern" and m.phase in ("grad", "gradgrad") and _arrays(m)
     and bool((np.isnan(m.theirs) & ~np.isnan(m.ours)).any())),
    ("elu-nan-derivative", DELIBERATE,
     "elu's derivative at a NaN input is NaN in graphgrad, as PyTorch's vectorised loop "
     "gives on every CPU; PyTorch's scalar loop (tensors shorter than a vector, and the "
     "tail past the last full vector, so which elements depends on the CPU) passes the "
     "gradient or tangent through unchanged (seeds 701672, 701954)",
     lambda p, m: m.phase in ("grad", "gradgrad", "jvp") and _uses_op(p, "elu", "elu_")
     and _ours_nan_where_torch_not(m)),
    ("jvp-result-aliases-tangent", DELIBERATE,
     "PyTorch's tangent of frac(x), remainder(x, number) and fmod(x, number) is x's tangent "
     "itself, so an in-place op on the result changes x's tangent too (a PyTorch bug); "
     "graphgrad's is a copy, as PyTorch's is for every other op (seeds 401001, 403047)",
     lambda p, m: m.phase == "jvp" and m.kind in ("jvp", "nan-pattern")
     and _uses(p, "frac", "remainder", "fmod") and _uses(p, "inplace", "setitem")),
    ("sgn-zerotensor", DELIBERATE,
     "PyTorch's gradient of sgn of a real tensor is an efficient ZeroTensor, which the "
     "backward formulas before it keep zero even against inf or NaN (pow at a negative "
     "base; the double backward of abs and of the 1-, inf- and p < 2 norms, whose "
     "gradients have a factor sgn(x); sgn's tangent), and whose "
     "product with a Python number is float64 in a float32 program; graphgrad's are "
     "ordinary zeros (0 * NaN = NaN, dtype kept), as it has no ZeroTensor (seeds 411636, "
     "504764, 517112, 7206, 515394; norms: 722856, an infinite entry; 748968, a var "
     "with no degree of freedom, whose constant NaN derivative multiplies the zero; in a "
     "complex program, sgn or abs_ of a complex tensor's var, which is real: 1130069, "
     "1059445)",
     lambda p, m: (p.dtype != "complex128" or _uses(p, "var", "std")) and (
         (m.phase in ("grad", "gradgrad", "jvp")
          and (_uses(p, "sgn") or (m.phase == "gradgrad" and (
              _uses(p, "abs") or _sgn_norm(p))))
          and _ours_nan_where_torch_not(m))
         or (m.kind == "meta" and m.phase == "jvp" and _uses(p, "sgn")
             and "torch float64" in m.detail))),
    ("gelu-float64-far-tail", DELIBERATE,
     "float64 gelu below about -8.3: PyTorch's x (1 + erf(x / sqrt 2)) / 2 is -0.0 there "
     "(erf rounds to -1), graphgrad's erfc form gives the tiny true value (-4e-28 at "
     "-11.1); an op that divides by it (remainder(v, v), v / v, log) then gives NaN or "
     "-inf in PyTorch and a number in graphgrad (seed 711598). Above it, from about -5, "
     "PyTorch's 1 + erf cancels: gelu(-6.76) is 2.4e-6 off (relative) in PyTorch, exact "
     "in graphgrad, and a division by it amplifies that (seed 978356). pow with that "
     "value as exponent: PyTorch's x ** -0.0 is 1, graphgrad's x ** -4e-28 for x < 0 NaN "
     "(1116886); as base: PyTorch's (-0.0) ** -1.2 is inf, graphgrad's NaN (1170249); "
     "remainder(gelu(-12.05), 1.9) is -0.0 in PyTorch, 1.9 in graphgrad (1577474). "
     "Matched where the program takes gelu of a value below -5",
     lambda p, m: p.dtype == "float64" and _uses(p, "gelu") and m.kind in _NUMERIC
     and (p.seed in (711598, 978356, 1116886, 1170249) or _gelu_far_tail(p))),
    ("gelu-float32-kernel", DELIBERATE,
     "PyTorch's float32 gelu takes erf from a vectorised approximation (NaN at +inf, inf "
     "in graphgrad, the limit); graphgrad's float32 gelu is x (1 + erf(x / sqrt 2)) / 2 "
     "too, with erf from Abramowitz and Stegun 7.1.26 (NOTE [float32 gelu]): both within "
     "~1.5e-7 of the function, not the same approximation, so in the far negative tail, "
     "where 1 + erf cancels, values apart by up to tens of percent (gelu(-5.0) = -1.19e-6 "
     "in PyTorch, -1.49e-6 in graphgrad, the function -1.43e-6) (seeds 404422, 415276, "
     "16673, 18589)",
     lambda p, m: p.dtype == "float32" and _uses(p, "gelu") and m.kind in _NUMERIC),
    ("copy-real-tangent-into-complex", DELIBERATE,
     "copy_ (or t[...] = v) of a real dual tensor into a complex tensor without a tangent, or "
     "of a complex one into a real tensor: PyTorch's tangent keeps the source's dtype (a "
     "complex tensor with a real tangent, a real one with a complex tangent); graphgrad's "
     "has the tensor's own dtype (seeds 412146, 872995, 833414)",
     lambda p, m: m.kind == "meta" and m.phase == "jvp" and _uses(p, "copy_", "setitem")
     and "complex" in m.detail and ("torch float" in m.detail
                                    or "graphgrad float" in m.detail)),
    ("inplace-overlapping-operand", DELIBERATE,
     "an in-place op whose other operand is a differently laid-out view of the tensor it "
     "writes (w = v.t(); w.atan2_(v)): PyTorch reads some elements after its loop has "
     "already overwritten them, so its result depends on its loop order; graphgrad reads "
     "the operands before writing (seed 872940). The same for a setitem (w6 = v2.transpose"
     "(0, 1); w3 = v2[1]; w6[3] = w3, seed 1531700). Where PyTorch can tell the overlap "
     "(contiguous operands) it raises, as graphgrad does",
     lambda p, m: m.kind in _NUMERIC and _inplace_reads_own_view(p)),
    ("zerotensor-immutable", DELIBERATE,
     "PyTorch's gradients known to be zero are immutable ZeroTensors ('ZeroTensors are "
     "immutable'); graphgrad's are ordinary zeros",
     lambda p, m: m.kind == "error-type" and _torch_msg(m, r"ZeroTensors are immutable")),
    ("complex-branch-points", DELIBERATE,
     "complex asin/acosh/atanh near their branch points and cuts: values a few 1e-9 apart "
     "and NaN patterns of their gradients; the last bits of each library's formula decide "
     "the side of a cut (seeds 210755, 211346)",
     lambda p, m: p.dtype == "complex128" and m.kind in _NUMERIC
     and _uses(p, "asin", "acos", "atanh", "acosh")),
    ("complex-add-inf", DELIBERATE,
     "PyTorch's vectorised complex add/sub multiplies a broadcast infinite or NaN operand by "
     "alpha=1 as a complex product ((1+inf j) * 1 has real part 1 - 0*inf = NaN, and "
     "(1+nan j) * 1 is nan+nanj); graphgrad adds. Also for an infinity a masked_fill "
     "makes: (1+1j) + (-inf+0j) is -inf+nanj in PyTorch, whose log's tangent is then NaN "
     "(graphgrad -0; seed 953719)",
     lambda p, m: p.dtype == "complex128"
     and (p.special or _nonfinite_leaf(p) or _fills_inf(p))
     and _uses(p, "add", "sub", "operator+", "operator-")
     and ((m.kind in ("nan-pattern", "value") and m.phase == "forward")
          # (a mask over such a sum then selects other elements: all later values differ;
          # a masked assignment too, seed 746034)
          or (m.kind in _NUMERIC
              and _uses(p, "where", "masked_fill", "getitem-mask", "setitem")))),
    ("complex-matmul-nonfinite", DELIBERATE,
     "complex matmul with infinite or NaN elements: BLAS products of inf (PyTorch's and "
     "NumPy's) disagree on which parts become NaN; nothing to follow: PyTorch's own parts "
     "differ by its route (a 1-d by 3-d matmul of -inf+0j gives nan-infj without grad, "
     "nan+nanj with it), so a mask |v| > 1 over them, and the tangents it selects, differ "
     "too (seed 1528176, the infinity from masked_fill)",
     lambda p, m: p.dtype == "complex128"
     and (p.special or _nonfinite_leaf(p) or _fills_inf(p)) and _uses(p, "matmul")
     and m.kind in ("value", "nan-pattern", "grad", "gradgrad", "jvp")),
    ("conj-view-writes", DELIBERATE,
     "conj returns a copy (docs/differences.md): writing through a view of conj(x) does not "
     "change x as PyTorch's lazy conjugate view does",
     lambda p, m: m.kind != "false-error" and any(op == "conj" for op in p.ops)
     and _uses(p, "setitem", "inplace")),
    ("floor-divide-differentiable", DELIBERATE,
     "floor_divide, // and Number % Tensor are differentiable; PyTorch raises in backward "
     "(docs/differences.md, Op library); so a gradient reaches ops after them that PyTorch "
     "never differentiates, such as an in-place acosh_ without a derivative (seed 1019517). "
     "PyTorch's floor_divide_ into a view of a tensor without grad loses even the edge to "
     "its divisor (its CopySlices takes the NotImplemented node's first edge, the "
     "divisor's, for the view's own), so the divisor looks unused and PyTorch's backward "
     "never runs the nodes after it; graphgrad's does, and one of them can raise PyTorch's "
     "own error there: w.mul_(w) saved w, then modified in place (seed 1514760)",
     lambda p, m: (m.kind == "error-type" and m.phase in ("grad", "gradgrad") and _torch_msg(
         m, r"derivative for aten::(floor_divide|remainder)"))
     or (m.kind == "meta" and m.phase == "grad" and _uses(p, "floor_divide"))
     or (m.kind == "false-error" and m.phase in ("grad", "gradgrad")
         and _uses(p, "floor_divide") and _our_msg(m, r"derivative for .* not implemented"))
     or (m.kind == "false-error" and m.phase in ("grad", "gradgrad")
         and _floor_divides_into_view(p) and _our_msg(m, r"modified by an inplace operation"))),
    ("conj-is-a-copy", DELIBERATE,
     "conj returns a copy, not a lazy conjugate view, so in-place on conj(leaf) is allowed "
     "(docs/differences.md, Op library)",
     lambda p, m: m.kind == "error-type" and any(op == "conj" for op in p.ops)
     and (_torch_msg(m, r"view of a leaf Variable")
          # (nor an unresolved conjugate that view_as_real refuses, seed 833027)
          or _torch_msg(m, r"unresolved conjugated tensors"))),
    ("real-input-complex-grad", DELIBERATE,
     "a real input that receives a complex gradient through a promoting op (where(real, "
     "complex), view_as_real) gets its real part; PyTorch fails an internal check "
     "('input_is_complex == grad_is_complex')",
     lambda p, m: m.kind == "error-type" and _torch_msg(m, r"input_is_complex == grad_is_complex")),
    ("view-as-real-stride-error", DELIBERATE,
     "PyTorch's internal 'Tensor must have a last dimension with stride 1' in the backward "
     "of view_as_real when the gradient reaching it is laid out otherwise (a transposed or "
     "empty one); an artefact of its view_as_complex, the gradient is well defined and "
     "graphgrad computes it (seeds 117439, 1014822, 1174658, 1285987)",
     lambda p, m: m.kind == "error-type" and _uses(p, "view_as_real")
     and _torch_msg(m, r"Tensor must have a last dimension with stride 1")),
]


def classify(prog, mismatch):
    for ident, _status, _reason, pred in KNOWN:
        try:
            if pred(prog, mismatch):
                return ident
        except Exception:  # a predicate must never hide a mismatch by crashing
            continue
    return None
