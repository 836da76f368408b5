"""World sources: a grid, a generator, a map file; their picklable specs and fingerprints.

A *spec* (:class:`GridSpec`, :class:`GeneratorSpec`) is a picklable
description of a source: enough to make any chunk in any process, in any
order, bit for bit the same. :func:`resolve_source` turns what a user hands
over (a :class:`~navkit.grid.NavGrid`, a generator such as
:func:`navkit.world.procedural.rooms`, a map path, a
``procedural:NAME?k=v`` string) into one.

Fingerprints (hex sha256), documented in docs/worlds.md:

* grid: ``sha256("navkit-world/grid/1" + chunk + geometry + cells)``, cells
  the ``(depth, width)`` uint16 array (0 blocked, else the weight), LE;
* generator: ``sha256("navkit-world/gen/1" + JSON{qualified name, params,
  version, width, depth, chunk, geometry})``;
* file: ``sha256("navkit-world/file/1" + file bytes + JSON{build options})``.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError
from ..grid import NavGrid

__all__ = ["GridSpec", "GeneratorSpec", "SourceSpec", "resolve_source", "grid_cells",
           "grid_fingerprint", "generator_fingerprint", "file_fingerprint", "make_chunk",
           "uniform_values", "check_chunk_size", "qualified_name"]

MIN_CHUNK = 16
MAX_CHUNK = 1024


def check_chunk_size(chunk: Any) -> int:
    """``chunk`` as an int, else ConfigError: a power of two in [16, 1024]."""
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)):
        raise ConfigError(f"expected an int, got {chunk!r}", field="chunk")
    c = int(chunk)
    if not MIN_CHUNK <= c <= MAX_CHUNK or c & (c - 1):
        raise ConfigError(f"must be a power of two in [{MIN_CHUNK}, {MAX_CHUNK}], got {c}",
                          field="chunk")
    return c


def _geometry(cell_size: float, min_x: float, min_z: float, floor_y: float) -> bytes:
    return struct.pack("<4d", cell_size, min_x, min_z, floor_y)


def grid_cells(grid: NavGrid) -> NDArray[np.uint16]:
    """A grid's cells as one ``(depth, width)`` uint16 array: 0 blocked, else its weight."""
    w = grid.weight_array().astype(np.uint16)
    return np.ascontiguousarray(np.where(grid.walkable, w, np.uint16(0)).astype(np.uint16))


def grid_fingerprint(cells: NDArray[np.uint16], chunk: int, geometry: tuple[float, ...]) -> str:
    """Fingerprint of a grid source (see the module docstring)."""
    h = hashlib.sha256(b"navkit-world/grid/1")
    h.update(struct.pack("<3Q", chunk, cells.shape[1], cells.shape[0]))
    h.update(_geometry(*geometry))
    h.update(np.ascontiguousarray(cells, dtype="<u2").tobytes())
    return h.hexdigest()


def qualified_name(fn: Any) -> str:
    """``module.qualname`` of a function, or of an instance's class."""
    obj = fn if hasattr(fn, "__qualname__") else type(fn)
    return f"{getattr(obj, '__module__', '?')}.{obj.__qualname__}"


def generator_fingerprint(fn: Any, params: dict[str, Any], width: int, depth: int,
                          chunk: int, geometry: tuple[float, ...]) -> str:
    """Fingerprint of a generator source: qualified name + JSON params + version."""
    try:
        body = json.dumps({"fn": qualified_name(fn), "params": params,
                           "version": getattr(fn, "version", 0), "width": width,
                           "depth": depth, "chunk": chunk, "geometry": list(geometry)},
                          sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"params must be JSON-serialisable: {exc}", field="params") from None
    return hashlib.sha256(b"navkit-world/gen/1" + body.encode()).hexdigest()


def file_fingerprint(path: str | os.PathLike[str], options: dict[str, Any]) -> str:
    """Fingerprint of a map file source: its bytes + the build options."""
    h = hashlib.sha256(b"navkit-world/file/1")
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    h.update(json.dumps(options, sort_keys=True).encode())
    return h.hexdigest()


@dataclass(frozen=True, eq=False)
class GridSpec:
    """A whole ``(depth, width)`` uint16 cell array (small worlds: from a NavGrid or a file)."""

    cells: NDArray[np.uint16]
    chunk: int
    cell_size: float = 1.0
    min_x: float = 0.0
    min_z: float = 0.0
    floor_y: float = 0.0
    name: str = ""
    fingerprint: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def width(self) -> int:
        return int(self.cells.shape[1])

    @property
    def depth(self) -> int:
        return int(self.cells.shape[0])

    @property
    def geometry(self) -> tuple[float, float, float, float]:
        return (self.cell_size, self.min_x, self.min_z, self.floor_y)


