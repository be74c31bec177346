"""graphgrad.fft against torch.fft beyond the op table (tests/ops/op_db/fft.py): the names,
gradcheck / gradgradcheck of the transforms with complex outputs (the table's generic
finite-difference loss is real-valued), the Hermitian doubling of irfft / hfft's
gradients, promotion and refused dtypes, argument errors, fftfreq / rfftfreq, ``out=``."""
from __future__ import annotations

import numpy as np
import pytest

import graphgrad as gg

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 5))
Z = RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))


def test_names_are_torch_ffts():
    theirs = {n for n in dir(torch.fft) if not n.startswith("_") and callable(getattr(torch.fft, n))
              and n not in ("Tensor",)}
    assert set(gg.fft.__all__) == theirs
    assert all(callable(getattr(gg.fft, n)) for n in theirs)


_TRANSFORMS = [("fft", X, {}), ("fft", Z, {"n": 6}), ("ifft", X, {"norm": "ortho"}),
               ("rfft", X, {"n": 4}), ("ihfft", X, {"norm": "forward"}), ("irfft", Z, {}),
               ("irfft", Z, {"n": 7}), ("hfft", Z, {"n": 5}), ("hfft", X, {}),
               ("fft2", X, {"s": (4, 6)}), ("ifftn", Z, {}), ("rfft2", X, {}),
               ("rfftn", X, {"s": (2, 7)}), ("irfft2", Z, {}), ("irfftn", Z, {"s": (4, 5)}),
               ("hfft2", Z, {"norm": "ortho"}), ("hfftn", Z, {"s": (2, 3)}), ("ihfft2", X, {}),
               ("ihfftn", X, {"dim": (1, 0)})]


@pytest.mark.parametrize("name,x,kw", _TRANSFORMS,
                         ids=[f"{n}-{'c' if x.dtype.kind == 'c' else 'r'}-{k}"
                              for n, x, k in _TRANSFORMS])
def test_gradcheck_and_gradgradcheck(name, x, kw):
    """The VJPs (complex outputs of real inputs included) and their derivatives against
    finite differences, with forward mode."""
    t = gg.tensor(x, requires_grad=True)
    fn = lambda t: getattr(gg.fft, name)(t, **kw)  # noqa: E731
    assert gg.autograd.gradcheck(fn, (t,), check_forward_ad=True)
    assert gg.autograd.gradgradcheck(fn, (t,))


@pytest.mark.parametrize("name", ["irfft", "hfft"])
@pytest.mark.parametrize("n", [6, 7])
def test_hermitian_doubling_of_c2r_gradients(name, n):
    """irfft / hfft read each entry 1 .. n - n // 2 - 1 of the half signal twice (itself and
    its mirror): those gradients are doubled, the first (and, n even, the last) are not."""
    z = Z[0]
    outs = []
    for lib in (gg, torch):
        t = lib.tensor(z, requires_grad=True)
        y = getattr(lib.fft, name)(t, n=n)
        (g,) = lib.autograd.grad(y, t, lib.ones_like(y))
        outs.append(g.detach().resolve_conj().numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype,want", [("float32", "complex64"), ("float64", "complex128"),
                                        ("int64", "complex64"), ("bool", "complex64")])
def test_result_dtypes(dtype, want):
    for lib in (gg, torch):
        x = lib.tensor([1, 0, 1, 1]).to(getattr(lib, dtype))
        assert str(lib.fft.fft(x).dtype).split(".")[-1] == want
        real = {"complex64": "float32", "complex128": "float64"}[want]
        assert str(lib.fft.irfft(x).dtype).split(".")[-1] == real


def test_float32_values_within_float32_tolerance():
    """NumPy's pocketfft computes float32 in single precision, as PyTorch's kernels."""
    x = RNG.standard_normal((4, 64)).astype(np.float32)
    a = gg.fft.rfft(gg.tensor(x)).numpy()
    b = torch.fft.rfft(torch.tensor(x)).numpy()
    assert a.dtype == np.complex64
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


