"""Argument checks shared by the public functions: PyTorch's TypeError for a call that
leaves out a required argument (a method taking ``*sizes`` would otherwise read "no sizes"
as a 0-d shape and compute)."""
from __future__ import annotations


def require(fn, given, *names):
    """TypeError, with PyTorch's message, when ``given`` (the ``*args`` a function received)
    is empty: ``names`` are its required arguments."""
    if not given:
        quoted = ", ".join(f'"{n}"' for n in names)
        raise TypeError(f"{fn}() missing {len(names)} required positional argument"
                        f"{'s' if len(names) == 1 else ''}: {quoted}")
