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

import os
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import jps_plus as _jp
from ..errors import ConfigError, FormatError
from .fanout import fan_out, max_threads
from .jps_plus import JumpTables, grid_fingerprint, jps_of

__all__ = ["GoalBounds", "jump_points", "BOUNDS_FORMAT", "PROGRESS_STEP"]

#: The ``format`` field of a saved goal-bounds file.
BOUNDS_FORMAT = "navkit-goal-bounds/1"
#: Jump points per :meth:`GoalBounds.build` progress report (a kernel call each).
PROGRESS_STEP = 64


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
        return cls(index, boxes, grid_fingerprint(pg),
                   (int(jps.costs.card), int(jps.costs.diag)), dt)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the bounds to ``path`` (``.npz``, compressed) with the grid's
        fingerprint and the step costs they were built for."""
        np.savez_compressed(path, format=np.array(BOUNDS_FORMAT), index=self.index,
                            boxes=self.boxes, costs=np.array(self.costs, dtype=np.int64),
                            fingerprint=np.array(self.fingerprint))

    @classmethod
    def load(cls, path: str | os.PathLike[str], owner: Any) -> GoalBounds:
        """Read bounds saved by :meth:`save` for ``owner`` (a Pathfinder). Raises
        FormatError naming the file when it is not such a file, is damaged, or
        belongs to another grid or other step costs."""
        from ..formats.arrays import read_npz_members

        name = str(path)
        f = read_npz_members(path, ("format", "index", "boxes", "costs", "fingerprint"),
                             "goal-bounds file")
        try:
            fmt, fp = str(f["format"]), str(f["fingerprint"])
            index = np.ascontiguousarray(f["index"])
            boxes = np.ascontiguousarray(f["boxes"])
            costs = tuple(int(v) for v in f["costs"])
        except (TypeError, ValueError) as e:
            raise FormatError(f"not a goal-bounds file ({e})", path=name) from None
        if fmt != BOUNDS_FORMAT:
            raise FormatError(f"goal-bounds format {fmt!r}, expected {BOUNDS_FORMAT!r}",
                              path=name)
        jps = jps_of(owner)
        if (index.dtype != np.int32 or index.shape != (jps.pg.n,) or boxes.dtype != np.int16
                or boxes.ndim != 1 or len(boxes) % 32 or len(costs) != 2):
            raise FormatError(f"goal bounds of shapes {index.shape} {index.dtype} and "
                              f"{boxes.shape} {boxes.dtype} do not fit this grid", path=name)
        rows = len(boxes) // 32
        used = index[index >= 0]
        if (index < -1).any() or len(used) != rows or not np.array_equal(
                np.sort(used), np.arange(rows, dtype=np.int32)):
            raise FormatError("goal-bounds index is damaged (rows out of range or repeated)",
                              path=name)
        out = cls(index, boxes, fp, (costs[0], costs[1]))
        if not out.matches(jps):
            raise FormatError("these goal bounds belong to another grid or other step costs; "
                              "rebuild them with GoalBounds.build", path=name)
        index.setflags(write=False)
        boxes.setflags(write=False)
        return out

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
