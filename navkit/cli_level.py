"""``navkit`` commands for polygon levels (registered by :func:`register`).

Commands::

    navkit build CONFIG.json -o GRID.txt [--png OUT.png] [--json]
    navkit bench-level [ARGS...]    (runs navkit.bench_level.main(ARGS))

and the ``--obstacle X,Z,R`` parser that ``navkit path`` uses. Errors follow
the ``navkit`` CLI: bad input prints ``error: <message>`` and exits with 2.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from numpy.typing import NDArray

__all__ = ["register", "parse_obstacles", "build_cmd", "bench_level_cmd"]


def parse_obstacles(values: list[str] | None, option: str = "--obstacle") -> NDArray[np.float64] | None:
    """``['X,Z,R', ...]`` -> a ``(k, 3)`` float array of world circles (None when empty).

    A malformed value raises ``typer.BadParameter`` naming the option.

    >>> parse_obstacles(["1.5,2,0.5", " -3, 4 ,1 "]).tolist()
    [[1.5, 2.0, 0.5], [-3.0, 4.0, 1.0]]
    >>> parse_obstacles([]) is None
    True
    """
    if not values:
        return None
    rows = []
    for text in values:
        def bad(why: str, text: str = text) -> typer.BadParameter:
            return typer.BadParameter(f"expected X,Z,R (world metres), got {text!r}: {why}",
                                      param_hint=f"'{option}'")

        parts = text.split(",")
        if len(parts) != 3:
            raise bad(f"need exactly three comma-separated numbers, found {len(parts)} part(s)")
        row = []
        for label, part in zip(("X", "Z", "R"), parts, strict=True):
            p = part.strip()
            try:
                v = float(p)
            except ValueError:
                raise bad(f"{label} = {p!r} is not a number") from None
            if not math.isfinite(v):
                raise bad(f"{label} = {p!r} is not finite")
            row.append(v)
        if row[2] < 0:
            raise bad(f"R = {row[2]!r} is negative")
        rows.append(row)
    return np.array(rows, dtype=np.float64)


def _tiny_level() -> Any:
    from .level import parse_level

    square = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
    return parse_level({"boundaryPadding": 0.1, "areas": [{"name": "a", "polygon": square}],
                        "obstacles": [{"name": "o", "polygon": [[0.4, 0.4], [0.6, 0.4], [0.5, 0.6]]}]})


def build_cmd(
    config: Annotated[Path, typer.Argument(metavar="CONFIG.json", help="Polygon level config (seed 000 §2b).")],
    out: Annotated[Path, typer.Option("--out", "-o", metavar="GRID.txt",
                                      help="Grid file to write; the extension picks the format (.txt: the seed's).")],
    png: Annotated[Path | None, typer.Option("--png", metavar="OUT.png", help="Also draw the grid to this PNG.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a table.")] = False,
) -> None:
    """Rasterize a JSON level into a grid file and print a summary."""
    from rich.markup import escape
    from rich.table import Table

    from .cli import _emit_json, _stdout
    from .errors import FormatError
    from .formats import save_grid
    from .level import rasterize, read_level

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
        from .render import render_grid, save_png

        save_png(render_grid(grid), png)

    nwalk = int(grid.walkable.sum())
    closed = [a.name for a in cfg.areas if not a.available]
    info: dict[str, Any] = {
        "config": str(config),
        "out": str(out),
        "png": None if png is None else str(png),
        "width": grid.width,
        "depth": grid.depth,
        "cells": grid.size,
        "walkable": nwalk,
        "walkable_fraction": nwalk / grid.size,
        "weighted": grid.is_weighted,
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
        _emit_json(info)
        return
    table = Table(title=escape(f"navkit build {config}"), show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    table.add_row("size", f"{grid.width} x {grid.depth} cells (width x depth) = {grid.size:,}")
    table.add_row("walkable", f"{nwalk:,} cells ({info['walkable_fraction']:.2%})")
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
    _stdout().print(table)


def bench_level_cmd(ctx: typer.Context) -> None:
    """Run the seed's reference benchmark (navkit.bench_level); arguments pass through (try --help)."""
    from .bench_level import main

    rc = main(list(ctx.args))
    raise typer.Exit(int(rc) if isinstance(rc, int) else 0)


def register(app: typer.Typer) -> None:
    """Add ``build`` and ``bench-level`` to the ``navkit`` typer app."""
    app.command("build")(build_cmd)
    app.command(
        "bench-level",
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        add_help_option=False,
    )(bench_level_cmd)
