"""``navkit precompute``: bake a map's JPS+ jump tables (and goal bounds) to files.

::

    navkit precompute MAP -o TABLES.npz [--goal-bounds BOUNDS.npz] [--costs seed|exact]
                      [--threads N] [--max-jump-points N] [--progress/--no-progress] [--json]

The tables (docs/jps-plus.md) take milliseconds; goal bounds seconds to
minutes (a progress bar on stderr while they build). Both files carry the
grid's fingerprint (bounds also the step costs), so
``Pathfinder.precompute(tables=..., bounds=...)`` and ``navkit path
--algorithm jps+ --tables ... --bounds ...`` refuse them for another map.
Exit status: 0, or 2 on bad input (a map where JPS does not apply, too many
jump points for ``--max-jump-points``, an unwritable file).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ..formats import load_grid
from ..query.pathfinder import Pathfinder
from .common import CostsName, emit_json, stdout

__all__ = ["precompute_cmd", "HELP"]

#: The command's help line.
HELP = "Bake MAP's JPS+ jump tables (and goal bounds) to .npz files for later queries."


def _bounds(pf: Pathfinder, tables: Any, *, threads: int | None, max_jump_points: int | None,
            show: bool) -> Any:
    """Goal bounds of ``pf``'s grid, with a progress bar on stderr when ``show``."""
    from ..query.goal_bounds import GoalBounds

    if not show:
        return GoalBounds.build(pf, tables, threads=threads, max_jump_points=max_jump_points)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress("goal bounds", BarColumn(), MofNCompleteColumn(), "jump points",
                  TimeRemainingColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("goal bounds", total=None)

        def report(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return GoalBounds.build(pf, tables, threads=threads, max_jump_points=max_jump_points,
                                progress=report)


def precompute_cmd(
    map_file: Annotated[Path, typer.Argument(
        metavar="MAP", help="Grid file (.map .txt .png .npy .npz .json .tmx .tmj .ldtk ...).")],
    out: Annotated[Path, typer.Option(
        "--out", "-o", metavar="TABLES.npz", help="Where to write the jump tables.")],
    goal_bounds: Annotated[Path | None, typer.Option(
        "--goal-bounds", metavar="BOUNDS.npz",
        help="Also build goal bounds (seconds to minutes) and write them here.")] = None,
    costs: Annotated[CostsName, typer.Option(
        "--costs",
        help="Step costs the goal bounds are built for (the tables do not depend on "
             "them).")] = CostsName.exact,
    threads: Annotated[int | None, typer.Option(
        "--threads", min=1, help="Threads for the goal bounds (default: all cores).")] = None,
    max_jump_points: Annotated[int | None, typer.Option(
        "--max-jump-points", min=1, metavar="N",
        help="Refuse goal bounds on maps with more jump points (a guard against builds of "
             "hours; default: no limit).")] = None,
    progress: Annotated[bool, typer.Option(
        "--progress/--no-progress",
        help="A progress bar on stderr while goal bounds build (default: on a "
             "terminal).")] = True,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print one JSON object instead of a table.")] = False,
) -> None:
    """Bake the JPS+ tables (see :data:`HELP`)."""
    from ..query.jps_plus import AUTO_MAX_DENSITY, JumpTables, jump_point_density, prefer_jps_plus

    grid = load_grid(map_file)
    pf = Pathfinder(grid, costs=costs.value)
    pf.resolve_algorithm("jps+")  # a clear error (exit 2) where JPS+ does not apply
    tables = JumpTables.build(pf)
    density = jump_point_density(tables, pf)
    tables.save(out)
    info: dict[str, Any] = {
        "map": str(map_file), "width": grid.width, "depth": grid.depth,
        "tables": str(out), "tables_build_ms": tables.build_seconds * 1e3,
        "tables_mb": tables.nbytes / 1e6, "jump_point_density": density,
        "auto_picks_jps_plus": prefer_jps_plus(tables, pf), "costs": costs.value,
    }
    if goal_bounds is not None:
        show = progress and not as_json and sys.stderr.isatty()
        gb = _bounds(pf, tables, threads=threads, max_jump_points=max_jump_points, show=show)
        gb.save(goal_bounds)
        info.update(bounds=str(goal_bounds), bounds_build_s=gb.build_seconds,
                    bounds_mb=gb.nbytes / 1e6, jump_points=gb.jump_points)
    if as_json:
        emit_json(info)
        return
    table = Table(title=escape(f"navkit precompute {map_file}"), show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    table.add_row("grid", f"{grid.width} x {grid.depth} cells")
    table.add_row("jump tables", f"{escape(str(out))}: built in {info['tables_build_ms']:.1f} ms, "
                                 f"{info['tables_mb']:.1f} MB")
    table.add_row("jump-point density",
                  f"{density:.3f} per free cell: auto "
                  f"{'picks JPS+' if info['auto_picks_jps_plus'] else 'keeps JPS'} "
                  f"(<= {AUTO_MAX_DENSITY:g})")
    if goal_bounds is not None:
        table.add_row("goal bounds", f"{escape(str(goal_bounds))}: {info['jump_points']:,} jump "
                                     f"points, built in {info['bounds_build_s']:.1f} s, "
                                     f"{info['bounds_mb']:.1f} MB ({costs.value} costs)")
    stdout().print(table)
