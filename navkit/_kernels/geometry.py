"""Integer line of sight, string-pulling smoothing and nearest-walkable snapping.

All on the padded grid described in :mod:`navkit._kernels`; ``overlay`` is
``(marks, mark)`` as in :mod:`navkit._kernels.search`.
"""

from __future__ import annotations

import numpy as np

from .._numba_config import njit


@njit(inline="always")
def _free(cells, marks, mark, q):  # type: ignore[no-untyped-def]
    return cells[q] != 0 and not (mark > 0 and marks[q] == mark)


@njit
def line_of_sight(cells, overlay, wp, a, b):  # type: ignore[no-untyped-def]
    """True when the segment between the centres of padded nodes a and b is clear.

    Walks every cell the segment touches (a supercover traversal in integer
    arithmetic). Where the segment passes exactly through a cell corner it
    steps diagonally, and both side cells must be free: the corner rule of A*.
    """
    marks, mark = overlay
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


@njit
def string_pull(cells, overlay, wp, path, n, out):  # type: ignore[no-untyped-def]
    """Seed 000 §4: from each anchor keep the furthest path node in sight.

    ``path[:n]`` holds padded nodes; the kept nodes go to ``out``; returns
    their count (always keeps the first and last node).
    """
    if n == 0:
        return 0
    m = 0
    anchor = 0
    out[m] = path[0]
    m += 1
    while anchor < n - 1:
        nxt = anchor + 1
        j = n - 1
        while j > anchor + 1:
            if line_of_sight(cells, overlay, wp, path[anchor], path[j]):
                nxt = j
                break
            j -= 1
        out[m] = path[nxt]
        m += 1
        anchor = nxt
    return m


@njit
def nearest_free(cells, overlay, wp, hp, cx, cz, radius):  # type: ignore[no-untyped-def]
    """Nearest free padded node to padded cell ``(cx, cz)`` within Chebyshev ``radius``.

    ``(cx, cz)`` may lie outside the grid. Rings grow outward; the winner has
    the smallest squared distance, ties to the lower index. Returns -1 if none.
    """
    marks, mark = overlay
    best = -1
    best_d2 = 0
    r = 0
    while r <= radius:
        if best >= 0 and r * r > best_d2:
            break
        z0 = cz - r
        z1 = cz + r
        for z in range(z0, z1 + 1):
            if z < 1 or z > hp - 2:
                continue
            edge = z == z0 or z == z1
            step = 1 if edge else 2 * r
            x = cx - r
            while x <= cx + r:
                if 1 <= x <= wp - 2:
                    q = z * wp + x
                    if _free(cells, marks, mark, q):
                        d2 = (x - cx) * (x - cx) + (z - cz) * (z - cz)
                        if best < 0 or d2 < best_d2 or (d2 == best_d2 and q < best):
                            best = q
                            best_d2 = d2
                if step == 0:
                    break
                x += step
        r += 1
    return best


@njit
def stamp_circles(marks, mark, wp, hp, min_x, min_z, cell_size, circles, counts, delta):  # type: ignore[no-untyped-def]
    """Mark every cell whose centre lies within a circle (closed disc).

    ``circles`` is ``(k, 3)`` world ``(x, z, radius)``. With ``delta == 0``
    the cells get ``marks[i] = mark`` (a per-query overlay); otherwise
    ``counts[i] += delta`` (long-lived occupancy counters). Returns the number
    of cells touched.
    """
    touched = 0
    w = wp - 2
    d = hp - 2
    for c in range(circles.shape[0]):
        x = circles[c, 0]
        z = circles[c, 1]
        r = circles[c, 2]
        x0 = int(np.ceil((x - r - min_x) / cell_size - 0.5))
        x1 = int(np.floor((x + r - min_x) / cell_size - 0.5))
        z0 = int(np.ceil((z - r - min_z) / cell_size - 0.5))
        z1 = int(np.floor((z + r - min_z) / cell_size - 0.5))
        if x0 < 0:
            x0 = 0
        if z0 < 0:
            z0 = 0
        if x1 > w - 1:
            x1 = w - 1
        if z1 > d - 1:
            z1 = d - 1
        r2 = r * r
        for cz in range(z0, z1 + 1):
            dz = min_z + (cz + 0.5) * cell_size - z
            for cx in range(x0, x1 + 1):
                dx = min_x + (cx + 0.5) * cell_size - x
                if dx * dx + dz * dz <= r2:
                    q = (cz + 1) * wp + cx + 1
                    if delta == 0:
                        marks[q] = mark
                    else:
                        counts[q] += delta
                    touched += 1
    return touched
