"""A* on uniform grids runs on the level queue (navkit._kernels.search): FIFO
streams per f step, a small heap per level, move masks without the move back
to the parent. These tests hold it to the indexed heap, which the
reference-order tests in test_search_oracle.py check against a textbook
heapq A*: every answer must be the same field by field (status, cost,
expansions, pushes, cells, end), whatever the grid, costs, overlay, window,
budget, occupants or ring size.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from navkit import NavGrid, Pathfinder
from navkit._kernels import search as S
from navkit.query.workspace import Workspace
from tests.conftest import fixed
from tests.jitcheck import assert_same_without_jit


@st.composite
def worlds(draw: st.DrawFn, max_side: int = 40) -> tuple[np.ndarray, object, int]:
    depth = draw(st.integers(1, max_side))
    width = draw(st.integers(1, max_side))
    density = draw(st.sampled_from([0.55, 0.7, 0.85, 1.0]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walk = rng.random((depth, width)) < density
    kind = draw(st.sampled_from(["seed", "exact", "pair"]))
    if kind == "pair":
        card = draw(st.integers(1, 40))
        costs: object = (card, draw(st.integers(card, 2 * card)))
    else:
        costs = kind
    return walk, costs, draw(st.sampled_from([8, 4]))


@contextmanager
def on_heap(pf: Pathfinder):  # type: ignore[no-untyped-def]
    """A* of ``pf`` on the indexed heap for the ``with`` block: every run takes
    the path a search whose rings are as long as they get falls back to."""
    run = pf.engine.astar.run

    def heap_run(s, g, budget, window, hmul, level_queue=True):  # type: ignore[no-untyped-def]
        return run(s, g, budget, window, hmul, level_queue=False)

    pf.engine.astar.run = heap_run  # type: ignore[method-assign]
    try:
        yield
    finally:
        del pf.engine.astar.run


def answer(r) -> tuple:  # type: ignore[no-untyped-def]
    return (r.status.name, r.cost_int, r.expanded, r.generated, r.cells.tolist(), r.end_cell)


def both(pf: Pathfinder, *args, **kw) -> tuple:  # type: ignore[no-untyped-def]
    """The answer on the level queue and on the heap (which must agree). The
    level queue writes no parents (the tags keep the move back): they are
    poisoned first, so a path read through a stale parent cannot pass."""
    pf.engine.workspace.parent.fill(-7)
    kw = {"algorithm": "astar", **kw}  # (the level queue is A*'s)
    a = answer(pf.find_path_cells(*args, **kw))
    with on_heap(pf):
        b = answer(pf.find_path_cells(*args, **kw))
    return a, b


@fixed(150)
@given(world=worlds(), data=st.data())
def test_level_queue_equals_heap(world, data):
    """Same answers with and without overlay circles, windows, budgets, nearest, Dijkstra."""
    walk, costs, conn = world
    pf = Pathfinder(NavGrid(walk), costs=costs, connectivity=conn)
    depth, width = walk.shape
    cell = st.tuples(st.integers(0, width - 1), st.integers(0, depth - 1))
    for _ in range(4):
        s, g = data.draw(cell), data.draw(cell)
        kw: dict = {}
        if data.draw(st.booleans()):
            kw["algorithm"] = "dijkstra"
        if data.draw(st.booleans()):
            kw["budget"] = data.draw(st.integers(1, 60))
        if data.draw(st.booleans()):
            x0, z0 = data.draw(cell)
            kw["window"] = (x0, z0, x0 + data.draw(st.integers(0, 20)),
                            z0 + data.draw(st.integers(0, 20)))
        if data.draw(st.booleans()):
            kw["obstacles"] = [[data.draw(st.floats(0, width)), data.draw(st.floats(0, depth)),
                                data.draw(st.floats(0, 3))]]
        if data.draw(st.booleans()):
            kw["nearest"] = True
        a, b = both(pf, s, g, **kw)
        assert a == b, kw


@fixed(40)
@given(world=worlds(max_side=30), data=st.data())
def test_every_closed_node_traces_as_on_the_heap(world, data):
    """The level queue's parents (the move back in each tag) give every closed
    node, not only the path's end, the heap's chain: what a caller that picks
    its own end (a goal outside the grid) traces."""
    walk, costs, conn = world
    pf = Pathfinder(NavGrid(walk), costs=costs, connectivity=conn)
    depth, width = walk.shape
    s = data.draw(st.tuples(st.integers(0, width - 1), st.integers(0, depth - 1)))
    g = data.draw(st.tuples(st.integers(0, width - 1), st.integers(0, depth - 1)))
    if not (walk[s[1], s[0]] and walk[g[1], g[0]]):
        return
    chains = []
    for level in (True, False):
        pf.engine.workspace.parent.fill(-7)
        if level:
            pf.find_path_cells(s, g, algorithm="astar")
        else:
            with on_heap(pf):
                pf.find_path_cells(s, g, algorithm="astar")
        closed = pf.engine.workspace.closed_nodes()
        chains.append({int(n): pf.engine.astar.trace(pf.engine.padded.node(*s),
                                                     int(n)).tolist() for n in closed})
    assert chains[0] == chains[1]


@fixed(40)
@given(world=worlds(max_side=30), data=st.data())
def test_move_masks_follow_occupants(world, data):
    """Occupants change the cells; the move masks follow (same as rebuilt from
    scratch) and searches on them still match the heap's."""
    walk, costs, conn = world
    pf = Pathfinder(NavGrid(walk), costs=costs, connectivity=conn)
    depth, width = walk.shape
    handles = []
    for _ in range(4):
        if handles and data.draw(st.booleans()):
            pf.remove_occupant(handles.pop(data.draw(st.integers(0, len(handles) - 1))))
        else:
            handles.append(pf.add_occupant(data.draw(st.floats(0, width)),
                                           data.draw(st.floats(0, depth)),
                                           data.draw(st.floats(0.1, 2.5))))
        fresh = np.zeros_like(pf.engine.occupancy.moves)
        S.move_masks(pf.engine.occupancy.cells, pf.engine.padded.wp, 1, 1,
                     pf.engine.padded.wp - 2, pf.engine.padded.hp - 2, conn == 8, fresh)
        assert np.array_equal(pf.engine.occupancy.moves, fresh)
        s = (data.draw(st.integers(0, width - 1)), data.draw(st.integers(0, depth - 1)))
        g = (data.draw(st.integers(0, width - 1)), data.draw(st.integers(0, depth - 1)))
        a, b = both(pf, s, g)
        assert a == b


