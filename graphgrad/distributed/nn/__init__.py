"""``graphgrad.distributed.nn``: collectives that autograd differentiates."""
from . import functional  # noqa: F401

__all__ = ["functional"]
