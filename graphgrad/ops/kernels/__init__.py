"""Layer 4: NumPy kernels that are more than one call (import only layer 0)."""
