"""Path queries on a :class:`~navkit.grid.NavGrid`: A*, JPS, Dijkstra, distance fields, batches.

Quick start::

    >>> import numpy as np, navkit
    >>> walk = np.ones((5, 5), dtype=bool); walk[1:4, 2] = False
    >>> pf = navkit.Pathfinder(navkit.NavGrid(walk), costs="exact")
    >>> r = pf.find_path_cells((0, 2), (4, 2))
    >>> r.status.name, round(r.cost, 6)
    ('FOUND', 6.828428)
    >>> r.cells.tolist()
    [[0, 2], [1, 1], [1, 0], [2, 0], [3, 0], [4, 1], [4, 2]]

Rules (docs/rules.md §3): 8-connected moves, no corner cutting (a diagonal
step needs both side cells free), integer step costs from a
:class:`~navkit.costs.CostModel` multiplied by the terrain weight of the cell
entered, octile heuristic on the same integers scaled by the smallest weight.
The queue pops the smallest ``f``, then the larger ``g``, then the lower
linear cell index, so every run on every machine expands the same nodes.
``algorithm="jps"`` runs Jump Point Search under the same rules (A*'s cost,
far fewer nodes; uniform-cost 8-connected grids), ``"auto"`` picks it where
it applies: see ``docs/jps.md``.

:class:`Pathfinder` is a facade over the pieces of this package, each one
job: the padded grid and its index maths (:mod:`~navkit.query.padded`),
obstacles (:mod:`~navkit.query.overlay`), the workspace
(:mod:`~navkit.query.workspace`), A* (:mod:`~navkit.query.astar`), JPS
(:mod:`~navkit.query.jps`), smoothing (:mod:`~navkit.query.smoothing`),
world queries (:mod:`~navkit.query.world`) and batches
(:mod:`~navkit.query.batch`). A query allocates nothing grid-sized: it reuses
the workspace, so threads sharing one Pathfinder take turns under its lock
(:mod:`~navkit.query.serial`); for parallel queries use one per thread, or
:meth:`Pathfinder.find_paths_cells`, which runs queries on all cores.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any, Literal

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..contract import (
    Place,
    RaycastHit,
    check_agent,
    check_radius,
    deprecated_name,
    goal_of,
    world_pairs,
)
from ..costs import CostModel, cost_model
from ..errors import ConfigError, QueryError, shown
from ..grid import NavGrid
from ..recording import as_recorder, options_dict, recorded
from ..results import (
    BatchResult,
    PathBuffer,
    PathResult,
    SearchTrace,
    Status,
    explained,
    path_result,
    started,
)
from .cells import ALGORITHMS, Algorithm
from .edits import EditListener, ObstacleSnapshot
from .engine import GridEngine
from .fanout import max_threads
from .jps_plus import JumpTables
from .options import DiagonalMode, Heuristic, search_options
from .overlay import as_circles
from .padded import as_array, check_budget, world_point
from .serial import serialized
from .workspace import Workspace
from .world import FIRST_WAYPOINT_TRIM, SNAP_RADIUS

__all__ = ["Pathfinder", "Workspace", "SNAP_RADIUS", "FIRST_WAYPOINT_TRIM",
           "ALGORITHMS", "Algorithm", "CostName", "Costs", "as_circles", "default_threads"]

#: The engine's parts a Pathfinder still answers for under their old names (DeprecationWarning).
_ENGINE_PARTS = frozenset({"padded", "occupancy", "overlay", "jps_bufs", "workspace", "smoother",
                           "astar", "jps", "cells", "world", "batches", "edits", "points"})

#: Named step costs (docs/rules.md §3): ``"seed"`` 10/14, ``"exact"`` 1_000_000/1_414_214.
CostName = Literal["seed", "exact"]
#: The ``costs`` argument: a name, a ``(card, diag)`` integer pair or a CostModel.
Costs = CostName | CostModel | tuple[int, int]


class Pathfinder:
    """Exact, deterministic path queries on one grid.

    Parameters
    ----------
    grid : NavGrid or numpy array
        The map. Its arrays are read once (copied); :meth:`set_walkable` and
        :meth:`set_weights` edit this object's copy in place (:attr:`grid`
        then returns the edited map, :attr:`version` counts the edits). An
        array is a whole map (docs/rules.md §1.6): a bool one is a walkability
        mask, ``NavGrid(array)``; a numeric one is a tcod-style cost array
        (0 = wall, a positive number the cost of entering the cell),
        :meth:`NavGrid.from_costs`, whose reported costs are in ``1 /
        grid.meta["weight_resolution"]`` steps (100 for a float array). For
        tile ids use :meth:`NavGrid.from_tiles`.
    costs : "seed", "exact", (card, diag) or CostModel
        ``"seed"`` is 10/14; ``"exact"`` is 1_000_000/1_414_214 and
        reproduces Moving AI optimal lengths (docs/rules.md §3).
    connectivity : 8 or 4
        Eight-connected with the corner rule, or four-connected (default 8,
        or 4 with ``diagonal="never"``).
    diagonal : "only_if_no_obstacles", "at_least_one_walkable", "always", "never"
        Godot's diagonal modes: which side cells a diagonal step needs free
        (both, one, none; ``"never"``: 4-connected). Default: the corner rule.
    heuristic : "octile", "euclidean", "chebyshev", "manhattan"
        A*'s heuristic (default octile); ``"manhattan"`` overestimates with
        diagonal moves, so paths may be longer than optimal (docs/options.md).
    weight : float
        Greedy factor on the heuristic (>= 1): paths cost at most
        ``weight`` times the optimum, often with far fewer expansions.
    budget : int or None
        Default node-expansion budget per query (None: unlimited).
    snap_radius : float
        Metres within which world queries snap start and end to a walkable
        cell (docs/rules.md §4: 8 m).
    record : QueryRecorder, path or text file, optional
        Log every ``find_path_cells`` / ``find_path`` / ``find_path_to_nearest``
        query to a corpus (:mod:`navkit.corpus`, docs/corpora.md); a path
        makes a recorder this object owns (``pf.record.close()`` when done).
    precompute : bool or path
        ``True``: build the JPS+ jump tables now (:meth:`precompute`); a path:
        load the tables :meth:`save_tables` (or ``navkit precompute``) wrote
        for this grid. QueryError where JPS+ does not apply.

    The queries run on :attr:`engine` (:class:`~navkit.query.engine.GridEngine`),
    whose parts sibling query objects share: ``engine.padded``
    (:class:`~navkit.query.padded.PaddedGrid`), ``occupancy``, ``overlay``,
    ``workspace``, ``astar``, ``jps``, ``cells``, ``world``, ``batches``, ``edits``
    (:class:`~navkit.query.edits.CellEditor`: run-time cell edits, docs/edits.md).

    Thread safety: one object may be shared by threads; its queries and edits take
    turns under its ``lock`` (:mod:`navkit.query.serial`). For parallel queries give
    each thread its own object, or use ``find_paths_cells`` (all cores).
    """

    def __init__(
        self,
        grid: NavGrid | NDArray[Any],
        costs: Costs = "seed",
        *,
        connectivity: int | None = None,
        budget: int | None = None,
        snap_radius: float = SNAP_RADIUS,
        record: Any = None,
        diagonal: DiagonalMode | None = None,
        heuristic: Heuristic | None = None,
        weight: float = 1.0,
        precompute: bool | str | os.PathLike[str] = False,
    ):
        if isinstance(grid, np.ndarray):
            grid = NavGrid.from_costs(grid)
        if not isinstance(grid, NavGrid):
            raise QueryError("grid: expected a NavGrid or a 2-D numpy array (bool: a walkability "
                             "mask; numbers: a cost array, 0 = wall), got "
                             f"{type(grid).__name__}")
        if connectivity is None:
            connectivity = 4 if diagonal == "never" else 8
        elif connectivity == 8 and diagonal == "never" and not isinstance(connectivity, bool):
            raise ConfigError("connectivity=8 contradicts diagonal='never' (4-connected); "
                              "pass one of them", field="diagonal")
        try:  # (a huge int overflows float)
            finite = math.isfinite(snap_radius) if isinstance(snap_radius, (int, float)) else False
        except OverflowError:
            finite = False
        if isinstance(snap_radius, bool) or not finite or snap_radius < 0:
            raise ConfigError(f"expected a finite number >= 0, got {shown(snap_radius)}",
                              field="snap_radius")
        #: The grid engine this facade answers through (:mod:`navkit.query.engine`): the
        #: padded grid, occupants, overlay, searches, world queries, batches, cell edits.
        cm = cost_model(costs)
        eng = self.engine = GridEngine(
            grid, cm, search_options(connectivity, diagonal, heuristic, weight, cm),
            connectivity, check_budget(budget), float(snap_radius))
        #: Held by every query and edit (re-entrant; see :mod:`navkit.query.serial`).
        self.lock = eng.lock
        self.costs = eng.costs
        #: Diagonal mode, heuristic and greedy weight, checked (docs/rules.md §3.9).
        self.options = eng.options
        self.connectivity = connectivity
        self.budget = eng.budget
        self.snap_radius = eng.snap_radius
        # the parts the queries below call, bound once (an attribute each, no lookups
        # through the engine on the hot paths)
        self._padded = eng.padded
        self._overlay = eng.overlay
        self._astar = eng.astar
        self._jps = eng.jps
        self._cells = eng.cells
        self._world = eng.world
        self._edits = eng.edits
        self._cells_buf = eng.cells_buffer
        if precompute is not False:
            if precompute is True:
                self.precompute()
            elif isinstance(precompute, (str, os.PathLike)):
                self.precompute(tables=precompute)
            else:
                raise ConfigError(f"expected True, False or a tables file, got {precompute!r}",
                                  field="precompute")
        #: The :class:`~navkit.corpus.QueryRecorder` every query is logged to, or None.
        self.record: Any = None
        if record is not None:
            self.record = as_recorder(record, grid, costs=self.costs,
                                      connectivity=connectivity)

    @property
    def grid(self) -> NavGrid:
        """The map as this Pathfinder sees it: the NavGrid it was built on, or
        after an edit a new NavGrid of the edited cells (made on first access
        after each edit, O(grid); the same object until the next edit)."""
        return self._edits.grid()

    @property
    def version(self) -> int:
        """Edits (:meth:`set_walkable`, :meth:`set_weights`) that changed at
        least one cell; caches keyed on it never return a path of an older map."""
        return self._edits.version

    def _budget(self, budget: int | None) -> int:
        return self.budget if budget is None else check_budget(budget)

    # --------------------------------------------------------------- queries
    def find_path_cells(
        self,
        start: ArrayLike,
        goal: ArrayLike,
        *,
        smooth: bool = False,
        nearest: bool = False,
        budget: int | None = None,
        window: Sequence[int] | None = None,
        algorithm: Algorithm = "auto",
        obstacles: ArrayLike | None = None,
        blocked_cells: ArrayLike | None = None,
        ignore: Any = None,
        agent: Any = None,
    ) -> PathResult:
        """Shortest path between two cells ``(x, z)``; no snapping.

        ``status`` is NO_START / NO_GOAL when an endpoint cell is blocked.
        With ``nearest=True`` an unreachable (or blocked) goal gives the path
        to the reachable cell closest to it (docs/rules.md §6), status
        NEAREST. ``algorithm`` is ``"astar"``, ``"dijkstra"`` (same answer,
        no heuristic), ``"jps"`` (Jump Point Search: same cost, far fewer
        nodes, uniform-cost 8-connected grids only; ``budget`` then counts
        jump points, and a ``window`` query runs A*), ``"jps+"`` or
        ``"auto"``, the default (see :meth:`resolve_algorithm`). Default
        policy, the same for cell, world and batch queries: ``"auto"``, which
        runs JPS on an unweighted 8-connected grid and A* otherwise, so the
        cost is always A*'s; pass ``algorithm="astar"`` for A*'s own cells,
        expansion counts and :meth:`last_search` trace. ``waypoints``
        are the cell centres of the (smoothed) path. ``obstacles``: world
        circles ``(k, 3)`` = ``(x, z, radius)`` blocking the cells whose
        centres they cover, for this query only (docs/rules.md §7), or an
        :class:`~navkit.query.edits.ObstacleSnapshot` (:meth:`snapshot`).
        ``blocked_cells``: cells ``(k, 2)`` blocked for this query only.
        ``ignore``: obstacle ids (snapshot ids, or row indices of
        ``obstacles``) this query skips (docs/rules.md §7.6).

        >>> import numpy as np
        >>> pf = Pathfinder(NavGrid(np.ones((3, 4), bool)))
        >>> pf.find_path_cells((0, 0), (3, 2)).cost
        3.8
        """
        if agent is not None:
            check_agent(agent, self._padded.grid.agent_radius, "this Pathfinder's grid")
        if blocked_cells is not None or ignore is not None:
            with self.lock:
                obstacles = self._edits.merge(obstacles, blocked_cells, ignore)
        if self.record is not None:
            return self._recorded_cells(start, goal, smooth, nearest, budget, window,
                                        algorithm, obstacles)
        pg = self._padded
        s, g, sn, gn = pg.cell_pair(start, goal)
        b = self.budget if budget is None else check_budget(budget)
        lock = self.lock  # (inline, not @serialized; acquire / release: half a with's cost)
        lock.acquire()
        try:
            if obstacles is None and window is None:  # the hot path
                eng = self.engine.plain_engine(algorithm)
                if eng is not None:
                    ov = self._overlay
                    if ov.mark or ov.circles is not None:
                        ov.set(None)
                    if eng is self._astar:
                        if not smooth and not nearest:  # A*'s hot path: find_path_into's
                            buf = self._cells_buf  # route (path and cells in one kernel)
                            n = eng.path_into(s, g, sn, gn, b, pg.wmin, buf)  # into its own
                            if n:  # buffer, then copied out (PathBuffer.take, inline)
                                return path_result(buf.status, buf.buffer_cells[:n].copy(),
                                                   None, buf.cost_int, self.costs.card,
                                                   buf.expanded, buf.generated, s, g,
                                                   pg.grid.floor_y, pg.geo)
                            return buf.take(s, g, pg.grid.floor_y, pg.geo, self.costs.card)
                        return eng.node_query(s, g, sn, gn, smooth=smooth, nearest=nearest,
                                              budget=b, window=None, hmul=pg.wmin)
                    return eng.node_query(s, g, sn, gn, smooth=smooth, nearest=nearest, budget=b)
            return self.engine.cells_query(s, g, smooth, nearest, b, window, algorithm, obstacles)
        finally:
            lock.release()

    def find_cost(self, start: ArrayLike, goal: ArrayLike, *, algorithm: Algorithm = "auto",
                  budget: int | None = None) -> int:
        """The integer cost of the shortest path between cells ``(x, z)``, -1 without one.

        For hot loops: ``find_path_cells(start, goal, algorithm=algorithm,
        budget=budget).cost_int`` (the same checks, errors and answers, the
        Pathfinder's occupants included), without building a
        :class:`~navkit.results.PathResult`, tracing or copying the path (the
        search alone runs). Divide by ``costs.card`` for cardinal-step units. With a
        recorder (``record=``) it is logged as that ``find_path_cells`` query.

        >>> import numpy as np
        >>> pf = Pathfinder(NavGrid(np.ones((3, 4), bool)))
        >>> pf.find_cost((0, 0), (3, 2)), pf.find_path_cells((0, 0), (3, 2)).cost_int
        (38, 38)
        """
        if self.record is not None:
            return self.find_path_cells(start, goal, algorithm=algorithm, budget=budget).cost_int
        pg = self._padded
        s, g, sn, gn = pg.cell_pair(start, goal)
        b = self.budget if budget is None else check_budget(budget)
        lock = self.lock
        lock.acquire()  # (a with-block costs 0.07 us more per call)
        try:
            self._overlay.set(None)
            eng = self.engine.plain_engine(algorithm)
            if eng is self._astar:
                return eng.cost_query(s, g, sn, gn, b, pg.wmin)
            if eng is not None:
                return eng.cost_query(s, g, sn, gn, b)
            resolved = self._cells.resolve(algorithm)  # raises for a bad name
            if resolved == "jps+":  # tables built on first use, as find_path_cells does
                return self._cells.query(s, g, smooth=False, nearest=False, budget=b,
                                        window=None, algorithm=resolved).cost_int
            return self._astar.cost_query(s, g, sn, gn, b,
                                         0 if resolved == "dijkstra" else pg.wmin)
        finally:
            lock.release()

    def find_path_into(self, start: ArrayLike, goal: ArrayLike, out: PathBuffer, *,
                       algorithm: Algorithm = "auto", budget: int | None = None) -> int:
        """:meth:`find_path_cells` for hot loops: the same path (cells, cost,
        status and counts, the Pathfinder's occupants included) written into
        ``out``, a :class:`~navkit.results.PathBuffer` reused across calls, instead
        of a new :class:`~navkit.results.PathResult`; returns the path's length
        in cells (0: no path; ``out.status`` says why).

        No smoothing, no find-path-to-nearest, no window and no per-query
        obstacles (use :meth:`find_path_cells` for those); a budget run out
        gives no path. ``out.cells`` / ``out.waypoints`` are views of the
        buffer that the next call overwrites. With a recorder (``record=``) it
        is logged as that ``find_path_cells`` query.

        >>> import numpy as np
        >>> from navkit.results import PathBuffer
        >>> pf = Pathfinder(NavGrid(np.ones((3, 4), bool)))
        >>> buf = PathBuffer()
        >>> pf.find_path_into((0, 0), (3, 2), buf), buf.cost_int, buf.status.name
        (4, 38, 'FOUND')
        """
        if type(out) is not PathBuffer:
            raise QueryError(f"out must be a navkit.PathBuffer, got {type(out).__name__}")
        if self.record is not None:
            return out.load(self.find_path_cells(start, goal, algorithm=algorithm,
                                                 budget=budget), self.costs.card)
        pg = self._padded
        s, g, sn, gn = pg.cell_pair(start, goal)
        b = self.budget if budget is None else check_budget(budget)
        lock = self.lock
        lock.acquire()  # (a with-block costs 0.07 us more per call)
        try:
            ov = self._overlay
            if ov.mark or ov.circles is not None:
                ov.set(None)
            eng = self.engine.plain_engine(algorithm)
            if eng is self._astar:
                return eng.path_into(s, g, sn, gn, b, pg.wmin, out)
            if eng is not None:
                return eng.path_into(s, g, sn, gn, b, out)
            resolved = self._cells.resolve(algorithm)  # raises for a bad name
            if resolved == "dijkstra":
                return self._astar.path_into(s, g, sn, gn, b, 0, out)
            # "jps+" before its tables exist: built by this first query
            return out.load(self._cells.query(s, g, smooth=False, nearest=False, budget=b,
                                             window=None, algorithm=resolved), self.costs.card)
        finally:
            lock.release()

    def resolve_algorithm(self, algorithm: str) -> str:
        """The algorithm a query with ``algorithm`` runs: ``"auto"`` becomes
        ``"jps"`` on an unweighted 8-connected grid and ``"astar"`` otherwise.

        Raises QueryError for an unknown name, and for ``"jps"`` on a weighted
        or 4-connected grid (JPS never ignores weights silently).
        """
        return self._cells.resolve(algorithm)

    def find_path(
        self,
        start: ArrayLike,
        goal: ArrayLike | None = None,
        *,
        smooth: bool = True,
        nearest: bool = False,
        budget: int | None = None,
        window: Sequence[int] | None = None,
        obstacles: ArrayLike | None = None,
        algorithm: Algorithm = "auto",
        blocked_cells: ArrayLike | None = None,
        ignore: Any = None,
        agent: Any = None,
        **old: Any,
    ) -> PathResult:
        """Path between two world points ``(x, z)`` (or ``(x, y, z)``), in metres.

        ``agent``: an :class:`~navkit.contract.Agent` (or a radius) whose radius must
        be the grid's ``agent_radius`` (the navigation contract; ``end=`` is the
        old name of ``goal``). Start and end snap to walkable cells within ``snap_radius``
        (docs/rules.md §4); the path is string-pulled (``smooth``, §5); the
        first waypoint is dropped when within ``0.75 * cell_size`` of
        ``start``; the last waypoint is the exact ``end`` when ``end``'s own
        cell is the end cell. With ``nearest=True`` this is
        find-path-to-nearest: one search with the obstacles, never retried
        without them (§6). ``obstacles`` are world circles ``(k, 3)`` as in
        :meth:`find_path_cells`; snapping avoids them too, so an occupied
        destination resolves to a nearby free cell. ``algorithm`` is as in
        :meth:`find_path_cells`, but defaults to ``"auto"``: Jump Point Search
        on an unweighted 8-connected grid (the same cost as A*, though the
        string-pulled waypoints may follow another optimal path; ``budget``
        then counts jump points), A* otherwise; pass ``algorithm="astar"``
        for A*'s own path. An end outside the grid is always searched with A*.
        ``blocked_cells`` and ``ignore`` are as in :meth:`find_path_cells`;
        with an :meth:`snapshot` and ``ignore`` the one-call JPS query frees
        only the ignored circles' cells instead of restamping the others.
        """
        if old or goal is None:
            goal = goal_of(goal, old, "find_path")
        if agent is not None:
            check_agent(agent, self._padded.grid.agent_radius, "this Pathfinder's grid")
        if blocked_cells is not None or ignore is not None or self.record is not None:
            return self._world_query("find_path", start, goal, smooth, nearest, budget, window,
                                     obstacles, algorithm, blocked_cells, ignore)
        b = self.budget if budget is None else check_budget(budget)
        sw, ew = world_point(start, "start"), world_point(goal, "goal")
        with self.lock:
            res = self._world.query(sw, ew, smooth, nearest, b, window, obstacles, algorithm)
        if len(res.cells):
            res.__dict__["_start"] = sw  # (results.started, inline)
        elif res.status >= Status.NO_START:
            self.explain(res, sw, ew)
        return res

    def find_path_to_nearest(
        self,
        start: ArrayLike,
        goal: ArrayLike | None = None,
        *,
        smooth: bool = True,
        budget: int | None = None,
        window: Sequence[int] | None = None,
        obstacles: ArrayLike | None = None,
        algorithm: Algorithm = "auto",
        blocked_cells: ArrayLike | None = None,
        ignore: Any = None,
        agent: Any = None,
        **old: Any,
    ) -> PathResult:
        """:meth:`find_path` with ``nearest=True`` (docs/rules.md §6)."""
        if old or goal is None:
            goal = goal_of(goal, old, "find_path_to_nearest")
        if agent is not None:
            check_agent(agent, self._padded.grid.agent_radius, "this Pathfinder's grid")
        if blocked_cells is not None or ignore is not None or self.record is not None:
            return self._world_query("find_path_to_nearest", start, goal, smooth, True, budget,
                                     window, obstacles, algorithm, blocked_cells, ignore)
        b = self.budget if budget is None else check_budget(budget)
        sw, ew = world_point(start, "start"), world_point(goal, "goal")
        with self.lock:
            res = self._world.query(sw, ew, smooth, True, b, window, obstacles, algorithm)
        if len(res.cells):
            res.__dict__["_start"] = sw  # (results.started, inline)
        elif res.status >= Status.NO_START:
            self.explain(res, sw, ew)
        return res

    def _world_query(self, kind: str, start: ArrayLike, end: ArrayLike, smooth: bool,
                     nearest: bool, budget: int | None, window: Sequence[int] | None,
                     obstacles: Any, algorithm: Algorithm, blocked_cells: Any,
                     ignore: Any) -> PathResult:
        """A world query with ``blocked_cells`` / ``ignore`` or a recorder (``kind``:
        the name a recorder logs); the plain ones run inline in :meth:`find_path`."""
        if blocked_cells is not None or ignore is not None:
            return self._finished(self._edited_world(
                kind, start, end, smooth, nearest, budget, window, obstacles, algorithm,
                blocked_cells, ignore), start, end)
        return self._finished(self._recorded_world(
            kind, start, end, smooth, nearest, budget, window, obstacles, algorithm),
            start, end)

    def _finished(self, res: PathResult, start: ArrayLike, goal: ArrayLike) -> PathResult:
        """A world answer of the edited or recorded route, with its start and reason."""
        sw = world_point(start, "start")
        return self.explain(started(res, sw), sw, world_point(goal, "goal"))

    def explain(self, res: PathResult, start: tuple[float, float],
                goal: tuple[float, float]) -> PathResult:
        """``res`` with the :attr:`~navkit.results.NavResult.reason` of a ``NO_START`` /
        ``NO_GOAL`` answer of a world query from ``start`` to ``goal``."""
        if res.status not in (Status.NO_START, Status.NO_GOAL):
            return res
        g = self._padded.grid
        bounds = (g.min_x, g.min_z, g.min_x + g.width * g.cell_size,
                  g.min_z + g.depth * g.cell_size)
        if res.status == Status.NO_START:
            return explained(res, "start", start, bounds, self.snap_radius)
        return explained(res, "goal", goal, bounds, self.snap_radius)

    def _edited_world(self, kind: str, start: ArrayLike, end: ArrayLike, smooth: bool,
                      nearest: bool, budget: int | None, window: Sequence[int] | None,
                      obstacles: Any, algorithm: Algorithm, blocked_cells: Any,
                      ignore: Any) -> PathResult:
        """A world query with ``blocked_cells`` or ``ignore`` (see :meth:`find_path`)."""
        b = self.budget if budget is None else check_budget(budget)
        sw, ew = world_point(start, "start"), world_point(end, "goal")
        with self.lock:
            if (self.record is None and blocked_cells is None and window is None
                    and isinstance(obstacles, ObstacleSnapshot)
                    and self._cells.resolve(algorithm) == "jps"):
                res = self._edits.fused_ignore(sw, ew, smooth, nearest, b, obstacles, ignore)
                if res is not None:
                    return res
            circles = self._edits.merge(obstacles, blocked_cells, ignore)
            if self.record is not None:
                return self._recorded_world(kind, sw, ew, smooth, nearest, budget, window,
                                            circles, algorithm)
            return self._world.query(sw, ew, smooth, nearest, b, window, circles, algorithm)

    # ------------------------------------------------------------ run-time edits
    @serialized
    def set_walkable(self, cells: ArrayLike, value: Any) -> int:
        """Make cells walkable (``value`` True) or blocked (False), in place.

        ``cells``: ``(k, 2)`` integer cells ``(x, z)`` or a bool mask of shape
        ``(depth, width)`` (its True cells are edited); ``value``: one bool or
        one per cell (for a mask also an array of the mask's shape). Updates the
        effective cells, move masks and JPS rows around the edit only (docs/edits.md);
        returns how many cells changed (:attr:`version` increments when any did).
        Every later query answers as a new ``Pathfinder(pf.grid)`` would.
        """
        return self._edits.set_walkable(cells, value)

    @serialized
    def set_weights(self, region: Any, values: Any) -> int:
        """Set terrain weights (ints in ``[1, 65535]``), in place.

        ``region``: an inclusive box ``(x0, z0, x1, z1)`` (``values`` a scalar or
        an array of the box's shape ``[z, x]``), or ``(k, 2)`` cells / a bool
        mask (``values`` a scalar or one per cell). A weight other than 1 on an
        unweighted grid makes it weighted once (an ``(n,)`` int32 array; A*
        from then on, JPS no longer applies). Returns how many cells changed.
        """
        return self._edits.set_weights(region, values)

    def precompute(self, *, goal_bounds: bool = False,
                   tables: str | os.PathLike[str] | None = None,
                   bounds: str | os.PathLike[str] | None = None) -> JumpTables:
        """Build (or load from ``tables``, a file :meth:`save_tables` wrote) the
        offline jump tables of JPS+ (docs/jps-plus.md) and optionally goal bounds
        (``goal_bounds=True`` builds them, ``bounds=`` loads a file
        :meth:`save_bounds` wrote);
        ``algorithm="jps+"`` then uses them, and ``"auto"`` picks JPS+ where it wins
        (maps whose jump-point density is at most
        :data:`~navkit.query.jps_plus.AUTO_MAX_DENSITY`: game and city maps, not
        mazes or random fields). Same answers as ``"jps"``. Cell edits
        (:meth:`set_walkable`) update the tables where they change
        (docs/jps-plus.md, "Cell edits") and drop the goal bounds; terrain
        weights drop both (JPS no longer applies).

        >>> import numpy as np
        >>> pf = Pathfinder(NavGrid(np.ones((8, 8), bool)))
        >>> t = pf.precompute()
        >>> pf.find_path_cells((0, 0), (7, 5), algorithm="jps+").cost
        9.0
        """
        return self.engine.precompute(goal_bounds=goal_bounds, tables=tables, bounds=bounds)

    def save_bounds(self, path: str | os.PathLike[str]) -> None:
        """Write the goal bounds :meth:`precompute` built (``.npz``, with the grid's
        fingerprint and step costs; ``precompute(bounds=...)`` reads them back)."""
        jp = self._cells.jps_plus
        if jp is None or jp.goal_bounds is None:
            raise QueryError("no goal bounds: call precompute(goal_bounds=True) first")
        jp.goal_bounds.save(path)

    def save_tables(self, path: str | os.PathLike[str]) -> None:
        """Write the JPS+ tables :meth:`precompute` made (``.npz``, with the grid's
        fingerprint: :meth:`precompute` ``tables=`` refuses them for another grid)."""
        jp = self._cells.jps_plus
        if jp is None:
            raise QueryError("no JPS+ tables: call precompute() first")
        jp.tables.save(path)

    def on_edit(self, listener: EditListener) -> None:
        """Call ``listener(xs, zs)`` (int64 cell arrays) after every edit that changed cells."""
        self._edits.on_edit(listener)

    def snapshot(self, circles: ArrayLike, ids: ArrayLike | None = None) -> ObstacleSnapshot:
        """A tick's obstacle circles ``(k, 3)`` with an id each (default: row
        index) for many queries with ``ignore=`` (docs/rules.md §7.6)."""
        return ObstacleSnapshot(circles, ids)

    # ------------------------------------------------------------- recording
    def _recorded_cells(self, start: ArrayLike, goal: ArrayLike, smooth: bool, nearest: bool,
                        budget: int | None, window: Sequence[int] | None, algorithm: Algorithm,
                        obstacles: ArrayLike | None) -> PathResult:
        """:meth:`find_path_cells`, timed and logged to :attr:`record`."""
        pg = self._padded
        s = pg.cell_arg(start, "start")
        g = pg.cell_arg(goal, "goal")
        b = self.budget if budget is None else check_budget(budget)
        return recorded(
            self.record, "find_path_cells",
            lambda: self.engine.cells_query(s, g, smooth, nearest, b, window, algorithm, obstacles),
            start=s, goal=g, obstacles=obstacles, lock=self.lock,
            options=lambda: self._options(algorithm, smooth, nearest, b, window, world=False))

    def _recorded_world(self, kind: str, start: ArrayLike, end: ArrayLike, smooth: bool,
                        nearest: bool, budget: int | None, window: Sequence[int] | None,
                        obstacles: ArrayLike | None, algorithm: Algorithm) -> PathResult:
        """:meth:`find_path` / :meth:`find_path_to_nearest`, timed and logged."""
        b = self.budget if budget is None else check_budget(budget)
        sw, ew = world_point(start, "start"), world_point(end, "goal")
        return recorded(
            self.record, kind,
            lambda: self._world.query(sw, ew, smooth, nearest, b, window, obstacles, algorithm),
            start=sw, goal=ew, obstacles=obstacles, lock=self.lock,
            options=lambda: self._options(algorithm, smooth, nearest, b, window, world=True))

    def _options(self, algorithm: str, smooth: bool, nearest: bool, budget: int,
                 window: Any, *, world: bool) -> dict[str, Any]:
        """A corpus line's options for a query on this grid (its occupants live now)."""
        return options_dict(self.costs, self.connectivity, algorithm=algorithm, smooth=smooth,
                            nearest=nearest, budget=budget, window=window,
                            snap_radius=self.snap_radius if world else None,
                            occupants=self.occupant_rows())

    def occupant_rows(self) -> list[list[float]]:
        """Live occupants as ``[x, z, radius]`` lists, in handle order (for corpora)."""
        return self.engine.occupant_rows()

    @serialized
    def snap(self, point: ArrayLike, *,
             obstacles: ArrayLike | None = None) -> tuple[int, int] | None:
        """The walkable cell for a world point: its own cell, or the nearest
        walkable cell within ``snap_radius`` metres (square rings; nearest by
        squared cell distance, ties to the lower linear index; docs/rules.md
        §4.1), avoiding ``obstacles`` (world circles) when given."""
        wx, wz = world_point(point, "point")
        with self._overlay.using(obstacles):
            return self._world.snap(wx, wz)

    # ------------------------------------------------- the contract's points
    @property
    def cell_size(self) -> float:
        """The grid's cell size, metres."""
        return float(self._padded.grid.cell_size)

    @property
    def agent_radius(self) -> float:
        """The agent radius, metres, the grid was built for (``NavGrid.agent_radius``)."""
        return float(self._padded.grid.agent_radius)

    #: The scene's ``navigationMode`` for a simulation on this backend.
    navigation_mode = "grid"

    @serialized
    def place(self, point: ArrayLike, *, obstacles: ArrayLike | None = None,
              agent: Any = None) -> Place | None:
        """Where a world query from ``point`` starts (the navigation contract): its
        snap cell (docs/rules.md §4.1, avoiding ``obstacles``), the point itself when
        it lies in that cell (else the cell's centre) and the cell's region
        (docs/rules.md §15.2), or None when nothing walkable lies within the snap radius.

        >>> import numpy as np
        >>> pf = Pathfinder(NavGrid(np.ones((3, 4), bool)))
        >>> p = pf.place((1.2, 0.7)); p.cell, p.point, p.region
        ((1, 0), (1.2, 0.7), 0)
        """
        if agent is not None:
            check_agent(agent, self._padded.grid.agent_radius, "this Pathfinder's grid")
        p = world_point(point, "point")
        with self._overlay.using(obstacles):
            return self.engine.points.place(p)

    @serialized
    def is_walkable(self, point: ArrayLike, *, agent: Any = None) -> bool:
        """True when world point ``point`` lies on a walkable cell (occupants block)."""
        if agent is not None:
            check_agent(agent, self._padded.grid.agent_radius, "this Pathfinder's grid")
        p = world_point(point, "point")
        self._overlay.set(None)
        return self.engine.points.is_walkable(p)

    @serialized
    def raycast(self, a: ArrayLike, b: ArrayLike, *, agent: Any = None) -> RaycastHit:
        """Walk the segment ``a -> b`` (world metres) over the walkable cells: the
        first blocked cell it enters stops it (docs/rules.md §15.5). ``a`` must lie
        on a walkable cell (QueryError otherwise).

        >>> import numpy as np
        >>> walk = np.ones((1, 5), bool); walk[0, 3] = False
        >>> hit = Pathfinder(NavGrid(walk)).raycast((0.5, 0.5), (4.5, 0.5))
        >>> hit.hit, hit.fraction, hit.point, hit.cell
        (True, 0.625, (3.0, 0.5), (2, 0))
        """
        if agent is not None:
            check_agent(agent, self._padded.grid.agent_radius, "this Pathfinder's grid")
        pa, pb = world_point(a, "a"), world_point(b, "b")
        self._overlay.set(None)
        return self.engine.points.raycast(pa, pb)

    @serialized
    def nearest_point(self, point: ArrayLike, radius: float | None = None, *,
                      agent: Any = None) -> tuple[float, float] | None:
        """``point`` when its cell is walkable, else the centre of the walkable cell
        it snaps to within ``radius`` metres (default: :attr:`snap_radius`; the
        rings and order of docs/rules.md §4.1), or None."""
        if agent is not None:
            check_agent(agent, self._padded.grid.agent_radius, "this Pathfinder's grid")
        p = world_point(point, "point")
        r = self.snap_radius if radius is None else check_radius(radius)
        self._overlay.set(None)
        return self.engine.points.nearest_point(p, r)

    def find_paths(self, starts: ArrayLike, goals: ArrayLike, *, nearest: bool = False,
                   budget: int | None = None, algorithm: Algorithm = "auto",
                   obstacles: ArrayLike | None = None, smooth: bool = True,
                   agent: Any = None) -> list[PathResult]:
        """:meth:`find_path` for each pair of world points ``starts[i] -> goals[i]``
        (``(n, 2)`` or ``(n, 3)`` metres), in order, one after another under the lock.
        For many cell queries on all cores use :meth:`find_paths_cells`."""
        if agent is not None:
            check_agent(agent, self._padded.grid.agent_radius, "this Pathfinder's grid")
        s, g = world_pairs(starts, goals)
        return [self.find_path(s[i], g[i], nearest=nearest, budget=budget,
                               algorithm=algorithm, obstacles=obstacles, smooth=smooth)
                for i in range(len(s))]

    # ------------------------------------------------------------- geometry
    @serialized
    def line_of_sight(self, a: ArrayLike, b: ArrayLike) -> bool:
        """True when the straight segment between two cell centres crosses only
        walkable cells and squeezes through no blocked corner (docs/rules.md §5)."""
        pg = self._padded
        ca = pg.cell_arg(a, "a")
        cb = pg.cell_arg(b, "b")
        return self.engine.smoother.line_of_sight(pg.node(*ca), pg.node(*cb))

    @serialized
    def smooth_cells(self, cells: ArrayLike) -> NDArray[np.int32]:
        """String-pull a cell path (docs/rules.md §5); returns the kept cells, shape (k, 2).

        On weighted terrain ``cells`` should be a chain of neighbours (a
        search's path): a shortcut is kept only when it costs no more than
        the steps it replaces."""
        pg = self._padded
        nodes = pg.nodes(pg.cells_arg(cells, "cells")).astype(np.int32)
        pulled = self.engine.smoother.pull(nodes, np.empty(len(nodes), dtype=np.int32))
        return pg.nodes_to_cells(pulled)

    # --------------------------------------------------------------- fields
    @serialized
    def distance_field(
        self, sources: ArrayLike, *, out: NDArray[np.float64] | None = None,
        obstacles: ArrayLike | None = None
    ) -> NDArray[np.float64]:
        """Cost from the nearest of ``sources`` (cells, shape (k, 2)) to every cell.

        Returns a float64 ``(depth, width)`` array in cardinal-step units,
        ``inf`` where unreachable. Moves are those of A* (the cost of a step is
        charged by the cell entered, walking away from the sources).
        """
        raw = self.distance_field_int(sources, obstacles=obstacles)
        if out is None:
            out = np.empty(self._padded.grid.shape, dtype=np.float64)
        elif (not isinstance(out, np.ndarray) or out.shape != self._padded.grid.shape
              or out.dtype != np.float64 or not out.flags.writeable):
            raise QueryError(f"out must be a writeable float64 array of shape "
                             f"{self._padded.grid.shape}, "
                             f"got {getattr(out, 'dtype', type(out).__name__)} "
                             f"{getattr(out, 'shape', '')}")
        np.divide(raw, self.costs.card, out=out)
        out[raw < 0] = np.inf
        return out

    @serialized
    def distance_field_int(self, sources: ArrayLike, *,
                           obstacles: ArrayLike | None = None) -> NDArray[np.int64]:
        """Like :meth:`distance_field` but the kernel's integer costs, -1 where unreachable."""
        pg = self._padded
        src = as_array(sources, "sources")
        if src.ndim == 1:
            src = src.reshape(1, -1)
        if src.ndim != 2 or src.shape[1] != 2 or len(src) == 0:
            raise QueryError("sources must be a non-empty (k, 2) array of cells, "
                             f"got shape {src.shape}")
        nodes = np.array([pg.node(*pg.cell_arg(c, f"sources[{i}]")) for i, c in enumerate(src)],
                         dtype=np.int64)
        with self._overlay.using(obstacles):
            dist = self._astar.distance_field(nodes)
        return pg.unpad(dist)

    # ---------------------------------------------------------------- batch
    @serialized
    def find_paths_cells(
        self,
        starts: ArrayLike,
        goals: ArrayLike,
        *,
        return_paths: bool = False,
        budget: int | None = None,
        threads: int | None = None,
        obstacles: ArrayLike | None = None,
        algorithm: Algorithm = "auto",
        agent: Any = None,
    ) -> BatchResult:
        """Answer ``starts[i] -> goals[i]`` (cells, shape (n, 2)) on all cores.

        Answers (cost, status, expansions, paths) are identical to
        :meth:`find_path_cells` with the same ``algorithm`` for each pair
        (``"astar"``, ``"dijkstra"``, ``"jps"``, ``"jps+"`` or ``"auto"``,
        the default as for every query: JPS on an unweighted 8-connected
        grid, else A*, so costs are A*'s either way; JPS paths are the full
        cell chains). ``threads`` defaults to numba's thread count.
        """
        if agent is not None:
            check_agent(agent, self._padded.grid.agent_radius, "this Pathfinder's grid")
        resolved = self.resolve_algorithm(algorithm)
        pg = self._padded
        with self._overlay.using(obstacles):
            s = pg.cells_arg(starts, "starts")
            g = pg.cells_arg(goals, "goals")
            if len(s) != len(g):
                raise QueryError("starts and goals must have the same length, "
                                 f"got {len(s)} and {len(g)}")
            if threads is None:
                nthreads = numba.get_num_threads()
            elif (isinstance(threads, (int, np.integer)) and not isinstance(threads, bool)
                  and threads >= 1):
                nthreads = int(threads)
            else:
                raise QueryError(f"threads must be a positive int or None, got {threads!r}")
            nthreads = min(nthreads, max(1, len(s)), max_threads())
            return self.engine.batches.run(pg.nodes(s), pg.nodes(g), return_paths=return_paths,
                                    budget=self._budget(budget), nthreads=nthreads,
                                    algorithm=resolved)

    def find_paths_batch(self, starts: ArrayLike, goals: ArrayLike, *,
                         return_paths: bool = False, budget: int | None = None,
                         threads: int | None = None, obstacles: ArrayLike | None = None,
                         algorithm: Algorithm = "auto", agent: Any = None) -> BatchResult:
        """The old name of :meth:`find_paths_cells` (DeprecationWarning; goes in navkit 0.3)."""
        deprecated_name("Pathfinder.find_paths_batch", "Pathfinder.find_paths_cells")
        return self.find_paths_cells(starts, goals, return_paths=return_paths, budget=budget,
                                     threads=threads, obstacles=obstacles,
                                     algorithm=algorithm, agent=agent)

    # ---------------------------------------------------- dynamic obstacles
    @serialized
    def add_occupant(self, x: float, z: float, radius: float) -> int:
        """Block the cells whose centres lie within ``radius`` metres of ``(x, z)``
        until :meth:`remove_occupant`; returns a handle. Occupants may overlap:
        each cell keeps a counter, so removing one never frees a cell another
        still covers. The grid itself is never modified."""
        return self.engine.occupancy.add(x, z, radius)

    @serialized
    def remove_occupant(self, handle: int) -> None:
        """Undo :meth:`add_occupant`. Unknown handles raise QueryError."""
        self.engine.occupancy.remove(handle)

    @property
    def occupants(self) -> dict[int, tuple[float, float, float]]:
        """Live occupants: handle -> (x, z, radius)."""
        return self.engine.occupancy.occupants

    # --------------------------------------------------------- inspection
    @property
    def search_generation(self) -> int:
        """How many A* / Dijkstra searches this Pathfinder's workspace has run
        (modulo the counter's wrap-around). Read it before a query and pass it
        to :meth:`last_search` as ``since``."""
        return int(self.engine.workspace.gens[0])

    @serialized
    def last_search(self, since: int | None = None) -> SearchTrace | None:
        """The cells the last A* / Dijkstra search closed, with their costs.

        None when no search ran yet, or none since generation ``since`` (a
        query answered without one: a blocked start, or JPS, whose jump
        points live elsewhere). For the viewer's heat map and for debugging.
        """
        ws = self.engine.workspace
        gen = int(ws.gens[0])
        if gen == 0 or (since is not None and gen == since):
            return None
        nodes = ws.closed_nodes()
        return SearchTrace(gen, self._padded.nodes_to_cells(nodes), ws.g[nodes].copy())

    def __getattr__(self, name: str) -> Any:
        """The engine's parts under their old names (``pf.padded`` is
        ``pf.engine.padded``), with a DeprecationWarning; they go in navkit 0.3."""
        if name in _ENGINE_PARTS and "engine" in self.__dict__:
            deprecated_name(f"Pathfinder.{name}", f"Pathfinder.engine.{name}")
            return getattr(self.__dict__["engine"], name)
        raise AttributeError(f"'Pathfinder' object has no attribute {name!r}")

    def __repr__(self) -> str:
        o = self.options
        extra = "" if o.diagonal in ("only_if_no_obstacles", "never") else \
            f", diagonal={o.diagonal!r}"
        if o.heuristic != "octile":
            extra += f", heuristic={o.heuristic!r}"
        if o.weight != 1.0:
            extra += f", weight={o.weight:g}"
        return (f"Pathfinder({self._padded.grid!r}, costs={self.costs.name}, "
                f"connectivity={self.connectivity}{extra})")


def default_threads() -> int:
    """Threads numba will use (``NUMBA_NUM_THREADS`` or the core count)."""
    return int(os.environ.get("NUMBA_NUM_THREADS", numba.config.NUMBA_NUM_THREADS))
