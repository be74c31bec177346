"""Regression tests for mismatches the differential fuzzer found (tests/fuzz), each
running one program on graphgrad and on PyTorch (``run_both``)."""
import pytest

from tests.conftest import run_both


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "true_divide", "floor_divide",
                                  "multiply", "subtract", "divide"])
@pytest.mark.parametrize("number", [3.0, 2, True, 1.5j])
def test_number_as_first_operand(name, number):
    """torch.sub(2.0, t) is 2.0 - t (a wrapped number: t's dtype is kept); graphgrad raised
    TypeError (true_divide: AttributeError)."""
    def prog(T):
        # (floor_divide is differentiable here, PyTorch's node is NotImplemented: see
        # docs/differences.md)
        x = T.tensor([1.5, -2.0, 4.0], requires_grad="floor" not in name)
        i = T.tensor([1, 2, 3])
        out = [getattr(T, name)(number, x), getattr(T, name)(number, i)]
        if out[0].requires_grad:
            out[0].abs().sum().backward()
            out.append(x.grad)
        return out
    run_both(prog)


def test_number_as_first_operand_with_alpha():
    run_both(lambda T: [T.add(2, T.tensor([1, 2]), alpha=3),
                        T.sub(2.5, T.tensor([1.0, 2.0], dtype=T.float64), alpha=2)])


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("a, b", [(2.0, 3), (2, 3), (True, 2.5), (1, 1j), (True, False), ("a", 2)])
def test_two_numbers(name, a, b):
    """torch.add(2, 3) is tensor(5): numbers become a 0-d tensor of their PyTorch type."""
    run_both(lambda T: getattr(T, name)(a, b))


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_tangent_at_nan_and_infinity(name):
    """PyTorch's tangent is other_t + c * (self_t - other_t) with c = 1 where self is the
    result, 1/2 at a tie, else 0: at a NaN in self it is other_t's, and a non-finite tangent
    difference gives NaN. graphgrad returned self_t at a NaN and finite values where
    PyTorch's were NaN (fuzz seeds 65, 128, 1319)."""
    def prog(T):
        fwd = T.autograd.forward_ad
        nan, inf = float("nan"), float("inf")
        a = T.tensor([nan, 1.0, 2.0, inf, -1.0, 3.0, nan], dtype=T.float64)
        b = T.tensor([0.5, nan, 2.0, 1.0, inf, -inf, nan], dtype=T.float64)
        ta = T.tensor([1.0, 2.0, 3.0, inf, 5.0, 6.0, 7.0], dtype=T.float64)
        tb = T.tensor([-1.0, -2.0, -3.0, -4.0, nan, -inf, -7.0], dtype=T.float64)
        out = []
        with fwd.dual_level():
            for x, y in ((fwd.make_dual(a, ta), fwd.make_dual(b, tb)),
                         (fwd.make_dual(b, tb), fwd.make_dual(a, ta))):
                out.append(fwd.unpack_dual(getattr(T, name)(x, y)).tangent)
        return out
    run_both(prog)


def test_signed_zero_ties_keep_the_input():
    """PyTorch's relu, clamp and maximum/minimum return their input (self) at a tie of 0.0
    and -0.0: relu(-0.0) is -0.0, so 1 / relu(x) is -inf there; NumPy's maximum returns its
    second operand, so graphgrad gave 0.0 (fuzz seed 144: floor_divide(y, relu(x)) gave
    inf where PyTorch gives -inf)."""
    def prog(T):
        x = T.tensor([-0.0, 0.0, -1.0, 2.0, float("nan")], dtype=T.float64)
        z = T.tensor([0.0, -0.0, 0.0, -0.0, 0.0], dtype=T.float64)
        outs = [T.relu(x), T.nn.functional.relu(x), x.clone().relu_(), T.clamp(x, min=0.0),
                T.clamp(x, max=-0.0), T.clamp(x, 0.0, 0.0), x.clamp_min(0.0), x.clamp_max(-0.0),
                T.clamp(x, min=z), T.clamp(x, max=z), T.clamp(x, z, z), T.maximum(x, z),
                T.minimum(x, z), T.maximum(z, x), T.minimum(z, x), T.relu(x.float())]
        return [1 / o for o in outs]
    run_both(prog)


@pytest.mark.parametrize("name", ["angle", "sgn"])
def test_second_derivative_at_complex_zero_is_nan(name):
    """PyTorch's angle and sgn rules divide by |z| (or |z|^2) in the branch a where (or
    masked_fill) discards at z == 0: the first derivative there is 0, the second NaN
    (0 / 0 in the untaken branch). graphgrad divided by 1 there and gave 0 (fuzz seed
    4843: angle(asin(z)))."""
    def prog(T):
        z = T.tensor([0j, 1 + 1j, -2 + 0.5j], dtype=T.complex128, requires_grad=True)
        y = getattr(T, name)(z)
        w = T.tensor([1 + 0.5j, -1j, 2], dtype=T.complex128) if y.is_complex() else \
            T.tensor([1.0, -1.0, 2.0], dtype=T.float64)
        L = (y * w).sum()
        g, = T.autograd.grad(L.real if L.is_complex() else L, z, create_graph=True)
        gg, = T.autograd.grad((g * T.tensor([1 + 1j, 1, -1j])).sum().real, z)
        return g.detach(), gg  # (the rules' own node names differ)
    run_both(prog)


