"""Run cases in worker subprocesses, name the culprits of crashes and hangs, tabulate outcomes.

Cases go to workers in groups (a fresh interpreter with navkit costs about a
second). A worker reports each case as it starts and ends, so when one dies or
runs past the timeout the case in flight is the suspect: it is rerun alone in
a process of its own (a crash or hang there is confirmed; one that only
happens after other cases says so), and the cases of the group it never
reached go back to the queue. On a hang the worker is first sent SIGUSR1, so
faulthandler dumps where it was stuck.
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .core import AREAS, BAD_KINDS, CRASH, HANG, KINDS

__all__ = ["Result", "Runner", "outcome_table", "failure_report", "repro"]

REPO_ROOT = Path(__file__).resolve().parents[2]
#: Seconds a worker may take to start (import navkit) before it counts as hung.
STARTUP_TIMEOUT = 300.0


@dataclass
class Result:
    """The outcome of one case."""

    index: int
    area: str
    entry: str
    kind: str
    sig: str = ""
    message: str = ""
    trace: str = ""
    summary: str = ""
    seconds: float = 0.0
    note: str = ""
    #: Peak resident memory of the worker while the case ran, MB (None: not measured).
    peak_mb: float | None = None

    @property
    def bad(self) -> bool:
        return self.kind in BAD_KINDS


def repro(seed: int, index: int) -> str:
    """The command that reruns one case alone."""
    return f"python -m tests.fuzz --seed {seed} --case {index}"


def _signal_name(rc: int) -> str:
    if rc < 0:
        try:
            return signal.Signals(-rc).name
        except ValueError:
            return f"signal {-rc}"
    return f"exit status {rc}"


_FRAME = re.compile(r'File "([^"]+)", line (\d+) in (\S+)')


def _stack_frame(stderr: str) -> str:
    """The innermost navkit frame of the last faulthandler dump in ``stderr``."""
    dumps = [m.start() for m in re.finditer(r"(Fatal Python error|Current thread|Thread 0x)",
                                            stderr)]
    text = stderr[dumps[0]:] if dumps else stderr
    frames = _FRAME.findall(text)
    for path, _line, func in frames:
        p = path.replace("\\", "/")
        if "/navkit/" in p and "/tests/" not in p:
            return p[p.rindex("/navkit/") + 1:] + ":" + func
    return f"{Path(frames[0][0]).name}:{frames[0][2]}" if frames else "?"


@dataclass
class _Group:
    indices: list[int]
    alone: bool = False
    results: list[Result] = field(default_factory=list)
    #: The case in flight when the worker died or hung, and the result it got.
    culprit: Result | None = None
    leftover: list[int] = field(default_factory=list)


class Runner:
    """Runs cases of one seed on ``workers`` parallel worker processes.

    ``timeout`` bounds one case (seconds); ``group_size`` cases share a
    process; ``log`` gets progress lines (None: quiet).
    """

    def __init__(self, seed: int, *, workers: int = 2, group_size: int = 1000,
                 timeout: float = 10.0, log: Callable[[str], None] | None = None):
        self.seed = seed
        self.workers = max(1, workers)
        self.group_size = max(1, group_size)
        self.timeout = timeout
        self.log = log
        self.results: dict[int, Result] = {}
        self._lock = threading.Lock()
        self._started = 0.0

    # ------------------------------------------------------------ scheduling
    def run(self, indices: Iterable[int], *, deadline: float | None = None) -> list[Result]:
        """Run ``indices`` (stop taking new groups once ``time.monotonic() > deadline``)."""
        self._started = time.monotonic()
        source: Iterator[int] = iter(indices)
        requeue: collections.deque[_Group] = collections.deque()
        lock = threading.Lock()
        active = [0]

        def next_group() -> _Group | None:
            with lock:
                if requeue:
                    return requeue.popleft()
                if deadline is not None and time.monotonic() > deadline:
                    return None
                chunk = list(itertools.islice(source, self.group_size))
                return _Group(chunk) if chunk else None

        def work() -> None:
            while True:
                grp = next_group()
                if grp is None:
                    with lock:
                        if active[0] == 0 and not requeue:
                            return
                    time.sleep(0.05)
                    with lock:
                        if active[0] == 0 and not requeue:
                            return
                    continue
                with lock:
                    active[0] += 1
                try:
                    self._settle(grp, requeue, lock)
                finally:
                    with lock:
                        active[0] -= 1

        threads = [threading.Thread(target=work, daemon=True) for _ in range(self.workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return [self.results[i] for i in sorted(self.results)]

    def _settle(self, grp: _Group, requeue: collections.deque[_Group],
                lock: threading.Lock) -> None:
        self._run_group(grp)
        self._record(grp.results)
        if grp.leftover:
            with lock:
                requeue.appendleft(_Group(grp.leftover))
        bad = grp.culprit
        if bad is None:
            return
        if grp.alone or len(grp.indices) == 1:
            bad.note = bad.note or "alone"
            self._record([bad])
            return
        solo = _Group([bad.index], alone=True)
        self._run_group(solo)
        again = solo.culprit or (solo.results[0] if solo.results else None)
        if again is not None and again.kind in (CRASH, HANG):
            again.note = "confirmed alone"
            self._record([again])
        else:
            first = grp.indices[0]
            bad.note = (f"only after earlier cases of its group (alone: "
                        f"{again.kind if again else '?'}); group: --indices "
                        f"{first}..{bad.index}")
            self._record([bad])

    def _record(self, results: list[Result]) -> None:
        with self._lock:
            for r in results:
                self.results[r.index] = r
            n = len(self.results)
        if self.log is not None and results:
            bad = sum(r.bad for r in results)
            self.log(f"  {n} cases done ({time.monotonic() - self._started:.0f} s)"
                     + (f", {bad} bad in the last batch" if bad else ""))

    # ---------------------------------------------------------------- worker
    def _run_group(self, grp: _Group) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(REPO_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        env.setdefault("NUMBA_NUM_THREADS", "2")
        env.setdefault("NAVKIT_QUIET_COMPILE", "1")
        env["PYTHONFAULTHANDLER"] = "1"
        with tempfile.TemporaryFile(mode="w+b") as err:
            proc = subprocess.Popen(
                [sys.executable, "-m", "tests.fuzz.worker", "--seed", str(self.seed)],
                cwd=REPO_ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=err)
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(json.dumps(grp.indices).encode())
            proc.stdin.close()
            self._read(proc, grp, err)

    def _read(self, proc: subprocess.Popen[bytes], grp: _Group, err: Any) -> None:
        assert proc.stdout is not None
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        buf = b""
        current: dict[str, Any] | None = None
        clock = time.monotonic()
        ready = False
        done: set[int] = set()
        hung = False
        eof = False
        while not eof:
            limit = (self.timeout if ready else STARTUP_TIMEOUT) - (time.monotonic() - clock)
            if current is None and ready:
                limit = max(limit, STARTUP_TIMEOUT)  # between cases: nothing runs long
            if limit <= 0:
                hung = True
                break
            if not sel.select(timeout=min(limit, 1.0)):
                continue
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                eof = True
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                if not line.strip():
                    continue
                ev = json.loads(line)
                kind = ev["ev"]
                if kind == "ready":
                    ready = True
                    clock = time.monotonic()
                elif kind == "start":
                    current = dict(ev)
                    clock = time.monotonic()
                elif kind == "at" and current is not None:
                    current["entry"] = ev["entry"]
                elif kind == "note" and current is not None:
                    current["summary"] += "; " + ev["text"]
                elif kind == "end":
                    done.add(ev["i"])
                    grp.results.append(Result(
                        index=ev["i"], area=current["area"] if current else "?",
                        entry=ev.get("entry") or "", kind=ev["kind"], sig=ev.get("sig", ""),
                        message=ev.get("message", ""), trace=ev.get("trace", ""),
                        summary=current["summary"] if current else "",
                        seconds=ev.get("seconds", 0.0), peak_mb=ev.get("peak_mb")))
                    current = None
                    clock = time.monotonic()
        sel.close()
        if hung:
            try:
                proc.send_signal(signal.SIGUSR1)  # faulthandler: where is it stuck?
                time.sleep(0.5)
            except ProcessLookupError:
                pass
            proc.kill()
        rc = proc.wait()
        err.seek(0)
        stderr = err.read()[-200_000:].decode("utf-8", "replace")
        todo = [i for i in grp.indices if i not in done]
        if not todo and rc == 0:
            return
        if current is None and not todo:
            # every case reported, then the process failed: charge its last case
            last = grp.results[-1]
            grp.results.pop()
            current = {"i": last.index, "area": last.area, "entry": "interpreter exit",
                       "summary": last.summary}
        if current is None:
            if not ready:
                raise RuntimeError(f"a fuzz worker failed to start ({_signal_name(rc)}):\n"
                                   + stderr[-3000:])
            # died between two cases: the next one is the suspect
            i = todo[0]
            current = {"i": i, "area": "?", "entry": "between cases", "summary": ""}
        i = int(current["i"])
        where = _stack_frame(stderr)
        if hung:
            kind, sig = HANG, f"no answer within {self.timeout:g} s at {where}"
        else:
            kind, sig = CRASH, f"{_signal_name(rc)} at {where}"
        grp.culprit = Result(index=i, area=current.get("area", "?"),
                             entry=current.get("entry", ""), kind=kind, sig=sig,
                             message=stderr[-600:].strip(), trace=stderr[-6000:],
                             summary=current.get("summary", ""))
        grp.leftover = [j for j in todo if j != i]


# ---------------------------------------------------------------- reports
def outcome_table(results: Iterable[Result]) -> str:
    """Outcome counts, one row per kind and one column per area."""
    results = list(results)
    areas = [a for a in AREAS if any(r.area == a for r in results)]
    areas += sorted({r.area for r in results} - set(areas))
    counts = collections.Counter((r.kind, r.area) for r in results)
    head = ["outcome"] + areas + ["total"]
    rows = [[k] + [str(counts[k, a]) for a in areas] + [str(sum(counts[k, a] for a in areas))]
            for k in KINDS]
    rows.append(["total"] + [str(sum(counts[k, a] for k in KINDS)) for a in areas]
                + [str(len(results))])
    widths = [max(len(r[c]) for r in [head, *rows]) for c in range(len(head))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(widths[0]) if j == 0 else c.rjust(widths[j])
                         for j, c in enumerate(cells))

    rule = "-" * len(line(head))
    return "\n".join([line(head), rule, *[line(r) for r in rows[:-1]], rule, line(rows[-1])])


def failure_report(results: Iterable[Result], seed: int) -> str:
    """Every distinct failure signature, by area: count, entry point, input, one repro line."""
    groups: dict[tuple[str, str, str, str], list[Result]] = collections.defaultdict(list)
    for r in results:
        if r.bad:
            groups[r.area, r.entry, r.kind, r.sig].append(r)
    if not groups:
        return "no failures"
    out: list[str] = []
    for area in sorted({k[0] for k in groups}, key=lambda a: list(AREAS).index(a)
                       if a in AREAS else 99):
        keys = sorted((k for k in groups if k[0] == area), key=lambda k: -len(groups[k]))
        out.append(f"[{area}] {sum(len(groups[k]) for k in keys)} failing cases, "
                   f"{len(keys)} signatures")
        for k in keys:
            rs = sorted(groups[k], key=lambda r: r.index)
            first = rs[0]
            out.append(f"  {len(rs):5d} x {k[2]}: {k[1]}: {k[3]}")
            out.append(f"          input: {first.summary[:150]}")
            msg = first.message.strip().splitlines()[-1] if first.message.strip() else ""
            if msg:
                out.append(f"          says:  {msg[:150]}")
            if first.note:
                out.append(f"          note:  {first.note[:150]}")
            out.append(f"          repro: {repro(seed, first.index)}")
    return "\n".join(out)


def slowest(results: Iterable[Result], n: int = 5) -> str:
    """The ``n`` slowest cases that ended normally (to keep the suite fast)."""
    rs = sorted((r for r in results if r.kind not in (CRASH, HANG)), key=lambda r: -r.seconds)
    return "\n".join(f"  {r.seconds:6.2f} s  #{r.index} {r.area}: {r.entry}: {r.summary[:80]}"
                     for r in rs[:n])


def warm_up() -> None:
    """Load (or compile, on a cold cache) navkit's kernels once, so that no case is charged
    with compiling them and a first call is never mistaken for a hang."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.setdefault("NAVKIT_QUIET_COMPILE", "1")
    # best effort: a navkit too broken to warm up is for the cases to report
    subprocess.run([sys.executable, "-c", "from navkit.warmup import warm_up; warm_up()"],
                   cwd=REPO_ROOT, env=env, check=False, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def peaks(results: Iterable[Result]) -> str:
    """The largest peak resident memory of a case, per area (MB)."""
    top: dict[str, float] = {}
    for r in results:
        if r.peak_mb is not None:
            top[r.area] = max(top.get(r.area, 0.0), r.peak_mb)
    return "  ".join(f"{a} {top[a]:.0f}" for a in sorted(top)) or "not measured"


def summary(results: list[Result], seed: int, seconds: float) -> str:
    """The outcome table, the failure list and the slowest cases, as printed."""
    bad = sum(r.bad for r in results)
    return "\n".join([
        f"seed {seed}: {len(results)} cases in {seconds:.0f} s, {bad} failing",
        "", outcome_table(results), "", failure_report(results, seed), "",
        "largest peak resident memory of one case, MB, by area:", "  " + peaks(results), "",
        "slowest cases:", slowest(results),
    ])
