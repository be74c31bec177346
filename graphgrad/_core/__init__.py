"""Layer 0: thread-local state and hot flags, dtypes and promotion, the NumPy backend (opmath)."""
