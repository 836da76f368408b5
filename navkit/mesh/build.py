"""Building a mesh: free space from a level, triangulation, merging (docs/navmesh.md §1).

The free space of a level (docs/navmesh.md §1.1) is the continuous form of the
grid's rules (docs/rules.md §2.3): inside an available area, farther than
``boundaryPadding`` from the boundary of their union, farther than
``agentRadius + objectPadding`` from every obstacle.

>>> from navkit.level import parse_level
>>> cfg = parse_level({"areas": [{"name": "a", "polygon": [[0, 0], [10, 0], [10, 6], [0, 6]]}],
...                    "obstacles": [{"name": "o", "polygon": [[4, 2], [6, 2], [6, 4], [4, 4]]}]})
>>> fs = free_space(cfg)
>>> round(fs.area, 1) < 60 - 4
True
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray

from .._kernels import mesh_build as _mk
from ..errors import ConfigError, QueryError, shown
from ..level import LevelConfig
from .arrays import MeshArrays, from_csr
from .merge import merge_convex

__all__ = ["free_space", "triangulate", "arc_segments", "circle_sides", "disk_polygon",
           "build_mesh", "polygon_area_ids", "random_level", "polygonal_part", "triangles_of",
           "DEFAULT_CHORD_ERROR", "MAX_MESH_VERTICES", "grid_size", "MIN_CHORD_ERROR",
           "MAX_CHORD_ERROR"]

#: Largest distance, metres, between an inflated obstacle's round corner and
#: the polygon arc that stands for it (docs/navmesh.md §1.2).
DEFAULT_CHORD_ERROR = 0.005

#: The chord errors a mesh may be built with, metres (as NavMesh accepts them).
MIN_CHORD_ERROR = 1e-6
MAX_CHORD_ERROR = 1.0
#: Most vertices a mesh built from a level may have (free-space rings, before
#: triangulation): about 2 GB of triangulation work; beyond it
#: :func:`build_mesh` raises ConfigError naming ``obstacles`` instead of running
#: for minutes or exhausting memory.
MAX_MESH_VERTICES = 2_000_000


def arc_segments(radius: float, chord_error: float) -> int:
    """Segments per quarter circle so that the arc's chord error is at most ``chord_error``.

    Kept for callers; the free space uses :func:`disk_polygon` (circumscribed
    polygons, so the arcs stay on the safe side).

    >>> arc_segments(0.7, 0.005)
    7
    """
    if radius <= chord_error:
        return 1
    half = math.acos(1.0 - chord_error / radius)  # half the angle one chord may span
    return max(1, math.ceil((math.pi / 2) / (2 * half)))


def circle_sides(radius: float, chord_error: float) -> int:
    """Sides ``N`` (a multiple of 4, >= 4) of the regular polygon that stands for a
    circle of ``radius`` metres: its edges touch the circle from outside and its
    corners lie at most ``chord_error`` beyond it, ``radius / cos(pi / N) - radius
    <= chord_error``.

    >>> circle_sides(0.7, 0.005)
    28
    """
    if not (chord_error > 0 and math.isfinite(chord_error)):
        raise ConfigError(f"must be a finite number > 0, got {chord_error!r}", field="chord_error")
    if radius <= 0:
        return 4
    ratio = radius / (radius + chord_error)
    if ratio >= 1.0:  # the chord error is below the radius's rounding: as fine as allowed
        return 1 << 16
    half = math.acos(ratio)  # pi / N at the limit
    n = max(4, math.ceil(math.pi / half - 1e-9))
    return int(min(4 * math.ceil(n / 4), 1 << 16))


def disk_polygon(radius: float, chord_error: float) -> NDArray[np.float64]:
    """``(N, 2)`` corners, counter-clockwise about the origin, of the regular polygon
    circumscribed about the circle of ``radius`` (see :func:`circle_sides`): an edge
    faces each axis direction, so an axis-aligned edge is offset by exactly ``radius``."""
    n = circle_sides(radius, chord_error)
    big = radius / math.cos(math.pi / n)
    ang = (np.arange(n) + 0.5) * (2 * math.pi / n)
    return np.stack([big * np.cos(ang), big * np.sin(ang)], axis=1)


def _sum_hulls(points: NDArray[np.float64], disk: NDArray[np.float64]) -> NDArray[Any]:
    """Convex hulls of ``points[i] + disk`` for each group: ``points`` is ``(n, k, 2)``."""
    n, k, _ = points.shape
    if n == 0:
        return np.empty(0, dtype=object)
    pts = (points[:, :, None, :] + disk[None, None, :, :]).reshape(n * k * len(disk), 2)
    grp = np.repeat(np.arange(n), k * len(disk))
    order = np.lexsort((pts[:, 1], pts[:, 0], grp))
    pts = np.ascontiguousarray(pts[order])
    gs = np.arange(n + 1, dtype=np.int64) * (k * len(disk))
    out = np.empty((len(pts) + 2 * n, 2), dtype=np.float64)
    out_start = np.empty(n + 1, dtype=np.int64)
    _mk.group_hulls(pts, gs, out, out_start)
    lens = np.diff(out_start)
    rings = shapely.linearrings(out[:int(out_start[-1])], indices=np.repeat(np.arange(n), lens))
    return shapely.polygons(rings)


def _inflate(polys: list[shapely.Polygon], radius: float, chord_error: float) -> shapely.Geometry:
    """The union of ``polys`` grown by ``radius``: a Minkowski sum with the
    circumscribed polygon of :func:`disk_polygon`, so it contains the true
    inflation and lies within ``chord_error`` of it. Convex polygons are summed
    as hulls; other polygons are the union of themselves and one hull per edge."""
    if not polys:
        return shapely.Polygon()
    if radius <= 0:
        return shapely.union_all(polys)
    disk = disk_polygon(radius, chord_error)
    geoms = np.array(polys, dtype=object)
    convex = np.abs(shapely.area(shapely.convex_hull(geoms)) - shapely.area(geoms)) <= \
        1e-12 * np.maximum(shapely.area(geoms), 1e-300)
    convex &= shapely.get_num_interior_rings(geoms) == 0
    parts: list[Any] = []
    by_len: dict[int, list[NDArray[np.float64]]] = {}
    for g in geoms[convex]:
        c = shapely.get_coordinates(g.exterior)[:-1]
        by_len.setdefault(len(c), []).append(c)
    for _, group in sorted(by_len.items()):
        parts.extend(_sum_hulls(np.stack(group), disk))
    other = list(geoms[~convex])
    if other:
        segs = _edges(other)
        parts.extend(other)
        parts.extend(_sum_hulls(segs, disk))
    return shapely.union_all(parts)


def _edges(geoms: list[Any]) -> NDArray[np.float64]:
    """``(m, 2, 2)`` every ring edge of ``geoms`` (exteriors and holes)."""
    rings = shapely.get_rings(np.array(geoms, dtype=object))
    coords, ring_id = shapely.get_coordinates(rings, return_index=True)
    same = ring_id[1:] == ring_id[:-1]
    a = coords[:-1][same]
    b = coords[1:][same]
    return np.stack([a, b], axis=1)


def _check_weights(config: LevelConfig, weights: str) -> None:
    if weights not in ("raise", "ignore"):
        raise ConfigError(f"expected 'raise' or 'ignore', got {weights!r}", field="weights")
    if weights == "ignore":
        return
    for i, a in enumerate(config.areas):
        if a.available and a.weight != 1:
            raise ConfigError(
                f"area {a.name!r} has weight {a.weight}: exact weighted-region paths are out of "
                "scope for meshes (pass weights='ignore' to treat every area as weight 1)",
                field=f"areas[{i}].weight")


def grid_size(bounds: tuple[float, float, float, float]) -> float:
    """The snapping grid, metres, of a free space with ``bounds`` ``(x0, z0, x1, z1)``.

    The largest power of two not above ``1e-9`` of the larger side of the
    bounds (6e-8 m for a 100 m level), but at least 64 float64 ulps of
    the largest coordinate (so snapped coordinates stay exact far from the
    origin). A power of two keeps integer and binary-fraction coordinates
    exactly where they are.

    >>> grid_size((0.0, 0.0, 100.0, 70.0)) == 2.0 ** -24
    True
    """
    x0, z0, x1, z1 = (float(b) for b in bounds)
    side = max(x1 - x0, z1 - z0, 1e-300)
    big = max(abs(x0), abs(z0), abs(x1), abs(z1), 1e-300)
    g = max(1e-9 * side, 64 * math.ulp(big), 2.0 ** -30)
    return float(2.0 ** math.floor(math.log2(g)))


def _vertex_estimate(config: LevelConfig, chord_error: float, union_verts: int) -> int:
    """An upper bound on the free space's vertices before any geometry is built."""
    n = union_verts
    if config.boundary_padding > 0:
        n += union_verts * (circle_sides(config.boundary_padding, chord_error) + 2)
    sides = circle_sides(config.obstacle_radius, chord_error) if config.obstacle_radius > 0 else 0
    for o in config.obstacles:
        n += len(o.polygon) + sides
        if n > MAX_MESH_VERTICES:
            break
    return n


