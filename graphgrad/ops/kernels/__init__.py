"""Layer 4: the NumPy kernels, one module per op family (as ops/derivatives/ and ops/api/).

A kernel is a function of ndarrays (and attributes) returning ndarrays; it raises PyTorch's
errors for dtypes the op refuses.  ``special`` and ``gamma`` hold the special functions
(graphgrad's runtime has no SciPy).  Kernels import only the layers below the table
(mostly ``_core``: dtypes, opmath), never an entry or a public function.
"""