_ERRORS = [
    lambda L: L.fft.fft(L.randn(3), norm="bad"),
    lambda L: L.fft.fft(L.randn(3), n=0),
    lambda L: L.fft.fft(L.tensor(1.0)),
    lambda L: L.fft.fft(L.randn(3), dim=2),
    lambda L: L.fft.rfft(L.randn(3, dtype=L.complex64)),
    lambda L: L.fft.ihfft(L.randn(3, dtype=L.complex64)),
    lambda L: L.fft.rfftn(L.randn(3, dtype=L.complex64)),
    lambda L: L.fft.ihfftn(L.randn(3, dtype=L.complex64)),
    lambda L: L.fft.fft(L.randn(3).half()),
    lambda L: L.fft.rfft(L.randn(3).bfloat16()),
    lambda L: L.fft.fftn(L.randn(3, 4), dim=(0, 0)),
    lambda L: L.fft.fftn(L.randn(3, 4), s=(3,), dim=(0, 1)),
    lambda L: L.fft.fftn(L.randn(3, 4), s=(3, 3, 3)),
    lambda L: L.fft.irfftn(L.randn(3, 4), dim=()),
    lambda L: L.fft.rfftn(L.randn(3, 4), dim=()),
    lambda L: L.fft.irfft(L.randn(1)),
    lambda L: L.fft.fftfreq(4, dtype=L.complex64),
    lambda L: L.fft.fftfreq(4, dtype=L.int64),
    lambda L: L.fft.fft("a"),
    lambda L: L.fft.fft(L.randn(3), n=2.5),
    lambda L: L.fft.fft(L.randn(0)),
]


@pytest.mark.parametrize("k", range(len(_ERRORS)))
def test_errors_are_torchs(k):
    errs = []
    for lib in (gg, torch):
        with pytest.raises(Exception) as e:
            _ERRORS[k](lib)
        errs.append(e.type)
    assert errs[0] is errs[1]


@pytest.mark.parametrize("call", [
    lambda L: L.fft.fftfreq(5, 0.3), lambda L: L.fft.fftfreq(4, 0.1, dtype=L.float64),
    lambda L: L.fft.fftfreq(1), lambda L: L.fft.rfftfreq(7, 2.5),
    lambda L: L.fft.rfftfreq(8, dtype=L.float64), lambda L: L.fft.fftfreq(6, requires_grad=True),
])
def test_fftfreq_rfftfreq(call):
    a, b = call(gg), call(torch)
    assert str(a.dtype) == str(b.dtype).replace("torch", "graphgrad")
    assert a.requires_grad == b.requires_grad
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_out_and_roundtrip():
    x = gg.tensor(X)
    out = gg.empty(3, 5, dtype=gg.complex128)
    r = gg.fft.fft(x, out=out)
    assert r is out
    np.testing.assert_allclose(gg.fft.ifft(out).real.numpy(), X, atol=1e-12)
    np.testing.assert_allclose(gg.fft.irfft(gg.fft.rfft(x), n=5).numpy(), X, atol=1e-12)
    np.testing.assert_allclose(gg.fft.ifftshift(gg.fft.fftshift(x)).numpy(), X)


def test_vmap_and_batched_grad_of_a_transform():
    xs = gg.tensor(RNG.standard_normal((4, 3, 6)))
    got = gg.func.vmap(lambda t: gg.fft.rfft2(t, norm="ortho"))(xs)
    np.testing.assert_allclose(got.numpy(), np.fft.rfft2(xs.numpy(), norm="ortho"), atol=1e-12)
    jac = gg.func.jacrev(lambda t: gg.fft.irfft(t, n=6))(gg.tensor(X[0]))
    want = torch.func.jacrev(lambda t: torch.fft.irfft(t, n=6))(torch.tensor(X[0]))
    np.testing.assert_allclose(jac.numpy(), want.resolve_conj().numpy(), atol=1e-12)