def free_space(config: LevelConfig, *, chord_error: float = DEFAULT_CHORD_ERROR,
               weights: str = "raise") -> shapely.Geometry:
    """The level's free space as a shapely (multi)polygon, metres.

    Inside an available area (holes cut out), at distance >= ``boundaryPadding``
    from the boundary of the union of available areas and >= ``agentRadius +
    objectPadding`` from every obstacle. Round corners are polygon arcs that
    keep on the safe side: every point of the result has at least the true
    clearance, and the result misses at most a ``chord_error`` wide strip of
    the exact free space (:func:`disk_polygon`).

    The result is snapped to the grid of :func:`grid_size` (``shapely.set_precision``):
    near-duplicate vertices (unions of inflated obstacles) merge and slivers
    thinner than the grid vanish, so the triangulation has no flat triangles.
    A snapped boundary lies within one grid step of the unsnapped one; the
    paddings and the obstacle radius are grown by one grid step beforehand, so
    the clearance guarantee above still holds when they are > 0 (with a zero
    obstacle radius the boundary may lie up to ``grid_size`` inside an
    obstacle; grid-aligned corners do not move at all).

    ``weights="raise"`` refuses an available area whose weight is not 1
    (:class:`~navkit.errors.ConfigError` naming ``areas[i].weight``);
    ``"ignore"`` treats every area as weight 1. ``chord_error`` must lie in
    [:data:`MIN_CHORD_ERROR`, :data:`MAX_CHORD_ERROR`] (ConfigError before any
    work otherwise). Raises ConfigError when the free space is empty or would
    have more than :data:`MAX_MESH_VERTICES` vertices (naming ``obstacles``).
    """
    _check_weights(config, weights)
    if isinstance(chord_error, bool) or not (
            isinstance(chord_error, (int, float))
            and MIN_CHORD_ERROR <= chord_error <= MAX_CHORD_ERROR):  # (NaN fails too)
        # (checked before any work: a tiny chord error means huge circle polygons)
        raise ConfigError(f"must be a number in [{MIN_CHORD_ERROR:g}, {MAX_CHORD_ERROR:g}] "
                          f"metres, got {shown(chord_error)}", field="chord_error")
    avail = [a.geometry for a in config.areas if a.available]
    if not avail:
        raise ConfigError("no available area: the free space is empty", field="areas")
    est = _vertex_estimate(config, chord_error,
                           int(sum(shapely.get_num_coordinates(a) for a in avail)))
    if est > MAX_MESH_VERTICES:
        raise ConfigError(f"the free space would have more than MAX_MESH_VERTICES = "
                          f"{MAX_MESH_VERTICES:_} vertices (about {est:_}): use fewer or "
                          "simpler obstacles, or a larger chord_error", field="obstacles")
    union = shapely.union_all(avail)
    grid = grid_size(union.bounds)
    cut: list[Any] = []
    if config.boundary_padding > 0:
        # points within boundaryPadding of the union's boundary: one hull per edge
        disk = disk_polygon(config.boundary_padding + grid, chord_error)
        cut.extend(_sum_hulls(_edges(list(getattr(union, "geoms", [union]))), disk))
    if config.obstacles:
        r = config.obstacle_radius
        cut.append(_inflate([o.geometry for o in config.obstacles], r + grid if r > 0 else 0.0,
                            chord_error))
    if cut:
        union = union.difference(shapely.union_all(cut))
    space = polygonal_part(union)
    space = polygonal_part(shapely.set_precision(space, grid))
    n = int(shapely.get_num_coordinates(space))
    if n > MAX_MESH_VERTICES:
        raise ConfigError(f"the free space has {n:_} vertices, more than MAX_MESH_VERTICES = "
                          f"{MAX_MESH_VERTICES:_}", field="obstacles")
    return space


