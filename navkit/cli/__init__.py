"""The ``navkit`` command line: one module per command group.

Commands::

    navkit path MAP --from X,Z --to X,Z ...      (navkit.cli.paths)
    navkit scen FILE.scen ...                    (navkit.cli.scen)
    navkit batch MAP_OR_SCEN... ...              (navkit.cli.distributed)
    navkit bench [SUITE] [OPTIONS]               (navkit.cli.bench -> navkit.bench)
    navkit info MAP [--json]                     (navkit.cli.paths)
    navkit convert IN OUT                        (navkit.cli.paths)
    navkit build CONFIG.json -o GRID.txt ...     (navkit.cli.level)
    navkit mesh LEVEL.json -o MESH.npz ...       (navkit.cli.mesh)
    navkit bench-level ...                       (navkit.cli.bench)
    navkit sim SCENE.json --ticks N ...          (navkit.cli.sim)
    navkit view TARGET ...                       (navkit.cli.view)
    navkit flow MAP --goal X,Z ...               (navkit.cli.flow)
    navkit warmup [GROUP ...]                    (navkit.cli.warmup)
    navkit precompute MAP -o TABLES.npz ...      (navkit.cli.precompute)
    navkit bake SOURCE -o WORLD.nkw ...          (navkit.cli.world)
    navkit world info|stats WORLD.nkw ...        (navkit.cli.world)
    navkit replay CORPUS.jsonl [--budget ...]    (navkit.cli.replay)
    navkit --version

Exit status: 0 success; 1 a query found no path (``path``, ``flow``) or a
scenario length did not match (``scen``; for ``--algorithm hpa``, which is
approximate, only a missing or invalid path counts); 2 bad input or any
other failure (a bad option value, an unreadable file, any
:class:`~navkit.errors.NavkitError`, a missing module, an unexpected
exception: one ``error: <message>`` line, never a traceback; see
:func:`navkit.cli.common.report_failure`). The shared pieces are in
:mod:`navkit.cli.common`; this module builds the typer :data:`app` and
registers the commands. The bundled example files are listed by
``python -m navkit.examples`` (:mod:`navkit.examples`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from .._version import __version__
from .bench import BENCH_HELP, BENCH_LEVEL_HELP, bench_app, bench_level_cmd
from .common import EXIT_BAD_INPUT, EXIT_NO_PATH, EXIT_OK, PASSTHROUGH, NavkitGroup
from .distributed import HELP as BATCH_HELP
from .distributed import batch_cmd
from .flow import HELP as FLOW_HELP
from .flow import flow_cmd
from .level import build_cmd
from .mesh import MESH_HELP, mesh_cmd
from .paths import convert_cmd, info_cmd, path_cmd
from .precompute import HELP as PRECOMPUTE_HELP
from .precompute import precompute_cmd
from .replay import HELP as REPLAY_HELP
from .replay import replay_cmd
from .scen import ALGORITHMS, scen_cmd
from .scen import HELP as SCEN_HELP
from .sim import sim_cmd
from .view import view_cmd
from .warmup import HELP as WARMUP_HELP
from .warmup import warmup_cmd
from .world import BAKE_HELP, bake_cmd, world_app

__all__ = ["app", "main", "ALGORITHMS", "EXIT_OK", "EXIT_NO_PATH", "EXIT_BAD_INPUT"]

app = typer.Typer(
    name="navkit",
    cls=NavkitGroup,
    help="Exact, deterministic grid navigation: path queries, Moving AI checks, map tools.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"navkit {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the navkit version and exit.", is_eager=True,
                     callback=_version_callback),
    ] = False,
) -> None:
    """Exact, deterministic grid navigation: path queries, Moving AI checks, map tools."""


# in the order `navkit --help` lists them
app.command("path")(path_cmd)
app.command("scen", help=SCEN_HELP)(scen_cmd)
app.command("batch", help=BATCH_HELP)(batch_cmd)
app.add_typer(bench_app, name="bench", help=BENCH_HELP)
app.command("info")(info_cmd)
app.command("convert")(convert_cmd)
app.command("build")(build_cmd)
app.command("mesh", help=MESH_HELP)(mesh_cmd)
app.command("bench-level", help=BENCH_LEVEL_HELP, **PASSTHROUGH)(bench_level_cmd)
app.command("sim")(sim_cmd)
app.command("view")(view_cmd)
app.command("flow", help=FLOW_HELP)(flow_cmd)
app.command("warmup", help=WARMUP_HELP)(warmup_cmd)
app.command("precompute", help=PRECOMPUTE_HELP)(precompute_cmd)
app.command("bake", help=BAKE_HELP)(bake_cmd)
app.add_typer(world_app, name="world")
app.command("replay", help=REPLAY_HELP)(replay_cmd)


def main() -> None:
    """Console-script entry point (``navkit``)."""
    app(prog_name="navkit")
