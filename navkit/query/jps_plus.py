"""JPS+ queries: Jump Point Search on offline jump tables (docs/jps-plus.md).

:class:`JumpTables` holds, per cell and direction, the distance to the next
jump point or wall of a :class:`~navkit.Pathfinder`'s static grid (built by
:func:`navkit._kernels.jps_plus.build_tables`; saved and loaded as ``.npz``
with a fingerprint of the grid). :class:`JPSPlus` answers cell queries on
them with the online JPS's search, so its answers are ``"jps"``'s (and so
A*'s costs). While a query has obstacle circles, or occupants stand on the
grid, the tables do not describe the cells the search must see: those
queries run online JPS.

>>> import numpy as np, navkit
>>> walk = np.ones((8, 8), dtype=bool); walk[2:6, 4] = False
>>> pf = navkit.Pathfinder(navkit.NavGrid(walk))
>>> jp = JPSPlus(pf)
>>> r = jp.cell_query((0, 3), (7, 3), smooth=False, nearest=False, budget=10**9)
>>> r.cost_int == pf.find_path_cells((0, 3), (7, 3)).cost_int
True
"""

from __future__ import annotations

import hashlib
import os
import time
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._kernels import jps_plus as _jp
from .._kernels.layouts import JpsOutArgs
from .._kernels.search import ST_COST, ST_EXPANDED, ST_GENERATED, ST_STATUS
from ..errors import ConfigError, FormatError, QueryError
from ..results import PathBuffer, PathResult, Status, path_result
from .fastcall import entry_point
from .jps import JPS
from .padded import PaddedGrid

__all__ = ["JumpTables", "JPSPlus", "grid_fingerprint", "jump_point_density", "prefer_jps_plus",
           "table_problem", "TABLES_FORMAT", "AUTO_MAX_DENSITY"]

#: Format tag stored in saved tables (bumped when the layout changes).
TABLES_FORMAT = "navkit-jps-plus-1"
#: ``"auto"`` prefers JPS+ on grids with at most this many jump points per free
#: cell (docs/jps-plus.md: game and city maps 0.02-0.21, where JPS+ wins; random
#: and maze maps 0.35-1.0, where the two run about even: no reason to pay for tables).
AUTO_MAX_DENSITY = 0.25
_FOUND = int(Status.FOUND)


def jps_of(owner: Any) -> JPS:
    """The :class:`~navkit.query.jps.JPS` of a Pathfinder, of its engine, or a JPS itself."""
    if isinstance(owner, JPS):
        return owner
    jps = getattr(getattr(owner, "engine", owner), "jps", None)
    if not isinstance(jps, JPS):
        raise ConfigError("JPS+ tables need a navkit.Pathfinder (or its JPS object), "
                          f"got {type(owner).__name__}", field="pathfinder")
    return jps


def grid_fingerprint(pg: PaddedGrid) -> str:
    """SHA-256 (hex) of a padded grid's size and static walkable cells: what
    tables belong to (occupants and obstacles do not change it)."""
    h = hashlib.sha256()
    h.update(f"{TABLES_FORMAT}:{pg.wp}x{pg.hp}:".encode())
    h.update(np.ascontiguousarray(pg.cells, dtype=np.uint8).tobytes())
    return h.hexdigest()


def tables_usable(jps: JPS) -> str | None:
    """Why JPS+ cannot run on this JPS's grid (``None`` when it can)."""
    if not jps.usable:
        return ("JPS+ needs what JPS needs: a uniform-cost, 8-connected grid whose "
                "queue keys fit 64 bits (use algorithm='astar')")
    if max(jps.pg.wp, jps.pg.hp) > _jp.MAX_SIDE:
        return f"JPS+ tables hold grids up to {_jp.MAX_SIDE - 2} cells a side; use algorithm='jps'"
    return None


