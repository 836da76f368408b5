"""The incremental JPS+ table update (:func:`navkit._kernels.jps_plus.update_tables`)
against a fresh :func:`~navkit._kernels.jps_plus.build_tables` of the edited cells.

After every edit the whole table (all eight entries of every padded cell,
blocked ones and the padding ring included) must equal the rebuild bit for
bit, and the returned count must be the number of entries that changed
(which also holds the seed order to account: run out of order, the update
still ends right but rewrites some entries twice, and the count says so).
Edits: single cells blocked, unblocked and toggled, random boxes, cells on
the grid's border and corners, boxes reaching into the padding (clamped), an
edit that changes nothing, scratch too short (the rebuild fallback), and a
Moving AI map under a few hundred single-cell edits.

Hypothesis runs derandomized with no example database.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import navkit
from navkit import NavGrid, Pathfinder
from navkit._kernels import jps_plus as jpk
from tests.conftest import fixed


class Tables:
    """Padded cells (a writable copy), their tables and update scratch."""

    def __init__(self, walk: np.ndarray, box: tuple[int, int] = (4, 4)):
        pg = Pathfinder(NavGrid(walk)).padded
        self.wp, self.hp = pg.wp, pg.hp
        self.cells = pg.cells.copy()
        self.tab = self.build()
        self.scratch = jpk.update_scratch(self.wp, self.hp, *box)

    def build(self) -> np.ndarray:
        tab = np.zeros(8 * self.wp * self.hp, dtype=np.int16)
        jpk.build_tables(self.cells, np.int64(self.wp), np.int64(self.hp), tab)
        return tab

    def grid(self) -> np.ndarray:
        """The padded cells as ``(hp, wp)`` (a view: writes edit them)."""
        return self.cells.reshape(self.hp, self.wp)

    def update(self, x0: int, z0: int, x1: int, z1: int, scratch=None) -> int:
        """Unpadded box ``[x0, x1] x [z0, z1]``; returns the kernel's count."""
        rec, order, cnt = self.scratch if scratch is None else scratch
        return int(jpk.update_tables(self.cells, np.int64(self.wp), np.int64(self.hp), self.tab,
                                     np.int64(x0 + 1), np.int64(z0 + 1), np.int64(x1 + 1),
                                     np.int64(z1 + 1), rec, order, cnt))

    def edit(self, x0: int, z0: int, block: np.ndarray) -> None:
        """Write ``block`` (bool, rows x columns) at unpadded ``(x0, z0)``, update
        the tables and check them against a rebuild (and the count)."""
        h, w = block.shape
        before = self.tab.copy()
        self.grid()[z0 + 1:z0 + 1 + h, x0 + 1:x0 + 1 + w] = block
        n = self.update(x0, z0, x0 + w - 1, z0 + h - 1)
        self.check(before, n)

    def check(self, before: np.ndarray, n: int) -> None:
        ref = self.build()
        if not np.array_equal(self.tab, ref):
            bad = np.flatnonzero(self.tab != ref)
            q, k = bad[0] // 8, bad[0] % 8
            raise AssertionError(
                f"{len(bad)} entries differ from a rebuild; first: cell "
                f"({q % self.wp}, {q // self.wp}) padded, direction {k}: "
                f"{self.tab[bad[0]]} instead of {ref[bad[0]]}")
        assert n == int(np.count_nonzero(before != ref))


def _walk(rng: np.random.Generator, depth: int, width: int, density: float) -> np.ndarray:
    """True = walkable; ``density``: the share of blocked cells."""
    return rng.random((depth, width)) >= density


# --------------------------------------------------------------------------- strategies
@st.composite
def edit_runs(draw: st.DrawFn) -> tuple[np.ndarray, list, int]:
    depth = draw(st.integers(1, 30))
    width = draw(st.integers(1, 40))
    density = draw(st.floats(0.1, 0.4))
    seed = draw(st.integers(0, 2**32 - 1))
    walk = _walk(np.random.default_rng(seed), depth, width, density)
    xs = st.one_of(st.sampled_from([0, width - 1]), st.integers(0, width - 1))
    zs = st.one_of(st.sampled_from([0, depth - 1]), st.integers(0, depth - 1))
    one = st.tuples(st.sampled_from(["block", "unblock", "toggle"]), xs, zs)
    box = st.tuples(st.just("box"), xs, zs, st.integers(1, 4), st.integers(1, 4))
    edits = draw(st.lists(st.one_of(one, one, box), min_size=1, max_size=12))
    return walk, edits, seed


# --------------------------------------------------------------------------- tests
@fixed(250)
@given(edit_runs())
def test_edit_sequences_equal_rebuild(run):
    walk, edits, seed = run
    rng = np.random.default_rng(seed + 1)
    t = Tables(walk)
    depth, width = walk.shape
    for e in edits:
        if e[0] == "box":
            _, x, z, w, h = e
            w, h = min(w, width - x), min(h, depth - z)
            t.edit(x, z, rng.random((h, w)) < 0.5)
        else:
            kind, x, z = e
            now = bool(t.grid()[z + 1, x + 1])
            val = {"block": False, "unblock": True, "toggle": not now}[kind]
            t.edit(x, z, np.array([[val]]))


