"""``navkit flow``: build a flow field on a map, summarize it and draw it.

::

    navkit flow MAP --goal X,Z [--goal X,Z ...] [--cells] [--costs seed|exact]
                [--png OUT.png] [--json]

Goals are world metres (each snapped to a walkable cell within the snap
radius, as ``navkit path`` does) or, with ``--cells``, integer cells. The
picture (:func:`navkit.render.render_flow`) is the grid with the integration
field as a heat map (blue near a goal, red far), direction arrows on a
subsample of cells and the goals as red dots. Exit status: 0 when some cell
reaches a goal, 1 when none does (every goal blocked or unsnappable), 2 on
bad input.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.markup import escape
from rich.table import Table

from ..formats import load_grid
from ..query.flow import FlowField
from ..query.pathfinder import Pathfinder
from .common import EXIT_NO_PATH, EXIT_OK, CostsName, emit_json, num, parse_pair, stdout

__all__ = ["flow_cmd", "HELP"]

#: The command's help line.
HELP = ("Build a flow field toward the goals on MAP and summarize it (exit 1 when no cell "
        "reaches a goal).")


def flow_cmd(
    map_file: Annotated[Path, typer.Argument(
        metavar="MAP", help="Grid file (.map .txt .png .npy .npz .json .tmx .tmj .ldtk ...).")],
    goal: Annotated[list[str], typer.Option(
        "--goal", metavar="X,Z",
        help="A goal: world metres, or a cell with --cells. Repeat for several.")],
    cells: Annotated[bool, typer.Option(
        "--cells", help="--goal values are integer cells.")] = False,
    costs: Annotated[CostsName, typer.Option(
        "--costs",
        help="Step costs: seed (10/14) or exact (sqrt 2, Moving AI lengths).")] = CostsName.seed,
    png: Annotated[Path | None, typer.Option(
        "--png", metavar="OUT.png",
        help="Draw the field (heat map and arrows) to this PNG.")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print one JSON object instead of a table.")] = False,
) -> None:
    """Build and summarize a flow field (see :data:`HELP`)."""
    given = [parse_pair(g, "--goal", integer=cells) for g in goal]
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
        from ..render import render_flow, render_grid, save_png

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
        "max_cost": num(max_cost),
        "queue": field.queue,
        "build_ms": build_s * 1e3,
        "first_call_ms": first_s * 1e3,
        "png": None if png is None else str(png),
    }
    if as_json:
        emit_json(summary)
    else:
        _print_flow(summary, given, resolved)
    raise typer.Exit(EXIT_OK if reached else EXIT_NO_PATH)


def _print_flow(s: dict[str, Any], given: list[Any], resolved: list[Any]) -> None:
    table = Table(title=f"navkit flow on {escape(s['map'])}", show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    for g, c in zip(given, resolved, strict=True):
        snapped = f"cell {c}" if c is not None else "no walkable cell near"
        table.add_row("goal", escape(f"{tuple(g)} -> {snapped}"))
    walkable, reached = s["walkable"], s["reached"]
    table.add_row("grid", f"{s['width']} x {s['depth']} cells, {walkable:,} walkable "
                          f"(costs={s['costs']})")
    style = "green" if reached else "red"
    table.add_row("reached", f"[{style}]{reached:,}[/] cells ({walkable - reached:,} walkable "
                             f"cells cannot reach a goal)")
    max_cost = s["max_cost"]
    table.add_row("max cost", f"{max_cost:.6f}" if max_cost is not None else "-")
    if any(c is not None for c in resolved):
        table.add_row("build", f"{s['build_ms']:,.2f} ms (warm, {s['queue']} queue; "
                               f"first build {s['first_call_ms']:,.1f} ms)")
    if s["png"] is not None:
        table.add_row("png", escape(s["png"]))
    stdout().print(table)