def test_move_mask_bits():
    """Bit d of a node's mask is move d (E, W, S, N, SE, SW, NE, NW), diagonals
    past two free cardinals."""
    walk = np.ones((3, 3), dtype=bool)
    walk[0, 1] = False  # north of the centre
    pf = Pathfinder(NavGrid(walk), connectivity=8)
    centre = 2 * pf.engine.padded.wp + 2
    # E, W, S free; N blocked; SE, SW free; NE, NW cut by the blocked north
    assert pf.engine.occupancy.moves[centre] == 0b0011_0111
    corner = 1 * pf.engine.padded.wp + 1  # (0, 0): E is blocked, S free, nothing diagonal
    assert pf.engine.occupancy.moves[corner] == 0b0000_0100
    assert pf.engine.occupancy.moves[1 * pf.engine.padded.wp + 2] == 0  # the blocked cell itself


def heap_answers(seed: int, side: int) -> tuple:  # type: ignore[type-arg]
    """A random ``side`` x ``side`` world, 20 queries, and their single and
    batch answers on the heap (the level queue is back on afterwards)."""
    rng = np.random.default_rng(seed)
    walk = rng.random((side, side)) < 0.8
    pf = Pathfinder(NavGrid(walk), costs="exact")
    free = np.argwhere(walk)[:, ::-1]
    starts, goals = free[rng.integers(len(free), size=20)], free[rng.integers(len(free), size=20)]
    with on_heap(pf):
        want = [answer(pf.find_path_cells(tuple(s), tuple(g), algorithm="astar"))
                for s, g in zip(starts, goals, strict=True)]
    # batches run on the heap once the rings are as long as they get
    pf.engine.batches.ws = Workspace(pf.engine.padded.n, rows=2,
                                     heap_extra=pf.engine.jps.heap_extra,
                              ring_bits=0, max_ring_bits=0)
    want_batch = pf.find_paths_batch(starts, goals, return_paths=True, threads=2,
                                     algorithm="astar")
    pf.engine.batches.ws = None
    return pf, starts, goals, want, want_batch