@pytest.mark.parametrize("a, b", [((2, 3, 0), (0, 4)), ((2, 1, 0), (0, 5)), ((2, 3, 0), (0,)),
                                  ((1, 2, 0), (0, 0))])
def test_matmul_of_a_batch_with_empty_inner_dim(a, b):
    """A batch times a matrix with K == 0 gives zeros; graphgrad's fold into one mm reshaped
    to (-1, 0) and raised "shape '[-1, 0]' is invalid" (fuzz seed 4183)."""
    def prog(T):
        x = T.ones(*a, dtype=T.float64, requires_grad=True)
        y = T.ones(*b, dtype=T.float64, requires_grad=True)
        r = T.matmul(x, y)
        r.sum().backward()
        return r, x.grad, y.grad
    run_both(prog)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("fn", ["norm", "vector_norm", "normalize"])
def test_two_norm_second_derivative_at_zero_is_nan(dtype, fn):
    """PyTorch's 2-norm gradient is (x / norm).masked_fill_(norm == 0, 0): 0 at a zero
    vector, but its derivative there is 0 / 0 = NaN; graphgrad divided by 1 there and
    gave 0 (fuzz seed 3875: normalize of a zero vector)."""
    def prog(T):
        x = T.tensor([[0.0, 0.0], [1.0, -2.0]], dtype=getattr(T, dtype), requires_grad=True)
        y = {"norm": lambda: x.norm(dim=1), "vector_norm": lambda: T.linalg.vector_norm(x, 2, 1),
             "normalize": lambda: T.nn.functional.normalize(x, dim=1)}[fn]()
        w = T.ones(y.shape, dtype=y.dtype) * 0.7
        g, = T.autograd.grad((y * w).sum().real if y.is_complex() else (y * w).sum(), x,
                             create_graph=True)
        gg, = T.autograd.grad((g * T.tensor([[1.0, 2.0], [0.5, -1.0]], dtype=g.dtype)).sum().real
                              if g.is_complex() else
                              (g * T.tensor([[1.0, 2.0], [0.5, -1.0]], dtype=g.dtype)).sum(), x)
        return g.detach(), gg
    run_both(prog)


@pytest.mark.parametrize("call", [
    lambda T, x: x.sum(1), lambda T, x: x.mean(-2), lambda T, x: x.norm(2, 1),
    lambda T, x: T.linalg.vector_norm(x, 2, 1), lambda T, x: x.amax(1), lambda T, x: x.var(1),
    lambda T, x: T.logsumexp(x, 1), lambda T, x: x.prod(-2),
    lambda T, x: T.nn.functional.normalize(x), lambda T, x: x.narrow(0, 0, 1),
    lambda T, x: x.sum(0), lambda T, x: x.norm(2, -1), lambda T, x: x.sum((0,))])
def test_zero_dim_tensor_takes_dim_0_and_minus_1_only(call):
    """A 0-d tensor's dims are 0 and -1: PyTorch raises IndexError for dim=1 or -2 in a
    reduction; graphgrad ignored the dim (fuzz seed 101163: normalize of a 0-d tensor,
    whose default dim is 1). narrow of a 0-d tensor raises RuntimeError, as PyTorch's."""
    run_both(lambda T: call(T, T.tensor(2.0, requires_grad=True)))


@pytest.mark.parametrize("call", [
    lambda T, x, y: T.cat([x, y], 0), lambda T, x, y: T.cat([x, x], 0),
    lambda T, x, y: T.cat([x, x], 1), lambda T, x, y: T.stack([x, x]),
    lambda T, x, y: T.stack([x, x], 2), lambda T, x, y: T.hstack([x, x]),
    lambda T, x, y: T.vstack([x, y])])
def test_cat_and_stack_of_transposed_inputs_are_contiguous(call):
    """PyTorch's cat/stack results are contiguous whatever the inputs' layout; NumPy's
    followed transposed inputs, so .view(-1) of the result raised (fuzz seed 104187)."""
    def prog(T):
        x = T.arange(6.0).reshape(3, 2).mT.requires_grad_()
        y = T.ones(1, 3)
        r = call(T, x, y)
        return r.is_contiguous(), r.stride(), r.view(-1)
    run_both(prog)


def test_view_as_real_double_backward_with_a_transposed_gradient():
    """view_as_real's backward makes its gradient contiguous before view_as_complex; under
    create_graph a transposed gradient (from v.t()) stayed transposed (clone keeps the
    layout) and view_as_complex raised (fuzz seed 102628)."""
    def prog(T):
        x = T.tensor([1 + 2j, 3 - 1j, 0.5j, 2 + 0j], requires_grad=True)
        c = x.clone()
        c.view(-1).mul_(-1.0)
        v = T.view_as_real(x)
        L = (v.t() * T.arange(8.0).reshape(2, 4)).sum() + \
            (c * T.tensor([1j, 2, 3, 4])).sum().real
        g, = T.autograd.grad(L, x, create_graph=True)
        return g
    run_both(prog)


@pytest.mark.parametrize("a, b", [((3, 2, 4), (2, 4, 1)), ((2, 3, 1, 2), (4, 2, 5)),
                                  ((5, 2, 3), (4, 3))])
