"""One rule for graphgrad.scipy's functions: SciPy's own result for plain data, the
graphgrad body for Tensors."""
from __future__ import annotations

import functools
import importlib

from ..numpy._core import has_tensor, numpy_errors


def scipy_or_tensors(scipy_path):
    """Decorator: plain data goes to ``scipy_path`` (e.g. ``"scipy.special:logsumexp"``),
    a call with a Tensor runs the decorated body."""
    mod_name, attr = scipy_path.split(":")

    def deco(body):
        @functools.wraps(body)
        def fn(*args, **kwargs):
            if has_tensor(*args) or has_tensor(*kwargs.values()):
                with numpy_errors(f"scipy {attr}"):
                    return body(*args, **kwargs)
            obj = importlib.import_module(mod_name)
            for part in attr.split("."):
                obj = getattr(obj, part)
            return obj(*args, **kwargs)
        return fn
    return deco
