"""Layer 1: the Tensor class, tensor creation, printing, memory formats and generators."""
from .tensor import Size, Tensor, device  # noqa: F401