def test_matmul_batch_dims_that_do_not_broadcast(a, b):
    """PyTorch raises RuntimeError ('The size of tensor a (3) must match ...'); graphgrad
    raised NumPy's ValueError (fuzz seed 115871)."""
    run_both(lambda T: T.matmul(T.ones(*a), T.ones(*b)))


@pytest.mark.parametrize("name, call", [
    ("cumsum", lambda T, x: x.cumsum(1)), ("cumprod", lambda T, x: x.cumprod(0)),
    ("cummax", lambda T, x: x.cummax(1).values), ("cummin", lambda T, x: x.cummin(0).indices),
    ("softmax", lambda T, x: x.softmax(1)), ("log_softmax", lambda T, x: x.log_softmax(0)),
    ("roll", lambda T, x: x.roll(1, 0)), ("masked_fill", lambda T, x: x.masked_fill(x > 2, 0.0))])
def test_results_of_transposed_inputs_are_contiguous(name, call):
    """These ops return a contiguous result for a transposed input in PyTorch, so a
    reshape of it is a view and writing into that view changes it; graphgrad's followed
    the input's layout, reshape copied, and the write was lost (fuzz seed 108954:
    cumsum(x.mT, 1).reshape(-1)[4] = y)."""
    def prog(T):
        x = T.arange(6.0).reshape(3, 2).mT
        r = call(T, x)
        w = r.reshape(-1)
        w[1] = 7
        return r.is_contiguous(), r.stride(), r
    run_both(prog)


@pytest.mark.parametrize("make", [
    lambda T: T.mul(T.zeros(0, 1, 2), T.ones(2, 1, 1, 1)),
    lambda T: T.zeros(3, 0) + T.zeros(1, 1),
    lambda T: T.zeros(1, 0).expand(4, 0),
])
def test_inplace_on_an_empty_tensor_is_not_an_overlap(make):
    """An empty result of broadcasting has zero strides in NumPy; no element can share a
    memory location, so writing into it is allowed (PyTorch). graphgrad raised its
    'more than one element of the written-to tensor' error (fuzz seed 300806)."""
    def prog(T):
        x = T.ones(1, 1, requires_grad=True)
        v = make(T)
        v.mul_(x)
        v.add_(1.0)
        return [v, v.requires_grad]
    run_both(prog)


