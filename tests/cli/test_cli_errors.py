"""Every ``navkit`` failure ends with one error line and exit status 2, never a traceback.

A sweep runs each command on bad files (missing, binary junk, empty,
truncated JSON) and on bad numbers (huge, negative, NaN, out of range); a
test checks that the sweep names every command ``navkit --help`` lists. Then
the central handler itself (:func:`navkit.cli.common.report_failure`): an
unexpected exception, a missing module (of an extra and of the core), and,
in subprocesses, the two failures a new user met: ``navkit mesh`` without
scipy and ``navkit sim --ticks 99999999999999999999999``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from navkit.cli import app
from navkit.cli.common import EXTRA_OF_MODULE

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "navkit" / "examples"
ARENA = str(EX / "arena.map")
LEVEL = str(EX / "interior.json")
SCENE = str(EX / "scenes" / "follow.json")
BIG = "99999999999999999999999"
COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


def _text(res: object) -> str:
    out = getattr(res, "stdout", "") or ""
    try:
        err = getattr(res, "stderr", "") or ""
    except ValueError:  # older click without separate stderr
        err = ""
    return out + err


def assert_clean_failure(res: object, args: list[str]) -> str:
    """Exit status 2, no exception escaping, an error message and no traceback."""
    exc = getattr(res, "exception", None)
    text = _text(res)
    code = getattr(res, "exit_code", None)
    assert code == 2 and (exc is None or isinstance(exc, SystemExit)), (
        f"navkit {' '.join(args)} -> exit {code}, {type(exc).__name__}: {exc}\n{text}")
    assert "Traceback" not in text, text
    if args[0] not in ("bench", "bench-level"):  # the benchmarks word their own messages
        assert "error:" in text or "Invalid value" in text or "Error" in text, text
    return text


@pytest.fixture(scope="module")
def bad(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Bad files by kind (a missing one, junk bytes, an empty one, cut-short JSON);
    each kind exists with every suffix the commands read (``{kind}.{suffix}``)."""
    d = tmp_path_factory.mktemp("bad")
    for suffix in ("map", "json", "scen", "npz", "nkw", "jsonl", "png", "txt"):
        (d / f"junk.{suffix}").write_bytes(b"\x00\x01garbage\xff\xfe" * 3)
        (d / f"empty.{suffix}").write_bytes(b"")
        (d / f"cut.{suffix}").write_text('{"areas": [{"name": "a", "polygon": [[0, 0],')
    (d / "out").mkdir()
    return {"dir": d}


#: One failing run per command, ``{f}`` standing for a bad file (see ``bad``) of
#: the suffix that follows it, ``{o}`` for an output folder.
FILE_CASES: list[list[str]] = [
    ["path", "{f}.map", "--from", "1,1", "--to", "2,2"],
    ["path", "{f}.json", "--cells", "--from", "1,1", "--to", "2,2"],
    ["path", "{f}.json", "--mesh", "--from", "1,1", "--to", "2,2"],
    ["path", "{f}.nkw", "--from", "1,1", "--to", "2,2"],
    ["path", ARENA, "--from", "1,1", "--to", "2,2", "--algorithm", "jps+", "--tables",
     "{f}.npz"],
    ["scen", "{f}.scen"],
    ["scen", str(EX / "arena.map.scen"), "--map", "{f}.map"],
    ["batch", "{f}.scen", "--workers", "1"],
    ["bench", "level", "--level", "{f}.json", "--queries", "1"],
    ["bench-level", "--level", "{f}.json", "--queries", "1"],
    ["info", "{f}.map"],
    ["convert", "{f}.map", "{o}/x.txt"],
    ["build", "{f}.json", "-o", "{o}/x.txt"],
    ["mesh", "{f}.json", "-o", "{o}/x.npz"],
    ["mesh", "--grid", "{f}.map", "-o", "{o}/x.npz"],
    ["sim", "{f}.json", "--ticks", "2"],
    ["view", "{f}.map", "--no-open", "--port", "0"],
    ["flow", "{f}.map", "--goal", "1,1"],
    ["warmup", "{f}"],
    ["precompute", "{f}.map", "-o", "{o}/t.npz"],
    ["bake", "{f}.map", "-o", "{o}/w.nkw"],
    ["world", "info", "{f}.nkw"],
    ["world", "stats", "{f}.nkw"],
    ["replay", "{f}.jsonl"],
    ["replay", "{f}.jsonl", "--map", ARENA],
]

