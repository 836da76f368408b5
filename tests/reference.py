"""Slow, independent references for navkit's search: plain Python, numpy and scipy.

Nothing here imports navkit. The rules are those of docs/rules.md §3-§6 and the
Moving AI benchmarks:

* a grid is a ``(depth, width)`` boolean array indexed ``[z, x]``; a cell is
  ``(x, z)`` and its linear index is ``z * width + x``;
* 8-connected moves (or 4-connected); a diagonal step needs both side cells
  walkable (no corner cutting);
* a step costs ``card`` (straight) or ``diag`` (diagonal) times the terrain
  weight of the cell *entered*.

Line of sight is checked geometrically with exact rational arithmetic.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from itertools import pairwise
from math import floor

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

__all__ = [
    "CARDINAL",
    "DIAGONAL",
    "grid_graph",
    "dijkstra_costs",
    "is_valid_path",
    "path_cost",
    "brute_line_of_sight",
    "segment_mean_weight",
    "reachable_nearest",
    "brute_snap",
    "reference_astar",
]

#: (dx, dz) of the four straight and the four diagonal moves.
CARDINAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONAL = ((1, 1), (-1, 1), (1, -1), (-1, -1))


def _weights_or_ones(walkable: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    if weights is None:
        return np.ones(walkable.shape, dtype=np.int64)
    w = np.asarray(weights, dtype=np.int64)
    assert w.shape == walkable.shape
    return w


def grid_graph(
    walkable: np.ndarray,
    weights: np.ndarray | None = None,
    card: int = 10,
    diag: int = 14,
    eight: bool = True,
) -> sp.csr_matrix:
    """The move graph of a grid as an ``(n, n)`` scipy CSR matrix, ``n = depth * width``.

    Entry ``[u, v]`` is the cost of stepping from cell ``u`` to the adjacent cell
    ``v`` (linear indices): ``card`` or ``diag`` times ``weights[v]``. Edges exist
    only between walkable cells; a diagonal edge also needs both cells beside it
    (sharing the corner) walkable.
    """
    walk = np.asarray(walkable, dtype=bool)
    depth, width = walk.shape
    w = _weights_or_ones(walk, weights)
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    zz, xx = np.nonzero(walk)
    moves = [(dx, dz, card) for dx, dz in CARDINAL]
    if eight:
        moves += [(dx, dz, diag) for dx, dz in DIAGONAL]
    for dx, dz, step in moves:
        tx, tz = xx + dx, zz + dz
        ok = (tx >= 0) & (tx < width) & (tz >= 0) & (tz < depth)
        sx, sz, tx, tz = xx[ok], zz[ok], tx[ok], tz[ok]
        ok = walk[tz, tx]
        if dx != 0 and dz != 0:
            # side cells (x + dx, z) and (x, z + dz) lie inside the grid whenever the target does
            ok &= walk[sz, sx + dx] & walk[sz + dz, sx]
        sx, sz, tx, tz = sx[ok], sz[ok], tx[ok], tz[ok]
        rows.append(sz * width + sx)
        cols.append(tz * width + tx)
        vals.append((step * w[tz, tx]).astype(np.float64))
    n = depth * width
    if rows:
        r, c, v = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    else:
        r = c = np.zeros(0, dtype=np.int64)
        v = np.zeros(0, dtype=np.float64)
    return sp.csr_matrix((v, (r, c)), shape=(n, n))


def dijkstra_costs(
    walkable: np.ndarray,
    weights: np.ndarray | None,
    source: Sequence[int] | Iterable[Sequence[int]],
    card: int = 10,
    diag: int = 14,
    eight: bool = True,
) -> np.ndarray:
    """Integer path costs from ``source`` to every cell, as a float ``(depth, width)`` array.

    ``source`` is one cell ``(x, z)`` or a list of cells (multi-source: the cost
    from the nearest source). Blocked sources are ignored (they reach nothing,
    not even themselves). Unreachable cells hold ``inf``.
    """
    walk = np.asarray(walkable, dtype=bool)
    depth, width = walk.shape
    src = np.asarray(source, dtype=np.int64).reshape(-1, 2)
    src = np.array([c for c in src if walk[c[1], c[0]]], dtype=np.int64).reshape(-1, 2)
    if len(src) == 0:
        return np.full((depth, width), np.inf)
    graph = grid_graph(walk, weights, card, diag, eight)
    idx = np.unique(src[:, 1] * width + src[:, 0])
    dist = dijkstra(graph, directed=True, indices=idx, min_only=True)
    return np.asarray(dist, dtype=np.float64).reshape(depth, width)


def _walk(walkable: np.ndarray, x: int, z: int) -> bool:
    depth, width = walkable.shape
    return 0 <= x < width and 0 <= z < depth and bool(walkable[z, x])


def is_valid_path(walkable: np.ndarray, cells: np.ndarray, eight: bool = True) -> bool:
    """True when ``cells`` (shape (n, 2), ``(x, z)``, n >= 1) is a legal move sequence."""
    walk = np.asarray(walkable, dtype=bool)
    cells = np.asarray(cells)
    if cells.ndim != 2 or cells.shape[1] != 2 or len(cells) == 0:
        return False
    pts = [(int(x), int(z)) for x, z in cells]
    if not all(_walk(walk, x, z) for x, z in pts):
        return False
    for (x0, z0), (x1, z1) in pairwise(pts):
        dx, dz = x1 - x0, z1 - z0
        if (dx, dz) in CARDINAL:
            continue
        if not eight or (dx, dz) not in DIAGONAL:
            return False
        if not (_walk(walk, x0 + dx, z0) and _walk(walk, x0, z0 + dz)):
            return False
    return True


def path_cost(cells: np.ndarray, weights: np.ndarray | None, card: int, diag: int) -> int:
    """Integer cost of a cell path: each step charges the weight of the cell it enters."""
    total = 0
    pts = [(int(x), int(z)) for x, z in np.asarray(cells)]
    for (x0, z0), (x1, z1) in pairwise(pts):
        step = card if abs(x1 - x0) + abs(z1 - z0) == 1 else diag
        total += step * (1 if weights is None else int(weights[z1][x1]))
    return total


def brute_line_of_sight(walkable: np.ndarray, a: Sequence[int], b: Sequence[int]) -> bool:
    """Exact line of sight between the centres of cells ``a`` and ``b``.

    The segment ``P(t) = A + t (B - A)``, ``t`` in ``[0, 1]``, between the two
    cell centres is cut at every ``t`` where it crosses a vertical (``x = k``)
    or horizontal (``z = k``) grid line. Every open piece between consecutive
    cuts lies in the interior of one cell (found at the piece's midpoint): that
    cell must be walkable. Where a vertical and a horizontal line are crossed
    at the same ``t`` the segment passes exactly through a cell corner; the two
    cells touching that corner that the segment does not enter (the side
    cells) must then be walkable too, as for a diagonal A* step.
    All arithmetic is on :class:`fractions.Fraction`.
    """
    walk = np.asarray(walkable, dtype=bool)
    ax, az = Fraction(int(a[0])) + Fraction(1, 2), Fraction(int(a[1])) + Fraction(1, 2)
    bx, bz = Fraction(int(b[0])) + Fraction(1, 2), Fraction(int(b[1])) + Fraction(1, 2)
    dx, dz = bx - ax, bz - az

    def crossings(p0: Fraction, d: Fraction) -> set[Fraction]:
        if d == 0:
            return set()
        lo, hi = min(p0, p0 + d), max(p0, p0 + d)
        return {(Fraction(k) - p0) / d for k in range(floor(lo) + 1, floor(hi) + 1)}

    tx = crossings(ax, dx)
    tz = crossings(az, dz)
    cuts = sorted({Fraction(0), Fraction(1)} | tx | tz)

    def cell_at(t: Fraction) -> tuple[int, int]:
        return (floor(ax + t * dx), floor(az + t * dz))

    pieces = [cell_at((t0 + t1) / 2) for t0, t1 in pairwise(cuts)] or [cell_at(Fraction(0))]
    if not all(_walk(walk, x, z) for x, z in pieces):
        return False
    # interior cuts: cuts[i] (0 < i < len - 1) separates pieces[i - 1] and pieces[i]
    for i in range(1, len(cuts) - 1):
        t = cuts[i]
        if t in tx and t in tz:
            (x0, z0), (x1, z1) = pieces[i - 1], pieces[i]
            if not (_walk(walk, x1, z0) and _walk(walk, x0, z1)):
                return False
    return True


def segment_mean_weight(weights: np.ndarray, a: Sequence[int], b: Sequence[int]) -> Fraction:
    """Mean terrain weight along the segment between the centres of cells ``a``
    and ``b``: each open piece between consecutive grid-line crossings (as in
    :func:`brute_line_of_sight`) counts its cell's weight times its share of
    the segment; exact rational arithmetic."""
    w = np.asarray(weights)
    ax, az = Fraction(int(a[0])) + Fraction(1, 2), Fraction(int(a[1])) + Fraction(1, 2)
    bx, bz = Fraction(int(b[0])) + Fraction(1, 2), Fraction(int(b[1])) + Fraction(1, 2)
    dx, dz = bx - ax, bz - az
    if dx == 0 and dz == 0:
        return Fraction(int(w[int(a[1]), int(a[0])]))

    def crossings(p0: Fraction, d: Fraction) -> set[Fraction]:
        if d == 0:
            return set()
        lo, hi = min(p0, p0 + d), max(p0, p0 + d)
        return {(Fraction(k) - p0) / d for k in range(floor(lo) + 1, floor(hi) + 1)}

    cuts = sorted({Fraction(0), Fraction(1)} | crossings(ax, dx) | crossings(az, dz))
    total = Fraction(0)
    for t0, t1 in pairwise(cuts):
        t = (t0 + t1) / 2
        total += int(w[floor(az + t * dz), floor(ax + t * dx)]) * (t1 - t0)
    return total


def reachable_nearest(dist: np.ndarray, goal: Sequence[int]) -> tuple[int, int]:
    """docs/rules.md §6.2: the reachable cell (finite ``dist``) with the smallest
    squared grid distance to ``goal`` (which may lie anywhere), ties to the lower
    linear index."""
    depth, width = dist.shape
    gx, gz = int(goal[0]), int(goal[1])
    best: tuple[int, int, int] | None = None
    for z in range(depth):
        for x in range(width):
            if np.isfinite(dist[z, x]):
                key = ((x - gx) ** 2 + (z - gz) ** 2, z * width + x, x)
                if best is None or key < best:
                    best = key
    assert best is not None, "no reachable cell"
    return (best[2], best[1] // width)


def brute_snap(walkable: np.ndarray, cell: Sequence[int], radius: int) -> tuple[int, int] | None:
    """docs/rules.md §4.1 snapping by brute force over every cell: ``cell`` itself when
    walkable, else the walkable cell within Chebyshev distance ``radius`` (square
    rings) with the smallest squared distance, ties to the lower linear index;
    ``None`` when there is none. ``cell`` may lie outside the grid."""
    walk = np.asarray(walkable, dtype=bool)
    depth, width = walk.shape
    cx, cz = int(cell[0]), int(cell[1])
    if _walk(walk, cx, cz):
        return (cx, cz)
    best: tuple[int, int, int, int] | None = None
    for z in range(depth):
        for x in range(width):
            if walk[z, x] and max(abs(x - cx), abs(z - cz)) <= radius:
                key = ((x - cx) ** 2 + (z - cz) ** 2, z * width + x, x, z)
                if best is None or key < best:
                    best = key
    return None if best is None else (best[2], best[3])


def reference_astar(
    walkable: np.ndarray,
    weights: np.ndarray | None,
    start: Sequence[int],
    goal: Sequence[int],
    card: int = 10,
    diag: int = 14,
    eight: bool = True,
    hmul: int = 1,
    budget: int | None = None,
    window: Sequence[int] | None = None,
) -> dict[str, object]:
    """A textbook A* with the queue order of docs/rules.md §3.4, written with :mod:`heapq`.

    Entries leave the queue by smallest ``f = g + h``, then largest ``g``, then
    lowest linear index; stale entries are skipped. ``h`` is the octile (or, for
    4-connectivity, Manhattan) distance on ``card``/``diag`` times ``hmul``
    (``hmul = 0`` is Dijkstra). ``budget`` caps expansions; ``window =
    (x0, z0, x1, z1)`` (inclusive cells) restricts the cells that may be entered
    or squeezed past (the start itself is exempt).

    Returns ``status`` ("FOUND", "UNREACHABLE", "BUDGET_EXHAUSTED",
    "WINDOW_EXHAUSTED"), ``cost`` (int, or None), ``expanded`` (nodes closed),
    ``generated`` (queue pushes, the start included), ``path`` (list of cells to
    the goal, or to ``best`` when not found) and ``best`` (the expanded cell
    closest to the goal by squared distance, ties to the lower index).
    """
    import heapq

    walk = np.asarray(walkable, dtype=bool)
    depth, width = walk.shape
    w = _weights_or_ones(walk, weights)
    sx, sz = int(start[0]), int(start[1])
    gx, gz = int(goal[0]), int(goal[1])

    def ok(x: int, z: int) -> bool:
        if not _walk(walk, x, z):
            return False
        if window is not None:
            x0, z0, x1, z1 = window
            return x0 <= x <= x1 and z0 <= z <= z1
        return True

    def h(x: int, z: int) -> int:
        dx, dz = abs(x - gx), abs(z - gz)
        if not eight:
            return card * (dx + dz) * hmul
        return (card * max(dx, dz) + (diag - card) * min(dx, dz)) * hmul

    def idx(x: int, z: int) -> int:
        return z * width + x

    g = {(sx, sz): 0}
    parent = {(sx, sz): (sx, sz)}
    closed: set[tuple[int, int]] = set()
    heap = [(h(sx, sz), 0, idx(sx, sz), sx, sz)]
    generated, expanded = 1, 0
    best, best_key = (sx, sz), ((sx - gx) ** 2 + (sz - gz) ** 2, idx(sx, sz))
    status = "UNREACHABLE"
    moves = [(dx, dz, card) for dx, dz in CARDINAL]
    if eight:
        moves += [(dx, dz, diag) for dx, dz in DIAGONAL]
    while heap:
        _f, neg_g, _i, x, z = heapq.heappop(heap)
        if (x, z) in closed or -neg_g != g[(x, z)]:
            continue
        closed.add((x, z))
        expanded += 1
        key = ((x - gx) ** 2 + (z - gz) ** 2, idx(x, z))
        if key < best_key:
            best, best_key = (x, z), key
        if (x, z) == (gx, gz):
            status = "FOUND"
            break
        if budget is not None and expanded >= budget:
            status = "BUDGET_EXHAUSTED"
            break
        for dx, dz, step in moves:
            qx, qz = x + dx, z + dz
            if not ok(qx, qz) or (qx, qz) in closed:
                continue
            if dx and dz and not (ok(x + dx, z) and ok(x, z + dz)):
                continue
            ng = g[(x, z)] + step * int(w[qz, qx])
            if (qx, qz) in g and ng >= g[(qx, qz)]:
                continue
            g[(qx, qz)] = ng
            parent[(qx, qz)] = (x, z)
            heapq.heappush(heap, (ng + h(qx, qz), -ng, idx(qx, qz), qx, qz))
            generated += 1
    if status == "UNREACHABLE" and window is not None:
        status = "WINDOW_EXHAUSTED"
    end = (gx, gz) if status == "FOUND" else best
    path = [end]
    while path[-1] != (sx, sz):
        path.append(parent[path[-1]])
    path.reverse()
    return {
        "status": status,
        "cost": g[(gx, gz)] if status == "FOUND" else None,
        "expanded": expanded,
        "generated": generated,
        "path": path,
        "best": best,
        "best_cost": g[best],
    }
