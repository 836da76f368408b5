"""Long queries on a chunked world: an HPA*-style abstract graph over chunks
(docs/world-queries.md).

Per chunk, *entrances* are the maximal runs of border cells walkable on both
sides of a chunk border; a run shorter than 6 cells gives one transition at
its middle (lower half for even lengths), a longer one two, at its ends
(Botea et al.'s HPA*). The abstract nodes of a chunk are its transition
cells; intra-chunk edges carry the exact integer cost of the cheapest path
inside the chunk (one Dijkstra per node, with the same kernel the local
queries use); a transition cell and its partner across the border are joined
by one straight step. Entries are built on first use of a chunk and cached as
small arrays (never chunk cells), keyed by the versions of the chunk and its
four neighbours, so the store's LRU may evict the chunk data. A query connects
start and goal to their chunk's nodes, runs A* over the graph (queue order:
smallest ``f``, then smallest ``h``, then the lower world linear index) and
refines each abstract edge with a windowed search inside one chunk (with the
query's obstacle circles).
"""

from __future__ import annotations

import heapq
from collections import OrderedDict
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import world_search as _ws
from .local import LocalSearch, free

__all__ = ["ChunkEntry", "Hierarchy", "border_transitions"]

#: An expansion count no search reaches.
_NO_BUDGET = 1 << 62
#: The far-away goal of a Dijkstra that should cover its whole window.
_NOWHERE = -(1 << 40)


