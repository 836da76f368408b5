"""``navkit bench`` and ``navkit bench-level``: the benchmarks (:mod:`navkit.bench`).

::

    navkit bench [OPTIONS]                          the peer benchmark (= navkit bench peers)
    navkit bench jps|hpa|flow|level|sim|... [OPTIONS]   the others
    navkit bench-level [OPTIONS]                    the same as navkit bench level

``navkit bench`` is a click group (:class:`BenchGroup`) whose subcommands are
the benchmark modules' typer commands (``navkit.bench.X.app``), loaded
lazily: a module is imported only when its subcommand runs or its ``--help``
is asked, so ``navkit --help`` and ``navkit bench --help`` stay fast. Exit
status: the benchmark's (0, 2 on bad input).
"""

from __future__ import annotations

import importlib
from typing import Any

import typer
import typer.main

from ..bench import DEFAULT_SUITE, SUITE_HELP, SUITES
from .common import EXIT_BAD_INPUT, NavkitGroup, exit_with

__all__ = ["BenchGroup", "bench_app", "bench_level_cmd", "load_suite", "run_suite",
           "BENCH_HELP", "BENCH_LEVEL_HELP"]

#: The commands' help lines.
BENCH_HELP = ("Run a benchmark: navkit bench SUITE [OPTIONS] (navkit bench alone runs "
              "'peers'; navkit bench SUITE -h for its options).")
BENCH_LEVEL_HELP = ("Run the reference benchmark (docs/rules.md §11.2; the same as "
                    "navkit bench level).")


def load_suite(name: str) -> Any:
    """The typer app of benchmark ``name`` (a key of :data:`navkit.bench.SUITES`),
    importing its module; ``None`` (after an ``error:`` line) when it cannot be imported."""
    module = SUITES[name]
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        if getattr(exc, "name", None) not in (module, "navkit.bench", "navkit"):
            raise
        typer.echo(f"error: the benchmark module {module} is not available ({exc})", err=True)
        return None
    return mod.app


def run_suite(name: str, args: list[str], prog_name: str | None = None) -> int:
    """Run benchmark ``name`` on command-line ``args``; its exit status (2 on bad input)."""
    from ..bench.options import run

    app = load_suite(name)
    if app is None:
        return EXIT_BAD_INPUT
    return run(app, args, prog_name or f"navkit bench {name}")


class BenchGroup(NavkitGroup):
    """``navkit bench``: one subcommand per :data:`navkit.bench.SUITES` entry, imported
    on first use; arguments that name no benchmark go to :data:`navkit.bench.DEFAULT_SUITE`
    (``navkit bench --quick`` is ``navkit bench peers --quick``)."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(SUITES)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in self.commands:
            return super().get_command(ctx, cmd_name)
        if cmd_name not in SUITES:
            return None
        # for listings: the name and help line only, no import
        return typer.core.TyperCommand(cmd_name, help=SUITE_HELP[cmd_name])

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name = args[0] if args else None
        if name in SUITES and name not in self.commands:
            app = load_suite(name)
            if app is None:
                raise typer.Exit(EXIT_BAD_INPUT)
            self.add_command(typer.main.get_command(app), name)
        return super().resolve_command(ctx, args)

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not args or (args[0] not in SUITES and args[0] not in ctx.help_option_names):
            args = [DEFAULT_SUITE, *args]
        return super().parse_args(ctx, args)


#: ``navkit bench``: registered in :data:`navkit.cli.app` with ``add_typer``.
bench_app = typer.Typer(
    name="bench",
    cls=BenchGroup,
    help=BENCH_HELP,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def bench_level_cmd(ctx: typer.Context) -> None:
    """``navkit bench-level``: ``navkit bench level`` under its own name (its arguments,
    ``--help`` included, go to the level benchmark's command)."""
    raise exit_with(run_suite("level", list(ctx.args), "navkit bench-level"))
