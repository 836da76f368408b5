"""The arrays of a navigation mesh, their invariants, and how they are saved.

A mesh is a set of **convex polygons** that tile the free space (docs/navmesh.md
§1). Every array is contiguous and owned by a :class:`MeshArrays`; kernels read
them through :class:`navkit._kernels.mesh_layouts.MeshArgs`.

=================  ==========  ===================================================
field              dtype       meaning
=================  ==========  ===================================================
``vertices``       float64     ``(V, 2)`` world ``(x, z)`` in metres
``poly_start``     int32       ``(P + 1,)`` CSR offsets into ``poly_verts``
``poly_verts``     int32       ``(E,)`` vertex ids of each polygon, counter-clockwise
``poly_adj``       int32       ``(E,)`` polygon across edge ``k`` (from
                               ``poly_verts[k]`` to the next vertex of the same
                               polygon), ``-1`` for a wall
``vert_start``     int32       ``(V + 1,)`` CSR offsets into ``vert_polys``
``vert_polys``     int32       polygons around each vertex in counter-clockwise
                               order, ``-1`` marking each wall gap
``vert_corner``    uint8       ``(V,)`` 1 when the vertex touches a wall
``poly_bbox``      float64     ``(P, 4)`` ``min_x, min_z, max_x, max_z``
``poly_region``    int32       ``(P,)`` connected component of each polygon
``bucket_*``                   a uniform grid over the bounds: the polygons whose
                               boxes meet each bucket (point location)
=================  ==========  ===================================================

Meshes are conforming: two polygons that share an edge share both of its
vertices (no T-junctions), and a vertex lies on no other polygon's edge.

>>> import numpy as np
>>> m = from_polygons(np.array([[0, 0], [2, 0], [2, 1], [0, 1], [1, 0], [1, 1]], float),
...                   [[0, 4, 5, 3], [4, 1, 2, 5]])
>>> m.n_polygons, m.poly_adj.tolist()
(2, [-1, 1, -1, -1, -1, -1, -1, 0])
>>> m.vert_corner.tolist()
[1, 1, 1, 1, 1, 1]
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray

from .._kernels import mesh_build as _mk
from .._kernels.mesh_layouts import MeshArgs
from ..errors import FormatError, QueryError

__all__ = ["MeshArrays", "from_polygons", "from_csr", "FORMAT_VERSION"]

#: Version of the ``.npz`` mesh file (docs/navmesh.md §5).
FORMAT_VERSION = 1
#: Most bytes the arrays of a ``.npz`` mesh file may unpack to (checked from the
#: zip directory before anything is decompressed: a small file cannot blow up).
MAX_FILE_BYTES = 1 << 30

I32 = NDArray[np.int32]
F64 = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class MeshArrays:
    """The arrays of a mesh (see the module docstring for each field)."""

    vertices: F64
    poly_start: I32
    poly_verts: I32
    poly_adj: I32
    vert_start: I32
    vert_polys: I32
    vert_corner: NDArray[np.uint8]
    poly_bbox: F64
    poly_region: I32
    #: float64 (4,): ``origin_x, origin_z, bucket_size, unused``.
    bucket_geom: F64
    #: int32 (2,): buckets along x and z.
    bucket_dims: I32
    bucket_start: I32
    bucket_polys: I32

    @property
    def n_vertices(self) -> int:
        return int(self.vertices.shape[0])

    @property
    def n_polygons(self) -> int:
        return int(self.poly_start.shape[0] - 1)

    def args(self) -> tuple[Any, ...]:
        """The arrays as the plain tuple the kernels take (:class:`MeshArgs` order;
        built once per mesh: numba unpacks a tuple it has seen faster)."""
        cached = self.__dict__.get("_args")
        if cached is not None:
            return cached
        out = tuple(MeshArgs(self.vertices, self.poly_start, self.poly_verts, self.poly_adj,
                              self.vert_start, self.vert_polys, self.vert_corner, self.poly_bbox,
                              self.bucket_geom, self.bucket_dims, self.bucket_start,
                              self.bucket_polys))
        self.__dict__["_args"] = out
        return out

    def polygon(self, i: int) -> F64:
        """Polygon ``i``'s vertices, ``(k, 2)`` metres, counter-clockwise."""
        return self.vertices[self.poly_verts[self.poly_start[i]:self.poly_start[i + 1]]]

    def edges_of(self, ids: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``(lens, idx)`` of polygons ``ids``: their vertex counts and the
        ``poly_verts`` / ``poly_adj`` indices of their edges, polygon after polygon."""
        ps = self.poly_start
        lens = (ps[ids + 1] - ps[ids]).astype(np.int64)
        idx = np.repeat(ps[ids].astype(np.int64) - np.concatenate([[0], np.cumsum(lens)[:-1]]),
                        lens) + np.arange(int(lens.sum()))
        return lens, idx

    def shapes(self, ids: NDArray[np.int64] | None = None) -> NDArray[Any]:
        """Polygons ``ids`` (default: all) as shapely ``Polygon``s, an object array
        built vectorised."""
        if ids is None:
            lens = np.diff(self.poly_start).astype(np.int64)
            idx = np.arange(len(self.poly_verts))
        else:
            lens, idx = self.edges_of(ids)
        owner = np.repeat(np.arange(len(lens)), lens)
        rings = shapely.linearrings(self.vertices[self.poly_verts[idx]], indices=owner)
        return shapely.polygons(rings)

    def polygons(self) -> list[F64]:
        """Every polygon's vertices (``polygon(i)`` for each ``i``)."""
        return [self.polygon(i) for i in range(self.n_polygons)]

    def bounds(self) -> tuple[float, float, float, float]:
        """``(min_x, min_z, max_x, max_z)`` of all vertices, metres."""
        lo = self.vertices.min(axis=0)
        hi = self.vertices.max(axis=0)
        return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])

    def nbytes(self) -> int:
        """Bytes held by the arrays."""
        return sum(int(getattr(self, f.name).nbytes) for f in fields(self))

    # ----------------------------------------------------------------- files
    def save(self, path: str | Path, *, meta: dict[str, Any] | None = None) -> None:
        """Write the mesh as a compressed ``.npz`` (format in docs/navmesh.md §5).

        ``meta`` is stored as JSON beside the arrays (for example the level's
        area names and ``floorY``).
        """
        header = {"format": "navkit-mesh", "version": FORMAT_VERSION, "meta": meta or {}}
        buf = io.BytesIO()
        np.savez_compressed(buf, header=np.frombuffer(json.dumps(header).encode(), np.uint8),
                            vertices=self.vertices, poly_start=self.poly_start,
                            poly_verts=self.poly_verts)
        Path(path).write_bytes(buf.getvalue())

    @staticmethod
    def load(path: str | Path) -> tuple[MeshArrays, dict[str, Any]]:
        """Read a mesh written by :meth:`save`: ``(arrays, meta)``.

        Only vertices and polygons are stored; adjacency and the rest are
        rebuilt and every invariant is checked, so a damaged or hostile file
        raises :class:`~navkit.errors.FormatError` naming the file. The
        polygons must also tile without overlapping (``shapely.coverage_is_valid``).
        """
        p = Path(path)
        try:
            return MeshArrays._load(p)
        except FormatError:
            raise
        except MemoryError:
            raise FormatError("mesh file too large for memory", path=str(p)) from None
        except Exception as exc:  # a hostile file: any other failure is a bad file
            raise FormatError(f"not a navkit mesh file ({type(exc).__name__}: "
                              f"{str(exc)[:200]})", path=str(p)) from None

    @staticmethod
    def _load(p: Path) -> tuple[MeshArrays, dict[str, Any]]:
        try:
            with zipfile.ZipFile(p) as zf:
                size = sum(i.file_size for i in zf.infolist())
        except (OSError, zipfile.BadZipFile, ValueError) as exc:
            raise FormatError(f"not a navkit mesh file ({type(exc).__name__}: {exc})",
                              path=str(p)) from None
        # at most MAX_FILE_BYTES, and at most 64 times the file past 64 MiB (a deflate
        # bomb of a few MB cannot unpack to a gigabyte; real meshes pack 2-10 x)
        cap = min(MAX_FILE_BYTES, max(64 << 20, 64 * p.stat().st_size))
        if size > cap:
            raise FormatError(f"mesh file unpacks to {size:_} bytes, more than "
                              f"MAX_FILE_BYTES = {MAX_FILE_BYTES:_} or 64 x its size",
                              path=str(p))
        from ..formats.archive import read_npz  # the one bounded .npz reader

        data = read_npz(p, dict.fromkeys(("header", "vertices", "poly_start", "poly_verts"),
                                         cap), "navkit mesh file", max_total=cap)
        if not all(isinstance(data[k], np.ndarray) for k in data):
            raise FormatError("mesh members must be .npy arrays", path=str(p))
        try:
            header = json.loads(bytes(data["header"].astype(np.uint8)).decode())
        except (ValueError, UnicodeDecodeError, RecursionError, TypeError):
            raise FormatError("mesh header is not JSON", path=str(p)) from None
        if not isinstance(header, dict) or header.get("format") != "navkit-mesh":
            raise FormatError("not a navkit mesh file (header format)", path=str(p))
        if header.get("version") != FORMAT_VERSION:
            raise FormatError(f"mesh format version {header.get('version')!r} is not "
                              f"{FORMAT_VERSION}", path=str(p))
        ps, pv = data["poly_start"], data["poly_verts"]
        if data["vertices"].dtype.kind not in "iuf":
            raise FormatError(f"vertices must be a float array, got dtype {data['vertices'].dtype}",
                              path=str(p))
        if ps.ndim != 1 or pv.ndim != 1 or ps.dtype.kind not in "iu" or pv.dtype.kind not in "iu":
            raise FormatError("poly_start / poly_verts must be 1-d integer arrays", path=str(p))
        if (len(ps) < 2 or ps[0] != 0 or ps[-1] != len(pv)
                or np.any(np.diff(ps.astype(np.int64)) < 3)):
            raise FormatError("poly_start is not a CSR offset array of polygons with 3+ "
                              "vertices", path=str(p))
        try:
            arrays = from_csr(_check_vertices(data["vertices"]), ps.astype(np.int64),
                              pv.astype(np.int64))
        except QueryError as exc:
            raise FormatError(str(exc), path=str(p)) from None
        if not bool(shapely.coverage_is_valid(arrays.shapes())):
            raise FormatError("mesh polygons overlap (a mesh tiles its free space)",
                              path=str(p))
        meta = header.get("meta", {})
        return arrays, meta if isinstance(meta, dict) else {}


