"""torch.backends.cuda: never built in graphgrad (CPU only)."""

__all__ = ["is_built"]


def is_built():
    return False
