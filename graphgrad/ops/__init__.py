"""The op library, in layers: the machinery (``registry``, ``dispatch``, ``codegen``, ``F`` =
``formulas``; layer 3), the table and the kernels (``derivatives`` and ``kernels``; layer 4)
and the public functions and Tensor methods (``api``; layer 5, imported by ``graphgrad``).

Each op family has one module in each of the three: ``kernels/<family>.py`` (NumPy),
``derivatives/<family>.py`` (its ``defop`` entries and rule helpers, readable as PyTorch's
derivatives.yaml) and ``api/<family>.py`` (argument checks, then dispatch).  Importing
``graphgrad.ops.api`` declares every op; rules reach any op as ``F.<name>``.
"""


def __getattr__(name):
    if name == "aten":  # (imported on first use: graphgrad.ops.aten, torch.ops.aten's names)
        import importlib
        return importlib.import_module(".aten", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
