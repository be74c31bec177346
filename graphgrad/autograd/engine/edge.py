"""The engine's per-edge block, written once: what happens to a gradient a node returns.

NOTE [one per-edge block]: for each edge of a node that has run, the gradient is
validated against the next node's input metadata (PyTorch's ``validate_outputs``:
broadcasting summed away, the dtype cast) and added into that node's input buffer (in
place when the buffer owns the array, NOTE [buffer ownership]); the node is queued once
it is ready.  Both loops of ``loop.py`` do this on every edge, and a helper called per
edge costs a plain backward ~10 % of its time, so the block is *source text*: the loops
are written with ``@validate(...)``, ``@accumulate``, ``@hand_to_child(...)``,
``@push_child`` and ``@pop_node`` lines, which ``expand`` replaces by the lines below
before the loops are compiled (once, at import, under the file name ``<graphgrad engine
loop>``: tracebacks, ``inspect.getsource`` and pdb show the expanded lines).

Names the blocks read from the loop: ``node`` (the node that ran), ``child``/``nr`` (the
edge's next node and its input number), ``g`` (the gradient; rebound to the validated
one), ``buf`` (the child's buffer list), ``owned``, ``heap``, ``batch_nd`` and the
loop's local aliases ``ndarray``, ``getrefcount``, ``Acc``.
"""
from __future__ import annotations


def validate_lines(k, acc_shortcut="yes", create_graph="no"):
    """``g`` (the gradient of edge number ``k``, or None) checked against ``child``'s input
    ``nr``: an ndarray (a Tensor when ``create_graph`` is true at run time), its
    broadcast dims summed away (an error when the shapes cannot broadcast), its dtype cast.

    acc_shortcut: read an AccumulateGrad child's shape and dtype from its variable without
    the ``_out_meta`` property (where an AccumulateGrad can be the child).  create_graph:
    emit the branch for a backward that builds a graph (the general path)."""
    lines = ["if g is not None:",
             "    # validate against the next node's input metadata (PyTorch's",
             "    # validate_outputs): sum away broadcasting, cast the dtype"]
    if create_graph == "yes":
        data = "data"
        lines += ["    if create_graph:",
                  "        if not isinstance(g, Tensor):",
                  "            g = _wrap(np.asarray(g))",
                  "        data = g._data",
                  "    else:",
                  "        if g.__class__ is not ndarray:",
                  "            g = g._data if isinstance(g, Tensor) else np.asarray(g)",
                  "        data = g"]
    else:
        data = "g"
        lines += ["    if g.__class__ is not ndarray:",
                  "        g = g._data if isinstance(g, Tensor) else np.asarray(g)"]
    if acc_shortcut == "yes":
        lines += ["    if child.__class__ is Acc:  # (its _out_meta property, without the call)",
                  "        d = child.variable._data",
                  "        shape = d.shape",
                  "        dt = d.dtype",
                  "    else:",
                  "        shape, dt = child._out_meta[nr]"]
    else:
        lines += ["    shape, dt = child._out_meta[nr]"]
    lines += [f"    if {data}.shape != shape and {data}.shape[batch_nd:] != shape:",
              f"        g = _sum_to_shape(node, {k}, g, {data}.shape, shape, batch_nd)"]
    if create_graph == "yes":
        lines += ["        data = g._data if create_graph else g",
                  "    if data.dtype is not dt and data.dtype != dt:",
                  "        g = _cast(g, dt, create_graph)"]
    else:
        lines += ["    if g.dtype is not dt and g.dtype != dt:",
                  "        g = _cast(g, dt, False)"]
    return lines


def accumulate_lines():
    """``g`` (validated, not None) added into ``buf[nr]``: stored when the slot is empty;
    added in place when the buffer owns the array there (nothing else refers to it, as in
    PyTorch's InputBuffer::accumulate; then, for input 0, the child joins ``owned`` and
    later additions skip the test); else a new sum.  (Gradients of a create_graph backward
    are Tensors: never an ndarray, never owned, always a new sum, which records its graph.)"""
    return ["prev = buf[nr]",
            "if prev is None:",
            "    buf[nr] = g",
            "elif nr == 0 and child in owned:",
            "    prev += g  # (same shape and dtype: both were validated above)",
            "elif prev.__class__ is ndarray and prev.base is None and \\",
            "        getrefcount(prev) <= 3 and prev.flags.writeable and \\",
            "        prev.shape == g.shape and prev.dtype == g.dtype:",
            "    prev += g  # the buffer owns this array: add in place",
            "    if nr == 0 and not batch_nd:",
            "        owned.add(child)",
            "else:",
            "    prev = buf[nr] = prev + g",
            "    if nr == 0 and not batch_nd and prev.__class__ is ndarray:",
            "        owned.add(child)  # (a 0-d sum is a NumPy scalar: not in place)"]


def hand_to_child_lines(k):
    """A chain (NOTE [Sequence order]): ``child``, edge ``k``'s next node and fed by this
    edge alone, runs next with the gradient in hand, without a buffer or the queue."""
    return [f"g = outs[{k}]",
            f"nr = nrs[{k}]"] + validate_lines(k, acc_shortcut="no") + [
            "n = len(child._out_meta)",
            "if n == 1:",
            "    grads = [g]",
            "else:",
            "    grads = [None] * n",
            "    grads[nr] = g",
            "node = child",
            "outs = g = None"]


def push_child_lines():
    """``child`` queued by decreasing sequence number (``_heap_push``, unrolled for an
    empty heap and a heap of one)."""
    return ["item = (child._seq, child)",
            "if not heap:",
            "    heap.append(item)",
            "elif len(heap) == 1:  # (_heap_push onto one entry)",
            "    top = heap[0]",
            "    if top[0] < item[0]:",
            "        heap[0] = item",
            "        heap.append(top)",
            "    else:",
            "        heap.append(item)",
            "else:",
            "    _heap_push(heap, item)"]


def pop_node_lines():
    """``node`` = the queued node of the largest sequence number (``_heap_pop``, unrolled
    for a heap of one or two); ``break`` out of the loop when the heap is empty."""
    return ["n = len(heap)",
            "if n == 1:",
            "    node = heap.pop()[1]",
            "elif n == 2:  # (_heap_pop on two entries: the last one moves to the top)",
            "    node = heap[0][1]",
            "    heap[0] = heap.pop()",
            "elif n:",
            "    node = _heap_pop(heap)",
            "else:",
            "    break"]


MACROS = {"validate": validate_lines, "accumulate": accumulate_lines,
          "hand_to_child": hand_to_child_lines, "push_child": push_child_lines,
          "pop_node": pop_node_lines}


def expand(src):
    """``src`` with each ``@name(arg, key=value)`` line replaced by the lines of the macro
    ``name``, indented as that line."""
    out = []
    for line in src.splitlines():
        body = line.lstrip()
        if not body.startswith("@"):
            out.append(line)
            continue
        indent = line[:len(line) - len(body)]
        name, _, rest = body[1:].partition("(")
        args, kwargs = [], {}
        for a in filter(None, (a.strip() for a in rest.rstrip(")").split(","))):
            key, eq, value = a.partition("=")
            if eq:
                kwargs[key.strip()] = value.strip()
            else:
                args.append(a)
        out += [indent + m if m else m for m in MACROS[name](*args, **kwargs)]
    return out