#: Bad numbers (and names, and output kinds) on good files.
NUMBER_CASES: list[list[str]] = [
    ["sim", SCENE, "--ticks", BIG],
    ["sim", SCENE, "--ticks", "-1"],
    ["sim", SCENE, "--ticks", "1.5"],
    ["sim", SCENE, "--ticks", "2", "--avoidance", "rvo"],
    ["path", ARENA, "--cells", "--from", f"{BIG},{BIG}", "--to", "2,2"],
    ["path", ARENA, "--from", "nan,1", "--to", "2,2"],
    ["path", ARENA, "--from", "1,1", "--to", "2,2", "--obstacle", "1,1,-1"],
    ["path", ARENA, "--from", "1,1", "--to", "2,2", "--obstacle", f"1,1,{BIG}e300"],
    ["path", LEVEL, "--mesh", "--from", "1e300,1", "--to", "2,2"],
    ["path", LEVEL, "--mesh", "--from", "inf,1", "--to", "2,2"],
    ["path", ARENA, "--from", "1,1", "--to", "2,2", "--preset", "nope"],
    ["flow", ARENA, "--goal", f"{BIG},1", "--cells"],
    ["flow", ARENA, "--goal", "inf,1"],
    ["mesh", LEVEL, "-o", "{o}/m.npz", "--chord-error", "-1"],
    ["mesh", LEVEL, "-o", "{o}/m.npz", "--chord-error", "nan"],
    ["scen", str(EX / "arena.map.scen"), "--every", "0"],
    ["scen", str(EX / "arena.map.scen"), "--limit", "-1"],
    ["batch", str(EX / "arena.map.scen"), "--workers", "0"],
    ["precompute", ARENA, "-o", "{o}/t.npz", "--max-jump-points", "0"],
    ["bake", ARENA, "-o", "{o}/w.nkw", "--chunk", BIG],
    ["bake", ARENA, "-o", "{o}/w.nkw", "--chunk", "3"],
    ["bake", ARENA, "-o", "{o}/w.nkw", "--level", BIG],
    ["bake", ARENA, "-o", "{o}/w.nkw", "--codec", "bogus"],
    ["bake", f"rooms:{BIG}", "-o", "{o}/w.nkw"],
    ["bake", "rooms:abc", "-o", "{o}/w.nkw"],
    ["warmup", "-j", "-1"],
    ["view", ARENA, "--no-open", "--port", BIG],
    ["replay", str(EX / "arena.map"), "--budget", "-5"],
    ["world", "stats", "{o}/none.nkw", "--reads", "-1"],
    ["bench", "level", "--queries", "-1"],
    ["bench-level", "--repeat", "0"],
    # commands without a number: a bad value of another kind
    ["info", ARENA, "--json", "extra-argument"],
    ["convert", ARENA, "{o}/x.bogus"],
    ["build", LEVEL, "-o", "{o}/x.bogus"],
]


def _fill(args: list[str], folder: Path, kind: str) -> list[str]:
    return [a.replace("{f}", str(folder / kind)).replace("{o}", str(folder / "out"))
            for a in args]


@pytest.mark.parametrize("kind", ["missing", "junk", "empty", "cut"])
@pytest.mark.parametrize("case", FILE_CASES, ids=lambda c: " ".join(c[:2]))
def test_every_command_on_a_bad_file(case: list[str], kind: str, bad: dict[str, Path]) -> None:
    args = _fill(case, bad["dir"], kind)
    assert_clean_failure(_runner().invoke(app, args), args)


@pytest.mark.parametrize("case", NUMBER_CASES, ids=lambda c: " ".join(c[:1] + c[2:]))
def test_every_command_on_a_bad_number(case: list[str], bad: dict[str, Path]) -> None:
    args = _fill(case, bad["dir"], "missing")
    text = assert_clean_failure(_runner().invoke(app, args), args)
    assert "error: unexpected" not in text, text  # each of these is a known bad input


def test_the_sweep_names_every_command() -> None:
    swept = {c[0] for c in FILE_CASES} & {c[0] for c in NUMBER_CASES}
    assert set(COMMANDS) <= swept, sorted(set(COMMANDS) - swept)


def test_sim_ticks_out_of_range_is_a_usage_error() -> None:
    res = _runner().invoke(app, ["sim", SCENE, "--ticks", BIG])
    assert res.exit_code == 2 and "--ticks" in _text(res)


def test_run_scene_refuses_bad_ticks_for_python_callers() -> None:
    from navkit.cli.sim import MAX_RUN_TICKS, run_scene
    from navkit.errors import ConfigError

    for ticks in (-1, MAX_RUN_TICKS + 1, 10 ** 30, 2.0, True):
        with pytest.raises(ConfigError) as err:
            run_scene(Path(SCENE), ticks)  # type: ignore[arg-type]
        assert err.value.field == "ticks"


