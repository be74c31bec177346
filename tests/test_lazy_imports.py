"""NOTE [lazy tool packages]: ``import graphgrad`` leaves the tool packages and nn's layers
unloaded, and every name they publish still resolves, as after PyTorch's eager import.
Each check runs in a fresh interpreter (the test process has them all loaded)."""
import pytest

from tests.fresh_interpreter import run_fresh as run

LAZY = ("graphgrad.nn.modules", "graphgrad.optim", "graphgrad.func", "graphgrad.profiler",
        "graphgrad.serialization", "graphgrad.distributed", "graphgrad.utils",
        "graphgrad.distributions")


def test_import_leaves_tool_packages_unloaded_and_ops_complete():
    out = run(f"""
        import sys, graphgrad
        print(sorted(m for m in {LAZY!r} if m in sys.modules))
        # the public ops nn.functional defines are there at once
        print(graphgrad.relu.__name__, graphgrad.addmm.__name__, graphgrad.Tensor.softmax.__name__)
        """)
    assert out.splitlines() == ["[]", "relu addmm softmax"]


@pytest.mark.parametrize("expr, kind", [
    ("graphgrad.nn.Linear", "Linear"),
    ("graphgrad.nn.Module", "Module"),
    ("graphgrad.nn.DataParallel", "DataParallel"),
    ("graphgrad.nn.init.zeros_", "zeros_"),
    ("graphgrad.nn.utils.clip_grad_norm_", "clip_grad_norm_"),
    ("graphgrad.optim.SGD", "SGD"),
    ("graphgrad.func.grad", "grad"),
    ("graphgrad.vmap", "vmap"),
    ("graphgrad.profiler.profile", "profile"),
    ("graphgrad.save", "save"),
    ("graphgrad.load", "load"),
    ("graphgrad.utils.data.DataLoader", "DataLoader"),
    ("graphgrad.distributed.is_available", "is_available"),
    ("graphgrad.distributions.Normal", "Normal"),
])
def test_each_lazy_name_resolves_on_first_read(expr, kind):
    assert run(f"import graphgrad\nprint({expr}.__name__)").strip() == kind


def test_from_imports_and_star_import():
    out = run("""
        from graphgrad import nn, optim, vmap, save
        from graphgrad.nn import Linear, Sequential
        import graphgrad.optim.lr_scheduler
        ns = {}
        exec("from graphgrad.nn import *", ns)
        print("Conv2d" in ns, "functional" in ns, "Module" in ns)
        top = {}
        exec("from graphgrad import *", top)
        print(all(n in top for n in ("save", "load", "vmap", "optim", "sum", "Tensor", "nn")))
        m = Sequential(Linear(2, 3))
        print(type(optim.SGD(m.parameters(), lr=0.1)).__name__)
        """)
    assert out.split() == ["True", "True", "True", "True", "SGD"]


def test_dir_lists_lazy_names_and_unknown_names_raise():
    out = run("""
        import graphgrad
        print(all(n in dir(graphgrad) for n in ("optim", "func", "vmap", "save", "utils")))
        print("Linear" in dir(graphgrad.nn))
        for mod, name in ((graphgrad, "no_such_name"), (graphgrad.nn, "NoSuchLayer")):
            try:
                getattr(mod, name)
            except AttributeError as e:
                print(type(e).__name__, name in str(e))
        print(hasattr(graphgrad.nn, "__wrapped__"))
        """)
    assert out.split() == ["True", "True", "AttributeError", "True", "AttributeError", "True",
                           "False"]


def test_two_threads_reading_nn_at_once_both_see_the_layers():
    out = run("""
        import threading, graphgrad
        seen = []
        def read():
            seen.append(graphgrad.nn.Linear.__name__)
        ts = [threading.Thread(target=read) for _ in range(4)]
        [t.start() for t in ts]
        [t.join() for t in ts]
        print(seen)
        """)
    assert out.strip() == str(["Linear"] * 4)


def test_import_ages_its_objects_without_freezing_anything():
    """NOTE [import without collections]: the objects the import made are moved to the
    oldest generation (no young pass walks them again), nothing stays frozen, and a cycle
    made before the import is still collected."""
    out = run("""
        import gc, weakref
        class Node: pass
        a = Node(); a.self = a
        alive = weakref.ref(a)
        del a
        import graphgrad
        print(gc.get_count()[0] < 100, gc.get_freeze_count(), gc.isenabled())
        gc.collect()
        print(alive() is None)
        """)
    assert out.split() == ["True", "0", "True", "True"]


def test_return_types_are_made_on_first_read_once():
    out = run("""
        import threading, pickle, graphgrad
        rt = graphgrad.return_types
        print("svd" in vars(rt), "svd" in dir(rt), "svd" in rt.__all__)
        seen = []
        ts = [threading.Thread(target=lambda: seen.append(rt.svd)) for _ in range(4)]
        [t.start() for t in ts]
        [t.join() for t in ts]
        r = graphgrad.ones(2, 3).max(1)
        print(len(set(map(id, seen))), type(r) is rt.max, type(pickle.loads(pickle.dumps(r))) is rt.max)
        """)
    assert out.split() == ["False", "True", "True", "1", "True", "True"]
