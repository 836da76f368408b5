"""Argument layouts of the kernels, each defined and documented once.

Kernels take their arrays grouped in tuples. Each group's layout is a
:class:`typing.NamedTuple` below: the Python layer builds the group through
it (by field name) and passes it on as a plain tuple, and the kernel opens
it through the same class (``grid = GridArgs(*grid_t)``) and reads fields by
name. A plain tuple is what crosses the call: numba dispatches a plain tuple
of arrays in a fraction of a microsecond but types a named tuple in Python,
twice as slowly (measured: 0.38 vs 0.91 us for five fields), and queries
are a few microseconds in all. Inside the kernel the named view costs
nothing.

Units: lengths in metres, costs in the cost model's integers; "padded"
arrays have one blocked cell of border on every side, so node
``(z + 1) * wp + x + 1`` is cell ``(x, z)`` (see
:class:`navkit.query.padded.PaddedGrid`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "GridArgs", "OverlayArgs", "ModelArgs", "LimitArgs", "WorkspaceArgs", "RingArgs",
    "BitsArgs", "JpsModelArgs", "JpsWorkspaceArgs", "JpsContext", "JpsOutArgs",
    "WorldArgs", "JpsArrays", "AStarArrays", "GeoInts", "GeoFloats", "WorldState", "WorldOut",
    "CellGeometry", "FlowGridArgs", "FlowModelArgs", "BucketPoolArgs", "SeedArgs", "HeapArgs",
    "HpaGridArgs", "ClusterGeometry", "AbstractGraphArgs", "ClusterSearchArgs",
    "AbstractSearchArgs",
]


# ------------------------------------------------------------------ searches
# (navkit._kernels.search: A*, Dijkstra, distance fields)
class GridArgs(NamedTuple):
    """The padded grid a search reads."""

    #: uint8 (n,): nonzero = passable (static walkability AND no occupant).
    cells: Any
    #: int32 (n,): terrain weight of each node, padded with 1; (1,) when not ``weighted``.
    weights: Any
    #: int64: padded row length (``width + 2``).
    wp: Any
    #: bool: whether ``weights`` is read.
    weighted: Any
    #: int64: bits of a node index; queue keys pack ``(h << nbits) | node``
    #: (the caller checks that the largest ``h`` fits).
    nbits: Any


class OverlayArgs(NamedTuple):
    """A query's dynamic obstacles: nodes with ``marks[i] == mark`` are blocked."""

    #: int32 (n,): the overlay marks.
    marks: Any
    #: int32: this query's mark; ``<= 0`` disables the overlay.
    mark: Any


class ModelArgs(NamedTuple):
    """Step costs and the heuristic."""

    #: int64: cost of a straight step.
    card: Any
    #: int64: cost of a diagonal step.
    diag: Any
    #: bool: 8-connected (with the corner rule) or 4-connected.
    eight: Any
    #: int64: heuristic multiplier, the smallest terrain weight for A*, 0 for Dijkstra.
    hmul: Any
    #: int64: diagonal mode (docs/rules.md §3.9): 0 both side cells free (the
    #: corner rule), 1 at least one, 2 none needed. Read by the heap, the
    #: general kernels and distance fields; the level queue reads move masks.
    dmode: Any = np.int64(0)
    #: int64: heuristic kind: 0 octile, 1 manhattan, 2 chebyshev, 3 euclidean
    #: (the level queue supports 0 only, with ``hw`` 1024).
    hkind: Any = np.int64(0)
    #: int64: greedy weight in 1/1024: ``h = (h * hw) >> 10`` (1024: plain A*).
    hw: Any = np.int64(1024)
    #: float64: the Euclidean heuristic's scale (``navkit.query.options.euclid_scale``).
    hs: Any = np.float64(0.0)


class LimitArgs(NamedTuple):
    """Where a search must stop: an expansion budget and a window."""

    #: int64: most nodes expanded.
    budget: Any
    #: int64 x4: the window's inclusive bounds in padded coordinates (``wx0 < 0``: no window).
    wx0: Any
    wz0: Any
    wx1: Any
    wz1: Any


