"""World corpora: ``World(record=)`` writes them, ``replay`` checks them (docs/corpora.md).

The oracle is the recording run itself: every line holds the answer a first
World gave; replay builds a second World (from the baked file, in this process
or on Dask workers) and must reproduce status, cost, cells and expansions.
A tampered line and a rebaked world must be caught.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from navkit.cli import app
from navkit.corpus.replay import ReplaySpec, Task, read_corpus, replay, replay_batch
from navkit.errors import FormatError
from navkit.formats import save_grid
from navkit.grid import NavGrid
from navkit.query.pathfinder import Pathfinder
from navkit.world.bake import bake
from navkit.world.local import BOUNDED
from navkit.world.world import World

runner = CliRunner()
CHUNK = 16


def _grid(seed: int = 7) -> NavGrid:
    """Random walls and weights, with uniform chunks (open, blocked, weight 3) among mixed ones."""
    rng = np.random.default_rng(seed)
    d, w = 64, 96
    walk = rng.random((d, w)) > 0.22
    walk[0:16, 0:32] = True          # two uniform open chunks
    walk[16:32, 64:80] = False       # a uniform blocked chunk
    weights = rng.integers(1, 4, size=(d, w)).astype(np.int32)
    weights[0:16, 0:32] = 1
    weights[32:48, 32:48] = 3        # a uniform weight-3 chunk
    walk[32:48, 32:48] = True
    return NavGrid(walk, weights=weights, cell_size=0.5, min_x=-2.0, min_z=1.0)


def _free(grid: NavGrid) -> np.ndarray:
    return np.argwhere(grid.walkable)[:, ::-1]  # (x, z)


def _record(world: World, grid: NavGrid, n: int = 36, seed: int = 3) -> None:
    """Bounded, windowed, long (hierarchy) and nearest queries with obstacles."""
    rng = np.random.default_rng(seed)
    free = _free(grid)
    cs, mx, mz = grid.cell_size, grid.min_x, grid.min_z
    for i in range(n):
        s = tuple(int(v) for v in free[rng.integers(len(free))])
        near = free[np.max(np.abs(free - np.array(s)), axis=1) <= 15]
        g = tuple(int(v) for v in (near if i % 2 else free)[rng.integers(len(near) if i % 2
                                                                         else len(free))])
        sw = (mx + (s[0] + 0.5) * cs, mz + (s[1] + 0.5) * cs)
        gw = (mx + (g[0] + 0.3) * cs, mz + (g[1] + 0.6) * cs)
        obs = [[sw[0] + 1.0, sw[1] - 0.5, 0.6], [gw[0] - 0.8, gw[1], 0.4]]
        k = i % 6
        if k == 0:
            world.find_path_cells(s, g, preset="bounded")
        elif k == 1:
            world.find_path_cells(s, g)                        # long: hierarchy
        elif k == 2:
            world.find_path(sw, gw, obstacles=obs)             # long, with circles
        elif k == 3:
            world.find_path_to_nearest(sw, gw, preset="bounded", obstacles=obs)
        elif k == 4:
            world.find_path_cells(s, g, nearest=True, budget=40,
                                  window=(s[0] - 10, s[1] - 10, s[0] + 10, s[1] + 10))
        else:
            world.find_path_to_nearest(sw, (gw[0] + 200.0, gw[1]))   # a goal off the world


@pytest.fixture(scope="module")
def baked(tmp_path_factory) -> tuple[Path, Path, NavGrid]:
    """``(corpus, world.nkw, grid)``: a world baked from a grid file, and a corpus on it."""
    d = tmp_path_factory.mktemp("wr")
    grid = _grid()
    src = d / "world.txt"
    save_grid(grid, src)
    nkw = d / "world.nkw"
    bake(str(src), nkw, chunk=CHUNK, progress=False)
    corpus = d / "world.jsonl"
    w = World.open(str(nkw), costs="exact", small_world_cells=0, record=str(corpus))
    _record(w, grid)
    w.record.close()
    w.close()
    return corpus, nkw, grid


def test_header_names_the_world_file(baked) -> None:
    corpus, nkw, _grid_ = baked
    header, lines = read_corpus(corpus)
    src = header["source"]
    assert src["kind"] == "world" and src["origin"] == "file"
    assert Path(src["path"]).resolve() == nkw.resolve()
    assert src["chunk"] == CHUNK and src["world"]["small_world_cells"] == 0
    assert header["costs"]["name"] == "exact"
    assert len(lines) == 36 and {q.kind for q in lines} == {
        "find_path_cells", "find_path", "find_path_to_nearest"}
    assert {q.status for q in lines} >= {"FOUND", "NEAREST"}


def test_replay_equals_recorded(baked) -> None:
    corpus, _nkw, grid = baked
    r = replay(corpus, budgets=[25, None], progress=False)
    assert r.ok and r.matches == r.replayed == 36, r.answer_mismatches
    assert not r.expansion_mismatches and not r.skipped
    assert [row.budget for row in r.sweep] == [25, None]
    assert r.sweep[0].found <= r.sweep[1].found
    # the bounded lines are Pathfinder's windowed answers (an oracle outside navkit.world)
    _header, lines = read_corpus(corpus)
    pf = Pathfinder(grid, "exact")
    for q in lines:
        if q.kind == "find_path_cells" and q.window is not None and not q.obstacles:
            res = pf.find_path_cells(q.start, q.goal, nearest=q.nearest, budget=q.budget,
                                     window=q.window, algorithm="astar")
            assert (res.status.name, res.cost_int, len(res.cells)) == (
                q.status, q.cost_int, q.cells), q.line
            if q.budget == BOUNDED.budget:
                assert q.window == BOUNDED.window_for(q.start, q.goal)


def test_rebaked_source_is_a_fingerprint_mismatch(baked, tmp_path) -> None:
    corpus, _nkw, grid = baked
    walk = grid.walkable.copy()
    walk[40, 10] = not walk[40, 10]
    src = tmp_path / "world.txt"
    save_grid(NavGrid(walk, weights=grid.weights, cell_size=0.5, min_x=-2.0, min_z=1.0), src)
    other = tmp_path / "world.nkw"
    bake(str(src), other, chunk=CHUNK, progress=False)
    with pytest.raises(FormatError, match="not the world this corpus") as exc:
        replay(corpus, world=str(other), progress=False)
    assert exc.value.path is not None and Path(str(exc.value.path)) == corpus
    assert exc.value.line == 1
    res = runner.invoke(app, ["replay", str(corpus), "--map", str(other), "--json"])
    assert res.exit_code == 2, res.output
    # without the check the same file replays, and the edit may change answers
    r = replay(corpus, world=str(other), check_fingerprint=False, progress=False)
    assert r.replayed == 36


def test_tampered_cost_exits_1_via_the_cli(baked, tmp_path) -> None:
    corpus, nkw, _grid_ = baked
    rows = [json.loads(t) for t in corpus.read_text().splitlines()]
    i = next(k for k, x in enumerate(rows[1:], start=1) if x["outcome"]["status"] == "FOUND")
    rows[i]["outcome"]["costInt"] += 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(x) + "\n" for x in rows))
    res = runner.invoke(app, ["replay", str(bad), "--map", str(nkw), "--json"])
    assert res.exit_code == 1, res.output
    out = json.loads(res.stdout)
    assert out["ok"] is False
    # (--json keys: snake_case, or camelCase where the casing default changed)
    changed = out.get("answer_mismatches", out.get("answerMismatches"))
    assert [m["line"] for m in changed] == [i + 1]
    assert set(changed[0]["fields"]) <= {"cost_int", "costInt"} and changed[0]["fields"]
    ok = runner.invoke(app, ["replay", str(corpus), "--json"])
    assert ok.exit_code == 0, ok.output


def test_a_worker_opens_the_world_by_path(baked) -> None:
    """What a Dask worker process does: no store registered, the spec's path only."""
    corpus, nkw, _grid_ = baked
    header, lines = read_corpus(corpus)
    spec = ReplaySpec(corpus=str(corpus), fingerprint=header["source"]["fingerprint"],
                      map_kind="world", world_path=str(nkw.resolve()),
                      world_options=tuple(sorted(header["source"]["world"].items())))
    got = replay_batch(spec, [Task(q) for q in lines])
    assert [(o.status, o.cost_int, o.cells, o.end_cell, o.expanded) for o in got] == [
        (q.status, q.cost_int, q.cells, q.end_cell, q.expanded) for q in lines]


