"""graphgrad.save / graphgrad.load: PyTorch's zip format both ways, weights-only safety.

Files written by torch.save load in graphgrad (also in a process where torch cannot be
imported), files written by graphgrad.save load in torch.load(weights_only=True), and
malicious pickles are refused with pickle.UnpicklingError before anything runs."""
from __future__ import annotations

import collections
import io
import os
import pathlib
import pickle
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import graphgrad
from tests.conftest import assert_same

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "float16", "bfloat16", "complex64", "complex128", "int64",
          "int32", "int16", "int8", "uint8", "bool"]
ROOT = pathlib.Path(__file__).resolve().parents[1]


def make(lib, dtype):
    t = lib.arange(-3, 9).reshape(3, 4)
    if dtype == "bool":
        return t > 2
    t = t.to(getattr(lib, dtype))
    return t * (1 + 1j) if dtype.startswith("complex") else t


def plain(x):
    """Devices and sizes as strings/tuples (each library has its own classes), recursively."""
    if isinstance(x, (graphgrad.device, torch.device)):
        return ("device", str(x))
    if isinstance(x, (graphgrad.Size, torch.Size)):
        return ("Size", tuple(x))
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(plain(v) for v in x)
    return x


def both_ways(program):
    """Save ``program(lib)`` with each library and load it with the other; the loaded
    objects must agree with the saved ones (compared as run_both compares)."""
    for src, dst in ((graphgrad, torch), (torch, graphgrad)):
        buf = io.BytesIO()
        obj = program(src)
        src.save(obj, buf)
        buf.seek(0)
        loaded = dst.load(buf)
        if src is graphgrad:
            assert_same(plain(obj), plain(loaded))
        else:
            assert_same(plain(loaded), plain(obj))


# ------------------------------------------------------------------ tensors
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_both_ways(dtype):
    both_ways(lambda lib: {"t": make(lib, dtype), "scalar": make(lib, dtype)[1, 2].clone(),
                           "empty": make(lib, dtype)[:0]})


def test_noncontiguous_views_and_requires_grad_both_ways():
    def prog(lib):
        x = lib.arange(24., dtype=lib.float64).reshape(2, 3, 4)
        w = lib.ones(3, requires_grad=True)
        return [x.transpose(0, 2), x[:, 1], x[..., ::2], x.expand(2, 2, 3, 4)[1], w,
                x.permute(2, 0, 1)[1:], lib.tensor(5)]
    both_ways(prog)


@pytest.mark.parametrize("loader", ["graphgrad", "torch"])
def test_views_keep_sharing_their_storage(loader):
    x = graphgrad.arange(12.).reshape(3, 4)
    buf = io.BytesIO()
    graphgrad.save({"x": x, "row": x[1], "col": x[:, 2], "t": x.t()}, buf)
    names = zipfile.ZipFile(io.BytesIO(buf.getvalue())).namelist()
    assert [n for n in names if "/data/" in n] == ["archive/data/0"]   # one storage
    buf.seek(0)
    lib = graphgrad if loader == "graphgrad" else torch
    d = lib.load(buf)
    assert d["col"].stride() == (4,) and d["t"].stride() == (1, 4)
    d["x"][1, 2] = 100.0
    assert d["row"][2].item() == d["col"][1].item() == d["t"][2, 1].item() == 100.0


def test_torch_views_keep_sharing_in_graphgrad():
    x = torch.arange(10.)
    buf = io.BytesIO()
    torch.save([x[2:5], x[::3], x], buf)
    buf.seek(0)
    a, b, whole = graphgrad.load(buf)
    whole[3] = -1.0
    assert a.tolist() == [2.0, -1.0, 4.0] and b.tolist() == [0.0, -1.0, 6.0, 9.0]
    assert b.stride() == (3,)


# ------------------------------------------------------------------ containers
def test_nested_containers_and_plain_values_both_ways():
    def prog(lib):
        return {"list": [1, 2.5, "s", None, True, b"bytes", (3, 4)],
                "tuple": (lib.ones(2), {"deep": [lib.zeros(1, dtype=lib.int64)]}),
                "set": {1, 2}, "complex": 1 + 2j, "dtype": lib.float16,
                "size": lib.Size([2, 3]), "device": lib.device("cpu"),
                "bytearray": bytearray(b"ab"), "counter": collections.Counter("aab")}
    both_ways(prog)


