"""Buildings whose floors are baked worlds (docs/floors.md "Worlds with floors",
docs/rules.md §16.12).

:func:`bake_building` bakes each floor's grid to ``FOLDER/<floor>.nkw`` and
writes ``FOLDER/building.json`` (the floors, their heights and files, the
links, the shared frame). :class:`FloorWorld` opens such a folder: one
:class:`~navkit.world.World` per floor plus the links, and answers

* the **default** query by routes through link ends (§16.9) whose within-floor
  distances are World long queries (exact on worlds of at most
  ``small_world_cells`` cells; on larger worlds the hierarchy's, priced exactly
  but possibly longer than optimal, docs/world-queries.md): a lazy best-first
  search over the links that runs a World query only for the edges it needs,
  with ``min weight x octile distance`` as every edge's lower bound; link-end
  to link-end distances are cached per floor until that world is edited;
* a **bounded** query (``preset="bounded"`` or ``window=``) by the layered
  search (§16.4) on the box's cells of every floor, read from the worlds' chunk
  stores, with the links whose both ends lie in the cells read.

>>> import tempfile
>>> from navkit.floors.examples import two_floors
>>> folder = tempfile.mkdtemp()
>>> fw = FloorWorld.open(bake_building(two_floors(), folder, chunk=16))
>>> r = fw.find_path((1.0, 4.0), (19.0, 4.0), start_floor="ground", goal_floor="upper")
>>> r.status.name, r.link_names
('FOUND', ['stairs'])
>>> fw.close()
"""

from __future__ import annotations

import heapq
import json
import math
import os
import re
import threading
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..contract import world_point_y
from ..costs import CostModel
from ..errors import ConfigError, FormatError, QueryError, shown
from ..grid import NavGrid
from ..query.pathfinder import FIRST_WAYPOINT_TRIM, SNAP_RADIUS, Pathfinder
from ..results import Status
from ..world.local import check_window, get_preset
from ..world.world import World
from .building import Building
from .floormap import FloorPathResult, LinkStep
from .model import Y_TOLERANCE, LinkConfig, parse_links, resolve_floor
from .search import CellPath, FloorSearch, link_cost_int

__all__ = ["bake_building", "FloorWorld", "MANIFEST", "FORMAT", "FORMAT_VERSION"]

#: The manifest's file name inside a baked building's folder.
MANIFEST = "building.json"
#: The manifest's ``format`` value and the ``version`` this module reads and writes.
FORMAT = "navkit-building-worlds"
FORMAT_VERSION = 1
_SAFE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")
_STATUS = tuple(Status)


def _file_names(names: tuple[str, ...]) -> list[str]:
    """``<floor>.nkw`` where the name is a plain file name (distinct ignoring case),
    else ``floor<i>.nkw``."""
    out: list[str] = []
    seen: set[str] = set()
    for i, n in enumerate(names):
        f = f"{n}.nkw" if _SAFE.match(n) else f"floor{i}.nkw"
        if f.lower() in seen:
            f = f"floor{i}.nkw"
        seen.add(f.lower())
        out.append(f)
    return out


