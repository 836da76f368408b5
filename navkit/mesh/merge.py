"""Merging a mesh's polygons into larger convex polygons (Hertel-Mehlhorn).

Every shared edge (a *diagonal*) is looked at once, longest first (ties by
the lower half-edge index): it is removed when both of its end vertices stay
convex (or straight) in the merged polygon. The result tiles the same space,
is convex, counter-clockwise and conforming (every vertex is kept, so a
neighbour's vertex never ends up in the middle of an edge).

>>> import numpy as np
>>> from navkit.mesh.arrays import from_polygons
>>> tri = from_polygons(np.array([[0, 0], [2, 0], [2, 1], [0, 1]], float), [[0, 1, 2], [0, 2, 3]])
>>> merge_convex(tri).n_polygons
1
"""

from __future__ import annotations

import numpy as np

from .._kernels import mesh_build as _mk
from .arrays import MeshArrays, from_csr

__all__ = ["merge_convex"]


def merge_convex(arrays: MeshArrays) -> MeshArrays:
    """``arrays`` with diagonals removed while polygons stay convex (see module doc)."""
    ps = arrays.poly_start.astype(np.int64)
    origin = arrays.poly_verts.astype(np.int64)
    n_edge = len(origin)
    n_poly = len(ps) - 1
    nxt = np.arange(1, n_edge + 1, dtype=np.int64)
    nxt[ps[1:] - 1] = ps[:-1]
    prv = np.empty(n_edge, dtype=np.int64)
    prv[nxt] = np.arange(n_edge, dtype=np.int64)
    nv = arrays.n_vertices
    dest = origin[nxt]
    key = origin * nv + dest
    order = np.argsort(key, kind="stable")
    rev = dest * nv + origin
    pos = np.minimum(np.searchsorted(key[order], rev), n_edge - 1)
    twin = np.where(key[order][pos] == rev, order[pos], -1).astype(np.int64)
    diag = np.flatnonzero(twin > np.arange(n_edge))
    v = arrays.vertices
    d = v[dest[diag]] - v[origin[diag]]
    length2 = d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]
    by = diag[np.lexsort((diag, -length2))].astype(np.int64)
    # union-find over half-edges: each starts in its polygon's lowest half-edge
    face = np.repeat(ps[:-1], np.diff(ps)).astype(np.int64)
    _mk.merge_faces(v, origin, nxt, prv, twin, by, face)
    out_start = np.empty(n_poly + 1, dtype=np.int64)
    out_verts = np.empty(n_edge, dtype=np.int64)
    nf = int(_mk.face_rings(origin, nxt, twin, out_start, out_verts))
    return from_csr(v, out_start[:nf + 1], out_verts[:int(out_start[nf])])
