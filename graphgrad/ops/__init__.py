"""The op library, in layers: the machinery (``registry``, ``dispatch``, ``codegen``, ``F`` =
``formulas``; layer 3), the kernels (``kernels``; layer 4) and the public functions and
Tensor methods with their table entries (``api``; layer 5, imported by ``graphgrad``).

Importing ``graphgrad.ops.api`` declares every op: each family module registers its table
entries and public functions on import; rules reach any op as ``F.<name>``.
"""


def __getattr__(name):
    if name == "aten":  # (imported on first use: graphgrad.ops.aten, torch.ops.aten's names)
        import importlib
        return importlib.import_module(".aten", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
