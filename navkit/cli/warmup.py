"""``navkit warmup [GROUP ...]``: compile navkit's kernels ahead of time (:mod:`navkit.warmup`)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .common import EXIT_BAD_INPUT, emit_json, stderr, stdout

if TYPE_CHECKING:
    from ..warmup import GroupResult

__all__ = ["warmup_cmd", "HELP"]

HELP = ("Compile (or load) navkit's kernels now, so that first queries do not: groups grid, jps, "
        "hpa, flow, mesh, crowd, sim, floors, world, viewer (default: all), in worker processes. "
        "Exits 2 (error: ...) if a kernel fails to compile.")


def warmup_cmd(
    groups: Annotated[list[str] | None, typer.Argument(
        metavar="[GROUP]...",
        help="grid, jps, hpa, flow, mesh, crowd, sim, floors, world, viewer "
             "(default: all).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    progress: Annotated[bool, typer.Option("--progress/--no-progress",
                                           help="Show a progress bar.")] = True,
    jobs: Annotated[int | None, typer.Option(
        "--jobs", "-j", min=0, help="Groups compiled at once, in as many worker processes "
        "(default: the number of cores, at most 2); 0: every group in this process.")] = None,
) -> None:
    """Compile the kernels of the named groups and report the time each took."""
    from .._numba_config import cache_dir
    from ..warmup import GROUPS, check_groups, default_jobs, warm_up

    names = list(groups) if groups else list(GROUPS)
    check_groups(names)  # a ConfigError: "error: ..." and exit status 2, as every command
    if jobs is None:
        jobs = default_jobs()
    show = progress and not as_json
    t0 = time.perf_counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=stderr(), disable=not show, transient=True) as bar:
        task = bar.add_task(f"compiling navkit's kernels ({', '.join(names)})", total=len(names))
        left = list(names)

        def done(r: GroupResult) -> None:
            left.remove(r.group)
            bar.update(task, advance=1, description=f"compiling: {', '.join(left) or 'done'}")

        results = warm_up(names, jobs=jobs, done=done)
    wall = time.perf_counter() - t0
    failed = [r for r in results if r.error is not None]
    peaks = [r.peak_mb for r in results if r.peak_mb is not None]
    if as_json:
        emit_json({
            "cache_dir": str(cache_dir()),
            "groups": [{"group": r.group, "cpu_s": r.cpu_s, "wall_s": r.wall_s, "error": r.error,
                        "peak_mb": r.peak_mb}
                       for r in results],
            "cpu_s": sum(r.cpu_s for r in results),
            "wall_s": wall,
            "jobs": jobs,
            "peak_mb": max(peaks) if peaks else None,
            "failed": len(failed),
        })
    else:
        table = Table(title="navkit warmup")
        for col in ("group", "CPU s", "wall s", "peak MB", "result"):
            table.add_column(col, justify="left" if col in ("group", "result") else "right")
        for r in results:
            table.add_row(r.group, f"{r.cpu_s:.1f}", f"{r.wall_s:.1f}",
                          "-" if r.peak_mb is None else f"{r.peak_mb:.0f}",
                          "ok" if r.error is None else f"[red]{r.error}[/red]")
        table.add_row("all", f"{sum(r.cpu_s for r in results):.1f}", f"{wall:.1f}",
                      f"{max(peaks):.0f}" if peaks else "-",
                      f"{jobs} at a time; cache: {cache_dir()}" if jobs else
                      f"cache: {cache_dir()}")
        stdout().print(table)
    if failed:
        what = "; ".join(f"{r.group}: {r.error}" for r in failed)
        typer.echo(f"error: {len(failed)} of {len(results)} warm-up group(s) failed to compile "
                   f"({what})", err=True)
        raise typer.Exit(EXIT_BAD_INPUT)
