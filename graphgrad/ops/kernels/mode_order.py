"""Which index PyTorch's CPU ``mode`` reports among tied values.

PyTorch sorts each row's (value, index) pairs by value with C++ ``std::sort`` and reports
the index that ends the mode's run.  ``std::sort`` is not stable: for rows longer than 16
the order of equal values comes from its introsort (median-of-three quicksort partitions
down to 16-element pieces, then one insertion-sort pass).  ``introsort_order`` replays
that algorithm (as described in the GNU C++ library's documentation of ``std::sort``) on
the values, so the reported index is PyTorch's.  Run per row, only for rows whose mode is
tied (a row of distinct values has one index per value).
"""
from __future__ import annotations

_THRESHOLD = 16


def introsort_order(vals):
    """The permutation of ``range(len(vals))`` that GNU ``std::sort`` leaves (by ``<``)."""
    v = list(vals)
    idx = list(range(len(v)))
    n = len(v)

    def swap(i, j):
        v[i], v[j] = v[j], v[i]
        idx[i], idx[j] = idx[j], idx[i]

    def median_to_first(result, a, b, c):
        if v[a] < v[b]:
            if v[b] < v[c]:
                swap(result, b)
            elif v[a] < v[c]:
                swap(result, c)
            else:
                swap(result, a)
        elif v[a] < v[c]:
            swap(result, a)
        elif v[b] < v[c]:
            swap(result, c)
        else:
            swap(result, b)

    def partition(first, last, pivot):
        while True:
            while v[first] < v[pivot]:
                first += 1
            last -= 1
            while v[pivot] < v[last]:
                last -= 1
            if not first < last:
                return first
            swap(first, last)
            first += 1

    def heap_sort(first, last):
        # (the depth limit's fallback: std::partial_sort over the whole range)
        length = last - first

        def sift(start, end):
            root = start
            while True:
                child = 2 * (root - first) + 1 + first
                if child >= end:
                    return
                if child + 1 < end and v[child] < v[child + 1]:
                    child += 1
                if v[root] < v[child]:
                    swap(root, child)
                    root = child
                else:
                    return
        for s in range(first + (length - 2) // 2, first - 1, -1):
            sift(s, last)
        for end in range(last - 1, first, -1):
            swap(first, end)
            sift(first, end)

    def loop(first, last, depth):
        while last - first > _THRESHOLD:
            if depth == 0:
                heap_sort(first, last)
                return
            depth -= 1
            mid = first + (last - first) // 2
            median_to_first(first, first + 1, mid, last - 1)
            cut = partition(first + 1, last, first)
            loop(cut, last, depth)
            last = cut

    def linear_insert(i):
        val, vi = v[i], idx[i]
        j = i - 1
        while val < v[j]:
            v[j + 1], idx[j + 1] = v[j], idx[j]
            j -= 1
        v[j + 1], idx[j + 1] = val, vi

    def insertion_sort(first, last):
        for i in range(first + 1, last):
            if v[i] < v[first]:
                val, vi = v[i], idx[i]
                v[first + 1:i + 1], idx[first + 1:i + 1] = v[first:i], idx[first:i]
                v[first], idx[first] = val, vi
            else:
                linear_insert(i)

    if n < 2:
        return idx
    loop(0, n, 2 * (n.bit_length() - 1))
    if n > _THRESHOLD:
        insertion_sort(0, _THRESHOLD)
        for i in range(_THRESHOLD, n):
            linear_insert(i)
    else:
        insertion_sort(0, n)
    return idx
