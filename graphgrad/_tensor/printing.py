"""Render NumPy arrays the way PyTorch prints tensors.

``tensor_repr(data, dtype_name, ...)`` returns the exact string that
``repr(torch.tensor(data))`` produces (torch 2.x, CPU, strided tensors),
honouring the module-level print options set through ``set_printoptions``.

The rules below were reconstructed by observing torch's output:

* Floating values share one fixed-width format, chosen by looking only at the
  finite, non-zero entries (of the summarized view when summarizing):
    - all of them integral  -> ``"{:.0f}."`` (``1.``), or scientific if
      max/min > 1000 or max > 1e8;
    - otherwise             -> ``"{:.<p>f}"``, or scientific if
      max/min > 1000, max > 1e8 or min < 1e-4.
  A user-set ``sci_mode`` overrides the notation choice. The column width is
  the longest of those finite non-zero strings; zeros, nan and inf are
  right-justified to it but may overflow it (``tensor([nan, 1., 2.])``).
* Complex numbers use independent formatters for the real and imaginary parts.
* Ints/bools: ``str(value)`` right-justified to the longest one.
* 1-d rows wrap at ``linewidth``; sub-tensors of an n-d tensor are joined by
  "," plus ``ndim - 1`` newlines and indented to align with their '['.
* Tensors with more than ``threshold`` elements show only ``edgeitems``
  entries at each end of every dimension, with ``...`` in between
  (``edgeitems=0`` prints ``[...]`` and always appends ``size=(...)``).
* Suffixes: ``size=(...)`` for empty non-1-d tensors, then ``dtype=...``
  unless the dtype is a default one (for empty tensors only the default
  float dtype counts as default), then the caller's ``suffixes``.

bfloat16: pass either an ``ml_dtypes.bfloat16`` array, or any float array with
``dtype_name="bfloat16"`` (or ``is_bfloat16=True``); float values are then
rounded to bfloat16 precision (round-to-nearest-even) before formatting, so an
already-converted float32 array prints unchanged.
"""

import contextlib
import math

import numpy as np

__all__ = ["tensor_repr", "set_printoptions", "get_printoptions", "printoptions"]


# ----------------------------------------------------------------------------
# Print options (module-level state mirroring torch.set_printoptions)
# ----------------------------------------------------------------------------

class _PrintOptions:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


_OPTS = _PrintOptions()

# profile name -> (precision, threshold, edgeitems, linewidth)
_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None,
                     linewidth=None, profile=None, sci_mode=None):
    """Same semantics as ``torch.set_printoptions``.

    A known ``profile`` resets precision/threshold/edgeitems/linewidth first
    (unknown profile names are ignored, as in torch); explicit arguments then
    override. ``sci_mode`` is always assigned, so omitting it resets it to
    ``None`` (automatic), exactly like torch.
    """
    if profile in _PROFILES:
        (_OPTS.precision, _OPTS.threshold,
         _OPTS.edgeitems, _OPTS.linewidth) = _PROFILES[profile]
    if precision is not None:
        _OPTS.precision = precision
    if threshold is not None:
        _OPTS.threshold = threshold
    if edgeitems is not None:
        _OPTS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTS.linewidth = linewidth
    _OPTS.sci_mode = sci_mode


def get_printoptions():
    """Current print options as a dict (like ``torch._tensor_str.get_printoptions``)."""
    return {"precision": _OPTS.precision, "threshold": _OPTS.threshold,
            "edgeitems": _OPTS.edgeitems, "linewidth": _OPTS.linewidth,
            "sci_mode": _OPTS.sci_mode}