def table_problem(tab: NDArray[np.int16], pg: PaddedGrid) -> str | None:
    """Why ``tab`` (int16, ``8 * n``) is not the JPS+ table of ``pg``'s static
    cells (``None`` when it is, entry for entry): a build compared with it.
    Only tables that pass may reach a kernel, which reads them without bounds
    checks (a jump of a wrong length lands outside the grid)."""
    want = np.zeros(8 * pg.n, dtype=np.int16)
    _jp.build_tables(pg.cells, np.int64(pg.wp), np.int64(pg.hp), want)
    diff = np.flatnonzero(tab != want)
    if len(diff) == 0:
        return None
    i = int(diff[0])
    q, k = divmod(i, 8)
    return (f"{len(diff)} of {len(want)} entries differ; the first, direction {k} of cell "
            f"({q % pg.wp - 1}, {q // pg.wp - 1}), reads {int(tab[i])} where the grid gives "
            f"{int(want[i])}")


class JumpTables:
    """Per cell and direction, the distance to the next jump point or wall.

    ``tab``: int16, ``(8 * n,)`` over the padded nodes (layout:
    :mod:`navkit._kernels.jps_plus`); ``wp`` x ``hp`` the padded size;
    :attr:`fingerprint` that of the grid (:func:`grid_fingerprint`);
    ``build_seconds`` the build's wall time (0.0 for loaded tables);
    ``update_seconds`` the last :meth:`update`'s (0.0 before one).
    """

    #: An edit box with more cells than this share of the grid rebuilds the
    #: tables instead of updating them (docs/jps-plus.md, "Cell edits").
    REBUILD_SHARE = 1 / 16

    def __init__(self, tab: NDArray[np.int16], wp: int, hp: int, fingerprint: str | None,
                 build_seconds: float = 0.0):
        self.tab = tab
        self.wp = int(wp)
        self.hp = int(hp)
        self._fingerprint = fingerprint
        self._source: PaddedGrid | None = None  # the grid updates follow (its fingerprint)
        self.build_seconds = float(build_seconds)
        self.update_seconds = 0.0
        #: Cell edits these tables followed (:meth:`update`) and of those, rebuilds.
        self.updates = 0
        self.rebuilds = 0
        self._scratch: tuple[Any, ...] = ()
        #: True once the tables are known to be :meth:`build`'s for their grid
        #: (built, loaded, or passed :meth:`check`); :class:`JPSPlus` checks the others.
        self.verified = False

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the grid the tables describe (after an :meth:`update`, computed on
        first use: O(grid))."""
        if self._fingerprint is None:
            assert self._source is not None
            self._fingerprint = grid_fingerprint(self._source)
        return self._fingerprint

    def copy(self) -> JumpTables:
        """Tables of the same grid in arrays of their own (what an edit updates
        when the tables were handed to a :class:`JPSPlus`)."""
        t = JumpTables(self.tab.copy(), self.wp, self.hp, self.fingerprint, self.build_seconds)
        t.tab.setflags(write=False)
        t.verified = self.verified
        return t

    def update(self, owner: Any, xs: ArrayLike, zs: ArrayLike) -> int:
        """Follow an edit of the cells ``(xs, zs)`` (grid coordinates) of the
        grid of ``owner`` (a Pathfinder, whose static cells already hold the
        edit): only the entries the edit can change are recomputed
        (:func:`navkit._kernels.jps_plus.update_tables`; a box wider than
        :attr:`REBUILD_SHARE` of the grid rebuilds). Afterwards the tables are,
        entry for entry, :meth:`build`'s of the edited grid. Returns the number
        of entries that changed (``8 * n`` for a rebuild)."""
        pg = jps_of(owner).pg
        if (pg.wp, pg.hp) != (self.wp, self.hp):
            raise ConfigError(f"these JPS+ tables are for a {self.wp - 2}x{self.hp - 2} grid, "
                              f"not {pg.width}x{pg.depth}", field="owner")
        xs = np.asarray(xs, dtype=np.int64).ravel()
        zs = np.asarray(zs, dtype=np.int64).ravel()
        if len(xs) != len(zs):
            raise QueryError(f"xs and zs must have the same length, got {len(xs)} and {len(zs)}")
        if len(xs) == 0:
            return 0
        x0, x1 = int(xs.min()) + 1, int(xs.max()) + 1  # padded
        z0, z1 = int(zs.min()) + 1, int(zs.max()) + 1
        if x0 < 1 or z0 < 1 or x1 > pg.width or z1 > pg.depth:
            raise QueryError(f"edited cells must lie in the {pg.width}x{pg.depth} grid")
        t0 = time.perf_counter()
        bw, bh = x1 - x0 + 1, z1 - z0 + 1
        tab = self.tab
        tab.setflags(write=True)
        try:
            if bw * bh > self.REBUILD_SHARE * pg.n:
                _jp.build_tables(pg.cells, np.int64(pg.wp), np.int64(pg.hp), tab)
                changed = len(tab)
                self.rebuilds += 1
            else:
                need = _jp.update_scratch_sizes(pg.wp, pg.hp, bw, bh)
                sc = self._scratch
                if not sc or any(len(a) < k for a, k in zip(sc, need, strict=True)):
                    # room for this box and any up to 8x8 (the usual game edit)
                    sc = self._scratch = _jp.update_scratch(pg.wp, pg.hp, max(bw, 8),
                                                            max(bh, 8))
                changed = int(_jp.update_tables(pg.cells, pg.wp, pg.hp, tab, x0, z0, x1, z1,
                                                sc[0], sc[1], sc[2]))
        finally:
            tab.setflags(write=False)
        self._fingerprint = None  # (the edited grid's, when asked for)
        self._source = pg
        self.updates += 1
        self.update_seconds = time.perf_counter() - t0
        return changed

    @classmethod
    def build(cls, owner: Any) -> JumpTables:
        """Build the tables of a Pathfinder's static grid (about 8 sweeps over
        the cells: milliseconds on a 1024x1024 map)."""
        jps = jps_of(owner)
        why = tables_usable(jps)
        if why is not None:
            raise QueryError(why)
        pg = jps.pg
        t0 = time.perf_counter()
        tab = np.zeros(8 * pg.n, dtype=np.int16)
        _jp.build_tables(pg.cells, np.int64(pg.wp), np.int64(pg.hp), tab)
        dt = time.perf_counter() - t0
        tab.setflags(write=False)
        out = cls(tab, pg.wp, pg.hp, grid_fingerprint(pg), dt)
        out.verified = True
        return out

    @property
    def nbytes(self) -> int:
        """Bytes the tables take (16 per padded cell)."""
        return int(self.tab.nbytes)

    def matches(self, owner: Any) -> bool:
        """True when these tables belong to the grid of ``owner`` (a Pathfinder)."""
        pg = jps_of(owner).pg
        return pg.wp == self.wp and pg.hp == self.hp and grid_fingerprint(pg) == self.fingerprint

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the tables to ``path`` (``.npz``, compressed) with their fingerprint."""
        np.savez_compressed(path, format=np.array(TABLES_FORMAT), tab=self.tab,
                            shape=np.array([self.wp, self.hp], dtype=np.int64),
                            fingerprint=np.array(self.fingerprint))

    @classmethod
    def load(cls, path: str | os.PathLike[str], owner: Any) -> JumpTables:
        """Read tables saved by :meth:`save` for the grid of ``owner`` (a
        Pathfinder). The file is read through the bounded reader (no member may
        unpack to more than the grid's tables take) and then *checked*: every
        entry must be the one :meth:`build` gives for this grid (a build costs
        milliseconds: 7 ms on den520d, 60 ms on a 1024x1024 map), so altered
        tables are refused, never searched. Raises FormatError naming the file
        when it is not such a file, belongs to another grid, or its tables do
        not describe this grid."""
        from ..formats.arrays import read_npz_members

        name = str(path)
        jps = jps_of(owner)
        why = tables_usable(jps)
        if why is not None:
            raise QueryError(why)
        pg = jps.pg
        f = read_npz_members(path, ("format", "tab", "shape", "fingerprint"), "JPS+ table file",
                             max_bytes={"format": 1024, "tab": 16 * pg.n, "shape": 64,
                                        "fingerprint": 1024})
        try:
            fmt, fp = str(f["format"]), str(f["fingerprint"])
            tab = np.ascontiguousarray(f["tab"])
            wp, hp = (int(v) for v in f["shape"])
        except (TypeError, ValueError, OverflowError) as e:
            raise FormatError(f"not a JPS+ table file ({e})", path=name) from None
        if fmt != TABLES_FORMAT:
            raise FormatError(f"JPS+ table format {fmt[:40]!r}, expected {TABLES_FORMAT!r}",
                              path=name)
        if (wp, hp) != (pg.wp, pg.hp):
            raise FormatError(f"these JPS+ tables belong to another grid ({wp - 2}x{hp - 2}, "
                              f"not {pg.width}x{pg.depth}); rebuild them with JumpTables.build",
                              path=name)
        if tab.dtype != np.int16 or tab.shape != (8 * pg.n,):
            raise FormatError(f"JPS+ table of shape {tab.shape} {tab.dtype} does not fit a "
                              f"{wp}x{hp} padded grid", path=name)
        if fp != grid_fingerprint(pg):
            raise FormatError("these JPS+ tables belong to another grid (fingerprint "
                              "mismatch); rebuild them with JumpTables.build", path=name)
        problem = table_problem(tab, pg)
        if problem is not None:
            raise FormatError(f"these JPS+ tables do not describe the grid they name: {problem} "
                              "(damaged or altered; rebuild them with JumpTables.build)",
                              path=name)
        tab.setflags(write=False)
        out = cls(tab, wp, hp, fp, 0.0)
        out.verified = True
        return out

    def check(self, owner: Any) -> None:
        """Raise ConfigError (field ``tables``) unless these tables are, entry for
        entry, :meth:`build`'s for the grid of ``owner`` (one build: milliseconds);
        then :attr:`tab` is a read-only array of their own. :class:`JPSPlus`
        calls it on tables that :meth:`build`, :meth:`load` or :meth:`update`
        did not make."""
        pg = jps_of(owner).pg
        tab = self.tab
        if (not isinstance(tab, np.ndarray) or tab.dtype != np.int16 or tab.ndim != 1
                or (self.wp, self.hp) != (pg.wp, pg.hp) or len(tab) != 8 * pg.n):
            raise ConfigError(f"these JPS+ tables (int16, 8 per padded cell) do not fit the "
                              f"{pg.width}x{pg.depth} grid", field="tables")
        problem = table_problem(tab, pg)
        if problem is not None:
            raise ConfigError(f"these JPS+ tables do not describe the grid: {problem}",
                              field="tables")
        if tab.flags.writeable or not tab.flags.c_contiguous:
            # a read-only copy of their own: the very array checked is the one searched
            # (and the one type the kernels were compiled for)
            tab = tab.copy()
            tab.setflags(write=False)
            self.tab = tab
        self.verified = True

    def __repr__(self) -> str:
        return (f"JumpTables({self.wp - 2}x{self.hp - 2}, {self.nbytes / 1e6:.1f} MB, "
                f"built in {self.build_seconds * 1e3:.1f} ms)")


