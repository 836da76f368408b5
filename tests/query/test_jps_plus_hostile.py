"""Hostile JPS+ table and goal-bounds files: checked against their grid, never searched blind.

Each test pins a defect a hostile-input campaign found. The grid fingerprint of
a tables file covers the grid, not the tables: tables with altered jump values
(random, all-max, all-min, all-one) loaded and crashed the process in the
kernels (which run without bounds checks); zeroed, shuffled or scaled tables
and zeroed, random or inverted goal-bound boxes loaded and answered
``UNREACHABLE`` or longer paths. A 3 MB deflate bomb reached gigabytes before
its error. The oracle is A* on the same grid (and the files' own builds).
"""

from __future__ import annotations

import io
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from navkit import NavGrid, Pathfinder
from navkit.errors import ConfigError, FormatError
from navkit.query.goal_bounds import GoalBounds
from navkit.query.jps_plus import JPSPlus, JumpTables

BIG = 10**12


def maze(seed: int = 3, shape: tuple[int, int] = (24, 30)) -> Pathfinder:
    rng = np.random.default_rng(seed)
    walk = rng.random(shape) < 0.78
    return Pathfinder(NavGrid(walk), costs="exact")


def parts_of(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


def write(path: Path, parts: dict[str, np.ndarray]) -> Path:
    np.savez_compressed(path, **parts)  # type: ignore[arg-type]
    return path


def tampered_tab(tab: np.ndarray, how: str, rng: np.random.Generator) -> np.ndarray:
    t = tab.copy()
    if how == "random":
        return rng.integers(-32768, 32768, t.shape).astype(np.int16)
    if how == "all-max":
        return np.full_like(t, 32767)
    if how == "all-min":
        return np.full_like(t, -32768)
    if how == "all-one":
        return np.ones_like(t)
    if how == "zeroed":
        return np.zeros_like(t)
    if how == "shuffled":
        return t.reshape(-1, 8)[rng.permutation(len(t) // 8)].ravel()
    if how == "scaled":
        return np.clip(t.astype(np.int64) * 2, -32768, 32767).astype(np.int16)
    if how == "one-entry":  # the smallest lie: one positive jump one cell longer
        i = int(np.flatnonzero(t > 0)[len(np.flatnonzero(t > 0)) // 2])
        t[i] += 1
        return t
    raise AssertionError(how)


HOW = ["random", "all-max", "all-min", "all-one", "zeroed", "shuffled", "scaled", "one-entry"]


@pytest.mark.parametrize("how", HOW)
def test_tables_with_altered_jumps_are_refused(tmp_path: Path, how: str):
    pf = maze()
    path = tmp_path / "t.npz"
    JumpTables.build(pf).save(path)
    parts = parts_of(path)
    parts["tab"] = tampered_tab(parts["tab"], how, np.random.default_rng(1))
    bad = write(tmp_path / f"{how}.npz", parts)  # the fingerprint still matches the grid
    with pytest.raises(FormatError, match="do not describe the grid") as ei:
        JumpTables.load(bad, pf)
    assert ei.value.path == str(bad)
    with pytest.raises(FormatError):
        pf.precompute(tables=bad)


def test_cli_refuses_altered_tables(tmp_path: Path):
    from navkit.cli import app

    rng = np.random.default_rng(2)
    walk = rng.random((20, 20)) < 0.8
    walk[0, 0] = walk[19, 19] = True
    mp = tmp_path / "m.npz"
    np.savez(mp, walkable=walk)
    pf = Pathfinder(NavGrid(walk))
    tp = tmp_path / "t.npz"
    JumpTables.build(pf).save(tp)
    parts = parts_of(tp)
    parts["tab"] = np.full_like(parts["tab"], 32767)
    write(tp, parts)
    res = CliRunner().invoke(app, ["path", str(mp), "--from", "0,0", "--to", "19,19",
                                   "--algorithm", "jps+", "--tables", str(tp)])
    assert res.exit_code == 2, res.output
    assert "do not describe the grid" in res.output


def test_honest_tables_still_load_and_answer(tmp_path: Path):
    pf = maze(5)
    path = tmp_path / "t.npz"
    JumpTables.build(pf).save(path)
    t = JumpTables.load(path, pf)
    jp = JPSPlus(pf, t)
    free = np.argwhere(pf.grid.walkable)
    rng = np.random.default_rng(0)
    for _ in range(30):
        s, g = (tuple(int(v) for v in free[rng.integers(len(free))][::-1]) for _ in range(2))
        assert jp.cell_query(s, g, smooth=False, nearest=False, budget=BIG).cost_int == \
            pf.find_path_cells(s, g, algorithm="astar").cost_int


def test_hand_made_tables_are_checked_before_a_search(tmp_path: Path):
    pf = maze()
    good = JumpTables.build(pf)
    bad = JumpTables(np.full_like(good.tab, 32767), good.wp, good.hp, good.fingerprint)
    with pytest.raises(ConfigError, match="do not describe the grid") as ei:
        JPSPlus(pf, bad)
    assert ei.value.field == "tables"
    ok = JumpTables(good.tab.copy(), good.wp, good.hp, good.fingerprint)
    assert not ok.verified
    JPSPlus(pf, ok)
    assert ok.verified


def _bomb_npz(path: Path, member: str, raw_bytes: int, keep: dict[str, np.ndarray]) -> Path:
    """An .npz whose ``member`` is a valid .npy of ``raw_bytes`` zero bytes, deflated as it
    streams (a few hundred kilobytes on disk)."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<i2", "fortran_order": False, "shape": (raw_bytes // 2,)})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for k, v in keep.items():
            buf = io.BytesIO()
            np.save(buf, v)
            zf.writestr(k + ".npy", buf.getvalue())
        with zf.open(member + ".npy", "w", force_zip64=True) as f:
            f.write(header.getvalue())
            zero = bytes(1 << 20)
            for _ in range(raw_bytes >> 20):
                f.write(zero)
    return path


def test_deflate_bomb_tables_are_refused_before_allocating(tmp_path: Path):
    pf = maze()
    path = tmp_path / "t.npz"
    JumpTables.build(pf).save(path)
    keep = {k: v for k, v in parts_of(path).items() if k != "tab"}
    bomb = _bomb_npz(tmp_path / "bomb.npz", "tab", 256 << 20, keep)
    assert bomb.stat().st_size < 1 << 20
    tracemalloc.start()
    try:
        with pytest.raises(FormatError, match="allowed") as ei:
            JumpTables.load(bomb, pf)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert ei.value.path == str(bomb)
    assert peak < 16 << 20, peak


def test_member_inflating_past_its_declared_size_is_refused(tmp_path: Path):
    """A zip whose directory declares a small member whose deflate stream holds more:
    the stream is cut at the declared size and the CRC fails."""
    pf = maze()
    path = tmp_path / "t.npz"
    JumpTables.build(pf).save(path)
    raw = bytearray(path.read_bytes())
    # shrink the declared size of 'tab.npy' in both headers to half: its stream holds more
    name = b"tab.npy"
    cd = raw.find(b"PK\x01\x02")
    while cd >= 0:
        nlen = int.from_bytes(raw[cd + 28:cd + 30], "little")
        if raw[cd + 46:cd + 46 + nlen] == name:
            size = int.from_bytes(raw[cd + 24:cd + 28], "little")
            raw[cd + 24:cd + 28] = (size // 2).to_bytes(4, "little")
            loc = int.from_bytes(raw[cd + 42:cd + 46], "little")
            raw[loc + 22:loc + 26] = (size // 2).to_bytes(4, "little")
        cd = raw.find(b"PK\x01\x02", cd + 4)
    bad = tmp_path / "short.npz"
    bad.write_bytes(bytes(raw))
    with pytest.raises(FormatError):
        JumpTables.load(bad, pf)


# ------------------------------------------------------------------ goal bounds
def bounds_file(tmp_path: Path, pf: Pathfinder) -> tuple[Path, dict[str, np.ndarray]]:
    path = tmp_path / "b.npz"
    GoalBounds.build(pf).save(path)
    return path, parts_of(path)


def tampered_boxes(boxes: np.ndarray, how: str, rng: np.random.Generator) -> np.ndarray:
    b = boxes.copy()
    if how == "zeroed":
        return np.zeros_like(b)
    if how == "random":
        return rng.integers(-5, 40, b.shape).astype(np.int16)
    if how == "inverted":  # x0 <-> x1, z0 <-> z1: every box empty
        r = b.reshape(-1, 4).copy()
        return r[:, [2, 3, 0, 1]].ravel()
    if how == "shrunk":  # one box one cell smaller on one side (a near miss)
        r = b.reshape(-1, 4).copy()
        i = int(np.flatnonzero(r[:, 2] > r[:, 0])[0])
        r[i, 2] -= 1
        return r.ravel()
    raise AssertionError(how)


def _digest(index: np.ndarray, boxes: np.ndarray, costs: Any, fp: str) -> str:
    return GoalBounds(index, boxes, fp, (int(costs[0]), int(costs[1]))).digest()


@pytest.mark.parametrize("how", ["zeroed", "random", "inverted", "shrunk"])
@pytest.mark.parametrize("digest", ["recomputed", "absent", "stale"])
def test_goal_bounds_with_altered_boxes_are_refused(tmp_path: Path, how: str, digest: str):
    pf = maze(7, (14, 16))
    path, parts = bounds_file(tmp_path, pf)
    parts["boxes"] = tampered_boxes(parts["boxes"], how, np.random.default_rng(0))
    if digest == "recomputed":  # a hand-made file: its digest is right, its boxes wrong
        parts["digest"] = np.array(_digest(parts["index"], parts["boxes"], parts["costs"],
                                           str(parts["fingerprint"])))
    elif digest == "absent":  # a file written before digests
        del parts["digest"]
    bad = write(tmp_path / "bad.npz", parts)
    with pytest.raises(FormatError) as ei:
        GoalBounds.load(bad, pf, verify="full")
    assert ei.value.path == str(bad)
    assert "digest" in str(ei.value) if digest == "stale" else "do not describe" in str(ei.value)
    if how != "shrunk":  # caught by the checks that need no Dijkstra
        with pytest.raises(FormatError):
            GoalBounds.load(bad, pf, verify="structure")


def test_goal_bounds_sample_check_catches_wholesale_damage_on_a_larger_map(tmp_path: Path):
    pf = maze(11, (40, 48))
    path, parts = bounds_file(tmp_path, pf)
    rows = len(parts["boxes"]) // 32
    assert rows > 16
    b = parts["boxes"].reshape(rows, 8, 4).copy()
    b[:, :, 2] = np.maximum(b[:, :, 0], b[:, :, 2] - 1)  # every box loses a column
    b[:, :, 3] = np.maximum(b[:, :, 1], b[:, :, 3] - 1)
    parts["boxes"] = b.ravel()
    parts["digest"] = np.array(_digest(parts["index"], parts["boxes"], parts["costs"],
                                       str(parts["fingerprint"])))
    with pytest.raises(FormatError):
        GoalBounds.load(write(tmp_path / "bad.npz", parts), pf)


def test_goal_bounds_index_must_list_exactly_the_jump_points(tmp_path: Path):
    pf = maze()
    path, parts = bounds_file(tmp_path, pf)
    idx = parts["index"].copy()
    j = np.flatnonzero(idx >= 0)
    idx[j[0]], idx[j[1]] = idx[j[1]], idx[j[0]]  # two rows swapped: still a permutation
    parts["index"] = idx
    del parts["digest"]
    with pytest.raises(FormatError, match="index row"):
        GoalBounds.load(write(tmp_path / "swap.npz", parts), pf)


def test_old_goal_bounds_files_without_digest_still_load(tmp_path: Path):
    pf = maze(9)
    path, parts = bounds_file(tmp_path, pf)
    del parts["digest"]
    gb = GoalBounds.load(write(tmp_path / "old.npz", parts), pf)
    jp = JPSPlus(pf, goal_bounds=gb)
    free = np.argwhere(pf.grid.walkable)
    rng = np.random.default_rng(1)
    for _ in range(30):
        s, g = (tuple(int(v) for v in free[rng.integers(len(free))][::-1]) for _ in range(2))
        assert jp.cell_query(s, g, smooth=False, nearest=False, budget=BIG).cost_int == \
            pf.find_path_cells(s, g, algorithm="astar").cost_int


def test_hand_made_goal_bounds_are_checked_before_a_search():
    pf = maze()
    gb = GoalBounds.build(pf)
    idx = gb.index.copy()
    idx[idx >= 0] = 10**6  # rows far outside the boxes: read without bounds checks
    bad = GoalBounds(idx, gb.boxes, gb.fingerprint, gb.costs)
    with pytest.raises(ConfigError) as ei:
        JPSPlus(pf, goal_bounds=bad)
    assert ei.value.field == "goal_bounds"
    ok = GoalBounds(gb.index.copy(), gb.boxes.copy(), gb.fingerprint, gb.costs)
    JPSPlus(pf, goal_bounds=ok)
    assert ok.verified


def test_deflate_bomb_goal_bounds_are_refused_before_allocating(tmp_path: Path):
    pf = maze()
    path, parts = bounds_file(tmp_path, pf)
    keep = {k: v for k, v in parts.items() if k != "boxes"}
    bomb = _bomb_npz(tmp_path / "bomb.npz", "boxes", 256 << 20, keep)
    tracemalloc.start()
    try:
        with pytest.raises(FormatError, match="allowed"):
            GoalBounds.load(bomb, pf)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, peak
