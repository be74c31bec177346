"""``graphgrad.utils``: PyTorch's ``torch.utils`` (``hooks``; ``data`` is imported on first
use, so ``import graphgrad`` does not pay for it)."""
import importlib as _importlib


def __getattr__(name):
    if name == "data":
        return _importlib.import_module(".data", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
