"""``navkit flow``: build a flow field on a map, summarize it and draw it.

::

    navkit flow MAP --goal X,Z [--goal X,Z ...] [--cells] [--costs seed|exact]
                [--png OUT.png] [--json]

Goals are world metres (each snapped to a walkable cell within the snap
radius, as ``navkit path`` does) or, with ``--cells``, integer cells. The
picture is the grid with the integration field as a heat map (blue near a
goal, red far), direction arrows on a subsample of cells and the goals as red
dots. Exit status: 0 when some cell reaches a goal, 1 when none does (every
goal blocked or unsnappable), 2 on bad input.

:func:`register` adds the command to the main app (:mod:`navkit.cli`);
:func:`render_flow` is the drawing, usable on its own.
"""

from __future__ import annotations

import enum
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from .query.flow import DIRECTION_UNIT, FlowField

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["register", "render_flow", "ARROW_COLOR", "ARROW_SPACING_PX"]

#: RGB of the direction arrows.
ARROW_COLOR = (25, 25, 35)
#: Arrows are drawn on every k-th cell, k chosen so they sit about this many pixels apart.
ARROW_SPACING_PX = 16


class _Costs(str, enum.Enum):
    seed = "seed"
    exact = "exact"


def render_flow(field: FlowField, *, scale: int | None = None, spacing_px: int = ARROW_SPACING_PX) -> Image.Image:
    """Draw ``field``: its cost as a heat map, arrows along its directions on
    every k-th cell (about ``spacing_px`` pixels apart), goals as red dots.

    Uses :func:`navkit.render.render_grid` for the grid and heat map, so the
    orientation is the same: cell ``(x, z)`` is the pixel block at column
    ``x``, row ``z``.
    """
    from PIL import ImageDraw

    from .render import GOAL_COLOR, auto_scale, render_grid

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


def flow_cmd(
    map_file: Annotated[Path, typer.Argument(metavar="MAP", help="Grid file (.map .txt .png .npy .npz .json ...).")],
    goal: Annotated[list[str], typer.Option("--goal", metavar="X,Z", help="A goal: world metres, or a cell with --cells. Repeat for several.")],
    cells: Annotated[bool, typer.Option("--cells", help="--goal values are integer cells.")] = False,
    costs: Annotated[_Costs, typer.Option("--costs", help="Step costs: seed (10/14) or exact (sqrt 2, Moving AI lengths).")] = _Costs.seed,
    png: Annotated[Path | None, typer.Option("--png", metavar="OUT.png", help="Draw the field (heat map and arrows) to this PNG.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a table.")] = False,
) -> None:
    """Build a flow field toward the goals on MAP and summarize it (exit 1 when no cell reaches a goal)."""
    from rich.markup import escape
    from rich.table import Table

    from .cli import EXIT_NO_PATH, EXIT_OK, _emit_json, _num, _parse_pair, _stdout
    from .formats import load_grid
    from .query.pathfinder import Pathfinder

    given = [_parse_pair(g, "--goal", integer=cells) for g in goal]
    grid = load_grid(map_file)
    pf = Pathfinder(grid, costs=costs.value)
    resolved: list[tuple[int, int] | None]
    if cells:
        resolved = [(int(g[0]), int(g[1])) for g in given]
    else:
        resolved = [pf.snap(g) for g in given]
    goal_cells = [c for c in resolved if c is not None]
    field = FlowField(pf)
    first_s = build_s = 0.0
    if goal_cells:
        # the first build loads (or compiles) the kernels: time a second one
        t0 = time.perf_counter()
        field.build(goal_cells)
        first_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        field.build(goal_cells)
        build_s = time.perf_counter() - t0
    reached = field.reached if goal_cells else 0
    walkable = int(grid.walkable.sum())
    max_cost = float(field.cost[np.isfinite(field.cost)].max()) if reached else math.inf
    if png is not None:
        from .render import render_grid, save_png

        if goal_cells:
            img = render_flow(field)
        else:
            pts = np.asarray(given, dtype=np.int64 if cells else np.float64)
            img = render_grid(grid, markers=[pts])
        save_png(img, png)

    summary: dict[str, Any] = {
        "map": str(map_file),
        "mode": "cells" if cells else "world",
        "costs": costs.value,
        "goals": [list(g) for g in given],
        "goal_cells": [None if c is None else list(c) for c in resolved],
        "width": grid.width,
        "depth": grid.depth,
        "walkable": walkable,
        "reached": reached,
        "unreached_walkable": walkable - reached,
        "max_cost": _num(max_cost),
        "queue": field.queue,
        "build_ms": build_s * 1e3,
        "first_call_ms": first_s * 1e3,
        "png": None if png is None else str(png),
    }
    if as_json:
        _emit_json(summary)
    else:
        table = Table(title=f"navkit flow on {escape(str(map_file))}", show_header=False)
        table.add_column("field", style="bold")
        table.add_column("value")
        for g, c in zip(given, resolved, strict=True):
            table.add_row("goal", escape(f"{tuple(g)} -> cell {c}" if c is not None else f"{tuple(g)} -> no walkable cell near"))
        table.add_row("grid", f"{grid.width} x {grid.depth} cells, {walkable:,} walkable (costs={costs.value})")
        style = "green" if reached else "red"
        table.add_row("reached", f"[{style}]{reached:,}[/] cells ({walkable - reached:,} walkable cells cannot reach a goal)")
        table.add_row("max cost", f"{max_cost:.6f}" if math.isfinite(max_cost) else "-")
        if goal_cells:
            table.add_row("build", f"{build_s * 1e3:,.2f} ms (warm, {field.queue} queue; first build {first_s * 1e3:,.1f} ms)")
        if png is not None:
            table.add_row("png", escape(str(png)))
        _stdout().print(table)
    raise typer.Exit(EXIT_OK if reached else EXIT_NO_PATH)


def register(app: typer.Typer) -> None:
    """Add ``navkit flow`` to ``app``."""
    app.command("flow")(flow_cmd)