class WorkspaceArgs(NamedTuple):
    """A search's workspace (one row of :class:`navkit.query.workspace.Workspace`).

    A node's ``tag == 2 * gen`` means open, ``2 * gen + 1`` closed, anything
    smaller unseen (bits from ``BACK_SHIFT`` on hold the level queue's move
    back to the parent). A* keeps one heap entry per node and lowers it in
    place, so ``hf``/``hk`` need capacity ``n``.
    """

    #: int64 (n,): cost from the start.
    g: Any
    #: int32 (n,): parent node (the heap only; the level queue keeps the move back in ``tag``).
    parent: Any
    #: int32 (n,): generation tags.
    tag: Any
    #: int32 (n,): an open node's heap slot.
    pos: Any
    #: int64 (>= n,): the heap's ``f`` values and keys.
    hf: Any
    hk: Any
    #: int64: this search's generation.
    gen: Any


class RingArgs(NamedTuple):
    """The level queue (uniform-cost grids): one FIFO ring per ``f`` step.

    ``NSTREAMS`` ring buffers of ``1 << rbits`` entries each, laid end to end
    in ``rf`` (f) and ``rk`` (key); ``ht`` holds their heads, their tails
    (running counts), the ``f`` of each head, then a small scratch
    (``HT_SIZE`` int64); ``offs[j]`` is stream ``j``'s ``f`` step (-1:
    unused), from ``stream_offsets``.
    """

    #: int64: ``NSTREAMS`` rings of ``1 << rbits`` entries, end to end: ``f`` values and keys.
    rf: Any
    rk: Any
    #: int64 (HT_SIZE,): the rings' heads, tails (running counts), head ``f`` values, scratch.
    ht: Any
    #: int64 (NSTREAMS,): each stream's ``f`` step (-1: unused).
    offs: Any
    #: int64: log2 of a ring's length.
    rbits: Any
    #: uint8 (n,): each node's legal moves (``move_masks``).
    moves: Any


# ------------------------------------------------------- jump point search
# (navkit._kernels.jps)
class BitsArgs(NamedTuple):
    """The walkable grid as bit-packed lines, for Jump Point Search.

    ``rows``: int64, flat, three words per position: padded row ``z``, word
    ``w`` (``w = 1 + (x >> 6)`` holds cell ``x`` at bit ``x & 63``) lives at
    ``3 * (z * nwr + w)``: passable bits, forward-forced bits,
    backward-forced bits (bit ``i`` set when a side cell at ``i`` is free and
    the side cell one step behind is blocked). Word 0 and word ``nwr - 1`` of
    every line are guards (always 0). ``cols`` is the same for the transposed
    grid (line ``x``, bit ``z``, ``nwc`` words per column).
    """

    #: int64: padded rows, ``nwr`` words per row.
    rows: Any
    #: int64: padded columns (the transposed grid), ``nwc`` words per column.
    cols: Any
    #: int: padded row length.
    wp: Any
    nwr: Any
    nwc: Any


class JpsModelArgs(NamedTuple):
    """Step costs and the layout of a node *code* ``(z << xb) | x``.

    ``xb`` bits hold a padded ``x``, ``cb`` bits a code. Codes sort like
    linear indices ``z * wp + x`` (so tie-breaks agree with A*'s) but decode
    with shifts, which keeps integer division out of the search loop. Heap
    keys pack ``(h << cb) | code``; the caller checks that they fit
    (``navkit._kernels.jps.key_bits``).
    """

    card: Any
    diag: Any
    xb: Any
    cb: Any


class JpsWorkspaceArgs(NamedTuple):
    """A JPS search's state.

    ``nd`` holds two words per padded node (by linear index), ``(tag << 32) |
    parent code`` and ``g``, side by side so that one cache line serves a
    node (the search touches few nodes, far apart); ``tag == 2 * gen`` open,
    ``2 * gen + 1`` closed, smaller unseen. The parent links jump points; the
    trace interpolates the cells between them.
    """

    #: int64 (2n,): per node ``(tag << 32) | parent code`` and ``g``.
    nd: Any
    #: int64: the heap of navkit._kernels.heap, capacity at least ``n + heap_reserve(wp, hp)``.
    hf: Any
    hk: Any
    #: int64: this search's generation.
    gen: Any
    #: int64 (3 * heap_reserve(wp, hp),): one expansion's successors.
    cand: Any