def test_tiny_rings_rerun_on_the_heap():
    """A full ring stops the level queue (RETRY); single and batch queries rerun on the heap."""
    pf, starts, goals, want, want_batch = heap_answers(3, 60)
    # 2 entries per stream, never grown
    pf.engine.workspace.set_rings(1, max_ring_bits=1)
    stats = pf.engine.astar.run(pf.engine.padded.node(*starts[0]),
                                pf.engine.padded.node(*goals[0]), pf.budget, None, 1)
    assert stats[S.ST_STATUS] != S.RETRY  # run() reran it
    got = [answer(pf.find_path_cells(tuple(s), tuple(g), algorithm="astar"))
           for s, g in zip(starts, goals, strict=True)]
    assert got == want
    assert pf.engine.workspace.ring_bits == 1
    pf.engine.batches.ws = Workspace(pf.engine.padded.wp * pf.engine.padded.hp, rows=2,
                              heap_extra=pf.engine.jps.heap_extra, ring_bits=1, max_ring_bits=1)
    for paths in (False, True):
        b = pf.find_paths_batch(starts, goals, return_paths=paths, threads=2,
                                algorithm="astar")
        assert np.array_equal(b.cost_int, want_batch.cost_int)
        assert np.array_equal(b.expanded, want_batch.expanded)
        assert np.array_equal(b.generated, want_batch.generated)
        if paths:
            assert np.array_equal(b.path_cells, want_batch.path_cells)
            assert np.array_equal(b.path_offsets, want_batch.path_offsets)


def test_full_rings_grow():
    """Rings start short; a search that fills one reruns on rings four times
    longer (up to the grid's length), single and batch, with the same answers."""
    pf, starts, goals, want, want_batch = heap_answers(5, 70)
    assert pf.engine.workspace.ring_bits == min(Workspace.START_RING_BITS,
                                                pf.engine.workspace.max_ring_bits)
    pf.engine.workspace.set_rings(1)
    # 13 for 72 x 72
    pg = pf.engine.padded
    assert pf.engine.workspace.max_ring_bits == (pg.wp * pg.hp - 1).bit_length()
    got = [answer(pf.find_path_cells(tuple(s), tuple(g), algorithm="astar"))
           for s, g in zip(starts, goals, strict=True)]
    assert got == want
    assert 1 < pf.engine.workspace.ring_bits <= pf.engine.workspace.max_ring_bits
    assert (pf.engine.workspace.ring_bits - 1) % 2 == 0  # grown in steps of two bits
    pf.engine.batches.ws = Workspace(pf.engine.padded.wp * pf.engine.padded.hp, rows=2,
                              heap_extra=pf.engine.jps.heap_extra, ring_bits=1)
    b = pf.find_paths_batch(starts, goals, return_paths=True, threads=2, algorithm="astar")
    assert np.array_equal(b.path_cells, want_batch.path_cells)
    assert np.array_equal(b.expanded, want_batch.expanded)
    bws = pf.engine.batches.ws
    assert 1 < bws.ring_bits <= bws.max_ring_bits  # grown until none filled
    small = Workspace(100)
    assert (small.ring_bits, small.max_ring_bits) == (7, 7)  # never longer than the grid
    assert not small.grow_rings()


