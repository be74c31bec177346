"""graphgrad.nn: modules, parameters, the functional API and nn.utils."""
import sys as _sys

from . import functional  # noqa: F401
from . import parameter  # noqa: F401
from .parameter import Buffer, Parameter  # noqa: F401
from .parameter import UninitializedBuffer, UninitializedParameter  # noqa: F401  (apinn)

# NOTE [lazy tool packages] (graphgrad/__init__): ``import graphgrad`` needs nn.functional,
# whose entries are public ops (graphgrad.relu, Tensor.softmax), but not the layers.  The
# first read of a layer's name (nn.Linear, nn.Module, nn.DataParallel) or of a submodule
# (nn.utils, nn.init) imports it here.  The imports are plain ``import a.b.c`` statements:
# a layer file's ``from .. import init`` lands here while nn.modules is still loading, and
# ``import ... as`` would read the half-made package attribute back through this function.
_SUBMODULES = ("modules", "utils", "parallel", "init")
_FROM_PARALLEL = ("DataParallel", "DistributedDataParallel")


def _submodule(name):
    if name == "modules":
        import graphgrad.nn.modules  # noqa: F401
    elif name == "utils":
        import graphgrad.nn.utils  # noqa: F401
    elif name == "parallel":
        import graphgrad.nn.parallel  # noqa: F401
    else:
        import graphgrad.nn.init  # noqa: F401
    return _sys.modules[f"{__name__}.{name}"]


def _layer_names(modules):
    return ["Module", *modules.__all__, *_FROM_PARALLEL, *_SUBMODULES]


def __getattr__(name):
    if name in _SUBMODULES:
        return _submodule(name)
    if name.startswith("__") and name != "__all__":  # (copy/pickle/import probes)
        raise AttributeError(f"module 'graphgrad.nn' has no attribute {name!r}")
    modules = _submodule("modules")
    if name == "__all__":  # (``from graphgrad.nn import *``)
        return sorted({k for k in globals() if not k.startswith("_")} | set(_layer_names(modules)))
    if name in _FROM_PARALLEL:
        value = getattr(_submodule("parallel"), name)
    elif name == "Module" or name in modules.__all__:
        value = getattr(modules, name)
    else:
        raise AttributeError(f"module 'graphgrad.nn' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_layer_names(_submodule("modules"))))
