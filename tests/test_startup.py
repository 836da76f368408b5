"""Start-up: where compiled kernels go, when they are dropped, the notice
that a first call compiles, and ``navkit warmup``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import navkit
from navkit import _numba_config as cfg
from navkit.cli import app

ROOT = Path(__file__).resolve().parents[1]


def test_kernel_cache_is_dropped_for_the_modules_a_changed_source_reaches(
        tmp_path: Path) -> None:
    """numba keys a cached kernel on its own file only; navkit drops a module's
    kernels when its source or a kernel module it imports changes (a helper
    inlined from another file), and keeps the kernels of unrelated modules."""
    sources = tmp_path / "_kernels"
    sources.mkdir()
    (sources / "heap.py").write_text("from numba import njit\n")
    (sources / "search.py").write_text("from .heap import heap_pop\n")
    (sources / "flow.py").write_text("from .search import x, y\n")
    (sources / "mesh.py").write_text("import numpy\n")
    (tmp_path / "notes.py").write_text("x = 1\n")  # beside the kernels, not one of them
    cache = sources / "__pycache__"
    cache.mkdir()
    names = ["search.astar-10.py311.nbi", "flow.field-3.py311.1.nbc", "mesh.walk-5.py311.nbi",
             "gone.kernel-1.py311.nbi"]

    def write_all() -> None:
        for n in names:
            (cache / n).write_text("compiled")

    def present() -> set[str]:
        return {n.split(".", 1)[0] for n in names if (cache / n).exists()}

    write_all()
    cfg._drop_stale_cache(sources, cache)  # no stamp yet: everything goes
    assert present() == set()
    write_all()
    cfg._drop_stale_cache(sources, cache)  # nothing changed: nothing goes
    assert present() == {"search", "flow", "mesh", "gone"}
    (tmp_path / "notes.py").write_text("x = 2\n")  # not a kernel source
    cfg._drop_stale_cache(sources, cache)
    assert present() == {"search", "flow", "mesh", "gone"}
    (sources / "heap.py").write_text("from numba import njit\n# edited\n")
    cfg._drop_stale_cache(sources, cache)  # search imports heap, flow imports search;
    assert present() == {"mesh"}  # a module without a source goes with any change
    write_all()
    (sources / "new_kernels.py").write_text("from .heap import heap_pop\n")
    cfg._drop_stale_cache(sources, cache)  # a new module leaves the others compiled
    assert present() == {"search", "flow", "mesh"}


def test_cache_dir_follows_numba_cache_dir_then_the_package_then_the_user_cache(
        tmp_path: Path) -> None:
    under = cfg.cache_dir({"NUMBA_CACHE_DIR": str(tmp_path)})
    assert under.parent == tmp_path and under.name.startswith("_kernels_")
    assert cfg.cache_dir({}, writable=True) == cfg.KERNELS_DIR / "__pycache__"
    user = cfg.cache_dir({}, writable=False)
    assert "navkit" in str(user) and not str(user).startswith(str(cfg.KERNELS_DIR))


def _fresh(env_extra: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    code = ("import numpy as np, navkit\n"
            "pf = navkit.Pathfinder(navkit.NavGrid(np.ones((4, 4), bool)))\n"
            "pf.find_path_cells((0, 0), (3, 3))\n"
            "pf.find_path_cells((0, 0), (3, 3), algorithm='dijkstra')\n")
    env = {k: v for k, v in os.environ.items() if k != "NAVKIT_QUIET_COMPILE"}
    env.update(PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(tmp_path),
               NAVKIT_COMPILE_NOTICE_AFTER="0.05", **env_extra)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=600, cwd=str(ROOT))


def test_a_compiling_first_call_says_so_once_and_can_be_silenced(tmp_path: Path) -> None:
    r = _fresh({}, tmp_path / "a")
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("navkit: compiling kernels") == 1, r.stderr
    r = _fresh({"NAVKIT_QUIET_COMPILE": "1"}, tmp_path / "b")
    assert r.returncode == 0, r.stderr
    assert "compiling" not in r.stderr
    r = _fresh({}, tmp_path / "a")  # the cache is warm now: nothing compiles
    assert r.returncode == 0 and "compiling" not in r.stderr, r.stderr


def test_warmup_command() -> None:
    runner = CliRunner()
    r = runner.invoke(app, ["warmup", "flow", "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "flow" in r.output
    r = runner.invoke(app, ["warmup", "flow", "crowd", "--jobs", "2", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert [g["group"] for g in out["groups"]] == ["flow", "crowd"]
    assert out["jobs"] == 2 and out["peakMb"] > 0 and out["failed"] == 0
    r = runner.invoke(app, ["warmup", "bogus"])
    assert r.exit_code == 2
    assert "bogus" in r.output


def test_warmup_in_group_processes_reports_each_group_and_its_errors(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``jobs >= 1`` runs each group in a new process: its CPU and peak memory
    come back, results keep the order asked for, a failing group is reported
    with its error and the others still run."""
    from navkit import warmup

    seen: list[str] = []
    got = warmup.warm_up(["flow", "crowd"], jobs=2, done=lambda r: seen.append(r.group))
    assert [r.group for r in got] == ["flow", "crowd"] and sorted(seen) == ["crowd", "flow"]
    for r in got:
        assert r.error is None, r.error
        assert r.peak_mb is not None and r.peak_mb > 50  # an interpreter with numba loaded
        assert r.cpu_s > 0 and r.wall_s > 0
    proc = warmup._Process()  # the worker process's own failure path
    bad = proc.run("no-such-group")
    proc.close()
    assert bad.error is not None and "no-such-group" in bad.error

    def boom() -> None:
        raise RuntimeError("kernel failed")

    monkeypatch.setitem(warmup.GROUPS, "flow", boom)
    got = warmup.warm_up(["flow", "crowd"], jobs=0)
    assert got[0].error == "RuntimeError: kernel failed" and got[1].error is None
    with pytest.raises(navkit.ConfigError, match="jobs"):
        warmup.warm_up(["flow"], jobs=-1)


