"""``graphgrad.utils``: PyTorch's ``torch.utils`` (``hooks``; ``data`` is imported on first
use, so ``import graphgrad`` does not pay for it)."""


def __getattr__(name):
    if name == "data":
        import importlib
        return importlib.import_module(".data", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
