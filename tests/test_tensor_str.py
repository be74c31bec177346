"""Compare graphgrad._tensor.printing.tensor_repr against torch's own repr."""

import importlib.util
import math
import pathlib

import numpy as np
import pytest

from tests.conftest import HAVE_TORCH, torch

try:
    from graphgrad._tensor import printing as ts
except Exception:  # package __init__ missing/broken: load the file directly
    _path = pathlib.Path(__file__).resolve().parents[1] / "graphgrad" / "_tensor" / "printing.py"
    _spec = importlib.util.spec_from_file_location("_graphgrad_tensor_str", _path)
    ts = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(ts)

tensor_repr = ts.tensor_repr

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None

NAN, INF = float("nan"), float("inf")


@pytest.fixture(autouse=True)
def _reset_printoptions():
    libs = (torch, ts) if HAVE_TORCH else (ts,)
    for lib in libs:
        lib.set_printoptions(profile="default")
    yield
    for lib in libs:
        lib.set_printoptions(profile="default")


def dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def to_torch(arr, name):
    if name == "bfloat16":
        return torch.from_numpy(np.array(arr, dtype=np.float32, order="C")).to(torch.bfloat16)
    return torch.from_numpy(np.array(arr, order="C"))


def check(arr, name=None, **kw):
    """Assert tensor_repr matches repr(torch tensor) for arr (and its suffixes)."""
    t = to_torch(arr, name)
    name = name or dtype_name(t)
    assert tensor_repr(arr, name, **kw) == repr(t)
    if t.is_floating_point() or t.is_complex():
        leaf = t.clone().requires_grad_()
        assert tensor_repr(arr, name, suffixes=("requires_grad=True",)) == repr(leaf)
        out = leaf * 2
        assert (tensor_repr(out.detach().numpy() if name != "bfloat16" else
                            out.detach().float().numpy(), name,
                            suffixes=("grad_fn=<MulBackward0>",)) == repr(out))


# ----------------------------------------------------------------------------
# Hand-picked cases
# ----------------------------------------------------------------------------

rng = np.random.default_rng(1234)

FLOAT_CASES = {
    "scalar": np.array(1.5),
    "scalar_int_valued": np.array(3.0),
    "scalar_nan": np.array(NAN),
    "scalar_neg_zero": np.array(-0.0),
    "scalar_tiny": np.array(1e-7),
    "scalar_huge": np.array(-1e12),
    "empty_1d": np.zeros((0,)),
    "empty_2d": np.zeros((2, 0)),
    "empty_3d": np.zeros((0, 3, 1)),
    "one": np.array([0.25]),
    "111": rng.standard_normal((1, 1, 1)),
    "vec5": rng.standard_normal(5),
    "vec30": rng.standard_normal(30),
    "mat34": rng.standard_normal((3, 4)),
    "cube345": rng.standard_normal((3, 4, 5)),
    "4d": rng.standard_normal((2, 3, 2, 4)),
    "5d": rng.standard_normal((2, 1, 2, 1, 3)),
    "n1000": rng.standard_normal(1000),
    "n1001": rng.standard_normal(1001),
    "m40x40": rng.standard_normal((40, 40)),
    "m2x501": rng.standard_normal((2, 501)),
    "m501x2": rng.standard_normal((501, 2)),
    "c11x10x10": rng.standard_normal((11, 10, 10)),
    "summ_4d": rng.standard_normal((7, 7, 7, 7)),
    "summ_int_valued": np.arange(2000.0).reshape(40, 50),
    "int_valued": np.array([1.0, 2.0, -3.0, 100.0]),
    "int_valued_big_ratio": np.array([1.0, 5000.0]),
    "int_valued_huge": np.array([1e9, 2.0e9]),
    "zeros": np.zeros(4),
    "neg_zero": np.array([0.0, -0.0, 1.0]),
    "neg_zero_frac": np.array([-0.0, 1.5]),
    "all_neg_zero_long": np.full(30, -0.0),
    "sci_small": np.array([1e-5, 1.0]),
    "sci_big": np.array([1e10, 1.0]),
    "sci_ratio": np.array([0.001, 1.5, 3.0]),
    "no_sci_ratio": np.array([0.01, 1.5, 3.0]),
    "exp3": np.array([1e-300, 1e300, -5.0]),
    "min_1e-4": np.array([1e-4, 0.5]),
    "just_below_1e-4": np.array([9.9999e-5, 0.05]),
    "max_1e8": np.array([1e8, 2e7 + 0.5]),
    "nan_inf": np.array([NAN, INF, -INF]),
    "nan_int": np.array([NAN, 1.0, 2.0]),
    "nan_frac": np.array([NAN, 1.5]),
    "inf_mixed": np.array([[INF, -2.25], [0.0, NAN]]),
    "all_nan_long": np.full(30, NAN),
    "nan_sci": np.array([NAN, 1e-8, -INF, 3.0]),
    "large_ints": np.array([123456.0, -7.0, 0.0]),
    "rounding": np.array([0.99995, 0.00005, 2.5]),
    "wide_rows": rng.standard_normal((3, 30)) * 1e3,
    "mixed_magnitudes": rng.standard_normal((4, 6)) * np.logspace(-6, 6, 6),
    "neg_only": -np.abs(rng.standard_normal(9)),
    "denormal": np.array([5e-324, 1.0]),
}