@dataclass(frozen=True, eq=False)
class GeneratorSpec:
    """A generator ``fn(cx, cz, chunk) -> uint16 (chunk, chunk)`` over ``width x depth`` cells.

    ``fn`` must be picklable (a module-level function or object) to bake on
    other processes. Optional members of ``fn``: ``uniform_batch(cxs, czs,
    chunk) -> int32`` (-1 mixed), ``uniform_value(cx, cz, chunk)``,
    ``weighted``, ``min_weight``, ``version``.
    """

    fn: Callable[..., Any]
    width: int
    depth: int
    chunk: int
    params: dict[str, Any]
    cell_size: float = 1.0
    min_x: float = 0.0
    min_z: float = 0.0
    floor_y: float = 0.0
    name: str = ""
    fingerprint: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def geometry(self) -> tuple[float, float, float, float]:
        return (self.cell_size, self.min_x, self.min_z, self.floor_y)


SourceSpec = GridSpec | GeneratorSpec


def _check_geometry(cell_size: float, min_x: float, min_z: float, floor_y: float
                    ) -> tuple[float, float, float, float]:
    # NavGrid validates geometry the same way everywhere; borrow it on a 1-cell grid
    g = NavGrid(np.ones((1, 1), dtype=bool), cell_size=cell_size, min_x=min_x, min_z=min_z,
                floor_y=floor_y)
    return (g.cell_size, g.min_x, g.min_z, g.floor_y)


def grid_spec(grid: NavGrid, chunk: int, *, fingerprint: str | None = None,
              meta: dict[str, Any] | None = None) -> GridSpec:
    """The spec of a NavGrid source."""
    if not isinstance(grid, NavGrid):
        raise ConfigError(f"expected a NavGrid, got {type(grid).__name__}", field="grid")
    chunk = check_chunk_size(chunk)
    cells = grid_cells(grid)
    cells.setflags(write=False)
    geo = (grid.cell_size, grid.min_x, grid.min_z, grid.floor_y)
    fp = fingerprint or grid_fingerprint(cells, chunk, geo)
    m = {"name": grid.name, "source": "grid", "agent_radius": grid.agent_radius}
    m.update(meta or {})
    return GridSpec(cells, chunk, *geo, name=grid.name, fingerprint=fp, meta=m)


