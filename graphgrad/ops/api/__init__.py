"""Layer 5: public op functions and Tensor methods by family: signatures, argument checks
with PyTorch's errors, then dispatch/unary/binary of the family's entries.

The entries are in ops/derivatives/<family>.py and the kernels in ops/kernels/<family>.py;
importing this package loads them all (registry.OPS) and publishes the functions
(registry.PUBLIC, registry.METHODS, registry.LINALG).
"""
from . import pointwise, pointwise_unary, pointwise_binary  # noqa: F401
from . import comparison, shape, reductions, linalg, linalg_decompositions  # noqa: F401
from . import inplace, conversion  # noqa: F401
from . import indexing, copies, gather_scatter, padding  # noqa: F401
from . import median, misc_ops, scatter_reduce, storage  # noqa: F401
from . import special  # noqa: F401
from . import shape_composite  # noqa: F401  (ops-shape: meshgrid, tensor_split, ...)
from . import shape_scatter  # noqa: F401  (ops-shape: select/slice_scatter, rot90, take, ...)
from . import stats, stats_composite, sorting_misc, numeric_gradient  # noqa: F401  (ops-reduce)
from . import linalg_products  # noqa: F401  (ops-point: addmv/addr/baddbmm/addbmm, cross, ...)
from . import pointwise_more  # noqa: F401  (ops-point: fmax, copysign, frexp, gcd, ...)
from . import linalg_more  # noqa: F401  (ops-point: matrix_exp, pinv, cholesky_solve, vander)
from . import linalg_extra  # noqa: F401  (ops-point: solve_triangular, lstsq, matrix_rank, ...)
from . import linalg_lu  # noqa: F401  (ops-point: lu_factor, lu, lu_solve)
from . import linalg_ldl  # noqa: F401  (ops-point: ldl_factor, ldl_solve)
from . import fft  # noqa: F401  (apifft: graphgrad.fft's functions)
from . import windows  # noqa: F401  (apifft: hann_window, ...)
from . import linalg_legacy  # noqa: F401  (apifft: torch.qr, svd, lu, lu_unpack, ...)
from . import spectral  # noqa: F401  (apifft: stft, istft)