class JpsContext(NamedTuple):
    """What every jump and relaxation of one JPS search reads (built by the search itself)."""

    #: int64: the search's open and closed tags.
    open_tag: Any
    closed_tag: Any
    #: int64: the goal node, its padded column and row.
    goal: Any
    gx: Any
    gz: Any
    card: Any
    diag: Any
    xb: Any
    cb: Any
    wp: Any


class JpsOutArgs(NamedTuple):
    """Where a JPS path goes."""

    #: int32 (n,): the padded nodes of the full cell chain.
    nodes: Any
    #: int32 (cap, 2) cells and float64 (cap, 2) world centres (filled while they fit).
    cells: Any
    pts: Any
    #: a CellGeometry.
    geo: Any


# -------------------------------------------------- the one-call world query
# (navkit._kernels.query.world_jps; every array is the Pathfinder's, updated in place)
class JpsArrays(NamedTuple):
    """JPS's search state without the generation (it lives in ``WorldState.counters``)."""

    nd: Any
    hf: Any
    hk: Any
    cand: Any


class AStarArrays(NamedTuple):
    """A*'s workspace tags (the flood of find-path-to-nearest marks cells in them), generation."""

    tag: Any
    #: int64 (1,): the workspace's last generation.
    gens: Any


class GeoInts(NamedTuple):
    """Integer geometry: padded width and depth, and the snapping rings (cells)."""

    wp: Any
    hp: Any
    snap_rings: Any


class GeoFloats(NamedTuple):
    """World geometry in metres, and the first-waypoint trim distance (metres)."""

    min_x: Any
    min_z: Any
    cell_size: Any
    trim: Any


class WorldState(NamedTuple):
    """The overlay and the counters the world query shares with the Python side."""

    #: int32 (n,): overlay marks.
    marks: Any
    #: int32 (n,): cells a query cleared from the JPS rows.
    saved: Any
    #: int64 (STATS_SIZE,): search statistics.
    stats: Any
    #: int64 (3,): the standing overlay ``[mark, cells cleared, circles]`` (mark 0: none).
    ov: Any
    #: float64 (cap, 3): its circles.
    ov_circles: Any
    #: int64 (2,): ``[last JPS generation, last overlay mark]``.
    counters: Any


class WorldOut(NamedTuple):
    """The world query's output buffers."""

    #: int32 (n,) each: raw and smoothed padded nodes.
    nodes: Any
    smooth_nodes: Any
    #: int32 (cap, 2): the cell chain; float64 (cap, 2): the waypoints.
    cells: Any
    wpts: Any


class WorldArgs(NamedTuple):
    """Everything :func:`navkit._kernels.query.world_jps` reads besides the query itself."""

    bits: Any  # BitsArgs
    jmodel: Any  # JpsModelArgs
    jarr: Any  # JpsArrays
    grid: Any  # GridArgs
    aarr: Any  # AStarArrays
    geo_i: Any  # GeoInts
    geo_f: Any  # GeoFloats
    st: Any  # WorldState
    out: Any  # WorldOut


# ------------------------------------------------------------------ geometry
class CellGeometry(NamedTuple):
    """Where the grid lies in the world: cell ``(x, z)`` has centre
    ``(min_x + (x + 0.5) * cell_size, min_z + (z + 0.5) * cell_size)``."""

    #: float, metres.
    min_x: Any
    min_z: Any
    cell_size: Any


# ---------------------------------------------------------------- flow fields
# (navkit._kernels.flow)
class FlowGridArgs(NamedTuple):
    """The grid a flow field spreads over."""

    #: uint8 (n,): this field's passable nodes (cells AND no obstacle of its snapshot).
    free: Any
    #: int32 (n,) terrain weights padded with 1; (1,) when not ``weighted``.
    weights: Any
    #: int64: padded row length.
    wp: Any
    weighted: Any
    #: bool: 8-connected with the corner rule, or 4-connected.
    eight: Any


