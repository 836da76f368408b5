"""``navkit build``: rasterize a polygon level (JSON) into a grid file.

::

    navkit build CONFIG.json -o GRID.txt [--png OUT.png] [--json]

Errors follow the ``navkit`` CLI: bad input prints ``error: <message>`` and
exits with 2.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ..errors import FormatError
from ..formats import save_grid
from ..level import LevelConfig, parse_level, rasterize, read_level
from .common import emit_json, grid_summary, stdout

__all__ = ["build_cmd"]


def _tiny_level() -> LevelConfig:
    square = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
    return parse_level({
        "boundaryPadding": 0.1,
        "areas": [{"name": "a", "polygon": square}],
        "obstacles": [{"name": "o", "polygon": [[0.4, 0.4], [0.6, 0.4], [0.5, 0.6]]}],
    })


def build_cmd(
    config: Annotated[Path, typer.Argument(
        metavar="CONFIG.json", help="Polygon level config (docs/rules.md §2).")],
    out: Annotated[Path, typer.Option(
        "--out", "-o", metavar="GRID.txt",
        help="Grid file to write; the extension picks the format "
             "(.txt: the grid file of docs/rules.md §2.5).")],
    png: Annotated[Path | None, typer.Option(
        "--png", metavar="OUT.png", help="Also draw the grid to this PNG.")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print one JSON object instead of a table.")] = False,
) -> None:
    """Rasterize a JSON level into a grid file and print a summary."""
    if not config.is_file():
        raise FormatError("no such file" if not config.exists() else "not a file", path=config)
    t0 = time.perf_counter()
    cfg = read_level(config)
    read_ms = (time.perf_counter() - t0) * 1e3
    # the first rasterization in a process loads (or compiles) the kernels:
    # do that on a tiny level, so build_ms is the level's own cost
    t0 = time.perf_counter()
    rasterize(_tiny_level())
    load_ms = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    grid = rasterize(cfg)
    build_ms = (time.perf_counter() - t0) * 1e3
    save_grid(grid, out)
    if png is not None:
        from ..render import render_grid, save_png

        save_png(render_grid(grid), png)

    closed = [a.name for a in cfg.areas if not a.available]
    info: dict[str, Any] = {
        "config": str(config),
        "out": str(out),
        "png": None if png is None else str(png),
        **grid_summary(grid),
        "cell_size": grid.cell_size,
        "min_x": grid.min_x,
        "min_z": grid.min_z,
        "areas": len(cfg.areas),
        "available_areas": len(cfg.areas) - len(closed),
        "closed_areas": closed,
        "obstacles": len(cfg.obstacles),
        "read_ms": read_ms,
        "build_ms": build_ms,
        "kernel_load_ms": load_ms,
    }
    if as_json:
        emit_json(info)
        return
    table = Table(title=escape(f"navkit build {config}"), show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    table.add_row("size", f"{grid.width} x {grid.depth} cells (width x depth) = {grid.size:,}")
    table.add_row("walkable", f"{info['walkable']:,} cells ({info['walkable_fraction']:.2%})")
    table.add_row("cell size", f"{grid.cell_size:g} m, origin ({grid.min_x:g}, {grid.min_z:g})")
    areas = f"{info['available_areas']} of {len(cfg.areas)} available"
    if closed:
        areas += " (closed: " + ", ".join(closed) + ")"
    table.add_row("areas", escape(areas))
    table.add_row("obstacles", str(len(cfg.obstacles)))
    if grid.is_weighted:
        w = grid.weight_array()[grid.walkable]
        table.add_row("weights", f"{int(w.min())} .. {int(w.max())} (walkable cells)")
    table.add_row("build", f"{build_ms:,.2f} ms rasterize, {read_ms:,.2f} ms read + validate "
                           f"(+ {load_ms:,.0f} ms loading the kernels once per process)")
    table.add_row("wrote", escape(str(out) + ("" if png is None else f", {png}")))
    stdout().print(table)
