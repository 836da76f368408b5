"""Pictures of a building: one image per floor, or all floors side by side.

Each floor is drawn as :func:`navkit.render.render_grid` draws a grid; the part
of a path on that floor is drawn over it and every link end on the floor is
marked (yellow squares).

>>> from navkit.floors import FloorMap
>>> from navkit.floors.examples import two_floors
>>> fm = FloorMap(two_floors())
>>> r = fm.find_path((1.0, 0.0, 4.0), (19.0, 3.5, 4.0))
>>> [im.size for im in render_floors(fm.building, r, scale=4)]
[(176, 96), (176, 96)]
>>> render_building(fm.building, r, scale=4).size[0] > 2 * 176
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from ..render import render_grid
from .building import Building

__all__ = ["render_floors", "render_building"]

_GAP = 12
_LABEL = 18


def render_floors(building: Building, result: Any = None, *, scale: int | None = None,
                  trails: Any = ()) -> list[Image.Image]:
    """One RGB image per floor (floor order): the floor's grid, the path's
    waypoints on it (``result``: a FloorPathResult, optional), ``trails`` (each a
    float ``(m, 3)`` array of world ``(x, y, z)`` points and an int ``(m,)``
    array of their floors, a pair: the pieces on each floor are drawn there) and
    its link ends."""
    images = []
    for f in range(len(building.floor_names)):
        grid = building.grid(f)
        paths = []
        if result is not None and getattr(result, "has_path", False):
            w = result.waypoints
            fl = result.floors
            # each run of consecutive waypoints on this floor is one polyline
            runs: list[list[int]] = []
            for i in range(len(w)):
                if fl[i] != f:
                    continue
                if runs and runs[-1][-1] == i - 1 and not any(s.at == i - 1 for s in
                                                               result.links):
                    runs[-1].append(i)
                else:
                    runs.append([i])
            pts = [np.asarray(w[r], dtype=np.float64) for r in runs]
            start = result.__dict__.get("_start")
            if start is not None and runs and runs[0][0] == 0:  # from the query's start point
                pts[0] = np.vstack([np.asarray(start, dtype=np.float64)[None, :], pts[0]])
            paths = [p for p in pts if len(p) > 1]
        for pts3, fls in trails:
            pts3 = np.asarray(pts3, dtype=np.float64)
            fls = np.asarray(fls)
            on = np.flatnonzero(fls == f)
            if len(on) < 2:
                continue
            # consecutive samples on this floor are one polyline
            cut = np.flatnonzero(np.diff(on) != 1) + 1
            for run in np.split(on, cut):
                if len(run) > 1:
                    paths.append(pts3[run][:, [0, 2]])
        ends = []
        for lk in building.links:
            for e in (lk.start, lk.end):
                if e.floor == f:
                    ends.append(np.asarray(e.point, dtype=np.float64))
        images.append(render_grid(grid, scale=scale, paths=paths, markers=ends))
    return images


def render_building(building: Building, result: Any = None, *, scale: int | None = None,
                    trails: Any = ()) -> Image.Image:
    """Every floor side by side, left to right in floor order, each labelled
    with its name and height (arguments as :func:`render_floors`)."""
    images = render_floors(building, result, scale=scale, trails=trails)
    w = sum(im.size[0] for im in images) + _GAP * (len(images) - 1)
    h = max(im.size[1] for im in images) + _LABEL
    out = Image.new("RGB", (w, h), (255, 255, 255))
    draw = ImageDraw.Draw(out)
    x = 0
    for f, im in enumerate(images):
        out.paste(im, (x, _LABEL))
        name = building.floor_names[f]
        draw.text((x + 2, 2), f"{name} (y {building.floor_ys[f]:g} m)", fill=(0, 0, 0))
        x += im.size[0] + _GAP
    return out
