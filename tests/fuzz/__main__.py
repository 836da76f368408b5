"""``python -m tests.fuzz``: a fuzz campaign, a fixed number of cases, or one case.

Examples::

    python -m tests.fuzz                          # FUZZ_SECONDS (600) of cases, FUZZ_SEED or random
    python -m tests.fuzz --seed 7 --cases 5000    # cases 0..4999 of seed 7
    python -m tests.fuzz --seed 7 --case 1234     # one case, alone in a worker, with its traceback
    python -m tests.fuzz --seed 7 --case 1234 --inline   # ... in this process (a debugger works)
    python -m tests.fuzz --seed 7 --indices 100..140     # a group, in one worker (order effects)

Exit status 1 when any case ends in another exception, a crash, a hang or a wrong answer.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from pathlib import Path

from .core import AREAS, BAD_KINDS, area_of
from .runner import Result, Runner, repro, summary, warm_up


def _indices(text: str) -> list[int]:
    if ".." in text:
        a, b = text.split("..")
        return list(range(int(a), int(b) + 1))
    return [int(v) for v in text.split(",") if v.strip()]


def _inline(seed: int, index: int) -> int:
    import tempfile

    from .core import Context, execute, make_case

    case = make_case(seed, index)
    print(f"case {index} [{case.area}] {case.entry}: {case.summary}")
    with tempfile.TemporaryDirectory() as tmp:
        ctx = Context(Path(tmp))
        try:
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                case.run(ctx)
        except Exception:
            traceback.print_exc()
        if ctx.notes:
            print("notes:", "; ".join(ctx.notes))
        with tempfile.TemporaryDirectory() as tmp2:
            out = execute(make_case(seed, index), Context(Path(tmp2)))
    print(f"outcome: {out['kind']}  {out['entry']}: {out['sig']}")
    return 1 if out["kind"] in BAD_KINDS else 0


def _show_one(r: Result, seed: int) -> None:
    print(f"case {r.index} [{r.area}] {r.entry}")
    print(f"  input:   {r.summary}")
    print(f"  outcome: {r.kind}" + (f": {r.sig}" if r.sig else ""))
    if r.message:
        print(f"  message: {r.message}")
    if r.note:
        print(f"  note:    {r.note}")
    if r.trace:
        print("  trace:\n" + "\n".join("    " + ln for ln in r.trace.rstrip().splitlines()))
    print(f"  repro:   {repro(seed, r.index)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=None,
                    help="case seed (default: $FUZZ_SEED, else from the clock)")
    what = ap.add_mutually_exclusive_group()
    what.add_argument("--cases", type=int, help="run cases START..START+N-1")
    what.add_argument("--seconds", type=float,
                      help="run cases for this long (default $FUZZ_SECONDS, else 600)")
    what.add_argument("--case", type=int, help="run one case alone and show everything about it")
    what.add_argument("--indices", type=_indices, help="run these cases in one worker: 5..9 or 1,4")
    ap.add_argument("--start", type=int, default=0, help="first case index (default 0)")
    ap.add_argument("--area", choices=sorted(AREAS), action="append",
                    help="only cases of this area (repeatable)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--group-size", type=int, default=1000, help="cases per worker process")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds one case may take")
    ap.add_argument("--inline", action="store_true", help="with --case: run in this process")
    ap.add_argument("--no-warmup", action="store_true", help="skip compiling the kernels first")
    ap.add_argument("--json", type=Path, help="write every result to this file")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args(argv)

    seed = args.seed
    if seed is None:
        seed = int(os.environ.get("FUZZ_SEED") or time.time_ns() % 1_000_000_007)
    if args.case is not None and args.inline:
        return _inline(seed, args.case)

    log = None if args.quiet else (lambda s: print(s, file=sys.stderr, flush=True))
    if not args.no_warmup and args.case is None:
        if log:
            log("loading navkit's kernels (navkit warmup) ...")
        warm_up()
    deadline = None
    if args.case is not None:
        indices: list[int] | range = [args.case]
        runner = Runner(seed, workers=1, group_size=1, timeout=args.timeout)
    elif args.indices is not None:
        indices = args.indices
        runner = Runner(seed, workers=1, group_size=len(indices), timeout=args.timeout, log=log)
    else:
        runner = Runner(seed, workers=args.workers, group_size=args.group_size,
                        timeout=args.timeout, log=log)
        if args.cases is not None:
            indices = range(args.start, args.start + args.cases)
        else:
            seconds = args.seconds if args.seconds is not None else float(
                os.environ.get("FUZZ_SECONDS", "600"))
            deadline = time.monotonic() + seconds
            indices = range(args.start, sys.maxsize)
    if args.area:
        wanted = set(args.area)
        indices = (i for i in indices if area_of(seed, i) in wanted)  # type: ignore[assignment]
    if log and args.case is None:
        log(f"fuzzing navkit with seed {seed} ({args.workers} workers)")
    t0 = time.monotonic()
    results = runner.run(indices, deadline=deadline)
    if args.json is not None:
        args.json.write_text(json.dumps([r.__dict__ for r in results], indent=1))
    if args.case is not None or args.indices is not None:
        for r in results:
            if args.case is not None or r.bad:
                _show_one(r, seed)
        if args.indices is not None:
            print(summary(results, seed, time.monotonic() - t0))
    else:
        print(summary(results, seed, time.monotonic() - t0))
    return 1 if any(r.bad for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
