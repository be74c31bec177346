"""graphgrad.special: PyTorch's torch.special, for the functions whose ops graphgrad has or
that are a short composite of them.

Aliases of graphgrad's ops (the same nodes as PyTorch's): erf, erfc, erfinv, expit (sigmoid),
logit, xlogy, exp2, expm1, log1p, round (round.decimals: RoundBackward1), softmax,
log_softmax, logsumexp, digamma / psi, polygamma, gammaln (lgamma), multigammaln (mvlgamma).
Ops of their own (ops/derivatives/special.py): entr, xlog1py, sinc, log_ndtr, ndtri; ndtr is
erfc(-x / sqrt 2) / 2.  Left out (they need special-function kernels graphgrad does not
have, and SciPy is not a runtime dependency): the Bessel functions (i0, i0e, i1, i1e,
bessel_*, modified_bessel_*, scaled_modified_bessel_*, spherical_bessel_j0), airy_ai,
erfcx, gammainc / gammaincc, zeta and the orthogonal polynomials (docs/differences.md).
"""
from __future__ import annotations

from .._tensor.tensor import Tensor  # noqa: F401 (torch.special.Tensor)
from ..ops.api.pointwise import sigmoid as expit
from ..ops.api.pointwise_unary import (digamma, erf, erfc, erfinv, exp2, expm1, lgamma as gammaln,
                                       log1p, logit, polygamma)
from ..ops.api.pointwise_binary import xlogy
from ..ops.api.reductions import logsumexp
from ..ops.api.special import (entr, log_ndtr, multigammaln, ndtr, ndtri, round, sinc,  # noqa: A004
                               xlog1py)
from ..nn.functional.softmax import _log_softmax_public, _softmax_public
from ..ops.api.pointwise_more import i0, special_i1 as i1   # ops-point: Bessel I0, I1

psi = digamma

__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln",
           "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr",
           "ndtri", "polygamma", "psi", "round", "sinc", "softmax", "xlog1py", "xlogy"]
__all__ += ["i0", "i1"]   # ops-point


def softmax(input, dim, *, dtype=None):
    """``special.softmax(input, dim, *, dtype=None)`` (SoftmaxBackward0)."""
    return _softmax_public(input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    """``special.log_softmax(input, dim, *, dtype=None)`` (LogSoftmaxBackward0)."""
    return _log_softmax_public(input, dim, dtype)
