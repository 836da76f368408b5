"""A 4-ary min-heap over two parallel int64 arrays ``(f, key)``.

Entries compare by ``f``, then by ``key``. Search kernels pack
``key = (h << node_bits) | node``: for equal ``f`` the entry with the smaller
heuristic, i.e. the *larger* ``g`` (deeper along its path, as warthog does),
comes first, then the lower node index. The order is total, so the expansion
sequence never depends on insertion order.
"""

from __future__ import annotations

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
def _sift_up(hf, hk, i, f, k, pos, mask, track):  # type: ignore[no-untyped-def]
    """Put ``(f, k)`` at slot ``i`` and move it up; with ``track`` (a
    compile-time constant) keep ``pos`` current (the indexed heap below)."""
    while i > 0:
        parent = (i - 1) >> 2
        pf = hf[parent]
        pk = hk[parent]
        if key_less(f, k, pf, pk):
            hf[i] = pf
            hk[i] = pk
            if track:
                pos[pk & mask] = i
            i = parent
        else:
            break
    hf[i] = f
    hk[i] = k
    if track:
        pos[k & mask] = i


@njit(inline="always")
def heap_push(hf, hk, size, f, k):  # type: ignore[no-untyped-def]
    """Insert ``(f, k)``; returns the new size. Capacity is the caller's job."""
    _sift_up(hf, hk, size, f, k, hk, 0, False)
    return size + 1


@njit(inline="always")
def _sift_down(hf, hk, size, i, f, k, pos, mask, track):  # type: ignore[no-untyped-def]
    """Put ``(f, k)`` at slot ``i`` and move it down; with ``track`` (a
    compile-time constant) keep ``pos`` current (the indexed heap below)."""
    while True:
        c = 4 * i + 1
        if c >= size:
            break
        end = c + 4
        if end > size:
            end = size
        bf = hf[c]
        bk = hk[c]
        b = c
        for j in range(c + 1, end):
            jf = hf[j]
            jk = hk[j]
            if key_less(jf, jk, bf, bk):
                bf = jf
                bk = jk
                b = j
        if key_less(bf, bk, f, k):
            hf[i] = bf
            hk[i] = bk
            if track:
                pos[bk & mask] = i
            i = b
        else:
            break
    hf[i] = f
    hk[i] = k
    if track:
        pos[k & mask] = i


@njit(inline="always")
def heap_sift_down(hf, hk, size, i):  # type: ignore[no-untyped-def]
    """Restore the heap below position ``i``."""
    _sift_down(hf, hk, size, i, hf[i], hk[i], hk, 0, False)


@njit(inline="always")
def heap_pop(hf, hk, size):  # type: ignore[no-untyped-def]
    """Remove the top entry (the caller read it first); returns the new size."""
    size -= 1
    if size > 0:
        hf[0] = hf[size]
        hk[0] = hk[size]
        heap_sift_down(hf, hk, size, 0)
    return size


@njit
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
    _sift_up(hf, hk, i, f, k, pos, mask, True)


@njit(inline="always")
def iheap_pop(hf, hk, pos, mask, size):  # type: ignore[no-untyped-def]
    """Remove the top entry (the caller read it first); returns the new size."""
    size -= 1
    if size > 0:
        _sift_down(hf, hk, size, 0, hf[size], hk[size], pos, mask, True)
    return size
