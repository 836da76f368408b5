"""Draw a :class:`~navkit.grid.NavGrid` (and paths on it) as a PIL image.

Orientation: grid row ``z`` is image row ``z`` and grid column ``x`` is image
column ``x``, so the top-left pixel block is cell ``(0, 0)`` and world +Z
points *down* in the picture (the same way a Moving AI ``.map`` file reads).
Each cell is a ``scale x scale`` block of pixels; cell ``(x, z)`` covers
pixels ``[x * scale, (x + 1) * scale)`` horizontally and
``[z * scale, (z + 1) * scale)`` vertically.

Point conventions for ``paths`` and ``markers``:

* an **integer** array (or a list of ints) of shape ``(n, 2)`` holds cells
  ``(x, z)`` and is drawn through the cell centres;
* a **floating** array of shape ``(n, 2)`` holds world ``(x, z)`` points in
  metres (e.g. :attr:`PathResult.waypoints`) and is mapped through the grid's
  ``min_x``, ``min_z`` and ``cell_size``;
* a :class:`~navkit.results.PathResult` is drawn twice: its raw ``cells`` as a
  thin line in a darker shade and its ``waypoints`` as a thick line in the
  path colour, with a start marker (green) on the first cell and a goal marker
  (red) on the last waypoint.

:func:`render_flow` draws a :class:`~navkit.query.flow.FlowField` the same
way: its cost as a heat map, arrows along its directions, goals as red dots.

>>> import numpy as np
>>> from navkit import NavGrid
>>> img = render_grid(NavGrid(np.ones((4, 6), bool)), scale=10, paths=[[(0, 0), (5, 3)]])
>>> img.size
(60, 40)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from PIL import Image, ImageDraw

from .errors import ConfigError
from .grid import NavGrid
from .results import PathResult

if TYPE_CHECKING:
    from .query.flow import FlowField

__all__ = [
    "render_grid",
    "render_flow",
    "save_png",
    "auto_scale",
    "PATH_COLORS",
    "WALKABLE_COLOR",
    "BLOCKED_COLOR",
    "START_COLOR",
    "GOAL_COLOR",
    "MARKER_COLOR",
    "ARROW_COLOR",
    "ARROW_SPACING_PX",
]

#: RGB of a plain walkable cell.
WALKABLE_COLOR = (236, 236, 230)
#: RGB of a blocked cell.
BLOCKED_COLOR = (38, 40, 48)
#: RGB that the heaviest terrain weight is tinted towards.
WEIGHT_COLOR = (176, 124, 64)
#: Path colours, used in turn (path ``i`` gets ``PATH_COLORS[i % len(PATH_COLORS)]``).
PATH_COLORS: tuple[tuple[int, int, int], ...] = (
    (31, 119, 180),
    (214, 39, 40),
    (44, 160, 44),
    (148, 103, 189),
    (255, 127, 14),
    (23, 190, 207),
    (227, 119, 194),
    (140, 86, 75),
    (188, 189, 34),
    (127, 127, 127),
)
#: Fill of start markers.
START_COLOR = (20, 200, 60)
#: Fill of goal markers.
GOAL_COLOR = (230, 30, 30)
#: Fill of the extra ``markers``.
MARKER_COLOR = (250, 200, 0)
#: RGB of the direction arrows of :func:`render_flow`.
ARROW_COLOR = (25, 25, 35)
#: :func:`render_flow` draws an arrow on every k-th cell, k chosen so the
#: arrows sit about this many pixels apart.
ARROW_SPACING_PX = 16

# heat colour map anchors (dark blue -> teal -> yellow -> red), sampled linearly
_HEAT_STOPS = np.array([0.0, 0.35, 0.7, 1.0])
_HEAT_RGB = np.array(
    [
        [49, 54, 149],
        [53, 183, 121],
        [253, 231, 37],
        [215, 48, 39],
    ],
    dtype=np.float64,
)
_HEAT_ALPHA = 0.65

#: Auto scale keeps the long side of the image within these many pixels when it can.
TARGET_MIN_PX = 512
TARGET_MAX_PX = 1024


def auto_scale(width: int, depth: int) -> int:
    """Pixels per cell so the long side lands in ``[512, 1024]`` px when possible.

    Grids longer than 1024 cells get one pixel per cell (the image is then
    larger than 1024 px); it never downsamples, so every cell stays visible.

    >>> auto_scale(49, 49), auto_scale(256, 257), auto_scale(1491, 656)
    (20, 3, 1)
    """
    long_side = max(int(width), int(depth), 1)
    return max(1, TARGET_MAX_PX // long_side)


def _base_colors(grid: NavGrid, heat: NDArray[np.float64] | None) -> NDArray[np.uint8]:
    """``(depth, width, 3)`` uint8 cell colours (one colour per cell, no loops)."""
    walk = grid.walkable
    rgb = np.empty((*grid.shape, 3), dtype=np.float64)
    rgb[...] = BLOCKED_COLOR
    rgb[walk] = WALKABLE_COLOR
    if grid.weights is not None:
        w = grid.weights.astype(np.float64)
        wmax = float(w[walk].max()) if walk.any() else 1.0
        if wmax > 1.0:
            # log scale: weight 1 -> no tint, heaviest weight -> 75 % tint
            t = np.log(w) / math.log(wmax) * 0.75
            t = np.where(walk, t, 0.0)[..., None]
            rgb = rgb * (1.0 - t) + np.asarray(WEIGHT_COLOR, dtype=np.float64) * t
    if heat is not None:
        h = np.asarray(heat, dtype=np.float64)
        ok = np.isfinite(h) & walk
        if ok.any():
            lo, hi = float(h[ok].min()), float(h[ok].max())
            norm = (h - lo) / (hi - lo) if hi > lo else np.zeros_like(h)
            norm = np.clip(np.where(ok, norm, 0.0), 0.0, 1.0)
            cmap = np.stack([np.interp(norm, _HEAT_STOPS, _HEAT_RGB[:, c]) for c in range(3)],
                            axis=-1)
            a = np.where(ok, _HEAT_ALPHA, 0.0)[..., None]
            rgb = rgb * (1.0 - a) + cmap * a
    return np.clip(np.rint(rgb), 0, 255).astype(np.uint8)


def _check_heat(grid: NavGrid, heat: ArrayLike | None) -> NDArray[np.float64] | None:
    if heat is None:
        return None
    h = np.asarray(heat)
    if h.shape != grid.shape:
        raise ConfigError(f"expected a float array of shape {grid.shape} (depth, width), "
                          f"got {h.shape}", field="heat")
    if not (np.issubdtype(h.dtype, np.floating) or np.issubdtype(h.dtype, np.integer)
            or h.dtype == np.bool_):
        raise ConfigError(f"expected a numeric array, got dtype {h.dtype}", field="heat")
    return h.astype(np.float64)


def _to_pixels(grid: NavGrid, points: ArrayLike, scale: int, what: str) -> NDArray[np.float64]:
    """Pixel ``(col, row)`` of cells (integer input) or world points (float input)."""
    arr = np.asarray(points)
    if arr.size == 0:
        return np.zeros((0, 2), dtype=np.float64)
    if arr.ndim == 1 and arr.shape == (2,):
        arr = arr.reshape(1, 2)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ConfigError(f"expected points of shape (n, 2), got {arr.shape}", field=what)
    if arr.dtype == np.bool_ or not (np.issubdtype(arr.dtype, np.integer)
                                     or np.issubdtype(arr.dtype, np.floating)):
        raise ConfigError(f"expected integer cells or float world points, got dtype {arr.dtype}",
                          field=what)
    if np.issubdtype(arr.dtype, np.integer):
        cells = arr.astype(np.float64) + 0.5
    else:
        if not np.all(np.isfinite(arr)):
            raise ConfigError("points must be finite", field=what)
        cells = np.empty(arr.shape, dtype=np.float64)
        cells[:, 0] = (arr[:, 0] - grid.min_x) / grid.cell_size
        cells[:, 1] = (arr[:, 1] - grid.min_z) / grid.cell_size
    return cells * scale


def _shade(color: tuple[int, int, int], factor: float) -> tuple[int, int, int]:
    r, g, b = (int(round(c * factor)) for c in color)
    return (min(r, 255), min(g, 255), min(b, 255))


def _polyline(draw: ImageDraw.ImageDraw, px: NDArray[np.float64],
              color: tuple[int, int, int], width: int) -> None:
    if len(px) == 0:
        return
    pts = [(float(x), float(y)) for x, y in px]
    if len(pts) == 1:
        r = max(width / 2.0, 1.0)
        x, y = pts[0]
        draw.ellipse((x - r, y - r, x + r, y + r), fill=color)
        return
    draw.line(pts, fill=color, width=width, joint="curve")


def _dot(draw: ImageDraw.ImageDraw, p: NDArray[np.float64],
         color: tuple[int, int, int], r: float, square: bool) -> None:
    x, y = float(p[0]), float(p[1])
    box = (x - r, y - r, x + r, y + r)
    if square:
        draw.rectangle(box, fill=color, outline=(0, 0, 0))
    else:
        draw.ellipse(box, fill=color, outline=(0, 0, 0))


def render_grid(
    grid: NavGrid,
    *,
    scale: int | None = None,
    paths: Iterable[PathResult | ArrayLike] = (),
    markers: Iterable[ArrayLike] = (),
    heat: ArrayLike | None = None,
) -> Image.Image:
    """Render ``grid`` as an RGB image; see the module docstring for conventions.

    Parameters
    ----------
    grid : NavGrid
    scale : int, optional
        Pixels per cell (>= 1). Default :func:`auto_scale`: the long side of
        the image is 512-1024 px (one pixel per cell for grids over 1024 cells).
    paths : iterable
        Each a :class:`PathResult`, an ``(n, 2)`` integer array of cells or an
        ``(n, 2)`` float array of world points. Path ``i`` is drawn in
        ``PATH_COLORS[i % 10]``. PathResults without a path are skipped.
    markers : iterable
        Extra points (a cell as two ints, or a world point as two floats),
        drawn as yellow squares.
    heat : array of shape (depth, width), optional
        Values to colour walkable cells by (e.g. a distance field or an
        expansion count); non-finite entries are left uncoloured. The finite
        range is stretched over a blue-green-yellow-red map.
    """
    if not isinstance(grid, NavGrid):
        raise ConfigError(f"expected a NavGrid, got {type(grid).__name__}", field="grid")
    if scale is None:
        scale = auto_scale(grid.width, grid.depth)
    if isinstance(scale, bool) or not isinstance(scale, (int, np.integer)) or scale < 1:
        raise ConfigError(f"expected an int >= 1, got {scale!r}", field="scale")
    scale = int(scale)
    h = _check_heat(grid, heat)
    cell_rgb = _base_colors(grid, h)
    pixels = np.repeat(np.repeat(cell_rgb, scale, axis=0), scale, axis=1)
    # uint8 (h, w, 3): Pillow reads it as RGB (its ``mode=`` argument is deprecated)
    image = Image.fromarray(np.ascontiguousarray(pixels, dtype=np.uint8))
    draw = ImageDraw.Draw(image)

    thick = max(2, int(round(scale * 0.45)))
    thin = max(1, int(round(scale * 0.18)))
    radius = max(2.5, scale * 0.55)

    ends: list[tuple[NDArray[np.float64], NDArray[np.float64]]] = []
    for i, item in enumerate(_as_list(paths)):
        color = PATH_COLORS[i % len(PATH_COLORS)]
        if isinstance(item, PathResult):
            if not item.has_path:
                continue
            cells_px = _to_pixels(grid, item.cells, scale, f"paths[{i}].cells")
            way_px = _to_pixels(grid, item.waypoints, scale, f"paths[{i}].waypoints")
            _polyline(draw, way_px, color, thick)
            _polyline(draw, cells_px, _shade(color, 0.55), thin)
            start = cells_px[0]
            goal = way_px[-1] if len(way_px) else cells_px[-1]
            ends.append((start, goal))
        else:
            px = _to_pixels(grid, item, scale, f"paths[{i}]")
            if len(px) == 0:
                continue
            _polyline(draw, px, color, thick)
            ends.append((px[0], px[-1]))
    # markers on top of every line so they stay visible where paths overlap
    for start, goal in ends:
        _dot(draw, start, START_COLOR, radius, square=False)
        _dot(draw, goal, GOAL_COLOR, radius, square=False)
    for j, m in enumerate(_as_list(markers)):
        for p in _to_pixels(grid, m, scale, f"markers[{j}]"):
            _dot(draw, p, MARKER_COLOR, radius, square=True)
    return image


def render_flow(
    field: FlowField, *, scale: int | None = None, spacing_px: int = ARROW_SPACING_PX
) -> Image.Image:
    """Draw ``field``: its cost as a heat map, arrows along its directions on
    every k-th cell (about ``spacing_px`` pixels apart), goals as red dots.

    Uses :func:`render_grid` for the grid and heat map, so the orientation is
    the same: cell ``(x, z)`` is the pixel block at column ``x``, row ``z``.
    """
    from .query.flow import DIRECTION_UNIT

    grid = field.grid
    if scale is None:
        scale = auto_scale(grid.width, grid.depth)
    image = render_grid(grid, scale=scale, heat=field.cost)
    draw = ImageDraw.Draw(image)
    every = max(1, math.ceil(spacing_px / scale))
    half = every * scale * 0.42  # arrow half-length, pixels
    head = max(2.0, half * 0.45)
    dirs = field.direction
    for z in range(every // 2, grid.depth, every):
        for x in range(every // 2, grid.width, every):
            d = int(dirs[z, x])
            if not 0 <= d < 8:
                continue
            ux, uz = DIRECTION_UNIT[d]
            cx, cy = (x + 0.5) * scale, (z + 0.5) * scale
            x0, y0 = cx - ux * half, cy - uz * half
            x1, y1 = cx + ux * half, cy + uz * half
            draw.line([(x0, y0), (x1, y1)], fill=ARROW_COLOR, width=1)
            for sx, sy in ((-uz, ux), (uz, -ux)):  # the two barbs, 30 degrees off the shaft
                bx = x1 - head * (ux * 0.866 + sx * 0.5)
                by = y1 - head * (uz * 0.866 + sy * 0.5)
                draw.line([(x1, y1), (bx, by)], fill=ARROW_COLOR, width=1)
    r = max(4.0, scale * 0.55)
    for gx, gz in field.goals:
        cx, cy = (gx + 0.5) * scale, (gz + 0.5) * scale
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=GOAL_COLOR, outline=(0, 0, 0))
    return image


def _as_list(items: Iterable[Any]) -> list[Any]:
    if isinstance(items, PathResult):
        return [items]
    if isinstance(items, np.ndarray):
        return list(items) if items.ndim == 3 else [items]
    return list(items)


def save_png(image: Image.Image, path: str | Path) -> Path:
    """Write ``image`` as a PNG (creating parent folders); returns the path."""
    p = Path(path)
    if p.parent and not p.parent.exists():
        p.parent.mkdir(parents=True, exist_ok=True)
    image.save(p, format="PNG")
    return p
