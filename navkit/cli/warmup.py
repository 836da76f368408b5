"""``navkit warmup [GROUP ...]``: compile navkit's kernels ahead of time (:mod:`navkit.warmup`)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .common import EXIT_BAD_INPUT, emit_json, stderr, stdout

__all__ = ["warmup_cmd", "HELP"]

HELP = ("Compile (or load) navkit's kernels now, so that first queries do not: groups grid, jps, "
        "hpa, flow, sim, viewer (default: all). Exits 1 if a kernel fails to compile.")


def warmup_cmd(
    groups: Annotated[list[str] | None, typer.Argument(
        metavar="[GROUP]...", help="grid, jps, hpa, flow, sim, viewer (default: all).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    progress: Annotated[bool, typer.Option("--progress/--no-progress",
                                           help="Show a progress bar.")] = True,
) -> None:
    """Compile the kernels of the named groups and report the time each took."""
    from .._numba_config import cache_dir
    from ..warmup import GROUPS, warm_up

    names = list(groups) if groups else list(GROUPS)
    unknown = [g for g in names if g not in GROUPS]
    if unknown:
        typer.echo(f"error: unknown group(s) {', '.join(unknown)}; expected some of "
                   f"{', '.join(GROUPS)}", err=True)
        raise typer.Exit(EXIT_BAD_INPUT)
    show = progress and not as_json
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=stderr(), disable=not show, transient=True) as bar:
        task = bar.add_task("compiling navkit's kernels", total=len(names))
        results = []
        for name in names:
            bar.update(task, description=f"compiling: {name}")
            results += warm_up([name])
            bar.advance(task)
    failed = [r for r in results if r.error is not None]
    if as_json:
        emit_json({
            "cache_dir": str(cache_dir()),
            "groups": [{"group": r.group, "cpu_s": r.cpu_s, "wall_s": r.wall_s, "error": r.error}
                       for r in results],
            "cpu_s": sum(r.cpu_s for r in results),
            "wall_s": sum(r.wall_s for r in results),
            "failed": len(failed),
        })
    else:
        table = Table(title="navkit warmup")
        for col in ("group", "CPU s", "wall s", "result"):
            table.add_column(col, justify="left" if col in ("group", "result") else "right")
        for r in results:
            table.add_row(r.group, f"{r.cpu_s:.1f}", f"{r.wall_s:.1f}",
                          "ok" if r.error is None else f"[red]{r.error}[/red]")
        table.add_row("all", f"{sum(r.cpu_s for r in results):.1f}",
                      f"{sum(r.wall_s for r in results):.1f}", f"cache: {cache_dir()}")
        stdout().print(table)
    if failed:
        raise typer.Exit(1)