def jump_point_density(tables: JumpTables, owner: Any) -> float:
    """Jump points per free cell: the share of free cells that have a forced
    side cell for some straight arrival (read off the tables; 0.0 on a grid
    without free cells)."""
    pg = jps_of(owner).pg
    tab = np.asarray(tables.tab).reshape(pg.hp, pg.wp, 8)
    free = pg.cells.reshape(pg.hp, pg.wp) != 0
    jp = np.zeros_like(free)
    # cell c is a jump point for direction k when the entry of the cell before it reads 1
    jp[:, 1:] |= tab[:, :-1, 0] == 1
    jp[:, :-1] |= tab[:, 1:, 1] == 1
    jp[1:, :] |= tab[:-1, :, 2] == 1
    jp[:-1, :] |= tab[1:, :, 3] == 1
    n = int(free.sum())
    return float((jp & free).sum() / n) if n else 0.0


def prefer_jps_plus(tables: JumpTables, owner: Any, max_density: float = AUTO_MAX_DENSITY) -> bool:
    """Whether ``"auto"`` should pick JPS+ on this grid: its jump-point density
    (:func:`jump_point_density`) is at most ``max_density``. Answers are the
    same either way; this only decides which is faster."""
    return jump_point_density(tables, owner) <= max_density


def _no_bounds() -> tuple[NDArray[np.int32], NDArray[np.int16]]:
    """The goal-bounds arguments of a search without bounds: empty and read-only,
    like real bounds, so that one compiled jps_plus serves both."""
    none_i, none_b = np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int16)
    none_i.setflags(write=False)
    none_b.setflags(write=False)
    return none_i, none_b


