"""``graphgrad.load``: reads PyTorch's zip layout with a C unpickler whose ``find_class``
maps PyTorch's names to graphgrad's objects through one allow-list (``_TORCH_GLOBALS`` and
the user's ``add_safe_globals``), and the rebuild functions those names resolve to."""
from __future__ import annotations

import _compat_pickle
import collections
import contextlib
import io
import os
import pickle
import sys

import numpy as np

from .._core import dtypes as _dtype
from .._tensor.tensor import Size, Tensor, device
from ..nn.parameter import Parameter
from ._writer import _STORAGE_NAMES, _is_path

_DTYPE_ALIASES = {"float": "float32", "double": "float64", "half": "float16",
                  "cfloat": "complex64", "cdouble": "complex128", "long": "int64",
                  "int": "int32", "short": "int16"}


class _StorageType:
    """What ``torch.FloatStorage`` ... unpickle to: the dtype of a storage record."""

    def __init__(self, name, dtype):
        self.name, self.dtype = name, dtype

    def __repr__(self):
        return f"<storage type torch.{self.name}>"


class _LoadedStorage:
    """A storage read from the archive: a flat writable NumPy array."""

    __slots__ = ("array", "dtype")

    def __init__(self, array, dtype):
        self.array, self.dtype = array, dtype

    def size(self):
        return self.array.size

    def __len__(self):
        return self.array.size

    def nbytes(self):
        return self.array.nbytes

    def __repr__(self):
        return f"graphgrad storage of {self.array.size} {self.dtype} elements (from a file)"


def _check_int(what, v):
    if not isinstance(v, int) or isinstance(v, bool):
        raise RuntimeError(f"_rebuild_tensor_v2: {what} must be an int, got "
                           f"{type(v).__name__}")
    return v


def _rebuild_tensor(storage, storage_offset, size, stride):
    if not isinstance(storage, _LoadedStorage):
        raise RuntimeError("_rebuild_tensor_v2: expected a storage from the archive as its "
                           f"first argument, got {type(storage).__name__}")
    _check_int("storage_offset", storage_offset)
    if not isinstance(size, (tuple, list)) or not isinstance(stride, (tuple, list)) \
            or len(size) != len(stride):
        raise RuntimeError(f"_rebuild_tensor_v2: size {size!r} and stride {stride!r} must be "
                           "sequences of the same length")
    size = tuple(_check_int("size", n) for n in size)
    stride = tuple(_check_int("stride", s) for s in stride)
    arr = storage.array
    if storage_offset < 0 or any(n < 0 for n in size) or any(s < 0 for s in stride):
        raise RuntimeError(f"_rebuild_tensor_v2: negative size {size}, stride {stride} or "
                           f"storage offset {storage_offset}")
    numel = 1
    for n in size:
        numel *= n
    if numel:
        need = storage_offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
        if need > arr.size:
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                f"{storage_offset}, and itemsize {arr.itemsize} requiring a storage size of "
                f"{need * arr.itemsize} are out of bounds for storage of size {arr.nbytes}")
    contiguous, acc = [], 1
    for n in reversed(size):
        contiguous.append(acc)
        acc *= n
    if numel == 0:
        data = np.zeros(size, arr.dtype)
    elif all(n == 1 or s == c for n, s, c in zip(size, stride, reversed(contiguous))):
        data = arr[storage_offset:storage_offset + numel].reshape(size)
    else:
        isz = arr.itemsize
        data = np.ndarray(size, arr.dtype, buffer=arr, offset=storage_offset * isz,
                          strides=tuple(s * isz for s in stride))
    return Tensor._wrap(data)


def _set_requires_grad(t, requires_grad):
    if requires_grad:
        t.requires_grad_(bool(requires_grad))
    return t


