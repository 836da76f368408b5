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

__all__: list[str] = []


# --------------------------------------------------------------- simulation
# (navkit._kernels.sim; the layouts of the tick kernel's argument groups)


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
