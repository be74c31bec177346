"""Tensor: an ndarray plus its autograd metadata (seed 003 §2.2, AutogradMeta).

The hot slots are set on every tensor: ``_data`` (the ndarray),
``_requires_grad``, ``_grad_fn``, ``_output_nr`` and ``_vc`` (the version
counter, shared with views, created lazily).  Everything else -- ``.grad``,
``_base``, the weakly held grad accumulator, hooks, the forward-AD tangent --
lives in the instance ``__dict__`` with class-level defaults, so a tensor that
never uses them pays nothing; ``__dict__`` also lets users attach attributes
to tensors, as PyTorch allows.

Op methods (``sin``, ``sum``, ``add_`` ...) are attached by the op registry
(graphgrad/ops/registry.py); the dunders below call the same functions.
"""
from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtype
from .._core.state import ALL_THREADS, tls
from .._core.version import INFERENCE, VersionCounter, bump_for_detach, user_version
from .._core.hooks import add_hook
from ._size_device import (  # noqa: F401  (re-exported: imported from here)
    _CPU, _DEVICE_TYPES, Size, _check_device, builtins_type, device)

_ndarray = np.ndarray
_asarray = np.asarray
_new = object.__new__


class Tensor:
    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_output_nr", "_vc",
                 "__dict__", "__weakref__")

    # rarely used state: class defaults, per-instance values go to __dict__
    _grad = None
    _base = None
    _view_fn = None          # polymorphic fn(base_like) -> this view (for CopySlices)
    _acc = None              # weakref to the AccumulateGrad of a leaf
    _hooks = None            # leaf tensor hooks {id: fn}
    _post_acc_hooks = None
    _retains_grad = False
    _fw = None               # (level, tangent) for forward-mode AD
    _is_param = False
    _view_ver = 0            # version at which a view's grad_fn was last set
    _views = None            # weakrefs to views made while this base did not require grad
    _view_mode = None        # "no_grad" / "inference": the view was made with grad mode off;
    #                          "multi": an output of unbind/split/chunk (PyTorch's creation_meta);
    #                          "custom": returned by a custom Function's forward

    __array_priority__ = 1000  # ndarray (op) Tensor defers to Tensor's reflected op

    # ------------------------------------------------------------ construction
    def __new__(cls, *args, device=None):
        """The legacy constructor ``Tensor(2, 3)`` / ``Tensor([1, 2])`` / ``Tensor()``: a
        tensor of the default dtype (prefer ``graphgrad.tensor`` / ``zeros``).  Internal
        code makes tensors with ``Tensor._wrap``, which does not come here."""
        if len(args) == 1 and isinstance(args[0], Tensor):
            t = Tensor._wrap(args[0]._data)   # shares the data, as PyTorch's does
        else:
            t = _legacy_new(_dtype.get_default_dtype(), args, device, "Tensor")
        if cls is not Tensor:
            t.__class__ = cls
        return t

    def __init__(self, *args, **kwargs):
        pass

    @staticmethod
    def _wrap(data):
        """A new tensor around ``data`` (an ndarray; numpy scalars are converted)."""
        t = _new(Tensor)
        if data.__class__ is not _ndarray:
            data = _asarray(data)
        t._data = data
        t._requires_grad = False
        t._grad_fn = None
        t._output_nr = 0
        t._vc = None if ALL_THREADS.plain or not (tls.extras_on and tls.inference) else INFERENCE
        return t

    # ------------------------------------------------------------ properties
    @property
    def data(self):
        # shares storage, but has its own version counter: edits through .data are not
        # tracked by autograd (PyTorch's variable_data())
        out = Tensor._wrap(self._data)
        if self._vc is INFERENCE:
            out._vc = INFERENCE
        return out

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        if self._requires_grad and value._data.dtype.kind not in "fcV":
            raise RuntimeError(
                "data set to a tensor that requires gradients must be floating point or complex "
                f"dtype (this tensor requires grad; the new data is {value.dtype}: convert it, "
                "e.g. .to(this.dtype), or call requires_grad_(False) first)")
        self._data = value._data

    @data.deleter
    def data(self):
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")

    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if self._grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables." + (
                    "" if value else " If you want to use a computed variable in a subgraph "
                    "that doesn't require differentiation use var_no_grad = var.detach()."))
        self.requires_grad_(value)

    @requires_grad.deleter
    def requires_grad(self):
        raise RuntimeError("requires_grad must be a bool (it cannot be deleted)")

    def requires_grad_(self, requires_grad=True):
        requires_grad = bool(requires_grad)
        if self._grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if requires_grad and self._data.dtype.kind not in "fcV" and self.dtype.category < 2:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients "
                f"(got dtype {self.dtype}); convert first, e.g. t.float().requires_grad_()")
        if requires_grad and self._vc is INFERENCE and not tls.inference:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not "
                "allowed.")
        self._requires_grad = requires_grad
        return self

    @property
    def grad_fn(self):
        if self._base is not None and self._vc.value != self._view_ver and \
                self._base._requires_grad:
            # the base was modified in place since this view was made: its history is
            # now AsStridedBackward0 from the base's new history (as _view_edge does)
            from ..autograd.views import _regenerate_view_grad_fn
            _regenerate_view_grad_fn(self)
        return self._grad_fn

    @property
    def is_leaf(self):
        if self._base is not None:
            return self.grad_fn is None  # (a view's history is regenerated, as PyTorch's)
        return self._grad_fn is None

    @property
    def output_nr(self):
        return self._output_nr

    @property
    def grad(self):
        if self._grad is None and self._grad_fn is not None and not self._retains_grad:
            import warnings
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed "
                "want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() "
                "on the non-leaf Tensor.", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad (assign a copy, "
                                   "e.g. t.grad = t.detach().clone())")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"assigned grad has data of a different type: expected {self.dtype} but got "
                    f"{value.dtype}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"assigned grad has data of a different size: expected "
                    f"{list(self._data.shape)} but got {list(value._data.shape)}")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def _version(self):
        vc = self._vc
        if vc is INFERENCE:
            raise RuntimeError("Inference tensors do not track version counter.")
        return 0 if vc is None else user_version(vc)

    def _bump_version(self):
        vc = self._vc
        if vc is None:
            self._vc = VersionCounter(1)
        elif vc is INFERENCE:
            if not tls.inference:
                raise RuntimeError(
                    "Inplace update to inference tensor outside InferenceMode is not allowed. "
                    "You can make a clone to get a normal tensor before doing inplace update.")
        else:
            vc.value += 1

    @property
    def volatile(self):
        """Removed in PyTorch 0.4 (always False, with PyTorch's warning); use no_grad."""
        import warnings
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                      stacklevel=2)
        return False

    @volatile.setter
    def volatile(self, value):
        import warnings
        warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                      "instead.", UserWarning, stacklevel=2)

    def is_inference(self):
        return self._vc is INFERENCE

    @property
    def retains_grad(self):
        return self._retains_grad

    def retain_grad(self):
        """Keep ``.grad`` for this non-leaf tensor after backward (no-op on leaves)."""
        if self._grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if self._retains_grad:
            return
        import weakref
        ref = weakref.ref(self)

        def retain_grad_hook(grad):
            t = ref()
            if t is None:
                return
            if t._grad is None:
                t._grad = grad.detach() if not grad._requires_grad else grad
                if t._grad is grad:
                    t._grad = grad.clone()
                elif t._grad._data is grad._data:
                    t._grad = Tensor._wrap(grad._data.copy())
            else:
                t._grad = t._grad + grad
        retain_grad_hook.tensor_ref = ref  # lets the engine journal the .grad it sets
        self._grad_fn._set_retains_grad_hook(self._output_nr, retain_grad_hook)
        self._retains_grad = True

    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim, "size")]

    @property
    def dtype(self):
        return _dtype._FROM_NP.get(self._data.dtype) or _dtype.from_numpy_dtype(self._data.dtype)

    @property
    def device(self):
        return _CPU

    @property
    def is_cuda(self):
        return False

    @property
    def layout(self):
        return "strided"

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    def ndimension(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self._data.dtype.kind == "c"

    def is_contiguous(self, memory_format=None):
        if memory_format is not None:
            from .memory_format import channels_last_rank
            nd = channels_last_rank(memory_format)
            if nd is not None:
                from ..ops.api.misc_ops import is_channels_last
                return is_channels_last(self._data, nd)
        return self._data.flags.c_contiguous

    def stride(self, dim=None):
        st = tuple(s // self._data.itemsize for s in self._data.strides)
        return st if dim is None else st[_wrap_dim(dim, self._data.ndim, "stride")]

    def data_ptr(self):
        return self._data.__array_interface__["data"][0]

    def _is_view(self):
        return self._base is not None

    def get_device(self):
        return -1

    def cpu(self, memory_format=None):
        return self

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        """Raises as PyTorch's CPU build does: there is no CUDA device."""
        _check_device("cuda" if device is None else
                      (f"cuda:{device}" if isinstance(device, int) else device))
        return self

    def new(self, *args, device=None):
        """Legacy constructor of this tensor's dtype: ``t.new(2, 3)`` (uninitialised, here
        zeros), ``t.new([1, 2])`` (data), ``t.new(other)`` (shares other's data), ``t.new()``
        (empty)."""
        return _legacy_new(self.dtype, args, device, "new")

    def equal(self, other):
        """True if ``other`` has the same size and the same values (dtypes may differ)."""
        if not isinstance(other, Tensor):
            raise TypeError(f"equal(): argument 'other' must be Tensor, not "
                            f"{type(other).__name__}")
        a, b = self._data, other._data
        if a.shape != b.shape:
            return False
        return bool(np.array_equal(a, b))

    # ------------------------------------------------------------ conversion
    def numpy(self, *, force=False):
        # (PyTorch refuses only while grad mode is on: under no_grad it hands out the data)
        if self._requires_grad and not force and tls.grad_enabled:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad and tls.grad_enabled:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead.")
        a = self._data
        return a if dtype is None else a.astype(dtype, copy=False)

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def _scalar(self):
        # float()/int()/complex() of a multi-element tensor: PyTorch's ValueError (item()
        # raises RuntimeError)
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars "
                             f"(got a tensor of shape {list(self._data.shape)}; index it or "
                             f"reduce it first)")
        return self._data.reshape(()).item()

    def __float__(self):
        return float(self._scalar())

    def __int__(self):
        return int(self._scalar())

    def __complex__(self):
        return complex(self._scalar())

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()).item())

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    def __repr__(self, *, tensor_contents=None):
        from .printing import tensor_repr
        suffixes = []
        try:
            fn = self._grad_fn if self._base is None else self.grad_fn  # (a view's: regenerated)
        except RuntimeError:
            # a no_grad/inference view whose base changed in place: reading its grad_fn
            # raises; PyTorch prints it as <Invalid>
            fn = None
            suffixes.append("grad_fn=<Invalid>")
        if fn is not None:
            suffixes.append(f"grad_fn=<{type(fn).__name__}>")
        elif self._requires_grad and not suffixes:
            suffixes.append("requires_grad=True")
        fw = self._fw
        if fw is not None and fw[0].alive:
            suffixes.append("tangent=" + repr(fw[1]))
        text = tensor_repr(self._data, self.dtype.name,
                           default_dtype_name=_dtype.get_default_dtype().name,
                           suffixes=suffixes)
        # tensor_repr writes PyTorch's ``dtype=torch.<name>``; our dtypes print as graphgrad.<name>
        return text.replace("dtype=torch.", "dtype=graphgrad.")

    __str__ = __repr__

    def __format__(self, spec):
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, proto):
        return (_rebuild, (self._data, self._requires_grad))

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                "protocol at the moment.")
        t = Tensor._wrap(self._data.copy())
        t.__class__ = self.__class__
        t._requires_grad = self._requires_grad
        if self._grad is not None:
            t._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = t
        return t

    # ------------------------------------------------------------ autograd
    def detach(self):
        """A new tensor sharing data and version counter, cut from the graph."""
        out = Tensor._wrap(self._data)
        vc = self._vc
        if vc is None:
            vc = self._vc = VersionCounter()
        out._vc = vc
        return out

    def detach_(self):
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead (this tensor is a view of "
                f"another tensor of shape {list(self._base._data.shape)}).")
        if self._grad_fn is not None:
            bump_for_detach(self)  # NOTE [detach_ of a saved tensor] (autograd/saved.py)
        self._grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        if self._fw is not None:
            self._fw = None  # the forward-AD tangent goes too, as detach()'s does
        return self

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        backward = _autograd_backward or _load_autograd_backward()
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; may return a new grad."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            return self._grad_fn._register_tensor_pre_hook(self._output_nr, hook)
        return add_hook(self, "_hooks", hook)

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` runs after the gradient was accumulated into this leaf's .grad."""
        if self._grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors")
        if not self._requires_grad:
            raise RuntimeError(
                "cannot register a hook on a tensor that doesn't require gradient")
        return add_hook(self, "_post_acc_hooks", hook)


_autograd_backward = None  # autograd.backward, bound on the first Tensor.backward()


def _load_autograd_backward():
    # (a function-local import per call costs about as much as a small node's backward)
    global _autograd_backward
    from ..autograd import backward
    _autograd_backward = backward
    return backward


def _legacy_new(dtype, args, device, fn):
    """``t.new(*args)`` / ``FloatTensor(*args)``: sizes (uninitialised memory in PyTorch;
    zeros here), a sequence of data, a tensor of that dtype (shared), or nothing (empty)."""
    _check_device(device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        src = args[0]
        if src._data.dtype != dtype.np:
            raise TypeError(f"{fn}(): expected {dtype} (got {src.dtype}); use .to({dtype}) to "
                            "convert")
        return Tensor._wrap(src._data)
    if len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray)) and \
            not isinstance(args[0], Size):
        from .creation import tensor
        return tensor(args[0], dtype=dtype)
    sized = len(args) == 1 and isinstance(args[0], Size)
    if sized:  # (a Size is a shape even when empty: new(torch.Size([])) is 0-d)
        args = tuple(args[0])
    for a in args:
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise TypeError(f"{fn}(): expected sizes (ints), a sequence of data or a tensor; got "
                            f"{builtins_type(a).__name__}")
        if a < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {a}: "
                               f"{list(args)}")
    return Tensor._wrap(np.zeros(tuple(int(a) for a in args) if args or sized else (0,),
                                 dtype.np))


def _rebuild(data, requires_grad):
    t = Tensor._wrap(data)
    t._requires_grad = requires_grad
    return t


def _wrap_dim(dim, ndim, op="dim"):
    """Normalise a possibly negative dim; IndexError like PyTorch's when out of range."""
    n = ndim if ndim > 0 else 1
    if dim < -n or dim >= n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim
