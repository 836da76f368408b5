"""`-h` and `--help` work on navkit and every one of its commands (issue #18 §5)."""

from __future__ import annotations

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from navkit.cli import app

COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


@pytest.mark.parametrize("flag", ["-h", "--help"])
@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_flag(command: str, flag: str) -> None:
    args = [command, flag] if command else [flag]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "usage" in res.output.lower()
    assert "<bool>" not in res.output  # flags take no value


def test_every_command_is_listed() -> None:
    assert {"path", "scen", "bench", "info", "sim", "mesh", "warmup"} <= set(COMMANDS)


def _tree() -> list[list[str]]:
    """Every command path under ``navkit``, subcommands of groups (``bench``'s lazy
    benchmarks, ``world``'s) included."""
    out: list[list[str]] = []

    def walk(cmd: object, path: list[str]) -> None:
        out.append(path)
        if isinstance(getattr(cmd, "commands", None), dict):
            ctx = typer.Context(cmd)  # type: ignore[arg-type]
            for name in cmd.list_commands(ctx):  # type: ignore[attr-defined]
                walk(cmd.get_command(ctx, name), [*path, name])  # type: ignore[attr-defined]

    walk(typer.main.get_command(app), [])
    return out


TREE = _tree()


def test_the_tree_has_the_benchmarks() -> None:
    assert ["bench", "jps"] in TREE and ["world", "info"] in TREE and ["bench-level"] in TREE


@pytest.mark.parametrize("flag", ["-h", "--help"])
@pytest.mark.parametrize("path", TREE, ids=lambda p: " ".join(p) or "navkit")
def test_help_on_the_whole_tree(path: list[str], flag: str) -> None:
    res = CliRunner().invoke(app, [*path, flag])
    assert res.exit_code == 0, res.output
    assert "Usage" in res.output
    assert "<bool>" not in res.output
