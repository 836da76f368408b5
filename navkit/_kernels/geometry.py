"""Integer line of sight, string-pulling smoothing and nearest-walkable snapping.

All on the padded grid described in :mod:`navkit._kernels`; ``overlay`` is
``(marks, mark)`` as in :mod:`navkit._kernels.search`.
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit
from .layouts import OverlayArgs
from .padded import cell_node

#: World coordinates and radii of obstacle circles must lie within +-MAX_COORD metres.
MAX_COORD = 1e15


@njit(inline="always")
def closer(p, px, pz, gx, gz, best, best_d2):  # type: ignore[no-untyped-def]
    """``(best, best_d2)`` after looking at node ``p`` at ``(px, pz)``: the node
    nearest to ``(gx, gz)`` by squared distance, ties to the lower index (the
    find-path-to-nearest rule of docs/rules.md §6.2)."""
    d2 = (px - gx) * (px - gx) + (pz - gz) * (pz - gz)
    if d2 < best_d2 or (d2 == best_d2 and p < best):
        return p, d2
    return best, best_d2


@njit(inline="always")
def _free(cells, marks, mark, q):  # type: ignore[no-untyped-def]
    return cells[q] != 0 and not (mark > 0 and marks[q] == mark)


@njit(_nrt=False)
def line_of_sight(cells, overlay, wp, a, b):  # type: ignore[no-untyped-def]
    """True when the segment between the centres of padded nodes a and b is clear.

    Walks every cell the segment touches (a supercover traversal in integer
    arithmetic). Where the segment passes exactly through a cell corner it
    steps diagonally, and both side cells must be free: the corner rule of A*.
    """
    overlay_ = OverlayArgs(*overlay)
    marks, mark = overlay_.marks, overlay_.mark
    ax = a % wp
    az = a // wp
    bx = b % wp
    bz = b // wp
    dx = bx - ax
    dz = bz - az
    sx = 1 if dx > 0 else -1
    sz = 1 if dz > 0 else -1
    if dx < 0:
        dx = -dx
    if dz < 0:
        dz = -dz
    x = ax
    z = az
    if not _free(cells, marks, mark, a):
        return False
    # err compares the crossing points of the next vertical and horizontal
    # cell borders, scaled by 2*dx*dz to stay integral.
    err = dx - dz
    n = dx + dz
    dx2 = 2 * dx
    dz2 = 2 * dz
    while n > 0:
        if err > 0:
            x += sx
            err -= dz2
            n -= 1
        elif err < 0:
            z += sz
            err += dx2
            n -= 1
        else:
            # exact corner: diagonal step, both side cells must be free
            if not _free(cells, marks, mark, z * wp + x + sx):
                return False
            if not _free(cells, marks, mark, (z + sz) * wp + x):
                return False
            x += sx
            z += sz
            err += dx2 - dz2
            n -= 2
        if not _free(cells, marks, mark, z * wp + x):
            return False
    return True


@njit(inline="always")
def segment_weight(weights, wp, a, b):  # type: ignore[no-untyped-def]
    """The weights along the segment between the centres of padded nodes
    ``a`` and ``b``, exactly: ``(acc, scale)`` with ``acc / scale`` the mean
    weight, each cell's weight counted by the fraction of the segment inside
    it (cells met at a corner only count zero). Integers: the segment's
    parameter at every cell border is a multiple of ``1 / scale``."""
    ax = a % wp
    az = a // wp
    bx = b % wp
    bz = b // wp
    adx = abs(bx - ax)
    adz = abs(bz - az)
    sx = 1 if bx > ax else -1
    sz = 1 if bz > az else -1
    if adx == 0 and adz == 0:
        return np.int64(weights[a]), np.int64(1)
    # scaled parameter of the next vertical / horizontal border and the step
    # between borders; a direction with no borders never comes first
    if adx != 0 and adz != 0:
        scale = 2 * adx * adz
        tx, dtx, tz, dtz = adz, 2 * adz, adx, 2 * adx
    elif adx != 0:
        scale = 2 * adx
        tx, dtx, tz, dtz = 1, 2, scale + 1, 0
    else:
        scale = 2 * adz
        tx, dtx, tz, dtz = scale + 1, 0, 1, 2
    t = 0
    acc = 0
    x = ax
    z = az
    while True:
        tn = min(min(tx, tz), scale)
        acc += weights[z * wp + x] * (tn - t)
        if tn >= scale:
            break
        t = tn
        if tx < tz:
            x += sx
            tx += dtx
        elif tz < tx:
            z += sz
            tz += dtz
        else:  # through a corner: the side cells get no length
            x += sx
            z += sz
            tx += dtx
            tz += dtz
    return acc, np.int64(scale)


@njit(inline="always")
def _string_pull(cells, overlay, wp, path, n, out, weights, card, diag, cum, weighted):  # type: ignore[no-untyped-def]
    """The string pull of :func:`string_pull` and :func:`string_pull_weighted`
    (``weighted`` is a compile-time constant)."""
    if n == 0:
        return 0
    if weighted:
        cum[0] = 0
        for i in range(1, n):
            d = path[i] - path[i - 1]
            step = card if (d == 1 or d == -1 or d == wp or d == -wp) else diag
            cum[i] = cum[i - 1] + step * weights[path[i]]
    m = 0
    anchor = 0
    out[m] = path[0]
    m += 1
    while anchor < n - 1:
        nxt = anchor + 1
        j = n - 1
        a = path[anchor]
        while j > anchor + 1:
            b = path[j]
            ok = line_of_sight(cells, overlay, wp, np.int64(a), np.int64(b))  # int64: one signature
            if ok and weighted:
                acc, scale = segment_weight(weights, wp, a, b)
                adx = abs(b % wp - a % wp)
                adz = abs(b // wp - a // wp)
                octile = card * (max(adx, adz) - min(adx, adz)) + diag * min(adx, adz)
                ok = (np.float64(acc) * np.float64(octile)
                      <= np.float64(cum[j] - cum[anchor]) * np.float64(scale))
            if ok:
                nxt = j
                break
            j -= 1
        out[m] = path[nxt]
        m += 1
        anchor = nxt
    return m


@njit(_nrt=False)
def string_pull(cells, overlay, wp, path, n, out):  # type: ignore[no-untyped-def]
    """String pulling (docs/rules.md §5.1): from each anchor keep the furthest
    path node in sight.

    ``path[:n]`` holds padded nodes; the kept nodes go to ``out``; returns
    their count (always keeps the first and last node).
    """
    return _string_pull(cells, overlay, wp, path, n, out, path, 0, 0, out, False)


@njit(_nrt=False)
def string_pull_weighted(cells, overlay, wp, weights, card, diag, path, n, out, cum):  # type: ignore[no-untyped-def]
    """:func:`string_pull` on weighted terrain: a node in sight is kept only
    when the straight segment to it costs no more than the path it replaces.
    The segment costs its mean weight (:func:`segment_weight`) times what the
    cost model charges for its displacement on uniform terrain
    (``card * (long - short) + diag * short``); the path costs its steps
    times the weights of the cells entered. On uniform terrain any grid path
    costs at least that much, so every node in sight qualifies and this is
    :func:`string_pull`'s rule. ``cum`` (int64, ``n`` entries) is scratch for
    the path's running cost. The comparison multiplies exact integers in
    floating point: equal costs compare equal on every machine.
    """
    return _string_pull(cells, overlay, wp, path, n, out, weights, card, diag, cum, True)


@njit(inline="always")
def free_node(cells, marks, mark, wp, hp, cx, cz):  # type: ignore[no-untyped-def]
    """The padded node of the unpadded cell ``(cx, cz)`` when it lies in the
    grid and is free (under ``mark``, 0: no overlay), else -1: snapping's first
    answer (docs/rules.md §4.1)."""
    if 0 <= cx < wp - 2 and 0 <= cz < hp - 2:
        q = cell_node(cx, cz, wp)
        if _free(cells, marks, mark, q):
            return q
    return -1


@njit(_nrt=False)
def snap_cell(cells, overlay, wp, hp, rings, cx, cz):  # type: ignore[no-untyped-def]
    """Snapping (docs/rules.md §4.1) of the unpadded cell ``(cx, cz)``
    (anywhere, even far outside the grid): its padded node when free, else the
    nearest free node within ``rings`` square rings (:func:`nearest_free`),
    else -1."""
    overlay_ = OverlayArgs(*overlay)
    q = free_node(cells, overlay_.marks, overlay_.mark, wp, hp, cx, cz)
    if q >= 0:
        return q
    # clamp far-away cells so the ring arithmetic stays small
    lim = (wp if wp > hp else hp) + rings + 2
    if cx < -lim:
        cx = -lim
    elif cx > lim:
        cx = lim
    if cz < -lim:
        cz = -lim
    elif cz > lim:
        cz = lim
    return nearest_free(cells, overlay, wp, hp, cx + 1, cz + 1, rings)


@njit(_nrt=False)
def nearest_free(cells, overlay, wp, hp, cx, cz, radius):  # type: ignore[no-untyped-def]
    """Nearest free padded node to padded cell ``(cx, cz)`` within Chebyshev ``radius``.

    ``(cx, cz)`` may lie outside the grid. Rings grow outward; the winner has
    the smallest squared distance, ties to the lower index. Returns -1 if none.
    Only the rings that meet the grid are walked, and only their part inside
    it: at most ``max(wp, hp)`` rings of ``O(wp + hp)`` cells, whatever ``radius``.
    """
    overlay_ = OverlayArgs(*overlay)
    marks, mark = overlay_.marks, overlay_.mark
    x_lo, x_hi, z_lo, z_hi = 1, wp - 2, 1, hp - 2  # the grid's padded nodes
    # rings below r_min miss the grid; beyond r_max it is all inside
    r_min = max(max(x_lo - cx, cx - x_hi), max(z_lo - cz, cz - z_hi))
    r_min = max(r_min, 0)
    r_max = max(max(cx - x_lo, x_hi - cx), max(cz - z_lo, z_hi - cz))
    if radius > r_max:
        radius = r_max
    best = -1
    best_d2 = 0
    r = r_min
    while r <= radius:
        if best >= 0 and r * r > best_d2:
            break
        z0 = cz - r
        z1 = cz + r
        for z in range(max(z0, z_lo), min(z1, z_hi) + 1):
            dz = z - cz
            if z == z0 or z == z1:  # a whole edge row of the ring
                x_from, x_to, step = max(cx - r, x_lo), min(cx + r, x_hi), 1
            else:  # its two side cells
                x_from, x_to, step = cx - r, cx + r, 2 * r
            x = x_from
            while x <= x_to:
                if x_lo <= x <= x_hi:
                    q = z * wp + x
                    if _free(cells, marks, mark, q):
                        d2 = (x - cx) * (x - cx) + dz * dz
                        if best < 0 or d2 < best_d2 or (d2 == best_d2 and q < best):
                            best = q
                            best_d2 = d2
                if step == 0:
                    break
                x += step
        r += 1
    return best


@njit(inline="always")
def circle_cells(x, z, r, min_x, min_z, cell_size, w, d):  # type: ignore[no-untyped-def]
    """The cells ``(x0, z0, x1, z1)`` (inclusive, unpadded, clipped to a
    ``w`` x ``d`` grid) whose centres may lie in the world circle ``(x, z, r)``;
    ``x0 > x1`` when none do. Clipped while still floats, so any finite
    circle is safe."""
    fx0 = np.ceil((x - r - min_x) / cell_size - 0.5)
    fx1 = np.floor((x + r - min_x) / cell_size - 0.5)
    fz0 = np.ceil((z - r - min_z) / cell_size - 0.5)
    fz1 = np.floor((z + r - min_z) / cell_size - 0.5)
    if not (fx1 >= 0 and fz1 >= 0 and fx0 <= w - 1 and fz0 <= d - 1 and fx0 <= fx1 and fz0 <= fz1):
        return 0, 0, -1, -1
    x0 = 0 if fx0 < 0 else int(fx0)
    z0 = 0 if fz0 < 0 else int(fz0)
    x1 = w - 1 if fx1 > w - 1 else int(fx1)
    z1 = d - 1 if fz1 > d - 1 else int(fz1)
    return x0, z0, x1, z1


@njit(_nrt=False)
def stamp_circles(marks, mark, wp, hp, min_x, min_z, cell_size, circles, counts, delta):  # type: ignore[no-untyped-def]
    """Mark every cell whose centre lies within a circle (closed disc).

    ``circles`` is ``(k, 3)`` world ``(x, z, radius)``, finite, radius >= 0,
    coordinates within ``MAX_COORD`` (so squares cannot overflow). With
    ``delta == 0`` the cells get ``marks[i] = mark`` (a per-query overlay);
    otherwise ``counts[i] += delta`` (long-lived occupancy counters). Returns
    the number of cells touched.
    """
    touched = 0
    for c in range(circles.shape[0]):
        x = circles[c, 0]
        z = circles[c, 1]
        r = circles[c, 2]
        x0, z0, x1, z1 = circle_cells(x, z, r, min_x, min_z, cell_size, wp - 2, hp - 2)
        r2 = r * r
        for cz in range(z0, z1 + 1):
            dz = min_z + (cz + 0.5) * cell_size - z
            for cx in range(x0, x1 + 1):
                dx = min_x + (cx + 0.5) * cell_size - x
                if dx * dx + dz * dz <= r2:
                    q = cell_node(cx, cz, wp)
                    if delta == 0:
                        marks[q] = mark
                    else:
                        counts[q] += delta
                    touched += 1
    return touched


@njit(_nrt=False)
def reachable_nearest(cells, overlay, wp, start, gx, gz, tag, gen, queue):  # type: ignore[no-untyped-def]
    """The cell reachable from padded node ``start`` closest to padded cell ``(gx, gz)``.

    Returns ``(best, count)``: the padded node with the smallest squared
    distance (ties to the lower index) among the ``count`` reachable cells.
    A flood over the four straight neighbours: under the corner rule a
    diagonal step needs both side cells free, so 8-connected reachability is
    4-connected reachability. ``best`` is then the cell an exhaustive A*
    (find-path-to-nearest, docs/rules.md §6.4) picks. ``tag`` (int32) is marked
    ``2 * gen`` on visited cells (an A* workspace with a fresh generation);
    ``queue`` (int32) holds every padded node.
    """
    overlay_ = OverlayArgs(*overlay)
    marks, mark = overlay_.marks, overlay_.mark
    seen = np.int32(2 * gen)
    head = 0
    tail = 1
    queue[0] = start
    tag[start] = seen
    best = start
    best_d2 = (start % wp - gx) ** 2 + (start // wp - gz) ** 2
    while head < tail:
        p = queue[head]
        head += 1
        pz = p // wp
        best, best_d2 = closer(p, p - pz * wp, pz, gx, gz, best, best_d2)
        for q in (p + 1, p - 1, p + wp, p - wp):
            if tag[q] != seen and _free(cells, marks, mark, q):
                tag[q] = seen
                queue[tail] = q
                tail += 1
    return best, tail
