"""Local mesh edits: rebuild only the polygons near a change (doors, obstacle circles).

:func:`rebuild_region` removes every polygon that meets a region (closed
sets: touching counts), re-triangulates and merges what is left of their union
inside the new free space, and keeps every other polygon as it was. The
result is checked (total area equals the new free space's, wall length equals
its perimeter: a T-junction or a change outside the region would show as
extra wall or area); when the check fails the region is grown once, then the
whole mesh is rebuilt. :data:`STATS` counts which way each call went.

>>> import shapely
>>> from navkit.level import parse_level
>>> from navkit.mesh.build import build_mesh, random_level
>>> mesh, space = build_mesh(parse_level(random_level(20, 10, 4, seed=3)))
>>> cut = cut_circles(mesh, space, [[5.0, 5.0, 1.0]])
>>> cut.n_polygons > 0
True
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray

from ..errors import ConfigError, QueryError
from .arrays import MeshArrays, from_csr
from .build import DEFAULT_CHORD_ERROR, disk_polygon, polygonal_part, triangles_of
from .merge import merge_convex

__all__ = ["rebuild_region", "cut_circles", "circle_polygons", "STATS"]

#: Counters: ``local`` (rebuilt locally), ``grown`` (needed the grown region),
#: ``full`` (fell back to a full rebuild), ``unchanged`` (nothing met the region).
STATS: dict[str, int] = {"local": 0, "grown": 0, "full": 0, "unchanged": 0}


def _meeting(arrays: MeshArrays, geom: shapely.Geometry) -> tuple[NDArray[np.int64], NDArray[Any]]:
    """The polygons that meet ``geom`` (closed sets): their ids and shapes."""
    x0, z0, x1, z1 = geom.bounds
    bb = arrays.poly_bbox
    cand = np.flatnonzero((bb[:, 0] <= x1) & (bb[:, 2] >= x0) & (bb[:, 1] <= z1) & (bb[:, 3] >= z0))
    if len(cand) == 0:
        return cand, np.empty(0, dtype=object)
    geoms = arrays.shapes(cand)
    hit = shapely.intersects(geoms, geom)
    return cand[hit], geoms[hit]


def _wall_length_and_area(m: MeshArrays) -> tuple[float, float]:
    ps = m.poly_start
    nxt = np.arange(1, len(m.poly_verts) + 1)
    nxt[ps[1:] - 1] = ps[:-1]
    a = m.vertices[m.poly_verts]
    b = m.vertices[m.poly_verts[nxt]]
    seg = np.hypot(b[:, 0] - a[:, 0], b[:, 1] - a[:, 1])
    area = float(np.sum(a[:, 0] * b[:, 1] - b[:, 0] * a[:, 1])) / 2
    return float(seg[m.poly_adj < 0].sum()), area


def _matches(m: MeshArrays, space: shapely.Geometry) -> bool:
    wall, area = _wall_length_and_area(m)
    scale = max(space.length, 1.0)
    return abs(wall - space.length) <= 1e-9 * scale and \
        abs(area - space.area) <= 1e-9 * max(space.area, 1.0)


def _full(space: shapely.Geometry) -> MeshArrays:
    v, tri = triangles_of(space)
    return merge_convex(from_csr(v, np.arange(len(tri) + 1, dtype=np.int64) * 3, tri.ravel()))


def rebuild_region(arrays: MeshArrays, new_space: shapely.Geometry,
                   region: shapely.Geometry, *, margin: float = 0.0,
                   merge: bool = True) -> MeshArrays:
    """``arrays`` with the polygons meeting ``region`` (grown by ``margin`` metres)
    replaced by a triangulation (merged when ``merge``) of their union and
    ``region`` inside ``new_space``; every other polygon is kept (same vertices, same order, first).

    ``new_space`` must equal the old free space outside ``region``. Falls back to
    a full rebuild when the local result fails its check (see the module doc).
    """
    new_space = polygonal_part(new_space)
    if region is None or region.is_empty:
        STATS["unchanged"] += 1
        return arrays
    scale = max(abs(v) for v in arrays.bounds()) + 1.0
    grow = [float(margin), float(margin) + 1e-3 * scale + 4 * DEFAULT_CHORD_ERROR]
    for attempt, m in enumerate(grow):
        reg = region.buffer(m) if m > 0 else region
        out = _local(arrays, new_space, reg, merge)
        if out is None:
            continue
        if isinstance(out, str):
            STATS["unchanged"] += 1
            return arrays
        STATS["grown" if attempt else "local"] += 1
        return out
    STATS["full"] += 1
    full = _full(new_space)
    return full


def _local(arrays: MeshArrays, new_space: shapely.Geometry, reg: shapely.Geometry,
           merge: bool) -> MeshArrays | str | None:
    removed, rgeoms = _meeting(arrays, reg)
    if len(removed) == 0 and _matches(arrays, new_space):
        return "same"
    # what the removed polygons covered, plus the region (space opened there,
    # outside the old mesh, e.g. a door's gap in a wall)
    union = shapely.union(shapely.coverage_union_all(rgeoms), reg) if len(removed) else reg
    local = shapely.intersection(union, new_space)
    keep = np.ones(arrays.n_polygons, dtype=bool)
    keep[removed] = False
    try:
        local = polygonal_part(local)
        lv, ltri = triangles_of(local)
    except ConfigError:
        lv = np.zeros((0, 2))
        ltri = np.zeros((0, 3), dtype=np.int64)
    lstarts = np.arange(len(ltri) + 1, dtype=np.int64) * 3
    lflat = ltri.ravel()
    if merge and len(ltri):
        lm = merge_convex(from_csr(lv, lstarts, lflat))
        lv = lm.vertices
        lstarts = lm.poly_start.astype(np.int64)
        lflat = lm.poly_verts.astype(np.int64)
    out = _assemble(arrays, keep, lv, lstarts, lflat)
    if out is None:
        return None
    return out if _matches(out, new_space) else None


def circle_polygons(circles: ArrayLike,
                    chord_error: float = DEFAULT_CHORD_ERROR) -> shapely.Geometry:
    """The union of the circles ``(n, 3)`` ``x, z, r`` (metres) as polygons that
    contain each true circle and lie within ``chord_error`` of it."""
    c = _check_circles(circles)
    polys = []
    for x, z, r in c:
        if r <= 0:
            continue
        d = disk_polygon(float(r), chord_error)
        polys.append(shapely.Polygon(d + np.array([x, z])))
    return shapely.union_all(polys) if polys else shapely.Polygon()


def _check_circles(circles: ArrayLike) -> NDArray[np.float64]:
    try:
        c = np.asarray(circles, dtype=np.float64)
    except (TypeError, ValueError):
        raise QueryError("circles: expected an (n, 3) array of x, z, r") from None
    if c.size == 0:
        return np.zeros((0, 3))
    if c.ndim != 2 or c.shape[1] != 3:
        raise QueryError(f"circles: expected an (n, 3) array of x, z, r, got shape {c.shape}")
    if not np.all(np.isfinite(c)) or np.abs(c).max() > 1e15:
        raise QueryError("circles: values must be finite and within +-1e15 m")
    if np.any(c[:, 2] < 0):
        raise QueryError("circles: radii must be >= 0")
    return c


def cut_circles(arrays: MeshArrays, space: shapely.Geometry, circles: ArrayLike,
                chord_error: float = DEFAULT_CHORD_ERROR) -> MeshArrays:
    """``arrays`` with the circles ``(n, 3)`` ``x, z, r`` (metres) cut out of the
    free space ``space`` (each circle's polygon lies outside the true circle,
    :func:`circle_polygons`); only the polygons the circles meet are rebuilt.

    Local: only the polygons whose boxes meet a circle are looked at, and only
    their union minus the circles goes through shapely; the result is checked
    locally (:func:`_cut_local`) and falls back to :func:`rebuild_region` on
    the whole new free space when that check fails. When ``space`` carries a
    precision grid (:func:`~navkit.mesh.build.free_space` snaps to one) the
    radii grow by one grid step, so snapping keeps the circles' clearance.

    Raises :class:`~navkit.errors.QueryError` for bad circles or when they
    cover the whole free space.
    """
    if not (chord_error > 0 and math.isfinite(chord_error)):
        raise QueryError(f"chord_error: must be a finite number > 0, got {chord_error!r}")
    c = _check_circles(circles)
    grid = float(shapely.get_precision(space)) if space is not None else 0.0
    if grid > 0 and len(c):
        c = c.copy()
        c[c[:, 2] > 0, 2] += grid
    disks = circle_polygons(c, chord_error)
    if disks.is_empty:
        return arrays
    if grid > 0:
        disks = shapely.set_precision(disks, grid)
    out = _cut_local(arrays, disks)
    if isinstance(out, MeshArrays):
        STATS["local"] += 1
        return out
    if out == "covered":
        raise QueryError("circles: they cover the whole free space")
    new_space = shapely.difference(space, disks)
    try:
        new_space = polygonal_part(new_space)
    except ConfigError:
        raise QueryError("circles: they cover the whole free space") from None
    return rebuild_region(arrays, new_space, disks)


def _cut_local(arrays: MeshArrays, disks: shapely.Geometry) -> MeshArrays | str | None:
    """The mesh with ``disks`` cut out, touching only the polygons that meet them;
    ``"covered"`` when nothing is left, None when the local check fails.

    Check (local, no whole-space geometry): the new polygons tile exactly
    ``union(removed) - disks`` (area and wall length, 1e-9 relative), every
    kept polygon's wall stays a wall and every edge it shared with a removed
    polygon is shared with a new one (no gap, no T-junction).
    """
    removed, rgeoms = _meeting(arrays, disks)
    if len(removed) == 0:
        return arrays
    union = shapely.coverage_union_all(rgeoms)
    try:
        local = polygonal_part(shapely.difference(union, disks))
    except ConfigError:
        local = None
    keep = np.ones(arrays.n_polygons, dtype=bool)
    keep[removed] = False
    if local is None:
        if not keep.any():
            return "covered"
        lv, lstarts, lflat = np.zeros((0, 2)), np.zeros(1, dtype=np.int64), \
            np.zeros(0, dtype=np.int64)
        lwall, larea = 0.0, 0.0
    else:
        try:
            lv, ltri = triangles_of(local)
            lm = from_csr(lv, np.arange(len(ltri) + 1, dtype=np.int64) * 3, ltri.ravel())
            lm = merge_convex(lm)
        except (ConfigError, QueryError):
            return None
        lwall, larea = _wall_length_and_area(lm)
        tol = 1e-9 * max(local.length, 1e-300)
        if abs(lwall - local.length) > tol or \
                abs(larea - local.area) > 1e-9 * max(local.area, 1e-300):
            return None
        lv = lm.vertices
        lstarts = lm.poly_start.astype(np.int64)
        lflat = lm.poly_verts.astype(np.int64)
    out = _assemble(arrays, keep, lv, lstarts, lflat)
    if out is None:
        return None
    # kept polygons come first, edge for edge: their walls must be as before,
    # and their edges that faced a removed polygon must face a new one
    kept = np.flatnonzero(keep)
    _, kidx = arrays.edges_of(kept)
    old_adj = arrays.poly_adj[kidx]
    new_adj = out.poly_adj[:len(kidx)]
    n_kept = len(kept)
    if not np.array_equal(old_adj < 0, new_adj < 0):
        return None
    faced = old_adj >= 0
    was_removed = faced & ~keep[np.where(faced, old_adj, 0)]
    if np.any(new_adj[was_removed] < n_kept):
        return None
    return out


def _assemble(arrays: MeshArrays, keep: NDArray[np.bool_], lv: NDArray[np.float64],
              lstarts: NDArray[np.int64], lflat: NDArray[np.int64]) -> MeshArrays | None:
    """Kept polygons of ``arrays`` (in order, first) plus new ones, vertices shared
    by exact coordinates; None when :func:`from_csr` refuses the result."""
    kept = np.flatnonzero(keep)
    lens, kidx = arrays.edges_of(kept)
    kverts = arrays.poly_verts[kidx].astype(np.int64)
    used = np.unique(kverts)
    allv = np.concatenate([arrays.vertices[used], lv])
    _, first, inv = np.unique(allv, axis=0, return_index=True, return_inverse=True)
    inv = inv.ravel()
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    new_id = rank[inv]
    verts = allv[np.sort(first)]
    old_map = np.full(arrays.n_vertices, -1, dtype=np.int64)
    old_map[used] = new_id[:len(used)]
    flat = np.concatenate([old_map[kverts], new_id[len(used):][lflat]])
    starts = np.concatenate([np.concatenate([[0], np.cumsum(lens)]),
                             lstarts[1:] + int(lens.sum())])
    if len(starts) < 2:
        return None
    try:
        return from_csr(verts, starts, flat)
    except QueryError:
        return None
