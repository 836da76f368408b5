"""One world-coordinate path query in one kernel call (the JPS fast path of
:meth:`navkit.query.pathfinder.Pathfinder.find_path`).

Through the Python layer a query spends about 40 us in the interpreter on
top of the search (snapping, stamping, validating, tracing, smoothing,
waypoint rules: each a call). :func:`world_jps` does all of it in one call,
on buffers the Pathfinder owns:

1. validate the query's obstacle circles, stamp them under a fresh overlay
   mark (docs/rules.md §7.2) and clear their cells from the JPS rows, unless the same
   circles are stamped already (the *standing overlay*, below);
2. snap start and end to walkable cells (square rings, docs/rules.md §4.1);
3. Jump Point Search; for find-path-to-nearest with an unreachable or blocked
   goal, a flood of the start's region picks the reachable cell closest to
   the goal (the cell an exhaustive A* picks, docs/rules.md §6.4) and JPS runs to
   it; with a budget smaller than the grid A* must answer, which the Python
   path does (:data:`FALLBACK`);
4. the full cell chain, string-pulling (docs/rules.md §5, line of sight read from
   the packed rows), world waypoints with the first/last waypoint rules
   (docs/rules.md §4.2-§4.3).

It answers what the Python path answers (the tests compare both on random
queries); the queries it leaves to Python (an end outside the grid, and
find-path-to-nearest to an unreachable goal with a budget smaller than the
grid) come back as :data:`FALLBACK`.

``fx`` is a :class:`~navkit._kernels.layouts.WorldArgs`: the Pathfinder's
arrays (JPS rows and state, A*'s grid, model and workspace, geometry, the
overlay and counters, output buffers), updated in place between calls.

The standing overlay: a game asks many paths against one snapshot of its
characters per tick, so the circles stay stamped and cleared from the rows
after the query. A query with the same circles reuses them as they are; other
circles replace them; a query without circles restores the rows. Anything
else that reads the rows or writes the marks calls :func:`release` first.

``circles``: this query's ``(k, 3)`` world circles (``k = 0``: none);
``sx, sz, ex, ez``: the world start and end in metres; ``budget``,
``nearest``, ``smooth`` as in ``Pathfinder.find_path``; ``res``: int64,
:data:`RES_SIZE` entries, see ``R_*``.
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit
from .geometry import MAX_COORD, free_node, reachable_nearest, snap_cell, stamp_circles
from .jps import ctz, jps_path, overlay_block, overlay_restore
from .jps_plus import jps_plus_path
from .layouts import (
    AStarArrays,
    BitsArgs,
    GeoFloats,
    GeoInts,
    GridArgs,
    JpsArrays,
    WorldArgs,
    WorldOut,
    WorldState,
)
from .padded import cell_node
from .search import (
    FOUND,
    GEN_LIMIT,
    NEAREST,
    NO_GOAL,
    NO_START,
    ST_BEST,
    ST_BEST_COST,
    ST_COST,
    ST_EXPANDED,
    ST_GENERATED,
    ST_STATUS,
    STATS_SIZE,
    UNREACHABLE,
)

#: The query needs the Python path (an end outside the grid, a budgeted nearest query).
FALLBACK = 7
#: A circle has a non-finite value or a negative radius; ``res[R_INDEX]`` is its row.
BAD_CIRCLE = 8
#: The chain does not fit ``out``'s ``(cap, 2)`` buffers; ``res[R_NCELLS]`` is its length.
NEED_ROOM = 9
#: :func:`world_jps_free` only: an end's cell is outside the grid or blocked, so it
#: needs snapping, which :func:`world_jps` does (the free variant compiles no ring search).
NEED_SNAP = 10

R_STATUS = 0
R_EXPANDED = 1
R_GENERATED = 2
R_COST = 3
R_START = 4
R_END = 5
R_NCELLS = 6
R_FIRST = 7
R_NPTS = 8
R_INDEX = 9
RES_SIZE = 10

#: Cells beyond which a coordinate is clamped before it becomes an integer.
_CLAMP = float(1 << 40)

@njit(_nrt=False)
def _cell(w, lo, cs):  # type: ignore[no-untyped-def]
    """``floor((w - lo) / cs)`` as NavGrid.world_to_cell computes it, clamped to +-2**40
    (a plain call: four inlined copies were an eighth of the world kernel's IR)."""
    f = np.floor((w - lo) / cs)
    if f < -_CLAMP:
        f = -_CLAMP
    elif f > _CLAMP:
        f = _CLAMP
    return np.int64(f)


@njit(inline="always")
def _valid_circles(circles):  # type: ignore[no-untyped-def]
    """-1 when every circle is finite, within MAX_COORD and has radius >= 0,
    else the first bad row (the checks of :func:`navkit.query.overlay.as_circles`)."""
    for c in range(circles.shape[0]):
        x = circles[c, 0]
        z = circles[c, 1]
        r = circles[c, 2]
        if not (abs(x) <= MAX_COORD and abs(z) <= MAX_COORD and 0 <= r <= MAX_COORD):
            return c
    return -1


@njit(inline="always")
def _centre(pts, i, node, wp, min_x, min_z, cs):  # type: ignore[no-untyped-def]
    """World centre of a padded node into ``pts[i]`` (NavGrid.cells_to_world's formula)."""
    pts[i, 0] = min_x + (np.float64(node % wp - 1) + 0.5) * cs
    pts[i, 1] = min_z + (np.float64(node // wp - 1) + 0.5) * cs


# ------------------------------------------------------- line of sight on bits
@njit(inline="always")
def _span_blocked(b, nw, line, x0, x1):  # type: ignore[no-untyped-def]
    """The first blocked position in ``x0..x1`` (inclusive) of packed line
    ``line``, or -1 when all are passable."""
    base = 3 * line * nw
    w0 = 1 + (x0 >> 6)
    w1 = 1 + (x1 >> 6)
    lo = np.int64(-1) << (x0 & 63)
    hi = np.int64(-1) if (x1 & 63) == 63 else ~(np.int64(-1) << ((x1 & 63) + 1))
    for w in range(w0, w1 + 1):
        m = np.int64(-1)
        if w == w0:
            m &= lo
        if w == w1:
            m &= hi
        holes = ~b[base + 3 * w] & m
        if holes != 0:
            return ((w - 1) << 6) + ctz(holes)
    return -1


@njit(_nrt=False)
def _los_lines(b, nw, ax, az, bx, bz):  # type: ignore[no-untyped-def]
    """Line of sight between the centres of ``(ax, az)`` and ``(bx, bz)`` on
    packed lines indexed by ``z``: in each line the span of cells whose closed
    square meets the segment must be passable. Returns -1 when clear, else a
    blocked cell of the set as ``(z << 32) | x``."""
    if az == bz:
        x = _span_blocked(b, nw, az, min(ax, bx), max(ax, bx))
        return -1 if x < 0 else (az << 32) | x
    if az > bz:
        ax, bx = bx, ax
        az, bz = bz, az
    dx = bx - ax
    d = 2 * (bz - az)  # positions are measured in 1/d cells
    for z in range(az, bz + 1):
        # the segment's part with z' in [z - 1/2, z + 1/2], in half cells
        z0 = 2 * z - 1 if 2 * z - 1 > 2 * az else 2 * az
        z1 = 2 * z + 1 if 2 * z + 1 < 2 * bz else 2 * bz
        xa = ax * d + (z0 - 2 * az) * dx
        xb = ax * d + (z1 - 2 * az) * dx
        lo = xa if xa < xb else xb
        hi = xb if xa < xb else xa
        # cells x with x - 1/2 <= hi / d and x + 1/2 >= lo / d
        x = _span_blocked(b, nw, z, -((d - 2 * lo) // (2 * d)), (2 * hi + d) // (2 * d))
        if x >= 0:
            return (z << 32) | x
    return -1


@njit(inline="always")
def _los_blocker(bits, ax, az, bx, bz):  # type: ignore[no-untyped-def]
    """-1 when the segment between the centres of padded cells ``a`` and ``b``
    is clear, else a blocked cell ``(z << 32) | x`` whose closed square meets it."""
    bits_ = BitsArgs(*bits)
    rows, cols, nwr, nwc = bits_.rows, bits_.cols, bits_.nwr, bits_.nwc
    # cheap rejection first: the cells holding the points at 1/4, 1/2 and 3/4
    # of the segment belong to the set (their closed squares hold a point of it)
    dx = bx - ax
    dz = bz - az
    for k in (2, 1, 3):
        x = (4 * ax + k * dx + 2) >> 2
        z = (4 * az + k * dz + 2) >> 2
        if (rows[3 * (z * nwr + 1 + (x >> 6))] >> (x & 63)) & 1 == 0:
            return (z << 32) | x
    if abs(dx) >= abs(dz):
        return _los_lines(rows, nwr, ax, az, bx, bz)
    c = _los_lines(cols, nwc, az, ax, bz, bx)  # transposed: (x << 32) | z
    return -1 if c < 0 else ((c & 0xFFFFFFFF) << 32) | (c >> 32)


@njit(inline="always")
def _meets(ax, az, bx, bz, cx, cz):  # type: ignore[no-untyped-def]
    """True when the segment between the centres of cells ``a`` and ``b`` meets
    the closed square of cell ``c`` (exact: separating axes in half cells)."""
    if ((ax < cx and bx < cx) or (ax > cx and bx > cx)
            or (az < cz and bz < cz) or (az > cz and bz > cz)):
        return False
    dx = bx - ax
    dz = bz - az
    # twice the cross product (b - a) x (corner - a) at the four corners
    px = 2 * (cx - ax)
    pz = 2 * (cz - az)
    c0 = dx * (pz - 1) - dz * (px - 1)
    c1 = dx * (pz - 1) - dz * (px + 1)
    c2 = dx * (pz + 1) - dz * (px - 1)
    c3 = dx * (pz + 1) - dz * (px + 1)
    lo = min(min(c0, c1), min(c2, c3))
    hi = max(max(c0, c1), max(c2, c3))
    return lo <= 0 <= hi


@njit(_nrt=False)
def line_of_sight_bits(bits, a, b):  # type: ignore[no-untyped-def]
    """:func:`navkit._kernels.geometry.line_of_sight` on JPS rows and columns
    (the same cells: every cell whose closed square meets the segment, which
    is the supercover walk with its corner rule), one packed line at a time:
    along the rows for flat segments, along the columns for steep ones."""
    wp = BitsArgs(*bits).wp
    a = np.int64(a)
    b = np.int64(b)
    return _los_blocker(bits, a % wp, a // wp, b % wp, b // wp) < 0


@njit(_nrt=False)
def _string_pull_bits(bits, path, cells, n, out):  # type: ignore[no-untyped-def]
    """:func:`navkit._kernels.geometry.string_pull` with :func:`line_of_sight_bits`;
    ``cells[:n]`` are the path's unpadded ``(x, z)``.

    Same answer, fewer walks: every failed sight line leaves the blocked cell
    it met, and a later candidate whose segment meets the last of those cells
    is rejected without a walk (path neighbours mostly hide behind the same
    corner).
    """
    if n == 0:
        return 0
    m = 0
    anchor = 0
    out[m] = path[0]
    m += 1
    while anchor < n - 1:
        ax = np.int64(cells[anchor, 0]) + 1  # int64 also without the JIT
        az = np.int64(cells[anchor, 1]) + 1
        nxt = anchor + 1
        j = n - 1
        cx = np.int64(-1)
        cz = np.int64(-1)
        while j > anchor + 1:
            qx = np.int64(cells[j, 0]) + 1
            qz = np.int64(cells[j, 1]) + 1
            if cx < 0 or not _meets(ax, az, qx, qz, cx, cz):
                c = _los_blocker(bits, ax, az, qx, qz)
                if c < 0:
                    nxt = j
                    break
                cx = c & 0xFFFFFFFF
                cz = c >> 32
            j -= 1
        out[m] = path[nxt]
        m += 1
        anchor = nxt
    return m


#: :func:`_string_pull_bits` under its public name (the tests call it).
string_pull_bits = _string_pull_bits


# ------------------------------------------------------------------- overlay
@njit(_nrt=False)
def release(bits, hp, geo, ov, ov_circles, saved):  # type: ignore[no-untyped-def]
    """Restore the JPS rows under the standing overlay ``ov`` and retire it."""
    if ov[0] > 0:
        overlay_restore(bits, hp, geo, ov_circles[: ov[2]], saved, ov[1])
    ov[0] = 0
    ov[1] = 0
    ov[2] = 0


@njit(inline="always")
def _next_gens(fx):  # type: ignore[no-untyped-def]
    """Reserve this query's two JPS generations and one A* generation
    (clearing the state they tag when a counter wraps around)."""
    fx_ = WorldArgs(*fx)
    nd = JpsArrays(*fx_.jarr).nd
    aarr_ = AStarArrays(*fx_.aarr)
    tag, agens = aarr_.tag, aarr_.gens
    counters = WorldState(*fx_.st).counters
    jgen = counters[0] + 1
    if jgen + 1 >= GEN_LIMIT:
        nd[:] = 0
        jgen = 1
    counters[0] = jgen + 1
    agen = agens[0] + 1
    if agen >= GEN_LIMIT:
        tag[:] = 0
        agens[:] = 0
        agen = 1
    agens[0] = agen
    return jgen, agen


@njit(_nrt=False)
def stamp_overlay(fx, circles):  # type: ignore[no-untyped-def]
    """Make ``circles`` the standing overlay; returns its mark (0: none) or
    ``-1 - row`` for an invalid circle (the overlay is then retired). A plain
    call (once per query): world_jps and edits.ignore_begin share one compiled
    copy instead of typing it inside each."""
    fx_ = WorldArgs(*fx)
    bits = fx_.bits
    geo_i_, geo_f_, st_ = GeoInts(*fx_.geo_i), GeoFloats(*fx_.geo_f), WorldState(*fx_.st)
    wp, hp = geo_i_.wp, geo_i_.hp
    min_x, min_z, cs = geo_f_.min_x, geo_f_.min_z, geo_f_.cell_size
    marks, saved, ov = st_.marks, st_.saved, st_.ov
    ov_circles, counters = st_.ov_circles, st_.counters
    n = circles.shape[0]
    if n > 0 and ov[0] > 0 and ov[2] == n:
        same = True
        for i in range(n):
            for j in range(3):
                if circles[i, j] != ov_circles[i, j]:
                    same = False
        if same:
            return ov[0]
    release(bits, hp, (min_x, min_z, cs), ov, ov_circles, saved)
    if n == 0:
        return 0
    mark = counters[1] + 1
    if mark >= GEN_LIMIT:
        marks[:] = 0
        mark = 1
    bad = _valid_circles(circles)
    if bad >= 0:
        return -1 - bad
    # int32 mark and delta, as the Python side passes them: one compiled signature
    stamp_circles(marks, np.int32(mark), wp, hp, min_x, min_z, cs, circles, marks, np.int32(0))
    counters[1] = mark
    ov[1] = overlay_block(bits, marks, np.int32(mark), hp, (min_x, min_z, cs), circles, saved)
    for i in range(n):
        for j in range(3):
            ov_circles[i, j] = circles[i, j]
    ov[2] = n
    ov[0] = mark
    return mark


@njit(inline="always")
def _search_and_path(fx, mark, jgen, agen, s, g, budget, nearest, res, may_near, tabs,  # type: ignore[no-untyped-def]
                     on_tables):
    """Step 3 and the chain: returns ``(status, end, cost, m)`` (``m = 0``: no path).
    ``may_near`` (a constant): False when ``nearest`` is known False, which
    prunes the nearest-cell search before typing. ``on_tables`` (a constant):
    search on the JPS+ tables ``tabs`` (``(tab, gbi, gb, cells, wp)``, see
    :func:`navkit._kernels.jps_plus.jps_plus`) instead of online JPS."""
    fx_ = WorldArgs(*fx)
    bits, jmodel, grid = fx_.bits, fx_.jmodel, fx_.grid
    st_ = WorldState(*fx_.st)
    marks, stats = st_.marks, st_.stats
    out_ = WorldOut(*fx_.out)
    nodes, cells_out, pts_out = out_.nodes, out_.cells, out_.wpts  # the chain's centres go to wpts
    wp = GeoInts(*fx_.geo_i).wp
    geo_f_ = GeoFloats(*fx_.geo_f)
    geo = (geo_f_.min_x, geo_f_.min_z, geo_f_.cell_size)  # a CellGeometry
    jarr_ = JpsArrays(*fx_.jarr)
    nd, jhf, jhk, cand = jarr_.nd, jarr_.hf, jarr_.hk, jarr_.cand
    aarr_ = AStarArrays(*fx_.aarr)
    cells = GridArgs(*grid).cells
    for i in range(STATS_SIZE):
        stats[i] = 0
    # plain tuples in the layouts' order (JpsWorkspaceArgs, JpsOutArgs), as the Python side
    # passes them
    if on_tables:
        m = jps_plus_path(tabs[0], tabs[1], tabs[2], tabs[3], tabs[4], jmodel,
                          (nd, jhf, jhk, jgen, cand), s, g, budget, nearest, stats,
                          (nodes, cells_out, pts_out, geo))
    else:
        m = jps_path(bits, jmodel, (nd, jhf, jhk, jgen, cand), s, g, budget, nearest, stats,
                     (nodes, cells_out, pts_out, geo))
    status = stats[ST_STATUS]
    if may_near and nearest and (status == UNREACHABLE or status == NO_GOAL) \
            and budget >= nd.shape[0] // 2:
        # find-path-to-nearest: the reachable cell closest to the goal (what
        # an exhaustive A* picks), then JPS to it
        count = stats[ST_EXPANDED]
        gen_count = stats[ST_GENERATED]
        best, flooded = reachable_nearest(cells, (marks, np.int32(mark)), wp, s, g % wp, g // wp,
                                          aarr_.tag, agen, nodes)
        if best == s:
            res[R_EXPANDED] = count + flooded
            res[R_GENERATED] = gen_count + flooded
            return UNREACHABLE, s, -1, 0
        # to_best: not nearest (False here) as a runtime bool; a literal False
        # would compile jps_path a second time
        m = jps_path(bits, jmodel, (nd, jhf, jhk, jgen + 1, cand), s, best, budget, not nearest,
                     stats, (nodes, cells_out, pts_out, geo))
        res[R_EXPANDED] = count + flooded + stats[ST_EXPANDED]
        res[R_GENERATED] = gen_count + flooded + stats[ST_GENERATED]
        return NEAREST, best, stats[ST_COST], m
    if may_near and nearest and (status == UNREACHABLE or status == NO_GOAL):
        # ... with a budget A* could run out of: A*'s answer, which the Python
        # path gives (an A* kernel here would double this kernel's compile time)
        return FALLBACK, s, -1, 0
    res[R_EXPANDED] = stats[ST_EXPANDED]
    res[R_GENERATED] = stats[ST_GENERATED]
    if m == 0:
        return status, s, -1, 0
    if status == FOUND:
        return status, g, stats[ST_COST], m
    return status, stats[ST_BEST], stats[ST_BEST_COST], m


def _make_world(with_circles: bool, with_nearest: bool, with_tables: bool = False):  # type: ignore[no-untyped-def]
    """Build :func:`world_jps` (both flags), :func:`world_jps_free` (neither) or
    :func:`world_jps_plus_free` (only ``with_tables``).

    The flags are closure constants: numba prunes the overlay branch and the
    nearest-cell search before typing, so the free variant never compiles the
    overlay kernels (stamping, clearing and restoring the rows), the flood
    and a second copy of the search (almost half of a cold first
    world query). Each variant has its own name (see
    :func:`navkit._kernels.search._make_astar` on numba's disk cache).
    Compiled without reference counting: the query allocates nothing (and
    numba's counting of the arrays in ``fx`` was more than half of its lowering).
    """

    def world(fx, circles, sx, sz, ex, ez, budget, nearest, smooth, res):  # type: ignore[no-untyped-def]
        """The whole query (see the module docstring); returns ``res[R_STATUS]``.

        ``circles``: the query's circles; for :func:`world_jps_plus_free`
        instead the JPS+ tables ``(tab, gbi, gb, cells, wp)``
        (:meth:`navkit.query.jps_plus.JPSPlus.table_args`).

        ``res``: status (a :class:`navkit.results.Status` code or FALLBACK /
        BAD_CIRCLE / NEED_ROOM), expanded, generated, integer cost (-1: none),
        snapped start and end node (-1: none), chain length, first waypoint row
        and waypoint count in ``wpts``, bad circle row. :func:`world_jps_free`
        reads no ``circles``, needs ``nearest`` False and a released standing
        overlay (``fx``'s ``st.ov[0] == 0``: the caller releases it first), and
        answers ``NEED_SNAP`` when an end's cell is not a free grid cell.
        """
        fx_ = WorldArgs(*fx)
        cells = GridArgs(*fx_.grid).cells
        marks = WorldState(*fx_.st).marks
        out_ = WorldOut(*fx_.out)
        nodes, snodes, cells_out, wpts = out_.nodes, out_.smooth_nodes, out_.cells, out_.wpts
        geo_i_, geo_f_ = GeoInts(*fx_.geo_i), GeoFloats(*fx_.geo_f)
        wp, hp, rings = geo_i_.wp, geo_i_.hp, geo_i_.snap_rings
        min_x, min_z, cs, trim = geo_f_.min_x, geo_f_.min_z, geo_f_.cell_size, geo_f_.trim
        for i in range(RES_SIZE):
            res[i] = 0
        res[R_COST] = -1
        res[R_START] = -1
        res[R_END] = -1
        if with_circles:
            mark = stamp_overlay(fx, circles)
            if mark < 0:
                res[R_STATUS] = BAD_CIRCLE
                res[R_INDEX] = -1 - mark
                return BAD_CIRCLE
        else:
            mark = 0 * res[0]  # int64 (not a literal), as stamp_overlay's
        # the overlay as the Python side passes it, (marks, int32 mark): one compiled
        # snap_cell / reachable_nearest for both callers
        ovl = (marks, np.int32(mark))
        scx = _cell(sx, min_x, cs)
        scz = _cell(sz, min_z, cs)
        ecx = _cell(ex, min_x, cs)
        ecz = _cell(ez, min_z, cs)
        if with_circles:
            s = snap_cell(cells, ovl, wp, hp, rings, scx, scz)
        else:  # both ends on free cells, or world_jps snaps them (docs/rules.md §4.1)
            s = free_node(cells, marks, mark, wp, hp, scx, scz)
            g = free_node(cells, marks, mark, wp, hp, ecx, ecz)
            if s < 0 or g < 0:
                res[R_STATUS] = NEED_SNAP
                return NEED_SNAP
        if s < 0:
            res[R_STATUS] = NO_START
            return NO_START
        res[R_START] = s
        if with_circles:
            g = snap_cell(cells, ovl, wp, hp, rings, ecx, ecz)
        if g < 0:
            if not nearest:
                res[R_STATUS] = NO_GOAL
                return NO_GOAL
            if not (0 <= ecx < wp - 2 and 0 <= ecz < hp - 2):
                res[R_STATUS] = FALLBACK
                return FALLBACK
            g = cell_node(ecx, ecz, wp)
        jgen, agen = _next_gens(fx)
        status, end, cost, m = _search_and_path(fx, mark, jgen, agen, s, g, budget, nearest, res,
                                                with_nearest, circles, with_tables)
        res[R_STATUS] = status
        if status == FALLBACK:
            return FALLBACK
        if m == 0:
            return status
        res[R_COST] = cost
        res[R_END] = end
        res[R_NCELLS] = m
        if m > cells_out.shape[0]:
            res[R_STATUS] = NEED_ROOM
            return NEED_ROOM
        # waypoints: the string-pulled chain's cell centres, or the chain's
        if smooth:  # (wpts holds the chain's centres, read nowhere below)
            n = _string_pull_bits(fx_.bits, nodes, cells_out, m, snodes)
            for i in range(n):
                _centre(wpts, i, snodes[i], wp, min_x, min_z, cs)
        else:
            n = m
        # docs/rules.md §4.3, §4.2: the exact end when its cell is the end cell; the
        # first waypoint dropped within trim metres of the start
        if (status == FOUND and cell_node(ecx, ecz, wp) == end and 0 <= ecx < wp - 2
                and 0 <= ecz < hp - 2):
            wpts[n - 1, 0] = ex
            wpts[n - 1, 1] = ez
        first = 0
        if n > 1 and np.hypot(wpts[0, 0] - sx, wpts[0, 1] - sz) <= trim:
            first = 1
        res[R_FIRST] = first
        res[R_NPTS] = n - first
        return status

    world.__name__ = world.__qualname__ = ("world_jps" if with_circles else
                                           "world_jps_plus_free" if with_tables else
                                           "world_jps_free")
    return njit(world, _nrt=False)


#: The whole query, obstacle circles stamped as the standing overlay.
world_jps = _make_world(True, True)
#: :func:`world_jps` for a query without obstacle circles and not to the nearest
#: cell, whose caller released the standing overlay first: the same answers,
#: without the overlay kernels, the nearest-cell search and snapping (an end
#: whose cell is blocked or outside the grid gives ``NEED_SNAP``).
world_jps_free = _make_world(False, False)
#: :func:`world_jps_free` searching on JPS+ tables (the same answers as
#: :meth:`navkit.query.jps_plus.JPSPlus.cell_query`): its second argument is
#: the tables' ``(tab, gbi, gb, cells, wp)``, valid for the static grid only
#: (the caller checks :attr:`navkit.query.jps_plus.JPSPlus.static`).
world_jps_plus_free = _make_world(False, False, True)

__all__ = ["world_jps", "world_jps_free", "world_jps_plus_free", "release", "FALLBACK",
           "BAD_CIRCLE", "NEED_ROOM", "NEED_SNAP", "RES_SIZE"]