def polygonal_part(geom: shapely.Geometry) -> shapely.Geometry:
    """The polygons of ``geom`` with area, as one (multi)polygon; ConfigError when none."""
    if not geom.is_valid:
        geom = shapely.make_valid(geom)
    polys = [g for g in shapely.get_parts(geom) if isinstance(g, shapely.Polygon)
             and not g.is_empty and g.area > 0]
    polys += [q for g in shapely.get_parts(geom) if isinstance(g, shapely.MultiPolygon)
              for q in g.geoms if q.area > 0]
    if not polys:
        raise ConfigError("the free space is empty (obstacles and padding cover every area)",
                          field="areas")
    return shapely.MultiPolygon(polys) if len(polys) > 1 else polys[0]


def triangulate(space: shapely.Geometry) -> MeshArrays:
    """A constrained Delaunay triangulation of ``space`` as a mesh (not merged)."""
    v, tri = triangles_of(space)
    return from_csr(v, np.arange(len(tri) + 1, dtype=np.int64) * 3, tri.ravel())


def triangles_of(space: shapely.Geometry) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Vertices ``(V, 2)`` and counter-clockwise triangles ``(T, 3)`` of the CDT of ``space``.

    Flat triangles (height at most ``1e-10`` of the longest side, which the
    CDT makes from nearly collinear vertices) are removed without breaking
    conformity: the neighbour across the long side is split at the middle
    vertex (:func:`_drop_flat`).
    """
    tris = shapely.constrained_delaunay_triangles(space)
    coords = shapely.get_coordinates(tris)
    n = len(coords) // 4
    if n == 0:
        raise ConfigError("the free space has no triangles", field="areas")
    # every triangle is a closed ring of 4 coordinates
    flat = coords.reshape(n, 4, 2)[:, :3, :].reshape(-1, 2)
    uniq, inverse = np.unique(flat, axis=0, return_inverse=True)
    tri = _drop_flat(uniq, inverse.reshape(n, 3).astype(np.int64))
    if len(tri) == 0:
        raise ConfigError("the free space has no triangles", field="areas")
    return uniq, tri


#: A triangle whose height is at most this share of its longest side is flat.
_FLAT = 1e-10


def _flat_and_ccw(v: NDArray[np.float64],
                  tri: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    a, b, c = v[tri[:, 0]], v[tri[:, 1]], v[tri[:, 2]]
    e1, e2, e3 = b - a, c - a, c - b
    cross = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]
    long2 = np.maximum(np.maximum((e1 * e1).sum(1), (e2 * e2).sum(1)), (e3 * e3).sum(1))
    flat = ~(np.abs(cross) > _FLAT * long2)
    cw = (cross < 0) & ~flat
    out = tri.copy()
    out[cw, 1], out[cw, 2] = tri[cw, 2], tri[cw, 1]
    return out, flat


def _drop_flat(v: NDArray[np.float64], tri: NDArray[np.int64]) -> NDArray[np.int64]:
    """``tri`` counter-clockwise, without flat triangles, still conforming.

    A flat triangle ``(u, m, w)`` with ``m`` (nearly) on the long side ``u w``
    is dropped; the triangle across ``u w``, if any, is split at ``m`` into two
    (a wall stays a wall: ``u m`` and ``m w`` already face other triangles).
    Splits that come out flat are handled the same way; the loop is bounded.
    """
    tri, flat = _flat_and_ccw(v, tri)
    if not flat.any():
        return tri
    tris = [list(map(int, t)) for t in tri]
    alive = [True] * len(tris)
    todo = [int(i) for i in np.flatnonzero(flat)]
    for _ in range(8 * len(todo) + 16):
        if not todo:
            break
        t = todo.pop()
        if not alive[t]:
            continue
        alive[t] = False
        ids = tris[t]
        pts = v[ids]
        side2 = [float(((pts[(k + 1) % 3] - pts[k]) ** 2).sum()) for k in range(3)]
        k = int(np.argmax(side2))
        u, w, m = ids[k], ids[(k + 1) % 3], ids[(k + 2) % 3]
        for s, other in enumerate(tris):
            if not alive[s]:
                continue
            for j in range(3):
                x, y = other[j], other[(j + 1) % 3]
                if (x, y) in ((u, w), (w, u)):
                    d = other[(j + 2) % 3]
                    alive[s] = False
                    for new in ([x, m, d], [m, y, d]):
                        nt, nf = _flat_and_ccw(v, np.array([new], dtype=np.int64))
                        tris.append([int(q) for q in nt[0]])
                        alive.append(True)
                        if nf[0]:
                            todo.append(len(tris) - 1)
                    break
            else:
                continue
            break
    out = np.array([t for t, ok in zip(tris, alive, strict=True) if ok], dtype=np.int64)
    return out.reshape(-1, 3)


def build_mesh(config: LevelConfig, *, chord_error: float = DEFAULT_CHORD_ERROR,
               merge: bool = True, weights: str = "raise") -> tuple[MeshArrays, shapely.Geometry]:
    """The level's mesh and the free space it tiles (see :func:`free_space`).

    Triangulates the free space (constrained Delaunay) and, with ``merge``,
    merges the triangles into larger convex polygons (:func:`merge_convex`).

    >>> from navkit.level import parse_level
    >>> cfg = parse_level(random_level(20, 10, 5, seed=1))
    >>> mesh, space = build_mesh(cfg)
    >>> abs(sum(shapely.Polygon(p).area for p in mesh.polygons()) - space.area) < 1e-9
    True
    """
    space = free_space(config, chord_error=chord_error, weights=weights)
    try:
        mesh = triangulate(space)
        if merge:
            mesh = merge_convex(mesh)
    except QueryError as exc:  # pragma: no cover - the snapping above should prevent it
        raise ConfigError(f"the free space could not be meshed ({exc}); coordinates far from "
                          "the origin for the level's size lose precision", field="areas") from None
    return mesh, space


def polygon_area_ids(arrays: MeshArrays, config: LevelConfig) -> NDArray[np.int32]:
    """``(P,)`` int32: index in ``config.areas`` of the last-listed available area
    that covers each polygon's centroid (vertex mean), ``-1`` where none does."""
    ps = arrays.poly_start
    cnt = np.diff(ps)
    pts = arrays.vertices[arrays.poly_verts]
    cx = np.add.reduceat(pts[:, 0], ps[:-1]) / cnt
    cz = np.add.reduceat(pts[:, 1], ps[:-1]) / cnt
    out = np.full(arrays.n_polygons, -1, dtype=np.int32)
    points = shapely.points(cx, cz)
    for i, a in enumerate(config.areas):
        if a.available:
            out[shapely.covers(a.geometry, points)] = i
    return out