def _rebuild_tensor_v1(storage, storage_offset, size, stride):
    return _rebuild_tensor(storage, storage_offset, size, stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    t = _rebuild_tensor(storage, storage_offset, size, stride)
    return _set_requires_grad(t, requires_grad)


def _as_parameter(data, requires_grad):
    if not isinstance(data, Tensor):
        raise RuntimeError(f"_rebuild_parameter: expected a tensor, got {type(data).__name__}")
    return Parameter(data, bool(requires_grad))


def _rebuild_parameter(data, requires_grad, backward_hooks):
    return _as_parameter(data, requires_grad)


def _set_state(obj, state):
    """Python attributes saved with a tensor subclass: a dict, or (dict, slots dict)."""
    if state is None:
        return obj
    if isinstance(state, tuple) and len(state) == 2:
        dict_state, slots = state
    else:
        dict_state, slots = state, None
    for part in (dict_state, slots):
        if part:
            if not isinstance(part, dict):
                raise RuntimeError(f"tensor state must be a dict, got {type(part).__name__}")
            for k, v in part.items():
                if not isinstance(k, str) or k.startswith("_"):
                    continue   # graphgrad keeps its own internals in underscored attributes
                setattr(obj, k, v)
    return obj


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _set_state(_as_parameter(data, requires_grad), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    if func not in (_rebuild_tensor_v2, _rebuild_tensor_v1, _rebuild_parameter,
                    _rebuild_parameter_with_state):
        raise pickle.UnpicklingError(f"_rebuild_from_type_v2 got an unsupported rebuild "
                                     f"function {func!r}")
    if not isinstance(args, tuple):
        raise RuntimeError("_rebuild_from_type_v2: args must be a tuple")
    ret = func(*args)
    wants_param = isinstance(new_type, _ParameterGlobal) or new_type is Parameter
    if wants_param and not isinstance(ret, Parameter):
        ret = Parameter(ret, ret.requires_grad)
    return _set_state(ret, state)


def _get_layout(name):
    if name != "torch.strided":
        raise RuntimeError(f"graphgrad has strided tensors only; the file has layout {name!r}")
    return "strided"


def _safe_encode(obj, encoding="utf-8", errors="strict"):
    """``_codecs.encode`` as protocol-2 pickles use it for bytes (text codecs only)."""
    if not isinstance(obj, str) or encoding not in ("latin1", "latin-1", "utf-8", "utf8"):
        raise pickle.UnpicklingError(f"_codecs.encode is only allowed for str with the latin1 "
                                     f"or utf-8 encoding, got ({type(obj).__name__}, "
                                     f"{encoding!r})")
    return obj.encode(encoding, errors)


class _ParameterGlobal:
    """``torch.nn.parameter.Parameter`` from a file, resolved when called."""

    def __call__(self, *args, **kwargs):
        return Parameter(*args, **kwargs)


def _torch_globals():
    """PyTorch's names that weights-only loading accepts, mapped to graphgrad's objects."""
    g = {
        "collections.OrderedDict": collections.OrderedDict,
        "collections.Counter": collections.Counter,
        "torch._utils._rebuild_tensor": _rebuild_tensor_v1,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
        "torch.serialization._get_layout": _get_layout,
        "torch.Size": Size,
        "torch.Tensor": Tensor,
        "torch.device": device,
        "_codecs.encode": _safe_encode,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
        "torch.storage.UntypedStorage": _StorageType("UntypedStorage", _dtype.uint8),
        "torch.UntypedStorage": _StorageType("UntypedStorage", _dtype.uint8),
    }
    for d in _dtype._ALL:
        g[f"torch.{d.name}"] = d
        g[f"torch.{_STORAGE_NAMES[d.name]}"] = _StorageType(_STORAGE_NAMES[d.name], d)
    for alias, name in _DTYPE_ALIASES.items():
        g[f"torch.{alias}"] = _dtype._NAMES[name]
    return g


_TORCH_GLOBALS = _torch_globals()
_TORCH_GLOBALS["torch.nn.parameter.Parameter"] = _ParameterGlobal()
_SAFE_GLOBALS: dict = {}     # user additions: "module.name" -> object


def _qualified_name(obj):
    return f"{getattr(obj, '__module__', None)}.{getattr(obj, '__qualname__', None)}"


def add_safe_globals(safe_globals):
    """Allow more globals in weights-only loading: objects (found by their module and
    qualified name) or ``(object, "module.name")`` pairs."""
    for entry in safe_globals:
        if isinstance(entry, tuple):
            if len(entry) != 2 or not isinstance(entry[1], str):
                raise ValueError("add_safe_globals: a tuple entry must be (object, "
                                 f"'module.name'), got {entry!r}")
            _SAFE_GLOBALS[entry[1]] = entry[0]
        else:
            _SAFE_GLOBALS[_qualified_name(entry)] = entry


def get_safe_globals():
    """The globals added with ``add_safe_globals``."""
    return list(_SAFE_GLOBALS.values())


def clear_safe_globals():
    _SAFE_GLOBALS.clear()


@contextlib.contextmanager
def safe_globals(globals_list):
    """``add_safe_globals`` for the duration of a ``with`` block."""
    saved = dict(_SAFE_GLOBALS)
    add_safe_globals(globals_list)
    try:
        yield
    finally:
        _SAFE_GLOBALS.clear()
        _SAFE_GLOBALS.update(saved)


_WEIGHTS_ONLY_HINT = (
    "Weights only load failed. graphgrad.load(weights_only=True) (the default) unpickles "
    "tensors, state dicts and plain containers only; {detail}. If you trust the source of "
    "the file, load it with weights_only=False (this runs arbitrary code from the file), or "
    "allow the global with graphgrad.serialization.add_safe_globals([...]) / the "
    "graphgrad.serialization.safe_globals([...]) context manager.")


def _location_check(location, map_location):
    """Where a storage saved at ``location`` goes: always the CPU; an error like PyTorch's
    when the file asks for another device and no ``map_location`` says otherwise."""
    if map_location is None or (callable(map_location)
                                and not isinstance(map_location, (str, device))
                                and type(map_location).__name__ != "device"):
        target = location
    elif isinstance(map_location, dict):
        target = map_location.get(location, location)
    else:
        target = map_location
    target = str(target)
    if not target.startswith("cpu"):
        raise RuntimeError(
            f"Attempting to deserialize object on device {target!r}, but graphgrad runs on "
            "the CPU only. Load with map_location='cpu' (or graphgrad.device('cpu')) to put "
            "the tensors on the CPU.")


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, zf, prefix, byteorder, map_location, weights_only, **kwargs):
        super().__init__(file, **kwargs)
        self._zf, self._prefix = zf, prefix
        self._swap = byteorder != sys.byteorder
        self._map_location = map_location
        self._weights_only = weights_only
        self._loaded = {}

    def find_class(self, module, name):
        # protocol-2 pickles name Python 2's modules (__builtin__.set): map them as pickle does
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        full = f"{module}.{name}"
        obj = _TORCH_GLOBALS.get(full)
        if obj is None:
            obj = _SAFE_GLOBALS.get(full)
        if obj is not None:
            return obj
        if self._weights_only:
            raise pickle.UnpicklingError(_WEIGHTS_ONLY_HINT.format(
                detail=f"Unsupported global: GLOBAL {full} is not an allowed global"))
        if module == "torch" or module.startswith("torch."):
            # an object PyTorch pickled by name: graphgrad's of the same name, if it has one
            try:
                return super().find_class("graphgrad" + module[5:], name)
            except (ImportError, AttributeError):
                raise pickle.UnpicklingError(
                    f"the file refers to {full}, which graphgrad does not have") from None
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not isinstance(pid, tuple) or len(pid) != 5 or pid[0] != "storage":
            raise pickle.UnpicklingError(f"unsupported persistent id {pid!r} (expected "
                                         "('storage', type, key, location, numel))")
        _, stype, key, location, numel = pid
        if not isinstance(stype, _StorageType) or not isinstance(key, str) \
                or not isinstance(numel, int):
            raise pickle.UnpicklingError(f"malformed storage reference {pid!r}")
        storage = self._loaded.get(key)
        if storage is not None:
            return storage
        _location_check(location, self._map_location)
        record = f"{self._prefix}data/{key}"
        try:
            raw = self._zf.read(record)
        except KeyError:
            raise RuntimeError(f"the archive has no record {record!r} for storage {key}") \
                from None
        np_dtype = stype.dtype.np
        if len(raw) != numel * np_dtype.itemsize and stype.name != "UntypedStorage":
            raise RuntimeError(f"storage {key}: record {record!r} has {len(raw)} bytes, "
                               f"expected {numel} x {np_dtype.itemsize}")
        arr = np.frombuffer(bytearray(raw), np_dtype)
        if self._swap and np_dtype.itemsize > 1:
            arr = arr.byteswap()
        storage = _LoadedStorage(arr, stype.dtype)
        if callable(self._map_location) and not isinstance(self._map_location, (dict, str)):
            mapped = self._map_location(storage, location)
            if mapped is not None:
                storage = mapped
        self._loaded[key] = storage
        return storage


def _default_weights_only(pickle_module):
    env = os.environ.get("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0")
    if env not in ("0", ""):
        return False
    return pickle_module is None


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Load an object saved by ``graphgrad.save`` or ``torch.save`` (PyTorch's zip format)
    from a path or binary file object.  ``weights_only=True`` (the default) refuses any
    global outside the allow-list with ``pickle.UnpicklingError``; ``map_location`` may be
    None, ``"cpu"``, ``graphgrad.device("cpu")``, a dict of locations or a function
    ``(storage, location)``."""
    if weights_only is None:
        weights_only = _default_weights_only(pickle_module)
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                           "specified")
    if pickle_module is not None and pickle_module is not pickle:
        raise NotImplementedError("graphgrad.load supports the standard pickle module only")
    if map_location is not None and not (isinstance(map_location, (str, dict, device))
                                         or callable(map_location)
                                         or type(map_location).__name__ == "device"):
        raise ValueError(f"map_location should be a str, a device, a dict or a function, "
                         f"got {type(map_location).__name__}")
    if isinstance(map_location, (str, device)) or type(map_location).__name__ == "device":
        _location_check("cpu", map_location)
    with contextlib.ExitStack() as stack:
        fh = stack.enter_context(open(f, "rb")) if _is_path(f) else f
        start = fh.tell() if fh.seekable() else None
        magic = fh.read(4)
        if start is not None:
            fh.seek(start)
        if magic != b"PK\x03\x04":
            if magic[:1] == b"\x80":
                raise RuntimeError(
                    "This file is in PyTorch's legacy (pre-1.6, non-zip) format, which "
                    "graphgrad.load does not read; re-save it with torch.save in a recent "
                    "PyTorch (the zip format).")
            raise pickle.UnpicklingError(
                f"graphgrad.load: {f!r} is not a file saved by torch.save / graphgrad.save "
                f"(it does not start with a zip header; first bytes {magic!r})")
        if start is None:
            fh = io.BytesIO(fh.read())
        import zipfile  # (here: it costs ~10 ms at graphgrad's import)
        zf = stack.enter_context(zipfile.ZipFile(fh))
        names = zf.namelist()
        prefix = names[0].split("/", 1)[0] + "/" if names and "/" in names[0] else ""
        if prefix + "data.pkl" not in names:
            raise RuntimeError(f"graphgrad.load: the archive has no {prefix}data.pkl record "
                               "(is it a TorchScript archive? those need torch.jit.load)")
        byteorder = "little"
        if prefix + "byteorder" in names:
            byteorder = zf.read(prefix + "byteorder").decode().strip()
            if byteorder not in ("little", "big"):
                raise RuntimeError(f"unknown byteorder record {byteorder!r}")
        unpickler = _Unpickler(io.BytesIO(zf.read(prefix + "data.pkl")), zf, prefix,
                               byteorder, map_location, weights_only, **pickle_load_args)
        try:
            return unpickler.load()
        except pickle.UnpicklingError:
            raise
        except (EOFError, ValueError, TypeError, KeyError, IndexError,
                AttributeError) as e:
            if weights_only:
                raise pickle.UnpicklingError(_WEIGHTS_ONLY_HINT.format(
                    detail=f"the pickle is malformed or uses an object in an unsupported way "
                           f"({type(e).__name__}: {e})")) from None
            raise
