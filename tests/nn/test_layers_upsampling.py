"""Upsample, UpsamplingNearest2d, UpsamplingBilinear2d, PixelShuffle, PixelUnshuffle and
F.interpolate against torch: values and gradients for every mode and rank, the nodes of the
forward and of the backward (create_graph), double backward, PyTorch's exceptions."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphgrad as gg
from tests.conftest import run_both
from tests.nn.layer_utils import check_layer, randn

torch = pytest.importorskip("torch")

X = {3: randn(2, 3, 5), 4: randn(2, 3, 5, 4), 5: randn(1, 2, 3, 4, 5)}
MODES = {3: ["nearest", "nearest-exact", "linear", "area"],
         4: ["nearest", "nearest-exact", "bilinear", "bicubic", "area"],
         5: ["nearest", "nearest-exact", "trilinear", "area"]}
CASES = [(nd, m) for nd, ms in MODES.items() for m in ms]
SIZES = [{"scale_factor": 2}, {"scale_factor": 0.6}, {"scale_factor": 2.3},
         {"scale_factor": 1.7, "recompute_scale_factor": True}, {"size": 7}, {"size": 3},
         {"size": 5}]


def _kw(nd, kw):
    kw = dict(kw)
    if isinstance(kw.get("size"), int) and nd == 5:
        kw["size"] = (kw["size"], 2, kw["size"] + 1)     # (a tuple, one entry per dim)
    return kw


def _pytorch_backward_disagrees(nd, mode, kw):
    """PyTorch's 1-d/3-d nearest forward maps output i to floor(i / scale) while its
    backward uses nearest_idx, which maps out == 2 in to i // 2 and out == in to i whatever
    the scale (its gradcheck fails there); graphgrad's backward is its forward's adjoint
    (docs/differences.md, test_nearest_gradient_is_the_forwards_adjoint)."""
    if mode != "nearest" or nd == 4 or "scale_factor" not in kw or \
            kw.get("recompute_scale_factor"):
        return False
    sp = X[nd].shape[2:]
    return any(int(n * kw["scale_factor"]) in (n, 2 * n) and kw["scale_factor"] not in (1, 2)
               for n in sp)


@pytest.mark.parametrize("nd,mode", CASES)
@pytest.mark.parametrize("kw", SIZES)
def test_upsample_module(nd, mode, kw):
    kw = _kw(nd, kw)
    if mode == "area" and "recompute_scale_factor" in kw:
        kw.pop("recompute_scale_factor")
    rg = [False] if _pytorch_backward_disagrees(nd, mode, kw) else None
    check_layer(lambda lib: lib.nn.Upsample(mode=mode, **kw), [X[nd]], requires_grad=rg)


@pytest.mark.parametrize("shape,scale", [((1, 1, 2), 2.4), ((2, 3, 5), 1.1),
                                         ((1, 2, 3, 2, 5), (2.3, 1.0, 1.1))])
def test_nearest_gradient_is_the_forwards_adjoint(shape, scale):
    # where PyTorch's own gradcheck fails (its backward maps indices otherwise than its
    # forward), graphgrad's gradient is the adjoint of the same forward values as PyTorch's
    x = randn(*shape)
    y_t = torch.nn.functional.interpolate(torch.tensor(x), scale_factor=scale)
    xg = gg.tensor(x, requires_grad=True)
    y_g = gg.nn.functional.interpolate(xg, scale_factor=scale)
    np.testing.assert_array_equal(y_g.detach().numpy(), y_t.numpy())
    assert gg.autograd.gradcheck(lambda t: gg.nn.functional.interpolate(t, scale_factor=scale),
                                 (xg,))
    assert gg.autograd.gradgradcheck(
        lambda t: gg.nn.functional.interpolate(t, scale_factor=scale), (xg,))
    assert not torch.autograd.gradcheck(
        lambda t: torch.nn.functional.interpolate(t, scale_factor=scale),
        (torch.tensor(x, requires_grad=True),), raise_exception=False)


@pytest.mark.parametrize("nd,mode", [c for c in CASES if c[1] in
                                     ("linear", "bilinear", "bicubic", "trilinear")])
@pytest.mark.parametrize("kw", [{"size": 7}, {"scale_factor": 0.6}, {"size": 1},
                                {"scale_factor": 2.5, "recompute_scale_factor": True}])
def test_align_corners(nd, mode, kw):
    check_layer(lambda lib: lib.nn.Upsample(mode=mode, align_corners=True, **_kw(nd, kw)),
                [X[nd]])


@pytest.mark.parametrize("name,kw", [("UpsamplingNearest2d", {"scale_factor": 2}),
                                     ("UpsamplingNearest2d", {"size": (3, 7)}),
                                     ("UpsamplingBilinear2d", {"scale_factor": 1.5}),
                                     ("UpsamplingBilinear2d", {"size": 6})])
def test_upsampling_2d_modules(name, kw):
    check_layer(lambda lib: getattr(lib.nn, name)(**kw), [X[4]])


@pytest.mark.parametrize("r,shape", [(2, (2, 8, 3, 2)), (3, (9, 2, 2)), (2, (2, 1, 4, 2, 3))])
def test_pixel_shuffle(r, shape):
    check_layer(lambda lib: lib.nn.PixelShuffle(r), [randn(*shape)])


@pytest.mark.parametrize("r,shape", [(2, (2, 2, 6, 4)), (3, (1, 6, 3)), (1, (2, 3, 2, 2))])
def test_pixel_unshuffle(r, shape):
    check_layer(lambda lib: lib.nn.PixelUnshuffle(r), [randn(*shape)])


@pytest.mark.parametrize("args", [{"scale_factor": 2.0}, {"size": (3, 4)},
                                  {"scale_factor": (2.0, 1.5), "mode": "bilinear"}])
def test_upsample_repr(args):
    assert repr(gg.nn.Upsample(**args)) == repr(torch.nn.Upsample(**args))
    assert repr(gg.nn.PixelShuffle(3)) == repr(torch.nn.PixelShuffle(3))
    assert repr(gg.nn.PixelUnshuffle(2)) == repr(torch.nn.PixelUnshuffle(2))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
@pytest.mark.parametrize("kw", [{"size": (3, 2)}, {"scale_factor": 0.3}, {"size": (11, 4)},
                                {"scale_factor": (0.45, 1.0)},
                                {"size": (2, 9), "align_corners": True},
                                {"scale_factor": 1.7}, {"size": (1, 1)},
                                {"scale_factor": 0.4, "recompute_scale_factor": True}])
def test_antialias(mode, kw):
    if mode == "lanczos" and kw.get("align_corners"):
        kw = {k: v for k, v in kw.items() if k != "align_corners"}
    check_layer(lambda lib: _Interp(lib, mode=mode, antialias=True, **kw), [randn(2, 3, 9, 8)])


def _Interp(lib, **kw):
    class Interp(lib.nn.Module):
        def forward(self, x):
            return lib.nn.functional.interpolate(x, **kw)
    return Interp()


@pytest.mark.parametrize("size", [1, 2, (None, 3, 2), (3, 4, 5), (2, 1, 7)])
@pytest.mark.parametrize("batched", [True, False])
def test_adaptive_avg_pool3d(size, batched):
    # (interpolate's 'area' mode of a 5-D input)
    check_layer(lambda lib: lib.nn.AdaptiveAvgPool3d(size), [X[5] if batched else X[5][0]])


def _pool3d_error(lib, case):
    F = lib.nn.functional
    return {
        "3-d input": lambda: F.adaptive_avg_pool3d(lib.randn(3, 4, 5), 2),
        "size 2": lambda: F.adaptive_avg_pool3d(lib.randn(1, 2, 3, 4, 5), (2, 2)),
        "empty channel": lambda: F.adaptive_avg_pool3d(lib.randn(2, 0, 4, 4, 4), 2),
        "empty depth": lambda: F.adaptive_avg_pool3d(lib.randn(2, 3, 0, 4, 4), 2),
        "negative": lambda: F.adaptive_avg_pool3d(lib.randn(1, 2, 3, 4, 5), -1),
        "long": lambda: F.adaptive_avg_pool3d(lib.ones(1, 2, 3, 4, 5, dtype=lib.long), 2),
    }[case]()


@pytest.mark.parametrize("case", ["3-d input", "size 2", "empty channel", "empty depth",
                                  "negative", "long"])
def test_adaptive_avg_pool3d_errors(case):
    ours, theirs = run_both(lambda lib: _pool3d_error(lib, case))
    assert type(theirs).__name__ == "Raised", theirs


def test_adaptive_avg_pool3d_zero_and_half():
    run_both(lambda lib: [lib.nn.functional.adaptive_avg_pool3d(lib.tensor(X[5]), 0),
                          lib.nn.functional.adaptive_avg_pool3d(lib.tensor(X[5]).half(), 2),
                          lib.nn.functional.adaptive_avg_pool3d(lib.tensor(X[5]).bfloat16(),
                                                                (3, 1, 2))])


# ====================================================================== nodes, double backward
def _interp(lib, nd, mode, **kw):
    x = lib.tensor(X[nd], requires_grad=True)
    if mode == "pixel_shuffle":
        return x, lib.nn.functional.pixel_shuffle(x.reshape(2, 12, 1, 5) if nd == 4 else x, 2)
    if mode == "pixel_unshuffle":
        return x, lib.nn.functional.pixel_unshuffle(x[..., :4, :4], 2)
    size = {3: 7, 4: (7, 3), 5: (4, 2, 7)}[nd]
    return x, lib.nn.functional.interpolate(x, size=size, mode=mode, **kw)


@pytest.mark.parametrize("nd,mode", CASES + [(4, "pixel_shuffle"), (4, "pixel_unshuffle"),
                                     (4, "bilinear aa"), (4, "bicubic aa"),
                                     (4, "lanczos aa")])
def test_nodes_and_double_backward(nd, mode):
    def prog(lib):
        x, y = _interp(lib, nd, mode.split()[0], antialias=mode.endswith("aa"))
        w = lib.tensor(randn(*y.shape, seed=3))
        g, = lib.autograd.grad((y * y * w).sum(), x, create_graph=True)
        g2, = lib.autograd.grad((g * g).sum(), x)
        return y, y.grad_fn.name(), g.detach(), g.grad_fn.name(), g2
    run_both(prog)


@pytest.mark.parametrize("nd,mode", CASES)
def test_forward_ad_and_jacobian(nd, mode):
    def prog(lib):
        fw = lib.autograd.forward_ad
        x = lib.tensor(X[nd])
        size = {3: 7, 4: (7, 3), 5: (4, 2, 7)}[nd]
        with fw.dual_level():
            d = fw.make_dual(x, lib.tensor(randn(*x.shape, seed=5)))
            tan = fw.unpack_dual(lib.nn.functional.interpolate(d, size=size, mode=mode)).tangent
        small = lib.tensor(X[nd][:1, :1])
        jac = lib.autograd.functional.jacobian(
            lambda t: lib.nn.functional.interpolate(t, scale_factor=1.5, mode=mode), small,
            vectorize=True)
        return tan, jac
    run_both(prog)


def test_dtypes():
    def prog(lib):
        x = lib.tensor(np.abs(X[4]) * 50)
        out = [lib.nn.functional.interpolate(x.to(lib.uint8), scale_factor=1.5)]
        for dt in (lib.float32, lib.float16, lib.bfloat16):
            out.append(lib.nn.functional.interpolate(x.to(dt), scale_factor=1.5,
                                                     mode="nearest-exact"))
        return out
    run_both(prog)


def test_deprecated_aliases_warn():
    def prog(lib):
        x = lib.tensor(X[4])
        got = []
        for name, kw in (("upsample", {"scale_factor": 2, "mode": "bilinear"}),
                         ("upsample_nearest", {"size": 3}),
                         ("upsample_bilinear", {"scale_factor": 2})):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                got.append(getattr(lib.nn.functional, name)(x, **kw))
            got.append(len(w))
        return got
    run_both(prog)


def test_upsample_empty_batch():
    run_both(lambda lib: lib.nn.functional.interpolate(lib.zeros(0, 3, 4, 4), scale_factor=2,
                                                       mode="bilinear"))


# ====================================================================== errors
def _error(lib, case):
    F = lib.nn.functional
    x3, x4, x5 = (lib.tensor(X[n]).float() for n in (3, 4, 5))
    return {
        "nearest long": lambda: F.interpolate(x4.long(), scale_factor=2),
        "nearest bool": lambda: F.interpolate(x4.bool(), scale_factor=2),
        "bilinear long": lambda: F.interpolate(x4.long(), scale_factor=2, mode="bilinear"),
        "linear long": lambda: F.interpolate(x3.long(), scale_factor=2, mode="linear"),
        "area long": lambda: F.interpolate(x4.long(), size=3, mode="area"),
        "complex": lambda: F.interpolate(x4.to(lib.complex64), scale_factor=2),
        "align nearest": lambda: F.interpolate(x4, scale_factor=2, align_corners=True),
        "both": lambda: F.interpolate(x4, size=3, scale_factor=2),
        "neither": lambda: F.interpolate(x4),
        "size len": lambda: F.interpolate(x4, size=(3,)),
        "size float": lambda: F.interpolate(x4, size=(3.0, 2)),
        "size float scalar": lambda: F.interpolate(x4, size=3.0),
        "scale len": lambda: F.interpolate(x4, scale_factor=(2,)),
        "recompute with size": lambda: F.interpolate(x4, size=3, recompute_scale_factor=True),
        "aa nearest": lambda: F.interpolate(x4, size=3, antialias=True),
        "aa 3d": lambda: F.interpolate(x3, size=3, mode="linear", antialias=True),
        "bilinear 3d": lambda: F.interpolate(x3, size=3, mode="bilinear"),
        "linear 4d": lambda: F.interpolate(x4, size=3, mode="linear"),
        "trilinear 4d": lambda: F.interpolate(x4, size=3, mode="trilinear"),
        "bicubic 3d": lambda: F.interpolate(x3, size=3, mode="bicubic"),
        "bicubic 5d": lambda: F.interpolate(x5, size=3, mode="bicubic"),
        "bad mode": lambda: F.interpolate(x4, size=3, mode="foo"),
        "2d input": lambda: F.interpolate(lib.randn(3, 4), size=3),
        "size 0": lambda: F.interpolate(x4, size=0),
        "scale tiny": lambda: F.interpolate(x4, scale_factor=0.1),
        "scale neg": lambda: F.interpolate(x4, scale_factor=-2),
        "empty channel": lambda: F.interpolate(lib.randn(2, 0, 4, 4), scale_factor=2),
        "empty spatial": lambda: F.interpolate(lib.randn(2, 3, 0, 4), size=(2, 2)),
        "lanczos no aa": lambda: F.interpolate(x4, size=3, mode="lanczos"),
        "lanczos align": lambda: F.interpolate(x4, size=3, mode="lanczos", antialias=True,
                                               align_corners=True),
        "lanczos 3d": lambda: F.interpolate(x3, size=3, mode="lanczos", antialias=True),
        "lanczos 3d no aa": lambda: F.interpolate(x3, size=3, mode="lanczos"),
        "lanczos half": lambda: F.interpolate(x4.half(), size=3, mode="lanczos",
                                              antialias=True),
        "aa half": lambda: F.interpolate(x4.half(), size=3, mode="bilinear", antialias=True),
        "aa bfloat16": lambda: F.interpolate(x4.bfloat16(), size=3, mode="bicubic",
                                             antialias=True),
        "scale tensor": lambda: F.interpolate(x4, scale_factor=lib.tensor(2.0)),
        "ps bad channels": lambda: F.pixel_shuffle(lib.randn(1, 7, 3, 3), 2),
        "ps 2d": lambda: F.pixel_shuffle(lib.randn(4, 3), 2),
        "ps 0": lambda: F.pixel_shuffle(lib.randn(1, 4, 3, 3), 0),
        "ps float": lambda: F.pixel_shuffle(lib.randn(1, 4, 3, 3), 2.0),
        "pu bad h": lambda: F.pixel_unshuffle(lib.randn(1, 4, 3, 4), 2),
        "pu bad w": lambda: F.pixel_unshuffle(lib.randn(1, 4, 4, 3), 2),
        "pu neg": lambda: F.pixel_unshuffle(lib.randn(1, 4, 4, 4), -1),
    }[case]()


@pytest.mark.parametrize("case", [
    "nearest long", "nearest bool", "bilinear long", "linear long", "area long", "complex",
    "align nearest", "both", "neither", "size len", "size float", "size float scalar",
    "scale len", "recompute with size", "aa nearest", "aa 3d", "bilinear 3d", "linear 4d",
    "trilinear 4d", "bicubic 3d", "bicubic 5d", "bad mode", "2d input", "size 0", "scale tiny",
    "scale neg", "empty channel", "empty spatial", "lanczos no aa", "lanczos align",
    "lanczos 3d", "lanczos 3d no aa", "lanczos half",
    "aa half", "aa bfloat16", "scale tensor",
    "ps bad channels", "ps 2d", "ps 0", "ps float", "pu bad h", "pu bad w", "pu neg"])
def test_errors_are_pytorchs(case):
    ours, theirs = run_both(lambda lib: _error(lib, case))
    assert type(theirs).__name__ == "Raised", theirs


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
def test_uint8_linear_modes_are_refused_with_the_fix(mode):
    x = gg.tensor(np.abs(X[4]) * 50).to(gg.uint8)
    with pytest.raises(NotImplementedError, match="graphgrad"):
        gg.nn.functional.interpolate(x, size=3, mode=mode, antialias=mode == "lanczos")


@pytest.mark.parametrize("mode,nd", [("nearest", 4), ("bilinear", 4), ("trilinear", 5),
                                     ("bicubic", 4), ("area", 5)])
def test_per_sample_gradients_under_vmap(mode, nd):
    # vmap(grad(f)): the upsampling ops and their backward ops take the batch as leading dims
    def prog(lib):
        x = lib.tensor(X[nd])
        w = lib.tensor(randn(*X[nd].shape[1:], seed=4))

        def f(xi):
            y = lib.nn.functional.interpolate(xi[None] * w, scale_factor=1.5, mode=mode)
            return (y * y).sum()
        return lib.func.vmap(lib.func.grad(f))(x)
    run_both(prog)
