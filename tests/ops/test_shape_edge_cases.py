"""Edge cases of the ops-shape family against PyTorch: 0-d and empty inputs, mixed dtypes,
broadcast self, negative dims -- values, gradients (with their dtypes) and node names."""
import numpy as np
import pytest

from tests.conftest import Raised, run_both


def _grads(L, f, *shapes, dtypes=None):
    ins = []
    for i, s in enumerate(shapes):
        v = np.linspace(-1, 1, int(np.prod(s))).reshape(s) + 0.3 * i
        ins.append(L.tensor(v, dtype=dtypes[i] if dtypes else L.float64).requires_grad_())
    try:
        y = f(L, *ins)
    except Exception as e:  # noqa: BLE001 - the exception type is compared
        return Raised(e)
    ys = y if isinstance(y, tuple) else (y,)
    loss = L.tensor(0.0, dtype=L.float64)
    for t in ys:
        if t.requires_grad:
            loss = loss + (t * L.arange(t.numel(), dtype=t.dtype).reshape(t.shape)).sum()
    g = L.autograd.grad(loss, ins, allow_unused=True)
    return ([t.tolist() for t in ys],
            [None if x is None else (x.tolist(), str(x.dtype).split(".")[-1]) for x in g],
            [t.grad_fn.name() if t.grad_fn else None for t in ys])


CASES = {
 'select_scatter mixed dtype': (lambda L, x, s: L.select_scatter(x, s, 0, 1), [(3, 4), (4,)],
                                   ['float32', 'float64']),
 'take 0-d': (lambda L,x: L.take(x, L.tensor(0)), [()], None),
 'take empty index': (lambda L,x: L.take(x, L.tensor([],dtype=L.int64)), [(3,)], None),
 'put 0-d self': (lambda L,x,s: x.put(L.tensor([0]), s), [(),(1,)], None),
 'index_copy 0-d': (lambda L,x,s: x.index_copy(0, L.tensor([0]), s), [(),()], None),
 'index_copy 0-d src into 1d': (lambda L, x, s: x.index_copy(0, L.tensor([1]), s),
                                   [(3,), ()], None),
 'index_fill 0-d tensor': (lambda L,x,v: x.index_fill(0, L.tensor([0]), v), [(),()], None),
 'index_fill empty idx': (lambda L, x, v: x.index_fill(1, L.tensor([], dtype=L.int64), v),
                            [(2, 3), ()], None),
 'masked_scatter 0-d mask': (lambda L, x, s: x.masked_scatter(L.tensor(True), s),
                                [(2, 3), (7,)], None),
 'masked_scatter 0-d all': (lambda L,x,s: x.masked_scatter(L.tensor(False), s), [(),(1,)], None),
 'rot90 3d neg': (lambda L,x: L.rot90(x, 1, (-1,-3)), [(2,3,4)], None),
 'diagonal_scatter 3d': (lambda L,x,s: L.diagonal_scatter(x,s,1,2,0), [(3,2,4),(2,3)], None),
 'slice_scatter step': (lambda L,x,s: L.slice_scatter(x,s,0,1,None,2), [(5,2),(2,2)], None),
 'repeat_interleave 0 reps': (lambda L,x: x.repeat_interleave(0, dim=1), [(2,3)], None),
 'repeat_interleave t zeros': (lambda L, x: x.repeat_interleave(L.tensor([0, 0, 0]), dim=1),
                                 [(2, 3)], None),
 'tensor_split 1 section': (lambda L,x: L.tensor_split(x, 1), [(2,3)], None),
 'block_diag mixed': (lambda L, x, y: L.block_diag(x, y), [(2, 2), (3,)],
                        ['float32', 'float64']),
 'column_stack 2d only': (lambda L,x,y: L.column_stack((x,y)), [(2,2),(2,1)], None),
 'meshgrid 3': (lambda L,x,y,z: L.meshgrid(x,y,z,indexing='xy'), [(2,),(3,),(4,)], None),
 'combinations r1': (lambda L,x: L.combinations(x,1), [(3,)], None),
 'cartesian one': (lambda L,x: L.cartesian_prod(x), [(3,)], None),
 'sum_to_size lead': (lambda L,x: x.sum_to_size(1,1), [(2,3,4)], None),
 'diagflat 2d': (lambda L,x: L.diagflat(x,-1), [(2,2)], None),
 'broadcast 0-d': (lambda L,x,y: L.broadcast_tensors(x,y), [(),(2,)], None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_edge_case_as_pytorch(name):
    f, shapes, dt = CASES[name]
    run_both(lambda L: _grads(L, f, *shapes,
                              dtypes=[getattr(L, d) for d in dt] if dt else None))
