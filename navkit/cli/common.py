"""Pieces every ``navkit`` command shares: exit codes, error handling, output, parsing.

* :data:`EXIT_OK`, :data:`EXIT_NO_PATH`, :data:`EXIT_BAD_INPUT`: the exit
  statuses of every command;
* :class:`NavkitGroup`: the typer group class of every command group; it
  turns any failure of a command (a :class:`~navkit.errors.NavkitError`, a
  file that cannot be used, a missing module, and any other exception) into
  one ``error: <message>`` line on stderr and exit status 2, without a
  traceback (:func:`report_failure`; ``NAVKIT_TRACEBACK=1`` re-raises the
  unexpected ones, traceback included);
* :func:`stdout` / :func:`stderr`: rich consoles, :func:`emit_json` and
  :func:`num` for strict JSON;
* :func:`parse_pair` (``X,Z``) and :func:`parse_obstacles` (``X,Z,R``):
  option parsers whose errors name the option;
* :class:`CostsName`: the ``--costs`` choice;
* :data:`PASSTHROUGH`: the settings of a command that hands its arguments on.
"""

from __future__ import annotations

import enum
import json
import math
import os
import sys
from typing import Any, NoReturn

import numpy as np
import typer
from numpy.typing import NDArray
from rich.console import Console
from typer.core import TyperGroup

from ..errors import NavkitError

__all__ = [
    "EXIT_OK",
    "EXIT_NO_PATH",
    "EXIT_BAD_INPUT",
    "NavkitGroup",
    "CostsName",
    "PASSTHROUGH",
    "stdout",
    "stderr",
    "emit_json",
    "num",
    "parse_pair",
    "parse_obstacles",
    "exit_with",
    "report_failure",
    "EXTRA_OF_MODULE",
]

EXIT_OK = 0
#: ``path``: no path was found; ``scen``: at least one length mismatched.
EXIT_NO_PATH = 1
#: Bad input: option values, files, any NavkitError.
EXIT_BAD_INPUT = 2

#: Command settings for ``bench`` and ``bench-level``: every argument, ``--help``
#: included, is handed on to the benchmark's own parser.
PASSTHROUGH: dict[str, Any] = {
    "context_settings": {"allow_extra_args": True, "ignore_unknown_options": True},
    "add_help_option": False,
}


def _no_type(ctx: Any) -> None:
    return None


def _plain_flags(params: list[Any]) -> list[Any]:
    """Flags (``--json``, ``--help``) take no value: no ``<bool>`` in the help's type column."""
    for p in params:
        if getattr(p, "is_flag", False) and "display_type_rich" not in vars(p):
            p.display_type_rich = _no_type
    return params


#: The optional modules navkit imports, and the extra (pyproject.toml) that installs each.
EXTRA_OF_MODULE: dict[str, str] = {
    "starlette": "viewer",
    "uvicorn": "viewer",
    "websockets": "viewer",
    "h11": "viewer",
    "pytiled_parser": "tiled",
    "dask": "distributed",
    "distributed": "distributed",
    "blosc2": "world",
    "pygame": "pygame",
    "arcade": "arcade",
}


def _missing_module_message(exc: ModuleNotFoundError) -> str:
    """What to install for a module that is not there."""
    name = exc.name or str(exc)
    top = name.split(".")[0]
    extra = EXTRA_OF_MODULE.get(top)
    if extra is not None:
        return f"this command needs {top}, which is not installed: pip install 'navkit[{extra}]'"
    return (f"this command needs the Python module {top!r}, which is not installed; navkit's "
            "installation looks incomplete (pip install --force-reinstall navkit)")


#: The exceptions the command-line framework handles itself (usage errors, exit,
#: abort): its ClickException base is found on typer's class (typer vendors click).
_FRAMEWORK_EXCEPTIONS: tuple[type[BaseException], ...] = (
    typer.Exit,
    typer.Abort,
    next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"),
)


def report_failure(exc: BaseException) -> NoReturn:
    """Print ``error: <message>`` for ``exc`` on stderr and exit with status 2.

    Click's own exceptions (usage errors, ``typer.Exit``, an abort) pass
    through unchanged: they already print their message and set the status.
    An exception navkit does not expect says it is one (a bug to report)
    and, with ``NAVKIT_TRACEBACK=1`` in the environment, is re-raised with
    its traceback.
    """
    if isinstance(exc, _FRAMEWORK_EXCEPTIONS):
        raise exc
    if isinstance(exc, NavkitError):
        message = str(exc)
    elif isinstance(exc, ModuleNotFoundError):
        message = _missing_module_message(exc)
    elif isinstance(exc, OSError):  # a file that cannot be read or written
        name = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        message = f"cannot use{name}: {exc.strerror or exc}"
    elif isinstance(exc, (MemoryError, RecursionError)):  # input too large or too deep
        message = f"the input is too large or too deeply nested ({type(exc).__name__})"
    elif isinstance(exc, Exception):
        if os.environ.get("NAVKIT_TRACEBACK", "") not in ("", "0"):
            raise exc
        text = str(exc).strip().splitlines()
        detail = f": {text[0]}" if text else ""
        message = (f"unexpected {type(exc).__name__}{detail} (a navkit bug: please report it "
                   "with the command line; NAVKIT_TRACEBACK=1 shows the traceback)")
    else:  # KeyboardInterrupt, SystemExit, GeneratorExit: not a failure to report
        raise exc
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(EXIT_BAD_INPUT) from None


