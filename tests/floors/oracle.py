"""An independent model of a building's layered graph (docs/rules.md §16), for tests.

Built from the floors' grids and the link configs alone with scipy's
Dijkstra: none of navkit's search code.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

MOVES = [(1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1)]


def building_dict(rng: np.random.Generator, floors: int, size: int = 10) -> dict[str, Any]:
    """Random floors of random rectangles (some overlapping in XZ, some walls), no links."""
    out = []
    for f in range(floors):
        areas = []
        for a in range(int(rng.integers(1, 4))):
            x0, z0 = rng.integers(0, size - 2, 2)
            w, d = rng.integers(2, size - 1, 2)
            areas.append({"name": f"a{a}", "polygon": [[x0, z0], [x0 + w, z0], [x0 + w, z0 + d],
                                                       [x0, z0 + d]],
                          "weight": int(rng.choice([1, 1, 1, 3]))})
        obstacles = []
        for o in range(int(rng.integers(0, 3))):
            x0, z0 = rng.integers(0, size - 1, 2)
            obstacles.append({"name": f"o{o}", "polygon": [[x0, z0], [x0 + 1, z0],
                                                           [x0 + 1, z0 + 3], [x0, z0 + 3]]})
        out.append({"name": f"F{f}", "floorY": float(3 * f), "areas": areas,
                    "obstacles": obstacles})
    return {"cellSize": 1.0, "agentRadius": 0.0, "objectPadding": 0.0, "floors": out}


def add_random_links(obj: dict[str, Any], grids: list[Any], rng: np.random.Generator,
                     count: int) -> None:
    """Links between random walkable cells' centres (some one-way, some off, some cheap)."""
    links = []
    free = [np.argwhere(g.walkable) for g in grids]  # (z, x)
    choices = [f for f in range(len(grids)) if len(free[f])]
    if not choices:
        return
    for i in range(count):
        fa, fb = (int(v) for v in rng.choice(choices, 2))
        za, xa = free[fa][int(rng.integers(len(free[fa])))]
        zb, xb = free[fb][int(rng.integers(len(free[fb])))]
        ga, gb = grids[fa], grids[fb]
        cs = ga.cell_size
        pa = [float(ga.min_x + (xa + 0.5) * cs), float(ga.min_z + (za + 0.5) * cs)]
        pb = [float(gb.min_x + (xb + 0.5) * cs), float(gb.min_z + (zb + 0.5) * cs)]
        link: dict[str, Any] = {"name": f"L{i}", "kind": "stairs",
                                "from": {"floor": f"F{fa}", "point": pa},
                                "to": {"floor": f"F{fb}", "point": pb},
                                "bidirectional": bool(rng.random() < 0.7),
                                "enabled": bool(rng.random() < 0.85)}
        r = rng.random()
        if r < 0.3:
            link["cost"] = float(rng.uniform(0.1, 3.0))  # cheaper than walking: a teleport
        elif pa == pb and fa == fb:
            link["cost"] = 1.0
        links.append(link)
    obj["links"] = links


def layered_graph(grids: list[Any], obj: dict[str, Any], card: int, diag: int,
                  enabled: dict[str, bool] | None = None) -> csr_matrix:
    """The graph of docs/rules.md §16: 8 moves per floor with the corner rule
    (a step into c costs card or diag times w(c)), plus enabled links
    (``max(1, round(cost / cellSize * card))``)."""
    F = len(grids)
    D, W = grids[0].walkable.shape
    P = D * W
    rows, cols, vals = [], [], []
    for f, g in enumerate(grids):
        walk = g.walkable
        wt = g.weights if g.weights is not None else np.ones_like(walk, dtype=np.int64)
        for z in range(D):
            for x in range(W):
                if not walk[z, x]:
                    continue
                for dx, dz in MOVES:
                    nx, nz = x + dx, z + dz
                    if not (0 <= nx < W and 0 <= nz < D) or not walk[nz, nx]:
                        continue
                    if dx and dz and not (walk[z, nx] and walk[nz, x]):
                        continue
                    rows.append(f * P + z * W + x)
                    cols.append(f * P + nz * W + nx)
                    vals.append((diag if dx and dz else card) * int(wt[nz, nx]))
    cs = grids[0].cell_size
    names = [fl["name"] for fl in obj["floors"]]
    ys = [fl.get("floorY", 0.0) for fl in obj["floors"]]
    best: dict[tuple[int, int], int] = {}
    for lk in obj.get("links", []):
        on = lk.get("enabled", True) if enabled is None else enabled.get(lk["name"], True)
        if not on:
            continue
        fa = names.index(lk["from"]["floor"])
        fb = names.index(lk["to"]["floor"])
        pa, pb = lk["from"]["point"], lk["to"]["point"]
        if "cost" in lk:
            c = lk["cost"]
        else:
            c = float(np.sqrt((pb[0] - pa[0]) ** 2 + (ys[fb] - ys[fa]) ** 2 + (pb[1] - pa[1]) ** 2))
        ci = max(1, int(round(c / cs * card)))
        ga = grids[fa]
        xa = int(np.floor((pa[0] - ga.min_x) / cs))
        za = int(np.floor((pa[1] - ga.min_z) / cs))
        xb = int(np.floor((pb[0] - ga.min_x) / cs))
        zb = int(np.floor((pb[1] - ga.min_z) / cs))
        a = fa * P + za * W + xa
        b = fb * P + zb * W + xb
        pairs = [(a, b)] + ([(b, a)] if lk.get("bidirectional", True) else [])
        for u, v in pairs:
            if u == v:
                continue
            best[(u, v)] = min(best.get((u, v), 1 << 62), ci)
    # a link parallel to a step: keep the cheaper edge
    edges: dict[tuple[int, int], int] = {}
    for u, v, c in zip(rows, cols, vals, strict=True):
        edges[(u, v)] = c
    for (u, v), c in best.items():
        edges[(u, v)] = min(edges.get((u, v), 1 << 62), c)
    n = F * P
    if not edges:
        return csr_matrix((n, n))
    keys = list(edges)
    return csr_matrix(([edges[k] for k in keys], ([k[0] for k in keys], [k[1] for k in keys])),
                      shape=(n, n))


def distances(graph: csr_matrix, source: int) -> np.ndarray:
    return dijkstra(graph, directed=True, indices=source)
