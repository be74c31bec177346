"""graphgrad.scipy: the few SciPy functions HIPS autograd's examples use, over Tensors
(``special.logsumexp``, ``special.expit``, ``special.gammaln``, ..., ``stats.norm``,
``stats.multivariate_normal.logpdf``).  With plain data each returns SciPy's result (SciPy
must be installed for that); with a Tensor argument it computes with graphgrad.numpy."""
from . import special, stats  # noqa: F401