class JPSPlus:
    """JPS+ cell queries on a Pathfinder's jump tables (built when not given).

    Answers are those of the Pathfinder's online JPS (path, cost, status and
    counts) and so carry A*'s cost. With ``goal_bounds``
    (:class:`navkit.query.goal_bounds.GoalBounds`) the costs stay A*'s but
    fewer jump points are expanded (so counts, budgets and the chosen path
    among equally short ones may differ from JPS's). Queries with obstacle circles, and every
    query while an occupant stands on the grid, run online JPS (the tables
    describe the static grid). ``budget`` counts jump-point expansions.
    """

    def __init__(self, owner: Any, tables: JumpTables | None = None,
                 goal_bounds: Any = None):
        jps = self.jps = jps_of(owner)
        why = tables_usable(jps)
        if why is not None:
            raise QueryError(why)
        #: Whether :meth:`grid_edited` may update the tables in place (False for
        #: tables handed in: the first edit copies them, so no other holder sees it).
        self.owns_tables = tables is None
        if tables is None:
            tables = JumpTables.build(jps)
        elif not isinstance(tables, JumpTables):
            raise ConfigError(f"expected JumpTables, got {type(tables).__name__}",
                              field="tables")
        elif (tables.wp, tables.hp) != (jps.pg.wp, jps.pg.hp) or not tables.matches(jps):
            raise ConfigError("these JPS+ tables belong to another grid", field="tables")
        elif not tables.verified:  # made by hand: the kernels read them without bounds checks
            tables.check(jps)
        self.tables = tables
        #: Optional :class:`navkit.query.goal_bounds.GoalBounds` (fewer expansions, same costs).
        self.goal_bounds = goal_bounds
        if goal_bounds is not None:
            if not goal_bounds.matches(jps):
                raise ConfigError("these goal bounds belong to another grid or other step costs",
                                  field="goal_bounds")
            if not goal_bounds.verified:  # made by hand: indexed without bounds checks
                goal_bounds.check(jps, tables)
            self._gb = (goal_bounds.index, goal_bounds.boxes)
        else:
            self._gb = _no_bounds()
        pg = jps.pg
        self._wp = int(pg.wp)  # a plain int: numba dispatches it faster than np.int64
        occ = jps.occ
        self._dirty_rows = np.zeros(pg.hp, dtype=bool)
        self._dirty = int(np.count_nonzero(
            (occ.cells != pg.cells).reshape(pg.hp, pg.wp).any(axis=1, out=self._dirty_rows)))
        occ.on_change(self._occupancy_changed)
        #: Queries answered by online JPS (obstacles or occupants present).
        self.fallbacks = 0
        self._ver = -1
        self._out: tuple[Any, ...] = (None,)
        self._call: Any = None  # the search's compiled entry for the buffers in _out
        self._cost_call: Any = None  # jps_plus's (the search alone), for cost queries

    def _occupancy_changed(self, x0: int, z0: int, x1: int, z1: int) -> None:
        pg = self.jps.pg
        cur = self.jps.occ.cells.reshape(pg.hp, pg.wp)[z0:z1 + 1]
        static = pg.cells.reshape(pg.hp, pg.wp)[z0:z1 + 1]
        self._dirty_rows[z0:z1 + 1] = (cur != static).any(axis=1)
        self._dirty = int(np.count_nonzero(self._dirty_rows))

    def grid_edited(self, xs: NDArray[np.int64], zs: NDArray[np.int64]) -> None:
        """Follow a run-time edit of cells ``(xs, zs)`` of the static grid
        (:meth:`navkit.Pathfinder.set_walkable`): the tables are updated in
        place (:meth:`JumpTables.update`; a copy first, once, when they were
        handed in), goal bounds are dropped (they are not updated: call
        ``precompute(goal_bounds=True)`` again)."""
        if len(xs) == 0:
            return
        if not self.owns_tables:
            self.tables = self.tables.copy()
            self.owns_tables = True
        self.tables.update(self.jps, xs, zs)
        if self.goal_bounds is not None:
            self.goal_bounds = None
            self._gb = _no_bounds()
        # occupants over edited rows: compare those rows again
        self._occupancy_changed(int(xs.min()) + 1, int(zs.min()) + 1, int(xs.max()) + 1,
                                int(zs.max()) + 1)

    @property
    def static(self) -> bool:
        """True while no occupant changes a cell (the tables then hold)."""
        return self._dirty == 0

    def cell_query(self, s: tuple[int, int], g: tuple[int, int], *, smooth: bool, nearest: bool,
                   budget: int) -> PathResult:
        """The path between validated cells ``s`` and ``g``: as
        :meth:`navkit.query.jps.JPS.cell_query` (same arguments, same answer)."""
        pg = self.jps.pg
        return self.node_query(s, g, pg.node(*s), pg.node(*g), smooth=smooth, nearest=nearest,
                               budget=budget)

    def node_query(self, s: tuple[int, int], g: tuple[int, int], sn: int, gn: int, *,
                   smooth: bool, nearest: bool, budget: int) -> PathResult:
        """:meth:`cell_query` with the cells' padded nodes ``sn``, ``gn`` given
        (as :meth:`~navkit.query.padded.PaddedGrid.cell_pair` returns them: the hot path)."""
        jps = self.jps
        if self._dirty or jps.overlay.mark > 0:
            self.fallbacks += 1
            return jps.node_query(s, g, sn, gn, smooth=smooth, nearest=nearest, budget=budget)
        pg = jps.pg
        bufs = jps.bufs
        ws = jps.ws
        gen = jps.next_gen()  # (first: it allocates jps.nd on first use)
        out = self._out
        if self._ver != bufs.version or out[0] is not ws.path:  # a JpsOutArgs, kept between queries
            self._ver = bufs.version
            out = self._out = tuple(JpsOutArgs(ws.path, bufs.cells, bufs.pts, pg.geo))
            self._call = None
        stats = jps.astar.stats
        args = (self.tables.tab, self._gb[0], self._gb[1], pg.cells, self._wp, jps.model,
                (jps.nd, ws.hf, ws.hk, gen, jps.cand),  # a JpsWorkspaceArgs
                sn, gn, budget, bool(nearest), stats, out)
        call = self._call
        if call is None:  # the compiled search for these buffers' types (query.fastcall)
            call = self._call = entry_point(_jp.jps_plus_path, args)
        m = call(*args)
        st = stats.tolist()
        if st[ST_STATUS] == _FOUND and 0 < m <= len(bufs.cells) and not smooth:  # the common
            # case: JPS.answer's first branch, inline
            return path_result(Status.FOUND, bufs.cells[:m].copy(), None, st[ST_COST],
                               jps.costs.card, st[ST_EXPANDED], st[ST_GENERATED], s, g,
                               pg.grid.floor_y, pg.geo)
        return jps.answer(m, s, g, sn, gn, smooth=smooth, nearest=nearest, budget=budget)

    def kernel_call(self, s: tuple[int, int], g: tuple[int, int], budget: int, gen: int,
                    nearest: bool = False) -> tuple[Any, tuple[Any, ...]]:
        """``(kernel, arguments)`` of the search :meth:`cell_query` runs on a
        static grid, in generation ``gen`` (reserve it with ``JPS.next_gen``; for
        benchmarks: ``kernel(*arguments)`` is the kernel alone)."""
        jps = self.jps
        ws = jps.ws
        pg = jps.pg
        return _jp.jps_plus_path, (self.tables.tab, self._gb[0], self._gb[1], pg.cells, self._wp,
                                   jps.model, (jps.nd, ws.hf, ws.hk, gen, jps.cand),
                                   pg.node(*s), pg.node(*g), budget, nearest, jps.astar.stats,
                                   jps.out_args())

    def table_args(self) -> tuple[Any, ...]:
        """The tables' kernel arguments ``(tab, gbi, gb, cells, wp)`` (the first five
        of :func:`navkit._kernels.jps_plus.jps_plus`; for batches)."""
        return (self.tables.tab, self._gb[0], self._gb[1], self.jps.pg.cells, self._wp)

    def search(self, sn: int, gn: int, budget: int, gen: int, out: tuple[Any, ...]) -> int:
        """One search on the tables, padded node ``sn`` -> ``gn``, its path written
        through ``out`` (a JpsOutArgs: ``jps.out_args()`` or ``jps.into_args(buf)``);
        returns the path length (the status is in ``jps.astar.stats``). The
        caller checks :attr:`static` first."""
        jps = self.jps
        ws = jps.ws
        args = (self.tables.tab, self._gb[0], self._gb[1], jps.pg.cells, self._wp, jps.model,
                (jps.nd, ws.hf, ws.hk, gen, jps.cand), sn, gn, budget, False, jps.astar.stats,
                out)
        call = self._call
        if call is None:  # (the same types whichever buffers ``out`` holds)
            call = self._call = entry_point(_jp.jps_plus_path, args)
        return int(call(*args))

    def cost_query(self, s: tuple[int, int], g: tuple[int, int], sn: int, gn: int,
                   budget: int) -> int:
        """``cell_query(s, g, smooth=False, nearest=False, budget=budget).cost_int``
        without a :class:`~navkit.results.PathResult` (-1: no path); ``sn``, ``gn``:
        the cells' padded nodes (:meth:`~navkit.query.padded.PaddedGrid.cell_pair`)."""
        jps = self.jps
        if self._dirty or jps.overlay.mark > 0:
            self.fallbacks += 1
            return jps.cost_query(s, g, sn, gn, budget)
        gen = jps.next_gen()  # (first: it allocates jps.nd on first use)
        ws = jps.ws
        stats = jps.astar.stats
        args = (self.tables.tab, self._gb[0], self._gb[1], jps.pg.cells, self._wp, jps.model,
                (jps.nd, ws.hf, ws.hk, gen, jps.cand), sn, gn, budget, stats)
        call = self._cost_call
        if call is None:  # the search alone: a cost needs no trace of the path
            call = self._cost_call = entry_point(_jp.jps_plus, args)
        call(*args)
        return int(stats[ST_COST]) if stats[ST_STATUS] == _FOUND else -1

    def path_into(self, s: tuple[int, int], g: tuple[int, int], sn: int, gn: int, budget: int,
                  out: PathBuffer) -> int:
        """``cell_query(s, g, smooth=False, nearest=False, budget=budget)`` written
        into ``out`` (:meth:`navkit.Pathfinder.find_path_into`); returns the path
        length (0: no path). ``sn``, ``gn``: the cells' padded nodes
        (:meth:`~navkit.query.padded.PaddedGrid.cell_pair`)."""
        jps = self.jps
        if self._dirty or jps.overlay.mark > 0:
            self.fallbacks += 1
            return jps.path_into(s, g, sn, gn, budget, out)
        gen = jps.next_gen()  # (first: it allocates jps.nd on first use)
        return jps.fill(self.search(sn, gn, budget, gen, jps.into_args(out)), out)
