"""Calls PyTorch refuses are refused with its exception type (they computed something:
random integers from rand_like of an integer tensor, a 0-d result from new_ones() without a
size, the permutation of a tensor's values from randperm(tensor), ...), found by calling
torch's functions with odd arguments on both libraries."""
import warnings

import pytest

CASES = [
    # samplers of real values refuse integer and bool dtypes (NotImplementedError)
    "torch.rand_like(i)", "torch.randn_like(i)", "torch.rand_like(b)", "torch.normal(i)",
    "torch.normal(0., i)", "torch.normal(0., 1., (2,), dtype=torch.int64)",
    "torch.rand(2, dtype=torch.int64)", "torch.randn(2, dtype=torch.bool)",
    "i.bernoulli()", "b.bernoulli()", "torch.bernoulli(i)", "i.normal_()", "i.uniform_()",
    "i.log_normal_()", "torch.poisson(i)", "torch.poisson(c)",
    # a required argument left out (TypeError)
    "v.view()", "v.reshape()", "x.expand()", "x.permute()", "x.repeat()", "v.new_ones()",
    "v.new_zeros()", "v.new_empty()", "v.flip()", "v.resize_()", "v.sum_to_size()",
    "torch.einsum(x)", "torch.randperm(v)", "torch.finfo(v)", "torch.iinfo(v)",
    # RuntimeError / IndexError
    "b.square_()", "v.H", "v.diagonal()", "x.diagonal()", "torch.broadcast_shapes(v)",
    "torch.broadcast_shapes(torch.tensor(2), (1, 2))",
    "torch.histogram(torch.tensor([float('nan'), 1.]))",
    "torch.histogram(torch.tensor([float('inf'), 1.]))", "torch.poisson(-v)",
    "torch.randperm(-1)", "torch.nn.functional.dropout2d(v)",
    "torch.nn.functional.dropout2d(x)", "torch.nn.functional.dropout3d(x)",
]


def _run(lib, expr):
    x, v = lib.tensor(1.5), lib.tensor([1.0, 2.0])
    i, b = lib.tensor([3, -2]), lib.tensor([True, False])
    c = lib.tensor([1j])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            eval(expr, {"torch": lib, "x": x, "v": v, "i": i, "b": b, "c": c})
        except Exception as e:  # noqa: BLE001 -- the type is what is compared
            return type(e)
    return None


@pytest.mark.parametrize("expr", CASES)
def test_refused_with_pytorchs_exception_type(torch, expr):
    import graphgrad
    theirs = _run(torch, expr)
    assert theirs is not None, f"torch computes {expr}"
    ours = _run(graphgrad, expr)
    assert ours is not None, f"graphgrad computes {expr}; torch raises {theirs.__name__}"
    assert issubclass(ours, theirs.__mro__[1] if theirs.__name__ == "_LinAlgError" else theirs)


@pytest.mark.parametrize("expr", ["torch.randperm(torch.tensor(3))", "x.H", "v.view(-1)",
                                  "torch.rand(2, dtype=torch.complex64)",
                                  "torch.poisson(v)", "torch.poisson(x)",
                                  "torch.nn.functional.dropout3d(v)",
                                  "torch.nn.functional.dropout2d(v, training=False)", "torch.einsum('i->', v)"])
def test_still_accepted(lib, expr):
    assert _run(lib, expr) is None


def test_complex_rand_draws_both_parts(lib):
    lib.manual_seed(0)
    z = lib.rand(1000, dtype=lib.complex64)
    assert 0.4 < float(z.imag.mean()) < 0.6 and float(z.imag.min()) >= 0.0
    assert 0.4 < float(z.real.mean()) < 0.6


def test_poisson_graph_and_gradient(lib):
    r = lib.tensor([1.5, 0.0, 3.0], requires_grad=True)
    y = lib.poisson(r)
    assert y.grad_fn.name() == "PoissonBackward0" and y.dtype == lib.float32
    assert float(y[1]) == 0.0
    y.sum().backward()
    assert r.grad.tolist() == [0.0, 0.0, 0.0]
