"""Bakes and corpus replays through a DaskRunner equal the local (serial) ones."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed")
bake_mod = pytest.importorskip("navkit.world.bake")
replay_mod = pytest.importorskip("navkit.corpus.replay")

from navkit.distributed import bake as dbake  # noqa: E402
from navkit.distributed import replay as dreplay  # noqa: E402
from navkit.distributed.cluster import close_client, local_client  # noqa: E402
from navkit.errors import NavkitError  # noqa: E402
from navkit.formats import load_grid  # noqa: E402
from navkit.grid import NavGrid  # noqa: E402
from navkit.query.pathfinder import Pathfinder  # noqa: E402

MAPS = Path(__file__).resolve().parents[2].parent / "shared" / "maps" / "movingai"
if not (MAPS / "arena.map").is_file():
    MAPS = Path("/work/shared/maps/movingai")
pytestmark = pytest.mark.skipif(not (MAPS / "den520d.map").is_file(),
                                reason="Moving AI maps not found")


@pytest.fixture(scope="module")
def client():
    c = local_client(2)
    yield c
    close_client(c)


def test_dask_bake_writes_the_local_bytes(client, tmp_path) -> None:
    grid = load_grid(MAPS / "den520d.map")
    weights = np.where(grid.walkable, 1 + (np.arange(grid.size).reshape(grid.shape) % 3), 1)
    grid = NavGrid(grid.walkable, weights=weights.astype(np.int32), name="den520d")
    local, dist = tmp_path / "local.nkw", tmp_path / "dask.nkw"
    bake_mod.bake(grid, local, chunk=32, batch_chunks=8, progress=False)
    report = dbake.bake(grid, dist, chunk=32, batch_chunks=8, client=client, progress=False)
    assert dist.read_bytes() == local.read_bytes()
    # and the chunks hold the source arrays (the independent oracle)
    from navkit.world.chunkfile import ChunkFile

    cf = ChunkFile(dist)
    c = 32
    want = np.where(grid.walkable, grid.weight_array(), 0)
    for cz in range(cf.header.nz):
        for cx in range(cf.header.nx):
            got = cf.read(cx, cz).astype(np.int64)
            part = want[cz * c:(cz + 1) * c, cx * c:(cx + 1) * c]
            assert np.array_equal(got[:part.shape[0], :part.shape[1]] > 0, part > 0)
    cf.close()
    assert report.chunks == cf.header.nx * cf.header.nz


def _corpus(tmp_path: Path) -> Path:
    grid = load_grid(MAPS / "arena.map")
    path = tmp_path / "arena.jsonl"
    pf = Pathfinder(grid, costs="exact", record=str(path))
    free = np.argwhere(grid.walkable)[:, ::-1]
    rng = np.random.default_rng(7)
    for _ in range(120):
        s, g = free[rng.integers(len(free))], free[rng.integers(len(free))]
        pf.find_path_cells(tuple(int(v) for v in s), tuple(int(v) for v in g))
    pf.record.close()
    return path


def test_dask_replay_equals_local(client, tmp_path) -> None:
    corpus = _corpus(tmp_path)
    grid = load_grid(MAPS / "arena.map")
    local = replay_mod.replay(corpus, grid=grid, budgets=[50, None], progress=False)
    dist = dreplay.replay(corpus, grid=grid, budgets=[50, None], client=client,
                          progress=False)
    assert local.ok and dist.ok  # every recorded answer (the oracle) reproduced
    a, b = local.to_json_dict(), dist.to_json_dict()
    for key in ("lines", "replayed", "matches", "answer_mismatches", "expansion_mismatches",
                "recorded_found", "replayed_found", "skipped"):
        assert a.get(key) == b.get(key), key
    same = ("budget", "queries", "found", "median_expanded", "p99_expanded", "max_expanded")
    assert [[r[k] for k in same] for r in a["sweep"]] == [[r[k] for k in same]
                                                          for r in b["sweep"]]
    assert a["replayed"] == 120


def test_missing_target_is_a_navkit_error() -> None:
    with pytest.raises(NavkitError, match="not available"):
        dbake.target("navkit.no_such_module", "bake")