def test_state_dict_ordered_dict_with_metadata_both_ways():
    def prog(lib):
        sd = collections.OrderedDict(weight=lib.ones(3, 2), bias=lib.zeros(3),
                                     num_batches_tracked=lib.tensor(4))
        sd._metadata = collections.OrderedDict([("", {"version": 1}), ("bn", {"version": 2})])
        return sd
    for src, dst in ((graphgrad, torch), (torch, graphgrad)):
        buf = io.BytesIO()
        src.save(prog(src), buf)
        buf.seek(0)
        out = dst.load(buf)
        assert type(out) is collections.OrderedDict and list(out) == ["weight", "bias",
                                                                      "num_batches_tracked"]
        assert out._metadata == {"": {"version": 1}, "bn": {"version": 2}}
        assert_same(*(out, prog(torch)) if dst is graphgrad else (prog(graphgrad), out))


def test_torch_module_state_dict_and_parameter_load():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4),
                              torch.nn.Linear(4, 2))
    net(torch.randn(5, 3))
    buf = io.BytesIO()
    torch.save({"sd": net.state_dict(), "p": torch.nn.Parameter(torch.ones(2)),
                "frozen": torch.nn.Parameter(torch.ones(1), requires_grad=False)}, buf)
    buf.seek(0)
    out = graphgrad.load(buf)
    assert_same(dict(out["sd"]), dict(net.state_dict()))
    assert out["sd"]._metadata == net.state_dict()._metadata
    p = out["p"]
    assert p.requires_grad and p.is_leaf and not out["frozen"].requires_grad
    param = getattr(getattr(graphgrad.nn, "parameter", None), "Parameter", None)
    if param is not None:
        assert isinstance(p, param)


def test_graphgrad_parameter_loads_as_torch_parameter():
    param = getattr(getattr(graphgrad.nn, "parameter", None), "Parameter", None)
    if param is None:
        pytest.skip("graphgrad.nn.Parameter is not on this branch yet")
    buf = io.BytesIO()
    graphgrad.save({"w": param(graphgrad.ones(2, 2))}, buf)
    buf.seek(0)
    w = torch.load(buf)["w"]
    assert isinstance(w, torch.nn.Parameter) and w.requires_grad


# ------------------------------------------------------------------ the file format
def test_file_layout_matches_torch(tmp_path):
    graphgrad.save({"a": graphgrad.ones(3), "b": graphgrad.zeros(2, dtype=graphgrad.int64)},
                   tmp_path / "mine.pt")
    torch.save({"a": torch.ones(3), "b": torch.zeros(2, dtype=torch.int64)},
               tmp_path / "theirs.pt")
    ours = zipfile.ZipFile(tmp_path / "mine.pt")
    theirs = zipfile.ZipFile(tmp_path / "theirs.pt")
    strip = [n.split("/", 1)[1] for n in ours.namelist()]
    assert strip == [n.split("/", 1)[1] for n in theirs.namelist()]
    assert ours.namelist()[0] == "mine/data.pkl"
    for name in ("byteorder", "version", ".format_version", ".storage_alignment"):
        assert ours.read("mine/" + name) == theirs.read("theirs/" + name)
    assert ours.read("mine/data.pkl") == theirs.read("theirs/data.pkl")  # same pickle bytes
    sid = ours.read("mine/.data/serialization_id")
    assert len(sid) == 40 and sid.isdigit()
    raw = (tmp_path / "mine.pt").read_bytes()
    for info in ours.infolist():      # every record's data is 64-byte aligned
        name_len, extra_len = np.frombuffer(raw[info.header_offset + 26:
                                                info.header_offset + 30], "<u2")
        assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0
    assert all(i.compress_type == zipfile.ZIP_STORED for i in ours.infolist())
    t = torch.load(tmp_path / "mine.pt", mmap=True)   # mmap needs the alignment
    assert t["a"].tolist() == [1.0, 1.0, 1.0]