def test_world_from_a_grid_needs_the_world(tmp_path) -> None:
    grid = _grid(11)
    corpus = tmp_path / "g.jsonl"
    w = World.from_grid(grid, chunk=CHUNK, record=str(corpus))
    _record(w, grid, n=12, seed=5)
    w.find_path_cells((0, 0), (5, 5), preset="bounded")
    w.set_walkable([(3, 3)], False)                          # lines after an edit: skipped
    w.find_path_cells((0, 0), (5, 5), preset="bounded")
    w.record.close()
    header, _lines = read_corpus(corpus)
    assert header["source"]["path"] is None and header["source"]["origin"] == "grid"
    with pytest.raises(FormatError, match="give the world") as exc:
        replay(corpus, progress=False)
    assert exc.value.line == 1
    fresh = World.from_grid(grid, chunk=CHUNK)
    r = replay(corpus, world=fresh, progress=False)
    assert r.ok and r.replayed == 13 and r.skipped == [15] and not r.expansion_mismatches
    src = tmp_path / "g.txt"
    save_grid(grid, src)
    r2 = replay(corpus, grid=str(src), progress=False)     # a map file, cut as recorded
    assert r2.ok and r2.replayed == 13
    with pytest.raises(FormatError, match="not the world"):
        replay(corpus, world=w, progress=False)              # the edited world itself


