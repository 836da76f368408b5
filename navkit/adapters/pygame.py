"""Small helpers between a :class:`~navkit.NavGrid` and pygame's screen (docs/engines.md).

The screen shows the grid with ``scale`` pixels per cell, cell ``(x, z)`` at
pixel ``(x * scale, z * scale)`` (screen y grows down like navkit's z, so no
flip). World points are metres (docs/rules.md §1.3). Only :func:`cell_rect`
and :func:`draw_grid` need pygame (``pip install 'navkit[pygame]'``); the
coordinate helpers are plain arithmetic.

>>> import numpy as np
>>> from navkit import NavGrid
>>> g = NavGrid(np.ones((3, 4), bool), cell_size=0.5)
>>> world_to_pixel(g, (1.25, 0.75), 16)
(40, 24)
>>> pixel_to_cell(g, (40, 24), 16)
(2, 1)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import ConfigError, require_extra
from ..grid import NavGrid

__all__ = ["world_to_pixel", "pixel_to_world", "pixel_to_cell", "cell_rect",
           "points_to_pixels", "draw_grid"]


def _scale(scale: Any) -> int:
    if isinstance(scale, bool) or not isinstance(scale, (int, np.integer)) or scale < 1:
        raise ConfigError(f"expected an int >= 1, got {scale!r}", field="scale")
    return int(scale)


def world_to_pixel(grid: NavGrid, point: ArrayLike, scale: int) -> tuple[int, int]:
    """Screen pixel ``(px, py)`` of world point ``(x, z)`` in metres (rounded)."""
    s = _scale(scale)
    x, z = (float(v) for v in np.asarray(point, dtype=np.float64).reshape(-1)[:2])
    return (int(round((x - grid.min_x) / grid.cell_size * s)),
            int(round((z - grid.min_z) / grid.cell_size * s)))


def points_to_pixels(grid: NavGrid, points: ArrayLike, scale: int) -> list[tuple[int, int]]:
    """:func:`world_to_pixel` of each row of an ``(n, 2)`` array (for ``pygame.draw.lines``)."""
    s = _scale(scale)
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    px: NDArray[np.float64] = np.rint((p - [grid.min_x, grid.min_z]) / grid.cell_size * s)
    return [(int(a), int(b)) for a, b in px.tolist()]


def pixel_to_world(grid: NavGrid, pixel: ArrayLike, scale: int) -> tuple[float, float]:
    """World point ``(x, z)`` in metres under screen pixel ``(px, py)``."""
    s = _scale(scale)
    px, py = (float(v) for v in np.asarray(pixel, dtype=np.float64).reshape(-1)[:2])
    return (grid.min_x + px / s * grid.cell_size, grid.min_z + py / s * grid.cell_size)


def pixel_to_cell(grid: NavGrid, pixel: ArrayLike, scale: int) -> tuple[int, int]:
    """Cell ``(x, z)`` under screen pixel ``(px, py)`` (may lie outside the grid)."""
    s = _scale(scale)
    px, py = (float(v) for v in np.asarray(pixel, dtype=np.float64).reshape(-1)[:2])
    return int(px // s), int(py // s)


def cell_rect(x: int, z: int, scale: int) -> Any:
    """The ``pygame.Rect`` cell ``(x, z)`` covers on screen."""
    require_extra(["pygame"], "navkit.adapters.pygame", "pygame")
    import pygame

    s = _scale(scale)
    return pygame.Rect(int(x) * s, int(z) * s, s, s)


def draw_grid(surface: Any, grid: NavGrid, scale: int, *,
              floor: tuple[int, int, int] = (235, 235, 228),
              wall: tuple[int, int, int] = (60, 62, 70)) -> None:
    """Fill ``surface`` with the grid: walkable cells ``floor``, blocked cells ``wall``."""
    require_extra(["pygame"], "navkit.adapters.pygame", "pygame")
    import pygame

    s = _scale(scale)
    surface.fill(floor)
    zz, xx = np.nonzero(~grid.walkable)
    for x, z in zip(xx.tolist(), zz.tolist(), strict=True):
        pygame.draw.rect(surface, wall, pygame.Rect(x * s, z * s, s, s))
