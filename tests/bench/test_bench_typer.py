"""``navkit bench`` on typer (issue #18 §5): a lazy click group, ``-h`` everywhere.

The oracles: the module list :data:`navkit.bench.SUITES`, ``sys.modules`` of a
fresh interpreter (lazy loading), the arguments the old argparse parsers
took (``--maps a b``, ``--queries 3 4``) and their exit status 2 on a bad option.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import typer.main
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from navkit.bench import SUITE_HELP, SUITES
from navkit.bench.options import expand_greedy
from navkit.cli import app
from tests.cli.jsonkeys import snake_keys_in
from tests.conftest import fixed

ROOT = Path(__file__).resolve().parents[2]


def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


def _fresh(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd=str(ROOT), timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def test_bench_is_a_group_of_every_suite() -> None:
    bench = typer.main.get_command(app).commands["bench"]  # type: ignore[attr-defined]
    assert bench.list_commands(typer.Context(bench)) == list(SUITES)


@pytest.mark.parametrize("name", list(SUITES))
def test_listing_help_matches_the_command(name: str) -> None:
    """``navkit bench --help`` lists :data:`SUITE_HELP` without importing; it must be
    the first line of the command's own help."""
    cmd = typer.main.get_command(importlib.import_module(SUITES[name]).app)
    assert cmd.name == name
    assert (cmd.help or "").strip().splitlines()[0] == SUITE_HELP[name]


@pytest.mark.parametrize("flag", ["-h", "--help"])
@pytest.mark.parametrize("name", list(SUITES))
def test_help_on_every_suite(name: str, flag: str) -> None:
    r = _runner().invoke(app, ["bench", name, flag])
    assert r.exit_code == 0, r.output
    assert "Usage" in r.stdout and f"navkit bench {name}" in r.stdout
    assert "<bool>" not in r.stdout and "[default:" not in r.stdout


@pytest.mark.parametrize("name", list(SUITES))
def test_bad_option_exits_2_with_a_message(name: str) -> None:
    r = _runner().invoke(app, ["bench", name, "--no-such-option"])
    assert r.exit_code == 2
    assert "No such option" in r.output and "--no-such-option" in r.output
    mod = importlib.import_module(SUITES[name])
    assert mod.main(["--no-such-option"]) == 2
    assert mod.main(["-h"]) == 0


def test_bad_option_value_exits_2() -> None:
    from navkit.bench import sim

    assert sim.main(["--ticks", "many"]) == 2
    assert sim.main(["--sizes", "x"]) == 2  # checked by the benchmark, not the parser


def test_default_suite_is_peers() -> None:
    r = _runner().invoke(app, ["bench", "--no-such-option"])
    assert r.exit_code == 2 and "navkit bench peers" in r.output
    r = _runner().invoke(app, ["bench", "-h"])
    assert r.exit_code == 0 and all(name in r.stdout for name in SUITES)


def test_help_loads_no_benchmark_module() -> None:
    code = ("import sys, contextlib, io\n"
            "from navkit.cli import app\n"
            "for args in (['--help'], ['bench', '--help']):\n"
            "    with contextlib.redirect_stdout(io.StringIO()):\n"
            "        try:\n"
            "            app(args, prog_name='navkit')\n"
            "        except SystemExit:\n"
            "            pass\n"
            "    print(sorted(m for m in sys.modules if m.startswith('navkit.bench.')))\n")
    assert _fresh(code).splitlines() == ["[]", "[]"]


def test_suite_help_loads_only_that_module() -> None:
    code = ("import sys, contextlib, io\n"
            "from navkit.cli import app\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n"
            "        app(['bench', 'sim', '-h'], prog_name='navkit')\n"
            "    except SystemExit:\n"
            "        pass\n"
            "print('navkit.bench.sim' in sys.modules, 'navkit.bench.jps' in sys.modules)\n")
    assert _fresh(code) == "True False"


def test_navkit_help_subprocess_leaves_jps_unloaded() -> None:
    """The brief's check, through ``python -m navkit --help`` itself."""
    code = ("import runpy, sys, contextlib, io\n"
            "sys.argv = ['navkit', '--help']\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n"
            "        runpy.run_module('navkit', run_name='__main__')\n"
            "    except SystemExit:\n"
            "        pass\n"
            "print('navkit.bench.jps' in sys.modules)\n")
    assert _fresh(code) == "False"


def test_python_m_benchmark_help() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "navkit.bench.sim", "-h"], capture_output=True,
                       text=True, env=env, cwd=str(ROOT), timeout=300)
    assert p.returncode == 0 and "Usage" in p.stdout and "--ticks" in p.stdout


@fixed(40)
@given(groups=st.lists(st.lists(st.sampled_from(["a", "b", "c1"]), min_size=1, max_size=3),
                       max_size=3),
       tail=st.lists(st.sampled_from(["--quick", "--x", "v"]), max_size=3))
def test_expand_greedy_like_nargs_plus(groups: list[list[str]], tail: list[str]) -> None:
    """``--maps a b`` is argparse's ``nargs="+"``: each value becomes ``--maps VALUE``."""
    argv: list[str] = []
    expected: list[str] = []
    for g in groups:
        argv += ["--maps", *g]
        expected += [t for v in g for t in ("--maps", v)]
    tail = ["--quick", *tail] if tail else tail  # the values end at the next option
    assert expand_greedy(argv + tail, ["--maps"]) == expected + tail


def test_level_queries_take_several_values(tmp_path: Path) -> None:
    from navkit.bench import level

    dest = tmp_path / "l.json"
    assert level.main(["--queries", "3", "4", "--repeat", "1", "--characters", "2",
                       "--no-raster", "--json", str(dest)]) == 0
    out = json.loads(dest.read_text())
    assert {"3", "4"} <= set(out["rows"]["navmap"]) and "5" not in out["rows"]["navmap"]
    assert not snake_keys_in(out)  # camelCase, like every --json (docs/architecture.md)


def test_bench_level_is_bench_level() -> None:
    a = _runner().invoke(app, ["bench-level", "-h"])
    b = _runner().invoke(app, ["bench", "level", "-h"])
    assert a.exit_code == b.exit_code == 0
    assert "navkit bench-level" in a.stdout
    assert a.stdout.replace("navkit bench-level", "navkit bench level") == b.stdout