class FlowModelArgs(NamedTuple):
    """Step costs and the bucket ring: buckets ``width`` wide, ``nb`` of them."""

    card: Any
    diag: Any
    width: Any
    nb: Any


class BucketPoolArgs(NamedTuple):
    """The bucket ring's entry pool (chunks of node indices) and the buckets' lists."""

    #: int32: the pool's entries, chunk after chunk.
    ent: Any
    #: int32: each chunk's next chunk (-1: none); the free list threads through it.
    cnext: Any
    #: int32 (nb,): each bucket's first and last chunk and its last chunk's fill.
    bhead: Any
    btail: Any
    bfill: Any
    #: int64 (3,): free-list head, chunk count, chunk length.
    meta: Any


class SeedArgs(NamedTuple):
    """Nodes a flow search starts from, sorted by cost, with their direction codes."""

    #: int64 (k,).
    node: Any
    #: int64 (k,).
    cost: Any
    #: int8 (k,).
    code: Any


class HeapArgs(NamedTuple):
    """A 4-ary heap's ``f`` values and keys (:mod:`navkit._kernels.heap`)."""

    hf: Any
    hk: Any


# ----------------------------------------------------------------------- HPA*
# (navkit._kernels.hpa)
class HpaGridArgs(NamedTuple):
    """The grid HPA* reads: padded cells and weights."""

    #: uint8 (n,): nonzero = walkable.
    cells: Any
    #: int32 (n,) padded with 1; (1,) when not ``weighted``.
    weights: Any
    weighted: Any


class ClusterGeometry(NamedTuple):
    """The cluster grid: padded row length, grid size in cells, cluster edge,
    clusters per row and column."""

    wp: Any
    width: Any
    depth: Any
    size: Any
    ncx: Any
    ncz: Any


class AbstractGraphArgs(NamedTuple):
    """The abstract graph: nodes per cluster (CSR by ``node_off``), their cells,
    adjacency rows (CSR by ``adj_off``) and each node's Dijkstra tree over its cluster."""

    node_off: Any
    #: int64: padded node of each abstract node.
    node_cell: Any
    #: int32: its padded column and row.
    node_x: Any
    node_z: Any
    #: int32: its cluster.
    node_cluster: Any
    adj_off: Any
    #: int32: neighbour; int64: edge cost (-1: none).
    adj_to: Any
    adj_cost: Any
    #: uint8 (nodes, size * size): move codes toward the node.
    trees: Any
    #: int64: bits of an abstract node index in queue keys.
    nbits: Any


class ClusterSearchArgs(NamedTuple):
    """Scratch of the searches inside one or two clusters (per cell of a box)."""

    g: Any
    closed: Any
    target: Any
    s_code: Any
    d_code: Any
    hf: Any
    hk: Any
    s_cost: Any
    t_cost: Any


class AbstractSearchArgs(NamedTuple):
    """The abstract A*'s workspace (one entry per abstract node, plus start and goal)."""

    g: Any
    parent: Any
    tag: Any
    hf: Any
    hk: Any
    #: int64: this search's generation.
    gen: Any
    #: int32: the abstract path.
    path: Any


# --------------------------------------------------------------- simulation
# (navkit._kernels.sim; the layouts of the tick kernel's argument groups)
#
# The tick kernel opens each group inside njit code (``body = BodyArgs(*body_t)``);
# navkit.sim.tick builds them. "Per slot" arrays have one row per character
# (``n`` rows, slot = stable-ID order, see navkit.sim.state.SimState); a slot
# of -1 means none. Flags are uint8 0 / 1.
__all__ += [
    "BodyArgs", "NavArgs", "RetryArgs", "FollowArgs", "WalkGridArgs", "IndexArgs", "TickParams",
    "TickOut", "SteerArgs",
]


class BodyArgs(NamedTuple):
    """The characters' bodies (read; the kernel writes ``pos`` and ``facing``)."""

    #: float64 (n, 2), m: centres, world ``(x, z)``.
    pos: Any
    #: float64 (n,), rad: heading from +X toward +Z (direction ``(cos f, sin f)``).
    facing: Any
    #: float64 (n,), m/s: walk speed.
    speed: Any
    #: float64 (n,), rad/s: rotation speed.
    rot: Any
    #: float64 (n,), m: movement contact radius (the guard's circle).
    rc: Any
    #: uint8 (n,): 0 player, 1 bot, 2 npc (``KIND_*``).
    kind: Any
    #: uint8 (n,): alive; a character moves and blocks only when alive and enabled.
    alive: Any
    #: uint8 (n,): enabled.
    enabled: Any