@pytest.mark.parametrize("shape", [(1, 1), (1, 7), (6, 1), (2, 2), (5, 9), (30, 40)])
def test_every_border_cell_blocked_then_freed(shape):
    """Each border cell (corners included) blocked and freed in turn, on a free
    grid and on a random one."""
    depth, width = shape
    border = sorted({(x, z) for x in range(width) for z in (0, depth - 1)}
                    | {(x, z) for z in range(depth) for x in (0, width - 1)})
    for walk in (np.ones(shape, dtype=bool), _walk(np.random.default_rng(7), depth, width, 0.3)):
        t = Tables(walk)
        for x, z in border:
            now = bool(t.grid()[z + 1, x + 1])
            t.edit(x, z, np.array([[not now]]))
            t.edit(x, z, np.array([[now]]))


def test_corner_boxes_and_whole_grid():
    rng = np.random.default_rng(11)
    depth, width = 13, 17
    t = Tables(_walk(rng, depth, width, 0.25), box=(width, depth))
    for x, z in ((0, 0), (width - 3, 0), (0, depth - 3), (width - 3, depth - 3)):
        t.edit(x, z, rng.random((3, 3)) < 0.6)
        t.edit(x, z, np.zeros((3, 3), dtype=bool))
        t.edit(x, z, np.ones((3, 3), dtype=bool))
    t.edit(0, 0, rng.random((depth, width)) < 0.7)  # the whole grid at once


def test_edit_that_changes_nothing():
    t = Tables(_walk(np.random.default_rng(3), 20, 25, 0.3))
    before = t.tab.copy()
    assert t.update(4, 5, 7, 8) == 0  # cells rewritten with their own values
    assert t.update(0, 0, 0, 0) == 0
    np.testing.assert_array_equal(t.tab, before)
    x, z = 6, 7
    now = bool(t.grid()[z + 1, x + 1])
    t.edit(x, z, np.array([[now]]))  # the same value written again
    np.testing.assert_array_equal(t.tab, before)


def test_box_clamped_to_grid_and_empty_box():
    """A box reaching into the padding is clamped (the padding never changes);
    a box empty after clamping changes nothing."""
    rng = np.random.default_rng(5)
    t = Tables(_walk(rng, 9, 12, 0.2))
    t.grid()[1:4, 1:4] = rng.random((3, 3)) < 0.5
    before = t.tab.copy()
    n = int(jpk.update_tables(t.cells, np.int64(t.wp), np.int64(t.hp), t.tab, np.int64(-5),
                              np.int64(-5), np.int64(3), np.int64(3), *t.scratch))
    t.check(before, n)
    t.grid()[8:10, 10:12] = rng.random((2, 2)) < 0.5
    before = t.tab.copy()
    n = int(jpk.update_tables(t.cells, np.int64(t.wp), np.int64(t.hp), t.tab, np.int64(10),
                              np.int64(8), np.int64(99), np.int64(99), *t.scratch))
    t.check(before, n)
    for box in ((0, 0, 0, 0), (5, 5, 4, 5), (t.wp - 1, 1, t.wp - 1, 3)):
        assert jpk.update_tables(t.cells, np.int64(t.wp), np.int64(t.hp), t.tab,
                                 *map(np.int64, box), *t.scratch) == 0
    np.testing.assert_array_equal(t.tab, t.build())


def test_scratch_too_short_rebuilds():
    rng = np.random.default_rng(9)
    t = Tables(_walk(rng, 20, 30, 0.3), box=(1, 1))
    sizes = jpk.update_scratch_sizes(t.wp, t.hp, 3, 2)
    assert tuple(len(a) for a in jpk.update_scratch(t.wp, t.hp, 3, 2)) == sizes
    t.grid()[5:7, 5:8] = rng.random((2, 3)) < 0.5
    assert t.update(4, 4, 6, 5) == 8 * t.wp * t.hp  # 3 x 2 box, scratch for 1 x 1
    np.testing.assert_array_equal(t.tab, t.build())
    exact = tuple(np.zeros(n, dtype=np.int64) for n in sizes)  # exactly long enough
    before = t.tab.copy()
    t.grid()[5:7, 5:8] = rng.random((2, 3)) < 0.5
    t.check(before, t.update(4, 4, 6, 5, scratch=exact))


@pytest.mark.parametrize("name", ["den520d.map", "NewYork_0_1024.map"])
def test_movingai_map_single_cell_edits(movingai, name):
    path = movingai / name
    if not path.is_file():
        pytest.skip(f"{name} not in {movingai}")
    grid = navkit.load_grid(path)
    t = Tables(grid.walkable, box=(1, 1))
    rng = np.random.default_rng(2024)
    free = np.flatnonzero(grid.walkable)
    edits = 0
    for i in range(200):
        if i % 2:  # a random cell toggled, or a free one blocked (where most entries change)
            x, z = int(rng.integers(grid.width)), int(rng.integers(grid.depth))
        else:
            q = int(rng.choice(free))
            x, z = q % grid.width, q // grid.width
        before = t.tab.copy() if i % 20 == 19 else None
        g = t.grid()
        g[z + 1, x + 1] = 0 if i % 2 == 0 else 1 - g[z + 1, x + 1]
        n = t.update(x, z, x, z)
        edits += n > 0
        if before is not None:
            t.check(before, n)
    np.testing.assert_array_equal(t.tab, t.build())
    assert edits > 100  # the edits did change tables
