"""Map fingerprints: one hex string that changes whenever a query's answer could.

:func:`grid_fingerprint` is the SHA-256 of a little-endian byte layout of
the grid (the layout is fixed, so the hex is the same on every machine and
in every run)::

    b"navkit-grid-v1"                 tag
    int64 depth, int64 width           shape
    float64 cell_size, min_x, min_z    geometry (metres)
    walkable bits                      np.packbits of the [z, x] array, row-major
    uint8 weighted flag                1 when the grid carries weights
    int32 weights                      [z, x], row-major (only when weighted)

``floor_y`` and ``agent_radius`` do not change a path and are left out.

>>> import numpy as np
>>> from navkit import NavGrid
>>> a = NavGrid(np.ones((2, 3), bool))
>>> grid_fingerprint(a) == grid_fingerprint(NavGrid(np.ones((2, 3), bool)))
True
>>> len(grid_fingerprint(a))
64
"""

from __future__ import annotations

import hashlib

import numpy as np

from ..grid import NavGrid

__all__ = ["grid_fingerprint", "FINGERPRINT_TAG"]

#: Version tag hashed first (bump it when the layout changes).
FINGERPRINT_TAG = b"navkit-grid-v1"


def grid_fingerprint(grid: NavGrid) -> str:
    """SHA-256 (64 hex digits) over shape, walkable bits, weights and geometry of ``grid``."""
    h = hashlib.sha256(FINGERPRINT_TAG)
    h.update(np.array([grid.depth, grid.width], dtype="<i8").tobytes())
    h.update(np.array([grid.cell_size, grid.min_x, grid.min_z], dtype="<f8").tobytes())
    h.update(np.packbits(np.ascontiguousarray(grid.walkable, dtype=np.bool_)).tobytes())
    if grid.weights is None:
        h.update(b"\x00")
    else:
        h.update(b"\x01")
        h.update(np.ascontiguousarray(grid.weights, dtype="<i4").tobytes())
    return h.hexdigest()