def bake_building(building_or_level: Any, folder: str | os.PathLike[str], *, chunk: int = 64,
                  codec: str | None = None, level: int | None = None) -> Path:
    """Bake every floor's grid to ``folder/<floor>.nkw`` (:func:`navkit.world.bake`)
    and write ``folder/building.json``; returns the manifest's path.

    ``building_or_level``: a :class:`Building` or any level form it takes. The
    links are written with their current states and explicit costs (metres).
    ``chunk`` / ``codec`` / ``level``: as for :func:`navkit.world.bake`.
    """
    from ..world.bake import bake

    b = building_or_level if isinstance(building_or_level, Building) else \
        Building(building_or_level)
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    names = b.floor_names
    files = _file_names(names)
    kw: dict[str, Any] = {"chunk": chunk, "progress": False, "level": level}
    if codec is not None:
        kw["codec"] = codec
    for f, fname in enumerate(files):
        bake(b.grid(f), out / fname, **kw)
    g0 = b.grid(0)
    links = []
    for lk, on in zip(b.links, b.link_states, strict=True):
        d = lk.to_json_dict(names)
        d["cost"] = lk.cost
        d["enabled"] = bool(on)
        links.append(d)
    manifest = {
        "format": FORMAT, "version": FORMAT_VERSION, "name": b.name,
        "cellSize": g0.cell_size, "minX": g0.min_x, "minZ": g0.min_z,
        "width": g0.width, "depth": g0.depth, "agentRadius": b.agent_radius,
        "floors": [{"name": n, "floorY": float(y), "file": fn}
                   for n, y, fn in zip(names, b.floor_ys, files, strict=True)],
        "links": links,
    }
    path = out / MANIFEST
    tmp = out / (MANIFEST + ".partial")
    tmp.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def _number(obj: dict[str, Any], key: str, src: str, *, positive: bool = False) -> float:
    v = obj.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or (
            positive and v <= 0):
        raise ConfigError(f"expected a finite {'positive ' if positive else ''}number, got "
                          f"{shown(v)}", field=key, path=src)
    return float(v)


def _count(obj: dict[str, Any], key: str, src: str) -> int:
    v = obj.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ConfigError(f"expected an integer >= 1, got {shown(v)}", field=key, path=src)
    return v