@contextlib.contextmanager
def printoptions(**kwargs):
    """Context manager temporarily applying ``set_printoptions(**kwargs)``."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


# ----------------------------------------------------------------------------
# Element formatters
# ----------------------------------------------------------------------------

class _Formatter:
    """Fixed-width formatter for one set of real (or int/bool) values."""

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        if not floating:
            self.width = max((len(str(v)) for v in values.tolist()), default=1)
            return
        self.width = 1
        nz = values[np.isfinite(values) & (values != 0)]
        if nz.size:
            mags = np.abs(nz)
            hi, lo = float(mags.max()), float(mags.min())
            wide = hi / lo > 1000.0 or hi > 1.0e8
            self.int_mode = bool(np.all(nz == np.ceil(nz)))
            self.sci_mode = wide if self.int_mode else (wide or lo < 1.0e-4)
            # A user-set sci_mode overrides the automatic choice (but not for
            # all-zero/non-finite data, which always prints like "0." / "nan").
            if _OPTS.sci_mode is not None:
                self.sci_mode = _OPTS.sci_mode
        # Width comes from the finite non-zero values only (see module doc).
        self.width = max((len(self.format(v)) for v in nz.tolist()), default=1)

    def format(self, v):
        if not self.floating:
            s = str(v)
        elif self.sci_mode:
            s = f"{v:.{_OPTS.precision}e}"
        elif self.int_mode:
            s = f"{v:.0f}" + ("." if math.isfinite(v) else "")
        else:
            s = f"{v:.{_OPTS.precision}f}"
        return s.rjust(self.width)


def _element_formatter(values, kind):
    """Return (format_fn, column_width) for the values that will be shown."""
    if kind == "complex":
        real = _Formatter(values.real.ravel(), True)
        imag = _Formatter(values.imag.ravel(), True)

        def fmt(z):
            re_s = real.format(z.real)
            im_s = (imag.format(z.imag) + "j").lstrip()
            # A non-negative imaginary part carries no sign of its own.
            return re_s + (im_s if im_s[0] in "+-" else "+" + im_s)

        # Observed: torch budgets only one extra column for the '+'/'j' pair,
        # so complex rows may run past linewidth.
        return fmt, real.width + imag.width + 1
    f = _Formatter(values.ravel(), kind == "float")
    return f.format, f.width


# ----------------------------------------------------------------------------
# Layout
# ----------------------------------------------------------------------------

def _summarized(a, edge):
    """Sub-array made of the first/last ``edge`` entries along every long axis."""
    index = []
    for n in a.shape:
        if n > 2 * edge:
            index.append(np.r_[0:edge, n - edge:n])
        else:
            index.append(np.arange(n))
    return a[np.ix_(*index)] if a.ndim else a


def _layout(a, indent, summarize, fmt, width):
    edge = _OPTS.edgeitems
    n = a.shape[0]
    cut = summarize and n > 2 * edge
    if a.ndim == 1:
        vals = a.tolist()
        if cut:
            items = ([fmt(v) for v in vals[:edge]] + [" ..."]
                     + [fmt(v) for v in vals[n - edge:]])
        else:
            items = [fmt(v) for v in vals]
        # Each item occupies its width plus the ", " separator.
        per_line = max(1, math.floor((_OPTS.linewidth - indent) / (width + 2)))
        lines = [", ".join(items[i:i + per_line])
                 for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = list(range(edge)) + [None] + list(range(n - edge, n)) if cut else range(n)
    parts = ["..." if i is None else _layout(a[i], indent + 1, summarize, fmt, width)
             for i in rows]
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def _add_suffixes(text, suffixes, indent):
    """Append ', suffix' items and ')', moving a suffix to a fresh line
    (aligned under the opening '(') when it would overflow ``linewidth``."""
    out = [text]
    # Length of the last line, plus 2 (room reserved for the ", " separator).
    budget = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if budget + len(suffix) + 2 > _OPTS.linewidth:
            out.append(",\n" + " " * indent + suffix)
            budget = indent + len(suffix)
        else:
            out.append(", " + suffix)
            budget += len(suffix) + 2
    out.append(")")
    return "".join(out)


# ----------------------------------------------------------------------------
# Entry point
# ----------------------------------------------------------------------------

_DEFAULT_COMPLEX = {"float64": "complex128", "float32": "complex64",
                    "float16": "complex32"}


def _kind(dtype_name):
    if dtype_name == "bool":
        return "bool"
    if dtype_name.startswith("complex"):
        return "complex"
    if "float" in dtype_name or dtype_name in ("half", "double"):
        return "float"
    return "int"


def _round_to_bfloat16(x):
    """Round float32 values to bfloat16 precision (nearest-even), as float32."""
    bits = x.astype(np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1))) & np.uint32(0xFFFF0000)
    # NaNs keep their (quiet) bit pattern instead of being rounded.
    rounded = np.where(np.isnan(x), bits, rounded)
    return rounded.view(np.float32)


def _normalize(data, kind, bfloat16):
    """Convert to a dtype whose .tolist() values format like torch's .item()."""
    a = np.asarray(data)
    if kind == "complex":
        return a.astype(np.complex128)
    if kind == "float":
        if bfloat16:
            with np.errstate(invalid="ignore", over="ignore"):
                a = _round_to_bfloat16(a.astype(np.float32))
        return a.astype(np.float64)  # exact for every narrower float type
    if kind == "bool":
        return a.astype(bool)
    return a


def tensor_repr(data, dtype_name, *, default_dtype_name="float32", suffixes=(),
                prefix="tensor(", is_bfloat16=False):
    """Return ``repr`` of a torch tensor holding ``data`` with dtype ``dtype_name``.

    ``dtype_name`` is the torch dtype name without ``torch.`` (e.g. "float64").
    ``suffixes`` (e.g. "requires_grad=True", "grad_fn=<MulBackward0>") are
    appended after the size/dtype suffixes, wrapping like torch does.
    ``prefix`` may span lines (e.g. "Parameter containing:\ntensor("); nested
    rows are aligned with its last line.
    """
    kind = _kind(dtype_name)
    bf16 = is_bfloat16 or dtype_name == "bfloat16"
    a = _normalize(data, kind, bf16)
    indent = len(prefix) - prefix.rfind("\n") - 1  # columns on prefix's last line
    extra = []
    summarize = a.size > _OPTS.threshold
    if a.size == 0:
        body = "[]"
        if a.ndim != 1:
            extra.append(f"size={tuple(int(n) for n in a.shape)}")
    elif summarize and _OPTS.edgeitems == 0 and a.ndim:
        body = "[...]"  # nothing left to show
    else:
        shown = _summarized(a, _OPTS.edgeitems) if summarize else a
        fmt, width = _element_formatter(shown, kind)
        if a.ndim == 0:
            body = fmt(a.item())
        else:
            body = _layout(a, indent, summarize, fmt, width)
    if a.size and _OPTS.edgeitems == 0:
        # Observed torch quirk: edgeitems=0 always adds the size suffix.
        extra.append(f"size={tuple(int(n) for n in a.shape)}")
    defaults = (default_dtype_name, _DEFAULT_COMPLEX.get(default_dtype_name),
                "int64", "bool")
    # An empty tensor shows its dtype unless it is the default float dtype.
    if dtype_name not in (defaults[:1] if a.size == 0 else defaults):
        extra.append(f"dtype=torch.{dtype_name}")
    return _add_suffixes(prefix + body, extra + list(suffixes), indent)
