"""`-h` and `--help` work on navkit and every one of its commands (issue #18 §5)."""

from __future__ import annotations

import pytest
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