def test_kernel_answers_retry_when_a_ring_fills():
    """The kernel itself reports RETRY (rather than a wrong answer) on tiny rings."""
    walk = np.ones((40, 40), dtype=bool)
    walk[5:35, 20] = False
    pf = Pathfinder(NavGrid(walk), costs="exact")
    ws = Workspace(pf.engine.padded.wp * pf.engine.padded.hp, ring_bits=1)
    kernel = S.astar_kernel(False, False, False, True)
    stats = np.zeros(S.STATS_SIZE, dtype=np.int64)
    status = kernel(pf.engine.astar.grid_args(), pf.engine.overlay.args(),
                    pf.engine.astar.model_args(1),
                    pf.engine.astar.limit_args(pf.budget, None), ws.args(1),
                    ws.ring_args(pf.engine.astar.stream_offsets(1), pf.engine.occupancy.moves),
                    np.int64(pf.engine.padded.node(0, 20)),
                    np.int64(pf.engine.padded.node(39, 20)), stats)
    assert status == S.RETRY


@fixed(60)
@given(world=worlds(max_side=30), data=st.data())
def test_no_retry_with_full_rings(world, data):
    """Every f step a search meets is one of stream_offsets' (or 0): with rings
    as long as the grid the kernel never stops."""
    walk, costs, conn = world
    pf = Pathfinder(NavGrid(walk), costs=costs, connectivity=conn)
    depth, width = walk.shape
    kernel = S.astar_kernel(False, False, False, True)
    stats = np.zeros(S.STATS_SIZE, dtype=np.int64)
    for hmul in (1, 0):
        for _ in range(3):
            s = pf.engine.padded.node(data.draw(st.integers(0, width - 1)),
                               data.draw(st.integers(0, depth - 1)))
            g = pf.engine.padded.node(data.draw(st.integers(0, width - 1)),
                               data.draw(st.integers(0, depth - 1)))
            if pf.engine.occupancy.cells[s] == 0 or pf.engine.occupancy.cells[g] == 0:
                continue
            ws = pf.engine.workspace
            status = kernel(pf.engine.astar.grid_args(), pf.engine.overlay.args(),
                            pf.engine.astar.model_args(hmul),
                            pf.engine.astar.limit_args(pf.budget, None), ws.args(ws.next_gen()),
                            pf.engine.astar.ring_args(hmul), np.int64(s), np.int64(g), stats)
            assert status in (S.FOUND, S.UNREACHABLE)


def test_stream_offsets():
    c, d = 1_000_000, 1_414_214
    assert S.stream_offsets(c, d, True, 1).tolist() == [2 * c - d, 2 * d - 2 * c, d, 2 * c, 2 * d]
    # Dijkstra: the step costs
    assert S.stream_offsets(c, d, True, 0).tolist() == [c, d, -1, -1, -1]
    assert S.stream_offsets(c, d, False, 1).tolist() == [2 * c, -1, -1, -1, -1]
    # diag == 2 card: 2c - d == 0
    assert S.stream_offsets(10, 20, True, 1).tolist() == [20, 40, -1, -1, -1]
    with pytest.raises(ValueError):
        S.stream_offsets(10, 25, True, 1)  # diag > 2 card: the octile heuristic overestimates


def test_level_kernels_without_jit():
    """The level-queue kernels run as plain Python (NUMBA_DISABLE_JIT=1) with the same answers."""
    code = (
        "import numpy as np, navkit\n"
        "rng = np.random.default_rng(11)\n"
        "walk = rng.random((14, 16)) < 0.75\n"
        "pf = navkit.Pathfinder(navkit.NavGrid(walk), costs='exact')\n"
        "free = np.argwhere(walk)[:, ::-1]\n"
        "out = []\n"
        "for i in range(10):\n"
        "    s = tuple(int(v) for v in free[rng.integers(len(free))])\n"
        "    g = tuple(int(v) for v in free[rng.integers(len(free))])\n"
        "    kw = {'obstacles': [[6.0, 6.0, 1.5]]} if i % 3 == 0 else {}\n"
        "    r = pf.find_path_cells(s, g, **kw, algorithm='astar')\n"
        "    out.append([int(r.status), r.cost_int, r.expanded, r.generated, r.cells.tolist()])\n"
        "b = pf.find_paths_batch(free[:6], free[-6:], return_paths=True, threads=2,\n"
        "                        algorithm='astar')\n"
        "out.append([b.status.tolist(), b.cost_int.tolist(), b.expanded.tolist(), "
        "b.path_cells.tolist()])\n"
        "print(out)\n"
    )
    assert_same_without_jit(code)