class NavArgs(NamedTuple):
    """Path following (read and written)."""

    #: uint8 (n,): navigation active.
    active: Any
    #: float64 (n, maxw, 2), m: waypoints, the first ``wp_n[i]`` of slot ``i``.
    wp: Any
    #: int32 (n,): waypoint count (0: walk straight to ``walk_target``).
    wp_n: Any
    #: int32 (n,): index of the current waypoint.
    wp_i: Any
    #: float64 (n, 2), m: walkTarget, the reachable end of the plan.
    walk_target: Any
    #: float64 (n, 2), m: requestedWalkTarget (players and bots: reset to the
    #: position on a blocked stop).
    requested: Any
    #: uint8 (n,): moved last tick; read as the previous tick's value, written
    #: with this tick's.
    moved: Any
    #: int32 (n,), ticks: movementBlockedTicks.
    blocked: Any
    #: uint8 (n,): 0 STAND, 1 WALK (written).
    anim: Any


class RetryArgs(NamedTuple):
    """Retry cooldowns (an NPC's blocked stop schedules a retry)."""

    #: int32 (n, 10), ticks: the ID-shuffled cooldown sequence.
    seq: Any
    #: int32 (n,): index of the next cooldown in ``seq``.
    cur: Any
    #: int32 (n,), ticks: left of a scheduled retry (0: none).
    timer: Any
    #: int32 (n,), slot: the blocker promoted to an obstacle on the retry.
    blocker: Any


class FollowArgs(NamedTuple):
    """Follow and walk-to-NPC orders (docs/rules.md §10.5)."""

    #: int32 (n,), slot: the character followed (-1: no order).
    target: Any
    #: float64 (n,), m: the order's range.
    rng: Any
    #: uint8 (n,): a walk-to-NPC order (in range: ``EV_TALK``).
    talk: Any
    #: float64 (n,), m: best distance so far (along the route on a path).
    best: Any
    #: int32 (n,), ticks: without a new best distance.
    stall: Any
    #: int64 (n,), tick: of the last plan (-1: never).
    last_plan: Any
    #: float64 (n, 2), m: the target's position at that plan.
    goal: Any
    #: uint8 (n,): following a planned path.
    on_path: Any


class WalkGridArgs(NamedTuple):
    """The static walkable grid, padded by one blocked cell on every side."""

    #: uint8 ((depth + 2) * (width + 2),): nonzero = walkable, row-major by z.
    cells: Any
    #: int: padded width and depth (cells).
    wpad: Any
    hpad: Any
    #: float, m: world ``x`` and ``z`` of the unpadded grid's lower edges, and the cell size.
    min_x: Any
    min_z: Any
    cell_size: Any


class IndexArgs(NamedTuple):
    """The one neighbour index (:mod:`navkit._kernels.spatial_hash`): points
    counting-sorted into a uniform grid of cells, slot order inside a cell.

    The simulation builds one over the solid characters every tick (its
    geometry from the map: :func:`navkit.agents.index.map_index`), the
    spatial hash and the crowd over their points (:func:`~navkit._kernels.spatial_hash.fit`).
    """

    #: float64 (5,): ``(min_x, min_z, cs, max_x, max_z)``, m: the grid's origin,
    #: cell size and the box it covers (points outside are clamped into it).
    geom: Any
    #: int64 (2,): ``(nx, nz)``, cells along x and z.
    dims: Any
    #: int32 (nx * nz + 1,): start of each cell's run in ``order``.
    cell_start: Any
    #: int32 (n,): the indexed points by cell, point (slot) order inside a cell.
    order: Any
    #: int32 (n,): each point's place in ``order`` (-1: not indexed).
    slot: Any
    #: float64 (n, 2), m: the indexed points' positions, in ``order``.
    spos: Any
    #: int32 (n,): each point's cell (-1: not indexed).
    cellid: Any