def random_level(width: float, depth: float, n_obstacles: int, seed: int, *,
                 agent_radius: float = 0.45, object_padding: float = 0.25,
                 size: tuple[float, float] = (0.5, 3.0), doors: int = 0) -> dict[str, Any]:
    """A JSON level dict (format of :mod:`navkit.level.config`): one ``width`` x
    ``depth`` metre floor with ``n_obstacles`` random axis-aligned rectangles
    (sides drawn uniformly from ``size`` metres, possibly overlapping).

    With ``doors > 0`` the floor is split by a 0.4 m wall at ``x = width / 2``
    into two rooms joined by ``doors`` door areas (1.6 m wide, named
    ``door0``, ...), all open. Deterministic for a given ``seed``.

    >>> d = random_level(10, 5, 3, seed=0)
    >>> len(d["obstacles"]), d["areas"][0]["polygon"][2]
    (3, [10.0, 5.0])
    """
    rng = np.random.default_rng(seed)
    w = float(width)
    d = float(depth)
    areas: list[dict[str, Any]] = []
    if doors > 0:
        m = w / 2
        areas.append({"name": "west", "polygon": [[0.0, 0.0], [m - 0.2, 0.0], [m - 0.2, d],
                                                   [0.0, d]]})
        areas.append({"name": "east", "polygon": [[m + 0.2, 0.0], [w, 0.0], [w, d],
                                                   [m + 0.2, d]]})
        for j in range(doors):
            zc = d * (j + 1) / (doors + 1)
            door = [[m - 0.3, zc - 0.8], [m + 0.3, zc - 0.8], [m + 0.3, zc + 0.8],
                    [m - 0.3, zc + 0.8]]
            areas.append({"name": f"door{j}", "polygon": door})
    else:
        areas.append({"name": "floor", "polygon": [[0.0, 0.0], [w, 0.0], [w, d], [0.0, d]]})
    obstacles = []
    lo, hi = size
    for i in range(int(n_obstacles)):
        sx, sz = rng.uniform(lo, hi, 2)
        x0 = float(rng.uniform(0, w - sx))
        z0 = float(rng.uniform(0, d - sz))
        x1 = x0 + float(sx)
        z1 = z0 + float(sz)
        obstacles.append({"name": f"box{i}", "polygon": [[x0, z0], [x1, z0], [x1, z1], [x0, z1]]})
    return {"cellSize": 0.5, "agentRadius": agent_radius, "objectPadding": object_padding,
            "boundaryPadding": 0.0, "areas": areas, "obstacles": obstacles}