@pytest.mark.parametrize("fn", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("data, kw", [
    ([2.0], {}), (2.0, {}), ([2.0], {"dim": 0}), ([[2.0], [3.0]], {"dim": 1}),
    ([2.0, 3.0], {"correction": 2}), ([2.0, 2.0], {"correction": 2}),
    ([2.0, 3.0], {"dim": 0, "correction": 3}), ([2.0, 3.0, 5.0], {"correction": 1}),
    ([[1.0, 2.0]], {"dim": (0, 1), "correction": 2}),
])
def test_var_std_without_degrees_of_freedom(fn, data, kw):
    """PyTorch's var rule over all elements (dim=None or a 0-d input) with dof <= 0 is the
    constant grad * where(x == mean, nan, inf), so double backward has no path through it;
    with an explicit dim its factor is 2 / (n - correction), not clamped (negative for a
    correction above n). graphgrad used (x - mean) * inf in both: NaN double gradients and
    tangents (fuzz: var-dof-0)."""
    import warnings

    def prog(T):
        fwd = T.autograd.forward_ad
        x = T.tensor(data, dtype=T.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = getattr(T, fn)(x, **kw)
            v = r[0] if isinstance(r, tuple) else r
            out = [v, v.grad_fn._saved_dim if fn in ("var", "std") else None]
            g, = T.autograd.grad(v.sum() * 1.0, x, create_graph=True)
            if fn in ("var", "std"):
                out.append(g)
                w = T.arange(1.0, g.numel() + 1, dtype=T.float64).reshape(g.shape)
                out.append(T.autograd.grad((g * w).sum(), x, allow_unused=True)
                           if g.requires_grad else None)
            else:  # (the two-output rules add the mean's zero gradient: an AddBackward0)
                out.append(g.detach())
            # a gradient that requires grad itself: the path through grad stays
            u = T.tensor(1.5, dtype=T.float64, requires_grad=True)
            g, = T.autograd.grad(v.sum() * u, x, create_graph=True)
            out.append(T.autograd.grad(g.sum(), u))
            with fwd.dual_level():
                d = fwd.make_dual(x.detach(), T.ones_like(x) * 0.5)
                r = getattr(T, fn)(d, **kw)
                out.append(fwd.unpack_dual(r[0] if isinstance(r, tuple) else r).tangent)
        return out
    run_both(prog)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_remainder_zero_keeps_the_dividends_sign(dtype):
    """PyTorch's remainder is fmod plus the divisor where the signs differ, so a zero
    result has the dividend's sign (1 / (3.0 % -1.5) is inf); NumPy's remainder gives it
    the divisor's (-inf). Fuzz seed 110355 (remainder-number-signed-zero)."""
    def prog(T):
        nan, inf = float("nan"), float("inf")
        dt = getattr(T, dtype)
        a = T.tensor([0.0, -0.0, 3.0, -3.0, 1.5, -1.5, 4.5, -1.0, 1.0, inf, nan, -2.5, 7.25],
                     dtype=dt)
        b = T.tensor([-1.5, -1.5, -1.5, 1.5, 1.5, -1.5, -1.5, inf, -inf, 2.0, 1.0, 0.0, -2.0],
                     dtype=dt)
        c = a.clone()
        c.remainder_(b)
        return [1 / T.remainder(a, b), 1 / (0.0 % b), 1 / T.remainder(a, -1.5),
                1 / T.remainder(3.0, b), 1 / c, 1 / T.remainder(a[2], -1.5)]
    run_both(prog)


@pytest.mark.parametrize("make_view", [
    lambda x: x.squeeze(), lambda x: x.permute(0), lambda x: x[0], lambda x: x[1:],
    lambda x: x.unsqueeze(0).transpose(0, 1),
])
def test_view_sees_the_tangent_its_base_gets_later(make_view):
    """A view taken before its base gets a tangent through an in-place op (writing a dual
    into another view of it) has the matching view of the base's tangent, as PyTorch's
    views read their base's forward gradient; graphgrad's had none (fuzz seeds 400369,
    401185). The primal unpack_dual returns never takes one."""
    def prog(T):
        fwd = T.autograd.forward_ad
        out = []
        with fwd.dual_level():
            base = T.tensor([-0.5, 2.0], dtype=T.float64)
            w = make_view(base)
            p = fwd.unpack_dual(base).primal
            d = fwd.make_dual(T.tensor(1.5, dtype=T.float64), T.tensor(3.0, dtype=T.float64))
            base.narrow(0, 0, 1)[...] = d
            out += [fwd.unpack_dual(w).tangent, fwd.unpack_dual(base).tangent,
                    fwd.unpack_dual(p).tangent, fwd.unpack_dual(w * 2).tangent]
            w.mul_(3)   # through the view: the base's tangent changes too
            out += [fwd.unpack_dual(w).tangent, fwd.unpack_dual(base).tangent]
        return out
    run_both(prog)


@pytest.mark.parametrize("name", ["fmod", "remainder", "fmod_", "remainder_"])
def test_mod_tangent_with_a_divisor_without_tangent(name):
    """A divisor without a tangent adds nothing to fmod's/remainder's tangent (PyTorch's
    zero tangent is a ZeroTensor): at a zero divisor the quotient is inf or NaN, and
    graphgrad's 0 * quotient made the tangent NaN (fuzz seeds 401237, 403637, 413449)."""
    def prog(T):
        fwd = T.autograd.forward_ad
        nan, inf = float("nan"), float("inf")
        with fwd.dual_level():
            x = fwd.make_dual(T.tensor([1.0, -2.5, nan, inf, 0.0], dtype=T.float64),
                              T.tensor([0.5, -1.0, 2.0, 3.0, 4.0], dtype=T.float64))
            d = T.tensor([0.0, 0.0, 1.0, 2.0, -0.0], dtype=T.float64)
            y = getattr(x.clone(), name)(d) if name.endswith("_") else getattr(T, name)(x, d)
            e = fwd.make_dual(d, T.tensor([1.0, 2.0, 3.0, 4.0, 5.0], dtype=T.float64))
            z = getattr(T, name.rstrip("_"))(T.tensor([1.0, 2.0, 3.0, 4.0, 5.0],
                                                      dtype=T.float64), e)
            return [fwd.unpack_dual(y).tangent, fwd.unpack_dual(z).tangent]
    run_both(prog)


def test_nan_to_num_keeps_a_nan_gradient_and_tangent():
    """PyTorch's nan_to_num rule is grad * isfinite(self): a NaN gradient (or tangent) at a
    non-finite input stays NaN; graphgrad's where(isfinite, grad, 0) gave 0 (fuzz seeds
    403440, 212777, 216713)."""
    def prog(T):
        fwd = T.autograd.forward_ad
        nan, inf = float("nan"), float("inf")
        x = T.tensor([nan, inf, -inf, 1.0, 0.0], dtype=T.float64, requires_grad=True)
        y = T.nn.functional.silu(x).nan_to_num()
        g, = T.autograd.grad((y * T.tensor([1.0, 2.0, 3.0, 4.0, 5.0], dtype=T.float64)).sum(),
                             x, create_graph=True)
        gg, = T.autograd.grad(g.sum(), x)
        with fwd.dual_level():
            d = fwd.make_dual(x.detach(), T.ones(5, dtype=T.float64))
            t = fwd.unpack_dual(T.nn.functional.silu(d).nan_to_num()).tangent
        return [y, g, gg, t]
    run_both(prog)


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_of_all_elements_keep_a_nan_gradient_at_the_extremes(name):
    """PyTorch's max()/min() backward fills grad / count in at the extreme elements of a
    zero tensor (masked_fill): a NaN gradient stays there; graphgrad's mask * grad put
    0 * NaN = NaN everywhere (fuzz seeds 405276, 411685, 410772)."""
    def prog(T):
        x = T.tensor([[3.0, 3.0, -2.0, 0.5]], dtype=T.float64, requires_grad=True)
        m = getattr(x, name)()
        y = m.unsqueeze(0).var() * m  # var of one element: NaN gradient into m
        g, = T.autograd.grad(y, x, create_graph=True)
        gg, = T.autograd.grad(g.sum(), x, allow_unused=True)
        u = T.tensor(0.0, dtype=T.float64, requires_grad=True)
        g2, = T.autograd.grad(getattr(x, name)() * (u / u), x, create_graph=True)
        return [g, gg, g2, T.autograd.grad(g2.sum(), u)]
    run_both(prog)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_norm_of_one_element_is_its_absolute_value(dtype):
    """With one element per result, PyTorch's p-norm (p != 0) is exactly |x|: graphgrad's
    (|x|^0.5)^2 was 1 ulp off, so fmod(x, norm(x, 0.5)) gave x instead of 0 (fuzz seed
    416696), and x * x overflowed float32 for 2-norms of 1e30."""
    def prog(T):
        dt = getattr(T, dtype)
        x = T.tensor([0.914312459625906, 0.3, -2.2, 1e30, -1e-30, 0.0], dtype=dt)
        out = []
        for p in (0, 0.5, 1, 1.5, 2, 3, -1, float("inf"), -float("inf")):
            out.append(T.linalg.vector_norm(x.unsqueeze(0), p, dim=0))
            out.append(x[:1].norm(p))
        out.append(T.fmod(x[:1], x[:1].norm(0.5, -1, keepdim=True)))
        return out
    run_both(prog)


def test_logsumexp_tangent_over_empty_rows_is_nan():
    """PyTorch's logsumexp tangent is sum(exp(x) * x_t) / sum(exp(x)): over an empty row
    0 / 0 = NaN; graphgrad's was 0 (fuzz seed 113389)."""
    def prog(T):
        fwd = T.autograd.forward_ad
        with fwd.dual_level():
            x = fwd.make_dual(T.zeros(3, 0), T.zeros(3, 0))
            y = fwd.make_dual(T.tensor([[-float("inf"), -float("inf")], [1.0, 2.0]]),
                              T.ones(2, 2))
            return [fwd.unpack_dual(T.logsumexp(x, -1)).tangent,
                    fwd.unpack_dual(T.logsumexp(x, -1, keepdim=True)).tangent,
                    fwd.unpack_dual(T.logsumexp(y, 1)).tangent]
    run_both(prog)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pow_with_a_one_element_exponent_tensor_is_elementwise_pow(dtype):
    """pow(x, tensor([0.5])) is PyTorch's elementwise std::pow: (-inf) ** 0.5 = inf and
    (-0.0) ** 0.5 = 0.0; NumPy takes a broadcast exponent 0.5 as sqrt (NaN, -0.0). Only a
    Python-number exponent is sqrt in PyTorch (fuzz seed 503105)."""
    def prog(T):
        dt = getattr(T, dtype)
        b = T.tensor([-float("inf"), -0.0, 4.0, 2.0], dtype=dt)
        out = []
        for e in (T.tensor(0.5, dtype=dt), T.tensor([0.5], dtype=dt),
                  T.tensor([[0.5]], dtype=dt), T.tensor([-0.5], dtype=dt),
                  T.tensor([2.0], dtype=dt)):
            out += [1 / T.pow(b, e), 1 / T.pow(b[:1], e), 1 / (b ** e)]
        out += [1 / T.pow(T.tensor(-0.0, dtype=dt), T.tensor(0.5, dtype=dt)), 1 / b ** 0.5]
        return out
    run_both(prog)


@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 2)),
                                    ((2, 2, 3), (2, 3, 2)), ((3,), (3, 2))])