@pytest.mark.parametrize("key", sorted(FLOAT_CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_float_cases(key, dtype):
    arr = FLOAT_CASES[key]
    with np.errstate(over="ignore", under="ignore"):
        if dtype == "bfloat16":
            check(arr.astype(np.float32), "bfloat16")
        else:
            check(arr.astype(dtype))


@pytest.mark.skipif(ml_dtypes is None, reason="ml_dtypes not installed")
@pytest.mark.parametrize("key", ["vec30", "mat34", "nan_inf", "sci_small", "n1001"])
def test_ml_dtypes_bfloat16_input(key):
    arr = FLOAT_CASES[key].astype(np.float32)
    t = torch.from_numpy(arr).to(torch.bfloat16)
    assert tensor_repr(arr.astype(ml_dtypes.bfloat16), "bfloat16") == repr(t)
    # float32 values not representable in bfloat16 get rounded like torch does
    assert tensor_repr(arr, "bfloat16", is_bfloat16=True) == repr(t)


INT_CASES = {
    "scalar": np.array(7),
    "scalar_neg": np.array(-42),
    "empty": np.zeros((0,), dtype=np.int64),
    "empty_2d": np.zeros((3, 0, 2), dtype=np.int64),
    "small": np.array([1, 2, 3]),
    "neg": np.array([-1, 20, -300]),
    "mat": rng.integers(-50, 50, (4, 5)),
    "big": np.array([2**40, -3, 17]),
    "long_row": rng.integers(0, 100, 60),
    "summ": rng.integers(-9, 9, 1500),
    "summ_3d": rng.integers(0, 1000, (10, 11, 12)),
}


@pytest.mark.parametrize("key", sorted(INT_CASES))
@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
def test_int_cases(key, dtype):
    arr = INT_CASES[key]
    if dtype == "uint8":
        arr = np.abs(arr) % 256
    elif dtype in ("int8", "int16"):
        arr = np.clip(arr, -128, 127)
    check(arr.astype(dtype))


@pytest.mark.parametrize("arr", [
    np.array(True), np.array([True, False]), np.array([[False], [False]]),
    np.zeros((0, 2), dtype=bool), rng.random((4, 25)) > 0.5, rng.random(1200) > 0.5,
], ids=lambda a: f"bool{a.shape}")
def test_bool(arr):
    check(arr)


COMPLEX_CASES = {
    "scalar": np.array(1 + 2j),
    "scalar_sci": np.array(1e-5 + 1j),
    "ints": np.array([1 + 2j, 3 + 4j]),
    "mixed": np.array([1 + 2j, -3.5 - 0.5j]),
    "imag_widths": np.array([1 + 10.5j, 1 - 2.5j, -300 + 0.25j]),
    "pure_imag": np.array([1j, 0j]),
    "nan": np.array([complex(NAN, 1), complex(1, INF), complex(-INF, NAN)]),
    "neg_zero": np.array([complex(0.0, -0.0), complex(-0.0, 1.0)]),
    "sci": np.array([1e-5 + 1j, 1e5 - 1j]),
    "rand_mat": rng.standard_normal((20, 3)) + 1j * rng.standard_normal((20, 3)),
    "rand_vec": rng.standard_normal(40) * 10 + 1j * rng.standard_normal(40),
    "rand_3d": rng.standard_normal((2, 3, 4)) - 1j * rng.standard_normal((2, 3, 4)) * 1e-6,
    "summ": rng.standard_normal((30, 40)) + 1j * rng.standard_normal((30, 40)),
    "empty": np.zeros((2, 0), dtype=complex),
}


@pytest.mark.parametrize("key", sorted(COMPLEX_CASES))
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_cases(key, dtype):
    check(COMPLEX_CASES[key].astype(dtype))


def test_complex_line_width_arange():
    for n in range(1, 40):
        arr = (np.arange(n) * 1.5 + 0.5j).astype(np.complex64)
        check(arr)
        check(arr * 1e-6)


# ----------------------------------------------------------------------------
# Randomized sweep: many shapes, scales and value mixes
# ----------------------------------------------------------------------------

def _random_array(r):
    ndim = int(r.integers(0, 5))
    shape = tuple(int(s) for s in r.integers(1, 9 if ndim > 2 else 40, ndim))
    style = int(r.integers(0, 6))
    x = r.standard_normal(shape)
    if style == 1:
        x = np.round(x * 10 ** r.integers(0, 6))
    elif style == 2:
        x = x * 10.0 ** r.integers(-10, 10, shape)
    elif style == 3:
        x = x * 10.0 ** r.integers(-6, 9)
    elif style == 4 and x.size:
        flat = x.reshape(-1)
        flat[r.integers(0, flat.size, 3)] = r.choice([NAN, INF, -INF, 0.0, -0.0], 3)
    elif style == 5:
        x = np.round(x, int(r.integers(0, 3)))
    return x


@pytest.mark.parametrize("seed", range(30))
def test_random_sweep(seed):
    r = np.random.default_rng(seed)
    for _ in range(10):
        x = _random_array(r)
        for dtype in ("float32", "float64", "float16"):
            with np.errstate(over="ignore"):
                check(x.astype(dtype))
        check(x.astype(np.float32), "bfloat16")
        imag = r.standard_normal(x.shape) * 10.0 ** r.integers(-6, 6)
        check((x + 1j * imag).astype(np.complex128))
        check((x + 1j * np.round(imag)).astype(np.complex64))
        check(np.nan_to_num(x * 1000, posinf=7, neginf=-7).astype(np.int64))


# ----------------------------------------------------------------------------
# Suffix wrapping
# ----------------------------------------------------------------------------

def _named_backward(name_len):
    """A custom autograd Function whose grad_fn repr has a chosen length."""
    name = "F" + "x" * max(0, name_len)

    def forward(ctx, x):
        return x * 1

    def backward(ctx, g):
        return g

    return type(name, (torch.autograd.Function,), {
        "forward": staticmethod(forward), "backward": staticmethod(backward)})


@pytest.mark.parametrize("shape", [(), (3,), (7,), (12,), (3, 4), (2, 2, 2), (2, 9)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex64])
def test_suffix_wrapping(shape, dtype):
    torch.manual_seed(sum(shape) + 7)
    base = torch.randn(shape, dtype=dtype)
    name = dtype_name(base)
    for n in range(70):
        fn = _named_backward(n)
        out = fn.apply(base.clone().requires_grad_())
        suffix = f"grad_fn=<{type(out.grad_fn).__name__}>"
        arr = out.detach().numpy()
        assert tensor_repr(arr, name, suffixes=(suffix,)) == repr(out)


def test_multiplication_grad_fn_float64():
    torch.manual_seed(0)
    out = torch.randn(3, 4, dtype=torch.float64, requires_grad=True) * 2
    arr = out.detach().numpy()
    expected = repr(out)
    assert "\n       grad_fn=<MulBackward0>)" in expected
    assert tensor_repr(arr, "float64", suffixes=("grad_fn=<MulBackward0>",)) == expected


def test_default_dtype_float64():
    torch.set_default_dtype(torch.float64)
    try:
        for arr in (np.array([1.5, 2.0]), np.array([1.5], np.float32),
                    np.array([1j]), np.array([1j], np.complex64)):
            assert (tensor_repr(arr, dtype_name(torch.from_numpy(arr)),
                                default_dtype_name="float64")
                    == repr(torch.from_numpy(arr)))
    finally:
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("shape", [(), (5,), (3, 30), (2, 2, 2)])
def test_parameter_prefix(shape):
    torch.manual_seed(3)
    p = torch.nn.Parameter(torch.randn(shape, dtype=torch.float64))
    got = tensor_repr(p.detach().numpy(), "float64", suffixes=("requires_grad=True",),
                      prefix="Parameter containing:\ntensor(")
    assert got == repr(p)


def test_non_contiguous_and_non_array_inputs():
    x = np.arange(24.0).reshape(4, 6)[::-1, ::2] * 0.5
    assert tensor_repr(x, "float32") == repr(torch.tensor(x.copy(), dtype=torch.float32))
    assert tensor_repr(x.T, "float64") == repr(torch.tensor(x.T.copy()))
    assert tensor_repr(np.float32(2.5), "float32") == "tensor(2.5000)"
    assert tensor_repr([1, 2], "int64") == "tensor([1, 2])"


# ----------------------------------------------------------------------------
# Print options
# ----------------------------------------------------------------------------

def _both(**kw):
    torch.set_printoptions(**kw)
    ts.set_printoptions(**kw)


def test_get_set_printoptions_match_torch():
    from torch._tensor_str import get_printoptions as torch_get
    assert ts.get_printoptions() == torch_get()
    for kw in [dict(precision=2), dict(sci_mode=True), dict(precision=3),
               dict(profile="short"), dict(profile="full", precision=6),
               dict(profile="bogus"), dict(threshold=5, edgeitems=1, linewidth=40),
               dict(profile="default", sci_mode=False)]:
        _both(**kw)
        assert ts.get_printoptions() == torch_get()


def test_printoptions_context_manager():
    before = ts.get_printoptions()
    with ts.printoptions(precision=1, sci_mode=True):
        assert ts.get_printoptions()["precision"] == 1
        assert ts.get_printoptions()["sci_mode"] is True
    assert ts.get_printoptions() == before


PRINTOPT_SETTINGS = [
    dict(precision=2), dict(precision=8), dict(precision=0),
    dict(sci_mode=True), dict(sci_mode=False),
    dict(profile="short"), dict(profile="full"),
    dict(threshold=10), dict(threshold=10, edgeitems=1), dict(edgeitems=5),
    dict(linewidth=40), dict(linewidth=120), dict(linewidth=10),
    dict(threshold=0, edgeitems=0), dict(edgeitems=0),
    dict(threshold=0, edgeitems=1),
]


@pytest.mark.parametrize("kw", PRINTOPT_SETTINGS, ids=str)
def test_printoptions_outputs(kw):
    _both(**kw)
    r = np.random.default_rng(99)
    arrays = [np.array(1.25), np.array([1e-5, 1.0]), np.array([1.0, 5000.0]),
              np.array([NAN, 1.0, -0.0]), r.standard_normal((4, 7)),
              r.standard_normal(1200), r.standard_normal((3, 20, 30)),
              np.arange(30), r.random((2, 15)) > 0.5, np.zeros(3),
              np.array([-0.0, NAN, INF]), r.standard_normal(4) + 0j,
              r.standard_normal((5, 6)) + 1j * r.standard_normal((5, 6))]
    for arr in arrays:
        for a in (arr, arr.astype(np.float32) if arr.dtype == np.float64 else arr):
            check(a)


@pytest.mark.parametrize("seed", range(20))
def test_random_printoptions_sweep(seed):
    r = np.random.default_rng(1000 + seed)
    for _ in range(15):
        _both(precision=int(r.integers(0, 9)), threshold=int(r.choice([5, 50, 1000])),
              edgeitems=int(r.integers(0, 5)), linewidth=int(r.integers(5, 150)),
              sci_mode=[None, True, False][int(r.integers(0, 3))])
        x = _random_array(r)
        check(x.astype(np.float32))
        check(np.round(x).astype(np.int64))
        check((x + 1j * np.round(r.standard_normal(x.shape), 1)).astype(np.complex64))
