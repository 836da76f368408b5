"""Argument layout of the mesh kernels (see :mod:`navkit._kernels.layouts` for the idea).

The Python layer passes ``tuple(MeshArgs(...))`` (built by
:meth:`navkit.mesh.arrays.MeshArrays.args`); a kernel opens it with
``mesh = MeshArgs(*mesh_t)``. Lengths in metres; polygons are convex and
counter-clockwise in the ``(x, z)`` plane (docs/navmesh.md §1).
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["MeshArgs"]


class MeshArgs(NamedTuple):
    """A mesh's arrays (fields as in :class:`navkit.mesh.arrays.MeshArrays`)."""

    #: float64 (V, 2): world (x, z), metres.
    vertices: Any
    #: int32 (P + 1,): CSR offsets into ``poly_verts``.
    poly_start: Any
    #: int32 (E,): vertex ids, counter-clockwise per polygon.
    poly_verts: Any
    #: int32 (E,): polygon across edge k (poly_verts[k] -> next), -1 for a wall.
    poly_adj: Any
    #: int32 (V + 1,): CSR offsets into ``vert_polys``.
    vert_start: Any
    #: int32: polygons around each vertex counter-clockwise, -1 at wall gaps.
    vert_polys: Any
    #: uint8 (V,): 1 when the vertex touches a wall.
    vert_corner: Any
    #: float64 (P, 4): min_x, min_z, max_x, max_z.
    poly_bbox: Any
    #: float64 (4,): bucket grid origin_x, origin_z, bucket size, unused.
    bucket_geom: Any
    #: int32 (2,): buckets along x, z.
    bucket_dims: Any
    #: int32 (nx * nz + 1,): CSR offsets into ``bucket_polys`` (bucket = iz * nx + ix).
    bucket_start: Any
    #: int32: polygons whose boxes meet each bucket.
    bucket_polys: Any
