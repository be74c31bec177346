"""Code generation: the hot path of each op, compiled from its table entry.

``nodes`` makes the node class and its ``_apply``/``_step``/``release_variables``,
``record`` the unrolled ``_record``, ``entries`` the one-frame public functions and operators.
"""
