"""Demos.  ``python -m graphgrad.demo`` trains a small network on scikit-learn's digits
(``graphgrad.demo.digits``; needs the ``demo`` extra: ``pip install ".[demo]"``);
``python -m graphgrad.demo.sin`` is the first demo, a cubic fitted to sin(x) by hand-written
gradient descent, which prints the backward graph of one step."""
from .sin import fit, graph_tree  # noqa: F401
