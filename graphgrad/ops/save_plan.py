"""What each step of an op's save plan saves (``OpDef.save_plan``: a tuple of
(what, index, the edges that need it or None for any edge)), read by the dispatcher's
generic record and by the generated ones."""

SAVE_INPUT = 0    # the tensor argument at index (a SavedVariable)
SAVE_ATTR = 1     # the attribute argument at index, as is
SAVE_SIZES = 2    # the shape of the argument at index (``<arg>_sym_sizes``)
SAVE_RESULT = 3   # the output at index (a SavedVariable of the output)
