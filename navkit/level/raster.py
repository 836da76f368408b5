"""Rasterize a :class:`~navkit.level.config.LevelConfig` into a :class:`~navkit.grid.NavGrid`.

Rules (seed 000 §2b), evaluated at every cell centre
``(min_x + (x + 0.5) * cellSize, min_z + (z + 0.5) * cellSize)``:

1. **Areas.** A cell is walkable when its centre lies in an *available* area:
   inside the outer ring and outside every hole. Areas are closed sets: a
   centre exactly on an edge or vertex (outer ring or hole) counts as inside,
   like shapely's ``covers``. Concave areas and overlapping areas are fine.
   (On slanted edges "exactly on" is decided by the crossing coordinate of the
   cell row computed in float64, i.e. within one rounding.)
2. **Boundary padding.** When ``boundaryPadding > 0``, a walkable cell whose
   centre lies at distance ``<= boundaryPadding`` from the boundary of the
   *union* of available areas is blocked. Seams where areas adjoin or overlap
   (a door area touching two rooms) are not edges; hole rings and the outer
   boundary are.
3. **Obstacles.** A cell is blocked when its centre lies in an obstacle
   polygon (boundary included) or at distance ``<= agentRadius +
   objectPadding`` from the obstacle's edges. Distances are exact Euclidean
   point-to-segment distances (compared squared in float64), not polygon
   buffers.
4. **Weights.** A walkable cell's terrain weight is the ``weight`` of the
   *last-listed* available area containing its centre: areas paint over
   earlier ones like layers (a road listed after the grass it crosses costs 1,
   a mud patch listed after the road costs 4). Blocked cells get 1. A level
   where every weight is 1 yields ``weights=None``.

The work happens in numba kernels: areas and obstacle interiors by scanline
(per cell row, the edge crossings are sorted and the spans between them
filled), obstacle clearance and boundary padding by visiting, for every edge,
only the cells whose centre can lie within the radius of it. Cost is
``O(rows * edges + filled cells + cells near edges)``, never a Python loop
over cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from numpy.typing import NDArray

from .._numba_config import njit
from ..errors import ConfigError
from ..grid import NavGrid
from .config import GridGeometry, LevelConfig, ObstacleConfig, Ring

__all__ = ["rasterize", "cell_centers", "block_obstacles"]

F64 = NDArray[np.float64]


# ---------------------------------------------------------------------- kernels
@njit
def _mark_span(mask, weight, row, cx, lo, hi, value, w, use_weight):
    i0 = np.searchsorted(cx, lo, side="left")
    i1 = np.searchsorted(cx, hi, side="right")
    for i in range(i0, i1):
        mask[row, i] = value
        if use_weight:
            weight[row, i] = w


@njit
def _fill_polygons(mask, weight, cx, cz, vx, vz, ring_off, poly_off, poly_w, value, use_weight):
    """Set ``mask`` to ``value`` (and ``weight`` to the polygon's) at centres covered by polygons.

    Polygons are painted in order, so the last one covering a centre sets its weight.

    Polygon ``p`` owns rings ``poly_off[p]:poly_off[p+1]``; ring ``r`` owns
    vertices ``ring_off[r]:ring_off[r+1]`` of ``vx``/``vz`` (no closing repeat).
    Even-odd rule over all rings of a polygon (valid polygons: interior), plus
    centres exactly on edges and vertices.
    """
    n_poly = poly_off.shape[0] - 1
    for p in range(n_poly):
        r0 = poly_off[p]
        r1 = poly_off[p + 1]
        v0 = ring_off[r0]
        v1 = ring_off[r1]
        zmin = vz[v0]
        zmax = vz[v0]
        for v in range(v0, v1):
            if vz[v] < zmin:
                zmin = vz[v]
            if vz[v] > zmax:
                zmax = vz[v]
        row0 = np.searchsorted(cz, zmin, side="left")
        row1 = np.searchsorted(cz, zmax, side="right")
        if row0 >= row1:
            continue
        w = poly_w[p]
        buf = np.empty(v1 - v0, dtype=np.float64)
        for row in range(row0, row1):
            pz = cz[row]
            k = 0
            for r in range(r0, r1):
                a = ring_off[r]
                b = ring_off[r + 1]
                for i in range(a, b):
                    j = i + 1 if i + 1 < b else a
                    x0 = vx[i]
                    z0 = vz[i]
                    x1 = vx[j]
                    z1 = vz[j]
                    if (z0 > pz) != (z1 > pz):
                        buf[k] = x0 + (pz - z0) * (x1 - x0) / (z1 - z0)
                        k += 1
                    if z0 == pz:
                        # boundary points the crossings can miss: a vertex on
                        # the row (each vertex starts one edge) or a whole
                        # horizontal edge lying on it
                        if z1 == pz:
                            _mark_span(
                                mask,
                                weight,
                                row,
                                cx,
                                min(x0, x1),
                                max(x0, x1),
                                value,
                                w,
                                use_weight,
                            )
                        else:
                            _mark_span(mask, weight, row, cx, x0, x0, value, w, use_weight)
            if k >= 2:
                xs = np.sort(buf[:k])
                for s in range(0, k - 1, 2):
                    _mark_span(mask, weight, row, cx, xs[s], xs[s + 1], value, w, use_weight)


@njit
def _clear_near_segments(mask, cx, cz, ax, az, bx, bz, r):
    """Set ``mask`` False at centres within distance ``r`` (``d*d <= r*r``) of any segment."""
    r2 = r * r
    n = ax.shape[0]
    for s in range(n):
        x0 = ax[s]
        z0 = az[s]
        x1 = bx[s]
        z1 = bz[s]
        dx = x1 - x0
        dz = z1 - z0
        l2 = dx * dx + dz * dz
        # conservative reach: r plus a hair for rounding (candidates are tested exactly)
        scale = max(1.0, abs(x0), abs(z0), abs(x1), abs(z1), r)
        rs = r + 1e-9 * scale
        row0 = np.searchsorted(cz, min(z0, z1) - rs, side="left")
        row1 = np.searchsorted(cz, max(z0, z1) + rs, side="right")
        for row in range(row0, row1):
            pz = cz[row]
            if dz == 0.0:
                lo = min(x0, x1) - rs
                hi = max(x0, x1) + rs
            else:
                ta = (pz - rs - z0) / dz
                tb = (pz + rs - z0) / dz
                tlo = max(0.0, min(ta, tb))
                thi = min(1.0, max(ta, tb))
                if tlo > thi:
                    continue
                xa = x0 + tlo * dx
                xb = x0 + thi * dx
                lo = min(xa, xb) - rs
                hi = max(xa, xb) + rs
            i0 = np.searchsorted(cx, lo, side="left")
            i1 = np.searchsorted(cx, hi, side="right")
            for i in range(i0, i1):
                if not mask[row, i]:
                    continue
                px = cx[i] - x0
                qz = pz - z0
                if l2 == 0.0:
                    d2 = px * px + qz * qz
                else:
                    t = (px * dx + qz * dz) / l2
                    if t < 0.0:
                        t = 0.0
                    elif t > 1.0:
                        t = 1.0
                    ex = px - t * dx
                    ez = qz - t * dz
                    d2 = ex * ex + ez * ez
                if d2 <= r2:
                    mask[row, i] = False


# --------------------------------------------------------------------- packing
@dataclass(frozen=True)
class _Packed:
    vx: F64
    vz: F64
    ring_off: NDArray[np.int64]
    poly_off: NDArray[np.int64]
    weights: NDArray[np.int32]

    @property
    def n_polys(self) -> int:
        return int(self.poly_off.shape[0] - 1)


def _pack(polys: Sequence[Sequence[Ring]], weights: Sequence[int] | None = None) -> _Packed:
    xs: list[float] = []
    zs: list[float] = []
    ring_off = [0]
    poly_off = [0]
    for rings in polys:
        for ring in rings:
            for x, z in ring:
                xs.append(x)
                zs.append(z)
            ring_off.append(len(xs))
        poly_off.append(len(ring_off) - 1)
    w = (
        np.ones(len(polys), dtype=np.int32)
        if weights is None
        else np.asarray(weights, dtype=np.int32)
    )
    return _Packed(
        vx=np.asarray(xs, dtype=np.float64),
        vz=np.asarray(zs, dtype=np.float64),
        ring_off=np.asarray(ring_off, dtype=np.int64),
        poly_off=np.asarray(poly_off, dtype=np.int64),
        weights=w,
    )


def _ring_segments(packed: _Packed) -> tuple[F64, F64, F64, F64]:
    """Every edge of every ring as ``(ax, az, bx, bz)`` arrays."""
    n = packed.vx.shape[0]
    idx = np.arange(n)
    nxt = idx + 1
    starts = packed.ring_off[:-1]
    ends = packed.ring_off[1:]
    nxt[ends - 1] = starts  # close each ring
    return packed.vx, packed.vz, packed.vx[nxt], packed.vz[nxt]


def _boundary_segments(geom: shapely.Geometry) -> tuple[F64, F64, F64, F64]:
    """Edges of a (multi)polygon's boundary as ``(ax, az, bx, bz)``."""
    empty = np.empty(0, dtype=np.float64)
    if geom is None or geom.is_empty:
        return empty, empty, empty, empty
    lines = shapely.get_parts(shapely.boundary(shapely.get_parts(geom)))
    lines = shapely.get_parts(lines)  # MultiLineString boundaries -> rings
    coords, index = shapely.get_coordinates(lines, return_index=True)
    if coords.shape[0] < 2:
        return empty, empty, empty, empty
    same = index[:-1] == index[1:]
    a = coords[:-1][same]
    b = coords[1:][same]
    return (
        np.ascontiguousarray(a[:, 0]),
        np.ascontiguousarray(a[:, 1]),
        np.ascontiguousarray(b[:, 0]),
        np.ascontiguousarray(b[:, 1]),
    )


@dataclass(frozen=True)
class PreparedLevel:
    """A config's geometry packed for the kernels (built once per config)."""

    config: LevelConfig
    geometry: GridGeometry
    cx: F64
    cz: F64
    areas: _Packed
    weighted: bool
    obstacles: _Packed
    obstacle_segments: tuple[F64, F64, F64, F64]
    boundary_segments: tuple[F64, F64, F64, F64] | None

    @classmethod
    def build(cls, config: LevelConfig) -> PreparedLevel:
        geo = config.grid_geometry()
        cx, cz = cell_centers(geo)
        avail = [a for a in config.areas if a.available]
        areas = _pack([(a.polygon, *a.holes) for a in avail], [a.weight for a in avail])
        weighted = any(a.weight != 1 for a in avail)
        obstacles = _pack([(o.polygon,) for o in config.obstacles])
        boundary = None
        if config.boundary_padding > 0:
            union = shapely.union_all([a.geometry for a in avail]) if avail else None
            boundary = _boundary_segments(union)
        return cls(
            config=config,
            geometry=geo,
            cx=cx,
            cz=cz,
            areas=areas,
            weighted=weighted,
            obstacles=obstacles,
            obstacle_segments=_ring_segments(obstacles),
            boundary_segments=boundary,
        )

    def raster_window(
        self, x0: int, x1: int, z0: int, z1: int
    ) -> tuple[NDArray[np.bool_], NDArray[np.int32] | None]:
        """Walkable mask and weights of cells ``[z0:z1, x0:x1]`` (same as the full grid there)."""
        cfg = self.config
        cx = self.cx[x0:x1]
        cz = self.cz[z0:z1]
        shape = (cz.shape[0], cx.shape[0])
        walk = np.zeros(shape, dtype=np.bool_)
        weight = (
            np.ones(shape, dtype=np.int32) if self.weighted else np.ones((1, 1), dtype=np.int32)
        )
        if walk.size == 0:
            return walk, (weight if self.weighted else None)
        a = self.areas
        _fill_polygons(
            walk, weight, cx, cz, a.vx, a.vz, a.ring_off, a.poly_off, a.weights, True, self.weighted
        )
        if self.boundary_segments is not None and self.boundary_segments[0].shape[0]:
            _clear_near_segments(walk, cx, cz, *self.boundary_segments, cfg.boundary_padding)
        _block(walk, cx, cz, self.obstacles, self.obstacle_segments, cfg.obstacle_radius)
        if not self.weighted:
            return walk, None
        weight[~walk] = 1
        return walk, weight

    def make_grid(
        self, walk: NDArray[np.bool_], weight: NDArray[np.int32] | None, *, name: str | None = None
    ) -> NavGrid:
        """Wrap arrays (not copied; they become read-only) into a NavGrid with the level's geometry."""
        cfg = self.config
        geo = self.geometry
        return NavGrid(
            walk,
            weight,
            cell_size=geo.cell_size,
            min_x=geo.min_x,
            min_z=geo.min_z,
            floor_y=cfg.floor_y,
            agent_radius=cfg.agent_radius,
            name=cfg.name if name is None else name,
            meta={
                "objectPadding": cfg.object_padding,
                "boundaryPadding": cfg.boundary_padding,
                "source": cfg.source,
                "availableAreas": [a.name for a in cfg.areas if a.available],
                "obstacleCount": len(cfg.obstacles),
            },
        )


def _block(
    walk: NDArray[np.bool_],
    cx: F64,
    cz: F64,
    obstacles: _Packed,
    segments: tuple[F64, F64, F64, F64],
    radius: float,
) -> None:
    """Rule 3 in place: block centres inside an obstacle or within ``radius`` of its edges."""
    o = obstacles
    if not o.n_polys:
        return
    no_weight = np.ones((1, 1), dtype=np.int32)
    _fill_polygons(
        walk, no_weight, cx, cz, o.vx, o.vz, o.ring_off, o.poly_off, o.weights, False, False
    )
    _clear_near_segments(walk, cx, cz, *segments, radius)


def block_obstacles(
    walkable: NDArray[np.bool_],
    geometry: GridGeometry,
    obstacles: Sequence[ObstacleConfig],
    radius: float,
) -> None:
    """Block obstacle polygons in a ``(depth, width)`` bool array, in place (rule 3).

    A cell is blocked when its centre lies in a polygon (boundary included) or
    at distance ``<= radius`` from its edges, exactly as :func:`rasterize`
    blocks a level's obstacles with ``radius = agentRadius + objectPadding``.
    Used to stamp obstacle polygons onto grids that have no polygon level
    (for example one read from a ``.txt`` file).
    """
    if walkable.shape != (geometry.depth, geometry.width) or walkable.dtype != np.bool_:
        raise ConfigError(
            f"expected a bool array of shape {(geometry.depth, geometry.width)}, "
            f"got {walkable.dtype} {walkable.shape}",
            field="walkable",
        )
    packed = _pack([(o.polygon,) for o in obstacles])
    cx, cz = cell_centers(geometry)
    _block(walkable, cx, cz, packed, _ring_segments(packed), float(radius))


def cell_centers(geo: GridGeometry) -> tuple[F64, F64]:
    """Cell-centre X (per column) and Z (per row), exactly as :meth:`NavGrid.cell_center`."""
    cs = geo.cell_size
    cx = geo.min_x + (np.arange(geo.width, dtype=np.float64) + 0.5) * cs
    cz = geo.min_z + (np.arange(geo.depth, dtype=np.float64) + 0.5) * cs
    return cx, cz


def rasterize(config: LevelConfig, *, name: str | None = None) -> NavGrid:
    """Build the :class:`~navkit.grid.NavGrid` of a level (rules in the module docs).

    ``name`` overrides the grid's label (default ``config.name``, the file
    stem). ``meta`` records ``objectPadding``, ``boundaryPadding``, ``source``,
    ``availableAreas`` and ``obstacleCount``.
    """
    if not isinstance(config, LevelConfig):
        raise TypeError(f"expected a LevelConfig, got {type(config).__name__}")
    prep = PreparedLevel.build(config)
    geo = prep.geometry
    walk, weight = prep.raster_window(0, geo.width, 0, geo.depth)
    return prep.make_grid(walk, weight, name=name)