def test_matmul_tangent_with_an_operand_without_tangent(shapes):
    """An operand without a tangent adds nothing to dot's tangent (PyTorch's ZeroTensor):
    x @ c of vectors with x holding -inf was NaN here, since the x @ 0 term was computed
    (fuzz seed 512405); PyTorch's mm/mv/bmm tangents do compute it (NaN), as graphgrad's."""
    def prog(T):
        fwd = T.autograd.forward_ad
        inf = float("inf")
        a = T.arange(1.0, 1.0 + T.zeros(shapes[0]).numel(), dtype=T.float64).reshape(shapes[0])
        b = T.arange(2.0, 2.0 + T.zeros(shapes[1]).numel(), dtype=T.float64).reshape(shapes[1])
        a.view(-1)[0] = -inf
        b.view(-1)[-1] = inf
        out = []
        with fwd.dual_level():
            da = fwd.make_dual(a, T.ones_like(a))
            db = fwd.make_dual(b, T.ones_like(b))
            out.append(fwd.unpack_dual(da @ b.clone().fill_(1.0)).tangent)
            out.append(fwd.unpack_dual(a.clone().fill_(1.0) @ db).tangent)
            out.append(fwd.unpack_dual(T.matmul(da, b.clone().fill_(1.0)) * 0.0).tangent)
        return out
    run_both(prog)


