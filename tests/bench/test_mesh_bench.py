"""``navkit bench mesh`` (navkit.bench.mesh) on tiny inputs, and its helpers.

Peers that are not installed are skipped. extremitypathfinder and pyvisgraph
are independent optimal solvers: where installed they are the oracle for
navkit's exact mesh lengths.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import shapely

from navkit import examples
from navkit.bench import mesh as bm
from navkit.cli.json_casing import snake_keys
from tests.cli.jsonkeys import snake_keys_in


def test_polyline_and_vertex_count() -> None:
    assert bm.polyline_length([[0, 0], [3, 4], [3, 10]]) == 11.0
    assert bm.polyline_length([[1, 1]]) == 0.0
    sq = shapely.box(0, 0, 4, 4).difference(shapely.box(1, 1, 2, 2))
    assert bm.vertex_count(sq) == 8


def test_box_level_is_deterministic_and_valid() -> None:
    from navkit.level import parse_level

    a, b = bm.box_level(20, 10, 15, seed=4), bm.box_level(20, 10, 15, seed=4)
    assert a == b and a != bm.box_level(20, 10, 15, seed=5)
    cfg = parse_level(a)
    assert len(cfg.obstacles) == 15 and cfg.agent_radius == 0.0
    for o in a["obstacles"]:  # rectangles: four corners, opposite sides equal
        p = np.asarray(o["polygon"])
        d = np.hypot(*np.diff(np.vstack([p, p[:1]]), axis=0).T)
        assert d[0] == pytest.approx(d[2], abs=1e-3) and d[1] == pytest.approx(d[3], abs=1e-3)


def test_make_level_overrides() -> None:
    cfg, source = bm.make_level(20, 10, 5, 1, agent_radius=0.0)
    assert source in ("random_level", "box_level")
    assert cfg.obstacle_radius == 0.0 and cfg.cell_size == 0.4 and len(cfg.obstacles) == 5


def test_sample_pairs_inside_and_deterministic() -> None:
    piece = shapely.box(0, 0, 10, 5).difference(shapely.box(2, 1, 8, 4))
    s, g = bm.sample_pairs(piece, 50, 7)
    s2, _ = bm.sample_pairs(piece, 50, 7)
    assert s.shape == g.shape == (50, 2) and np.array_equal(s, s2)
    assert shapely.contains_xy(piece, s[:, 0], s[:, 1]).all()
    assert shapely.contains_xy(piece, g[:, 0], g[:, 1]).all()


def test_rings_orientation_and_pyvisgraph_frame() -> None:
    piece = shapely.box(0, 0, 10, 6).difference(
        shapely.MultiPolygon([shapely.box(2, 2, 3, 3), shapely.box(6, 1, 7, 5)]))
    ext, holes = bm._rings(piece)
    assert shapely.LinearRing(ext).is_ccw and len(holes) == 2
    assert all(not shapely.LinearRing(h).is_ccw for h in holes)
    assert not np.array_equal(ext[0], ext[-1])  # no closing point
    frame, *hs = bm.pyvisgraph_obstacles(piece)
    assert len(hs) == 2

    def shoelace(r: np.ndarray) -> float:
        x, z = r[:, 0], r[:, 1]
        return 0.5 * float(np.dot(x, np.roll(z, -1)) - np.dot(z, np.roll(x, -1)))

    # the keyhole frame covers its box minus the piece's outer ring (slit: no area)
    box = shapely.box(*shapely.MultiPoint(frame).bounds)
    assert abs(shoelace(frame)) == pytest.approx(box.area - shapely.Polygon(piece.exterior).area)
    assert sum(abs(shoelace(h)) for h in hs) == pytest.approx(1 + 4)


def test_fill_row_ratios() -> None:
    row = bm.PeerRow("p")
    exact_len = np.array([10.0, 20.0, 30.0, 40.0])
    exact_us = np.array([1.0, 2.0, 3.0, 4.0])
    bm.fill_row(row, np.array([10.0, 21.0, math.inf]), np.array([10.0, 30.0, 50.0]), [0, 1, 3],
                exact_len, exact_us)
    assert row.queries == 3 and row.found == 2
    assert row.median_us == 30.0 and row.navkit_median_us == 2.0
    assert row.navkit_speedup == 15.0 and row.time_ratio == pytest.approx(1 / 15)
    assert row.length_ratio_median == pytest.approx(1.025)
    assert (row.length_ratio_min, row.length_ratio_max) == (1.0, 1.05)
    assert (row.longer, row.shorter) == (1, 0)


@pytest.mark.parametrize("peer", ["extremitypathfinder", "pyvisgraph"])
def test_visibility_peers_agree_with_shapely_geometry(peer: str) -> None:
    pytest.importorskip(peer)
    # a 10 x 6 box with a 2 x 4 block in the middle: around its corners
    piece = shapely.box(0, 0, 10, 6).difference(shapely.box(4, 0, 6, 4))
    make = bm.prepare_extremitypathfinder if peer == "extremitypathfinder" \
        else bm.prepare_pyvisgraph
    solve, _note = make(piece)
    assert solve((1, 1), (9, 1)) == pytest.approx(2 * math.hypot(3, 3) + 2, abs=1e-9)
    assert solve((1, 5), (9, 5)) == pytest.approx(8.0, abs=1e-9)


def _payload(tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "mesh.json"
    rc = bm.main(["--quick", "--queries", "4", "--city-queries", "3", "--slow-queries", "2",
                  "--rounds", "1", "--build-repeats", "1", "--json", str(out), *args])
    assert rc == 0
    camel = json.loads(out.read_text())
    assert not snake_keys_in(camel)  # --json files are camelCase (docs/architecture.md)
    return snake_keys(camel)


def test_quick_run_queries_and_build(tmp_path: Path) -> None:
    data = _payload(tmp_path, "--cases", "queries,build", "--agent-radius", "0",
                    "--peers", "extremitypathfinder,pynavmesh,grid")
    assert data["benchmark"] == "mesh" and data["config"]["queries"] == 4
    q = data["cases"]["queries"]
    rows = {r["name"]: r for r in q["rows"]}
    assert list(rows) == ["navkit exact", "navkit funnel", "extremitypathfinder", "pyvisgraph",
                          "pynavmesh", "navkit grid"]
    assert rows["pyvisgraph"]["status"] == "skipped"
    ex = rows["navkit exact"]
    assert ex["status"] == "ok" and ex["found"] == 4 and ex["navkit_speedup"] == 1.0
    assert q["exact_found"] == 4 and q["exact_below_straight_line"] == 0
    for name, row in rows.items():
        if row["status"] != "ok":
            assert row["status"] in ("skipped", "not installed") or "not installed" \
                in row["status"], (name, row["status"])
            continue
        # the ratios are the medians' quotients on the same queries
        assert row["navkit_speedup"] == pytest.approx(row["median_us"] / row["navkit_median_us"])
        assert row["time_ratio"] == pytest.approx(row["navkit_median_us"] / row["median_us"])
        assert row["queries"] == len(row["indices"]) and row["found"] == row["queries"]
        assert row["length_ratio_min"] <= row["length_ratio_median"] <= row["length_ratio_max"]
    # funnel paths are never shorter than the exact ones
    assert rows["navkit funnel"]["shorter"] == 0
    epf = rows["extremitypathfinder"]
    if epf["status"] == "ok":  # an independent optimal solver: the same lengths
        assert epf["longer"] == 0 and epf["shorter"] == 0
        assert q["speedup_vs_extremitypathfinder"] == epf["navkit_speedup"]
        assert q["pass_vs_extremitypathfinder"] == (epf["navkit_speedup"] >= 20.0)
    b = data["cases"]["build"]
    assert b["polygons"] > 0 and b["vertices"] > 0 and b["bytes"] > 0 and b["repeats"] == 1
    assert b["pass"] == (b["build_s_median"] <= 1.0)


def test_quick_run_city(tmp_path: Path) -> None:
    data = _payload(tmp_path, "--cases", "city", "--data", str(examples.path("arena.map").parent))
    c = data["cases"]["city"]
    assert c["map"] == "arena" and c["queries"] == 3 and len(c["query_lines"]) == 3
    # the mesh's exact lengths lie between the straight line and the octile optimum
    assert c["exact_found"] == 3 and c["lengths_ok"]
    assert c["exact_over_octile_optimum"] == 0 and c["exact_below_straight_line"] == 0
    assert c["jps_optimal"] == 3
    m = c["median_us"]
    assert c["exact_over_jps"] == pytest.approx(m["exact"] / m["jps"])
    assert c["pass_vs_jps"] == (c["exact_over_jps"] <= 3.0)


def test_bad_options(tmp_path: Path) -> None:
    assert bm.main(["--queries", "0"]) == 2
    assert bm.main(["--peers", "nosuchpeer"]) == 2
    assert bm.main(["--cases", "nosuchcase"]) == 2
    assert bm.main(["--agent-radius", "-1"]) == 2
    assert bm.main(["--cases", "city", "--map", str(tmp_path / "missing.map")]) == 2
