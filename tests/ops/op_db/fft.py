"""OpInfos of graphgrad.fft (torch.fft): every transform on real and (where PyTorch takes
them) complex inputs, with signal lengths that trim and pad, other dims, and the three
normalizations; fftshift / ifftshift."""
from __future__ import annotations

from tests.ops.opinfo import A, OpInfo, Sample, randn


def _one_dim(c2r=False):
    def samples(rng):
        m = 4 if c2r else 5
        return [Sample((A(randn(rng, 3, m)),)),
                Sample((A(randn(rng, 6)),), name="1-d"),
                Sample((A(randn(rng, 3, m)), 7), name="n pads"),
                Sample((A(randn(rng, 3, m)), 3), name="n trims"),
                Sample((A(randn(rng, 4, 3)),), {"dim": 0}, name="dim 0"),
                Sample((A(randn(rng, 2, 3, m)),), {"norm": "ortho"}, name="ortho"),
                Sample((A(randn(rng, 3, m)),), {"n": 6, "norm": "forward"}, name="forward"),
                Sample((A(randn(rng, 3, m)),), {"norm": "backward", "dim": -1},
                       name="backward")]
    return samples


def _n_dim(default_all):
    def samples(rng):
        out = [Sample((A(randn(rng, 3, 4)),)),
               Sample((A(randn(rng, 2, 3, 4)),), {"s": (5, 3)}, name="s pads and trims"),
               Sample((A(randn(rng, 2, 3, 4)),), {"s": (-1, 6), "norm": "ortho"},
                      name="s -1"),
               Sample((A(randn(rng, 3, 2, 4)),), {"dim": (0, 2), "norm": "forward"},
                      name="dim"),
               Sample((A(randn(rng, 3, 2, 4)),), {"s": (3, 5), "dim": (2, 0)},
                      name="s and dim reversed")]
        if default_all:
            out.append(Sample((A(randn(rng, 2, 3, 4)),), name="all dims"))
            out.append(Sample((A(randn(rng, 3, 4)),), {"dim": 1}, name="one dim"))
        return out
    return samples


def _shift(rng):
    return [Sample((A(randn(rng, 4, 5)),)), Sample((A(randn(rng, 4, 5)),), {"dim": 1}),
            Sample((A(randn(rng, 3, 4, 5)),), {"dim": (0, -1)}, name="dims")]


# real inputs, complex outputs: the generic finite-difference loss sum(out * cot) is not
# PyTorch's Re(sum(conj(cot) * out)); tests/fft/test_fft.py runs gradcheck instead
_C_OUT = {"fft", "ifft", "rfft", "ihfft", "fft2", "ifft2", "fftn", "ifftn", "rfft2", "rfftn",
          "ihfft2", "ihfftn"}
_FD_SKIP = {"fd": "complex outputs of real inputs: the generic finite-difference loss is "
                  "real-valued (gradcheck in tests/fft/test_fft.py instead)"}


def _fft(name, samples, complex_=True, **kw):
    skips = dict(_FD_SKIP) if name in _C_OUT else {}
    return OpInfo("fft." + name, samples, complex=complex_, skips=skips, **kw)


OPS = [
    _fft("fft", _one_dim()),
    _fft("ifft", _one_dim()),
    _fft("rfft", _one_dim(), complex_=False),
    _fft("ihfft", _one_dim(), complex_=False),
    _fft("irfft", _one_dim(c2r=True)),
    _fft("hfft", _one_dim(c2r=True)),
    _fft("fft2", _n_dim(False)),
    _fft("ifft2", _n_dim(False)),
    _fft("fftn", _n_dim(True)),
    _fft("ifftn", _n_dim(True)),
    _fft("rfft2", _n_dim(False), complex_=False),
    _fft("rfftn", _n_dim(True), complex_=False),
    _fft("ihfft2", _n_dim(False), complex_=False),
    _fft("ihfftn", _n_dim(True), complex_=False),
    _fft("irfft2", _n_dim(False)),
    _fft("irfftn", _n_dim(True)),
    _fft("hfft2", _n_dim(False)),
    _fft("hfftn", _n_dim(True)),
    _fft("fftshift", _shift),
    _fft("ifftshift", _shift),
]