def test_dask_replay_equals_local(baked) -> None:
    pytest.importorskip("distributed")
    from navkit.distributed import replay as dreplay
    from navkit.distributed.cluster import close_client, local_client

    corpus, _nkw, _grid_ = baked
    local = replay(corpus, budgets=[25, None], progress=False)
    client = local_client(2, processes=False)
    try:
        dist = dreplay.replay(corpus, budgets=[25, None], client=client, progress=False)
    finally:
        close_client(client)
    a, b = local.to_json_dict(), dist.to_json_dict()
    assert local.ok and dist.ok
    for key in ("lines", "replayed", "matches", "answer_mismatches", "expansion_mismatches",
                "recorded_found", "replayed_found", "skipped", "fingerprint"):
        assert a[key] == b[key], key
    same = ("budget", "queries", "found", "median_expanded", "p99_expanded", "max_expanded")
    assert [[r[k] for k in same] for r in a["sweep"]] == [[r[k] for k in same]
                                                          for r in b["sweep"]]


def test_a_corpus_from_before_the_weighted_attempts_replays_plain_astar(baked) -> None:
    """A world header without ``attempt_expansions`` was recorded when the abstract
    search was plain A*: replay runs it so; a header with the key gets the attempts."""
    from navkit.corpus.replay import _world
    from navkit.world.hierarchy import DEFAULT_WEIGHTS

    corpus, nkw, _grid_ = baked
    header, lines = read_corpus(corpus)
    opts = dict(header["source"]["world"])
    assert opts["attempt_expansions"] == 32_768
    old = {k: v for k, v in opts.items() if k != "attempt_expansions"}
    for options, weights in ((opts, DEFAULT_WEIGHTS), (old, (1.0,))):
        spec = ReplaySpec(corpus=str(corpus), fingerprint=header["source"]["fingerprint"],
                          map_kind="world", world_path=str(nkw.resolve()),
                          world_options=tuple(sorted(options.items())))
        w, _ = _world(spec, lines[0])
        assert w.hierarchy.weights == weights
