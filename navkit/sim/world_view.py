"""The simulation on a chunked world: :class:`WorldView` (docs/rules.md §14.5).

A :class:`WorldView` is the :class:`~navkit.sim.planner.MapView` of a
:class:`~navkit.world.world.World`, so ``Location(world)`` works. Plans are
``World.find_path_to_nearest`` queries (world metres, the obstacle circles of
docs/rules.md §7.3) with the **bounded preset** by default
(``navkit.world.local.BOUNDED``: a 38 x 38 window centred on the midpoint of the
snapped start and goal cells, 1,000 expansions; docs/rules.md §14.2), for walk,
follow and approach orders alike; ``preset=None`` plans long queries instead
(exact on a world that fits in memory, docs/rules.md §14.3).

**Far destinations.** A bounded plan aims at most :func:`reach` cells (18 for
the 38-cell window) ahead: when the destination cell is farther (Chebyshev,
from the start cell), the plan's goal is the point at that distance on the
straight line to it, so the window holds both ends. Such a plan ends short of a
destination reachable on the static map, which is a *partial* plan
(docs/rules.md §8.4). When it is a **bounded leg** (:meth:`WorldView.is_leg`: it
aimed short and ends nearer the destination than it started) any character, player
and bot included, walks it to its end and plans the next leg there toward the same
destination (§14.5); other partial plans are as on grids (an NPC retries after its
cooldown, §10.2; a player or bot arrives at the end). A follow or approach order
walks it and plans again when its repath delay allows (§10.5).

**The movement guard** (docs/rules.md §9) reads walkability from a resident
**active region** of the world: ``region=(x0, z0, x1, z1)`` (inclusive cells),
materialized from the chunks (``ChunkStore.region``) and rebuilt when the store's
version changes; default the whole world when it has at most
:data:`RESIDENT_CELLS` cells. With a region every plan is cut to it (the search
never leaves it: ``World.find_path(bounds=...)``), so paths, steps and the
connected components that decide partial plans all stay inside; a plan from a
position outside the region is a :class:`~navkit.errors.ConfigError` (field
``region``) naming the position (and, from the planner, the character).

A location on a world cannot be saved (scene files reference grids, levels and
meshes): :meth:`WorldView.to_json` raises ConfigError. Record its plans with the
world's own ``record=`` (``World(store, record=path)``, docs/corpora.md).

>>> import numpy as np
>>> from navkit.grid import NavGrid
>>> from navkit.sim import Location
>>> from navkit.world.world import World
>>> walk = np.ones((20, 40), bool); walk[2:18, 20] = False
>>> loc = Location(World.from_grid(NavGrid(walk), chunk=16))
>>> a = loc.add_character("a", kind="npc", position=(10.5, 10.5), walk_speed=4.0)
>>> a.set_target((30.5, 10.5))
True
>>> _ = loc.run(200)
>>> [round(v, 1) for v in a.position], loc.stats.arrivals
([30.5, 10.5], 1)
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import sim as _k
from ..errors import ConfigError, shown
from ..grid import NavGrid
from ..level import NavLevel
from ..query.edits import ignore_ids
from ..query.overlay import as_circles
from ..results import PathResult
from ..world.local import QueryPreset, get_preset
from ..world.world import World
from .planner import MapView

__all__ = ["WorldView", "RESIDENT_CELLS", "reach"]

#: The most cells a world may have to be made resident whole (the default region).
RESIDENT_CELLS = 1 << 22
_UNBOUNDED = ("none", "unbounded", "long")


def reach(preset: QueryPreset) -> int:
    """Cells (Chebyshev) a bounded plan aims ahead: ``window // 2 - 1`` (18 for 38),
    so the preset's window holds the start cell and the aimed cell."""
    return max(1, preset.window // 2 - 1)


class WorldView(MapView):
    """The simulation's window on a :class:`~navkit.world.world.World`.

    Parameters
    ----------
    world
        A ``World`` (or a ``ChunkStore``, wrapped in a ``World`` with seed costs).
    preset
        ``"bounded"`` (default) or a ``QueryPreset``: every plan is a bounded
        local search; None (or ``"unbounded"``): long queries.
    region
        ``(x0, z0, x1, z1)``: the inclusive cell box the characters live in (the
        guard's walkable grid); default the whole world, which must then have at
        most :data:`RESIDENT_CELLS` cells.
    agent_radius
        The radius, metres, the world's cells were eroded by (a store keeps no
        such value); it enters the obstacle radius formula (docs/rules.md §7.4).
    """

    mode = "world"

    def __init__(self, world: Any, *, preset: str | QueryPreset | None = "bounded",
                 region: Any = None, agent_radius: float = 0.0,
                 path: str | Path | None = None):
        if not isinstance(world, World):
            if hasattr(world, "chunk") and hasattr(world, "region"):
                world = World(world)
            else:
                raise ConfigError(f"expected a World or a ChunkStore, got {shown(world)}",
                                  field="navigation")
        self.world = world
        st = world.store
        if isinstance(preset, str) and preset.lower() in _UNBOUNDED:
            preset = None
        #: The plans' preset (None: long queries).
        self.preset: QueryPreset | None = get_preset(preset)
        ar = agent_radius
        if isinstance(ar, bool) or not isinstance(ar, (int, float)) or not math.isfinite(ar) \
                or ar < 0:
            raise ConfigError(f"expected a finite number >= 0, got {shown(ar)}",
                              field="agent_radius")
        self._agent = float(ar)
        if region is None:
            if st.width * st.depth > RESIDENT_CELLS:
                raise ConfigError(f"a {st.width}x{st.depth}-cell world is too large to keep "
                                  f"resident (at most {RESIDENT_CELLS:,} cells): give the "
                                  "characters' region=(x0, z0, x1, z1)", field="region")
            box = (0, 0, st.width - 1, st.depth - 1)
            self._bounds: tuple[int, int, int, int] | None = None
        else:
            box = _check_region(region, st.width, st.depth)
            whole = box == (0, 0, st.width - 1, st.depth - 1)
            self._bounds = None if whole else box
        #: The active region, inclusive cells ``(x0, z0, x1, z1)``.
        self.region: tuple[int, int, int, int] = box
        self.path = None if path is None else Path(path)
        self._built_version = -1
        self._grid: NavGrid | None = None
        self._cells: NDArray[np.uint8] | None = None
        self._labels: NDArray[np.int32] | None = None

    # ------------------------------------------------------------ the map
    @property
    def version(self) -> int:
        """The store's edit counter (``World.set_cells`` bumps it)."""
        return int(self.world.store.version)

    @property
    def grid(self) -> NavGrid:
        """The active region as a grid (world geometry; the guard's walls)."""
        self._refresh()
        assert self._grid is not None
        return self._grid

    @property
    def level(self) -> NavLevel | None:
        return None

    @property
    def cell_size(self) -> float:
        return float(self.world.store.cell_size)

    @property
    def agent_radius(self) -> float:
        return self._agent

    def set_cells(self, cells: Any, values: Any) -> list[tuple[int, int]]:
        """Edit world cells (``World.set_cells``); affected characters replan at the
        next tick (docs/rules.md §10.4: the region's walkable cells are compared)."""
        return self.world.set_cells(cells, values)

    def set_area_available(self, name: str, available: bool) -> bool:
        raise ConfigError("a world has no named areas; edit cells with "
                          "loc.map.set_cells(cells, values)", field="navigation")

    def add_obstacle(self, name: str, polygon: Any) -> None:
        raise ConfigError("a world takes no obstacle polygons; block cells with "
                          "loc.map.set_cells(cells, 0)", field="navigation")

    def remove_obstacle(self, name: str) -> None:
        raise ConfigError("a world has no obstacle polygons", field="navigation")

    def to_json(self, base: Path | None = None,
                sidecar: Path | None = None) -> dict[str, Any] | str:
        """Refused: scene files reference grids, levels and meshes, not worlds."""
        raise ConfigError("a location on a World cannot be saved: scene files reference "
                          "grids, levels and meshes, and a world may not fit in one; keep "
                          "the world file and rebuild the location", field="navigation")

    @property
    def pathfinder(self) -> Any:
        raise ConfigError("a world has no whole-grid pathfinder; use WorldView.world",
                          field="navigation")

    # ------------------------------------------------------ derived data
    def _refresh(self) -> None:
        v = self.version
        if v == self._built_version and self._cells is not None:
            return
        st = self.world.store
        x0, z0, x1, z1 = self.region
        walk = np.ascontiguousarray(st.region(x0, z0, x1, z1) != 0)
        cs = float(st.cell_size)
        self._grid = NavGrid(walk, cell_size=cs, min_x=float(st.min_x) + x0 * cs,
                             min_z=float(st.min_z) + z0 * cs, floor_y=float(st.floor_y),
                             agent_radius=self._agent, name=str(getattr(st, "name", "")))
        d, w = walk.shape
        cells = np.zeros((d + 2, w + 2), dtype=np.uint8)
        cells[1:-1, 1:-1] = walk
        self._cells = cells.ravel()
        labels = np.empty((d, w), dtype=np.int32)
        _k.label_components(walk.astype(np.uint8), labels)
        self._labels = labels
        self._built_version = v

    def _inside(self, c: tuple[int, int]) -> bool:
        x0, z0, x1, z1 = self.region
        return x0 <= c[0] <= x1 and z0 <= c[1] <= z1

    def is_walkable(self, x: float, z: float) -> bool:
        """True when world point ``(x, z)`` lies on a walkable world cell."""
        st = self.world.store
        cx, cz = self.world.cell_of((float(x), float(z)))
        return 0 <= cx < st.width and 0 <= cz < st.depth and st.cell(cx, cz) != 0

    def static_goal(self, start: tuple[float, float],
                    end: tuple[float, float]) -> tuple[int, int] | None:
        """The cell a plan without characters would end in when ``end`` is reachable
        from ``start`` inside the region (its connected components), else None."""
        s = self.world.snap(start)
        g = self.world.snap(end)
        if s is None or g is None or not self._inside(s) or not self._inside(g):
            return None
        lab = self.labels
        x0, z0 = self.region[0], self.region[1]
        if lab[s[1] - z0, s[0] - x0] != lab[g[1] - z0, g[0] - x0]:
            return None
        return g

    def is_leg(self, start: tuple[float, float], end: tuple[float, float], res: Any) -> bool:
        """Whether partial plan ``res`` is a bounded leg to continue from its end
        (docs/rules.md §14.5): the view has a preset, the destination cell is more
        than :func:`reach` cells (Chebyshev) from the start cell, so the plan aimed
        short, and its end cell is nearer (Chebyshev) to the destination cell than
        the start cell (so the legs of one walk end: each one gains a cell or more)."""
        pre = self.preset
        end_cell = getattr(res, "end_cell", None)
        if pre is None or end_cell is None or not res.has_path:
            return False
        w = self.world
        sc, ec = w.cell_of(start), w.cell_of(end)
        far = max(abs(ec[0] - sc[0]), abs(ec[1] - sc[1]))
        left = max(abs(ec[0] - int(end_cell[0])), abs(ec[1] - int(end_cell[1])))
        return far > reach(pre) and left < far

    def find_path(self, start: tuple[float, float], end: tuple[float, float],
                  obstacles: Any, ignore: Any = None) -> PathResult:
        """One planning query: ``World.find_path_to_nearest`` with the view's preset
        (a far destination aimed at :func:`reach` cells ahead), cut to the region.

        ``obstacles``: circles ``(k, 3)`` or an ``ObstacleSnapshot``; ``ignore``:
        the ids (snapshot ids, else row indices) of circles this plan skips
        (docs/rules.md §7.6), dropped here before the query.
        """
        circles = _circles(obstacles, ignore)
        w = self.world
        if self._bounds is not None and not self._inside(w.cell_of(start)):
            raise ConfigError(f"a character at ({start[0]:.3f}, {start[1]:.3f}) is outside "
                              f"the world view's active region {self.region}", field="region")
        aim = end
        pre = self.preset
        if pre is not None:
            aim = _aim(w, start, end, reach(pre))
        return w.find_path_to_nearest(start, aim, obstacles=circles, preset=pre,
                                      bounds=self._bounds)

    def __repr__(self) -> str:
        p = "unbounded" if self.preset is None else f"window {self.preset.window}, " \
            f"budget {self.preset.budget}"
        return f"WorldView({self.world!r}, {p}, region={self.region})"


def _check_region(region: Any, width: int, depth: int) -> tuple[int, int, int, int]:
    try:
        vals = [int(v) for v in region]
        ok = len(vals) == 4 and all(float(v) == int(v) for v in region)
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise ConfigError(f"expected four integer cells (x0, z0, x1, z1), got {shown(region)}",
                          field="region")
    x0, z0, x1, z1 = vals
    if not (0 <= x0 <= x1 < width and 0 <= z0 <= z1 < depth):
        raise ConfigError(f"expected 0 <= x0 <= x1 < {width} and 0 <= z0 <= z1 < {depth}, "
                          f"got {tuple(vals)}", field="region")
    if (x1 - x0 + 1) * (z1 - z0 + 1) > RESIDENT_CELLS:
        raise ConfigError(f"a region of at most {RESIDENT_CELLS:,} cells, got "
                          f"{(x1 - x0 + 1) * (z1 - z0 + 1):,}", field="region")
    return x0, z0, x1, z1


def _circles(obstacles: Any, ignore: Any) -> NDArray[np.float64] | None:
    """The query's circles: a writeable float64 ``(k, 3)`` copy, less the ignored ones."""
    if obstacles is None:
        if ignore is not None:
            ignore_ids(ignore)
        return None
    snap_ids = getattr(obstacles, "ids", None)
    if hasattr(obstacles, "circles") and snap_ids is not None:  # an ObstacleSnapshot
        circles = np.array(obstacles.circles, dtype=np.float64)
        ids = np.asarray(snap_ids, dtype=np.int64)
    else:
        circles = np.array(as_circles(obstacles), dtype=np.float64)
        ids = np.arange(len(circles), dtype=np.int64)
    if ignore is not None:
        circles = np.ascontiguousarray(circles[~np.isin(ids, ignore_ids(ignore))])
    return circles


def _aim(w: World, start: tuple[float, float], end: tuple[float, float],
         n: int) -> tuple[float, float]:
    """``end``, or the point ``n`` cells (Chebyshev) from ``start`` toward it."""
    sc, ec = w.cell_of(start), w.cell_of(end)
    far = max(abs(ec[0] - sc[0]), abs(ec[1] - sc[1]))
    if far <= n:
        return end
    cs = float(w.store.cell_size)
    dx, dz = end[0] - start[0], end[1] - start[1]
    m = max(abs(dx), abs(dz))
    if not m > 0:
        return end
    t = n * cs / m
    return (start[0] + dx * t, start[1] + dz * t)