class NavkitGroup(TyperGroup):
    """Runs every command through :func:`report_failure`: any failure becomes
    ``error: <message>`` and exit status 2, never a traceback; help shows flags
    without a type."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain_flags(super().get_params(ctx))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        cmd = super().get_command(ctx, cmd_name)
        if cmd is not None and "get_params" not in vars(cmd):
            plain = cmd.get_params
            cmd.get_params = lambda c: _plain_flags(plain(c))  # type: ignore[method-assign,assignment]
        return cmd

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except Exception as exc:
            report_failure(exc)


class CostsName(str, enum.Enum):
    """``--costs``: the step cost models."""

    seed = "seed"
    exact = "exact"


def stdout() -> Console:
    """A console on the current ``sys.stdout``.

    Made per call: typer's test runner swaps ``sys.stdout`` per invocation.
    """
    return Console(file=sys.stdout, highlight=False, soft_wrap=False)


def stderr() -> Console:
    """A console on the current ``sys.stderr``."""
    return Console(file=sys.stderr, highlight=False)


def emit_json(obj: dict[str, Any]) -> None:
    """Print ``obj`` as one line of strict JSON (no NaN or inf), its keys in
    camelCase (``NAVKIT_JSON_CASE=snake``, deprecated, keeps the Python names:
    :mod:`navkit.cli.json_casing`)."""
    from .json_casing import apply_case

    typer.echo(json.dumps(apply_case(obj), allow_nan=False))


def num(value: float) -> float | None:
    """A float for JSON: ``None`` for inf / NaN (strict JSON has neither).

    >>> num(1.5), num(float("inf"))
    (1.5, None)
    """
    v = float(value)
    return v if math.isfinite(v) else None


def exit_with(rc: object) -> typer.Exit:
    """The ``typer.Exit`` for a ``main(argv)`` return value (an int, else 0)."""
    return typer.Exit(int(rc) if isinstance(rc, int) else 0)


def parse_pair(text: str, option: str, *, integer: bool) -> tuple[float, float] | tuple[int, int]:
    """Parse ``'X,Z'`` strictly; a bad value raises BadParameter naming ``option``.

    >>> parse_pair(" 1, -2.5", "--from", integer=False)
    (1.0, -2.5)
    >>> parse_pair("3,4", "--from", integer=True)
    (3, 4)
    """
    kind = "integer cells" if integer else "world coordinates"

    def bad(why: str) -> typer.BadParameter:
        return typer.BadParameter(
            f"expected X,Z ({kind}), got {text!r}: {why}", param_hint=f"'{option}'"
        )

    parts = text.split(",")
    if len(parts) != 2:
        raise bad(f"need exactly two comma-separated numbers, found {len(parts)} part(s)")
    out: list[Any] = []
    for label, part in zip("XZ", parts, strict=True):
        p = part.strip()
        if not p:
            raise bad(f"{label} is empty")
        if integer:
            try:
                out.append(int(p, 10))
            except ValueError:
                raise bad(f"{label} = {p!r} is not an integer") from None
        else:
            out.append(_finite(p, label, bad))
    return (out[0], out[1])


def _finite(p: str, label: str, bad: Any) -> float:
    """``p`` as a finite float, else the error ``bad(why)`` for coordinate ``label``."""
    try:
        v = float(p)
    except ValueError:
        raise bad(f"{label} = {p!r} is not a number") from None
    if not math.isfinite(v):
        raise bad(f"{label} = {p!r} is not finite")
    return v


def grid_summary(grid: Any) -> dict[str, Any]:
    """The size and walkable share of a grid (the JSON of ``info`` and ``build``)."""
    nwalk = int(grid.walkable.sum())
    return {
        "width": grid.width,
        "depth": grid.depth,
        "cells": grid.size,
        "walkable": nwalk,
        "walkable_fraction": nwalk / grid.size,
        "weighted": grid.is_weighted,
    }


def parse_obstacles(
    values: list[str] | None, option: str = "--obstacle"
) -> NDArray[np.float64] | None:
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
        row = [_finite(part.strip(), label, bad)
               for label, part in zip(("X", "Z", "R"), parts, strict=True)]
        if row[2] < 0:
            raise bad(f"R = {row[2]!r} is negative")
        rows.append(row)
    return np.array(rows, dtype=np.float64)