def border_transitions(a: NDArray[np.bool_], b: NDArray[np.bool_]) -> list[int]:
    """Offsets of the transition cells along a border whose two sides'
    walkability is ``a`` and ``b`` (1-D, same length).

    >>> border_transitions(np.ones(8, bool), np.ones(8, bool))
    [0, 7]
    >>> border_transitions(np.array([1, 1, 1, 0], bool), np.ones(4, bool))
    [1]
    """
    both = np.asarray(a, bool) & np.asarray(b, bool)
    out: list[int] = []
    n = len(both)
    i = 0
    while i < n:
        if not both[i]:
            i += 1
            continue
        j = i
        while j + 1 < n and both[j + 1]:
            j += 1
        length = j - i + 1
        if length < 6:
            out.append(i + (length - 1) // 2)
        else:
            out.extend((i, j))
        i = j + 1
    return out


class ChunkEntry:
    """One chunk's part of the abstract graph (small arrays only).

    ``nodes`` (k, 2) int64 world cells sorted by linear index; ``costs`` (k, k)
    int64 exact in-chunk costs ``i -> j`` (-1: not connected inside the chunk);
    ``links`` (m, 3) int64 rows ``(i, partner_x, partner_z)``; ``versions``.
    """

    __slots__ = ("nodes", "costs", "links", "versions", "index", "adj", "store_version")

    def __init__(self, nodes: NDArray[np.int64], costs: NDArray[np.int64],
                 links: NDArray[np.int64], versions: tuple[int, ...]):
        self.nodes = nodes
        self.costs = costs
        self.links = links
        self.versions = versions
        self.index = {(int(x), int(z)): i for i, (x, z) in enumerate(nodes.tolist())}
        #: Per node: in-chunk successors ``(x, z, cost)`` and partners ``(x, z)``.
        nl = nodes.tolist()
        self.adj: list[tuple[list[tuple[int, int, int]], list[tuple[int, int]]]] = []
        for i in range(len(nl)):
            row = costs[i].tolist()
            intra = [(nl[j][0], nl[j][1], row[j]) for j in range(len(nl)) if row[j] > 0]
            self.adj.append((intra, []))
        for i, px, pz in links.tolist():
            self.adj[i][1].append((px, pz))
        self.store_version = -1


class Hierarchy:
    """The lazily built abstract graph of a store, and the long queries over it."""

    def __init__(self, store: Any, local: LocalSearch, card: int, diag: int, eight: bool,
                 hmul: int, max_entries: int = 1 << 16, max_expansions: int = 2_000_000):
        self.store = store
        self.local = local
        self.card, self.diag, self.eight, self.hmul = card, diag, eight, hmul
        self.max_entries = max_entries
        self.max_expansions = max_expansions
        self._entries: OrderedDict[tuple[int, int], ChunkEntry] = OrderedDict()
        self.entries_built = 0
        self.entries_dropped = 0
        self.last_expanded = 0

    # ------------------------------------------------------------- entries
    def _versions(self, cx: int, cz: int) -> tuple[int, ...]:
        st = self.store
        out = []
        for x, z in ((cx, cz), (cx + 1, cz), (cx - 1, cz), (cx, cz + 1), (cx, cz - 1)):
            out.append(st.chunk_version(x, z) if 0 <= x < st.nx and 0 <= z < st.nz else -1)
        return tuple(out)

    def entry(self, cx: int, cz: int) -> ChunkEntry:
        """The (cached) entry of chunk ``(cx, cz)``."""
        key = (cx, cz)
        e = self._entries.get(key)
        sv = self.store.version
        if e is not None and e.store_version == sv:
            return e
        vers = self._versions(cx, cz)
        if e is not None:
            if e.versions == vers:
                e.store_version = sv
                self._entries.move_to_end(key)
                return e
            del self._entries[key]
            self.entries_dropped += 1
        e = self._build(cx, cz, vers)
        e.store_version = sv
        self._entries[key] = e
        self.entries_built += 1
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
            self.entries_dropped += 1
        return e

    def invalidate(self, chunks: list[tuple[int, int]]) -> int:
        """Drop the entries of ``chunks`` and of their four neighbours (their
        shared borders); returns how many were dropped."""
        n = 0
        for cx, cz in chunks:
            for k in ((cx, cz), (cx + 1, cz), (cx - 1, cz), (cx, cz + 1), (cx, cz - 1)):
                if self._entries.pop(k, None) is not None:
                    n += 1
        self.entries_dropped += n
        return n

    @property
    def cached_entries(self) -> int:
        return len(self._entries)

    def chunk_box(self, cx: int, cz: int) -> tuple[int, int, int, int]:
        st = self.store
        c = st.chunk
        return (cx * c, cz * c, min((cx + 1) * c, st.width) - 1, min((cz + 1) * c, st.depth) - 1)

    def _build(self, cx: int, cz: int, vers: tuple[int, ...]) -> ChunkEntry:
        st = self.store
        x0, z0, x1, z1 = self.chunk_box(cx, cz)
        own: dict[tuple[int, int], list[tuple[int, int]]] = {}

        def add(cell: tuple[int, int], partner: tuple[int, int]) -> None:
            own.setdefault(cell, []).append(partner)

        if x1 + 1 < st.width and x1 == (cx + 1) * st.chunk - 1:  # east border
            strip = st.region(x1, z0, x1 + 1, z1) != 0
            for o in border_transitions(strip[:, 0], strip[:, 1]):
                add((x1, z0 + o), (x1 + 1, z0 + o))
        if x0 > 0:  # west
            strip = st.region(x0 - 1, z0, x0, z1) != 0
            for o in border_transitions(strip[:, 0], strip[:, 1]):
                add((x0, z0 + o), (x0 - 1, z0 + o))
        if z1 + 1 < st.depth and z1 == (cz + 1) * st.chunk - 1:  # south
            strip = st.region(x0, z1, x1, z1 + 1) != 0
            for o in border_transitions(strip[0], strip[1]):
                add((x0 + o, z1), (x0 + o, z1 + 1))
        if z0 > 0:  # north
            strip = st.region(x0, z0 - 1, x1, z0) != 0
            for o in border_transitions(strip[0], strip[1]):
                add((x0 + o, z0), (x0 + o, z0 - 1))
        cells = sorted(own, key=lambda c: (c[1], c[0]))
        k = len(cells)
        nodes = np.array(cells, dtype=np.int64).reshape(k, 2)
        links = np.array([(i, px, pz) for i, c in enumerate(cells) for (px, pz) in own[c]],
                         dtype=np.int64).reshape(-1, 3)
        costs = np.full((k, k), -1, dtype=np.int64)
        box = (x0, z0, x1, z1)
        for i, c in enumerate(cells):
            self.local.run(c, (_NOWHERE, _NOWHERE), c, box, _NO_BUDGET, None, hmul=0,
                           want_path=False, targets=nodes)
            costs[i] = self.local.costs_at(nodes)
        return ChunkEntry(nodes, costs, links, vers)

    # --------------------------------------------------------------- query
    def _h(self, x: int, z: int, gx: int, gz: int) -> int:
        dx, dz = abs(x - gx), abs(z - gz)
        if not self.eight:
            return self.card * (dx + dz) * self.hmul
        lo, hi = (dx, dz) if dx < dz else (dz, dx)
        return (self.card * hi + (self.diag - self.card) * lo) * self.hmul

    def abstract_path(self, s: tuple[int, int], g: tuple[int, int]
                      ) -> tuple[list[tuple[int, int]], int] | None:
        """The abstract route ``[s, n1, ..., g]`` (world cells) and its cost, or None."""
        st = self.store
        c = st.chunk
        W = st.width
        sc = (s[0] // c, s[1] // c)
        gc = (g[0] // c, g[1] // c)
        loc = self.local
        # start edges (forward Dijkstra in the start chunk)
        es = self.entry(*sc)
        tgt = es.nodes if sc != gc else np.concatenate([es.nodes, np.array([g], np.int64)])
        loc.run(s, (_NOWHERE, _NOWHERE), s, self.chunk_box(*sc), _NO_BUDGET, None, hmul=0,
                want_path=False, targets=tgt)
        from_s = loc.costs_at(es.nodes) if len(es.nodes) else np.zeros(0, np.int64)
        direct = -1
        if sc == gc:
            direct = int(loc.costs_at(np.array([g], dtype=np.int64))[0])
        # goal edges (backward Dijkstra in the goal chunk: costs *to* the goal)
        eg = self.entry(*gc)
        loc.run(g, (_NOWHERE, _NOWHERE), g, self.chunk_box(*gc), _NO_BUDGET, None, hmul=0,
                reverse=True, want_path=False, targets=eg.nodes)
        to_g = loc.costs_at(eg.nodes) if len(eg.nodes) else np.zeros(0, np.int64)
        to_g_map = {(int(x), int(z)): int(v)
                    for (x, z), v in zip(eg.nodes.tolist(), to_g, strict=True) if v >= 0}
        # A* over cells; keys (f, h, linear index, kind) with kind 0 = node, 1 = goal
        gx, gz = g
        best: dict[tuple[int, int, int], int] = {}
        parent: dict[tuple[int, int, int], tuple[int, int, int] | None] = {}
        heap: list[tuple[int, int, int, int, int, int]] = []
        S = (s[0], s[1], 2)
        G = (g[0], g[1], 1)
        best[S] = 0
        parent[S] = None

        def push(node: tuple[int, int, int], cost: int, par: tuple[int, int, int]) -> None:
            if cost < best.get(node, _NO_BUDGET):
                best[node] = cost
                parent[node] = par
                h = self._h(node[0], node[1], gx, gz)
                heapq.heappush(heap, (cost + h, h, node[1] * W + node[0], node[2], node[0],
                                      node[1]))

        for (x, z), v in zip(es.nodes.tolist(), from_s.tolist(), strict=True):
            if v >= 0:
                push((x, z, 0), v, S)
        if direct >= 0:
            push(G, direct, S)
        closed: set[tuple[int, int, int]] = set()
        expanded = 0
        found = False
        while heap and expanded < self.max_expansions:
            f, h, _, kind, x, z = heapq.heappop(heap)
            node = (x, z, kind)
            gcost = f - h
            if node in closed or gcost != best[node]:
                continue
            closed.add(node)
            expanded += 1
            if kind == 1:
                found = True
                break
            cc = (x // c, z // c)
            e = self.entry(*cc)
            intra, partners = e.adj[e.index[(x, z)]]
            for nx_, nz_, v in intra:
                push((nx_, nz_, 0), gcost + v, node)
            for px, pz in partners:
                push((px, pz, 0), gcost + self.card * st.cell(px, pz), node)
            if cc == gc:
                v = to_g_map.get((x, z))
                if v is not None:
                    push(G, gcost + v, node)
        self.last_expanded = expanded
        if not found:
            return None
        route = []
        n: tuple[int, int, int] | None = G
        while n is not None:
            route.append((n[0], n[1]))
            n = parent[n]
        route.reverse()
        return route, best[G]

    def refine(self, route: list[tuple[int, int]], circles: NDArray[np.float64] | None
               ) -> tuple[NDArray[np.int32], int] | None:
        """Cells and exact cost of an abstract route, each leg a windowed search
        in one chunk (or one straight step across a border); a leg blocked by a
        circle is retried in the 3 x 3 chunks around it. None when a leg fails."""
        st = self.store
        c = st.chunk
        parts: list[NDArray[np.int32]] = []
        total = 0
        i = 0
        n = len(route)
        while i < n - 1:
            a = route[i]
            j = i + 1
            while j < n - 1 and not free(st, circles, *route[j]):  # a node under a circle
                j += 1
            b = route[j]
            ca, cb = (a[0] // c, a[1] // c), (b[0] // c, b[1] // c)
            if j == i + 1 and ca != cb and abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1:
                cells = np.array([a, b], dtype=np.int32)
                cost = self.card * st.cell(b[0], b[1])
            else:
                leg = self._leg(a, b, ca, circles, grow=j > i + 1 or ca != cb)
                if leg is None:
                    leg = self._leg(a, b, ca, circles, grow=True)
                if leg is None:
                    return None
                cells, cost = leg
            parts.append(cells if not parts else cells[1:])
            total += cost
            i = j
        if not parts:
            return np.array([route[0]], dtype=np.int32), 0
        return np.concatenate(parts), total

    def _leg(self, a: tuple[int, int], b: tuple[int, int], ca: tuple[int, int],
             circles: NDArray[np.float64] | None, grow: bool
             ) -> tuple[NDArray[np.int32], int] | None:
        st = self.store
        c = st.chunk
        if grow:
            box = (max(0, (min(a[0], b[0]) // c - 1) * c), max(0, (min(a[1], b[1]) // c - 1) * c),
                   min(st.width, (max(a[0], b[0]) // c + 2) * c) - 1,
                   min(st.depth, (max(a[1], b[1]) // c + 2) * c) - 1)
        else:
            box = self.chunk_box(*ca)
        raw = self.local.run(a, b, b, box, _NO_BUDGET, circles)
        if raw.status != _ws.FOUND or raw.cells is None:
            return None
        return raw.cells, raw.cost