def test_warmup_worker_runs_groups_one_after_another_and_reports_its_death() -> None:
    """A worker process keeps what it compiled: the same group a second time
    costs next to nothing (its CPU is the time since the previous group); a
    worker that died reports the failure as the group's error."""
    from navkit import warmup

    proc = warmup._Process()
    try:
        first = proc.run("flow")
        again = proc.run("flow")
        assert first.error is None and again.error is None
        assert proc.alive and proc.peak_mb > 50
        assert again.cpu_s < 0.5 * first.cpu_s, (first.cpu_s, again.cpu_s)
        proc.proc.kill()
        proc.proc.wait()
        dead = proc.run("flow")
        assert dead.error is not None and dead.error.startswith("the warm-up process failed")
        assert not proc.alive
    finally:
        if proc.alive:
            proc.close()


def test_warmup_recycles_a_worker_past_its_memory_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``RECYCLE_MB`` the next group gets a new process: its CPU then
    includes a new interpreter's import again, so both report a full process."""
    from navkit import warmup

    monkeypatch.setattr(warmup, "RECYCLE_MB", 0.0)
    seen: list[warmup.GroupResult] = []
    warmup.warm_up(["flow", "flow"], jobs=1, done=seen.append)
    assert [r.error for r in seen] == [None, None]
    # a reused worker would report about 0.01 s for the second (see the test above)
    assert seen[1].cpu_s > 0.2, seen


_CLOSURE_KEY = """
import hashlib
from numba.core.serialize import dumps
from navkit._kernels import search
k = search.astar_seq_kernel(False, False, False, True)
cells = tuple(c.cell_contents for c in k.py_func.__closure__)
print(hashlib.sha256(dumps(cells)).hexdigest())
"""


