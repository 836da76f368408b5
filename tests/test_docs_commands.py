"""The documentation's shell commands, as a user types them.

Every command of a fenced ``bash``, ``console`` or ``sh`` block in README.md
and docs/*.md is run from a wheel install by ``tests/test_packaging.py``
(``test_every_documented_command_runs_from_the_wheel``, marked ``slow``: it
shares that module's venv), from a folder outside the repository, and must
exit 0. Documented commands therefore name bundled example files the way a
wheel user can: ``"$(python -m navkit.examples NAME)"``. Blocks of synopses
with placeholders (``MAP``, ``X,Z``) are fenced as ``text`` (or bare), and are
not run.

What is not run, and why, is explicit:

* ``<!-- not run: REASON -->`` on the line before a block skips that block
  (REASON must say why: a window, a server, a clone, minutes of benchmark);
* :data:`SKIP` skips single commands by prefix, with the reason beside each;
* :data:`HELPERS` are the plain shell commands a block may use to set up its
  folder (``cp`` of a bundled example), run as written;
* any other command fails :func:`test_every_command_has_a_rule`, so a new
  kind of command gets a rule here rather than being silently ignored.

The cheap tests here need no install: the README stays short, README.md and
docs/*.md cite no internal issue numbers, and every block parses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Shell fences whose commands are run.
SHELL_LANGS = ("bash", "console", "sh", "shell")

#: Commands not run, by prefix, and why.
SKIP: dict[str, str] = {
    "make ": "make targets need a clone (make demo / make test build their own venv)",
    "pip ": "installs packages",
    "python3 -m venv": "creates a virtual environment",
    ".venv/bin/pip": "installs packages",
    "navkit view": "starts a web server and waits (the wheel test drives one itself)",
    "navkit bench": "benchmarks take minutes and need the bench extra's peers",
    "navkit batch": "needs the distributed extra (Dask)",
    "navkit warmup": "compiles every kernel: the install fixture already ran it",
}

#: Shell helpers a block may use to prepare its scratch folder; run as written.
HELPERS = ("cp ", "mkdir ", "ls ", "cat ")

#: Commands that are run.
RUN = ("navkit ", "python -m navkit")

_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
_NOT_RUN = re.compile(r"<!--\s*not run:\s*(\S[^>]*?)\s*-->\s*$")


@dataclass
class Block:
    """One fenced shell block: where it is, its commands, and why it is skipped (or "")."""

    where: str
    commands: list[str] = field(default_factory=list)
    skipped: str = ""


def doc_files() -> list[Path]:
    """README.md and every page of docs/ (CHANGELOG.md is history, not instructions)."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def commands_of(body: str, lang: str) -> list[str]:
    """The commands of a block: ``$ `` prompts only in ``console`` blocks (other
    lines there are output), every non-empty line elsewhere; trailing
    ``# comments`` dropped, ``\\`` continuations joined."""
    out: list[str] = []
    pending = ""
    for raw in body.splitlines():
        line = raw.rstrip()
        if not pending:
            if lang == "console":
                if not line.startswith("$ "):
                    continue
                line = line[2:]
            line = line.strip()
            if not line or line.startswith("#"):
                continue
        else:
            line = pending + " " + line.strip()
            pending = ""
        if line.endswith("\\"):
            pending = line[:-1].rstrip()
            continue
        out.append(_strip_comment(line))
    if pending:
        out.append(_strip_comment(pending))
    return out


def _strip_comment(line: str) -> str:
    """``line`` without a trailing ``  # comment`` (a ``#`` after whitespace,
    outside quotes)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and i > 0 and line[i - 1].isspace():
            return line[:i].rstrip()
    return line


def shell_blocks() -> list[Block]:
    """Every shell block of the documentation, in file order."""
    blocks = []
    for path in doc_files():
        text = path.read_text(encoding="utf-8")
        for m in _FENCE.finditer(text):
            lang = m.group(1).lower()
            if lang not in SHELL_LANGS:
                continue
            line_no = text.count("\n", 0, m.start()) + 1
            before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
            nr = _NOT_RUN.search(before)
            blocks.append(Block(where=f"{path.relative_to(ROOT)}:{line_no}",
                                commands=commands_of(m.group(2), lang),
                                skipped=nr.group(1) if nr else ""))
    return blocks


def rule_for(command: str) -> tuple[str, str]:
    """``("run", "")``, ``("helper", "")``, ``("skip", reason)`` or ``("none", "")``."""
    for prefix, reason in SKIP.items():
        if command.startswith(prefix):
            return "skip", reason
    if command.startswith(RUN):
        return "run", ""
    if command.startswith(HELPERS):
        return "helper", ""
    return "none", ""


def runnable_blocks() -> list[Block]:
    """The blocks the wheel test runs (at least one command to run)."""
    return [b for b in shell_blocks()
            if not b.skipped and any(rule_for(c)[0] == "run" for c in b.commands)]


# --------------------------------------------------------------------- cheap tests
def test_every_command_has_a_rule() -> None:
    blocks = shell_blocks()
    assert len(runnable_blocks()) >= 5, [b.where for b in blocks]
    missing = [(b.where, c) for b in blocks if not b.skipped for c in b.commands
               if rule_for(c)[0] == "none"]
    assert not missing, ("shell commands with no rule (run, skip with a reason, or "
                         f"<!-- not run: reason --> before the block): {missing}")


def test_the_parser_reads_prompts_continuations_and_comments() -> None:
    body = ("$ navkit path \"$(python -m navkit.examples a.map)\" --from 1,2 \\\n"
            "      --to 3,4   # a comment\n"
            "{\"status\": \"FOUND\"}\n"
            "$ navkit info x.map --json\n")
    assert commands_of(body, "console") == [
        'navkit path "$(python -m navkit.examples a.map)" --from 1,2 --to 3,4',
        "navkit info x.map --json"]
    assert commands_of("# heading\nnavkit scen 'a # b.scen'  # note\n", "bash") == [
        "navkit scen 'a # b.scen'"]
    assert rule_for("navkit view x.map")[0] == "skip"
    assert rule_for("rm -rf /")[0] == "none"


def test_the_readme_is_short() -> None:
    n = len((ROOT / "README.md").read_text(encoding="utf-8").splitlines())
    assert n <= 250, f"README.md has {n} lines: move detail into docs/"


#: An internal issue or pull-request reference: "issue 13", "Issue #19's", "PR #4", "#16".
#: Anchors ("(#10-limits)") and colours ("#ff0000") are not references.
_ISSUE = re.compile(r"\b(?:issues?|PR|pull request)\s*#?\s*\d+|(?<![\w(\[/&#-])#\d+(?![\w-])",
                    re.I)


def issue_references(text: str) -> list[str]:
    """The internal issue references in ``text``, with their line numbers."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        out += [f"{i}: {m.group(0)}" for m in _ISSUE.finditer(line)]
    return out


