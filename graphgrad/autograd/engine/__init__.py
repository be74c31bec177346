"""The backward engine (seed 003 §4): dependency counting, then a ready queue.

``execute`` runs iteratively -- no recursion on graph depth:

1. ``_compute_dependencies``: walk the graph once from a GraphRoot, counting
   for each node how many edges point at it.
2. ``_compute_needed`` (only with ``inputs=``): mark the nodes that lead to a
   requested input, with their edge masks; only they run.
3. The loop pops the ready node with the highest ``sequence_nr`` (later ops
   first; AccumulateGrad first of all, like PyTorch), runs tensor pre-hooks,
   captures requested gradients, node pre-hooks, the node, node post-hooks,
   frees its saved variables unless ``retain_graph``, validates each produced
   gradient against the next node's input metadata (summing away
   broadcasting, casting dtype) and adds it into that node's input buffer.

Gradients are ndarrays in an ordinary backward and Tensors when
``create_graph=True``; user hooks always see Tensors.  Accumulation into a
leaf's ``.grad`` is journaled so that a backward that fails leaves every
``.grad`` as it was.

A plain backward (no ``inputs=``, ``create_graph`` or anomaly mode) skips step 1 and
runs by decreasing sequence number instead (``_run_by_seq``, NOTE [Sequence order]),
handing over to the counting loop before any user code of its graph would run.
"""
from __future__ import annotations


from .task import (GraphRoot, current_graph_task_id, execute, queue_callback,  # noqa: F401
                   will_engine_execute_node)