class TickParams(NamedTuple):
    """The tick's scalars."""

    #: float, s: tick length.
    dt: Any
    #: int: the tick being run.
    tick: Any
    #: int, ticks: least gap between two plans for a moving follow target (RepathDelay).
    repath_ticks: Any
    #: int, ticks: without progress before a follow order gives up (ApproachGiveUpTicks).
    give_up_ticks: Any
    #: float, m: a waypoint counts as reached within this (kWalkThreshold).
    walk_threshold: Any
    #: float, m: a moved follow target is replanned beyond this (TARGET_REPLAN_THRESHOLD).
    replan_threshold: Any
    #: int, ticks: blocked ticks before a stop (BLOCKED_REPLAN_TICKS).
    blocked_limit: Any
    #: float: cosine above which a rejected step is *following* (waits without counting).
    following_cos: Any


class TickOut(NamedTuple):
    """Scratch and results (every array is overwritten each tick)."""

    #: float64 (n, 2), m: reservations (tick-start centre, new centre once moved).
    res: Any
    #: float64 (n, 2): desired unit direction (0: none).
    dirv: Any
    #: float64 (n,), m: step length.
    steplen: Any
    #: uint8 (n,): step mode (``MODE_*``: 0 none, 1 path, 2 greedy).
    mode: Any
    #: uint8 (n,): event bits (``EV_*``).
    ev: Any
    #: int32 (n,), slot: the blocker of a blocked step (-1: none or a wall).
    ev_blocker: Any
    #: float64 (STATS_SIZE,): ``STAT_*`` (min gap in m, moved, blocked and waited counts).
    stats: Any


class SteerArgs(NamedTuple):
    """The characters' steering policies (``navkit.crowd.SteeringPolicy``,
    applied by ``navkit._kernels.sim.tick_steer``)."""

    #: int32 (n,): each character's policy, a row of the tables below (-1: none).
    policy: Any
    #: float64 (P, 12): each policy's behaviour weights (``navkit.crowd.BEHAVIOURS`` order).
    weights: Any
    #: float64 (P, 15): each policy's ``SteeringParams.as_array()``.
    params: Any
    #: float64 (P,), m/s^2: each policy's largest acceleration.
    max_force: Any
    #: float64 (n,), rad: the wander circle's angle (read and written).
    wander: Any
    #: uint64 (n,): each character's wander noise key (from its stable ID).
    noise: Any
    #: float64 (n, 2), m/s: the indexed characters' velocities in index order (work).
    svel: Any




# ------------------------------------------------------------ rasterization
# (navkit._kernels.raster; built by navkit.level.raster, opened inside the
# @njit kernels, which read these fields by name)
class RasterArgs(NamedTuple):
    """The cell window a rasterization kernel paints.

    ``walk`` (bool, ``(rows, cols)``) is written in place; so is ``weight``
    (int32, ``(rows, cols)``; ``(1, 1)`` and never written when the level has
    no weights). ``cx`` (float64, ``(cols,)``) and ``cz`` (float64,
    ``(rows,)``) are the world X of each column's and the world Z of each
    row's cell centres, increasing, in metres.
    """

    walk: Any
    weight: Any
    cx: Any
    cz: Any


class PolygonArgs(NamedTuple):
    """Polygons packed for the scanline fill.

    Polygon ``p`` owns rings ``poly_off[p]:poly_off[p + 1]`` and ring ``r``
    owns vertices ``ring_off[r]:ring_off[r + 1]`` of ``vx`` / ``vz``
    (float64, world metres, no closing repeat); ``ring_off`` and ``poly_off``
    are int64. ``weights`` (int32, one per polygon) is each polygon's terrain
    weight.
    """

    vx: Any
    vz: Any
    ring_off: Any
    poly_off: Any
    weights: Any


class SegmentArgs(NamedTuple):
    """Line segments ``(ax[s], az[s]) - (bx[s], bz[s])``, float64 world metres."""

    ax: Any
    az: Any
    bx: Any
    bz: Any


__all__ += ["RasterArgs", "PolygonArgs", "SegmentArgs"]
