"""Long queries on a chunked world: an HPA*-style abstract graph over chunks
(docs/world-queries.md).

Per chunk border, *entrances* are the maximal runs of border cells walkable on
both sides; a run shorter than 6 cells gives one transition at its middle
(lower half for even lengths), a longer one transitions at both ends and
every ``spacing`` cells between them (:func:`border_transitions`). The
abstract nodes of a chunk are its transition cells; intra-chunk edges carry
the exact integer cost of the cheapest path inside the chunk; a transition
cell and its partner across the border are joined by one straight step.

* A **uniform walkable** chunk (``store.uniform_value``) is never loaded: the
  cost between two of its cells is the octile (4-connected: Manhattan)
  distance times its weight, and its borders with uniform walkable neighbours
  need no cells either. The layout (cells and cost matrix) is shared by every
  chunk with the same weight, size and transitions.
  Uniform values come from ``store.uniform_value`` (a tiled, bounded cache).
* A **uniform blocked** chunk has no entrances.
* A **mixed** chunk runs one Dijkstra per node (the local-search kernel).

The graph is one table of nodes in growable arrays (node id per transition
cell, CSR-style adjacency per node, see :mod:`navkit._kernels.world_graph`),
built lazily: the A* kernel stops at a node whose chunk is not built yet, the
chunk is built and the search resumes. Entries are keyed by the versions of
the chunk and its four neighbours and never keep chunk cells, so the store's
LRU may evict chunk data. The graph is bounded by ``cap_bytes``: when a query
starts with less room under it than the previous query added, the whole graph
is dropped and rebuilt on demand (same answers: tie-breaks use cell indices,
not node ids). Uniform walkable chunks whose neighbours are all uniform share
one relative layout per values (:meth:`Hierarchy._layout`).

A query joins start and goal to their chunks' nodes (forward and backward
Dijkstra in those chunks), runs the kernel (queue order: smallest ``f``, then
smallest ``h``, then the lower world linear index) in attempts: exact A*
first, then, each time an attempt spends ``attempt_expansions``, weighted A*
with the next of ``weights`` (bounded work, a route within that weight of the
abstract optimum), and refines the route leg
by leg: a windowed A* over the (at most ``refine_chunks``) chunks of
consecutive route nodes, with the query's obstacle circles, so a leg may cross
a border anywhere (diagonally too), never costing more than its abstract part.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernels import world_graph as _wg
from .._kernels import world_search as _ws
from ..errors import ConfigError
from .local import LocalSearch, free

__all__ = ["Hierarchy", "border_transitions", "DEFAULT_GRAPH_CAP_BYTES", "DEFAULT_WEIGHTS",
           "DEFAULT_ATTEMPT_EXPANSIONS"]

#: An expansion count no search reaches.
_NO_BUDGET = 1 << 62
#: The far-away goal of a Dijkstra that should cover its whole window.
_NOWHERE = -(1 << 40)
#: Default bound of the abstract graph's memory.
DEFAULT_GRAPH_CAP_BYTES = 16 << 20
#: Heuristic inflations of the abstract search's attempts (the first is exact A*).
DEFAULT_WEIGHTS = (1.0, 1.1, 1.2, 1.4, 2.0)
#: Expansions an attempt may make before the next (larger) weight takes over.
DEFAULT_ATTEMPT_EXPANSIONS = 32_768
#: Bytes per node beside the arrays (the cell -> node dict).
_DICT_BYTES = 110


def border_transitions(a: NDArray[np.bool_], b: NDArray[np.bool_], spacing: int = 16
                       ) -> list[int]:
    """Offsets of the transition cells along a border whose two sides'
    walkability is ``a`` and ``b`` (1-D, same length): a run shorter than 6
    gives its (lower) middle; a longer one its two ends and every ``spacing``
    cells from its start (0: ends only), none closer than ``spacing // 2`` to
    the far end.

    >>> border_transitions(np.ones(8, bool), np.ones(8, bool))
    [0, 7]
    >>> border_transitions(np.ones(64, bool), np.ones(64, bool))
    [0, 16, 32, 48, 63]
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
            out.append(i)
            if spacing > 0:
                k = i + spacing
                while k <= j - max(1, spacing // 2):
                    out.append(k)
                    k += spacing
            out.append(j)
        i = j + 1
    return out


class _Entry:
    """One chunk's part of the graph: node ids (ascending linear index of
    their cells), and for a mixed chunk what a node's lazy adjacency needs."""

    __slots__ = ("ids", "versions", "cells", "links", "pos", "box")

    def __init__(self, ids: NDArray[np.int64], versions: tuple[int, ...],
                 cells: NDArray[np.int64] | None = None,
                 links: list[list[tuple[int, int]]] | None = None,
                 box: tuple[int, int, int, int] = (0, 0, -1, -1)):
        self.ids = ids
        self.versions = versions
        self.cells = cells
        self.links = links
        self.box = box
        self.pos = {int(v): i for i, v in enumerate(ids.tolist())} if links is not None else {}


class Hierarchy:
    """The lazily built abstract graph of a store, and the long queries over it.

    ``cap_bytes``: the graph's memory bound; ``spacing``: transitions along a
    long entrance (:func:`border_transitions`); ``refine_chunks``: the most
    chunks one refinement window spans (1 = per chunk, as classic HPA*);
    ``weights`` / ``attempt_expansions``: the abstract search's attempts
    (:meth:`abstract_path`).
    """

    def __init__(self, store: Any, local: LocalSearch, card: int, diag: int, eight: bool,
                 hmul: int, max_entries: int = 1 << 20, max_expansions: int = 2_000_000,
                 cap_bytes: int = DEFAULT_GRAPH_CAP_BYTES, spacing: int = 0,
                 open_spacing: int = 32, refine_chunks: int = 2,
                 weights: tuple[float, ...] = DEFAULT_WEIGHTS,
                 attempt_expansions: int = DEFAULT_ATTEMPT_EXPANSIONS):
        self.store = store
        self.local = local
        self.card, self.diag, self.eight, self.hmul = int(card), int(diag), bool(eight), int(hmul)
        self.max_entries = int(max_entries)
        self.max_expansions = int(max_expansions)
        self.cap_bytes = int(cap_bytes)
        self._spacing = int(spacing)
        self._open_spacing = int(open_spacing)
        self.refine_chunks = int(refine_chunks)
        self.weights = weights
        self.attempt_expansions = int(attempt_expansions)
        self.last_weight = 1.0
        self.last_attempts = 0
        self.entries_built = 0
        self.entries_dropped = 0
        self.uniform_built = 0
        self.dijkstras = 0
        self._cgen = 0
        self._cg = self._ctag = self._cmark = self._hk = self._hs = np.zeros(0, dtype=np.int64)
        self.graph_resets = 0
        self._growth = 0  # bytes the last query added to the graph
        self.last_expanded = 0
        self.last_entries_built = 0
        # relative layouts of chunks whose neighbours are all uniform (_layout)
        self._tmpl: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self._full: dict[int, list[int]] = {}
        self._gen = 0
        self._prm = np.zeros(_wg.G_SIZE, dtype=np.int64)
        self._out = np.zeros(4, dtype=np.int64)
        self._state = np.zeros(2, dtype=np.int64)
        self._reset(1024, 8192)

    @property
    def weights(self) -> tuple[float, ...]:
        """Heuristic inflations of the abstract search's attempts, in order (each
        finite and >= 1; ``(1.0,)``: plain A*, see :meth:`abstract_path`)."""
        return self._weights

    @weights.setter
    def weights(self, v: Any) -> None:
        try:
            ws = tuple(float(w) for w in v)
        except (TypeError, ValueError):
            ws = ()
        if not ws or not all(math.isfinite(w) and w >= 1.0 for w in ws):
            raise ConfigError(f"expected weights >= 1, got {v!r}", field="weights")
        self._weights = ws

    @property
    def spacing(self) -> int:
        """Transition spacing on long entrances touching a mixed chunk (0: ends
        only). Setting it drops the graph (both sides of a border must agree)."""
        return self._spacing

    @spacing.setter
    def spacing(self, v: int) -> None:
        self._spacing = int(v)
        self._full.clear()
        self._tmpl.clear()
        self._reset(1024, 8192)

    @property
    def open_spacing(self) -> int:
        """Transition spacing between two uniform walkable chunks; setting it
        drops the graph."""
        return self._open_spacing

    @open_spacing.setter
    def open_spacing(self, v: int) -> None:
        self._open_spacing = int(v)
        self._full.clear()
        self._tmpl.clear()
        self._reset(1024, 8192)

    # -------------------------------------------------------------- table
    def _reset(self, cap: int, ecap: int) -> None:
        self._n = 2  # node 0: the query's start, node 1: its goal
        self._cap = cap
        self._nx = np.zeros(cap, dtype=np.int64)
        self._nz = np.zeros(cap, dtype=np.int64)
        self._nkey = np.zeros(cap, dtype=np.int64)
        self._ready = np.zeros(cap, dtype=np.uint8)
        self._adj = np.zeros((2, cap), dtype=np.int64)
        self._to_goal = np.full(cap, -1, dtype=np.int64)
        self._sbuf = np.zeros((7, cap), dtype=np.int64)
        self._ne = 0
        self._e_to = np.zeros(ecap, dtype=np.int64)
        self._e_cost = np.zeros(ecap, dtype=np.int64)
        self._id: dict[int, int] = {}
        self._entries: dict[tuple[int, int], _Entry] = {}
        self._sv = self.store.version
        self._ready[:2] = 1

    def _grow_nodes(self, need: int) -> None:
        cap = self._cap
        while cap < need:
            cap += cap // 2  # 1.5x: less slack (and a smaller copy) than doubling
        if cap == self._cap:
            return
        n = self._n

        def grow(a: NDArray[np.int64], fill: int = 0) -> NDArray[np.int64]:
            b = np.full(a.shape[:-1] + (cap,), fill, dtype=a.dtype)
            b[..., :n] = a[..., :n]
            return b

        self._nx, self._nz, self._nkey = grow(self._nx), grow(self._nz), grow(self._nkey)
        self._ready = grow(self._ready)  # type: ignore[arg-type, assignment]
        self._adj = grow(self._adj)
        self._to_goal = grow(self._to_goal, -1)
        sb = np.zeros((7, cap), dtype=np.int64)
        sb[:, :self._cap] = self._sbuf  # the heap rows may run past n: keep them all
        self._sbuf = sb
        self._cap = cap

    def _grow_edges(self, need: int) -> None:
        cap = len(self._e_to)
        if need <= cap:
            return
        while cap < need:
            cap += cap // 2
        for name in ("_e_to", "_e_cost"):
            a = getattr(self, name)
            b = np.zeros(cap, dtype=np.int64)
            b[:self._ne] = a[:self._ne]
            setattr(self, name, b)

    @property
    def graph_bytes(self) -> int:
        """Memory held by the graph (arrays and the cell -> node map), bytes."""
        arrays = (self._nx, self._nz, self._nkey, self._ready, self._adj, self._to_goal,
                  self._sbuf, self._e_to, self._e_cost)
        return int(sum(a.nbytes for a in arrays)) + _DICT_BYTES * len(self._id) \
            + 200 * len(self._entries)

    @property
    def cached_entries(self) -> int:
        return len(self._entries)

    @property
    def nodes(self) -> int:
        """Abstract nodes in the table (transition cells)."""
        return self._n - 2

    def _node(self, lin: int, x: int, z: int) -> int:
        """The id of the node at world cell ``(x, z)`` (linear index ``lin``), made if new."""
        i = self._id.get(lin)
        if i is None:
            i = self._n
            if i >= self._cap:
                self._grow_nodes(i + 1)
            self._n = i + 1
            self._nx[i] = x
            self._nz[i] = z
            self._nkey[i] = 4 * lin
            self._id[lin] = i
        return i

    # ------------------------------------------------------------- entries
    def _versions(self, cx: int, cz: int) -> tuple[int, ...]:
        st = self.store
        if st.version == 0:  # nothing edited yet: every chunk is at version 0
            return tuple(0 if 0 <= x < st.nx and 0 <= z < st.nz else -1 for x, z in
                         ((cx, cz), (cx + 1, cz), (cx - 1, cz), (cx, cz + 1), (cx, cz - 1)))
        out = []
        for x, z in ((cx, cz), (cx + 1, cz), (cx - 1, cz), (cx, cz + 1), (cx, cz - 1)):
            out.append(st.chunk_version(x, z) if 0 <= x < st.nx and 0 <= z < st.nz else -1)
        return tuple(out)

    def _sync(self) -> None:
        """Drop entries whose chunks (or neighbours) changed since they were
        built; drop the whole graph when it holds more than ``cap_bytes``."""
        st = self.store
        if self.graph_bytes + self._growth > self.cap_bytes \
                or len(self._entries) > self.max_entries:
            self.entries_dropped += len(self._entries)
            self.graph_resets += 1
            self._reset(1024, 8192)
            return
        if st.version == self._sv:
            return
        stale = [k for k, e in self._entries.items() if e.versions != self._versions(*k)]
        for k in stale:
            self._drop(k)
        self._sv = st.version

    def _drop(self, key: tuple[int, int]) -> bool:
        e = self._entries.pop(key, None)
        if e is None:
            return False
        self._ready[e.ids] = 0
        self.entries_dropped += 1
        return True

    def invalidate(self, chunks: list[tuple[int, int]]) -> int:
        """Drop the entries of ``chunks`` and of their four neighbours (their
        shared borders); returns how many were dropped."""
        n = 0
        for cx, cz in chunks:
            for k in ((cx, cz), (cx + 1, cz), (cx - 1, cz), (cx, cz + 1), (cx, cz - 1)):
                n += self._drop(k)
        return n

    def chunk_box(self, cx: int, cz: int) -> tuple[int, int, int, int]:
        st = self.store
        c = st.chunk
        return (cx * c, cz * c, min((cx + 1) * c, st.width) - 1, min((cz + 1) * c, st.depth) - 1)

    def entry(self, cx: int, cz: int) -> _Entry:
        """The (cached) entry of chunk ``(cx, cz)``: its node ids, ascending
        linear index of their cells."""
        e = self._entries.get((cx, cz))
        if e is None:
            e = self._build(cx, cz)
        return e

    def _full_offsets(self, n: int) -> list[int]:
        o = self._full.get(n)
        if o is None:
            o = self._full[n] = border_transitions(np.ones(n, bool), np.ones(n, bool),
                                                   self.open_spacing)
        return o

    def _uniform(self, cx: int, cz: int) -> int | None:
        """``store.uniform_value`` (its tiled cache of uniform values), 0 outside the world."""
        st = self.store
        if not (0 <= cx < st.nx and 0 <= cz < st.nz):
            return 0
        return st.uniform_value(cx, cz)

    def _line(self, cx: int, cz: int, u: int | None, side: int, n: int) -> NDArray[np.int64]:
        """The first ``n`` cell values along one border of chunk ``(cx, cz)``
        (side 0: east column, 1: west, 2: south row, 3: north); ``u`` its uniform value."""
        if u is not None:
            return np.full(n, u, dtype=np.int64)
        a = self.store.get(cx, cz)
        c = self.store.chunk
        if side == 0:
            v = a[:n, c - 1]
        elif side == 1:
            v = a[:n, 0]
        elif side == 2:
            v = a[c - 1, :n]
        else:
            v = a[0, :n]
        return v.astype(np.int64)

    def _layout(self, cx: int, cz: int, u: int | None) -> tuple[Any, ...]:
        """The layout of chunk ``(cx, cz)`` (uniform value ``u``) relative to its
        corner: node cells ``(k, 2)`` (ascending linear index), partner cells
        ``(m, 2)`` across the borders, each link's node index and step cost
        ``(m,)`` (links grouped by node; sides east, west, south, north, offsets
        ascending), and for a walkable uniform chunk its edges in CSR order:
        ``dst`` ``(e,)`` indexes ``[nodes, partners]``, ``cost`` ``(e,)``,
        ``counts`` ``(k,)`` per node (else None). Cached when every neighbour
        is uniform too: then the layout depends on the values alone."""
        st = self.store
        c = st.chunk
        x0, z0, x1, z1 = self.chunk_box(cx, cz)
        sides = []  # (neighbour, my side, axis: 0 = the border runs along z, sign)
        if x1 + 1 < st.width and x1 == (cx + 1) * c - 1:
            sides.append(((cx + 1, cz), 0, 0, 1))
        if x0 > 0:
            sides.append(((cx - 1, cz), 1, 0, -1))
        if z1 + 1 < st.depth and z1 == (cz + 1) * c - 1:
            sides.append(((cx, cz + 1), 2, 1, 1))
        if z0 > 0:
            sides.append(((cx, cz - 1), 3, 1, -1))
        nus = [self._uniform(ncx, ncz) for (ncx, ncz), _, _, _ in sides]
        key: tuple[Any, ...] | None = None
        if u is not None and all(v is not None for v in nus):
            key = (u, x1 - x0, z1 - z0,
                   tuple((sd[1], v) for sd, v in zip(sides, nus, strict=True)))
            hit = self._tmpl.get(key)
            if hit is not None:
                return hit
        parts: list[tuple[NDArray[np.int64], ...]] = []
        for ((ncx, ncz), side, axis, sign), nu in zip(sides, nus, strict=True):
            if nu == 0 or u == 0:
                continue
            n = (z1 - z0 + 1) if axis == 0 else (x1 - x0 + 1)
            if u is not None and nu is not None:
                offs = np.array(self._full_offsets(n), dtype=np.int64)
                w = np.full(len(offs), nu, dtype=np.int64)
            else:
                mine = self._line(cx, cz, u, side, n)
                theirs = self._line(ncx, ncz, nu, side ^ 1, n)
                offs = np.array(border_transitions(mine != 0, theirs != 0, self.spacing),
                                dtype=np.int64)
                w = theirs[offs]
            if axis == 0:
                ox = np.full(len(offs), x1 - x0 if sign > 0 else 0, dtype=np.int64)
                parts.append((ox, offs, ox + sign, offs, self.card * w))
            else:
                oz = np.full(len(offs), z1 - z0 if sign > 0 else 0, dtype=np.int64)
                parts.append((offs, oz, offs, oz + sign, self.card * w))
        if parts:
            lx, lz, px, pz, lw = (np.concatenate(col) for col in zip(*parts, strict=True))
        else:
            lx = lz = px = pz = lw = np.zeros(0, dtype=np.int64)
        uniq, first, inv = np.unique(lz * (c + 2) + lx, return_index=True, return_inverse=True)
        k = len(uniq)
        nodes = np.stack([lx[first], lz[first]], axis=1).reshape(k, 2)
        order = np.argsort(inv, kind="stable")  # links grouped by node, sides kept in order
        src_l = inv[order].astype(np.int64)
        part = np.stack([px[order], pz[order]], axis=1).reshape(-1, 2)
        lw = lw[order]
        dst = cost = counts = None
        if u is not None and u != 0 and k:
            costs = self._uniform_costs(int(u), nodes)
            rows, cols = np.nonzero(costs > 0)
            src = np.concatenate([rows, src_l]).astype(np.int64)
            dsti = np.concatenate([cols, k + np.arange(len(src_l))]).astype(np.int64)
            cst = np.concatenate([costs[rows, cols], lw]).astype(np.int64)
            eo = np.argsort(src, kind="stable")
            dst, cost = dsti[eo], cst[eo]
            counts = np.bincount(src, minlength=k).astype(np.int64)
        out = (nodes, part, src_l, lw, dst, cost, counts)
        if key is not None and len(self._tmpl) < 4096:
            self._tmpl[key] = out
        return out

    def _build(self, cx: int, cz: int) -> _Entry:
        st = self.store
        W = st.width
        x0, z0, x1, z1 = self.chunk_box(cx, cz)
        vers = self._versions(cx, cz)
        u = self._uniform(cx, cz)
        nodes_r, part_r, src_l, lw, dst, cost, counts = self._layout(cx, cz, u)
        k = len(nodes_r)
        node = self._node
        nxs = (nodes_r[:, 0] + x0).tolist()
        nzs = (nodes_r[:, 1] + z0).tolist()
        pxs = (part_r[:, 0] + x0).tolist()
        pzs = (part_r[:, 1] + z0).tolist()
        ids = np.array([node(z * W + x, x, z) for x, z in zip(nxs, nzs, strict=True)],
                       dtype=np.int64)
        pids = np.array([node(z * W + x, x, z) for x, z in zip(pxs, pzs, strict=True)],
                        dtype=np.int64)
        self.entries_built += 1
        self.last_entries_built += 1
        if u is None and k:  # mixed: each node's edges on its first expansion
            per: list[list[tuple[int, int]]] = [[] for _ in range(k)]
            for i, pid, w in zip(src_l.tolist(), pids.tolist(), lw.tolist(), strict=True):
                per[i].append((pid, w))
            nodes = nodes_r + np.array([x0, z0], dtype=np.int64)
            e = _Entry(ids, vers, nodes, per, (x0, z0, x1, z1))
            self._entries[(cx, cz)] = e
            return e
        if k and dst is not None:
            self.uniform_built += 1
            m = len(dst)
            self._grow_edges(self._ne + m)
            self._e_to[self._ne:self._ne + m] = np.concatenate([ids, pids])[dst]
            self._e_cost[self._ne:self._ne + m] = cost
            starts = self._ne + np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
            self._ne += m
            self._adj[0, ids] = starts
            self._adj[1, ids] = counts
            self._ready[ids] = 1
        e = _Entry(ids, vers)
        self._entries[(cx, cz)] = e
        return e

    def _expand_mixed(self, e: _Entry, p: int) -> None:
        """Node ``p`` of mixed chunk entry ``e``: one Dijkstra inside the chunk
        to its other nodes, then its adjacency (those costs and its links)."""
        assert e.cells is not None and e.links is not None
        i = e.pos[p]
        st = self.store
        c = st.chunk
        cells = st.get(e.box[0] // c, e.box[1] // c)
        if self._cg.size < c * c:
            n = c * c
            self._cg = np.zeros(n, dtype=np.int64)
            self._ctag = np.zeros(n, dtype=np.int64)
            self._cmark = np.zeros(n, dtype=np.int64)
            self._hk = np.zeros(8 * n + 1, dtype=np.int64)
            self._hs = np.zeros(8 * n + 1, dtype=np.int64)
        self._cgen += 1
        local = np.ascontiguousarray(e.cells - np.array([e.box[0], e.box[1]], dtype=np.int64))
        costs = np.empty(len(local), dtype=np.int64)
        _wg.chunk_row(cells, local, i, self.eight, self.card, self.diag, self._cgen, self._cg,
                      self._ctag, self._cmark, self._hk, self._hs, costs)
        self.dijkstras += 1
        keep = costs > 0
        to = np.concatenate([e.ids[keep], np.array([t for t, _ in e.links[i]], np.int64)])
        cst = np.concatenate([costs[keep], np.array([w for _, w in e.links[i]], np.int64)])
        m = len(to)
        self._grow_edges(self._ne + m)
        self._e_to[self._ne:self._ne + m] = to
        self._e_cost[self._ne:self._ne + m] = cst
        self._adj[0, p] = self._ne
        self._adj[1, p] = m
        self._ne += m
        self._ready[p] = 1

    def _uniform_costs(self, u: int, rel: NDArray[np.int64]) -> NDArray[np.int64]:
        """Octile (or Manhattan) distance times ``u`` between every two node
        cells ``rel`` (relative to the chunk corner)."""
        dx = np.abs(rel[:, None, 0] - rel[None, :, 0])
        dz = np.abs(rel[:, None, 1] - rel[None, :, 1])
        if self.eight:
            lo, hi = np.minimum(dx, dz), np.maximum(dx, dz)
            d = self.card * hi + (self.diag - self.card) * lo
        else:
            d = self.card * (dx + dz)
        return (d * u).astype(np.int64)

    # --------------------------------------------------------------- query
    def abstract_path(self, s: tuple[int, int], g: tuple[int, int]
                      ) -> tuple[list[tuple[int, int]], int] | None:
        """The abstract route ``[s, n1, ..., g]`` (world cells) and its cost, or None.

        Searches with the heuristic inflated by ``weights[0]``, ``weights[1]``, ...
        in turn: every attempt but the last stops after ``attempt_expansions``
        expansions, and the next one starts over with the next weight (weighted
        A*: a route found with weight ``w`` costs at most ``w`` times the abstract
        optimum). Between attempts the graph is kept, or dropped under the same
        rule as between queries. ``last_weight`` is the weight that answered,
        ``last_expanded`` the expansions of all attempts."""
        self.last_entries_built = 0
        self.last_attempts = 0
        total = 0
        res: tuple[list[tuple[int, int]], int] | None = None
        weights = self.weights  # validated, a tuple
        for k, w in enumerate(weights):
            last = k == len(weights) - 1
            budget = self.max_expansions if last else min(self.attempt_expansions,
                                                          self.max_expansions)
            self._sync()
            before = self.graph_bytes
            try:
                res, status = self._abstract_path(s, g, w, budget)
            finally:
                self._growth = max(0, self.graph_bytes - before)
            total += self.last_expanded
            self.last_attempts += 1
            self.last_weight = w
            if status != _wg.BUDGET_EXHAUSTED:
                break
        self.last_expanded = total
        return res

    def _abstract_path(self, s: tuple[int, int], g: tuple[int, int], weight: float,
                       budget: int) -> tuple[tuple[list[tuple[int, int]], int] | None, int]:
        st = self.store
        c = st.chunk
        W = st.width
        sc = (s[0] // c, s[1] // c)
        gc = (g[0] // c, g[1] // c)
        loc = self.local
        es = self.entry(*sc)
        s_nodes = np.stack([self._nx[es.ids], self._nz[es.ids]], axis=1)
        tgt = s_nodes if sc != gc else np.concatenate([s_nodes, np.array([g], np.int64)])
        loc.run(s, (_NOWHERE, _NOWHERE), s, self.chunk_box(*sc), _NO_BUDGET, None, hmul=0,
                want_path=False, targets=tgt if len(tgt) else None)
        from_s = loc.costs_at(s_nodes) if len(s_nodes) else np.zeros(0, np.int64)
        direct = int(loc.costs_at(np.array([g], dtype=np.int64))[0]) if sc == gc else -1
        eg = self.entry(*gc)
        g_nodes = np.stack([self._nx[eg.ids], self._nz[eg.ids]], axis=1)
        loc.run(g, (_NOWHERE, _NOWHERE), g, self.chunk_box(*gc), _NO_BUDGET, None, hmul=0,
                reverse=True, want_path=False, targets=g_nodes if len(g_nodes) else None)
        to_g = loc.costs_at(g_nodes) if len(g_nodes) else np.zeros(0, np.int64)
        keep = from_s >= 0
        s_to = es.ids[keep]
        s_cost = from_s[keep]
        if direct >= 0:
            s_to = np.append(s_to, 1)
            s_cost = np.append(s_cost, direct)
        s_to = np.ascontiguousarray(s_to, dtype=np.int64)
        s_cost = np.ascontiguousarray(s_cost, dtype=np.int64)
        gids = eg.ids[to_g >= 0]
        self._to_goal[gids] = to_g[to_g >= 0]
        self._nx[0], self._nz[0], self._nkey[0] = s[0], s[1], 4 * (s[1] * W + s[0]) + 2
        self._nx[1], self._nz[1], self._nkey[1] = g[0], g[1], 4 * (g[1] * W + g[0]) + 1
        self._gen += 1
        if self._gen > (1 << 60):
            self._sbuf[2] = 0
            self._gen = 1
        prm = self._prm
        prm[:] = (g[0], g[1], self.card, self.diag, self.eight,
                  self.hmul * int(round(weight * (1 << _wg.H_SHIFT))), self._gen, budget)
        state = self._state
        state[:] = 0
        out = self._out
        try:
            while True:
                status = _wg.graph_astar(self._nx, self._nz, self._nkey, self._ready, self._adj,
                                         self._e_to, self._e_cost, self._to_goal, s_to, s_cost,
                                         prm, self._sbuf, state, out)
                if status != _wg.NEED:
                    break
                p = int(out[_wg.O_NODE])
                key = (int(self._nx[p]) // c, int(self._nz[p]) // c)
                e = self._entries.get(key)
                if e is None:
                    e = self._build(*key)
                if self._ready[p] == 0 and p in e.pos:
                    self._expand_mixed(e, p)
                if self._ready[p] == 0:  # no longer a transition of its chunk
                    self._adj[:, p] = 0
                    self._ready[p] = 1
        finally:
            self._to_goal[gids] = -1
        self.last_expanded = int(out[_wg.O_EXPANDED])
        if status != _wg.FOUND:
            return None, status
        route = []
        parent = self._sbuf[1]
        n = 1
        while True:
            route.append((int(self._nx[n]), int(self._nz[n])))
            if n == 0:
                break
            n = int(parent[n])
        route.reverse()
        return (route, int(out[_wg.O_COST])), status

    # ---------------------------------------------------------- refinement
    def _span_ok(self, cx0: int, cz0: int, cx1: int, cz1: int) -> bool:
        return (cx1 - cx0 + 1) * (cz1 - cz0 + 1) <= self.refine_chunks

    def refine(self, route: list[tuple[int, int]], circles: NDArray[np.float64] | None
               ) -> tuple[NDArray[np.int32], int] | None:
        """Cells and exact cost of an abstract route. Each leg is a windowed A*
        over the chunks of consecutive route nodes (at most ``refine_chunks``),
        or one straight step across a border; route nodes under a circle are
        skipped, and a leg a circle blocks is retried in the 3 x 3 chunks
        around it. None when a leg fails."""
        st = self.store
        c = st.chunk
        parts: list[NDArray[np.int32]] = []
        total = 0
        i = 0
        n = len(route)
        while i < n - 1:
            a = route[i]
            cx0 = cx1 = a[0] // c
            cz0 = cz1 = a[1] // c
            j = i
            while j < n - 1:
                b = route[j + 1]
                bx, bz = b[0] // c, b[1] // c
                nx0, nz0 = min(cx0, bx), min(cz0, bz)
                nx1, nz1 = max(cx1, bx), max(cz1, bz)
                if j > i and not self._span_ok(nx0, nz0, nx1, nz1):
                    break
                cx0, cz0, cx1, cz1 = nx0, nz0, nx1, nz1
                j += 1
            grow = False
            while j < n - 1 and not free(st, circles, *route[j]):  # a node under a circle
                j += 1
                grow = True
            b = route[j]
            ca, cb = (a[0] // c, a[1] // c), (b[0] // c, b[1] // c)
            if j == i + 1 and ca != cb and abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1:
                cells = np.array([a, b], dtype=np.int32)
                cost = self.card * st.cell(b[0], b[1])
            else:
                box = (cx0 * c, cz0 * c, min(st.width, (cx1 + 1) * c) - 1,
                       min(st.depth, (cz1 + 1) * c) - 1)
                leg = None if grow else self._leg(a, b, box, circles)
                if leg is None:
                    leg = self._leg(a, b, self._grown(a, b), circles)
                if leg is None:
                    return None
                cells, cost = leg
            parts.append(cells if not parts else cells[1:])
            total += cost
            i = j
        if not parts:
            return np.array([route[0]], dtype=np.int32), 0
        return np.concatenate(parts), total

    def _grown(self, a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int, int, int]:
        st = self.store
        c = st.chunk
        return (max(0, (min(a[0], b[0]) // c - 1) * c), max(0, (min(a[1], b[1]) // c - 1) * c),
                min(st.width, (max(a[0], b[0]) // c + 2) * c) - 1,
                min(st.depth, (max(a[1], b[1]) // c + 2) * c) - 1)

    def _leg(self, a: tuple[int, int], b: tuple[int, int], box: tuple[int, int, int, int],
             circles: NDArray[np.float64] | None) -> tuple[NDArray[np.int32], int] | None:
        raw = self.local.run(a, b, b, box, _NO_BUDGET, circles)
        if raw.status != _ws.FOUND or raw.cells is None:
            return None
        return raw.cells, raw.cost