def test_paths_pathlib_and_file_objects(tmp_path):
    x = graphgrad.arange(4.)
    graphgrad.save(x, str(tmp_path / "a.pt"))
    graphgrad.save(x, tmp_path / "b.pt")
    with open(tmp_path / "c.pt", "wb") as fh:
        graphgrad.save(x, fh)
    for name in ("a.pt", "b.pt", "c.pt"):
        assert graphgrad.load(tmp_path / name).tolist() == [0.0, 1.0, 2.0, 3.0]
        assert graphgrad.load(str(tmp_path / name)).equal(x)
        with open(tmp_path / name, "rb") as fh:
            assert graphgrad.load(fh).equal(x)
    assert zipfile.ZipFile(tmp_path / "c.pt").namelist()[0] == "archive/data.pkl"


@pytest.mark.parametrize("map_location", [None, "cpu", "cpu:0", "device", "torch-device",
                                          "dict", "callable"])
def test_map_location_cpu_forms(map_location):
    ml = {"device": graphgrad.device("cpu"), "torch-device": torch.device("cpu"),
          "dict": {"cuda:0": "cpu"}, "callable": lambda storage, loc: storage}.get(
        map_location, map_location)
    buf = io.BytesIO()
    torch.save({"w": torch.ones(2, 2)}, buf)
    buf.seek(0)
    assert graphgrad.load(buf, map_location=ml)["w"].tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_map_location_other_device_raises():
    buf = io.BytesIO()
    graphgrad.save(graphgrad.ones(1), buf)
    buf.seek(0)
    with pytest.raises(RuntimeError, match="map_location='cpu'"):
        graphgrad.load(buf, map_location="cuda")


def test_not_a_checkpoint_and_legacy_format():
    for lib in (graphgrad, torch):
        with pytest.raises(pickle.UnpicklingError):
            lib.load(io.BytesIO(b"certainly not a checkpoint"))
    buf = io.BytesIO()
    torch.save(torch.ones(1), buf, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="legacy"):
        graphgrad.load(io.BytesIO(buf.getvalue()))


def test_pickle_module_with_weights_only_is_an_error():
    buf = io.BytesIO()
    graphgrad.save(1, buf)
    for lib in (graphgrad, torch):
        buf.seek(0)
        with pytest.raises(RuntimeError):
            lib.load(buf, pickle_module=pickle, weights_only=True)


