"""Selective activation checkpointing (utils/_selective_checkpoint.py) and the
``graphgrad.ops.aten`` op handles, against PyTorch: the same gradients as plain runs, the
same policy calls, the same ops rerun by the recomputation, PyTorch's errors."""
from __future__ import annotations

import contextlib
import functools

import numpy as np
import pytest

import graphgrad
from tests.conftest import run_both


def data(lib, shape, seed, requires_grad=True):
    a = np.random.default_rng(seed).standard_normal(shape)
    return lib.tensor(a, dtype=lib.float64, requires_grad=requires_grad)


def _op_name(op):
    """An op's overload name on either library ("mm.default")."""
    return op.__name__


def _logging_recompute(lib, recompute_ctx, seen):
    """``recompute_ctx`` plus a logger of the ops that actually run in the recomputation:
    below PyTorch's cached mode (modes: the newest runs first), inside graphgrad's cached
    interposer (interposers: the newest runs last)."""
    stack = contextlib.ExitStack()
    if lib is graphgrad:
        from graphgrad.ops.interpose import interposing
        from graphgrad.ops.registry import OpDef
        from graphgrad.ops.aten import overload_of

        def log(op, call, args, kwargs):
            out = None
            try:  # (the call that saves the last tensor needed stops the recomputation)
                out = call(args, kwargs)
                return out
            finally:
                if op.__class__ is OpDef:  # (composites pass through: their ops are seen)
                    # (an in-place op returns its first argument, after the op itself)
                    inplace = len(args) > 1 and args[0] is op and out is args[1]
                    seen.append(overload_of(op, inplace).__name__)
        inner = [recompute_ctx, interposing(log)]
    else:
        from torch.utils._python_dispatch import TorchDispatchMode

        class Log(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                if func.__name__ != "detach.default":  # (PyTorch's SAC ignores detach too)
                    seen.append(func.__name__)
                return func(*args, **(kwargs or {}))
        inner = [Log(), recompute_ctx]

    class Both:
        def __enter__(self):
            for cm in inner:
                stack.enter_context(cm)

        def __exit__(self, *exc):
            return stack.__exit__(*exc)
    return Both()


def _mlp(lib, x, params):
    w1, b1, w2, w3 = params
    h = lib.nn.functional.linear(x, w1, b1)   # t + addmm
    h = lib.relu(h)
    h = lib.sigmoid(h @ w2)                   # mm
    h = (h * 2.0 + 1.0) @ w3
    # (exp saves its output, so the recomputation stops after it as PyTorch's does; see
    # docs/differences.md on an op whose saved inputs are the last ones needed)
    return h.exp().sum()


def _mlp_params(lib):
    return [data(lib, (5, 3), 1), data(lib, (5,), 2), data(lib, (5, 4), 3), data(lib, (4, 2), 4)]


def _sac_program(policy_of, fn=_mlp, params_of=_mlp_params):
    """A program for run_both: gradients of a selective checkpoint of ``fn``, its plain
    gradients, the policy's calls and the ops the recomputation ran."""
    def program(lib):
        ck = lib.utils.checkpoint
        x = data(lib, (4, 3), 0)
        params = params_of(lib)
        calls, rerun = [], []
        policy = policy_of(lib, calls)

        def context_fn():
            fwd, rec = ck.create_selective_checkpoint_contexts(policy)
            return fwd, _logging_recompute(lib, rec, rerun)
        out = ck.checkpoint(fn, lib, x, params, use_reentrant=False, context_fn=context_fn)
        out.backward()
        grads = [t.grad for t in [x] + params]
        for t in [x] + params:
            t.grad = None
        fn(lib, x, params).backward()
        plain = [t.grad for t in [x] + params]
        for a, b in zip(grads, plain):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        return out, grads, calls, sorted(rerun)
    return program


def _by_name(saved, default="PREFER_RECOMPUTE"):
    def policy_of(lib, calls):
        P = lib.utils.checkpoint.CheckpointPolicy

        def policy(ctx, op, *args, **kwargs):
            calls.append((_op_name(op), ctx.is_recompute,
                          [tuple(a.shape) for a in args if isinstance(a, lib.Tensor)],
                          tuple(ctx.op_output.shape)))
            return getattr(P, "MUST_SAVE" if _op_name(op) in saved else default)
        return policy
    return policy_of


@pytest.mark.parametrize("saved", [
    (),                                     # plain checkpointing: everything reruns
    ("mm.default",),                        # the matmuls kept, pointwise ops rerun
    ("mm.default", "addmm.default", "relu.default"),
    ("sigmoid.default", "mul.Tensor"),
    ("mm.default", "addmm.default", "t.default", "relu.default", "sigmoid.default",
     "mul.Tensor", "add.Tensor", "exp.default", "sum.default"),  # everything kept: nothing reruns
])
def test_mlp_policy_calls_rerun_ops_and_gradients_equal_pytorchs(saved):
    run_both(_sac_program(_by_name(saved)))


def test_prefer_save_and_must_recompute_are_save_and_recompute():
    run_both(_sac_program(_by_name(("mm.default", "sigmoid.default"),
                                   default="MUST_RECOMPUTE")))

    def prefer(lib, calls):
        P = lib.utils.checkpoint.CheckpointPolicy
        return lambda ctx, op, *a, **k: (P.PREFER_SAVE if _op_name(op) == "relu.default"
                                         else P.PREFER_RECOMPUTE)
    run_both(_sac_program(prefer))


def test_a_policy_answering_a_bool_means_must_save_or_prefer_recompute():
    def policy_of(lib, calls):
        return lambda ctx, op, *a, **k: op == lib.ops.aten.mm.default
    run_both(_sac_program(policy_of))


def test_a_list_of_ops_is_saved():
    def policy_of(lib, calls):
        aten = lib.ops.aten
        return [aten.mm.default, aten.sigmoid.default]
    run_both(_sac_program(policy_of))


def test_inplace_ops_reach_the_policy_under_their_inplace_names():
    def fn(lib, x, params):
        (w,) = params
        h = (x @ w) * 1.0   # (the kept outputs are not the ones written in place)
        h.mul_(2.0)
        h = h.tanh() + 0.0
        h.add_(1.0)
        return h.exp().sum()  # (exp: see _mlp)

    run_both(_sac_program(_by_name(("mm.default", "tanh.default")), fn=fn,
                          params_of=lambda lib: [data(lib, (3, 3), 5)]))


def _mutation_program(allow):
    def program(lib):
        ck = lib.utils.checkpoint
        x = data(lib, (3,), 0)

        def fn(x):
            y = x.sin()
            y.mul_(2.0)  # the kept output of sin changes after the forward kept it
            return y.exp().sum()

        def policy(ctx, op, *args, **kwargs):
            return ck.CheckpointPolicy.MUST_SAVE if op == lib.ops.aten.sin.default \
                else ck.CheckpointPolicy.PREFER_RECOMPUTE
        ctx_fn = functools.partial(ck.create_selective_checkpoint_contexts, policy,
                                   allow_cache_entry_mutation=allow)
        ck.checkpoint(fn, x, use_reentrant=False, context_fn=ctx_fn).backward()
        return x.grad
    return program


def test_mutating_a_kept_output_raises_unless_allowed():
    ours, _ = run_both(_mutation_program(False))
    assert "has been mutated" in str(ours.exc) and "allow_cache_entry_mutation" in str(ours.exc)
    run_both(_mutation_program(True))


def test_a_second_backward_through_kept_outputs_raises():
    def program(lib):
        ck = lib.utils.checkpoint
        x, w = data(lib, (3, 4), 0), data(lib, (4, 2), 1)
        out = ck.checkpoint(lambda a: (a @ w).sigmoid().sum(), x, use_reentrant=False,
                            context_fn=functools.partial(ck.create_selective_checkpoint_contexts,
                                                         [lib.ops.aten.mm.default]))
        out.backward(retain_graph=True)
        first = x.grad.clone()
        try:
            out.backward()
        except RuntimeError as exc:
            return first, type(exc).__name__, "backward an extra time" in str(exc)
        return first, None, False
    ours, _ = run_both(program)
    assert ours[1:] == ("RuntimeError", True)


def test_bad_policies_and_reentrant_use_raise_pytorchs_errors():
    def program(lib, which):
        ck = lib.utils.checkpoint
        aten = lib.ops.aten
        if which == "packet":
            ck.create_selective_checkpoint_contexts([aten.mm])
        elif which == "string":
            ck.create_selective_checkpoint_contexts(["mm"])
        elif which == "number":
            ck.create_selective_checkpoint_contexts(3)
        else:
            x = data(lib, (2,), 0)
            ck.checkpoint(lambda a: a.sin(), x, use_reentrant=True,
                          context_fn=functools.partial(ck.create_selective_checkpoint_contexts,
                                                       [aten.sin.default]))
    for which in ("packet", "string", "number", "reentrant"):
        ours, _ = run_both(functools.partial(program, which=which))
    ours, _ = run_both(functools.partial(program, which="packet"))
    assert "torch.ops.aten.mm.default" in str(ours.exc)


def test_under_no_grad_the_policy_is_not_asked():
    def program(lib):
        ck = lib.utils.checkpoint
        calls = []
        x = data(lib, (2, 2), 0)

        def policy(ctx, op, *args, **kwargs):
            calls.append(_op_name(op))
            return ck.CheckpointPolicy.MUST_SAVE
        with lib.no_grad():
            out = ck.checkpoint(lambda a: a.sin() * 2, x, use_reentrant=False,
                                context_fn=functools.partial(
                                    ck.create_selective_checkpoint_contexts, policy))
        return out, calls
    run_both(program)


def test_policy_enum_and_names_are_pytorchs(torch):
    from graphgrad.utils.checkpoint import CheckpointPolicy, SelectiveCheckpointContext
    assert [(p.name, p.value) for p in CheckpointPolicy] == \
        [(p.name, p.value) for p in torch.utils.checkpoint.CheckpointPolicy]
    ctx = SelectiveCheckpointContext(is_recompute=False)
    assert ctx.is_recompute is False and ctx.op_output is None


def test_ops_nested_in_a_kept_call_keep_their_numbering():
    """An op that runs ops inside its interposed call (here an inner interposer does): when
    the recomputation hands out the kept call, the nested ops' numbers move on, so a later
    call of the same op gets its own entry, not the skipped one's."""
    from graphgrad.ops.interpose import interposing
    ck = graphgrad.utils.checkpoint
    aten = graphgrad.ops.aten

    def side_exp(op, call, args, kwargs):
        if op == aten.sigmoid.default:
            args[0].detach().exp()  # an exp nested in every sigmoid call
        return call(args, kwargs)

    def fn(x, w):
        with interposing(side_exp):
            h = (x @ w).sigmoid()
        return (h.exp() * x.sum()).sum()

    x, w = data(graphgrad, (3, 3), 0), data(graphgrad, (3, 3), 1)
    ctx_fn = functools.partial(ck.create_selective_checkpoint_contexts,
                               [aten.sigmoid.default, aten.exp.default])
    ck.checkpoint(fn, x, w, use_reentrant=False, context_fn=ctx_fn).backward()
    got = x.grad.clone(), w.grad.clone()
    x.grad = w.grad = None
    fn(x, w).backward()
    np.testing.assert_array_equal(got[0].numpy(), x.grad.numpy())
    np.testing.assert_array_equal(got[1].numpy(), w.grad.numpy())


# ---------------------------------------------------------------- graphgrad.ops.aten


def test_aten_overloads_compute_as_pytorchs():
    def program(lib):
        aten = lib.ops.aten
        a, b = data(lib, (2, 3), 0), data(lib, (3, 2), 1)
        return [aten.mm.default(a, b), aten.mm(a, b), aten.add.Tensor(a, a, alpha=2),
                aten.mul.Tensor(a, 3.0), aten.relu.default(a), aten.sigmoid.default(a),
                aten.sum.dim_IntList(a, [0]), aten.view.default(a, [3, 2]),
                aten.t.default(a), aten.addmm.default(b[0], a, b)]
    run_both(program)


def test_aten_names_and_lookup_errors_are_pytorchs():
    def program(lib):
        aten = lib.ops.aten
        out = []
        for o in (aten.mm.default, aten.add.Tensor, aten.sum.dim_IntList, aten.sigmoid.default):
            out.append((str(o), repr(o), o.name(), o.__name__, o._overloadname, str(o.overloadpacket),
                        repr(o.overloadpacket), o.namespace))
        out.append((aten.mm.default is aten.mm.default, aten.mm.default == aten.mm.default,
                    aten.mm.default == aten.add.Tensor, aten.mm.default in {aten.mm.default}))
        for bad in (lambda: aten.mm.nonexistent_overload, lambda: aten.nonexistent_op):
            try:
                bad()
            except AttributeError as exc:
                out.append(str(exc))
        return out
    run_both(program)


def test_aten_overloads_are_the_ops_interposers_see():
    from graphgrad.ops.interpose import interposing
    from graphgrad.ops.aten import overload_of
    aten = graphgrad.ops.aten
    seen = []

    def log(op, call, args, kwargs):
        seen.append(op)
        return call(args, kwargs)
    x = data(graphgrad, (2, 2), 0)
    with interposing(log):
        (x @ x).sigmoid() + 1
        graphgrad.cat([x, x])
    ops = [op for op in seen if op.__class__.__name__ == "OpDef"]
    assert ops[0] == aten.mm.default and aten.mm.default == ops[0]
    assert ops[0] in {aten.mm.default} and aten.mm.default in {ops[0]}
    assert ops[1] == aten.sigmoid.default and ops[1] != aten.mm.default
    assert ops[2] == aten.add.Tensor
    assert ops[3] == aten.cat.default and overload_of(ops[3]) is aten.cat.default
    assert [overload_of(op).__name__ for op in ops] == \
        ["mm.default", "sigmoid.default", "add.Tensor", "cat.default"]
