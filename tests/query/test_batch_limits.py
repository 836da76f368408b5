"""A* batches near the generation limit (issue: after ~4.19 million queries per
thread in one call the counter spilled into the level queue's back bits and
answers turned UNREACHABLE).

The real limit (``GEN_LIMIT``, about 4.2 million) is a kernel constant; the
tests put the counters just below it and cut calls small
(``Batches.per_thread``), so the wrap-around happens inside a few queries.
"""

from __future__ import annotations

import numpy as np
import pytest

from navkit import NavGrid, Pathfinder, Status
from navkit._kernels.search import GEN_LIMIT


def _walled() -> Pathfinder:
    """A 6 x 7 grid with a wall to walk around (seed costs)."""
    walk = np.ones((7, 6), bool)
    walk[3, 0:5] = False
    return Pathfinder(NavGrid(walk), costs="seed")


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("algorithm", ["astar", "dijkstra", "jps"])
def test_a_batch_that_crosses_the_generation_limit_keeps_its_answers(threads: int,
                                                                    algorithm: str) -> None:
    pf = _walled()
    want = pf.find_path_cells((0, 0), (0, 6), algorithm="astar")
    assert want.status == Status.FOUND
    n = 2000
    starts, goals = np.array([[0, 0]] * n), np.array([[0, 6]] * n)
    pf.engine.batches.per_thread = 7  # many calls, each a few generations
    ws = pf.engine.batches.workspace(threads)
    ws.gens[:] = GEN_LIMIT - 30  # the limit falls inside this batch
    if pf.engine.batches.jps_state is not None:
        pf.engine.batches.jps_state[1][:] = GEN_LIMIT - 30
    b = pf.find_paths_batch(starts, goals, algorithm=algorithm, threads=threads)
    assert (b.status == Status.FOUND).all(), np.unique(b.status, return_counts=True)
    assert (b.cost_int == want.cost_int).all()
    assert int(ws.gens.max()) < GEN_LIMIT


def test_one_call_never_runs_more_queries_per_thread_than_the_limit_allows() -> None:
    pf = _walled()
    assert 0 < pf.engine.batches.per_thread < GEN_LIMIT
    calls = []
    real = pf.engine.batches._astar_search  # noqa: SLF001 - counting the kernel calls of one batch

    def counting(*args):  # type: ignore[no-untyped-def]
        search = real(*args)

        def wrapped(starts, goals, *rest):  # type: ignore[no-untyped-def]
            calls.append(len(starts))
            return search(starts, goals, *rest)
        return wrapped

    pf.engine.batches._astar_search = counting  # noqa: SLF001
    pf.engine.batches.per_thread = 5
    pf.find_paths_batch(np.array([[0, 0]] * 23), np.array([[0, 6]] * 23), threads=2,
                        algorithm="astar")
    assert calls == [10, 10, 3]
