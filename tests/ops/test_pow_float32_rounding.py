"""float32 pow rounds its result once, as PyTorch's (glibc's powf for tensors shorter than
its vector loop): NumPy's float32 power was an ulp off in about a fifth of its results
(0.052 ** -6.19: 89914752 against 89914744), which a float32 double backward of x / x-like
cancellations then amplified (fuzz seed 1647689)."""
import numpy as np
import pytest

import graphgrad as gg

BASES = [0.05195881426334381, 1.7, 0.3, 2.9, 0.011, 1.05, 0.77]
EXPONENTS = [-6.192928791046143, 2.5, -1.3, 3.7, 0.33, -4.4, 5.1]


@pytest.mark.parametrize("form", ["tensor-tensor", "tensor-number", "number-tensor"])
def test_float32_pow_is_rounded_once(torch, form):
    def run(lib):
        a = lib.tensor(BASES, dtype=lib.float32)
        b = lib.tensor(EXPONENTS, dtype=lib.float32)
        if form == "tensor-tensor":
            r = lib.pow(a, b)
        elif form == "tensor-number":
            r = lib.stack([lib.pow(a, e) for e in (-6.192928791046143, 2.37, -0.71)])
        else:
            r = lib.stack([lib.pow(s, b) for s in (0.05195881426334381, 1.93, 7.5)])
        return r.numpy().view(np.uint32).tolist()
    assert run(gg) == run(torch)


def test_float32_pow_overflow_and_half():
    a = gg.tensor([1e20, 3.0, -2.0, 0.0], dtype=gg.float32)
    r = gg.pow(a, 2.5)
    assert r.dtype == gg.float32 and np.isinf(r.numpy()[0]) and np.isnan(r.numpy()[2])
    assert gg.pow(a.half(), 2.0).dtype == gg.float16


def test_long_float32_pow_keeps_numpys_vectorised_power():
    """From 32 elements (PyTorch's vectorised loop, within an ulp itself) NumPy's float32
    power is kept: it is ~7x faster than the float64 one."""
    a = np.linspace(0.1, 3.0, 64, dtype=np.float32)
    assert gg.pow(gg.tensor(a), 2.37).numpy().tolist() == np.power(a, 2.37).tolist()
