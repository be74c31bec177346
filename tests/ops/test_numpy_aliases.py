"""NumPy's argument names axis= and keepdims= as PyTorch's argument parser accepts them on
its ATen-bound functions and methods, and refuses them on its Python-level ones
(nn.functional, Tensor.norm, torch.split, ...).  (x=/a=/x1=/x2= are not taken:
docs/differences.md.)"""
import inspect

import numpy as np
import pytest

import graphgrad

CALLS = [
    "L.sum(x, axis=0)", "x.sum(axis=0, keepdims=True)", "L.cat([x, x], axis=0)",
    "x.max(axis=1)", "L.mean(x, axis=1, keepdims=True)", "x.argmax(axis=0)",
    "x.softmax(axis=1)", "L.log_softmax(x, axis=1)", "x.std(axis=0)",
    "L.squeeze(x.unsqueeze(0), axis=0)", "x.cumsum(axis=0)", "L.stack([x, x], axis=1)",
    "L.prod(x, axis=0)", "L.logsumexp(x, axis=0)", "L.sum(input=x, axis=0)", "x.var(axis=0, keepdims=True)",
    "L.all(x > 0, axis=0)",
    "L.topk(x, 1, axis=0)", "x.sort(axis=0)", "L.amax(x, axis=(0, 1), keepdims=True)",
    "L.gather(x, axis=1, index=L.zeros(2, 1, dtype=L.long))", "x.median(axis=0)",
    # refused by PyTorch: Python-level functions, both names given, an unknown alias
    "L.nn.functional.softmax(x, axis=0)", "x.norm(axis=0)", "L.norm(x, axis=0)",
    "x.split(1, axis=0)", "L.split(x, 1, axis=0)", "x.sum(axis=0, dim=0)",
    "x.sum(0, axis=0)", "x.flip(axis=0)", "x.unflatten(axis=1, sizes=(3, 1))",
]


def _run(lib, call):
    L = lib
    x = L.tensor(np.arange(6.).reshape(2, 3), requires_grad=True)
    try:
        r = eval(call)
    except Exception as e:
        return type(e)
    out = r if isinstance(r, tuple) else (r,)
    return [t.detach().numpy() for t in out]


@pytest.mark.parametrize("call", CALLS)
def test_alias_accepted_or_refused_as_pytorch(torch, call):
    want, got = _run(torch, call), _run(graphgrad, call)
    if isinstance(want, type):
        assert got is want, f"{call}: torch raised {want.__name__}, graphgrad gave {got}"
        return
    assert not isinstance(got, type), f"{call}: graphgrad raised {got.__name__}"
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_the_alias_is_differentiable_and_the_signature_is_pytorchs():
    x = graphgrad.ones(2, 3, requires_grad=True)
    x.sum(axis=1, keepdims=True).mul(graphgrad.tensor([[1.], [2.]])).sum().backward()
    assert x.grad.tolist() == [[1., 1., 1.], [2., 2., 2.]]
    params = list(inspect.signature(graphgrad.Tensor.sum).parameters)
    assert params[:3] == ["input", "dim", "keepdim"]


def test_both_names_message_names_the_function_and_both_arguments():
    with pytest.raises(TypeError, match=r"sum\(\) got both 'dim' and its NumPy alias 'axis'"):
        graphgrad.ones(2).sum(dim=0, axis=0)