@pytest.mark.parametrize("name", ["amax", "amin", "max", "min"])
def test_extreme_tangent_with_an_infinite_tangent_elsewhere(name):
    """PyTorch's amax/amin tangent is where(mask, t, 0).sum() / count: an inf or NaN tangent
    of an element that is not the extreme does not reach it (graphgrad's mask * t gave NaN;
    fuzz seed 705747); max()/min() multiply (NaN in both)."""
    def prog(T):
        fwd = T.autograd.forward_ad
        inf, nan = float("inf"), float("nan")
        out = []
        with fwd.dual_level():
            for t in ([2.0, inf, 3.0], [2.0, nan, 3.0], [-inf, 1.0, 3.0]):
                x = fwd.make_dual(T.tensor([[1.0, 0.5, 1.0]]), T.tensor([t]))
                y = getattr(x, name)() if name in ("max", "min") else getattr(x, name)(-1)
                out.append(fwd.unpack_dual(y).tangent)
        return out
    run_both(prog)


@pytest.mark.parametrize("case", ["sub", "rsub", "mul-broadcast", "maximum", "where", "both-t",
                                  "slice", "add-alpha", "3d", "promote"])
def test_elementwise_result_takes_the_layout_of_its_first_operand(case):
    """PyTorch's TensorIterator lays an elementwise result out as its first operand that
    orders the dims decides (a transposed operand gives a transposed result); NumPy's
    ufuncs fall back to row-major when operands disagree. So reshape(-1) of t() - c was a
    view here and a copy in PyTorch, and a write through it changed the result only here
    (fuzz seed 204206)."""
    def prog(T):
        a = T.arange(6.0, dtype=T.float64).reshape(3, 2).requires_grad_()
        c = T.ones(2, 3, dtype=T.float64)
        at = a.t()
        r = {"sub": lambda: at - c, "rsub": lambda: c - at, "mul-broadcast": lambda: at * c[0],
             "maximum": lambda: T.maximum(at, c),
             "where": lambda: T.where(at.t().t() > 2, at, c),
             "both-t": lambda: at + c.t().t(), "slice": lambda: T.sub(a[::2].t(), c[:, :2]),
             "add-alpha": lambda: T.add(at, c, alpha=2),
             "3d": lambda: T.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1) * T.ones(4, 2, 3),
             "promote": lambda: at.float() + c}[case]()
        flat = r.reshape(-1)
        flat[1] = 100.0
        return [r.stride(), r.is_contiguous(), r, flat]
    run_both(prog)


@pytest.mark.parametrize("case", ["view-of-0d", "view-of-0d-owner", "shifted", "transposed",
                                  "setitem", "copy_", "addcmul_", "clamp_", "requires-grad",
                                  "requires-grad2", "full", "disjoint", "not-dense"])
def test_inplace_operand_partly_overlapping_the_written_tensor(case):
    """An in-place op whose operand shares some, not all, of the written tensor's memory
    (same memory with other strides, or a shifted range) raises PyTorch's 'some elements of
    the input tensor and the written-to tensor refer to a single memory location'; graphgrad
    wrote (fuzz seed 205024: x.view(-1).fmod_(x) of a 0-d x). The same memory with the same
    strides, disjoint memory and operands that are not dense (PyTorch cannot tell) are
    allowed; nothing is written on error."""
    def prog(T):
        x = T.arange(1.0, 7.0, dtype=T.float64)

        def setitem():
            x[1:4] = x[:3]
        y = T.tensor(-1.25, dtype=T.float64)
        run = {"view-of-0d": lambda: x[2].view(-1).fmod_(x[2]),
               "view-of-0d-owner": lambda: y.view(-1).fmod_(y),
               "shifted": lambda: x[1:].add_(x[:-1]),
               "transposed": lambda: x[:4].view(2, 2).mul_(x[:4].view(2, 2).t()),
               "setitem": setitem,
               "copy_": lambda: x[:3].copy_(x[1:4]),
               "addcmul_": lambda: x[:3].addcmul_(x[3:], x[1:4]),
               "clamp_": lambda: x[:3].clamp_(x[1:4]),
               "requires-grad": lambda: x.requires_grad_().clone()[:3].mul_(x[1:4]),
               "requires-grad2": lambda: (lambda c: c[:3].mul_(c[1:4]))(
                   T.ones(6, requires_grad=True).clone()),
               "full": lambda: x[:3].mul_(x[:3]),
               "disjoint": lambda: x[:3].sub_(x[3:]),
               "not-dense": lambda: x[::2].add_(x[3:4])}[case]
        try:
            run()
        except RuntimeError as e:
            return x.detach(), y, type(e), "single memory location" in str(e)
        return x.detach(), y
    run_both(prog)


@pytest.mark.parametrize("case", ["pow-base", "pow-exponent", "pow-both", "gather"])
def test_backward_after_modifying_what_pytorch_saves(case):
    """PyTorch's PowBackward1 (pow(Tensor, Tensor)) saves its result whichever input needs
    a gradient, and GatherBackward0 saves self (not only its shape): modifying either in
    place before backward raises 'modified by an inplace operation'. graphgrad saved less
    and its backward ran (fuzz seeds 801128, 801461)."""
    def prog(T):
        x = T.tensor([[0.5, 2.0], [1.5, 3.0]], dtype=T.float64, requires_grad=True)
        e = T.tensor([[2.0], [3.0]], dtype=T.float64, requires_grad=case != "pow-base")
        base = x if case != "pow-exponent" else x.detach()
        if case == "gather":
            s = x * 1.0
            y = s.gather(1, T.tensor([[1], [0]]))
            s.add_(1.0)
        else:
            y = T.pow(base, e)
            y.mul_(2.0)
        try:
            y.sum().backward()
        except RuntimeError as err:
            return type(err), "modified by an inplace operation" in str(err)
        return x.grad, e.grad
    run_both(prog)


