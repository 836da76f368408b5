"""``warm_up(..., background=True)``: a warm-up on a daemon thread with a handle
(progress, done, wait, errors raised on wait)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import navkit
from navkit import warmup

ROOT = Path(__file__).resolve().parents[1]


def _gate(monkeypatch: pytest.MonkeyPatch, names: list[str]) -> dict[str, threading.Event]:
    """Groups ``names`` that each wait for their own event (no kernels)."""
    gates = {n: threading.Event() for n in names}
    for n in names:
        monkeypatch.setitem(warmup.GROUPS, n, lambda n=n: gates[n].wait(60) or None)
    return gates


def test_the_handle_returns_at_once_and_reports_progress_group_by_group(
        monkeypatch: pytest.MonkeyPatch) -> None:
    gates = _gate(monkeypatch, ["g1", "g2", "g3"])
    seen: list[str] = []
    h = warmup.warm_up(["g1", "g2", "g3"], background=True, done=lambda r: seen.append(r.group))
    # the groups cannot finish before this thread opens their gates: warm_up returned first
    assert not h.done() and h.progress == (0, 3)
    with pytest.raises(TimeoutError, match="0 of 3"):
        h.wait(timeout=0.05)
    gates["g1"].set()
    for _ in range(200):
        if seen:
            break
        threading.Event().wait(0.01)
    assert h.progress == (1, 3) and seen == ["g1"] and not h.done()
    gates["g2"].set()
    gates["g3"].set()
    results = h.wait(timeout=60)
    assert h.done() and h.progress == (3, 3)
    assert [r.group for r in results] == ["g1", "g2", "g3"] == seen
    assert all(r.error is None and r.wall_s >= 0 and r.cpu_s >= 0 for r in results)
    assert h._thread.daemon and "done: 3/3" in repr(h)


def test_a_failing_group_surfaces_on_wait_and_the_others_still_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[str] = []

    def boom() -> None:
        raise RuntimeError("kernel failed")

    monkeypatch.setitem(warmup.GROUPS, "bad", boom)
    monkeypatch.setitem(warmup.GROUPS, "good", lambda: ran.append("good"))
    h = warmup.warm_up(["bad", "good"], background=True)
    with pytest.raises(warmup.WarmupError, match="bad: RuntimeError: kernel failed") as info:
        h.wait(timeout=60)
    assert isinstance(info.value, navkit.NavkitError)
    assert isinstance(info.value.__cause__, RuntimeError)  # the original, with its traceback
    assert [r.group for r in info.value.results] == ["bad", "good"] and ran == ["good"]
    assert h.done() and h.progress == (2, 2)


def test_a_failing_callback_surfaces_on_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(warmup.GROUPS, "g", lambda: None)

    def callback(r: warmup.GroupResult) -> None:
        raise ValueError("callback broke")

    h = warmup.warm_up(["g"], background=True, done=callback)
    with pytest.raises(ValueError, match="callback broke"):
        h.wait(timeout=60)


def test_bad_arguments_fail_at_once_not_on_the_thread() -> None:
    with pytest.raises(navkit.ConfigError, match="bogus"):
        warmup.warm_up(["bogus"], background=True)
    with pytest.raises(navkit.ConfigError, match="jobs"):
        warmup.warm_up(["flow"], jobs=-1, background=True)


_FRESH = """
import sys
from navkit import warmup
from navkit._kernels import flow as k
kernels = [k.run_buckets, k.run_heap, k.unpack]
assert not any(d.signatures for d in kernels), "compiled before the warm-up"
h = warmup.warm_up(["flow"], jobs=int(sys.argv[1]), background=True)
results = h.wait(timeout=900)
assert h.done() and h.progress == (1, 1) and results[0].error is None, results
if sys.argv[1] == "0":
    assert all(d.signatures for d in kernels), [d.signatures for d in kernels]
else:  # compiled in a worker process: in the (empty until now) disk cache, loaded on use
    from navkit._numba_config import cache_dir
    assert results[0].peak_mb is not None and results[0].peak_mb > 50, results
    assert not any(d.signatures for d in kernels)
    assert list(cache_dir().glob("flow.run_buckets-*.nbi")), sorted(cache_dir().iterdir())
    warmup.warm_up(["flow"])
    hits = sum(sum(d.stats.cache_hits.values()) for d in kernels)
    misses = sum(sum(d.stats.cache_misses.values()) for d in kernels)
    assert hits >= len(kernels) and misses == 0, (hits, misses)
print("OK")
"""


@pytest.mark.parametrize("jobs", [0, 1])
def test_after_wait_the_groups_kernels_are_compiled(jobs: int, tmp_path: Path) -> None:
    """In a new process (nothing compiled before): after ``wait()`` the flow
    group's kernels have their signatures in this process (``jobs=0``), or
    (``jobs=1``, an empty cache) a worker process compiled them into the disk
    cache and they load here without compiling."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NAVKIT_QUIET_COMPILE": "1"}
    if jobs:
        env["NUMBA_CACHE_DIR"] = str(tmp_path)
    r = subprocess.run([sys.executable, "-c", _FRESH, str(jobs)], env=env, capture_output=True,
                       text=True, timeout=900, cwd=str(ROOT))
    assert r.returncode == 0 and r.stdout.strip() == "OK", r.stderr[-3000:]
