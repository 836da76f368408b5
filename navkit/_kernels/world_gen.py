"""Procedural world chunks (:mod:`navkit.world.procedural`): stateless, hash-based.

Every value comes from ``splitmix64`` of ``(seed, salt, a, b)``, so a chunk is
the same whatever order chunks are made in, on every machine. Chunk kinds
(:data:`FIELD` ... :data:`MARSH`) are decided per chunk (sea per 4 x 4 block
of chunks, never on the road rows / columns ``c % 8 == 0``); mixed kinds keep
their one-cell border ring walkable, so neighbouring chunks always connect.
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit

__all__ = ["FIELD", "SEA", "ROOMS", "FOREST", "MARSH", "gen_kinds", "gen_chunk"]

FIELD = 0
SEA = 1
ROOMS = 2
FOREST = 3
MARSH = 4

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLD = np.uint64(0x9E3779B97F4A7C15)


@njit(inline="always")
def _mix(h):  # type: ignore[no-untyped-def]
    h = (h ^ (h >> np.uint64(30))) * _M1
    h = (h ^ (h >> np.uint64(27))) * _M2
    return h ^ (h >> np.uint64(31))


@njit(inline="always")
def _hash(seed, salt, a, b):  # type: ignore[no-untyped-def]
    h = _mix(seed + _GOLD * np.uint64(salt + 1))
    h = _mix(h ^ (np.uint64(a) * _GOLD))
    return _mix(h ^ (np.uint64(b) + _GOLD))


@njit
def gen_kinds(cxs, czs, seed, sea_pm, rooms_pm, forest_pm, marsh_pm, out):  # type: ignore[no-untyped-def]
    """Kind of each chunk ``(cxs[i], czs[i])`` into ``out[i]`` (int32); returns 0.

    ``*_pm`` are per-mille shares: sea per 4 x 4 block, then rooms / forest /
    marsh per chunk (the rest is open field).
    """
    n = cxs.shape[0]
    for i in range(n):
        cx = cxs[i]
        cz = czs[i]
        kind = FIELD
        road = (cx % 8 == 0) or (cz % 8 == 0)
        if not road and np.int64(_hash(seed, 0, cx // 4, cz // 4) % np.uint64(1000)) < sea_pm:
            kind = SEA
        else:
            r = np.int64(_hash(seed, 1, cx, cz) % np.uint64(1000))
            if r < rooms_pm:
                kind = ROOMS
            elif r < rooms_pm + forest_pm:
                kind = FOREST
            elif r < rooms_pm + forest_pm + marsh_pm:
                kind = MARSH
        out[i] = kind
    return 0


@njit
def gen_chunk(cx, cz, chunk, seed, kind, weights, out):  # type: ignore[no-untyped-def]
    """Fill ``out`` (uint16, (chunk, chunk), ``[z, x]``) with chunk ``(cx, cz)`` of ``kind``.

    ``weights`` 0 or 1: marsh weight 4 and forest undergrowth weight 3 when 1.
    Returns 0, or 1 for an unknown kind (``out`` then all blocked).
    """
    base = np.uint16(1)
    if kind == SEA:
        base = np.uint16(0)
    elif kind == MARSH and weights != 0:
        base = np.uint16(4)
    for z in range(chunk):
        for x in range(chunk):
            out[z, x] = base
    if kind == ROOMS:
        s = 8
        if chunk >= 32 and (_hash(seed, 2, cx, cz) & np.uint64(1)) != np.uint64(0):
            s = 16
        n = chunk // s
        for k in range(1, n):
            p = k * s
            for t in range(1, chunk - 1):
                out[t, p] = 0
                out[p, t] = 0
        # one door, two cells wide, in every wall segment between two crossings
        for k in range(1, n):
            p = k * s
            for j in range(n):
                lo = j * s + 1
                hi = (j + 1) * s - 1
                if hi > chunk - 2:
                    hi = chunk - 2
                span = hi - lo  # door start in [lo, hi - 1]
                d = lo + np.int64(_hash(seed, 3 + (k * 64 + j) * 2, cx, cz) % np.uint64(span))
                out[d, p] = 1
                out[d + 1, p] = 1
                e = lo + np.int64(_hash(seed, 4 + (k * 64 + j) * 2, cx, cz) % np.uint64(span))
                out[p, e] = 1
                out[p, e + 1] = 1
        return 0
    if kind == FOREST:
        ox = cx * chunk
        oz = cz * chunk
        for z in range(1, chunk - 1):
            for x in range(1, chunk - 1):
                h = np.int64(_hash(seed, 5, ox + x, oz + z) % np.uint64(1000))
                if x % 3 == 1 and z % 3 == 1 and h < 450:
                    out[z, x] = 0
                elif weights != 0 and h >= 750:
                    out[z, x] = 3
        return 0
    if kind > MARSH or kind < 0:
        for z in range(chunk):
            for x in range(chunk):
                out[z, x] = 0
        return 1
    return 0
