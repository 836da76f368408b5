"""A JPS find-path-to-nearest whose goal cell is blocked reports its own counts,
not the previous query's (the kernel does not touch ``stats`` when the goal is
blocked): the same queries give the same answers and counts in any order."""

from __future__ import annotations

import numpy as np

from navkit import NavGrid, Pathfinder


def _key(r):  # type: ignore[no-untyped-def]
    return (r.status.name, r.cost_int, r.expanded, r.generated, r.cells.tolist())


def test_jps_nearest_counts_do_not_depend_on_query_order() -> None:
    rng = np.random.default_rng(2024)
    walk = rng.random((40, 50)) < 0.7
    queries = [((int(rng.integers(50)), int(rng.integers(40))),
                (int(rng.integers(50)), int(rng.integers(40))),
                bool(rng.random() < 0.5), bool(rng.random() < 0.3)) for _ in range(60)]
    assert any(nr and not walk[g[1], g[0]] for _, g, _, nr in queries)  # the case that leaked

    def run(order):  # type: ignore[no-untyped-def]
        pf = Pathfinder(NavGrid(walk), costs="exact")
        out = {i: _key(pf.find_path_cells(queries[i][0], queries[i][1], smooth=queries[i][2],
                                          nearest=queries[i][3], algorithm="jps"))
               for i in order}
        return [out[i] for i in range(len(queries))]

    assert run(range(60)) == run(range(59, -1, -1))
