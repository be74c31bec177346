"""A differential fuzzer: random programs run on graphgrad and on PyTorch, compared.

``python -m tests.fuzz --programs 20000`` runs the long version and prints the counts of
mismatches by kind; ``python -m tests.fuzz --replay SEED`` prints one program and its
mismatches. tests/fuzz/test_fuzz.py runs a bounded budget in the test suite. Known
differences (each with its reason) are in tests/fuzz/known.py.
"""
