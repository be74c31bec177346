"""graphgrad.scipy: values equal SciPy's; derivatives in both modes match finite
differences (the tests/numpy harness, with ``np`` standing for the namespace pair)."""
from __future__ import annotations

import types

import numpy as np
import pytest

import graphgrad
import graphgrad.numpy as gnp
import graphgrad.scipy.special as gsp
import graphgrad.scipy.stats as gst
from tests.numpy._harness import check_grads, check_values

scipy = pytest.importorskip("scipy")
import scipy.special as ssp  # noqa: E402
import scipy.stats as sst  # noqa: E402

R = np.random.default_rng(60)
A = R.standard_normal((3, 4))
POS = R.uniform(0.5, 3.0, (3, 4))
_Q = R.standard_normal((3, 3))
COV = _Q @ _Q.T + np.eye(3)


class _Pair:
    """``np`` for the harness: ``np.sp`` is SciPy with NumPy, graphgrad's with Tensors."""

    def __init__(self, numpy_mod, special, stats):
        self.np, self.special, self.stats = numpy_mod, special, stats


REAL = _Pair(np, ssp, sst)
OURS = _Pair(gnp, gsp, gst)


def _lift(f):
    def g(np_, *xs):
        return f(OURS if np_ is gnp else REAL, *xs)
    return g


SAMPLES = [
    ("logsumexp", lambda s, x: s.special.logsumexp(x), A),
    ("logsumexp_axis", lambda s, x: s.special.logsumexp(x, axis=1, keepdims=True), A),
    ("logsumexp_b", lambda s, x: s.special.logsumexp(x, axis=0, b=POS[0, :1]), A),
    ("expit", lambda s, x: s.special.expit(x), A),
    ("logit", lambda s, x: s.special.logit(s.special.expit(x)), A),
    ("erf", lambda s, x: s.special.erf(x), A),
    ("erfc", lambda s, x: s.special.erfc(x), A),
    ("gammaln", lambda s, x: s.special.gammaln(x), POS),
    ("digamma", lambda s, x: s.special.digamma(x), POS),
    ("xlogy", lambda s, x: s.special.xlogy(x, POS), A),
    ("norm_logpdf", lambda s, x: s.stats.norm.logpdf(x, 0.5, 2.0), A),
    ("norm_pdf", lambda s, x: s.stats.norm.pdf(x), A),
    ("norm_cdf", lambda s, x: s.stats.norm.cdf(x, 0.1, 1.5), A),
    ("norm_logcdf", lambda s, x: s.stats.norm.logcdf(x), A),
    ("mvn_logpdf", lambda s, x: s.stats.multivariate_normal.logpdf(x[:, :3], A[0, :3], COV), A),
    ("mvn_pdf", lambda s, x: s.stats.multivariate_normal.pdf(x[0, :3], None, COV), A),
    ("t_logpdf", lambda s, x: s.stats.t.logpdf(x, 3.5, 0.2, 1.5), A),
    ("t_logpdf_df", lambda s, x: s.stats.t.logpdf(0.3, x * x + 1.0), A),
    ("t_pdf", lambda s, x: s.stats.t.pdf(x, 2.0), A),
]


@pytest.mark.parametrize("name,f,x", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_scipy_function(name, f, x):
    f = _lift(f)
    got = f(gnp, graphgrad.tensor(x))
    want = f(np, x)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)
    assert got.shape == np.shape(want)
    check_grads(f, (x,), np.random.default_rng(61))


def test_plain_data_is_scipys_result():
    assert type(gsp.logsumexp(A)) is type(ssp.logsumexp(A))
    np.testing.assert_array_equal(gst.norm.logpdf(A), sst.norm.logpdf(A))