def generator_spec(fn: Callable[..., Any], width: int, depth: int, *, chunk: int, name: str,
                   params: dict[str, Any], cell_size: float = 1.0, min_x: float = 0.0,
                   min_z: float = 0.0, floor_y: float = 0.0,
                   meta: dict[str, Any] | None = None) -> GeneratorSpec:
    """The spec of a generator source (validates every argument)."""
    if not callable(fn):
        raise ConfigError(f"expected a callable (cx, cz, chunk) -> array, got "
                          f"{type(fn).__name__}", field="fn")
    chunk = check_chunk_size(chunk)
    for f, v in (("width", width), ("depth", depth)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 1 <= v <= 1 << 40:
            raise ConfigError(f"expected an int in [1, 2**40], got {v!r}", field=f)
    if not isinstance(params, dict):
        raise ConfigError(f"expected a dict, got {type(params).__name__}", field="params")
    geo = _check_geometry(cell_size, min_x, min_z, floor_y)
    fp = generator_fingerprint(fn, params, int(width), int(depth), chunk, geo)
    m = {"name": name, "source": f"generator:{qualified_name(fn)}", "params": params}
    m.update(meta or {})
    return GeneratorSpec(fn, int(width), int(depth), chunk, dict(params), *geo, name=str(name),
                         fingerprint=fp, meta=m)


def resolve_source(source: Any, *, chunk: int = 64,
                   load_options: dict[str, Any] | None = None) -> SourceSpec:
    """A spec for ``source``: a NavGrid, a spec, a generator with ``width`` / ``depth`` /
    ``params`` (e.g. :func:`~navkit.world.procedural.rooms`), a
    ``procedural:NAME?k=v&...`` string, or the path of a map file any
    :func:`navkit.formats.load_grid` reader takes."""
    chunk = check_chunk_size(chunk)
    if isinstance(source, (GridSpec, GeneratorSpec)):
        if source.chunk != chunk:
            raise ConfigError(f"spec has chunk {source.chunk}, asked for {chunk}", field="chunk")
        return source
    if isinstance(source, NavGrid):
        return grid_spec(source, chunk)
    if isinstance(source, str) and source.startswith("procedural:"):
        from .procedural import parse_procedural

        gen = parse_procedural(source)
        return generator_spec(gen, gen.width, gen.depth, chunk=chunk, name=gen.name,
                              params=gen.params, meta={"source": source})
    if isinstance(source, (str, os.PathLike)):
        from ..formats import load_grid

        opts = dict(load_options or {})
        path = Path(source)
        grid = load_grid(path, **opts)
        fp = file_fingerprint(path, {"chunk": chunk, "load": opts})
        return grid_spec(grid, chunk, fingerprint=fp,
                         meta={"name": grid.name or path.name, "source": str(path)})
    if callable(source) and hasattr(source, "params") and hasattr(source, "width"):
        return generator_spec(source, source.width, source.depth, chunk=chunk,
                              name=getattr(source, "name", qualified_name(source)),
                              params=dict(source.params))
    raise ConfigError(f"cannot make a world of a {type(source).__name__}: expected a NavGrid, "
                      "a generator, a map path or procedural:NAME?...", field="source")


def _dims(spec: SourceSpec) -> tuple[int, int]:
    if isinstance(spec, GridSpec):
        return spec.width, spec.depth
    return spec.width, spec.depth


def make_chunk(spec: SourceSpec, cx: int, cz: int) -> NDArray[np.uint16]:
    """Chunk ``(cx, cz)`` of ``spec`` as a new ``(chunk, chunk)`` uint16 array; cells
    beyond the world are 0. A generator's bad output raises ConfigError naming the chunk."""
    c = spec.chunk
    width, depth = _dims(spec)
    x0, z0 = cx * c, cz * c
    wx, wz = min(c, width - x0), min(c, depth - z0)
    if isinstance(spec, GridSpec):
        out = np.zeros((c, c), dtype=np.uint16)
        out[:wz, :wx] = spec.cells[z0:z0 + wz, x0:x0 + wx]
        return out
    raw = spec.fn(cx, cz, c)
    arr = np.asarray(raw)
    if arr.shape != (c, c) or not (np.issubdtype(arr.dtype, np.integer)
                                   or arr.dtype == np.bool_):
        raise ConfigError(f"generator gave shape {arr.shape} dtype {arr.dtype} for chunk "
                          f"({cx}, {cz}); expected ({c}, {c}) uint16", field="fn")
    if arr.dtype != np.uint16:
        if arr.size and (int(arr.min()) < 0 or int(arr.max()) > 65535):
            raise ConfigError(f"generator values outside [0, 65535] in chunk ({cx}, {cz})",
                              field="fn")
    out = np.array(arr, dtype=np.uint16, order="C", copy=True)
    if wx < c:
        out[:, wx:] = 0
    if wz < c:
        out[wz:, :] = 0
    return out


def uniform_values(spec: SourceSpec, cxs: NDArray[np.int64], czs: NDArray[np.int64]
                   ) -> NDArray[np.int32]:
    """Per chunk its uniform value, -1 when mixed or unknown (without making generator cells)."""
    c = spec.chunk
    width, depth = _dims(spec)
    cxs = np.asarray(cxs, dtype=np.int64)
    czs = np.asarray(czs, dtype=np.int64)
    n = cxs.shape[0]
    out = np.full(n, -1, dtype=np.int32)
    if n == 0:
        return out
    if isinstance(spec, GridSpec):
        for i in range(n):
            x0, z0 = int(cxs[i]) * c, int(czs[i]) * c
            blk = spec.cells[z0:z0 + c, x0:x0 + c]
            lo, hi = int(blk.min()), int(blk.max())
            if blk.shape != (c, c):
                hi = max(hi, 0)
                lo = 0
            if lo == hi:
                out[i] = lo
        return out
    ub = getattr(spec.fn, "uniform_batch", None)
    if ub is not None:
        out[:] = np.asarray(ub(cxs, czs, c), dtype=np.int32)
    else:
        uv = getattr(spec.fn, "uniform_value", None)
        if uv is None:
            return out
        for i in range(n):
            v = uv(int(cxs[i]), int(czs[i]), c)
            out[i] = -1 if v is None else int(v)
    edge = ((cxs + 1) * c > width) | ((czs + 1) * c > depth)
    out[edge & (out != 0)] = -1
    out[(out < -1) | (out > 65535)] = -1
    return out
