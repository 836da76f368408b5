"""The worker subprocess: runs a list of cases and reports each one as a JSON line.

``python -m tests.fuzz.worker --seed S`` reads a JSON list of case indices on
stdin. The original stdout carries the protocol only (one JSON object a
line); everything the code under test prints, and faulthandler's stack dumps
(on a crash, or on SIGUSR1 when the runner sees a hang), go to stderr. Events::

    {"ev": "ready"}
    {"ev": "start", "i": 12, "area": ..., "entry": ..., "summary": ...}
    {"ev": "at", "entry": ...}                         # the entry point being called
    {"ev": "end", "i": 12, "kind": ..., "entry": ..., "sig": ..., "message": ..., ...}
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import os
import resource
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO


def _limit_memory() -> None:
    gib = float(os.environ.get("FUZZ_MEM_GB", "8"))
    if gib > 0:
        cap = int(gib * (1 << 30))
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def _protocol() -> TextIO:
    """The protocol stream (the original stdout); fd 1 then points at stderr."""
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return proto


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, required=True)
    args = ap.parse_args(argv)
    indices = [int(i) for i in json.loads(sys.stdin.read())]
    proto = _protocol()
    faulthandler.enable(sys.stderr, all_threads=True)
    faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)
    _limit_memory()

    def emit(obj: dict[str, Any]) -> None:
        proto.write(json.dumps(obj) + "\n")
        proto.flush()

    import navkit  # noqa: F401 - loaded before the first case's clock starts

    from .core import OTHER, Context, exception_signature, execute, make_case

    emit({"ev": "ready"})
    root = Path(tempfile.mkdtemp(prefix="navkit-fuzz-"))
    try:
        for i in indices:
            tmp = root / str(i)
            tmp.mkdir()
            t0 = time.perf_counter()
            try:
                case = make_case(args.seed, i)
            except Exception as e:  # the generator itself failed: a harness bug, said so
                sig, trace = exception_signature(e)
                emit({"ev": "start", "i": i, "area": "?", "entry": "make_case", "summary": ""})
                emit({"ev": "end", "i": i, "kind": OTHER, "entry": "make_case",
                      "sig": "HARNESS " + sig, "message": str(e)[:300], "trace": trace,
                      "seconds": 0.0})
                continue
            emit({"ev": "start", "i": i, "area": case.area, "entry": case.entry,
                  "summary": case.summary})
            out = execute(case, Context(tmp, emit))
            emit({"ev": "end", "i": i, "seconds": round(time.perf_counter() - t0, 4), **out})
            shutil.rmtree(tmp, ignore_errors=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    proto.flush()
    sys.stderr.flush()
    os._exit(0)  # no interpreter teardown: a crash there would be no case's


if __name__ == "__main__":
    main()
