"""LDtk projects (``.ldtk`` JSON): IntGrid layers -> :class:`~navkit.grid.NavGrid`.

Read with the standard library (LDtk is plain JSON; docs/tiled.md §LDtk lists
the fields navkit relies on). One level of the project becomes one grid: one
IntGrid cell = one navkit cell of ``cell_size`` metres, LDtk's y axis (down)
is navkit's Z (row 0 = ``z = 0``). A cell is blocked when the value of some
IntGrid layer there is blocked: its identifier (from ``defs.layers[].
intGridValues``) is in ``blocked`` (default ``wall``, ``blocked``,
``solid``, case-insensitive), or it is value 1 and has no identifier. Empty
cells (value 0) and every other value are walkable. ``weights`` maps value
identifiers to terrain weights; later layers override earlier ones. Entities
called ``Door`` (``door_entities``) become door boxes in ``meta["doors"]``;
open (as the grid is built) their cells are walkable.
:func:`read_ldtk_floors` reads every level as a floor of a building, ``Link``
entities as the links between them.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError, FormatError, shown, unknown_name_message
from ..grid import MAX_CELL_SIZE, MAX_WEIGHT, MIN_CELL_SIZE, NavGrid
from ._common import INT64_MAX, INT64_MIN, PathLike, cell_limit, check_cells, read_bytes
from .external import allowed_roots, read_external, resolve_external
from .tiled import FloorMaps, load_json_document

__all__ = ["read_ldtk", "read_ldtk_floors", "DEFAULT_BLOCKED"]

#: IntGrid value identifiers that block by default.
DEFAULT_BLOCKED = ("wall", "blocked", "solid")


def _int(v: Any, what: str, path: Path, minimum: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise FormatError(f"{what}: expected an integer, got {shown(v)}", path=path)
    if minimum is not None and int(v) < minimum:
        raise FormatError(f"{what}: must be >= {minimum}, got {int(v)}", path=path)
    return int(v)


def _num(v: Any, what: str, path: Path) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(float(v)):
        raise FormatError(f"{what}: expected a finite number, got {shown(v)}", path=path)
    return float(v)


def _field(obj: Mapping[str, Any], key: str, where: str, path: Path, kind: type | tuple[type, ...]
           ) -> Any:
    if key not in obj:
        raise FormatError(f"{where}: field {key!r} is missing", path=path)
    v = obj[key]
    if not isinstance(v, kind):
        raise FormatError(f"{where}.{key}: expected {_kind_name(kind)}, got {shown(v)}", path=path)
    return v


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {list: "a list", dict: "an object", str: "a string", int: "an integer"}
    ks = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in ks)


def _levels(doc: Mapping[str, Any], path: Path) -> list[Any]:
    levels = doc.get("levels")
    if isinstance(levels, list) and levels:
        return levels
    worlds = doc.get("worlds")
    if isinstance(worlds, list):
        out: list[Any] = []
        for i, w in enumerate(worlds):
            if isinstance(w, dict):
                out += _field(w, "levels", f"worlds[{i}]", path, list)
        if out:
            return out
    if not isinstance(levels, list):
        raise FormatError("field 'levels': missing or not a list (not an LDtk project?)", path=path)
    raise FormatError("field 'levels': the project has no level", path=path)


def _value_names(doc: Mapping[str, Any], path: Path) -> dict[int, dict[int, str]]:
    """layer definition uid -> IntGrid value -> identifier (lower case; '' when unnamed)."""
    defs = doc.get("defs", {})
    if not isinstance(defs, dict):
        raise FormatError("field 'defs': expected an object", path=path)
    out: dict[int, dict[int, str]] = {}
    layers = defs.get("layers", [])
    if not isinstance(layers, list):
        raise FormatError("field 'defs.layers': expected a list", path=path)
    for i, ld in enumerate(layers):
        where = f"defs.layers[{i}]"
        if not isinstance(ld, dict) or "uid" not in ld:
            raise FormatError(f"{where}: expected an object with 'uid'", path=path)
        uid = _int(ld["uid"], f"{where}.uid", path)
        vals: dict[int, str] = {}
        for j, v in enumerate(ld.get("intGridValues") or []):
            vw = f"{where}.intGridValues[{j}]"
            if not isinstance(v, dict):
                raise FormatError(f"{vw}: expected an object", path=path)
            value = _int(v.get("value"), f"{vw}.value", path, minimum=1)
            ident = v.get("identifier")
            if ident is not None and not isinstance(ident, str):
                raise FormatError(f"{vw}.identifier: expected a string, got {shown(ident)}",
                                  path=path)
            vals[value] = (ident or "").lower()
        out[uid] = vals
    return out


def _pick_level(levels: list[Any], level: int | str, path: Path) -> tuple[int, dict[str, Any]]:
    if isinstance(level, bool) or not isinstance(level, (int, str)):
        raise ConfigError(f"expected a level index or identifier, got {shown(level)}",
                          field="level")
    if isinstance(level, int):
        if not 0 <= level < len(levels):
            raise ConfigError(f"level index {level} out of range: the project has "
                              f"{len(levels)} level(s)", field="level")
        idx = level
    else:
        names = [lv.get("identifier") if isinstance(lv, dict) else None for lv in levels]
        if level not in names:
            raise ConfigError(unknown_name_message("level", level,
                                                   [str(n) for n in names if n is not None]),
                              field="level")
        idx = names.index(level)
    lv = levels[idx]
    if not isinstance(lv, dict):
        raise FormatError(f"levels[{idx}]: expected an object", path=path)
    return idx, lv


@dataclass(frozen=True)
class _Options:
    block_set: frozenset[str]
    door_set: frozenset[str]
    weights: dict[str, int]
    cell_size: float
    limit: int


def _options(blocked: Any, weights: Any, door_entities: Any, cell_size: Any,
             max_cells: int | None) -> _Options:
    """The reader options, checked (ConfigError naming the option)."""
    limit = cell_limit(max_cells)
    if isinstance(blocked, str) or not isinstance(blocked, Sequence) or not all(
            isinstance(b, str) for b in blocked):
        raise ConfigError(f"expected a list of identifiers, got {shown(blocked)}", field="blocked")
    if isinstance(door_entities, str) or not isinstance(door_entities, Sequence) or not all(
            isinstance(b, str) for b in door_entities):
        raise ConfigError(f"expected a list of entity identifiers, got {shown(door_entities)}",
                          field="door_entities")
    wmap: dict[str, int] = {}
    if weights is not None:
        if not isinstance(weights, Mapping):
            raise ConfigError(f"expected a mapping of identifiers to weights, got "
                              f"{shown(weights)}", field="weights")
        for k, v in weights.items():
            if not isinstance(k, str):
                raise ConfigError(f"identifiers must be strings, got {shown(k)}", field="weights")
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not (
                    1 <= int(v) <= MAX_WEIGHT):
                raise ConfigError(f"weight must be an integer in [1, {MAX_WEIGHT}], got "
                                  f"{shown(v)}", field=f"weights[{k!r}]")
            wmap[k.lower()] = int(v)
    if isinstance(cell_size, bool) or not isinstance(cell_size, numbers.Real) or not (
            math.isfinite(float(cell_size)) and MIN_CELL_SIZE <= float(cell_size) <= MAX_CELL_SIZE):
        raise ConfigError(f"must be a number in [{MIN_CELL_SIZE:g}, {MAX_CELL_SIZE:g}] metres, "
                          f"got {shown(cell_size)}", field="cell_size")
    return _Options(frozenset(b.lower() for b in blocked),
                    frozenset(d.lower() for d in door_entities), wmap, float(cell_size), limit)


def _project(p: Path) -> tuple[dict[str, Any], dict[int, dict[int, str]], list[Any]]:
    """The project document, its IntGrid value names and its levels."""
    doc = load_json_document(read_bytes(p), p)
    if not isinstance(doc, dict):
        raise FormatError("expected an LDtk project (a JSON object)", path=p)
    return doc, _value_names(doc, p), _levels(doc, p)


def _level_layers(lv: dict[str, Any], idx: int, p: Path, allow_dirs: Any
                  ) -> tuple[str, list[Any]]:
    """A level's identifier and layer instances (read from its own file when the
    project saves levels separately)."""
    lname = str(lv.get("identifier", idx))
    lwhere = f"level {lname!r}"
    layers = lv.get("layerInstances")
    if layers is None and lv.get("externalRelPath") is not None:
        rel = lv["externalRelPath"]
        ext = resolve_external(p, rel, allowed_roots(p, allow_dirs), f"{lwhere}: external level")
        sub = load_json_document(read_external(ext, str(rel), f"{lwhere}: external level", p),
                                 ext)
        if not isinstance(sub, dict):
            raise FormatError(f"{lwhere}: expected a JSON object", path=ext)
        layers = sub.get("layerInstances")
    if not isinstance(layers, list):
        raise FormatError(f"{lwhere}: field 'layerInstances': expected a list", path=p)
    return lname, layers


def _entities(layers: list[Any], idents: frozenset[str], lwhere: str, p: Path
              ) -> Iterator[tuple[str, dict[str, Any], tuple[float, float, float, float]]]:
    """Entities whose identifier (lower case) is in ``idents``: ``(where, entity,
    (left, top, width, height))``, the box in level pixels (layer offset added)."""
    for la in layers:
        if not isinstance(la, dict) or la.get("__type") != "Entities":
            continue
        ox = _num(la.get("__pxTotalOffsetX", la.get("pxOffsetX", 0)), f"{lwhere}.pxOffsetX", p)
        oy = _num(la.get("__pxTotalOffsetY", la.get("pxOffsetY", 0)), f"{lwhere}.pxOffsetY", p)
        ents = la.get("entityInstances") or []
        if not isinstance(ents, list):
            raise FormatError(f"{lwhere}, layer {la.get('__identifier')!r}.entityInstances: "
                              "expected a list", path=p)
        for j, e in enumerate(ents):
            if not isinstance(e, dict) or str(e.get("__identifier", "")).lower() not in idents:
                continue
            where = f"{lwhere}, entity {e.get('__identifier')!r} #{j}"
            px = _field(e, "px", where, p, list)
            if len(px) != 2:
                raise FormatError(f"{where}.px: expected [x, y], got {shown(px)}", path=p)
            x, y = _num(px[0], f"{where}.px[0]", p), _num(px[1], f"{where}.px[1]", p)
            w = _num(e.get("width"), f"{where}.width", p)
            h = _num(e.get("height"), f"{where}.height", p)
            if w <= 0 or h <= 0:
                raise FormatError(f"{where}: size must be > 0, got {w} x {h}", path=p)
            piv = e.get("__pivot", [0, 0])
            if not isinstance(piv, list) or len(piv) != 2:
                raise FormatError(f"{where}.__pivot: expected [x, y], got {shown(piv)}", path=p)
            left = x + ox - _num(piv[0], f"{where}.__pivot[0]", p) * w
            top = y + oy - _num(piv[1], f"{where}.__pivot[1]", p) * h
            yield where, e, (left, top, w, h)


def _fields(obj: Mapping[str, Any], where: str, p: Path) -> dict[str, Any]:
    """An entity's or level's ``fieldInstances`` as lower-case identifier -> value
    (fields left empty, ``null``, left out)."""
    out: dict[str, Any] = {}
    raw = obj.get("fieldInstances") or []
    if not isinstance(raw, list):
        raise FormatError(f"{where}.fieldInstances: expected a list, got {shown(raw)}", path=p)
    for f in raw:
        if isinstance(f, dict) and isinstance(f.get("__identifier"), str) and (
                f.get("__value") is not None):
            out[f["__identifier"].lower()] = f["__value"]
    return out


def _level_grid(layers: list[Any], lname: str, names: dict[int, dict[int, str]],
                opts: _Options, p: Path, floor_y: float = 0.0) -> NavGrid:
    """One level's grid from its layer instances (module docs)."""
    lwhere = f"level {lname!r}"
    cs, limit = opts.cell_size, opts.limit
    grids = [(i, la) for i, la in enumerate(layers)
             if isinstance(la, dict) and la.get("__type") == "IntGrid"]
    if not grids:
        raise FormatError(f"{lwhere}: has no IntGrid layer", path=p)
    shape: tuple[int, int, int] | None = None
    walk: np.ndarray | None = None
    wts: np.ndarray | None = None
    layer_names: list[str] = []
    # LDtk lists layers top first; paint bottom to top so that upper layers override
    for i, la in reversed(grids):
        ident = str(la.get("__identifier", i))
        where = f"{lwhere}, layer {ident!r}"
        cw = _int(la.get("__cWid"), f"{where}.__cWid", p, minimum=1)
        ch = _int(la.get("__cHei"), f"{where}.__cHei", p, minimum=1)
        gs = _int(la.get("__gridSize"), f"{where}.__gridSize", p, minimum=1)
        if shape is None:
            check_cells(cw, ch, limit, path=p, what=f"{where} grid")
            shape = (cw, ch, gs)
            walk = np.ones((ch, cw), dtype=bool)
            wts = np.ones((ch, cw), dtype=np.int32)
        elif shape != (cw, ch, gs):
            raise FormatError(f"{where}: grid {cw} x {ch} of {gs} px differs from the other "
                              f"IntGrid layers' {shape[0]} x {shape[1]} of {shape[2]} px", path=p)
        csv = _field(la, "intGridCsv", where, p, list)
        if len(csv) != cw * ch:
            raise FormatError(f"{where}.intGridCsv: holds {len(csv)} values, expected "
                              f"{cw} x {ch} = {cw * ch}", path=p)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in csv):
            bad = next(v for v in csv if not isinstance(v, int) or isinstance(v, bool))
            raise FormatError(f"{where}.intGridCsv: expected integers, got {shown(bad)}", path=p)
        try:
            arr = np.array(csv, dtype=np.int64).reshape(ch, cw)
        except OverflowError:
            bad = next(v for v in csv if not INT64_MIN <= v <= INT64_MAX)
            raise FormatError(f"{where}.intGridCsv: value {shown(bad)} is out of range",
                              path=p) from None
        if arr.size and arr.min() < 0:
            raise FormatError(f"{where}.intGridCsv: negative value {int(arr.min())}", path=p)
        uid = la.get("layerDefUid")
        vnames = names.get(uid, {}) if isinstance(uid, int) else {}
        assert walk is not None and wts is not None
        for value in np.unique(arr).tolist():
            if value == 0:
                continue
            name = vnames.get(value, "")
            cells = arr == value
            if name in opts.block_set or (not name and value == 1):
                walk &= ~cells
            if name and name in opts.weights:
                wts[cells] = opts.weights[name]
        layer_names.append(ident)
    assert shape is not None and walk is not None and wts is not None
    cw, ch, gs = shape

    doors: list[dict[str, Any]] = []
    n_door = 0
    for _where, e, (left, top, w, h) in _entities(layers, opts.door_set, lwhere, p):
        n_door += 1
        name = f"Door{n_door}"
        for f in e.get("fieldInstances") or []:
            if (isinstance(f, dict) and str(f.get("__identifier", "")).lower() in ("name", "id")
                    and isinstance(f.get("__value"), str) and f["__value"]):
                name = f["__value"]
                break
        # cells whose centre lies in the (closed) rectangle
        x0 = max(0, math.ceil(left / gs - 0.5))
        z0 = max(0, math.ceil(top / gs - 0.5))
        x1 = min(cw, math.floor((left + w) / gs - 0.5) + 1)
        z1 = min(ch, math.floor((top + h) / gs - 0.5) + 1)
        if x0 < x1 and z0 < z1:
            walk[z0:z1, x0:x1] = True
            wts[z0:z1, x0:x1] = 1
        else:
            x0 = z0 = x1 = z1 = 0
        doors.append({
            "name": name, "cells": [x0, z0, x1, z1],
            "rect": [left / gs * cs, top / gs * cs, (left + w) / gs * cs,
                     (top + h) / gs * cs],
        })
    seen: set[str] = set()
    for d in doors:
        if d["name"] in seen:
            raise FormatError(f"{lwhere}: two doors called {d['name']!r}", path=p)
        seen.add(d["name"])
    wts[~walk] = 1
    meta = {"source": "ldtk", "file": str(p), "level": lname, "grid_size": gs,
            "layers": layer_names[::-1], "doors": doors}
    return NavGrid(walk, weights=wts, cell_size=cs, floor_y=floor_y, name=f"{p.stem}:{lname}",
                   meta=meta, copy=False)


