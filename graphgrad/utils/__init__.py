"""``graphgrad.utils``: PyTorch's ``torch.utils`` (``hooks``; ``data`` is imported on first
use, so ``import graphgrad`` does not pay for it)."""
import importlib as _importlib


def __getattr__(name):
    if name in ("data", "checkpoint"):
        return _importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
