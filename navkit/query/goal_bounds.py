"""Goal bounding for JPS+ (Rabin 2015, stored at jump points only as in Hu et al., JAIR 2021).

Per jump point and direction, the bounding box of every cell that some
optimal path from the jump point reaches leaving in that direction; JPS+
(:class:`navkit.query.jps_plus.JPSPlus` with ``goal_bounds=``) skips a
direction whose box does not hold the goal. Answers stay exact (A*'s cost);
searches expand fewer jump points.

The build runs one Dijkstra per jump point (the cells with a forced side
cell, the only nodes a search expands besides its start), so it costs time
in proportion to ``jump points x free cells``: seconds on small maps,
minutes on 512x512 game maps, far more on 1024x1024 city maps (see
docs/jps-plus.md). Memory: 4 bytes per cell plus 64 per jump point.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import jps_plus as _jp
from ..errors import ConfigError
from .jps_plus import JumpTables, grid_fingerprint, jps_of

__all__ = ["GoalBounds", "jump_points"]


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
              max_jump_points: int | None = None) -> GoalBounds:
        """One Dijkstra per jump point (see the module docstring). Raises
        ConfigError when the grid has more than ``max_jump_points`` of them
        (a guard against builds of hours)."""
        jps = jps_of(owner)
        if tables is None:
            tables = JumpTables.build(jps)
        pg = jps.pg
        src = jump_points(tables, jps)
        if max_jump_points is not None and len(src) > max_jump_points:
            raise ConfigError(f"{len(src)} jump points, more than max_jump_points="
                              f"{max_jump_points}: goal bounding would take too long here",
                              field="max_jump_points")
        t0 = time.perf_counter()
        n = pg.n
        boxes = np.zeros(32 * len(src), dtype=np.int16)
        hf = np.zeros(8 * n + 8, dtype=np.int64)
        hk = np.zeros(8 * n + 8, dtype=np.int64)
        _jp.build_goal_bounds(pg.cells, int(pg.wp), int(jps.costs.card), int(jps.costs.diag),
                              src, boxes, np.zeros(n, dtype=np.int64),
                              np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.uint8), hf, hk)
        index = np.full(n, -1, dtype=np.int32)
        index[src] = np.arange(len(src), dtype=np.int32)
        dt = time.perf_counter() - t0
        index.setflags(write=False)
        boxes.setflags(write=False)
        return cls(index, boxes, grid_fingerprint(pg),
                   (int(jps.costs.card), int(jps.costs.diag)), dt)

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