@pytest.mark.parametrize("case", ["expand-3d", "expand-2d", "expand-t", "sliced", "dense"])
def test_clone_of_a_non_dense_tensor_is_laid_out_as_pytorch(case):
    """PyTorch's clone (preserve_format) of a tensor that is not dense orders the dims by
    their strides, a zero stride telling nothing: a clone of x.expand(1, 3, 2) is
    row-major. NumPy's copy made it column-major, so view(6, 1) of the clone raised 'view
    size is not compatible' here (fuzz seed 508522)."""
    def prog(T):
        x = T.tensor([[-2.0, -4.0]], dtype=T.float64, requires_grad=True)
        src = {"expand-3d": lambda: x.expand(1, 3, 2), "expand-2d": lambda: x.expand(3, 2),
               "expand-t": lambda: x.expand(3, 2).t(),
               "sliced": lambda: T.ones(2, 3, 4)[:, :, ::2].permute(2, 0, 1),
               "dense": lambda: T.ones(2, 3, 4).permute(2, 0, 1)}[case]()
        c = src.clone()
        c.view(-1)[0] = 5.0 if c.is_contiguous() else 0.0
        return c.stride(), c, T.autograd.grad(c.sum(), x, allow_unused=True)
    run_both(prog)


@pytest.mark.parametrize("case", ["zero_", "fill_", "fill_tensor", "masked_fill_", "mask-setitem",
                                  "masked_fill_tensor", "index_put_", "index_put_values",
                                  "slice-setitem", "ellipsis-setitem", "add_"])
