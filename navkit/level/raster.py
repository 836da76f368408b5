"""Rasterize a :class:`~navkit.level.config.LevelConfig` into a :class:`~navkit.grid.NavGrid`.

Rules (docs/rules.md §2.2-§2.3), evaluated at every cell centre
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

The work happens in numba kernels (:mod:`navkit._kernels.raster`): areas and
obstacle interiors by scanline (per cell row, the edge crossings are sorted
and the spans between them filled), obstacle clearance and boundary padding
by visiting, for every edge, only the cells whose centre can lie within the
radius of it. Cost is ``O(rows * edges + filled cells + cells near edges)``,
never a Python loop over cells. This module packs a level's polygons into the
kernels' argument layouts and calls them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from numpy.typing import NDArray

from .._kernels import raster as _kernels
from .._kernels.layouts import PolygonArgs, RasterArgs, SegmentArgs
from ..errors import ConfigError
from ..grid import NavGrid
from .model import GridGeometry, LevelConfig, ObstacleConfig, Ring, validate_obstacle

__all__ = ["rasterize", "cell_centers", "block_obstacles"]

F64 = NDArray[np.float64]


# --------------------------------------------------------------------- packing
def _pack(polys: Sequence[Sequence[Ring]], weights: Sequence[int] | None = None) -> PolygonArgs:
    """Polygons (each a sequence of rings, outer ring first) in the kernels' layout."""
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
    return PolygonArgs(
        vx=np.asarray(xs, dtype=np.float64),
        vz=np.asarray(zs, dtype=np.float64),
        ring_off=np.asarray(ring_off, dtype=np.int64),
        poly_off=np.asarray(poly_off, dtype=np.int64),
        weights=w,
    )


def _ring_segments(packed: PolygonArgs) -> SegmentArgs:
    """Every edge of every ring as ``(ax, az, bx, bz)`` arrays."""
    n = packed.vx.shape[0]
    idx = np.arange(n)
    nxt = idx + 1
    starts = packed.ring_off[:-1]
    ends = packed.ring_off[1:]
    nxt[ends - 1] = starts  # close each ring
    return SegmentArgs(ax=packed.vx, az=packed.vz, bx=packed.vx[nxt], bz=packed.vz[nxt])


def _boundary_segments(geom: shapely.Geometry) -> SegmentArgs:
    """Edges of a (multi)polygon's boundary as ``(ax, az, bx, bz)``."""
    empty = np.empty(0, dtype=np.float64)
    if geom is None or geom.is_empty:
        return SegmentArgs(ax=empty, az=empty, bx=empty, bz=empty)
    lines = shapely.get_parts(shapely.boundary(shapely.get_parts(geom)))
    lines = shapely.get_parts(lines)  # MultiLineString boundaries -> rings
    coords, index = shapely.get_coordinates(lines, return_index=True)
    if coords.shape[0] < 2:
        return SegmentArgs(ax=empty, az=empty, bx=empty, bz=empty)
    same = index[:-1] == index[1:]
    a = coords[:-1][same]
    b = coords[1:][same]
    return SegmentArgs(
        ax=np.ascontiguousarray(a[:, 0]),
        az=np.ascontiguousarray(a[:, 1]),
        bx=np.ascontiguousarray(b[:, 0]),
        bz=np.ascontiguousarray(b[:, 1]),
    )


@dataclass(frozen=True)
class PreparedLevel:
    """A config's geometry packed for the kernels (built once per config)."""

    config: LevelConfig
    geometry: GridGeometry
    cx: F64
    cz: F64
    areas: PolygonArgs
    weighted: bool
    obstacles: PolygonArgs
    obstacle_segments: SegmentArgs
    boundary_segments: SegmentArgs | None

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
        raster = tuple(RasterArgs(walk=walk, weight=weight, cx=cx, cz=cz))
        _kernels.fill_polygons(raster, tuple(self.areas), True, self.weighted)
        bounds = self.boundary_segments
        if bounds is not None and bounds.ax.shape[0]:
            _kernels.clear_near_segments(raster, tuple(bounds), cfg.boundary_padding)
        _block(walk, cx, cz, self.obstacles, self.obstacle_segments, cfg.obstacle_radius)
        if not self.weighted:
            return walk, None
        weight[~walk] = 1
        return walk, weight

    def make_grid(
        self, walk: NDArray[np.bool_], weight: NDArray[np.int32] | None, *, name: str | None = None
    ) -> NavGrid:
        """Wrap arrays (not copied; they become read-only) into a NavGrid with the
        level's geometry."""
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
    obstacles: PolygonArgs,
    segments: SegmentArgs,
    radius: float,
) -> None:
    """Rule 3 in place: block centres inside an obstacle or within ``radius`` of its edges."""
    if obstacles.poly_off.shape[0] <= 1:  # no obstacles
        return
    no_weight = np.ones((1, 1), dtype=np.int32)
    raster = tuple(RasterArgs(walk=walk, weight=no_weight, cx=cx, cz=cz))
    _kernels.fill_polygons(raster, tuple(obstacles), False, False)
    _kernels.clear_near_segments(raster, tuple(segments), radius)


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
    (for example one read from a ``.txt`` file). Every obstacle is validated
    first (ConfigError naming ``obstacles[i]...``), so an error paints nothing.
    """
    if walkable.shape != (geometry.depth, geometry.width) or walkable.dtype != np.bool_:
        raise ConfigError(
            f"expected a bool array of shape {(geometry.depth, geometry.width)}, "
            f"got {walkable.dtype} {walkable.shape}",
            field="walkable",
        )
    checked = [validate_obstacle(o, f"obstacles[{i}]") for i, o in enumerate(obstacles)]
    packed = _pack([(o.polygon,) for o in checked])
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
