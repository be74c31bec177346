"""A list used as an index key: PyTorch 2.13 still reads a short list holding a
sequence, a tensor, a slice, ``...`` or None as the tuple of its entries (with a
deprecation warning); other lists are one advanced index.  Reading, writing and the
gradient of both must follow it: ``x[[[1, 2], [0, 1]]]`` picks two elements, not two
rows-of-rows."""
from __future__ import annotations

import warnings

import pytest

from tests.conftest import run_both


def _keys(lib):
    return [
        [slice(None), [2, 3]], [[2, 3], slice(None)], [0], [[1, 2], [0, 1]], [1, 2], [[0, 1]],
        [lib.tensor([0, 1]), lib.tensor([1, 2])], [None, 1], [Ellipsis, 1],
        [[[1, 2], [3, 0]], [[0, 1], [2, 3]]], [0, 1] * 20,
    ]


@pytest.mark.parametrize("i", range(11))
def test_list_key_reads_writes_and_differentiates_as_pytorch(i):
    def program(lib):
        key = _keys(lib)[i]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = lib.arange(1.0, 17.0, dtype=lib.float64).view(4, 4).requires_grad_()
            y = x[key]
            (y * y).sum().backward()
            z = lib.zeros(4, 4)
            z[key] = 1.0
            w = lib.zeros(4, 4, dtype=lib.float64, requires_grad=True).clone()
            w[key] = x.sum()
            g, = lib.autograd.grad(w.sum(), x)
        return y, x.grad, z, g
    run_both(program)


def test_list_key_read_as_a_tuple_warns_at_the_callers_line(lib):
    x = lib.zeros(4, 4)
    with pytest.warns(UserWarning, match="non-tuple sequence for multidimensional indexing") \
            as rec:
        x[[slice(None), [2, 3]]]
        x[[[1, 2], [0, 1]]] = 1.0
    assert all(r.filename == __file__ for r in rec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x[[1, 2]]          # a plain list of ints is one index: no warning
        x[[1, 2]] = 2.0
