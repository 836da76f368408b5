"""One JSON casing (issue #18 §5): every command's ``--json`` keys are camelCase.

For each command that has ``--json`` (found by walking the click tree, so a
new command without a case here fails), the parsed output must hold no
snake_case key; ``NAVKIT_JSON_CASE=snake`` gives the old keys and a one-line
notice on stderr, once per process; any other value is a ConfigError naming
``NAVKIT_JSON_CASE``. The oracle for the keys is the library's own attribute
names (``PathResult.cost_int`` -> ``costInt``) and the keys the commands
printed before the change.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
from typer.testing import CliRunner

import navkit
from navkit.cli import app
from navkit.cli.json_casing import SNAKE_NOTICE, SNAKE_REMOVED_IN
from navkit.corpus import QueryRecorder
from navkit.examples import path as example
from tests.cli.jsonkeys import all_keys, snake_keys_in

ROOT = Path(__file__).resolve().parents[2]
SCENE = ROOT / "navkit" / "examples" / "scenes" / "corridor_head_on.json"
ARENA = example("arena.map")
SMALL_MAP = "\n".join(["type octile", "height 6", "width 8", "map",
                       "........", ".@@@@...", "........", "...@....", "...@....", "........"])


def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


def _invoke(args: list[str], env: dict[str, str] | None = None) -> Any:
    return _runner().invoke(app, args, env=env)


def _json_commands() -> set[tuple[str, ...]]:
    """Every command path (``("world", "info")``) whose options include ``--json``."""
    out: set[tuple[str, ...]] = set()

    def walk(cmd: Any, path: tuple[str, ...]) -> None:
        subs = getattr(cmd, "commands", None)
        if isinstance(subs, dict):
            ctx = typer.Context(cmd)
            for name in cmd.list_commands(ctx):
                if path == () and name in ("bench", "bench-level"):
                    continue  # the benchmarks: tests/bench/test_bench_typer.py
                walk(cmd.get_command(ctx, name), (*path, name))
            return
        if any("--json" in getattr(p, "opts", []) for p in cmd.params):
            out.add(path)

    walk(typer.main.get_command(app), ())
    return out


def _corpus(tmp_path: Path) -> Path:
    grid = navkit.load_grid(ARENA)
    corpus = tmp_path / "c.jsonl"
    rec = QueryRecorder.for_grid(corpus, grid, map_path=str(ARENA))
    pf = navkit.Pathfinder(grid, record=rec)
    pf.find_path_cells((3, 3), (40, 40))
    pf.find_path_cells((10, 5), (5, 30))
    rec.close()
    return corpus


def _baked(tmp_path: Path) -> Path:
    out = tmp_path / "w.nkw"
    r = _invoke(["bake", str(ARENA), "-o", str(out), "--chunk", "32"])
    assert r.exit_code == 0, r.output
    return out


#: command path -> a function of tmp_path giving its arguments (``--json`` added).
CASES: dict[tuple[str, ...], Any] = {
    ("path",): lambda t: ["path", str(_small(t)), "--cells", "--from", "0,0", "--to", "7,5"],
    ("scen",): lambda t: ["scen", str(example("arena.map.scen")), "--map", str(ARENA),
                          "--limit", "5"],
    ("batch",): lambda t: ["batch", str(example("arena.map.scen")), "--limit", "3",
                           "--workers", "1", "--threads"],
    ("info",): lambda t: ["info", str(ARENA)],
    ("build",): lambda t: ["build", str(example("interior.json")), "-o", str(t / "g.txt")],
    ("mesh",): lambda t: ["mesh", str(example("interior.json")), "-o", str(t / "m.npz")],
    ("sim",): lambda t: ["sim", str(SCENE), "--ticks", "5"],
    ("flow",): lambda t: ["flow", str(_small(t)), "--cells", "--goal", "7,5"],
    ("warmup",): lambda t: ["warmup", "grid", "--no-progress"],
    ("bake",): lambda t: ["bake", str(ARENA), "-o", str(t / "b.nkw"), "--chunk", "32"],
    ("world", "info"): lambda t: ["world", "info", str(_baked(t))],
    ("world", "stats"): lambda t: ["world", "stats", str(_baked(t)), "--reads", "20"],
    ("replay",): lambda t: ["replay", str(_corpus(t))],
    ("precompute",): lambda t: ["precompute", str(_small(t)), "-o", str(t / "t.npz"),
                                "--goal-bounds", str(t / "gb.npz")],
}
#: Keys that are data, not field names, and may hold an underscore: none today.
EXCEPTIONS: set[str] = set()


def _small(tmp_path: Path) -> Path:
    p = tmp_path / "small.map"
    p.write_text(SMALL_MAP + "\n")
    return p


def test_every_json_command_has_a_case() -> None:
    assert _json_commands() == set(CASES)


@pytest.mark.parametrize("path", sorted(CASES), ids=" ".join)
def test_json_keys_are_camel_case(path: tuple[str, ...], tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NAVKIT_JSON_CASE", raising=False)
    r = _invoke([*CASES[path](tmp_path), "--json"])
    assert r.exit_code in (0, 1), r.output
    out = json.loads(r.stdout)
    assert list(all_keys(out)), "no keys at all"
    bad = [k for k in snake_keys_in(out) if k not in EXCEPTIONS]
    assert not bad, f"navkit {' '.join(path)} --json has snake_case keys {bad}"
    assert SNAKE_NOTICE not in r.stderr


def test_path_keys_map_to_the_python_attributes(tmp_path: Path) -> None:
    """``costInt`` is ``PathResult.cost_int`` (the library, not the CLI, is the oracle)."""
    grid = navkit.load_grid(_small(tmp_path))
    res = navkit.Pathfinder(grid).find_path_cells((0, 0), (7, 5))
    out = json.loads(_invoke(CASES[("path",)](tmp_path) + ["--json"]).stdout)
    assert out["costInt"] == res.cost_int and "cost_int" not in out
    assert out["startCell"] == [0, 0] and out["endCell"] == [7, 5]


def test_snake_env_gives_the_old_keys_and_a_notice(tmp_path: Path) -> None:
    args = ["info", str(ARENA), "--json"]
    camel = json.loads(_invoke(args, env={"NAVKIT_JSON_CASE": ""}).stdout)
    snake_run = _invoke(args, env={"NAVKIT_JSON_CASE": "snake"})
    assert snake_run.exit_code == 0, snake_run.output
    snake = json.loads(snake_run.stdout)
    # the keys `info --json` printed before the change (recorded, not computed)
    assert {"walkable_fraction", "cell_size"} <= set(snake)
    assert {"walkableFraction", "cellSize"} <= set(camel)
    assert snake["walkable_fraction"] == camel["walkableFraction"]
    assert "deprecated" in SNAKE_NOTICE and f"removed in navkit {SNAKE_REMOVED_IN}" in SNAKE_NOTICE


def test_snake_notice_once_per_process(tmp_path: Path) -> None:
    code = (
        "from typer.testing import CliRunner\n"
        "from navkit.cli import app\n"
        "import sys\n"
        f"args = ['info', {str(ARENA)!r}, '--json']\n"
        "for _ in range(3):\n"
        "    r = CliRunner().invoke(app, args)\n"
        "    assert r.exit_code == 0, r.output\n"
        "    sys.stdout.write(r.output)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), NAVKIT_JSON_CASE="snake")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd=str(ROOT), timeout=300)
    assert p.returncode == 0, p.stderr
    text = p.stdout + p.stderr
    assert text.count(SNAKE_NOTICE) == 1
    assert text.count("walkable_fraction") == 3


@pytest.mark.parametrize("value", ["kebab", "CAMELS", "1"])
def test_bad_case_value_is_a_config_error(value: str, tmp_path: Path) -> None:
    r = _invoke(["info", str(ARENA), "--json"], env={"NAVKIT_JSON_CASE": value})
    assert r.exit_code == 2
    assert r.stderr.startswith("error: ") and "NAVKIT_JSON_CASE" in r.stderr
    assert "Traceback" not in r.output


def test_camel_value_is_accepted() -> None:
    r = _invoke(["info", str(ARENA), "--json"], env={"NAVKIT_JSON_CASE": " Camel "})
    assert r.exit_code == 0 and "walkableFraction" in json.loads(r.stdout)
