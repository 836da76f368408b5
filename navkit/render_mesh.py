"""Draw a navigation mesh (polygons, portals, walls, paths) as a PIL image.

Orientation as in :mod:`navkit.render`: world +X points right and world +Z
points *down*, so a mesh built from a grid (:meth:`NavMesh.from_grid`) lies
the same way as the grid's picture. World metres map to pixels by one
scale chosen so that the long side of the mesh's bounds spans about
``size`` pixels (:func:`mesh_scale`), with a ``margin`` of pixels around.

Colours: polygons are filled light, **portals** (edges two polygons share)
are thin blue lines, **walls** (edges with no neighbour) dark lines, paths
thick coloured polylines with a green start and a red goal dot.

>>> import numpy as np
>>> from navkit.mesh.arrays import from_polygons
>>> m = from_polygons(np.array([[0, 0], [2, 0], [2, 1], [0, 1], [1, 0], [1, 1]], float),
...                   [[0, 4, 5, 3], [4, 1, 2, 5]])
>>> draw_mesh(m, size=200, margin=0).size
(200, 100)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw

from .errors import ConfigError
from .mesh.arrays import MeshArrays
from .render import BLOCKED_COLOR, GOAL_COLOR, PATH_COLORS, START_COLOR, save_png

__all__ = ["draw_mesh", "write_png", "mesh_scale", "save_png", "POLYGON_COLOR", "PORTAL_COLOR",
           "WALL_COLOR", "DEFAULT_SIZE", "MAX_SIZE"]

#: Fill of the polygons.
POLYGON_COLOR = (236, 236, 230)
#: Lines of the edges two polygons share.
PORTAL_COLOR = (150, 180, 215)
#: Lines of the edges on the mesh's boundary.
WALL_COLOR = (60, 60, 70)
#: Long side of the picture, pixels, by default.
DEFAULT_SIZE = 1200
#: Largest ``size`` accepted.
MAX_SIZE = 16384


def mesh_scale(bounds: tuple[float, float, float, float], size: int) -> float:
    """Pixels per metre so that the long side of ``bounds`` spans ``size`` pixels.

    >>> mesh_scale((0.0, 0.0, 100.0, 70.0), 1200)
    12.0
    """
    span = max(bounds[2] - bounds[0], bounds[3] - bounds[1])
    return float(size) / span if span > 0 else 1.0


def _arrays(mesh: Any) -> MeshArrays:
    arr = getattr(mesh, "arrays", mesh)
    if not isinstance(arr, MeshArrays):
        raise ConfigError(f"expected a NavMesh or MeshArrays, got {type(mesh).__name__}",
                          field="mesh")
    return arr


def _path_points(path: Any) -> NDArray[np.float64]:
    """``(m, 2)`` world points of a MeshPathResult, a PathResult or an array."""
    pts = getattr(path, "waypoints", path)
    arr = np.asarray(pts, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] < 2:
        raise ConfigError(f"a path must be an (m, 2) array of world points, got shape "
                          f"{arr.shape}", field="paths")
    return arr[:, :2]


def draw_mesh(mesh: Any, *, paths: list[Any] | None = None,
              markers: list[Any] | None = None, size: int = DEFAULT_SIZE, margin: int = 8,
              portals: bool = True) -> Image.Image:
    """The mesh as an RGB image, ``size`` pixels along its long side (plus ``margin``).

    ``mesh`` is a :class:`~navkit.mesh.navmesh.NavMesh` or its
    :class:`~navkit.mesh.arrays.MeshArrays`; ``paths`` are
    :class:`~navkit.results.MeshPathResult` objects or ``(m, 2)`` arrays of
    world ``(x, z)`` metres; ``markers`` single points (drawn as yellow dots).
    """
    arr = _arrays(mesh)
    if isinstance(size, bool) or not isinstance(size, int) or not 16 <= size <= MAX_SIZE:
        raise ConfigError(f"must be an int in [16, {MAX_SIZE}] pixels, got {size!r}",
                          field="size")
    if isinstance(margin, bool) or not isinstance(margin, int) or not 0 <= margin <= 1024:
        raise ConfigError(f"must be an int in [0, 1024] pixels, got {margin!r}", field="margin")
    if arr.n_polygons == 0:
        return Image.new("RGB", (size + 2 * margin, size + 2 * margin), BLOCKED_COLOR)
    x0, z0, x1, z1 = arr.bounds()
    k = mesh_scale((x0, z0, x1, z1), size)
    w = max(1, int(round((x1 - x0) * k))) + 2 * margin
    h = max(1, int(round((z1 - z0) * k))) + 2 * margin
    img = Image.new("RGB", (w, h), BLOCKED_COLOR)
    dr = ImageDraw.Draw(img)
    px = np.empty_like(arr.vertices)
    px[:, 0] = (arr.vertices[:, 0] - x0) * k + margin
    px[:, 1] = (arr.vertices[:, 1] - z0) * k + margin
    ps, pv, adj = arr.poly_start, arr.poly_verts, arr.poly_adj
    for i in range(arr.n_polygons):
        ring = px[pv[ps[i]:ps[i + 1]]]
        dr.polygon([(float(a), float(b)) for a, b in ring], fill=POLYGON_COLOR)
    line_w = max(1, int(round(size / 1200)))
    for i in range(arr.n_polygons):
        a, b = int(ps[i]), int(ps[i + 1])
        for e in range(a, b):
            nxt = e + 1 if e + 1 < b else a
            p, q = px[pv[e]], px[pv[nxt]]
            seg = [(float(p[0]), float(p[1])), (float(q[0]), float(q[1]))]
            if adj[e] < 0:
                dr.line(seg, fill=WALL_COLOR, width=line_w + 1)
            elif portals and adj[e] > i:  # each shared edge once
                dr.line(seg, fill=PORTAL_COLOR, width=line_w)

    def to_px(points: NDArray[np.float64]) -> list[tuple[float, float]]:
        return [(float((x - x0) * k + margin), float((z - z0) * k + margin)) for x, z in points]

    dot = max(3, int(round(size / 240)))
    for j, path in enumerate(paths or []):
        pts = _path_points(path)
        if len(pts) == 0:
            continue
        xy = to_px(pts)
        color = PATH_COLORS[j % len(PATH_COLORS)]
        if len(xy) > 1:
            dr.line(xy, fill=color, width=max(2, 3 * line_w), joint="curve")
        for (cx, cy), fill in ((xy[0], START_COLOR), (xy[-1], GOAL_COLOR)):
            dr.ellipse([cx - dot, cy - dot, cx + dot, cy + dot], fill=fill, outline=(0, 0, 0))
    for m in markers or []:
        pts = _path_points(np.asarray(m, dtype=np.float64).reshape(-1, 2))
        for cx, cy in to_px(pts):
            dr.ellipse([cx - dot, cy - dot, cx + dot, cy + dot], fill=(250, 200, 0),
                       outline=(0, 0, 0))
    return img


def write_png(mesh: Any, path: str | Path, **options: Any) -> Path:
    """:func:`draw_mesh` (``options`` passed on) saved as a PNG at ``path``."""
    return save_png(draw_mesh(mesh, **options), path)