@pytest.mark.parametrize("grad", [False, True])
def test_fill_and_index_put_on_an_expanded_tensor(case, grad):
    """PyTorch writes zero_/fill_ into an expanded tensor (each memory location gets the one
    value) and index_put_/masked_fill_ too, with a deprecation warning (the last write to
    a location wins); t[...] = v and add_ raise its overlap error, and so does a backward
    through such a write into a view. graphgrad raised at once (fuzz seeds 416663, 408038)."""
    import warnings

    def prog(T):
        x = T.tensor([2.0, -3.0], dtype=T.float64, requires_grad=grad)
        c = x * 1.0
        w = c.view(2, 1).expand(2, 3)
        i0, i1 = T.tensor([0, 1, 1]), T.tensor([0, 2, 1])
        m = T.tensor([[True, False, False], [False, False, False]])

        def run():
            if case == "zero_":
                w.zero_()
            elif case == "fill_":
                w.fill_(1.5)
            elif case == "fill_tensor":
                w.fill_(T.tensor(2.5, dtype=T.float64))
            elif case == "masked_fill_":
                w.masked_fill_(m, -2.5)
            elif case == "masked_fill_tensor":
                w.masked_fill_(m, T.tensor(-4.5, dtype=T.float64))
            elif case == "mask-setitem":
                w[w.abs() > 2.5] = 7.0
            elif case == "index_put_":
                w.index_put_((i0, i1), T.tensor(4.0, dtype=T.float64))
            elif case == "index_put_values":
                w.index_put_((i0, i1), T.tensor([4.0, 5.0, 6.0], dtype=T.float64))
            elif case == "slice-setitem":
                w[0:] = 1.0
            elif case == "ellipsis-setitem":
                w[...] = 1.0
            else:
                w.add_(1.0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                run()
            except RuntimeError as e:
                return "forward", type(e), "single memory location" in str(e), c.detach()
        warned = any("expanded tensors is deprecated" in str(wi.message) for wi in caught)
        out = [warned, c.detach(), w.detach()]
        if grad:
            try:
                (c * 2).sum().backward()
                out.append(x.grad)
            except RuntimeError as e:
                out += ["backward", type(e), "single memory location" in str(e)]
        return out
    run_both(prog)


@pytest.mark.parametrize("case", ["transposed-grad", "transposed-base", "transposed-base-gg",
                                  "permuted-base-setitem"])
def test_inplace_on_a_view_then_backward_with_another_layout(case):
    """PyTorch's CopySlices lays the base's gradient out as the base (its strides) before
    replaying the view on it: view(8, 1) of a gradient that arrives transposed, or of a base
    that is itself transposed (an elementwise result of a t() operand), works there.
    graphgrad replayed the view on the gradient as it came, or on a row-major copy, and
    raised 'view size is not compatible' (fuzz seed 103466)."""
    def prog(T):
        x = T.arange(1.0, 9.0, dtype=T.float64).reshape(2, 4).requires_grad_()
        if case == "transposed-grad":
            b = x.flip(1)
            w = b.view(8, 1)
            w.masked_fill_(w.abs() > 5, 0.0)
            out = b.transpose(1, 0)
        elif case == "permuted-base-setitem":
            b = x.reshape(2, 2, 2).permute(2, 0, 1) * 1.0
            w = b.permute(1, 2, 0).view(2, 4)
            w[:, 1:3] = w[:, 1:3] ** 2
            out = b.sin()
        else:
            b = x.t() * 1.0  # transposed layout, as in PyTorch
            w = b.t().view(8)
            w.pow_(2)
            out = b * b
        g, = T.autograd.grad(out.sum(), x, create_graph=case.endswith("gg"))
        res = [g.detach()]
        if case.endswith("gg"):
            res.append(T.autograd.grad((g * g).sum(), x)[0])
        return res
    run_both(prog)


@pytest.mark.parametrize("value", [float("inf"), -float("inf"), 0.5])
def test_log_softmax_tangent_of_a_0d_input(value):
    """PyTorch's tangent of log_softmax is t - sum(t * exp(result)): at a 0-d infinite
    input the result (inf - inf) is NaN and so is the tangent; graphgrad's 0-d branch gave
    t - t = 0 (fuzz seeds 101127, 600305)."""
    def prog(T):
        fwd = T.autograd.forward_ad
        with fwd.dual_level():
            x = fwd.make_dual(T.tensor(value), T.tensor(1.5))
            return fwd.unpack_dual(T.nn.functional.log_softmax(x, dim=0)).tangent
    run_both(prog)


def test_tangent_takes_the_layout_of_its_output():
    """PyTorch lays a tangent out as its primal: log_softmax of a transposed input is
    row-major and so is its tangent, so view(12) of the result works in forward mode.
    graphgrad's rule gave a transposed tangent and view() of it raised (fuzz seed 15648)."""
    def prog(T):
        fwd = T.autograd.forward_ad
        x = T.arange(12.0, dtype=T.float64).reshape(4, 3)
        with fwd.dual_level():
            d = fwd.make_dual(x, T.ones(4, 3, dtype=T.float64) * T.arange(3.0))
            y = T.log_softmax(d.mT, -2)
            t = fwd.unpack_dual(y).tangent
            return t.stride(), fwd.unpack_dual(y.view(12)).tangent
    run_both(prog)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_write_into_one_element_of_an_expanded_0d_tensor_then_backward(dtype):
    """w = x.cos().expand(3); w[0] = y: the backward scatters through the expand into a
    0-d base (fuzz seed 9794; the base-layout change first broke it for 0-d bases)."""
    def prog(T):
        dt = getattr(T, dtype)
        x = T.tensor(0.5, dtype=dt, requires_grad=True)
        y = T.tensor(2.0, dtype=dt, requires_grad=True)
        w = x.cos().expand(3)
        w[0] = y
        (w * T.arange(1.0, 4.0).to(dt)).sum().abs().backward()
        return x.grad, y.grad, w.detach()
    run_both(prog)


def test_setitem_with_a_0d_integer_tensor_key_writes_through_the_row():
    """``g[i] += 1`` with a 0-d integer tensor ``i`` (PyTorch's test_indexing_duplicates):
    PyTorch indexes with the int it holds, so the row is copied onto itself (no overlap
    error, as index_put_ with the row as values would raise)."""
    def prog(lib):
        g = lib.zeros(4, 4)
        for i in lib.tensor([1, 1, 3, 2]):
            g[i] += 1
        x = lib.zeros(3, 2, requires_grad=True)
        y = x * 1
        y[lib.tensor(2), lib.tensor(0)] = 5.0
        y.sum().backward()
        return g, y, x.grad
    run_both(prog)


def test_double_backward_into_a_view_of_a_0d_result():
    """A 0-d gradient summed back through expand (ExpandBackward0 of a full sum's backward)
    was a NumPy scalar, which a later view node (a reshape of the 0-d tensor, written in
    place) could not view: graphgrad raised "view size is not compatible" in the double
    backward, PyTorch computes it (fuzz seed 713958)."""
    def prog(T):
        x1 = T.tensor([0.57, 1.48, -0.79], dtype=T.float64, requires_grad=True)
        x2 = T.tensor([[-0.61, -1.36, -0.003, -0.62], [0.19, 0.41, 0.19, -0.05],
                       [-0.79, 0.68, -0.28, -0.84]], dtype=T.float64, requires_grad=True)
        x6 = T.tensor([-0.175], dtype=T.float64, requires_grad=True)
        v4 = (x1 @ x2).mean(0)
        w5 = v4.reshape(-1)
        w5.mul_(x6)
        c7 = w5.clone()
        c7.hypot_(v4)
        gs = T.autograd.grad(c7.sum(), [x1, x2, x6], create_graph=True)
        return list(T.autograd.grad(sum(g.sum() for g in gs), [x1, x2, x6]))
    run_both(prog)


@pytest.mark.parametrize("case", ["tensor", "view", "view-of-expanded"])
def test_inplace_op_with_itself_as_operand_checks_its_saved_self(case):
    """w.mul_(w) saves w (as 'other') and then changes it: a backward that reaches the node
    raises 'modified by an inplace operation' in both libraries (fuzz seed 1514760, where
    PyTorch's backward never reached it: see the next test)."""
    def prog(T):
        a = T.tensor([0.5, 2.0], requires_grad=True)
        if case == "tensor":
            w = a * 1
        elif case == "view":
            w = (a * 1)[:]
        else:
            w = T.tensor(0.3).expand(2).clone()[:]
            w.mul_(a)
        w.mul_(w)
        return T.autograd.grad(w.sum(), [a])
    run_both(prog)