def read_ldtk(
    path: PathLike,
    level: int | str = 0,
    *,
    blocked: Sequence[str] = DEFAULT_BLOCKED,
    weights: Mapping[str, int] | None = None,
    door_entities: Sequence[str] = ("door",),
    cell_size: float = 1.0,
    max_cells: int | None = None,
    allow_dirs: Any = None,
) -> NavGrid:
    """Read level ``level`` (index or identifier) of an LDtk project as a grid.

    The grid is the size of the level's IntGrid layers (``__cWid`` x
    ``__cHei`` cells; every IntGrid layer must share it). ``meta`` holds the
    level identifier, the IntGrid layer names and ``doors``: each door
    entity's name (its ``name`` / ``id`` field, else ``Door<n>``), half-open
    cell box ``[x0, z0, x1, z1]`` and world rectangle. Levels saved in
    separate files (``externalRelPath``) are read from beside the project: the
    path, symlinks resolved, must stay inside the project's folder or one of
    ``allow_dirs`` (a folder or a list of folders), and the file must be a
    regular file of at most ``navkit.formats.external.MAX_EXTERNAL_BYTES``.
    Bad input raises :class:`~navkit.errors.FormatError` naming the file and
    the level, layer, entity or field; bad options a
    :class:`~navkit.errors.ConfigError` naming the option.
    """
    p = Path(path)
    allowed_roots(p, allow_dirs)  # (a bad allow_dirs is a ConfigError, level or not)
    opts = _options(blocked, weights, door_entities, cell_size, max_cells)
    _doc, names, levels = _project(p)
    idx, lv = _pick_level(levels, level, p)
    lname, layers = _level_layers(lv, idx, p, allow_dirs)
    return _level_grid(layers, lname, names, opts, p)


