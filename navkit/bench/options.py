"""The benchmarks' command lines: one typer command per module, shared pieces here.

Each benchmark module ``navkit/bench/X.py`` has ``app`` (a :func:`bench_app`
with one command) and ``main(argv) -> int`` (:func:`run`), so
``navkit bench X ...``, ``python -m navkit.bench.X ...`` and ``main([...])``
parse the same way. The options several benchmarks share are declared once
here (:func:`data`, :func:`quick`, :func:`json_flag`, :func:`json_file`,
:func:`quiet`, :func:`seed`); :func:`dumps` writes their ``--json`` figures
in navkit's one JSON casing (camelCase: :func:`navkit.casing.apply_case`).

Exit statuses: 0, 2 on bad input (a bad option, a missing data folder).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any, NoReturn

import typer
from typer.core import TyperCommand

from ..casing import apply_case

__all__ = ["Args", "CONTEXT", "BenchCommand", "greedy_command", "expand_greedy", "bench_app",
           "run", "done", "usage_error", "data", "quick",
           "json_flag", "json_file", "quiet", "seed", "dumps"]

#: The parsed options a benchmark's code reads (``args.queries``): a namespace.
Args = SimpleNamespace
#: ``-h`` and ``--help`` everywhere, like the rest of ``navkit``.
CONTEXT: dict[str, Any] = {"help_option_names": ["-h", "--help"]}


def _no_type(ctx: Any) -> None:
    return None


class BenchCommand(TyperCommand):
    """A benchmark's command: flags show no type and options no ``[default: ...]`` in
    ``--help`` (the help texts name the defaults); the options named
    in :attr:`greedy` take one or more values like argparse's ``nargs="+"``
    (``--maps a b`` is ``--maps a --maps b``)."""

    #: Options whose values run up to the next token that starts with ``-``.
    greedy: tuple[str, ...] = ()

    def get_params(self, ctx: Any) -> list[Any]:
        params: list[Any] = super().get_params(ctx)
        for p in params:
            p.show_default = False  # the help texts say their defaults, as they did
            if getattr(p, "is_flag", False) and "display_type_rich" not in vars(p):
                p.display_type_rich = _no_type
        return params

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, expand_greedy(args, self.greedy))


def greedy_command(*names: str) -> type[BenchCommand]:
    """A :class:`BenchCommand` class whose options ``names`` take one or more values."""
    return type("GreedyBenchCommand", (BenchCommand,), {"greedy": tuple(names)})


def expand_greedy(args: Sequence[str], names: Sequence[str]) -> list[str]:
    """``--maps a b --quick`` -> ``--maps a --maps b --quick`` for each option in ``names``.

    >>> expand_greedy(["--maps", "a", "b", "--quick", "x"], ["--maps"])
    ['--maps', 'a', '--maps', 'b', '--quick', 'x']
    """
    out: list[str] = []
    current: str | None = None
    for tok in args:
        if tok == "--":
            current = None
        elif tok.startswith("-"):
            current = tok if tok in names else None
            out.append(tok)
            continue
        elif current is not None and out and out[-1] != current:
            out.append(current)
        out.append(tok)
    return out


def bench_app(help: str | None = None) -> typer.Typer:
    """A typer app for one benchmark command (``-h``/``--help``, no completion)."""
    return typer.Typer(help=help, add_completion=False, pretty_exceptions_enable=False,
                       context_settings=CONTEXT)


def run(app: typer.Typer, argv: Sequence[str] | None, prog_name: str) -> int:
    """Run ``app``'s command on ``argv`` (default ``sys.argv[1:]``); its exit status
    (0, 2 on bad input, after printing the usage error on stderr)."""
    import typer.main

    cmd = typer.main.get_command(app)
    try:
        cmd.main(args=list(sys.argv[1:] if argv is None else argv), prog_name=prog_name,
                 standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0


def done(rc: object) -> NoReturn:
    """End a benchmark command with exit status ``rc`` (an int, else 0)."""
    raise typer.Exit(int(rc) if isinstance(rc, int) else 0)


# ------------------------------------------------------------- shared options
def data() -> Any:
    """``--data DIR``: the Moving AI folder (:func:`navkit.bench.common.default_data_dir`)."""
    return typer.Option(
        "--data", metavar="DIR",
        help="Moving AI folder holding the .map and .map.scen files (default: "
             "$NAVKIT_MOVINGAI_DIR, else <repo>/../shared/maps/movingai, else the maps "
             "bundled in navkit.examples)")


def maps(default: str, *, note: str = "") -> Any:
    """``--maps A,B``: Moving AI map names; ``default`` says which run without it."""
    return typer.Option("--maps", metavar="A,B",
                        help=f"Comma-separated map names (default: {default}){note}.")


def quick(help: str) -> Any:
    """``--quick``: a smaller run."""
    return typer.Option("--quick", help=help)


def json_flag(help: str = "print one JSON object") -> Any:
    """``--json``: print the figures as JSON on stdout."""
    return typer.Option("--json", help=help)


def json_file(help: str, metavar: str = "OUT") -> Any:
    """``--json OUT``: write the figures to a JSON file."""
    return typer.Option("--json", metavar=metavar, help=help)


def quiet(help: str = "no progress bar") -> Any:
    """``--quiet``: no progress bar."""
    return typer.Option("--quiet", help=help)


def seed(help: str | None = None) -> Any:
    """``--seed S``: the random seed."""
    return typer.Option("--seed", help=help)


def dumps(payload: Any, *, indent: int | None = None, allow_nan: bool = True,
          default: Callable[[Any], Any] | None = None) -> str:
    """``payload`` as JSON text with camelCase keys (``NAVKIT_JSON_CASE=snake``,
    deprecated: the snake_case keys the code builds), values untouched."""
    plain = json.loads(json.dumps(payload, default=default, allow_nan=allow_nan))
    return json.dumps(apply_case(plain), indent=indent, allow_nan=allow_nan)


def usage_error(message: str) -> NoReturn:
    """Stop with a usage error (printed with the usage line; exit status 2)."""
    raise typer.BadParameter(message)