# ------------------------------------------------------------ the central handler
@pytest.fixture()
def mesh_raises(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Make ``navkit mesh`` raise the exception the test sets."""
    import navkit.cli.mesh as mesh_cli

    box: dict[str, BaseException] = {}

    def boom(*_a: object, **_k: object) -> None:
        raise box["exc"]

    monkeypatch.setattr(mesh_cli, "load_mesh_source", boom)
    return box


def test_an_unexpected_exception_is_one_error_line(mesh_raises, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("NAVKIT_TRACEBACK", raising=False)
    mesh_raises["exc"] = ValueError("boom\nsecond line")
    args = ["mesh", LEVEL, "-o", "x.npz"]
    text = assert_clean_failure(_runner().invoke(app, args), args)
    assert re.search(r"error: unexpected ValueError: boom \(a navkit bug", text), text
    assert "second line" not in text and "NAVKIT_TRACEBACK=1" in text


def test_navkit_traceback_re_raises(mesh_raises, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("NAVKIT_TRACEBACK", "1")
    mesh_raises["exc"] = ValueError("boom")
    res = _runner().invoke(app, ["mesh", LEVEL, "-o", "x.npz"])
    assert isinstance(res.exception, ValueError)


@pytest.mark.parametrize(("module", "expect"), [
    ("starlette", "pip install 'navkit[viewer]'"),
    ("pytiled_parser.tiled_map", "pip install 'navkit[tiled]'"),
    ("scipy", "the Python module 'scipy'"),
])
def test_a_missing_module_names_what_to_install(mesh_raises, module: str, expect: str) -> None:  # type: ignore[no-untyped-def]
    mesh_raises["exc"] = ModuleNotFoundError(f"No module named {module!r}", name=module)
    args = ["mesh", LEVEL, "-o", "x.npz"]
    text = assert_clean_failure(_runner().invoke(app, args), args)
    assert expect in text and "error: unexpected" not in text, text


def test_interrupts_are_not_reported_as_failures(mesh_raises) -> None:  # type: ignore[no-untyped-def]
    mesh_raises["exc"] = KeyboardInterrupt()
    res = _runner().invoke(app, ["mesh", LEVEL, "-o", "x.npz"])
    assert res.exit_code != 0 and "error:" not in _text(res)


def test_every_extra_module_belongs_to_its_extra() -> None:
    tomllib = pytest.importorskip("tomllib")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    dist_of = {"pytiled_parser": "pytiled-parser", "pygame": "pygame-ce",
               "distributed": "dask[distributed]", "dask": "dask[distributed]"}
    for module, extra in EXTRA_OF_MODULE.items():
        dist = dist_of.get(module, module)
        reqs = [re.split(r"[<>=!~ ;]", r, maxsplit=1)[0] for r in extras[extra]]
        assert dist in reqs, (module, extra, reqs)


# -------------------------------------------------- the failures a new user met
def _navkit(code_prefix: str, *args: str, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[str]:
    code = (f"import sys\n{code_prefix}\nfrom navkit.cli import main\n"
            f"sys.argv = ['navkit', *{list(args)!r}]\nmain()\n")
    e = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    e.pop("NAVKIT_TRACEBACK", None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600, env=e, cwd=str(ROOT))


def test_mesh_without_scipy_is_one_error_line(tmp_path: Path) -> None:
    """What a clean install without scipy printed as a traceback with exit 1."""
    r = _navkit("sys.modules['scipy'] = None  # scipy not installed", "mesh", LEVEL,
                "-o", str(tmp_path / "m.npz"))
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and r.stderr.startswith("error: "), r.stderr
    assert "scipy" in r.stderr


def test_sim_with_a_huge_tick_count_is_one_error(tmp_path: Path) -> None:
    r = _navkit("", "sim", SCENE, "--ticks", BIG)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and "--ticks" in r.stderr, r.stderr


@pytest.mark.parametrize("as_json", [False, True])
def test_a_kernel_that_fails_to_compile_is_an_error(monkeypatch: pytest.MonkeyPatch,
                                                    as_json: bool) -> None:
    import navkit.warmup as warmup

    def fake(names, jobs=None, done=None):  # type: ignore[no-untyped-def]
        out = [warmup.GroupResult("grid", 0.1, 0.1),
               warmup.GroupResult("mesh", 0.1, 0.1, error="TypingError: no match")]
        for r in out:
            if done is not None:
                done(r)
        return out

    monkeypatch.setattr(warmup, "warm_up", fake)
    args = ["warmup", "grid", "mesh", "--no-progress", *(["--json"] if as_json else [])]
    text = assert_clean_failure(_runner().invoke(app, args), args)
    assert "error: 1 of 2 warm-up group(s) failed to compile (mesh: TypingError" in text, text