def read_ldtk_floors(
    path: PathLike,
    *,
    levels: Sequence[int | str] | None = None,
    blocked: Sequence[str] = DEFAULT_BLOCKED,
    weights: Mapping[str, int] | None = None,
    door_entities: Sequence[str] = ("door",),
    link_entities: Sequence[str] = ("link",),
    cell_size: float = 1.0,
    max_cells: int | None = None,
    allow_dirs: Any = None,
) -> FloorMaps:
    """Read an LDtk project's levels as the floors of a building, and its links.

    docs/tiled.md, "Floors and links"; ``read_ldtk_floors(path).build(
    navkit.floors.Building.from_grids)`` gives the building
    (:class:`~navkit.formats.tiled.FloorMaps`). A floor is named after its
    level identifier and read as :func:`read_ldtk` reads that level; its height
    is the level's ``floorY`` field (metres), default ``i * 3.0`` for the
    project's ``i``-th level. Every level read must have the same size in cells
    and grid size (the levels' world positions are ignored: all floors share
    the corner ``(0, 0)``), else a :class:`~navkit.errors.ConfigError` naming
    the level. Entities called ``Link`` (``link_entities``, case-insensitive)
    are links from the centre of their box to the level named by field ``to``
    (default their own) at ``toX`` / ``toY`` (level pixels; LDtk's y is
    navkit's z; default their own centre), with fields ``kind``,
    ``bidirectional``, ``cost`` (metres), ``capacity``, ``enabled`` and
    ``name`` (default ``Link<n>``). ``levels``: the levels to read
    (identifiers or indices, in that order; links to the others are left out).
    A field of the wrong type raises FormatError, a link to a missing level or
    a duplicate link name ConfigError, both naming the file, level and entity.
    """
    from .tiled import (
        DEFAULT_FLOOR_STEP,
        check_floor_count,
        floor_maps,
        link_from_properties,
        select_floors,
    )

    p = Path(path)
    allowed_roots(p, allow_dirs)
    opts = _options(blocked, weights, door_entities, cell_size, max_cells)
    if isinstance(link_entities, str) or not isinstance(link_entities, Sequence) or not all(
            isinstance(b, str) for b in link_entities):
        raise ConfigError(f"expected a list of entity identifiers, got {shown(link_entities)}",
                          field="link_entities")
    link_set = frozenset(s.lower() for s in link_entities)
    _doc, names, all_levels = _project(p)
    idents = [str(lv.get("identifier", i)) if isinstance(lv, dict) else str(i)
              for i, lv in enumerate(all_levels)]
    dup = next((n for i, n in enumerate(idents) if n in idents[:i]), None)
    if dup is not None:
        raise FormatError(f"two levels are called {dup!r}; floors need distinct identifiers",
                          path=p)
    picked = select_floors(levels, idents, "levels", "level")
    check_floor_count(len(picked), 0, 0, 1, p, "levels")
    grids: list[NavGrid] = []
    ys: list[float] = []
    links = []
    first: tuple[str, tuple[int, int], int] | None = None
    n_link = 0
    for k in picked:
        idx, lv = _pick_level(all_levels, k, p)
        lname, layers = _level_layers(lv, idx, p, allow_dirs)
        lwhere = f"level {lname!r}"
        y = _fields(lv, lwhere, p).get("floory", idx * DEFAULT_FLOOR_STEP)
        if isinstance(y, bool) or not isinstance(y, numbers.Real) or not math.isfinite(y):
            raise FormatError(f"{lwhere}, field 'floorY': expected a finite number, got "
                              f"{shown(y)}", path=p)
        grid = _level_grid(layers, lname, names, opts, p, float(y))
        gs = int(grid.meta["grid_size"])
        if first is None:
            first = (lname, grid.shape, gs)
        elif (grid.shape, gs) != first[1:]:
            raise ConfigError(
                f"{grid.width} x {grid.depth} cells of {gs} px, but level {first[0]!r} has "
                f"{first[1][1]} x {first[1][0]} cells of {first[2]} px: every floor needs the "
                "same size", field=lwhere, path=p)
        grids.append(grid)
        check_floor_count(len(grids), grid.width, grid.depth, opts.limit, p, "levels")
        ys.append(float(y))
        scale = opts.cell_size / gs

        def px_to_m(x: float, y: float, scale: float = scale) -> tuple[float, float]:
            return (x * scale, y * scale)

        for where, e, (left, top, w, h) in _entities(layers, link_set, lwhere, p):
            n_link += 1
            fields = _fields(e, where, p)
            name = next((fields[key] for key in ("name", "id")
                         if isinstance(fields.get(key), str) and fields[key]), f"Link{n_link}")
            links.append(link_from_properties(
                fields, name=name, floor=lname, at_px=(left + w / 2, top + h / 2),
                to_keys=("toX", "toY"), px_to_m=px_to_m, floors=idents,
                where=f"{where} {name!r}", what="field", path=p, floor_word="level"))
    return floor_maps(grids, [idents[k] for k in picked], ys, links, path=p)
