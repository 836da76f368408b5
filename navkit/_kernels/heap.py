"""A binary min-heap over three parallel arrays ``(f, g, node)``.

Order: smaller ``f`` first, then *larger* ``g`` (the entry deeper along its
path, as warthog does), then smaller ``node``. The order is total, so the
expansion sequence never depends on insertion order.
"""

from __future__ import annotations

from .._numba_config import njit


@njit(inline="always")
def entry_less(fa, ga, na, fb, gb, nb):  # type: ignore[no-untyped-def]
    """True when entry a comes out of the heap before entry b."""
    if fa != fb:
        return fa < fb
    if ga != gb:
        return ga > gb
    return na < nb


@njit(inline="always")
def heap_push(hf, hg, hn, size, f, g, n):  # type: ignore[no-untyped-def]
    """Insert ``(f, g, n)``; returns the new size. Capacity is the caller's job."""
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if entry_less(f, g, n, hf[parent], hg[parent], hn[parent]):
            hf[i] = hf[parent]
            hg[i] = hg[parent]
            hn[i] = hn[parent]
            i = parent
        else:
            break
    hf[i] = f
    hg[i] = g
    hn[i] = n
    return size + 1


@njit(inline="always")
def heap_sift_down(hf, hg, hn, size, i):  # type: ignore[no-untyped-def]
    """Restore the heap below position ``i``."""
    f = hf[i]
    g = hg[i]
    n = hn[i]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        right = child + 1
        if right < size and entry_less(hf[right], hg[right], hn[right], hf[child], hg[child], hn[child]):
            child = right
        if entry_less(hf[child], hg[child], hn[child], f, g, n):
            hf[i] = hf[child]
            hg[i] = hg[child]
            hn[i] = hn[child]
            i = child
        else:
            break
    hf[i] = f
    hg[i] = g
    hn[i] = n


@njit(inline="always")
def heap_pop_into(hf, hg, hn, size):  # type: ignore[no-untyped-def]
    """Remove the top entry, which the caller has already read; returns the new size."""
    size -= 1
    if size > 0:
        hf[0] = hf[size]
        hg[0] = hg[size]
        hn[0] = hn[size]
        heap_sift_down(hf, hg, hn, size, 0)
    return size


@njit
def heapify(hf, hg, hn, size):  # type: ignore[no-untyped-def]
    """Make ``[0, size)`` a heap in place."""
    i = size // 2 - 1
    while i >= 0:
        heap_sift_down(hf, hg, hn, size, i)
        i -= 1
