"""graphgrad.nn: functional API (and, later, modules)."""
from . import functional  # noqa: F401
