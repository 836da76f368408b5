"""``navkit replay``: replay a query corpus, check its answers, sweep budgets.

::

    navkit replay CORPUS.jsonl [--map MAP] [--budget 250,500,1000,2000]
                  [--no-fingerprint-check] [--json] [--quiet]

Replays every line of a corpus (:mod:`navkit.corpus`, docs/corpora.md) on
its map (the header's path, or ``--map``) and compares the answers with the
recorded ones. A world corpus (``World(record=)``) replays through a
``World`` on the header's ``.nkw`` file or ``--map`` (a ``.nkw`` or a map
file). Exit status 0 when every answer matches, 1 when any answer changed,
2 for bad input (an unreadable or malformed corpus, a map whose fingerprint
differs). Expansion changes are reported but do not fail.
``--budget`` also runs every query at each budget (``none``: unlimited) and
prints the sweep table.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ..corpus.replay import ReplayReport, replay
from .common import EXIT_NO_PATH, EXIT_OK, emit_json, stderr, stdout
from .distributed import (
    DEFAULT_TIMEOUT_S,
    ConnectTimeoutOpt,
    OptionalWorkersOpt,
    SchedulerOpt,
    ThreadsOpt,
    make_runner,
)

__all__ = ["replay_cmd", "HELP", "parse_budgets", "MISMATCH_SHOW"]

#: The command's help line.
HELP = ("Replay a query corpus, check the answers still match (exit 1 if not), "
        "and sweep node budgets.")
#: Mismatches listed in the table (all are in --json).
MISMATCH_SHOW = 10


def parse_budgets(text: str | None) -> list[int | None] | None:
    """``'250,500,none'`` -> ``[250, 500, None]``; a bad value raises BadParameter.

    >>> parse_budgets("250, 500,none")
    [250, 500, None]
    """
    if text is None:
        return None
    out: list[int | None] = []
    for part in text.split(","):
        p = part.strip().lower()
        if p in ("none", "unlimited", "inf"):
            out.append(None)
            continue
        try:
            v = int(p, 10)
        except ValueError:
            raise typer.BadParameter(f"expected positive integers or 'none', got {part!r}",
                                     param_hint="'--budget'") from None
        if v < 1:
            raise typer.BadParameter(f"expected positive integers or 'none', got {v}",
                                     param_hint="'--budget'")
        out.append(v)
    return out


def replay_cmd(
    corpus: Annotated[Path, typer.Argument(metavar="CORPUS.jsonl", help="Query corpus.")],
    map_path: Annotated[Path | None, typer.Option(
        "--map", metavar="MAP",
        help="The map, or for a world corpus the world (.nkw or a map file); "
             "default: the file the header names.")] = None,
    budget: Annotated[str | None, typer.Option(
        "--budget", metavar="B1,B2,...",
        help="Also run every query at each node budget ('none': unlimited).")] = None,
    no_check: Annotated[bool, typer.Option(
        "--no-fingerprint-check",
        help="Replay even when the map's fingerprint differs from the recorded one.")] = False,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print one JSON object instead of tables.")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="No progress bar; print only mismatches and the verdict.")] = False,
    scheduler: SchedulerOpt = None,
    workers: OptionalWorkersOpt = None,
    threads: ThreadsOpt = False,
    connect_timeout: ConnectTimeoutOpt = DEFAULT_TIMEOUT_S,
) -> None:
    """Replay a query corpus and compare the answers with the recorded ones (on a Dask
    cluster with --workers or --scheduler: the same answers)."""
    budgets = parse_budgets(budget)
    progress = not (quiet or as_json) and sys.stderr.isatty()
    with make_runner(scheduler, workers, threads=threads, progress=progress,
                     timeout=connect_timeout) as runner:
        report = replay(corpus, grid=map_path, budgets=budgets, progress=progress,
                        check_fingerprint=not no_check, map_batches=runner.map_batches)
    if as_json:
        emit_json(report.to_json_dict())
    else:
        _print(report, quiet)
    raise typer.Exit(EXIT_OK if report.ok else EXIT_NO_PATH)


def _print(r: ReplayReport, quiet: bool) -> None:
    out = stdout()
    if not quiet:
        t = Table(title=escape(f"navkit replay {r.corpus}"), show_header=False)
        t.add_column("field", style="bold")
        t.add_column("value", justify="right")
        t.add_row("map", escape(r.map))
        t.add_row("fingerprint", r.fingerprint[:16] + "...")
        t.add_row("lines", f"{r.lines:,}")
        t.add_row("replayed", f"{r.replayed:,}")
        if r.skipped:
            t.add_row("skipped (other map version)", f"{len(r.skipped):,}")
        style = "green" if r.ok else "red"
        t.add_row("answers matched", f"[{style}]{r.matches:,}[/]")
        t.add_row("answers changed", f"[{style}]{len(r.answer_mismatches):,}[/]")
        t.add_row("expansions changed", f"{len(r.expansion_mismatches):,}")
        t.add_row("FOUND (recorded / replayed)", f"{r.recorded_found:,} / {r.replayed_found:,}")
        t.add_row("median us / query (replayed)", f"{r.median_us:,.1f}")
        t.add_row("p99 us / query (replayed)", f"{r.p99_us:,.1f}")
        t.add_row("median us / query (recorded)", f"{r.recorded_median_us:,.1f}")
        out.print(t)
    _print_mismatches(out, "answer changed", r.answer_mismatches)
    _print_mismatches(out, "expansions changed", r.expansion_mismatches)
    if r.sweep and not quiet:
        s = Table(title="budget sweep")
        for name in ("budget", "success", "median us", "p99 us", "median expanded",
                     "p99 expanded", "max expanded"):
            s.add_column(name, justify="right")
        for row in r.sweep:
            s.add_row("unlimited" if row.budget is None else f"{row.budget:,}",
                      f"{row.success_rate:.1%}", f"{row.median_us:,.1f}", f"{row.p99_us:,.1f}",
                      f"{row.median_expanded:,.0f}", f"{row.p99_expanded:,.0f}",
                      f"{row.max_expanded:,}")
        out.print(s)
    if r.ok:
        out.print(f"[green]all {r.replayed:,} answers match[/]")
    else:
        stderr().print(f"[red]{len(r.answer_mismatches):,} answer(s) changed[/] "
                       f"(lines {_lines(r.answer_mismatches)})")


def _lines(ms: list[Any]) -> str:
    shown = ", ".join(str(m.line) for m in ms[:MISMATCH_SHOW])
    return shown + (", ..." if len(ms) > MISMATCH_SHOW else "")


def _print_mismatches(out: Any, title: str, ms: list[Any]) -> None:
    for m in ms[:MISMATCH_SHOW]:
        fields = "; ".join(f"{k}: {a} -> {b}" for k, (a, b) in m.fields.items())
        out.print(f"line {m.line} ({m.kind}): {title}: {escape(fields)}")
    if len(ms) > MISMATCH_SHOW:
        out.print(f"... {len(ms) - MISMATCH_SHOW:,} more ({title})")
