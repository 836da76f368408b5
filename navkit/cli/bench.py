"""``navkit bench`` and ``navkit bench-level``: the benchmarks (:mod:`navkit.bench`).

::

    navkit bench [OPTIONS]                          the peer benchmark
    navkit bench jps|hpa|flow|level|sim [OPTIONS]   the others
    navkit bench-level [OPTIONS]                    the same as navkit bench level

Every argument, ``--help`` included, is handed to the benchmark's own parser;
the exit status is the benchmark's (2 on bad input).
"""

from __future__ import annotations

import importlib

import typer

from ..bench import SUITES, split_suite
from .common import EXIT_BAD_INPUT, exit_with

__all__ = ["bench_cmd", "bench_level_cmd", "run_suite", "BENCH_HELP", "BENCH_LEVEL_HELP"]

#: The commands' help lines.
BENCH_HELP = ("Run a benchmark (the peer comparison, or jps|hpa|flow|level|sim|startup|"
              "mesh|crowd|avoidance|world|world-store|engines|distributed|edits|jps-plus); "
              "arguments "
              "pass "
              "through (try --help).")
BENCH_LEVEL_HELP = ("Run the reference benchmark (docs/rules.md §11.2; navkit bench level); "
                    "arguments pass through (try --help).")


def run_suite(name: str, args: list[str]) -> int:
    """Import benchmark ``name`` (a key of :data:`navkit.bench.SUITES`) and run it on ``args``."""
    module = SUITES[name]
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        if getattr(exc, "name", None) not in (module, "navkit.bench", "navkit"):
            raise
        typer.echo(f"error: the benchmark module {module} is not available ({exc})", err=True)
        return EXIT_BAD_INPUT
    rc = mod.main(args)
    return int(rc) if isinstance(rc, int) else 0


def bench_cmd(ctx: typer.Context) -> None:
    """Run the benchmark the arguments name (see :data:`BENCH_HELP`)."""
    name, rest = split_suite(ctx.args)
    raise exit_with(run_suite(name, rest))


def bench_level_cmd(ctx: typer.Context) -> None:
    """Run ``navkit bench level`` (see :data:`BENCH_LEVEL_HELP`)."""
    raise exit_with(run_suite("level", list(ctx.args)))
