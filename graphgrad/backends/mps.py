"""torch.backends.mps: Apple's Metal backend, never available in graphgrad."""

__all__ = ["is_available", "is_built"]


def is_available():
    return False


def is_built():
    return False
