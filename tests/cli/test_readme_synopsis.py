"""The README's "Command line" synopsis matches the CLI (issue #18 §5).

Every flag a synopsis line lists must exist in that command's ``--help``, and
every command ``navkit --help`` lists must have a synopsis line. The oracle is
the CLI's own help text, not the README.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from navkit.cli import app

README = Path(__file__).resolve().parents[2] / "README.md"
ROOT = typer.main.get_command(app)
COMMANDS = sorted(ROOT.commands)  # type: ignore[attr-defined]
_FLAG = re.compile(r"(?<![\w-])(?:--[a-z][a-z0-9-]*|-[a-zA-Z](?![\w-]))")


def option_rows(helptext: str) -> list[set[str]]:
    """The flags a ``--help`` text defines, one set of aliases per option row
    (``{"--output", "-o"}``): the leading option tokens of each row of rich's
    boxed table or argparse's list, not flags its prose mentions (``view``
    says "a `navkit sim --record` file")."""
    rows = []
    for line in helptext.splitlines():
        tokens = line.strip().strip("│|").replace(",", " ").replace("/", " ").split()
        if tokens and tokens[0] == "*":  # rich marks required options
            tokens = tokens[1:]
        row: set[str] = set()
        for tok in tokens:
            if not tok.startswith("-"):
                break
            row.update(_FLAG.findall(tok))
        if row:
            rows.append(row)
    return rows


def offered_flags(helptext: str) -> set[str]:
    """Every flag of :func:`option_rows`."""
    return set().union(*option_rows(helptext))


def synopsis_lines() -> list[str]:
    """The ``navkit ...`` lines of the first code block under ``## Command line``."""
    text = README.read_text(encoding="utf-8")
    m = re.search(r"^## Command line\s*$(.*?)^## ", text, flags=re.M | re.S)
    assert m, "README.md has no '## Command line' section"
    block = re.search(r"^```[^\n]*\n(.*?)^```", m.group(1), flags=re.M | re.S)
    assert block, "the '## Command line' section has no code block"
    lines = [ln.strip() for ln in block.group(1).splitlines()]
    return [ln for ln in lines if ln.startswith("navkit ")]


def _is_group(cmd: object) -> bool:
    """A command with subcommands (typer vendors its own click: no isinstance)."""
    return isinstance(getattr(cmd, "commands", None), dict)


def _subcommands(group: Any) -> list[str]:
    """A group's subcommand names, as its ``--help`` lists them (``bench`` loads its
    subcommands lazily: ``group.commands`` holds only those already run)."""
    return list(group.list_commands(typer.Context(group)))


def command_path(line: str) -> list[list[str]]:
    """The command paths a synopsis line stands for: ``navkit world info|stats W``
    is ``[["world", "info"], ["world", "stats"]]``."""
    words = line.split()[1:]
    if not words or words[0].startswith("-"):
        return [[]]
    cmd = words[0]
    group = ROOT.commands.get(cmd)  # type: ignore[attr-defined]
    if _is_group(group) and len(words) > 1:
        subs = words[1].split("|")
        if all(s in _subcommands(group) for s in subs):
            return [[cmd, s] for s in subs]
    return [[cmd]]


def help_text(path: list[str]) -> str:
    res = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "400", "TERM": "dumb"},
                             terminal_width=400)
    assert res.exit_code == 0, res.output
    return res.output


def test_synopsis_is_found() -> None:
    lines = synopsis_lines()
    assert len(lines) >= 10
    assert any(ln.startswith("navkit path ") for ln in lines)


@pytest.mark.parametrize("line", synopsis_lines())
def test_synopsis_flags_exist(line: str) -> None:
    flags = sorted(set(_FLAG.findall(line)))
    for path in command_path(line):
        assert not path or path[0] in COMMANDS, f"{path[0]!r} is not a navkit command: {line}"
        helptext = help_text(path)
        offered = offered_flags(helptext)
        missing = [f for f in flags if f not in offered]
        assert not missing, (f"`navkit {' '.join(path)} --help` has no {missing} "
                             f"(README line: {line})")


def test_every_command_has_a_synopsis_line() -> None:
    listed = {p[0] for ln in synopsis_lines() for p in command_path(ln) if p}
    missing = [c for c in COMMANDS if c not in listed]
    assert not missing, f"README '## Command line' lacks {missing}"


def test_every_group_subcommand_has_a_synopsis_line() -> None:
    paths = {tuple(p) for ln in synopsis_lines() for p in command_path(ln)}
    for name, cmd in ROOT.commands.items():  # type: ignore[attr-defined]
        if _is_group(cmd):
            for sub in _subcommands(cmd):
                assert (name, sub) in paths, f"README '## Command line' lacks navkit {name} {sub}"


def test_the_checker_fails_on_a_wrong_flag() -> None:
    """The oracle can fail: a made-up flag is not in ``path --help``."""
    offered = offered_flags(help_text(["path"]))
    assert "--no-such-flag" not in offered
    assert {"--algorithm", "--from", "--to", "--no-smooth", "-h"} <= offered
    assert "--record" not in offered_flags(help_text(["view"]))  # (only in its prose)


def test_every_offered_flag_is_in_the_synopsis() -> None:
    """The reverse: each command's lines list every flag its ``--help`` defines
    (``bench``'s sub-benchmarks other than ``peers`` and ``-h``/``--help`` aside)."""
    by_path: dict[tuple[str, ...], set[str]] = {}
    for ln in synopsis_lines():
        for p in command_path(ln):
            by_path.setdefault(tuple(p), set()).update(_FLAG.findall(ln))
    gaps = {}
    for path, listed in by_path.items():
        if not path or (path[0] == "bench" and path[1:] != ["peers"]):
            continue
        missing = sorted(min(row) for row in option_rows(help_text(list(path)))
                         if not row & listed and "--help" not in row)
        if missing:
            gaps[" ".join(path)] = missing
    assert not gaps, f"README '## Command line' omits flags: {gaps}"