class FloorWorld:
    """A building whose floors are baked worlds (see the module docs).

    Open one with :meth:`open`. ``costs`` / ``snap_radius``: as for
    :class:`~navkit.world.World` (every floor's world and the bounded search use
    them); ``cap_bytes``: each floor's chunk cache; ``world_options``: more
    keywords for each World (``small_world_cells=0`` forces the hierarchy).
    Queries take turns under ``lock`` (the distance cache is shared); edit a
    floor with ``world(floor).set_walkable(...)`` / ``set_cells(...)``.
    """

    def __init__(self, worlds: list[World], names: tuple[str, ...], floor_ys: list[float],
                 links: list[LinkConfig], *, source: str | None = None, name: str = ""):
        self.worlds = worlds
        self.floor_names = names
        self._ys = [float(y) for y in floor_ys]
        self.links = tuple(links)
        self.name = name
        self.source = source
        w0 = worlds[0]
        st = w0.store
        self.costs: CostModel = w0.costs
        self.cell_size = float(st.cell_size)
        self.min_x, self.min_z = float(st.min_x), float(st.min_z)
        self.width, self.depth = int(st.width), int(st.depth)
        self.agent_radius = float(w0.agent_radius)
        self._on = np.array([lk.enabled for lk in self.links], dtype=bool)
        self._link_version = 0
        card = self.costs.card
        ends = []
        for i, lk in enumerate(self.links):
            for tag, e in (("from", lk.start), ("to", lk.end)):
                cx, cz = w0.cell_of(e.point)
                wd = worlds[e.floor]
                if not (0 <= cx < self.width and 0 <= cz < self.depth) or \
                        wd.store.cell(cx, cz) == 0:
                    raise ConfigError(f"link {lk.name!r}: its end ({e.point[0]:g}, "
                                      f"{e.point[1]:g}) is not navigable on floor "
                                      f"{names[e.floor]!r} (cell ({cx}, {cz}))",
                                      field=f"links[{i}].{tag}.point", path=source)
                ends.append((e.floor, cx, cz))
        self._ends = ends  # 2 per link: from, to
        # directed links: (source floor, x, z, dest floor, x, z, integer cost, link)
        edges = []
        for k, lk in enumerate(self.links):
            c = link_cost_int(lk.cost, self.cell_size, card)
            a, b = ends[2 * k], ends[2 * k + 1]
            edges.append((*a, *b, c, k))
            if lk.bidirectional:
                edges.append((*b, *a, c, k))
        self._edges = sorted(edges, key=lambda e: ((e[0] * self.depth + e[2]) * self.width
                                                   + e[1], e[7]))
        self._pairs: list[tuple[int, dict[tuple[int, int, int, int], int]]] = [
            (-1, {}) for _ in worlds]
        #: World queries the last query ran (distances and pieces; 0 when bounded).
        self.last_world_queries = 0
        self._pfs: dict[tuple[int, ...], Pathfinder] = {}
        self.lock = threading.RLock()

    # ------------------------------------------------------------ opening
    @classmethod
    def open(cls, folder_or_manifest: str | os.PathLike[str], *,
             costs: str | CostModel | tuple[int, int] = "seed",
             snap_radius: float = SNAP_RADIUS, cap_bytes: int = 64 << 20,
             **world_options: Any) -> FloorWorld:
        """Open a folder written by :func:`bake_building` (or its manifest): reads
        ``building.json`` and opens each floor's ``.nkw`` file (FormatError on
        unreadable files, ConfigError naming the manifest and the field)."""
        from ..level.parse import read_json

        p = Path(folder_or_manifest)
        mpath = p / MANIFEST if p.is_dir() else p
        if not mpath.is_file():
            raise FormatError("no building manifest here (bake one with bake_building)",
                              path=mpath)
        src = str(mpath)
        obj = read_json(mpath)
        if not isinstance(obj, dict):
            raise ConfigError(f"expected a JSON object, got {type(obj).__name__}", path=src)
        if obj.get("format") != FORMAT:
            raise ConfigError(f"expected {FORMAT!r}, got {shown(obj.get('format'))}",
                              field="format", path=src)
        if obj.get("version") != FORMAT_VERSION:
            raise ConfigError(f"this navkit reads version {FORMAT_VERSION}, got "
                              f"{shown(obj.get('version'))}", field="version", path=src)
        cs = _number(obj, "cellSize", src, positive=True)
        mx, mz = _number(obj, "minX", src), _number(obj, "minZ", src)
        width, depth = _count(obj, "width", src), _count(obj, "depth", src)
        floors = obj.get("floors")
        if not isinstance(floors, list) or not floors:
            raise ConfigError(f"expected a non-empty list of floors, got {shown(floors)}",
                              field="floors", path=src)
        from .model import MAX_FLOORS

        if len(floors) > MAX_FLOORS:
            raise ConfigError(f"{len(floors)} floors, at most {MAX_FLOORS}", field="floors",
                              path=src)
        names: list[str] = []
        ys: list[float] = []
        files: list[Path] = []
        for i, fl in enumerate(floors):
            pre = f"floors[{i}]"
            if not isinstance(fl, dict):
                raise ConfigError(f"expected an object, got {shown(fl)}", field=pre, path=src)
            n = fl.get("name")
            if not isinstance(n, str) or not n or n in names:
                raise ConfigError(f"expected a unique non-empty name, got {shown(n)}",
                                  field=f"{pre}.name", path=src)
            y = fl.get("floorY", 0.0)
            if isinstance(y, bool) or not isinstance(y, (int, float)) or not math.isfinite(y):
                raise ConfigError(f"expected a finite number, got {shown(y)}",
                                  field=f"{pre}.floorY", path=src)
            fn = fl.get("file")
            if not isinstance(fn, str) or not _SAFE.match(fn) or not fn.endswith(".nkw"):
                raise ConfigError("expected a plain .nkw file name in the manifest's folder, "
                                  f"got {shown(fn)}", field=f"{pre}.file", path=src)
            fp = mpath.parent / fn
            if not fp.is_file():
                raise ConfigError(f"the file {fn!r} is missing", field=f"{pre}.file", path=src)
            names.append(n)
            ys.append(float(y))
            files.append(fp)
        try:
            links = parse_links(obj.get("links", []), names, ys)
        except ConfigError as e:
            raise ConfigError(e.reason, field=e.field, path=src) from None
        worlds: list[World] = []
        try:
            for i, fp in enumerate(files):
                w = World.open(str(fp), cap_bytes=cap_bytes, costs=costs,
                               snap_radius=snap_radius, **world_options)
                worlds.append(w)
                st = w.store
                got = (float(st.cell_size), float(st.min_x), float(st.min_z), int(st.width),
                       int(st.depth))
                if got != (cs, mx, mz, width, depth):
                    raise ConfigError(
                        f"{fp.name} has cell size {got[0]:g}, corner ({got[1]:g}, {got[2]:g}) "
                        f"and {got[3]} x {got[4]} cells; the manifest says {cs:g}, "
                        f"({mx:g}, {mz:g}) and {width} x {depth}", field=f"floors[{i}].file",
                        path=src)
            return cls(worlds, tuple(names), ys, links, source=src,
                       name=str(obj.get("name", "") or ""))
        except BaseException:
            for w in worlds:
                w.close()
            raise

    def close(self) -> None:
        """Close every floor's world (its chunk file)."""
        for w in self.worlds:
            w.close()

    def __enter__(self) -> FloorWorld:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ properties
    @property
    def floor_ys(self) -> NDArray[np.float64]:
        """Each floor's ``floorY``, metres."""
        return np.array(self._ys, dtype=np.float64)

    @property
    def version(self) -> int:
        """Edits of any floor's world plus link switches."""
        return sum(w.version for w in self.worlds) + self._link_version

    def world(self, floor: Any) -> World:
        """Floor ``floor``'s :class:`~navkit.world.World` (index or name)."""
        return self.worlds[self.floor_index(floor)]

    def floor_index(self, floor: Any, fld: str = "floor") -> int:
        return resolve_floor(floor, self.floor_names, fld)

    def set_link_enabled(self, name: str, enabled: bool) -> bool:
        """Switch link ``name`` on or off; True when it changed."""
        if not isinstance(enabled, bool):
            raise ConfigError(f"expected True or False, got {enabled!r}", field="enabled")
        names = [lk.name for lk in self.links]
        if name not in names:
            from ..errors import unknown_name_message

            raise ConfigError(unknown_name_message("link", name, tuple(names)), field="name")
        k = names.index(name)
        if bool(self._on[k]) == enabled:
            return False
        self._on[k] = enabled
        self._link_version += 1
        return True

    def floor_of(self, point: ArrayLike, floor: Any = None) -> int:
        """The floor of a world point by docs/rules.md §16.6 (``floor`` when given)."""
        if floor is not None:
            return self.floor_index(floor)
        ys = self._ys
        lowest = min(range(len(ys)), key=lambda i: (ys[i], i))
        x, y, z = world_point_y(point, "point", math.nan)
        if math.isnan(y):
            return lowest
        cand = sorted((i for i in range(len(ys)) if ys[i] <= y + Y_TOLERANCE),
                      key=lambda i: (-ys[i], i))
        for f in cand:
            if self.worlds[f].is_walkable((x, z)):
                return f
        return cand[0] if cand else lowest

    # ---------------------------------------------------------------- queries
    def find_path_cells(self, start: Any, goal: Any, *, preset: Any = None,
                        budget: int | None = None, window: Any = None) -> FloorPathResult:
        """The cheapest chain of cells between two cells ``(floor, x, z)`` (floor by
        index or name; no snapping: a blocked end gives NO_START / NO_GOAL).

        Default: routes through link ends with World queries per floor.
        ``preset="bounded"``: the 38 x 38 box around the midpoint of the two
        cells on every floor and at most 1,000 expansions; ``window``: an
        inclusive cell box ``(x0, z0, x1, z1)`` instead of the preset's;
        ``budget``: expansions (with a window or preset only; it overrides the
        preset's)."""
        a = self._cell(start, "start")
        b = self._cell(goal, "goal")
        return self._query(a, b, preset, budget, window, None, None, False)

    def find_path(self, start: ArrayLike, goal: ArrayLike, *, start_floor: Any = None,
                  goal_floor: Any = None, preset: Any = None, budget: int | None = None,
                  window: Any = None, smooth: bool = True) -> FloorPathResult:
        """The cheapest path between two world points ``(x, z)`` or ``(x, y, z)``
        metres; floors by ``start_floor`` / ``goal_floor`` (index or name) or the
        height rule (§16.6). Each point snaps on its floor as World does (§4.1);
        ``preset`` / ``window`` / ``budget`` as in :meth:`find_path_cells`, the
        preset's box centred on the snapped cells. Waypoints are smoothed per floor
        (§5) when ``smooth``."""
        sf = self.floor_of(start, start_floor)
        gf = self.floor_of(goal, goal_floor)
        sx, _, sz = world_point_y(start, "start")
        gx, _, gz = world_point_y(goal, "goal")
        sp = self.worlds[sf].place((sx, sz))
        if sp is None or sp.cell is None:
            return FloorPathResult(Status.NO_START, floor_y=self._ys[sf])
        gp = self.worlds[gf].place((gx, gz))
        if gp is None or gp.cell is None:
            return FloorPathResult(Status.NO_GOAL, floor_y=self._ys[gf])
        a = (sf, *sp.cell)
        b = (gf, *gp.cell)
        return self._query(a, b, preset, budget, window, (sx, sz), (gx, gz), smooth)

    # ------------------------------------------------------------- internals
    def _cell(self, cell: Any, name: str) -> tuple[int, int, int]:
        try:
            f, x, z = cell
        except (TypeError, ValueError):
            raise QueryError(f"{name} must be a cell (floor, x, z), got {shown(cell)}") from None
        fi = self.floor_index(f, name) if isinstance(f, str) else f
        vals = (fi, x, z)
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals):
            raise QueryError(f"{name} must be a cell (floor, x, z) of integers, got "
                             f"{shown(cell)}")
        fi, x, z = (int(v) for v in vals)
        if not (0 <= fi < len(self.worlds) and 0 <= x < self.width and 0 <= z < self.depth):
            raise QueryError(f"{name} {(fi, x, z)} lies outside the building's "
                             f"{len(self.worlds)} x {self.width} x {self.depth} cells")
        return (fi, x, z)

    def _free(self, f: int, x: int, z: int) -> bool:
        return bool(self.worlds[f].store.cell(x, z) != 0)

    def _query(self, a: tuple[int, int, int], b: tuple[int, int, int], preset: Any,
               budget: Any, window: Any, sp: tuple[float, float] | None,
               gp: tuple[float, float] | None, smooth: bool) -> FloorPathResult:
        if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int)
                                   or budget < 1):
            raise QueryError(f"budget must be a positive integer or None, got {shown(budget)}")
        pre = get_preset(preset)
        box = None
        if pre is not None:
            box = pre.window_for(a[1:], b[1:])
            budget = pre.budget if budget is None else budget
        if window is not None:
            box = check_window(window)
        if box is None and budget is not None:
            raise QueryError("budget= needs a window or a preset on a building of worlds")
        with self.lock:
            self.last_world_queries = 0
            if not self._free(*a):
                return FloorPathResult(Status.NO_START, floor_y=self._ys[a[0]])
            if not self._free(*b):
                return FloorPathResult(Status.NO_GOAL, floor_y=self._ys[b[0]])
            if box is not None:
                return self._bounded(a, b, box, budget, sp, gp, smooth)
            return self._routed(a, b, sp, gp, smooth)

    # ---------------------------------------------------------------- bounded
    def _bounded(self, a: tuple[int, int, int], b: tuple[int, int, int],
                 box: tuple[int, int, int, int], budget: int | None,
                 sp: tuple[float, float] | None, gp: tuple[float, float] | None,
                 smooth: bool) -> FloorPathResult:
        """The layered search (§16.4) inside ``box`` on every floor, on the cells read."""
        W, D = self.width, self.depth
        cx0, cz0 = max(0, box[0]), max(0, box[1])
        cx1, cz1 = min(W - 1, box[2]), min(D - 1, box[3])
        if cx0 > cx1 or cz0 > cz1:  # the box misses the world: only the start is free
            cx0, cz0, cx1, cz1 = a[1], a[2], a[1], a[2]
        # the cells read: the box (clipped), the two end cells, and one more cell on each
        # side where the world goes on, so a search that runs dry in a box smaller than
        # the world ends WINDOW_EXHAUSTED as it does on the whole building
        rx0 = max(0, min(cx0, a[1], b[1]) - 1)
        rz0 = max(0, min(cz0, a[2], b[2]) - 1)
        rx1 = min(W - 1, max(cx1, a[1], b[1]) + 1)
        rz1 = min(D - 1, max(cz1, a[2], b[2]) + 1)
        cs = self.cell_size
        grids = []
        for w in self.worlds:
            st = w.store
            v = st.region(rx0, rz0, rx1, rz1)
            grids.append(NavGrid(v != 0, weights=np.maximum(v, 1).astype(np.int32)
                                 if st.weighted else None, cell_size=cs,
                                 min_x=self.min_x + rx0 * cs, min_z=self.min_z + rz0 * cs,
                                 agent_radius=self.agent_radius))
        raw, kept = [], []
        for k, lk in enumerate(self.links):
            if not self._on[k]:
                continue
            e0, e1 = self._ends[2 * k], self._ends[2 * k + 1]
            if not all(rx0 <= e[1] <= rx1 and rz0 <= e[2] <= rz1
                       and grids[e[0]].walkable[e[2] - rz0, e[1] - rx0] for e in (e0, e1)):
                continue
            raw.append({"name": lk.name, "kind": lk.kind, "cost": lk.cost,
                        "bidirectional": lk.bidirectional,
                        "from": {"floor": e0[0], "point": self._centre(e0[1:], rx0, rz0)},
                        "to": {"floor": e1[0], "point": self._centre(e1[1:], rx0, rz0)}})
            kept.append(k)
        sub = Building.from_grids(grids, raw, names=self.floor_names, floor_ys=self._ys)
        search = FloorSearch(sub, self.costs)
        win = (cx0 - rx0, cz0 - rz0, cx1 - rx0, cz1 - rz0)
        res = search.path((a[0], a[1] - rx0, a[2] - rz0), (b[0], b[1] - rx0, b[2] - rz0),
                          budget=budget, window=win)
        if res.status != Status.FOUND:
            return FloorPathResult(_STATUS[res.status], expanded=res.expanded,
                                   floor_y=self._ys[a[0]])
        cells = res.cells.copy()
        cells[:, 1] += rx0
        cells[:, 2] += rz0
        entered = np.where(res.entered >= 0,
                           np.array(kept + [-1], np.int32)[res.entered], -1).astype(np.int32)
        runs = []
        cuts = [0, *(np.flatnonzero(entered[1:] >= 0) + 1).tolist(), len(cells)]
        for j in range(len(cuts) - 1):
            run = cells[cuts[j]:cuts[j + 1]]
            f = int(run[0, 0])
            xz = run[:, 1:]
            if smooth and len(xz) > 2:
                key = (f, rx0, rz0, rx1, rz1, self.worlds[f].version)
                pf = self._pfs.get(key)
                if pf is None:
                    self._pfs.clear()
                    pf = self._pfs[key] = Pathfinder(grids[f], self.costs)
                pts = self._centres(pf.smooth_cells(xz - np.array([rx0, rz0])) +
                                    np.array([rx0, rz0]))
            else:
                pts = self._centres(xz)
            runs.append((f, xz, pts))
        links = [int(entered[c]) for c in cuts[1:-1]]
        return self._result(runs, links, res.cost_int, res.expanded, sp, gp)

    def _centre(self, xz: tuple[int, int], rx0: int, rz0: int) -> list[float]:
        cs = self.cell_size
        return [self.min_x + rx0 * cs + (xz[0] - rx0 + 0.5) * cs,
                self.min_z + rz0 * cs + (xz[1] - rz0 + 0.5) * cs]

    def _centres(self, xz: NDArray[Any]) -> NDArray[np.float64]:
        cs = self.cell_size
        return np.column_stack([self.min_x + (xz[:, 0] + 0.5) * cs,
                                self.min_z + (xz[:, 1] + 0.5) * cs]).astype(np.float64)

    # ------------------------------------------------------------ routed
    def _dist(self, f: int, a: tuple[int, int], b: tuple[int, int]) -> int:
        """Floor ``f``'s World distance ``a -> b`` (integer cost, -1 without a path)."""
        if a == b:
            return 0
        self.last_world_queries += 1
        r = self.worlds[f].find_path_cells(a, b)
        return int(r.cost_int) if r.status == Status.FOUND else -1

    def _pair(self, f: int, a: tuple[int, int], b: tuple[int, int]) -> int:
        """A link end to link end distance on floor ``f``, cached per world version."""
        ver, cache = self._pairs[f]
        v = self.worlds[f].version
        if ver != v:
            cache = {}
            self._pairs[f] = (v, cache)
        key = (*a, *b)
        got = cache.get(key)
        if got is None:
            got = cache[key] = self._dist(f, a, b)
        return got

    def _lower(self, f: int, a: tuple[int, int], b: tuple[int, int]) -> int:
        """``min weight x octile(a, b)``: no walk on floor ``f`` costs less."""
        dx, dz = abs(a[0] - b[0]), abs(a[1] - b[1])
        c = self.costs
        return self.worlds[f].min_weight * (c.card * max(dx, dz) +
                                            (c.diag - c.card) * min(dx, dz))

    def _routed(self, a: tuple[int, int, int], b: tuple[int, int, int],
                sp: tuple[float, float] | None, gp: tuple[float, float] | None,
                smooth: bool) -> FloorPathResult:
        """Routes through link ends (§16.9, §16.12): a best-first search over the
        start, each directed link's far end and the goal; an edge's World query runs
        only when its lower bound comes first in the queue."""
        edges = [e for e in self._edges if self._on[e[7]] and self._free(*e[3:6])]
        goal = len(edges) + 1
        # node 0: the start; 1 + i: after taking edges[i]; goal
        here = {0: a}
        for i, e in enumerate(edges):
            here[1 + i] = (e[3], e[4], e[5])
        by_floor: dict[int, list[int]] = {}
        for i, e in enumerate(edges):
            by_floor.setdefault(e[0], []).append(i)
        done: dict[int, int] = {}
        prev: dict[int, int] = {}
        seq = 0
        heap: list[tuple[int, int, int, int, int]] = [(0, 0, 0, -1, 0)]  # key, lb?, seq, u, v
        while heap:
            key, lazy, _, u, v = heapq.heappop(heap)
            if v in done:
                continue
            if lazy:  # a lower bound: price the edge u -> v now
                f, x, z = here[u]
                du = done[u]
                if v == goal:
                    w = self._dist(f, (x, z), b[1:])
                    c = 0
                else:
                    e = edges[v - 1]
                    w = self._dist(f, (x, z), e[1:3]) if u == 0 else \
                        self._pair(f, (x, z), e[1:3])
                    c = e[6]
                if w >= 0:
                    seq += 1
                    heapq.heappush(heap, (du + w + c, 0, seq, u, v))
                continue
            done[v] = key
            prev[v] = u
            if v == goal:
                break
            f, x, z = here[v]
            for i in by_floor.get(f, ()):
                if 1 + i in done:
                    continue
                e = edges[i]
                seq += 1
                heapq.heappush(heap, (key + self._lower(f, (x, z), e[1:3]) + e[6], 1, seq, v,
                                      1 + i))
            if f == b[0]:
                seq += 1
                heapq.heappush(heap, (key + self._lower(f, (x, z), b[1:]), 1, seq, v, goal))
        if goal not in done:
            return FloorPathResult(Status.UNREACHABLE, floor_y=self._ys[a[0]])
        order = []
        v = goal
        while v != 0:
            order.append(v)
            v = prev[v]
        order.reverse()  # the link nodes taken, then the goal
        runs = []
        links = []
        expanded = 0
        pos = a
        for v in order:
            if v == goal:
                end = b
            else:
                e = edges[v - 1]
                end = (e[0], e[1], e[2])
            self.last_world_queries += 1
            r = self.worlds[pos[0]].find_path_cells(pos[1:], end[1:], smooth=smooth)
            if r.status != Status.FOUND:  # the world changed between the two queries
                raise AssertionError(f"a floor piece {pos} -> {end} has no path")
            expanded += int(r.expanded)
            runs.append((pos[0], np.asarray(r.cells), np.asarray(r.waypoints, np.float64)))
            if v != goal:
                e = edges[v - 1]
                links.append(e[7])
                pos = (e[3], e[4], e[5])
        return self._result(runs, links, done[goal], expanded, sp, gp)

    # ------------------------------------------------------------- results
    def _result(self, runs: list[tuple[int, NDArray[Any], NDArray[np.float64]]],
                links: list[int], cost_int: int, expanded: int,
                sp: tuple[float, float] | None, gp: tuple[float, float] | None
                ) -> FloorPathResult:
        """One FloorPathResult from per-floor runs ``(floor, cells (n, 2), waypoints
        (m, 2))`` joined by ``links`` (config indices), as FloorMap's."""
        cells = np.concatenate([np.column_stack([np.full(len(c), f, np.int32),
                                                 np.asarray(c, np.int32)])
                                for f, c, _ in runs]).astype(np.int32)
        steps: list[LinkStep] = []
        pts: list[NDArray[np.float64]] = []
        fls: list[NDArray[np.int32]] = []
        n = 0
        for j, (f, _, w) in enumerate(runs):
            if j > 0:
                lk = self.links[links[j - 1]]
                steps.append(LinkStep(lk.name, lk.kind, links[j - 1], n - 1))
            pts.append(np.array(w, np.float64))
            fls.append(np.full(len(w), f, np.int32))
            n += len(w)
        way = np.concatenate(pts)
        floors = np.concatenate(fls)
        if sp is not None and gp is not None:
            last = cells[-1]
            if self.worlds[int(last[0])].cell_of(gp) == (int(last[1]), int(last[2])):
                way[-1] = gp  # §4.3: the exact end point
            trim = FIRST_WAYPOINT_TRIM * self.cell_size
            if len(way) > 1 and not (steps and steps[0].at == 0) and \
                    math.hypot(way[0, 0] - sp[0], way[0, 1] - sp[1]) <= trim:
                way = way[1:]
                floors = floors[1:]
                steps = [LinkStep(s.name, s.kind, s.index, s.at - 1) for s in steps]
        ys = self.floor_ys
        out = FloorPathResult(Status.FOUND, waypoints=way, floors=floors, cells=cells,
                              links=steps, cost=cost_int / self.costs.card, cost_int=int(cost_int),
                              expanded=int(expanded), floor_y=float(ys[floors[0]]),
                              link_length=float(sum(self.links[k].cost for k in links)))
        out.__dict__["_heights"] = ys[floors].astype(np.float64)
        if sp is not None:
            out.__dict__["_start"] = sp
        return out

    def as_cell_path(self, res: FloorPathResult) -> CellPath:
        """:meth:`find_path_cells`'s answer as a :class:`~navkit.floors.search.CellPath`
        (``entered``: per cell, the link that entered it, else -1)."""
        entered = np.full(len(res.cells), -1, np.int32)
        for s in res.links:
            entered[s.at + 1] = s.index
        return CellPath(int(res.status), res.cells, res.cost_int, res.expanded,
                        [s.index for s in res.links], entered)

    def __repr__(self) -> str:
        return (f"FloorWorld({self.name or 'unnamed'}: {len(self.worlds)} floors of "
                f"{self.width} x {self.depth} cells, {len(self.links)} links)")
