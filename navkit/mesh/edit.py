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


def _poly_geoms(arrays: MeshArrays, ids: NDArray[np.int64]) -> NDArray[Any]:
    ps = arrays.poly_start
    lens = (ps[ids + 1] - ps[ids]).astype(np.int64)
    starts = ps[ids].astype(np.int64)
    idx = np.repeat(starts - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens) + \
        np.arange(int(lens.sum()))
    coords = arrays.vertices[arrays.poly_verts[idx]]
    # close each ring
    ring = np.repeat(np.arange(len(ids)), lens)
    first = np.concatenate([[0], np.cumsum(lens)[:-1]])
    closed = np.insert(coords, np.cumsum(lens), coords[first], axis=0)
    closed_ring = np.insert(ring, np.cumsum(lens), np.arange(len(ids)))
    return shapely.polygons(shapely.linearrings(closed, indices=closed_ring))


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
    x0, z0, x1, z1 = reg.bounds
    bb = arrays.poly_bbox
    cand = np.flatnonzero((bb[:, 0] <= x1) & (bb[:, 2] >= x0) & (bb[:, 1] <= z1) & (bb[:, 3] >= z0))
    if len(cand):
        geoms = _poly_geoms(arrays, cand)
        hit = shapely.intersects(geoms, reg)
        removed = cand[hit]
        rgeoms = geoms[hit]
    else:
        removed = cand
        rgeoms = np.empty(0, dtype=object)
    if len(removed) == 0 and _matches(arrays, new_space):
        return "same"
    # what the removed polygons covered, plus the region (space opened there,
    # outside the old mesh, e.g. a door's gap in a wall)
    union = shapely.union(shapely.coverage_union_all(rgeoms), reg) if len(removed) else reg
    local = shapely.intersection(union, new_space)
    keep = np.ones(arrays.n_polygons, dtype=bool)
    keep[removed] = False
    kept = np.flatnonzero(keep)
    ps = arrays.poly_start
    lens = (ps[kept + 1] - ps[kept]).astype(np.int64)
    kidx = np.repeat(ps[kept].astype(np.int64) - np.concatenate([[0], np.cumsum(lens)[:-1]]),
                     lens) + np.arange(int(lens.sum()))
    kverts = arrays.poly_verts[kidx].astype(np.int64)
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
    # vertices: the kept ones in their old order, then the new ones
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
        out = from_csr(verts, starts, flat)
    except QueryError:
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

    Raises :class:`~navkit.errors.QueryError` for bad circles or when they
    cover the whole free space.
    """
    if not (chord_error > 0 and math.isfinite(chord_error)):
        raise QueryError(f"chord_error: must be a finite number > 0, got {chord_error!r}")
    disks = circle_polygons(circles, chord_error)
    if disks.is_empty:
        return arrays
    new_space = shapely.difference(space, disks)
    try:
        new_space = polygonal_part(new_space)
    except ConfigError:
        raise QueryError("circles: they cover the whole free space") from None
    return rebuild_region(arrays, new_space, disks)