# ------------------------------------------------------------------ torch not installed
def test_torch_file_loads_where_torch_cannot_be_imported(tmp_path):
    torch.manual_seed(1)
    net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2),
                              torch.nn.BatchNorm1d(2))
    sd = net.state_dict()
    sd["extra.bf16"] = torch.randn(3).to(torch.bfloat16)
    sd["extra.view"] = sd["0.weight"].t()
    torch.save(sd, tmp_path / "model.pt")
    np.savez(tmp_path / "expected.npz",
             **{k: (v.float() if v.dtype == torch.bfloat16 else v).numpy()
                for k, v in sd.items()})
    script = f"""
import sys
sys.modules["torch"] = None          # any 'import torch' now fails
import numpy as np
import graphgrad
sd = graphgrad.load({str(tmp_path / 'model.pt')!r})
exp = np.load({str(tmp_path / 'expected.npz')!r})
assert list(sd) == list(exp.files), (list(sd), exp.files)
for k, v in sd.items():
    got = v.float() if v.dtype == graphgrad.bfloat16 else v
    np.testing.assert_array_equal(got.numpy(), exp[k])
assert sd["1.num_batches_tracked" if "1.num_batches_tracked" in sd else
          "3.num_batches_tracked"].dtype == graphgrad.int64
assert sd["extra.view"].stride() == (1, 4)
assert "torch" not in [m for m in sys.modules if sys.modules[m] is not None]
print("ok", len(sd))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ok", str(len(sd))]


# ------------------------------------------------------------------ weights-only safety
class SystemCall:
    """Unpickles into os.system(command)."""

    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


class EvalCall:
    def __init__(self, code):
        self.code = code

    def __reduce__(self):
        return (eval, (self.code,))


class Plain:
    """An ordinary user class (NEWOBJ + BUILD when pickled)."""

    def __init__(self):
        self.x = 1


def archive_with(payload_bytes):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", payload_bytes)
        zf.writestr("archive/byteorder", "little")
        zf.writestr("archive/version", "3\n")
    return buf.getvalue()


def payloads(marker):
    sh = f"touch {marker}"
    py = f"open({str(marker)!r}, 'w').write('pwned')"
    return {
        "os.system": pickle.dumps(SystemCall(sh), protocol=2),
        "eval": pickle.dumps(EvalCall(py), protocol=2),
        "nested-in-state-dict": pickle.dumps(
            collections.OrderedDict(w=1, evil=SystemCall(sh)), protocol=2),
        "subprocess": pickle.dumps(type("P", (), {"__reduce__": lambda s: (subprocess.check_call,
                                                             (["touch", str(marker)],))})(),
                     protocol=2),
        "builtins.exec-protocol4": pickle.dumps(type("Q", (), {"__reduce__": lambda s: (
            exec, (py,))})(), protocol=4),
        "getattr-trick": b"\x80\x02cbuiltins\ngetattr\ncos\nsystem\n\x86R.",
        "user-class": pickle.dumps(Plain(), protocol=2),
        "rebuild-then-global": pickle.dumps([1, SystemCall(sh)], protocol=2),
    }


@pytest.mark.filterwarnings("ignore:Detected pickle protocol 4")
@pytest.mark.parametrize("name", ["os.system", "eval", "nested-in-state-dict", "subprocess",
                                  "builtins.exec-protocol4", "getattr-trick", "user-class",
                                  "rebuild-then-global"])
def test_malicious_pickles_raise_without_side_effects(tmp_path, name):
    marker = tmp_path / "pwned"
    data = archive_with(payloads(marker)[name])
    for lib in (graphgrad, torch):
        with pytest.raises(pickle.UnpicklingError) as info:
            lib.load(io.BytesIO(data))
        assert not marker.exists(), f"{lib.__name__} ran the payload"
    with pytest.raises(pickle.UnpicklingError, match="weights_only=False"):
        graphgrad.load(io.BytesIO(data))
    assert not marker.exists()


def test_unsupported_global_message_names_it():
    data = archive_with(pickle.dumps(SystemCall("true"), protocol=2))
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL (posix|os)\.system"):
        graphgrad.load(io.BytesIO(data))


def test_out_of_bounds_tensor_is_refused():
    """A pickle whose strides point past its storage: a RuntimeError, no out-of-bounds read."""
    x = torch.arange(4.)
    buf = io.BytesIO()
    torch.save(x, buf)
    names = zipfile.ZipFile(io.BytesIO(buf.getvalue())).namelist()
    pkl = zipfile.ZipFile(io.BytesIO(buf.getvalue())).read("archive/data.pkl")
    bad = pkl.replace(b"K\x04\x85", b"K\x09\x85", 1)   # size (4,) -> (9,)
    assert bad != pkl
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as src, zipfile.ZipFile(out, "w") as dst:
        for n in names:
            dst.writestr(n, bad if n.endswith("data.pkl") else src.read(n))
    for lib in (graphgrad, torch):
        with pytest.raises(RuntimeError):
            lib.load(io.BytesIO(out.getvalue()))


def test_codecs_encode_only_for_text():
    ok = archive_with(pickle.dumps(b"\x00\xffbytes", protocol=2))
    assert graphgrad.load(io.BytesIO(ok)) == torch.load(io.BytesIO(ok)) == b"\x00\xffbytes"
    bad = archive_with(b"\x80\x02c_codecs\nencode\nX\x01\x00\x00\x00xX\x04\x00\x00\x00zlib"
                       b"\x86R.")
    with pytest.raises(pickle.UnpicklingError):
        graphgrad.load(io.BytesIO(bad))


def test_weights_only_false_and_safe_globals():
    buf = io.BytesIO()
    graphgrad.save({"obj": Plain(), "t": graphgrad.ones(1)}, buf)
    data = buf.getvalue()
    with pytest.raises(pickle.UnpicklingError, match="Plain"):
        graphgrad.load(io.BytesIO(data))
    out = graphgrad.load(io.BytesIO(data), weights_only=False)
    assert isinstance(out["obj"], Plain) and out["t"].tolist() == [1.0]
    with graphgrad.serialization.safe_globals([Plain]):
        assert isinstance(graphgrad.load(io.BytesIO(data))["obj"], Plain)
    assert Plain not in graphgrad.serialization.get_safe_globals()
    graphgrad.serialization.add_safe_globals([Plain])
    try:
        assert isinstance(graphgrad.load(io.BytesIO(data))["obj"], Plain)
    finally:
        graphgrad.serialization.clear_safe_globals()
    with torch.serialization.safe_globals([Plain]):   # torch reads graphgrad's file too
        assert isinstance(torch.load(io.BytesIO(data))["obj"], Plain)


def test_save_does_not_import_torch():
    script = ("import sys; sys.modules['torch'] = None\nimport io, graphgrad\n"
              "b = io.BytesIO(); graphgrad.save({'w': graphgrad.ones(2)}, b); b.seek(0)\n"
              "print(graphgrad.load(b)['w'].tolist())")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[1.0, 1.0]"


# ------------------------------------------------------------------ nn and optim objects
def _net(lib):
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.BatchNorm1d(4))


def test_module_state_dicts_load_into_the_other_library():
    torch.manual_seed(0)
    tm, gm = _net(torch), _net(graphgrad)
    buf = io.BytesIO()
    torch.save(tm.state_dict(), buf)
    buf.seek(0)
    result = gm.load_state_dict(graphgrad.load(buf))
    assert not result.missing_keys and not result.unexpected_keys
    assert_same(dict(gm.state_dict()), dict(tm.state_dict()))
    tm2 = _net(torch)
    buf = io.BytesIO()
    graphgrad.save(gm.state_dict(), buf)
    buf.seek(0)
    tm2.load_state_dict(torch.load(buf))
    assert_same(dict(gm.state_dict()), dict(tm2.state_dict()))


def test_optimizer_state_dicts_both_ways():
    def step(lib, model, opt):
        model(lib.ones(2, 3)).sum().backward()
        opt.step()
    gm = graphgrad.nn.Linear(3, 2)
    tm = torch.nn.Linear(3, 2)
    gopt, topt = graphgrad.optim.Adam(gm.parameters()), torch.optim.Adam(tm.parameters())
    step(graphgrad, gm, gopt)
    buf = io.BytesIO()
    graphgrad.save(gopt.state_dict(), buf)
    buf.seek(0)
    topt.load_state_dict(torch.load(buf))
    assert topt.state_dict()["state"][0]["exp_avg"].tolist() == \
        gopt.state_dict()["state"][0]["exp_avg"].tolist()
    step(torch, tm, topt)
    buf = io.BytesIO()
    torch.save(topt.state_dict(), buf)
    buf.seek(0)
    gopt.load_state_dict(graphgrad.load(buf))
    assert gopt.state[gm.weight]["step"].item() == 2


def test_whole_module_with_weights_only_false():
    m = graphgrad.nn.Sequential(graphgrad.nn.Linear(3, 2), graphgrad.nn.ReLU())
    buf = io.BytesIO()
    graphgrad.save(m, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="graphgrad.nn"):
        graphgrad.load(buf)
    buf.seek(0)
    m2 = graphgrad.load(buf, weights_only=False)
    x = graphgrad.ones(1, 3)
    assert m2(x).tolist() == m(x).tolist()
    assert isinstance(m2[0].weight, graphgrad.nn.Parameter)


def test_whole_torch_module_loads_as_graphgrad_module_with_weights_only_false():
    """torch.save(model) pickles torch.nn classes by name; weights_only=False maps them to
    graphgrad's classes of the same name."""
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
    buf = io.BytesIO()
    torch.save(tm, buf)
    buf.seek(0)
    gm = graphgrad.load(buf, weights_only=False)
    assert isinstance(gm, graphgrad.nn.Sequential) and isinstance(gm[0], graphgrad.nn.Linear)
    assert_same(gm(graphgrad.ones(1, 3)), tm(torch.ones(1, 3)))
