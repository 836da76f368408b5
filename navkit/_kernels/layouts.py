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