def test_kernels_that_call_kernels_hit_the_cache_in_a_new_process() -> None:
    """numba keys a cached kernel that closes over another kernel (the multi-query
    A* calls the single one) on the pickled closure; kernels get the same identity
    in every process, so that key is the same and the cache is found again."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    keys = {subprocess.run([sys.executable, "-c", _CLOSURE_KEY], env=env, check=True,
                           capture_output=True, text=True).stdout.strip() for _ in range(2)}
    assert len(keys) == 1 and len(next(iter(keys))) == 64


def test_the_collector_runs_less_often_while_a_kernel_compiles(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """While a navkit kernel compiles, the collector's first threshold is
    ``COMPILE_GC_THRESHOLD``; afterwards the caller's thresholds are back, also
    when the compile fails; ``NAVKIT_COMPILE_GC=default`` leaves them alone."""
    import gc

    import numba
    from numba.core import event

    if numba.config.DISABLE_JIT:
        pytest.skip("no compiles without the JIT")
    seen: list[int] = []

    class Probe(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            seen.append(gc.get_threshold()[0])

        def on_end(self, ev: event.Event) -> None:
            pass

    def make(body: str):  # a function navkit's listeners count as theirs
        ns: dict[str, object] = {}
        exec(f"def probe(x):\n    {body}\n", {"__name__": "navkit._probe"}, ns)
        return numba.njit(cache=False)(ns["probe"])

    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    probe = Probe()
    event.register("numba:compile", probe)
    try:
        assert make("return x + 1")(1) == 2
        assert seen[-1] == cfg.COMPILE_GC_THRESHOLD and gc.get_threshold() == (700, 10, 10)
        with pytest.raises(numba.TypingError):
            make("return x.no_such_attribute")(1)
        assert gc.get_threshold() == (700, 10, 10)
        monkeypatch.setenv("NAVKIT_COMPILE_GC", "default")
        assert make("return x + 2")(1) == 3
        assert seen[-1] == 700
    finally:
        event.unregister("numba:compile", probe)
        gc.set_threshold(*before)


_PORTABLE = """
import sys
from numba.core import event
compiles = []
class Count(event.Listener):
    def on_start(self, ev): compiles.append(ev)
    def on_end(self, ev): pass
event.register("numba:compile", Count())
from navkit import _prebuilt_cache, warmup
from navkit._numba_config import cache_dir
if sys.argv[1] == "1":
    print("copied", _prebuilt_cache.enable(sys.argv[2]))
warmup.warm_up(["flow"])
print("compiles", len(compiles))
print("files", len(list(cache_dir().glob("*.nbc"))))
"""


def test_a_portable_prebuilt_cache_loads_where_this_machine_has_none(tmp_path: Path) -> None:
    """Kernels built with numba's generic target (``_prebuilt_cache.build``) load,
    after ``enable``, in a process with an empty cache and the host's own target:
    nothing compiles; without ``enable`` the same process compiles them."""
    import numba

    from navkit import _prebuilt_cache

    if numba.config.DISABLE_JIT or not cfg.CACHE:
        pytest.skip("needs the JIT and its cache")
    shipped = tmp_path / "shipped"
    assert _prebuilt_cache.build(shipped, ["flow"]) > 2
    assert (shipped / "navkit-kernels.json").exists()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CPU")}
    env.update(PYTHONPATH=str(ROOT), NAVKIT_QUIET_COMPILE="1")

    def run(use: str, cache: str) -> dict[str, int]:
        r = subprocess.run([sys.executable, "-c", _PORTABLE, use, str(shipped)], text=True,
                           capture_output=True, timeout=900, cwd=str(ROOT),
                           env={**env, "NUMBA_CACHE_DIR": str(tmp_path / cache)})
        assert r.returncode == 0, r.stderr[-3000:]
        return {k: int(v) for k, v in (line.split() for line in r.stdout.splitlines())}

    used = run("1", "a")
    assert used["copied"] > 2 and used["compiles"] == 0, used
    plain = run("0", "b")
    assert plain["compiles"] > 0, plain


def test_startup_bench_runs_a_case_in_a_new_process_with_and_without_prebuilt_kernels(
        tmp_path: Path) -> None:
    """``navkit bench startup``'s runner: the figures of one new process; with
    ``prebuilt`` the process enables that folder first (an empty build here:
    nothing to copy), and a folder that holds no build is that run's error."""
    from navkit.bench import startup

    plain = startup.run_case("import", tmp_path / "a", timeout=600)
    assert "error" not in plain, plain
    assert plain["cpu_s"] > 0 and plain["peak_mb"] > 20 and plain["extra"] == {}
    empty = tmp_path / "built"
    empty.mkdir()
    (empty / "navkit-kernels.json").write_text("{}")
    got = startup.run_case("import", tmp_path / "b", timeout=600, prebuilt=empty)
    assert "error" not in got, got
    bad = startup.run_case("import", tmp_path / "c", timeout=600, prebuilt=tmp_path / "nothing")
    assert "holds no prebuilt kernels" in bad["error"], bad
