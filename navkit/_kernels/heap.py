"""A 4-ary min-heap over two parallel int64 arrays ``(f, key)``.

Entries compare by ``f``, then by ``key``. Search kernels pack
``key = (h << node_bits) | node``: for equal ``f`` the entry with the smaller
heuristic, i.e. the *larger* ``g`` (deeper along its path, as warthog does),
comes first, then the lower node index. The order is total, so the expansion
sequence never depends on insertion order.
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit


@njit(inline="always")
def entry_less(fa, ka, fb, kb):  # type: ignore[no-untyped-def]
    """True when entry a leaves the heap before entry b."""
    return fa < fb or (fa == fb and ka < kb)


@njit(inline="always")
def key_less(fa, ka, fb, kb):  # type: ignore[no-untyped-def]
    """:func:`entry_less` without short-circuit branches: ``&`` and ``|``
    compile to selects, where ``and`` / ``or`` become unpredictable jumps."""
    return (fa < fb) | ((fa == fb) & (ka < kb))


@njit(inline="always")
def _sift_up(hf, hk, i, f, k, pos, mask, track, pairs):  # type: ignore[no-untyped-def]
    """Put ``(f, k)`` at slot ``i`` and move it up; with ``track`` (a
    compile-time constant) keep ``pos`` current (the indexed heap below).
    Without ``pairs`` (also constant) the heap is ``hk`` alone, ordered by
    key (the key heap below); ``hf`` and ``f`` are ignored.

    Indices are ``np.uint64`` (numba then compiles no negative-index
    wrap-around) and :func:`key_less` is written out here and in
    :func:`_sift_down`: the same machine code, without the fourteen inlined
    copies numba typed for each heap function."""
    while i > 0:
        parent = (i - 1) >> 2
        pk = hk[np.uint64(parent)]
        if pairs:
            pf = hf[np.uint64(parent)]
            less = (f < pf) | ((f == pf) & (k < pk))  # key_less, written out
        else:
            less = k < pk
        if less:
            if pairs:
                hf[np.uint64(i)] = pf
            hk[np.uint64(i)] = pk
            if track:
                pos[np.uint64(pk & mask)] = i
            i = parent
        else:
            break
    if pairs:
        hf[np.uint64(i)] = f
    hk[np.uint64(i)] = k
    if track:
        pos[np.uint64(k & mask)] = i


@njit(_nrt=False)
def heap_push(hf, hk, size, f, k):  # type: ignore[no-untyped-def]
    """Insert ``(f, k)``; returns the new size. Capacity is the caller's job."""
    _sift_up(hf, hk, size, f, k, hk, 0, False, True)
    return size + 1


@njit(inline="always")
def _sift_down(hf, hk, size, i, f, k, pos, mask, track, pairs):  # type: ignore[no-untyped-def]
    """Put ``(f, k)`` at slot ``i`` and move it down; ``track`` and ``pairs``
    as in :func:`_sift_up`."""
    while True:
        c = 4 * i + 1
        if c >= size:
            break
        end = c + 4
        if end > size:
            end = size
        bf = hf[np.uint64(c)] if pairs else f
        bk = hk[np.uint64(c)]
        b = c
        for j in range(c + 1, end):
            jk = hk[np.uint64(j)]
            if pairs:
                jf = hf[np.uint64(j)]
                less = (jf < bf) | ((jf == bf) & (jk < bk))  # key_less
            else:
                less = jk < bk
            if less:
                if pairs:
                    bf = jf
                bk = jk
                b = j
        if pairs:
            less = (bf < f) | ((bf == f) & (bk < k))  # key_less
        else:
            less = bk < k
        if less:
            if pairs:
                hf[np.uint64(i)] = bf
            hk[np.uint64(i)] = bk
            if track:
                pos[np.uint64(bk & mask)] = i
            i = b
        else:
            break
    if pairs:
        hf[np.uint64(i)] = f
    hk[np.uint64(i)] = k
    if track:
        pos[np.uint64(k & mask)] = i


@njit(inline="always")
def heap_sift_down(hf, hk, size, i):  # type: ignore[no-untyped-def]
    """Restore the heap below position ``i``."""
    _sift_down(hf, hk, size, i, hf[i], hk[i], hk, 0, False, True)


@njit(_nrt=False)
def heap_pop(hf, hk, size):  # type: ignore[no-untyped-def]
    """Remove the top entry (the caller read it first); returns the new size."""
    size -= 1
    if size > 0:
        hf[0] = hf[size]
        hk[0] = hk[size]
        heap_sift_down(hf, hk, size, 0)
    return size


@njit(_nrt=False)
def heapify(hf, hk, size):  # type: ignore[no-untyped-def]
    """Make ``[0, size)`` a heap in place."""
    i = (size - 2) // 4
    while i >= 0:
        heap_sift_down(hf, hk, size, i)
        i -= 1


# ------------------------------------------------------------------ indexed heap
# A* keeps at most one entry per node and lowers it in place when it finds a
# cheaper path (decrease-key): no stale entries to pop and skip, a smaller
# heap. ``pos[node]`` is the node's slot; ``mask`` extracts the node from a
# key.


@njit(inline="always")
def iheap_sift_up(hf, hk, pos, mask, i, f, k):  # type: ignore[no-untyped-def]
    """Put ``(f, k)`` at slot ``i`` (a new last slot, or the slot of an entry
    whose ``f`` just fell) and move it up; keeps ``pos`` current."""
    _sift_up(hf, hk, i, f, k, pos, mask, True, True)


@njit(inline="always")
def iheap_pop(hf, hk, pos, mask, size):  # type: ignore[no-untyped-def]
    """Remove the top entry (the caller read it first); returns the new size."""
    size -= 1
    if size > 0:
        _sift_down(hf, hk, size, 0, hf[size], hk[size], pos, mask, True, True)
    return size


# ------------------------------------------------------------------ key heap
# One int64 array ordered by key alone: A*'s entries of the current ``f``
# level (see navkit._kernels.search), whose keys ``(h << bits) | node`` then
# decide the order.


@njit(inline="always")
def kheap_push(hk, size, k):  # type: ignore[no-untyped-def]
    """Insert key ``k``; returns the new size."""
    _sift_up(hk, hk, size, k, k, hk, 0, False, False)
    return size + 1


@njit(inline="always")
def kheap_pop(hk, size):  # type: ignore[no-untyped-def]
    """Remove the smallest key (the caller read ``hk[0]``); returns the new size."""
    size -= 1
    if size > 0:
        _sift_down(hk, hk, size, 0, hk[size], hk[size], hk, 0, False, False)
    return size
