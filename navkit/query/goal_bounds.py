"""Goal bounding for JPS+ (Rabin 2015, stored at jump points only as in Hu et al., JAIR 2021).

Per jump point and direction, the bounding box of every cell that some
optimal path from the jump point reaches leaving in that direction; JPS+
(:class:`navkit.query.jps_plus.JPSPlus` with ``goal_bounds=``) skips a
direction whose box does not hold the goal. Answers stay exact (A*'s cost);
searches expand fewer jump points.

The build runs one Dijkstra per jump point (the cells with a forced side
cell, the only nodes a search expands besides its start), so it costs time
in proportion to ``jump points x free cells``: 1-17 s on 512x512 game maps,
about 3 minutes on a 1024x1024 city map, two threads (see docs/jps-plus.md).
Memory: 4 bytes per cell plus 64 per jump point.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import jps_plus as _jp
from ..errors import ConfigError, FormatError, shown
from .fanout import fan_out, max_threads
from .jps_plus import JumpTables, grid_fingerprint, jps_of

__all__ = ["GoalBounds", "jump_points", "BOUNDS_FORMAT", "PROGRESS_STEP", "VERIFY_SAMPLES",
           "VERIFY_CELLS", "VERIFY_FULL_WORK"]

#: The ``format`` field of a saved goal-bounds file.
BOUNDS_FORMAT = "navkit-goal-bounds/1"
#: Jump points per :meth:`GoalBounds.build` progress report (a kernel call each).
PROGRESS_STEP = 64
#: Jump points whose boxes :meth:`GoalBounds.load` recomputes and compares
#: (``verify="sample"``): one Dijkstra each (about 0.5 ms on den520d, 38 ms on a
#: 1024x1024 city map) ...
VERIFY_SAMPLES = 16
#: ... fewer on large grids, down to 4, so that they settle about this many cells.
VERIFY_CELLS = 4_000_000
#: ``verify="auto"`` (the default) reruns every jump point's Dijkstra (a complete
#: check) when jump points x free cells is at most this (about 0.4 s; maps of
#: up to about 100 x 100 cells), else samples (``"sample"``).
VERIFY_FULL_WORK = 10_000_000
_EMPTY = (32767, 32767, -1, -1)  # the kernel's empty box (x0 > x1)


def jump_points(tables: JumpTables, owner: Any) -> NDArray[np.int64]:
    """Padded nodes of the jump points (free cells with a forced side cell for
    some straight arrival), ascending."""
    pg = jps_of(owner).pg
    tab = np.asarray(tables.tab).reshape(pg.hp, pg.wp, 8)
    free = pg.cells.reshape(pg.hp, pg.wp) != 0
    jp = np.zeros_like(free)
    jp[:, 1:] |= tab[:, :-1, 0] == 1
    jp[:, :-1] |= tab[:, 1:, 1] == 1
    jp[1:, :] |= tab[:-1, :, 2] == 1
    jp[:-1, :] |= tab[1:, :, 3] == 1
    return np.flatnonzero((jp & free).ravel()).astype(np.int64)


class GoalBounds:
    """Goal-bounding boxes of a Pathfinder's jump points.

    ``index``: int32 ``(n,)`` over the padded nodes, a jump point's row in
    ``boxes`` (-1 elsewhere); ``boxes``: int16 ``(32 * rows,)``, per direction
    ``k`` (:data:`navkit._kernels.jps_plus.DIRS`) the padded box ``x0, z0, x1,
    z1`` (empty: ``x0 > x1``). The boxes depend on the step costs.
    """

    def __init__(self, index: NDArray[np.int32], boxes: NDArray[np.int16], fingerprint: str,
                 costs: tuple[int, int], build_seconds: float = 0.0):
        self.index = index
        self.boxes = boxes
        self.fingerprint = fingerprint
        self.costs = costs
        self.build_seconds = float(build_seconds)
        #: True once the bounds are known to fit their grid (built, loaded, or
        #: passed :meth:`check`); :class:`~navkit.query.jps_plus.JPSPlus` checks others.
        self.verified = False

    @classmethod
    def build(cls, owner: Any, tables: JumpTables | None = None, *,
              max_jump_points: int | None = None, threads: int | None = None,
              progress: Callable[[int, int], None] | None = None) -> GoalBounds:
        """One Dijkstra per jump point (see the module docstring), shared out over
        ``threads`` threads (default: numba's thread count; same boxes for any
        count). Raises ConfigError when the grid has more than
        ``max_jump_points`` of them (a guard against builds of hours).
        ``progress(done, total)`` is called (from the worker threads) as jump
        points are finished, in steps of :data:`PROGRESS_STEP`."""
        jps = jps_of(owner)
        if tables is None:
            tables = JumpTables.build(jps)
        pg = jps.pg
        src = jump_points(tables, jps)
        if max_jump_points is not None and len(src) > max_jump_points:
            raise ConfigError(f"{len(src)} jump points, more than max_jump_points="
                              f"{max_jump_points}: goal bounding would take too long here",
                              field="max_jump_points")
        n = pg.n
        if n >= 1 << 24:
            raise ConfigError(f"{n} padded cells: goal bounding takes grids below 2**24 cells",
                              field="grid")
        t0 = time.perf_counter()
        boxes = np.zeros(32 * len(src), dtype=np.int16)
        nt = max(1, min(max_threads() if threads is None else int(threads), len(src)))
        cuts = np.linspace(0, len(src), nt + 1).astype(np.int64)
        ring = 1 << int(n).bit_length()
        card, diag = int(jps.costs.card), int(jps.costs.diag)
        moves = np.zeros(n, dtype=np.uint8)  # each node's legal steps, read by every Dijkstra
        _jp.legal_moves(pg.cells, int(pg.wp), moves)

        total = len(src)
        step = total if progress is None else PROGRESS_STEP
        done = [0]
        lock = threading.Lock()

        def work(t: int) -> None:  # one Dijkstra per source of this thread's share
            a, b = int(cuts[t]), int(cuts[t + 1])
            dist, stamp = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
            first = np.zeros(n, dtype=np.uint8)
            qc, qd = np.zeros(ring, dtype=np.int64), np.zeros(ring, dtype=np.int64)
            for lo in range(a, b, max(1, step)):  # chunks: the same boxes
                hi = min(b, lo + step)
                if lo > a:
                    stamp.fill(0)  # (the kernel's stamps count from 1 in each call)
                _jp.build_goal_bounds(moves, int(pg.wp), card, diag, src[lo:hi],
                                      boxes[32 * lo:32 * hi], dist, stamp, first, qc, qd)
                if progress is not None:
                    with lock:
                        done[0] += hi - lo
                        progress(done[0], total)

        fan_out(nt, len(src), work)
        index = np.full(n, -1, dtype=np.int32)
        index[src] = np.arange(len(src), dtype=np.int32)
        dt = time.perf_counter() - t0
        index.setflags(write=False)
        boxes.setflags(write=False)
        out = cls(index, boxes, grid_fingerprint(pg),
                  (int(jps.costs.card), int(jps.costs.diag)), dt)
        out.verified = True
        return out

    def digest(self) -> str:
        """SHA-256 (hex) of the bounds' content (format, costs, grid fingerprint,
        index and boxes): written by :meth:`save`, compared by :meth:`load`."""
        return _digest(self.index, self.boxes, self.costs, self.fingerprint)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the bounds to ``path`` (``.npz``, compressed) with the grid's
        fingerprint, the step costs they were built for and a content digest."""
        np.savez_compressed(path, format=np.array(BOUNDS_FORMAT), index=self.index,
                            boxes=self.boxes, costs=np.array(self.costs, dtype=np.int64),
                            fingerprint=np.array(self.fingerprint),
                            digest=np.array(self.digest()))

    @classmethod
    def load(cls, path: str | os.PathLike[str], owner: Any, *, verify: str = "auto",
             tables: JumpTables | None = None) -> GoalBounds:
        """Read bounds saved by :meth:`save` for ``owner`` (a Pathfinder) and check
        them against its grid before any search sees them (:meth:`problem`, with
        ``verify``: ``"auto"``, the default, reruns every jump point's Dijkstra
        on small maps (:data:`VERIFY_FULL_WORK`) and :data:`VERIFY_SAMPLES` of
        them on larger ones; ``"full"`` reruns all of them, as long as a build).
        The file goes through the bounded reader (no member may
        unpack to more than the grid's bounds can take); a digest, when the file
        has one (files written before it have none and load when they check
        out), must match the content. Raises FormatError naming the file when it
        is not such a file, is damaged or altered, or belongs to another grid or
        other step costs. ``tables``: this grid's JPS+ tables, when at hand (else
        built: milliseconds)."""
        from ..formats.archive import read_npz

        name = str(path)
        jps = jps_of(owner)
        n = jps.pg.n
        f = read_npz(path, {"format": 1024, "index": 4 * n, "boxes": 64 * n, "costs": 64,
                            "fingerprint": 1024, "digest": 1024}, "goal-bounds file",
                     optional=("digest",))
        try:
            fmt, fp = str(f["format"]), str(f["fingerprint"])
            index = np.ascontiguousarray(f["index"])
            boxes = np.ascontiguousarray(f["boxes"])
            costs = tuple(int(v) for v in f["costs"])
            digest = str(f["digest"]) if "digest" in f else None
        except (TypeError, ValueError, OverflowError) as e:
            raise FormatError(f"not a goal-bounds file ({e})", path=name) from None
        if fmt != BOUNDS_FORMAT:
            raise FormatError(f"goal-bounds format {fmt[:40]!r}, expected {BOUNDS_FORMAT!r}",
                              path=name)
        if (index.dtype != np.int32 or index.shape != (n,) or boxes.dtype != np.int16
                or boxes.ndim != 1 or len(boxes) % 32 or len(costs) != 2):
            raise FormatError(f"goal bounds of shapes {index.shape} {index.dtype} and "
                              f"{boxes.shape} {boxes.dtype} do not fit this grid", path=name)
        out = cls(index, boxes, fp, (costs[0], costs[1]))
        if not out.matches(jps):
            raise FormatError("these goal bounds belong to another grid or other step costs; "
                              "rebuild them with GoalBounds.build", path=name)
        if digest is not None and digest != out.digest():
            raise FormatError("goal-bounds digest mismatch: the file is damaged or was "
                              "altered; rebuild it with GoalBounds.build", path=name)
        problem = out.problem(jps, tables, verify=verify)
        if problem is not None:
            raise FormatError(f"these goal bounds do not describe the grid they name: "
                              f"{problem} (rebuild them with GoalBounds.build)", path=name)
        index.setflags(write=False)
        boxes.setflags(write=False)
        out.verified = True
        return out

    def check(self, owner: Any, tables: JumpTables | None = None, *,
              verify: str = "auto") -> None:
        """Raise ConfigError (field ``goal_bounds``) unless these bounds hold
        against ``owner``'s grid (:meth:`problem`); then :attr:`verified` is True
        and ``index`` / ``boxes`` are read-only arrays of their own.
        :class:`~navkit.query.jps_plus.JPSPlus` calls it on bounds that
        :meth:`build` or :meth:`load` did not make."""
        problem = self.problem(owner, tables, verify=verify)
        if problem is not None:
            raise ConfigError(f"these goal bounds do not describe the grid: {problem}",
                              field="goal_bounds")
        for name in ("index", "boxes"):  # read-only arrays of their own: what was checked
            a = getattr(self, name)
            if a.flags.writeable or not a.flags.c_contiguous:
                a = a.copy()
                a.setflags(write=False)
                setattr(self, name, a)
        self.verified = True

    def problem(self, owner: Any, tables: JumpTables | None = None, *,
                verify: str = "auto") -> str | None:
        """Why these bounds cannot be searched on ``owner``'s grid (None: they can).

        Always checked (linear in the grid, vectorised): the index lists
        exactly the grid's jump points, in order; per jump point and direction
        the box is the empty box exactly when the step is illegal (corner rule);
        a box lies inside the jump point's connected component's bounding box;
        the boxes of a jump point together with it span that bounding box; each
        box holds the whole free run of its direction (the straight or diagonal
        cells that leaving in that direction reaches optimally, for the usual
        step costs ``card <= diag <= 2 card``). These make a search safe (no
        index or box can lead a kernel astray) but not exact: a box shrunk by
        a cell can pass them. Then ``verify``: ``"full"`` reruns every jump
        point's Dijkstra and compares its boxes (complete; as long as
        :meth:`build`); ``"auto"`` does that when jump points x free cells is
        at most :data:`VERIFY_FULL_WORK`, else as ``"sample"``, which reruns
        the Dijkstra of :data:`VERIFY_SAMPLES` jump points (fewer on large
        grids, :data:`VERIFY_CELLS`; chosen by a hash of the boxes) and
        compares their boxes (wholesale damage cannot pass; a single box
        altered by hand can, and then some paths come out longer, never
        invalid); ``"structure"`` none."""
        if verify not in ("auto", "sample", "full", "structure"):
            raise ConfigError(f"expected 'auto', 'sample', 'full' or 'structure', got "
                              f"{shown(verify)}", field="verify")
        jps = jps_of(owner)
        pg = jps.pg
        index, boxes = self.index, self.boxes
        if (not isinstance(index, np.ndarray) or not isinstance(boxes, np.ndarray)
                or index.dtype != np.int32 or index.shape != (pg.n,) or boxes.dtype != np.int16
                or boxes.ndim != 1 or len(boxes) % 32):
            return "index (int32, one per padded cell) or boxes (int16, 32 per row) misshapen"
        if pg.n >= 1 << 24:
            return f"{pg.n} padded cells: goal bounds take grids below 2**24 cells"
        if tables is None or not tables.verified or (tables.wp, tables.hp) != (pg.wp, pg.hp):
            tables = JumpTables.build(jps)
        src = jump_points(tables, jps)
        rows = len(boxes) // 32
        if rows != len(src):
            return f"{rows} rows of boxes, the grid has {len(src)} jump points"
        want = np.full(pg.n, -1, dtype=np.int32)
        want[src] = np.arange(len(src), dtype=np.int32)
        bad = np.flatnonzero(index != want)
        if len(bad):
            q = int(bad[0])
            return (f"the index row of cell ({q % pg.wp - 1}, {q // pg.wp - 1}) reads "
                    f"{int(index[q])}, expected {int(want[q])} ({len(bad)} rows differ)")
        if rows == 0:
            return None
        card, diag = int(jps.costs.card), int(jps.costs.diag)
        if self.costs != (card, diag):
            return f"step costs {self.costs}, the grid's are {(card, diag)}"
        moves = np.zeros(pg.n, dtype=np.uint8)
        _jp.legal_moves(pg.cells, int(pg.wp), moves)
        problem = _structure_problem(boxes.reshape(rows, 8, 4).astype(np.int64), src, moves,
                                     pg.cells, pg.wp, pg.hp, card, diag)
        if problem is not None or verify == "structure":
            return problem
        free = max(1, int(np.count_nonzero(pg.cells)))
        samples = max(4, min(VERIFY_SAMPLES, VERIFY_CELLS // free))
        if verify == "auto" and rows * free <= VERIFY_FULL_WORK:
            verify = "full"
        if verify == "full" or rows <= samples:
            pick = np.arange(rows, dtype=np.int64)
        else:
            seed = int.from_bytes(hashlib.sha256(boxes.tobytes()).digest()[:8], "little")
            pick = np.sort(np.random.default_rng(seed).choice(rows, samples, replace=False))
        got = _rebuild_rows(moves, pg.n, pg.wp, card, diag, src, pick)
        mine = boxes.reshape(rows, 32)[pick]
        diff = np.flatnonzero((got.reshape(len(pick), 32) != mine).any(axis=1))
        if len(diff):
            q = int(src[pick[diff[0]]])
            return (f"the boxes of jump point ({q % pg.wp - 1}, {q // pg.wp - 1}) are not "
                    f"the grid's ({len(diff)} of {len(pick)} jump points rechecked differ)")
        return None

    @property
    def nbytes(self) -> int:
        """Bytes the bounds take (index and boxes)."""
        return int(self.index.nbytes + self.boxes.nbytes)

    @property
    def jump_points(self) -> int:
        return len(self.boxes) // 32

    def matches(self, owner: Any) -> bool:
        """True when these bounds belong to ``owner``'s grid and step costs."""
        jps = jps_of(owner)
        return (self.costs == (int(jps.costs.card), int(jps.costs.diag))
                and len(self.index) == jps.pg.n and self.fingerprint == grid_fingerprint(jps.pg))

    def __repr__(self) -> str:
        return (f"GoalBounds({self.jump_points} jump points, {self.nbytes / 1e6:.1f} MB, "
                f"built in {self.build_seconds:.2f} s)")


def _digest(index: NDArray[np.int32], boxes: NDArray[np.int16], costs: tuple[int, int],
            fingerprint: str) -> str:
    h = hashlib.sha256()
    h.update(f"{BOUNDS_FORMAT}:{costs[0]}:{costs[1]}:{fingerprint}:".encode())
    h.update(np.ascontiguousarray(index, dtype="<i4").tobytes())
    h.update(np.ascontiguousarray(boxes, dtype="<i2").tobytes())
    return h.hexdigest()


def _runs(moves: NDArray[np.uint8], wp: int, hp: int, k: int) -> NDArray[np.int64]:
    """Per padded cell, how many legal steps in direction ``k`` follow each other
    from it (``(hp, wp)``; 0 where the first step is illegal): row by row (or
    column by column) against the direction."""
    dx, dz = _jp.DIRS[k]
    legal = ((moves.reshape(hp, wp) >> k) & 1).astype(np.int64)
    run = np.zeros((hp, wp), dtype=np.int64)
    if dz != 0:
        order = range(hp - 1, -1, -1) if dz > 0 else range(hp)
        for z in order:
            nz = z + dz
            if not 0 <= nz < hp:
                run[z] = 0  # (a padding row: no legal step leaves it)
                continue
            nxt = np.zeros(wp, dtype=np.int64)
            if dx > 0:
                nxt[:-1] = run[nz, 1:]
            elif dx < 0:
                nxt[1:] = run[nz, :-1]
            else:
                nxt[:] = run[nz]
            run[z] = legal[z] * (1 + nxt)
    else:
        order = range(wp - 1, -1, -1) if dx > 0 else range(wp)
        for x in order:
            nx = x + dx
            if 0 <= nx < wp:
                run[:, x] = legal[:, x] * (1 + run[:, nx])
    return run


def _structure_problem(b: NDArray[np.int64], src: NDArray[np.int64], moves: NDArray[np.uint8],
                       cells: NDArray[np.uint8], wp: int, hp: int, card: int, diag: int
                       ) -> str | None:
    """The checks of :meth:`GoalBounds.problem` that need no Dijkstra, on the
    boxes ``b`` (``(rows, 8, 4)``: x0, z0, x1, z1 per direction) of the jump
    points ``src`` (padded nodes)."""
    from .._kernels.hpa import label_components

    x0, z0, x1, z1 = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    px, pz = src % wp, src // wp
    legal = ((moves[src][:, None] >> np.arange(8)) & 1).astype(bool)
    empty = (x0 == _EMPTY[0]) & (z0 == _EMPTY[1]) & (x1 == _EMPTY[2]) & (z1 == _EMPTY[3])
    reasons: list[tuple[NDArray[np.bool_], str]] = [
        (legal & empty, "is empty, but the step is legal"),
        (~legal & ~empty, "is not empty, but the step is illegal"),
    ]
    # the connected component (4-connected: the corner rule) of each jump point
    labels = np.zeros(len(cells), dtype=np.int32)  # (HPA*'s types: one compiled kernel)
    count = int(label_components(cells, np.int64(wp), labels,
                                 np.zeros(len(cells), dtype=np.int32)))
    free = np.flatnonzero(labels)
    lab = labels[free]
    cx0 = np.full(count + 1, wp, dtype=np.int64)
    cz0 = np.full(count + 1, hp, dtype=np.int64)
    cx1 = np.full(count + 1, -1, dtype=np.int64)
    cz1 = np.full(count + 1, -1, dtype=np.int64)
    np.minimum.at(cx0, lab, free % wp)
    np.minimum.at(cz0, lab, free // wp)
    np.maximum.at(cx1, lab, free % wp)
    np.maximum.at(cz1, lab, free // wp)
    ls = labels[src]
    ax0, az0, ax1, az1 = (c[ls][:, None] for c in (cx0, cz0, cx1, cz1))
    reasons.append((legal & ((x0 > x1) | (z0 > z1) | (x0 < ax0) | (z0 < az0) | (x1 > ax1)
                             | (z1 > az1)), "is not a box inside the jump point's component"))
    big = np.int64(1) << 40
    ux0 = np.minimum(np.where(legal, x0, big).min(axis=1), px)
    uz0 = np.minimum(np.where(legal, z0, big).min(axis=1), pz)
    ux1 = np.maximum(np.where(legal, x1, -big).max(axis=1), px)
    uz1 = np.maximum(np.where(legal, z1, -big).max(axis=1), pz)
    span = ((ux0 != ax0[:, 0]) | (uz0 != az0[:, 0]) | (ux1 != ax1[:, 0]) | (uz1 != az1[:, 0]))
    reasons.append((span[:, None] & legal, "and its siblings do not span the component"))
    ray = np.zeros_like(legal)
    for k in range(8):
        if (k < 4 and card > diag) or (k >= 4 and diag > 2 * card):
            continue  # the run is not an optimal path under these costs
        dx, dz = _jp.DIRS[k]
        r = _runs(moves, wp, hp, k).ravel()[src]
        for t in (np.ones_like(r), r):  # the run's first cell and its last
            qx, qz = px + t * dx, pz + t * dz
            ray[:, k] |= legal[:, k] & ((qx < x0[:, k]) | (qx > x1[:, k]) | (qz < z0[:, k])
                                        | (qz > z1[:, k]))
    reasons.append((ray, "misses a cell of its direction's free run"))
    for mask, why in reasons:
        hit = np.argwhere(mask)
        if len(hit):
            i, k = (int(v) for v in hit[0])
            q = int(src[i])
            return (f"the box of direction {k} of jump point ({q % wp - 1}, {q // wp - 1}) "
                    f"{why} ({len(hit)} boxes)")
    return None


def _rebuild_rows(moves: NDArray[np.uint8], n: int, wp: int, card: int, diag: int,
                  src: NDArray[np.int64], pick: NDArray[np.int64]) -> NDArray[np.int16]:
    """The boxes :meth:`GoalBounds.build` gives the jump points ``src[pick]``."""
    sources = np.ascontiguousarray(src[pick], dtype=np.int64)
    out = np.zeros(32 * len(sources), dtype=np.int16)
    ring = 1 << int(n).bit_length()
    _jp.build_goal_bounds(moves, int(wp), card, diag, sources, out, np.zeros(n, dtype=np.int64),
                          np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.uint8),
                          np.zeros(ring, dtype=np.int64), np.zeros(ring, dtype=np.int64))
    return out
