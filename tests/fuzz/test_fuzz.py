"""The fuzz suite's fixed-seed sample, as part of ``make test``.

5,000 cases of seed :data:`SEED` (``FUZZ_SAMPLE`` changes the count) on all
cores; the test fails when any ends in another exception, a crash, a hang or
a wrong answer, and prints the outcome table and every failure signature with
its repro line. Longer campaigns: ``make fuzz`` (``python -m tests.fuzz``).
"""

from __future__ import annotations

import math
import os
import time

import pytest

from tests.fuzz.core import AREAS, CRASH, HANG, OTHER, Gen, area_of, make_case
from tests.fuzz.runner import Runner, summary, warm_up

#: The sample's seed: fixed, so every run checks the same cases.
SEED = 20_240_601
#: Cases in the sample.
CASES = int(os.environ.get("FUZZ_SAMPLE", "5000"))


def test_cases_are_deterministic() -> None:
    """A case is a function of its seed and index alone."""
    for i in range(40):
        a, b = make_case(SEED, i), make_case(SEED, i)
        assert (a.area, a.entry, a.summary) == (b.area, b.entry, b.summary)
    assert [Gen(SEED, 3).randint(0, 10**9) for _ in range(2)] != [
        Gen(SEED, 4).randint(0, 10**9) for _ in range(2)]


def test_every_area_is_sampled() -> None:
    areas = {area_of(SEED, i) for i in range(min(CASES, 500))}
    assert areas == {a for a, w in AREAS.items() if w}


def test_runner_names_crashes_and_hangs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted failures (see core._planted): a segfault and a hang in one group of cases
    are each found, named alone, and the rest of the group still runs."""
    monkeypatch.setenv("FUZZ_SELFTEST", "crash:2,hang:5,other:7")
    results = Runner(SEED, workers=1, group_size=8, timeout=3.0).run(range(8))
    by = {r.index: r for r in results}
    assert sorted(by) == list(range(8))
    assert by[2].kind == CRASH and "SIGSEGV" in by[2].sig and by[2].note == "confirmed alone"
    assert by[5].kind == HANG and by[5].note == "confirmed alone"
    assert by[7].kind == OTHER and "planted other" in by[7].message
    assert all(by[i].kind not in (CRASH, HANG) and by[i].area != "selftest"
               for i in (0, 1, 3, 4, 6))  # the real cases ran (whatever they found)


def test_fuzz_sample() -> None:
    workers = os.cpu_count() or 2
    warm_up()
    runner = Runner(SEED, workers=workers, group_size=math.ceil(CASES / (2 * workers)),
                    timeout=10.0)
    t0 = time.monotonic()
    results = runner.run(range(CASES))
    report = summary(results, SEED, time.monotonic() - t0)
    print(report)
    assert len(results) == CASES
    bad = [r for r in results if r.bad]
    assert not bad, f"{len(bad)} of {CASES} fuzz cases failed\n\n{report}"
