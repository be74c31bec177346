"""Demos.  ``python -m graphgrad.demo`` trains a small network on scikit-learn's digits
(``graphgrad.demo.digits``; needs the ``demo`` extra: ``pip install ".[demo]"``);
``python -m graphgrad.demo.sin`` is the first demo, a cubic fitted to sin(x) by hand-written
gradient descent, which prints the backward graph of one step."""


def __getattr__(name):
    # fit / graph_tree of the sin demo, imported on use (so that ``python -m
    # graphgrad.demo.sin`` does not find its module already imported by the package)
    if name in ("fit", "graph_tree"):
        from . import sin
        return getattr(sin, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
