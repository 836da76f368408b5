"""The benchmark package's plumbing: ``navkit bench NAME``, the Moving AI data folder, errors.

The benchmarks themselves are measurement scripts; these checks run them on
tiny inputs only.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

import navkit.bench
from navkit.bench import SUITES, common, flow, hpa, jps, peers, split_suite
from navkit.cli import app

Main = Callable[[list[str]], int]


def _invoke(*args: object) -> Result:
    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        runner = CliRunner()
    return runner.invoke(app, [str(a) for a in args])


def test_split_suite() -> None:
    assert split_suite([]) == ("peers", [])
    assert split_suite(["--maps", "jps"]) == ("peers", ["--maps", "jps"])
    for name in ("peers", "jps", "hpa", "flow", "level", "sim"):
        assert split_suite([name, "-x"]) == (name, ["-x"])
        assert SUITES[name] == f"navkit.bench.{name}"


def test_python_api_dispatches(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []

    class Fake:
        @staticmethod
        def main(argv: list[str]) -> int:
            seen.append(argv)
            return 5

    monkeypatch.setitem(sys.modules, "navkit.bench.sim", Fake)
    assert navkit.bench.main(["sim", "--ticks", "1"]) == 5
    assert seen == [["--ticks", "1"]]


def test_data_dir_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(common.DATA_ENV, str(tmp_path))
    assert common.default_data_dir() == tmp_path
    assert common.resolve_data_dir(None) == tmp_path
    assert common.resolve_data_dir(tmp_path / "x") == tmp_path / "x"


@pytest.mark.parametrize("main", [peers.main, jps.main, hpa.main, flow.main])
def test_missing_data_dir_is_an_error(main: Main, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    nowhere = tmp_path / "nowhere"
    assert main(["--data", str(nowhere)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and str(nowhere) in err
    assert "--data" in err and common.DATA_ENV in err


@pytest.mark.parametrize("main", [peers.main, jps.main, hpa.main])
def test_folder_without_the_maps_is_an_error(main: Main, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--data", str(tmp_path), "--maps", "nosuchmap"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "nosuchmap" in err and str(tmp_path) in err


def test_cli_bench_missing_data_exits_2(tmp_path: Path) -> None:
    r = _invoke("bench", "jps", "--data", tmp_path / "nowhere")
    assert r.exit_code == 2
    assert r.stderr.startswith("error: ") and "nowhere" in r.stderr


def test_cli_bench_sim_tiny(tmp_path: Path) -> None:
    r = _invoke("bench", "sim", "--sizes", "6", "--ticks", "2", "--warmup", "0", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert [row["characters"] for row in out["rows"]] == [6]


def test_cli_bench_flow_open_grid_only(tmp_path: Path) -> None:
    dest = tmp_path / "f.json"
    r = _invoke("bench", "flow", "--data", tmp_path, "--size", "32", "--repeat", "1",
                "--peers", "tcod", "--json", dest)
    assert r.exit_code == 0, r.output
    res = json.loads(dest.read_text())["results"]
    assert [x["grid"] for x in res] == ["open 32"]


def test_cli_bench_jps_tiny(movingai: Path, tmp_path: Path) -> None:
    if not (movingai / "den520d.map.scen").is_file():
        pytest.skip(f"den520d not found in {movingai}")
    dest = tmp_path / "j.json"
    r = _invoke("bench", "jps", "--data", movingai, "--maps", "den520d", "--queries", "3",
                "--rounds", "1", "--no-pyastar2d", "--json", dest)
    assert r.exit_code == 0, r.output
    row = json.loads(dest.read_text())["maps"][0]
    assert row["queries"] == 3 and row["optimal"]["jps"] == 3