def test_no_issue_references_in_the_user_docs() -> None:
    assert issue_references("Issue #19's target; see issue 13 and PR #4; #16 too") == [
        "1: Issue #19", "1: issue 13", "1: PR #4", "1: #16"]
    assert issue_references("[10. Limits](#10-limits-and-notes), colour #ff0000") == []
    found = {str(p.relative_to(ROOT)): refs for p in doc_files()
             if (refs := issue_references(p.read_text(encoding="utf-8")))}
    assert not found, f"user text cites internal issues (history goes in CHANGELOG.md): {found}"


def test_no_issue_references_in_the_package() -> None:
    """Docstrings, comments, CLI text and the viewer's page ship to users too."""
    found = {str(p.relative_to(ROOT)): refs
             for p in sorted((ROOT / "navkit").rglob("*"))
             if p.suffix in (".py", ".js", ".html", ".css", ".md") and "__pycache__" not in p.parts
             and (refs := [r for r in issue_references(p.read_text(encoding="utf-8"))
                           if "issue" in r.lower() or "pr #" in r.lower()])}
    assert not found, f"navkit's source cites internal issues: {found}"


# ------------------------------------------------------- docs/levels.md's wall clearance
def wall_clearance_level() -> dict:
    """The JSON level of docs/levels.md's "Wall clearance" section, as shown."""
    import json

    text = (ROOT / "docs" / "levels.md").read_text(encoding="utf-8")
    section = text[text.index("### Wall clearance"):]
    m = re.search(r"^```json\n(.*?)^```", section, re.M | re.S)
    assert m, "docs/levels.md's wall clearance section has no JSON level"
    level: dict = json.loads(m.group(1))
    return level


def test_the_wall_clearance_example_keeps_its_clearance() -> None:
    """The documented level keeps ``boundaryPadding`` from the walls and
    ``agentRadius`` from the pillar (shapely's distances are the oracle): on the
    mesh exactly, on the grid at the path's corners (cell centres) and within
    half a cell diagonal along its segments; without the padding the grid
    path comes nearer the walls than the agent's radius."""
    from shapely.geometry import LineString, Polygon

    import navkit
    from navkit.level import parse_level

    level = wall_clearance_level()
    pad, radius, cell = level["boundaryPadding"], level["agentRadius"], level["cellSize"]
    assert pad == radius > 0 and level["objectPadding"] == 0
    walls = Polygon(level["areas"][0]["polygon"]).exterior
    pillar = Polygon(level["obstacles"][0]["polygon"])
    start, goal = (11.5, 0.6), (1.0, 9.5)  # the query the page describes
    half_diag = 0.5 * cell * 2 ** 0.5

    nav = navkit.NavMap(parse_level(level))
    r = nav.find_path(start, goal)
    assert r.status.name == "FOUND", r
    line = LineString([start, *map(tuple, r.waypoints)])
    corners = [tuple(p) for p in r.waypoints[:-1]]
    assert min(walls.distance(LineString([c, c])) for c in corners) > pad
    assert line.distance(walls) >= pad - half_diag and line.distance(pillar) >= radius - half_diag

    mesh = navkit.NavMesh.from_level(parse_level(level))
    m = mesh.find_path(start, goal)
    assert m.status.name == "FOUND", m
    mline = LineString([tuple(p) for p in m.waypoints])
    assert mline.distance(walls) >= pad - 1e-6 and mline.distance(pillar) >= radius - 1e-6

    bare = navkit.NavMap(parse_level(dict(level, boundaryPadding=0.0)))
    b = bare.find_path(start, goal)
    assert b.status.name == "FOUND"
    assert LineString([start, *map(tuple, b.waypoints)]).distance(walls) < radius
