"""Helpers of ``graphgrad.utils.data`` at PyTorch's paths (``_utils.collate``)."""
from . import collate  # noqa: F401
