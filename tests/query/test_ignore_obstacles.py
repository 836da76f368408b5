"""Per-query obstacle exclusion (``ignore=`` with ``Pathfinder.snapshot``, docs/rules.md §7.6).

Oracle: the same query with the ignored circles removed from the obstacle
list (a plain circle array, which stamps every circle afresh). Queries with
and without ``ignore`` are interleaved so that a restore that leaves a cell
freed or blocked shows up in a later answer.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from navkit import NavGrid, Pathfinder, QueryError
from navkit.query.edits import ObstacleSnapshot
from tests.conftest import fixed


def same(a, b) -> None:
    assert (a.status, a.cost_int, a.start_cell, a.end_cell) == \
        (b.status, b.cost_int, b.start_cell, b.end_cell)
    np.testing.assert_array_equal(a.cells, b.cells)
    np.testing.assert_array_equal(a.waypoints, b.waypoints)


@st.composite
def crowds(draw: st.DrawFn) -> dict[str, object]:
    depth = draw(st.integers(3, 16))
    width = draw(st.integers(3, 16))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walk = rng.random((depth, width)) < draw(st.sampled_from([0.7, 0.9, 1.0]))
    k = draw(st.integers(1, 12))
    circles = np.stack([rng.uniform(0, width, k), rng.uniform(0, depth, k),
                        rng.choice([0.3, 0.5, 0.8, 1.5], k)], axis=1)
    if k > 1 and draw(st.booleans()):  # two circles on the same spot: counts, not booleans
        circles[1] = circles[0]
    return {"walk": walk, "circles": circles, "seed": int(rng.integers(0, 2**31)),
            "weighted": draw(st.booleans()) and draw(st.booleans())}


@fixed(40)
@given(crowds())
def test_ignore_matches_the_list_without_the_ignored(scene: dict) -> None:
    walk, circles = scene["walk"], scene["circles"]
    d, w = walk.shape
    rng = np.random.default_rng(scene["seed"])
    weights = rng.integers(1, 4, size=walk.shape) if scene["weighted"] else None
    pf = Pathfinder(NavGrid(walk, weights=weights))
    ref = Pathfinder(NavGrid(walk, weights=weights))
    snap = pf.snapshot(circles)
    k = len(circles)
    for q in range(8):
        i = int(rng.integers(0, k))
        ignore = [i] if rng.random() < 0.7 else sorted(set(rng.integers(0, k, 2).tolist()))
        keep = np.ones(k, dtype=bool)
        keep[ignore] = False
        sw = (float(circles[i, 0]), float(circles[i, 1]))  # an NPC plans from its own spot
        ew = (float(rng.uniform(-1, w + 1)), float(rng.uniform(-1, d + 1)))
        note(f"query {q}: ignore {ignore} from {sw} to {ew}")
        for fn in ("find_path_to_nearest", "find_path"):
            a = getattr(pf, fn)(sw, ew, obstacles=snap, ignore=ignore)
            b = getattr(ref, fn)(sw, ew, obstacles=circles[keep])
            same(a, b)
        # the shared snapshot, nobody ignored, is intact afterwards
        same(pf.find_path_to_nearest(sw, ew, obstacles=snap),
             ref.find_path_to_nearest(sw, ew, obstacles=circles))
        s = (int(rng.integers(0, w)), int(rng.integers(0, d)))
        g = (int(rng.integers(0, w)), int(rng.integers(0, d)))
        for algorithm in ("astar", "auto"):
            a = pf.find_path_cells(s, g, obstacles=snap, ignore=ignore, algorithm=algorithm,
                                   nearest=True)
            b = ref.find_path_cells(s, g, obstacles=circles[keep], algorithm=algorithm,
                                    nearest=True)
            same(a, b)
        a = pf.find_path_cells(s, g, obstacles=circles, ignore=ignore)  # plain rows
        same(a, ref.find_path_cells(s, g, obstacles=circles[keep]))


def test_overlapping_circles_keep_a_cell_blocked() -> None:
    walk = np.ones((3, 7), dtype=bool)
    pf = Pathfinder(NavGrid(walk))
    # a wall of two identical circles across the corridor at x = 3
    wall = np.array([[3.5, 1.5, 1.6], [3.5, 1.5, 1.6], [0.5, 0.5, 0.2]])
    snap = pf.snapshot(wall)
    assert not pf.find_path((0.5, 1.5), (6.5, 1.5), obstacles=snap, ignore=[0]).has_path
    assert not pf.find_path((0.5, 1.5), (6.5, 1.5), obstacles=snap, ignore=[1]).has_path
    assert pf.find_path((0.5, 1.5), (6.5, 1.5), obstacles=snap, ignore=[0, 1]).has_path
    assert not pf.find_path((0.5, 1.5), (6.5, 1.5), obstacles=snap).has_path


def test_ids_name_circles() -> None:
    walk = np.ones((3, 7), dtype=bool)
    pf = Pathfinder(NavGrid(walk))
    # one character made of two circles (id 7), another of one (id 3)
    circles = np.array([[3.5, 0.5, 0.4], [3.5, 1.5, 0.4], [3.5, 2.5, 0.4]])
    snap = pf.snapshot(circles, ids=[7, 7, 3])
    r = pf.find_path((0.5, 1.5), (6.5, 1.5), obstacles=snap, ignore=3)
    assert r.has_path and [3, 2] in r.cells.tolist()
    r = pf.find_path((0.5, 1.5), (6.5, 1.5), obstacles=snap, ignore=7)
    assert r.has_path and [3, 2] not in r.cells.tolist()
    assert pf.find_path((0.5, 1.5), (6.5, 1.5), obstacles=snap, ignore=[99]).status.name == \
        "UNREACHABLE"
    assert np.asarray(snap).shape == (3, 3)


def test_two_snapshots_alternate() -> None:
    walk = np.ones((8, 8), dtype=bool)
    pf, ref = Pathfinder(NavGrid(walk)), Pathfinder(NavGrid(walk))
    c1 = np.array([[4.5, z + 0.5, 0.4] for z in range(8)])
    c2 = np.array([[2.5, z + 0.5, 0.4] for z in range(7)])
    s1, s2 = pf.snapshot(c1), pf.snapshot(c2)
    for _ in range(3):
        for snap, c in ((s1, c1), (s2, c2)):
            for i in (0, 3):
                keep = np.arange(len(c)) != i
                same(pf.find_path_to_nearest((0.5, 0.5), (7.5, 7.5), obstacles=snap, ignore=i),
                     ref.find_path_to_nearest((0.5, 0.5), (7.5, 7.5), obstacles=c[keep]))


def test_ignore_then_edit_and_occupants() -> None:
    walk = np.ones((6, 10), dtype=bool)
    pf, ref = Pathfinder(NavGrid(walk)), Pathfinder(NavGrid(walk))
    circles = np.array([[5.5, z + 0.5, 0.45] for z in range(6)])
    snap = pf.snapshot(circles)
    keep = np.arange(6) != 2
    same(pf.find_path((0.5, 2.5), (9.5, 2.5), obstacles=snap, ignore=2),
         ref.find_path((0.5, 2.5), (9.5, 2.5), obstacles=circles[keep]))
    for p in (pf, ref):
        p.set_walkable([[6, 2], [6, 3]], False)
        p.add_occupant(7.5, 1.5, 0.5)
    same(pf.find_path((0.5, 2.5), (9.5, 2.5), obstacles=snap, ignore=2),
         ref.find_path((0.5, 2.5), (9.5, 2.5), obstacles=circles[keep]))
    same(pf.find_path((0.5, 2.5), (9.5, 2.5), obstacles=snap),
         ref.find_path((0.5, 2.5), (9.5, 2.5), obstacles=circles))


@pytest.mark.parametrize("ignore", [True, "a", [[1, 2]], [0.5], {"a": 1}])
def test_bad_ignore_raises(ignore) -> None:
    pf = Pathfinder(NavGrid(np.ones((4, 4), dtype=bool)))
    snap = pf.snapshot([[1.5, 1.5, 0.4]])
    with pytest.raises(QueryError):
        pf.find_path((0.5, 0.5), (3.5, 3.5), obstacles=snap, ignore=ignore)


def test_bad_snapshots_raise() -> None:
    with pytest.raises(QueryError):
        ObstacleSnapshot([[1.0, 1.0, float("nan")]])
    with pytest.raises(QueryError):
        ObstacleSnapshot([[1.0, 1.0, 0.5]], ids=[1, 2])
    with pytest.raises(QueryError):
        ObstacleSnapshot([[1.0, 1.0, 0.5]], ids=[True])


@pytest.mark.parametrize("cache_size", [0, 64])
def test_navmap_ignore(cache_size: int) -> None:
    from navkit.query.navmap import NavMap

    walk = np.ones((6, 10), dtype=bool)
    nav = NavMap(NavGrid(walk.copy()), cache_size=cache_size)
    ref = Pathfinder(NavGrid(walk.copy()))
    circles = np.array([[5.5, z + 0.5, 0.45] for z in range(6)])
    snap = nav.pathfinder.snapshot(circles)
    keep = np.arange(6) != 2
    for fn in ("find_path", "find_path_to_nearest"):
        a = getattr(nav, fn)((0.5, 2.5), (9.5, 2.5), obstacles=snap, ignore=2)
        b = getattr(ref, fn)((0.5, 2.5), (9.5, 2.5), obstacles=circles[keep])
        assert (a.status, a.cost_int) == (b.status, b.cost_int)
        a = getattr(nav, fn)((0.5, 2.5), (9.5, 2.5), obstacles=circles, ignore=[2],
                             blocked_cells=[[7, 2]])
        b = getattr(ref, fn)((0.5, 2.5), (9.5, 2.5),
                             obstacles=np.vstack([circles[keep], [[7.5, 2.5, 0.25]]]))
        assert (a.status, a.cost_int) == (b.status, b.cost_int)
    assert not nav.find_path((0.5, 2.5), (9.5, 2.5), obstacles=snap).has_path
