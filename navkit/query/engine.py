"""The grid engine: everything a grid's queries run on, without the facade.

:class:`GridEngine` owns one grid's parts, each one job (docs/architecture.md):
the padded grid and its index maths (:mod:`~navkit.query.padded`), occupants
and per-query obstacles (:mod:`~navkit.query.overlay`), the workspace
(:mod:`~navkit.query.workspace`), string pulling (:mod:`~navkit.query.smoothing`),
A* (:mod:`~navkit.query.astar`), JPS (:mod:`~navkit.query.jps`) and JPS+
(:mod:`~navkit.query.jps_plus`) behind the cell-query choice
(:mod:`~navkit.query.cells`), world queries (:mod:`~navkit.query.world`),
batches (:mod:`~navkit.query.batch`), run-time cell edits
(:mod:`~navkit.query.edits`) and the contract's point queries
(:mod:`~navkit.query.points`).

:class:`~navkit.query.pathfinder.Pathfinder` is the facade users call: it
checks arguments and answers through ``pf.engine``. Sibling query objects that
share a grid's parts (``NavMap``, ``HPAStar``, ``FlowField``, ``World``'s
whole-grid queries, JPS+ tables) take the engine.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from ..costs import CostModel
from ..grid import NavGrid
from ..results import PathBuffer, PathResult
from .astar import AStar
from .batch import Batches
from .cells import Algorithm, CellQueries
from .edits import CellEditor, EditListener
from .jps import JPS, PathBuffers
from .jps_plus import JumpTables
from .options import SearchOptions, check_greedy_keys
from .overlay import Occupancy, Overlay
from .padded import PaddedGrid
from .points import GridPoints
from .smoothing import StringPull
from .workspace import Workspace
from .world import WorldQueries

__all__ = ["GridEngine"]


class GridEngine:
    """One grid's query parts, built once (see the module docstring).

    Parameters
    ----------
    grid : NavGrid
    costs : CostModel
    options : SearchOptions
        Diagonal mode, heuristic and greedy weight, checked
        (:func:`~navkit.query.options.search_options`).
    connectivity : 8 or 4
    budget : int
        The default node-expansion budget (checked).
    snap_radius : float
        Metres within which world queries snap (checked).

    Attributes: ``lock`` (held by every query and edit), ``costs``, ``options``,
    ``connectivity``, ``budget``, ``snap_radius`` and the parts ``padded``,
    ``occupancy``, ``overlay``, ``jps_bufs``, ``workspace``, ``smoother``,
    ``astar``, ``jps``, ``cells``, ``world``, ``batches``, ``edits``, ``points``.
    """

    def __init__(self, grid: NavGrid, costs: CostModel, options: SearchOptions,
                 connectivity: int, budget: int, snap_radius: float):
        #: Held by every query and edit (re-entrant; see :mod:`navkit.query.serial`).
        self.lock = threading.RLock()
        self.costs = costs
        self.options = opts = options
        self.connectivity = connectivity
        self.budget = budget
        self.snap_radius = snap_radius
        #: A cell query's hot path writes here (under the lock), then copies out.
        self.cells_buffer = PathBuffer(256)
        eight = connectivity == 8
        pg = self.padded = PaddedGrid(grid)
        pg.check_costs(costs)
        pg.check_keys(costs)
        check_greedy_keys(pg, costs, opts.hw)
        # move masks on first A* use: below, a grid JPS answers packs JPS's rows instead
        self.occupancy = Occupancy(pg, eight, opts.dmode, lazy_moves=True)
        self.overlay = Overlay(pg)
        self.jps_bufs = PathBuffers()
        self.workspace = Workspace(pg.n, heap_extra=JPS.heap_room(pg))
        smooth = self.smoother = StringPull(pg, costs, self.occupancy, self.overlay,
                                            self.workspace.smooth)
        self.astar = AStar(pg, costs, eight, self.occupancy, self.overlay, self.workspace,
                           smooth, opts)
        self.jps = JPS(pg, costs, eight, self.occupancy, self.overlay, self.workspace, smooth,
                       self.astar, self.jps_bufs)
        self.cells = CellQueries(pg, self.astar, self.jps)
        if eight and not (opts.corner_rule and opts.plain):
            self.without_jps()
        if self.jps.usable:
            self.jps.bits()  # what "auto" queries read (numba loads now, not at a first query)
        else:
            self.occupancy.ensure_moves()  # what the level-queue A* reads
        self.world = WorldQueries(pg, self.occupancy, self.overlay, self.astar, self.jps,
                                  self.cells, snap_radius)
        self.batches = Batches(pg, self.astar, self.jps, self.cells)
        #: Run-time cell edits and per-query obstacle options (:mod:`navkit.query.edits`).
        self.edits = CellEditor(self)
        #: The contract's point queries (place, is_walkable, raycast, nearest_point).
        self.points = GridPoints(pg, self.occupancy, self.overlay, self.world, opts.diagonal,
                                 self.edits)
        # a cell edit updates the JPS+ tables, those of precompute() and those a first
        # "jps+" query builds alike (stale tables would cut through new walls)
        self.on_edit(self.cells.grid_edited)

    def without_jps(self) -> None:
        """JPS assumes the corner rule and its own octile search: with another
        diagonal mode, heuristic or a greedy weight ``"auto"`` runs A* and
        ``"jps"`` / ``"jps+"`` raise QueryError (docs/rules.md §3.9; the check is
        :meth:`CellQueries.resolve`)."""
        self.jps.usable = False

    @property
    def grid(self) -> NavGrid:
        """The map as the engine sees it (edits applied; see ``Pathfinder.grid``)."""
        return self.edits.grid()

    @property
    def version(self) -> int:
        """Cell edits that changed at least one cell."""
        return self.edits.version

    def on_edit(self, listener: EditListener) -> None:
        """Call ``listener(xs, zs)`` (int64 cell arrays) after every edit that changed cells."""
        self.edits.on_edit(listener)

    # ------------------------------------------------------------- queries
    def plain_engine(self, algorithm: str) -> Any:
        """The search a query without obstacles or window runs for ``algorithm``,
        :meth:`CellQueries.resolve`'s answer without its checks: :attr:`astar`,
        :attr:`jps`, the installed JPS+ engine, or None where the general route
        must answer (Dijkstra, JPS+ tables not built yet, a bad name or a
        refused JPS: :meth:`~navkit.query.cells.CellQueries.query` raises)."""
        if algorithm == "astar":
            return self.astar
        if algorithm == "auto" or algorithm == "jps" or algorithm == "jps+":
            if self.jps.usable:
                if algorithm == "jps" or (algorithm == "auto" and not self.cells.auto_jps_plus):
                    return self.jps
                return self.cells.jps_plus
            if algorithm == "auto":
                return self.astar
        return None

    def cells_query(self, s: tuple[int, int], g: tuple[int, int], smooth: bool, nearest: bool,
                    b: int, window: Sequence[int] | None, algorithm: Algorithm,
                    obstacles: Any) -> PathResult:
        """A cell query on checked cells ``s``, ``g`` with a checked budget ``b``,
        under the lock (``Pathfinder.find_path_cells``' general route)."""
        if obstacles is None:
            self.overlay.set(None)
            eng = None if window is not None else self.plain_engine(algorithm)
            if eng is self.astar:
                return eng.cell_query(s, g, smooth=smooth, nearest=nearest, budget=b,
                                      window=None, hmul=self.padded.wmin)
            if eng is not None:
                return eng.cell_query(s, g, smooth=smooth, nearest=nearest, budget=b)
            return self.cells.query(s, g, smooth=smooth, nearest=nearest, budget=b,
                                    window=window, algorithm=algorithm)
        with self.overlay.using(obstacles):
            return self.cells.query(s, g, smooth=smooth, nearest=nearest, budget=b,
                                    window=window, algorithm=algorithm)

    def occupant_rows(self) -> list[list[float]]:
        """Live occupants as ``[x, z, radius]`` lists, in handle order (for corpora)."""
        occ = self.occupancy.occupants
        return [[float(v) for v in occ[h]] for h in sorted(occ)]

    # ------------------------------------------------------------- JPS+
    def precompute(self, *, goal_bounds: bool = False,
                   tables: str | os.PathLike[str] | None = None,
                   bounds: str | os.PathLike[str] | None = None) -> JumpTables:
        """Build (or load) JPS+ tables and goal bounds and install them
        (``Pathfinder.precompute`` documents the options)."""
        from .goal_bounds import GoalBounds
        from .jps_plus import JPSPlus, prefer_jps_plus

        with self.lock:
            self.cells.resolve("jps+")  # a clear error where JPS+ does not apply
            t = JumpTables.load(tables, self) if tables is not None else JumpTables.build(self)
            if bounds is not None:
                gb: GoalBounds | None = GoalBounds.load(bounds, self, tables=t)
            else:
                gb = GoalBounds.build(self, t) if goal_bounds else None
            self.cells.set_jps_plus(JPSPlus(self, t, gb), auto=prefer_jps_plus(t, self))
            return t
