"""torch.stft / torch.istft against PyTorch: values, gradients (input and window), node
chains, round trips, the return_complex rules and refused arguments."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphgrad as gg

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)
X1 = RNG.standard_normal(40)
X2 = RNG.standard_normal((2, 30))
XC = RNG.standard_normal(40) + 1j * RNG.standard_normal(40)


def _chain(t):
    out, f = [], t.grad_fn
    while f is not None:
        out.append(f.name().replace("torch::autograd::", ""))
        nxt = [n for n, _ in f.next_functions if n is not None]
        f = nxt[0] if nxt else None
    return out


def _run(lib, fn, x, win):
    t = lib.tensor(x, requires_grad=True)
    w = None if win is None else lib.hann_window(win, dtype=lib.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = fn(lib, t, w)
    g = np.cos(np.arange(y.numel())).reshape(tuple(y.shape))
    gt = lib.tensor(g * (1 + 0.3j)) if y.is_complex() else lib.tensor(g)
    ins = [t] + ([w] if w is not None else [])
    grads = lib.autograd.grad(y, ins, gt)
    return _chain(y), y.detach().resolve_conj().numpy(), [a.numpy() for a in grads]


STFT = [
    (X1, None, lambda L, t, w: L.stft(t, 16, return_complex=True)),
    (X1, 12, lambda L, t, w: L.stft(t, 16, 5, 12, w, center=False, return_complex=True)),
    (X2, None, lambda L, t, w: L.stft(t, 8, normalized=True, return_complex=True)),
    (X2, None, lambda L, t, w: t.stft(8, onesided=False, pad_mode="constant",
                                      return_complex=True)),
    (XC, 16, lambda L, t, w: L.stft(t, 16, window=w)),
    (X1, None, lambda L, t, w: L.stft(t, 16, return_complex=False)),
]


@pytest.mark.parametrize("k", range(len(STFT)))
def test_stft(k):
    x, win, fn = STFT[k]
    (ga, gv, gg_), (ta, tv, tg) = _run(gg, fn, x, win), _run(torch, fn, x, win)
    assert ga == ta
    np.testing.assert_allclose(gv, tv, atol=1e-12)
    for a, b in zip(gg_, tg):
        np.testing.assert_allclose(a, b, atol=1e-12)


ISTFT = [
    (X2, None, lambda L, t, w: L.istft(L.stft(t, 8, return_complex=True), 8)),
    (X2, None, lambda L, t, w: L.istft(L.stft(t, 8, return_complex=True), 8, length=21)),
    (X2, None, lambda L, t, w: L.istft(L.stft(t, 8, normalized=True, return_complex=True), 8,
                                       normalized=True, length=35)),
    (X2, 8, lambda L, t, w: L.istft(L.stft(t, 8, 2, window=w, return_complex=True), 8, 2,
                                    window=w)),
    (X2, None, lambda L, t, w: L.istft(L.stft(t, 8, onesided=False, return_complex=True), 8,
                                       onesided=False, return_complex=True)),
]


@pytest.mark.parametrize("k", range(len(ISTFT)))
def test_istft(k):
    x, win, fn = ISTFT[k]
    (_, gv, gg_), (_, tv, tg) = _run(gg, fn, x, win), _run(torch, fn, x, win)
    np.testing.assert_allclose(gv, tv, atol=1e-12)
    for a, b in zip(gg_, tg):
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_round_trip():
    x = gg.tensor(X2)
    s = gg.stft(x, 8, window=gg.hann_window(8, dtype=gg.float64), return_complex=True)
    y = gg.istft(s, 8, window=gg.hann_window(8, dtype=gg.float64), length=30)
    np.testing.assert_allclose(y.numpy(), X2, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda L: L.stft(L.tensor(X1), 16),                                   # return_complex
    lambda L: L.stft(L.tensor(X1), 64, return_complex=True, center=False),  # n_fft > length
    lambda L: L.stft(L.tensor(X1), 16, 0, return_complex=True),
    lambda L: L.stft(L.tensor(X1), 16, window=L.ones(3, dtype=L.float64),
                     return_complex=True),
    lambda L: L.stft(L.tensor(XC), 16, onesided=True),
    lambda L: L.istft(L.tensor(X2), 8),
    lambda L: L.istft(L.stft(L.tensor(X2), 8, 3, window=L.hann_window(8, dtype=L.float64),
                             return_complex=True), 8, 3, window=L.hann_window(8, dtype=L.float64),
                      center=False),                                     # NOLA
])
def test_errors_are_torchs(call):
    errs = []
    for lib in (gg, torch):
        with pytest.raises(Exception) as e, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(lib)
        errs.append(e.type)
    assert errs[0] is errs[1]


def test_gradcheck_gradgradcheck():
    x = gg.tensor(X2[:, :16], requires_grad=True)
    w = gg.hann_window(8, dtype=gg.float64, requires_grad=True)

    def f(x, w):
        s = gg.stft(x, 8, 2, window=w, return_complex=True)
        return gg.istft(s * (1 + 0.5j), 8, 2, window=w)
    assert gg.autograd.gradcheck(f, (x, w), check_forward_ad=True)
    assert gg.autograd.gradgradcheck(f, (x, w))