def _check_vertices(vertices: Any) -> F64:
    v = np.ascontiguousarray(vertices, dtype=np.float64)
    if v.ndim != 2 or v.shape[1] != 2 or v.shape[0] < 3:
        raise QueryError(f"vertices: expected a (V, 2) array with V >= 3, got shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise QueryError("vertices: every coordinate must be finite")
    if np.abs(v).max() > 1e15:
        raise QueryError("vertices: coordinates must lie within +-1e15 m")
    return v


def from_polygons(vertices: Any, polygons: Sequence[Sequence[int]]) -> MeshArrays:
    """Build and check a mesh from vertices ``(V, 2)`` and convex polygons (vertex id lists).

    Polygons may be given clockwise; they are stored counter-clockwise.
    Raises :class:`~navkit.errors.QueryError` when a polygon has fewer than 3
    vertices, an index is out of range, a polygon is not strictly convex
    (collinear vertices allowed), or an edge is shared by more than two
    polygons or twice in the same direction.
    """
    v = _check_vertices(vertices)
    starts, ids = _flatten(polygons, v.shape[0])
    return from_csr(v, starts, ids)


def from_csr(vertices: Any, starts: Any, ids: Any) -> MeshArrays:
    """:func:`from_polygons` for polygons already in CSR form (offsets, vertex ids)."""
    v = _check_vertices(vertices)
    nv = v.shape[0]
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    if len(starts) < 2:
        raise QueryError("polygons: a mesh needs at least one polygon")
    poly_start, poly_verts = _check_polygons(v, starts, np.ascontiguousarray(ids, np.int64))
    n_poly = len(poly_start) - 1
    n_edge = len(poly_verts)
    nxt = np.arange(1, n_edge + 1, dtype=np.int64)
    nxt[poly_start[1:] - 1] = poly_start[:-1]
    a_id = poly_verts.astype(np.int64)
    b_id = poly_verts[nxt].astype(np.int64)
    owner = np.repeat(np.arange(n_poly, dtype=np.int32), np.diff(poly_start))
    key_dir = a_id * nv + b_id
    order = np.argsort(key_dir, kind="stable")
    sorted_keys = key_dir[order]
    if n_edge > 1 and np.any(sorted_keys[1:] == sorted_keys[:-1]):
        raise QueryError("polygons: an edge appears twice in the same direction "
                         "(overlapping or badly oriented polygons)")
    rev = b_id * nv + a_id
    pos = np.searchsorted(sorted_keys, rev)
    pos = np.minimum(pos, n_edge - 1)
    hit = sorted_keys[pos] == rev
    twin = np.where(hit, order[pos], -1).astype(np.int64)
    poly_adj = np.where(hit, owner[order][pos], -1).astype(np.int32)
    # polygons around each vertex, counter-clockwise, -1 for wall gaps: across a
    # polygon's edge leaving u lies the next polygon counter-clockwise (kernel).
    vert_corner = np.zeros(nv, dtype=np.uint8)
    vert_corner[a_id[poly_adj < 0]] = 1
    vert_corner[b_id[poly_adj < 0]] = 1
    prev_edge = np.empty(n_edge, dtype=np.int64)
    prev_edge[nxt] = np.arange(n_edge)
    out_edges = np.argsort(a_id, kind="stable").astype(np.int64)  # by vertex, then polygon
    out_start = np.searchsorted(a_id[out_edges], np.arange(nv + 1)).astype(np.int64)
    vert_start = np.empty(nv + 1, dtype=np.int32)
    vert_polys = np.empty(2 * n_edge + 1, dtype=np.int32)
    bad = np.zeros(1, dtype=np.int64)
    stamp = np.empty(n_poly, dtype=np.int64)
    status = _mk.vertex_fans(nv, out_start, out_edges, owner.astype(np.int64), twin, nxt,
                             prev_edge, stamp, vert_start, vert_polys, bad)
    if status != 0:
        raise QueryError(f"vertices[{int(bad[0])}]: the polygons around it do not form fans "
                         "(the mesh is not conforming)")
    vert_polys = np.ascontiguousarray(vert_polys[:int(vert_start[-1])])
    # boxes
    poly_bbox = np.empty((n_poly, 4), dtype=np.float64)
    poly_bbox[:, 0] = np.minimum.reduceat(v[poly_verts, 0], poly_start[:-1])
    poly_bbox[:, 1] = np.minimum.reduceat(v[poly_verts, 1], poly_start[:-1])
    poly_bbox[:, 2] = np.maximum.reduceat(v[poly_verts, 0], poly_start[:-1])
    poly_bbox[:, 3] = np.maximum.reduceat(v[poly_verts, 1], poly_start[:-1])
    poly_region = _regions(poly_start, poly_adj, n_poly)
    bucket_geom, bucket_dims, bucket_start, bucket_polys = _buckets(poly_bbox)
    return MeshArrays(v, poly_start, poly_verts, poly_adj, vert_start, vert_polys, vert_corner,
                      poly_bbox, poly_region, bucket_geom, bucket_dims, bucket_start,
                      bucket_polys)


def _flatten(polygons: Any, nv: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Polygons (vertex id lists, or a 2-d integer array) -> CSR ``(starts, ids)``."""
    if isinstance(polygons, np.ndarray) and polygons.ndim == 2 and polygons.dtype.kind in "iu":
        n, k = polygons.shape
        ids = np.ascontiguousarray(polygons, dtype=np.int64).ravel()
        starts = np.arange(n + 1, dtype=np.int64) * k
    else:
        rows = [np.asarray(p).ravel() for p in polygons]
        lens = np.array([len(r) for r in rows], dtype=np.int64)
        starts = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lens, out=starts[1:])
        if rows:
            try:
                cat = np.concatenate([r if r.dtype.kind in "iu" else r.astype(np.float64)
                                      for r in rows])
            except (TypeError, ValueError):
                raise QueryError("polygons: expected lists of integer vertex ids") from None
            if cat.dtype.kind not in "iu":
                if cat.size and not np.all(np.isfinite(cat) & (cat == np.round(cat))):
                    raise QueryError("polygons: expected lists of integer vertex ids")
                cat = np.clip(cat, -1, nv).astype(np.int64)
            ids = cat.astype(np.int64)
        else:
            ids = np.zeros(0, dtype=np.int64)
    if len(starts) < 2:
        raise QueryError("polygons: a mesh needs at least one polygon")
    return starts, ids


def _check_polygons(v: F64, starts: NDArray[np.int64],
                    ids: NDArray[np.int64]) -> tuple[I32, I32]:
    """The checks of :func:`from_polygons`, vectorized; clockwise polygons reversed.

    Errors name the first bad polygon, like a polygon-by-polygon check would.
    """
    nv = v.shape[0]
    n_poly = len(starts) - 1
    lens = np.diff(starts)
    errors: list[tuple[int, str]] = []
    short = np.flatnonzero(lens < 3)
    if len(short):
        i = int(short[0])
        errors.append((i, f"polygons[{i}]: needs at least 3 vertices, got {int(lens[i])}"))
    ok_len = lens >= 3
    owner = np.repeat(np.arange(n_poly, dtype=np.int64), lens)
    out = (ids < 0) | (ids >= nv)
    if out.any():
        i = int(owner[np.argmax(out)])
        errors.append((i, f"polygons[{i}]: vertex index out of range [0, {nv})"))
    pid = np.where(out, 0, ids)
    if len(ids) > 1:
        pair = np.lexsort((pid, owner))
        so, si = owner[pair], pid[pair]
        dup = (so[1:] == so[:-1]) & (si[1:] == si[:-1])
        if dup.any():
            bad = so[1:][dup]
            bad = bad[~np.isin(bad, owner[out])] if out.any() else bad
            if len(bad):
                i = int(bad.min())
                errors.append((i, f"polygons[{i}]: repeats a vertex"))
    if errors:
        errors.sort()
        raise QueryError(errors[0][1])
    if not ok_len.all():  # pragma: no cover - reported above
        raise QueryError("polygons: a polygon has fewer than 3 vertices")
    n_edge = len(ids)
    nxt = np.arange(1, n_edge + 1, dtype=np.int64)
    nxt[starts[1:] - 1] = starts[:-1]
    pts = v[pid]
    b = pts[nxt]
    with np.errstate(all="ignore"):
        # shoelace about each polygon's first vertex: exact enough for a small
        # polygon far from the origin (absolute products would round to 0)
        base = pts[starts[:-1]][owner]
        pa, pb = pts - base, b - base
        terms = pa[:, 0] * pb[:, 1] - pb[:, 0] * pa[:, 1]
        area2 = np.add.reduceat(terms, starts[:-1])
    flat_area = ~(area2 != 0.0) | ~np.isfinite(area2)
    cw = area2 < 0
    if cw.any():
        # reverse clockwise polygons in place: element j of a polygon -> s + n - 1 - j
        rev_pos = np.arange(n_edge, dtype=np.int64)
        sel = cw[owner]
        s0 = starts[:-1][owner]
        rev_pos[sel] = (s0 + starts[1:][owner] - 1 - np.arange(n_edge))[sel]
        pid = pid[rev_pos]
        pts = v[pid]
        b = pts[nxt]
    c = b[nxt]
    d1 = b - pts
    d2 = c - b
    cross = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
    m = np.maximum.reduceat(np.abs(d1).max(axis=1), starts[:-1])
    scale = np.maximum(m * m, 1e-300)
    concave = np.zeros(n_poly, dtype=bool)
    np.logical_or.at(concave, owner, cross < -1e-12 * scale[owner])
    bad_poly = flat_area | concave
    if bad_poly.any():
        i = int(np.argmax(bad_poly))
        what = "has no area" if flat_area[i] else "is not convex"
        raise QueryError(f"polygons[{i}]: {what}")
    return starts.astype(np.int32), pid.astype(np.int32)


def _regions(poly_start: I32, poly_adj: I32, n_poly: int) -> I32:
    """Connected components over shared edges (scipy's, ids in order of first polygon)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    owner = np.repeat(np.arange(n_poly), np.diff(poly_start))
    m = poly_adj >= 0
    g = coo_matrix((np.ones(int(m.sum())), (owner[m], poly_adj[m])), shape=(n_poly, n_poly))
    _, labels = connected_components(g, directed=False)
    # renumber by first appearance so ids do not depend on scipy's order
    _, first = np.unique(labels, return_index=True)
    rank = np.empty(len(first), dtype=np.int32)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first), dtype=np.int32)
    return rank[labels].astype(np.int32)


def _buckets(poly_bbox: F64) -> tuple[F64, I32, I32, I32]:
    """A uniform bucket grid with about one polygon per bucket (point location)."""
    n = poly_bbox.shape[0]
    lo = poly_bbox[:, :2].min(axis=0)
    hi = poly_bbox[:, 2:].max(axis=0)
    span = max(float(hi[0] - lo[0]), float(hi[1] - lo[1]), 1e-9)
    area = float((hi[0] - lo[0]) * (hi[1] - lo[1])) or span * span
    size = max(math.sqrt(area / max(n, 1)), span / 4096.0)
    nx = max(1, min(4096, int(math.ceil((hi[0] - lo[0]) / size)) or 1))
    nz = max(1, min(4096, int(math.ceil((hi[1] - lo[1]) / size)) or 1))
    x0 = np.clip(((poly_bbox[:, 0] - lo[0]) / size).astype(np.int64), 0, nx - 1)
    x1 = np.clip(((poly_bbox[:, 2] - lo[0]) / size).astype(np.int64), 0, nx - 1)
    z0 = np.clip(((poly_bbox[:, 1] - lo[1]) / size).astype(np.int64), 0, nz - 1)
    z1 = np.clip(((poly_bbox[:, 3] - lo[1]) / size).astype(np.int64), 0, nz - 1)
    counts = (x1 - x0 + 1) * (z1 - z0 + 1)
    total = int(counts.sum())
    cell = np.empty(total, dtype=np.int64)
    poly = np.repeat(np.arange(n, dtype=np.int32), counts)
    offsets = np.zeros(n, dtype=np.int64)
    np.cumsum(counts[:-1], out=offsets[1:])
    _mk.bucket_cells(x0, x1, z0, z1, nx, offsets, cell)  # boxes are small: ~one bucket each
    order = np.argsort(cell, kind="stable")
    cell = cell[order]
    bucket_polys = poly[order].astype(np.int32)
    bucket_start = np.searchsorted(cell, np.arange(nx * nz + 1)).astype(np.int32)
    geom = np.array([lo[0], lo[1], size, 0.0], dtype=np.float64)
    return geom, np.array([nx, nz], dtype=np.int32), bucket_start, bucket_polys
