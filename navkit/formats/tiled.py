"""Tiled maps (``.tmx`` XML, ``.tmj`` JSON) -> :class:`~navkit.grid.NavGrid` or a door-aware level.

Parsing goes through `pytiled-parser <https://github.com/pythonarcade/pytiled_parser>`_
(the optional extra ``navkit[tiled]``): it reads both formats, external
``.tsx`` / ``.tsj`` tilesets, infinite (chunked) maps, base64 / zlib / gzip /
CSV layer data and per-tile collision shapes. navkit checks the file itself
first (well-formed XML / JSON, orthogonal orientation, supported encoding and
compression, size within ``max_cells``, and every tileset and template file it
names: inside the map's folder or ``allow_dirs``, a regular file within the
size limits, well-formed) so that every
problem is a :class:`~navkit.errors.FormatError` naming the file and the layer,
tile or field; the parser's own exceptions are wrapped, never passed on.

The mapping (docs/tiled.md, configurable through :class:`TiledMapping`):

* one tile = one cell of ``cell_size`` metres (default 1.0); Tiled's x axis is
  navkit's X, Tiled's y axis (pointing down) is navkit's Z: tile row 0 is
  ``z = 0``; the grid's corner is ``(0, 0)``.
* a cell no tile layer covers is blocked; a covered cell is walkable unless
  some layer's tile there blocks it: tile property ``blocked=true``,
  ``collides=true`` or ``walkable=false``, a tile collision shape covering the
  cell centre, or any tile of a blocking layer (layer property
  ``blocked=true`` / ``collides=true`` / ``walkable=false``, or a layer name in
  ``blocking_layers``, case-insensitive).
* tile property ``weight`` (or ``cost``): terrain weight, an integer in
  ``[1, 65535]``; a float is rounded to the nearest integer (halves to even).
  Later layers override earlier ones.
* object layers: rectangles of class / type ``door`` (or named ``door...``)
  are doors (open: their cells walkable); polygons / rectangles of class
  ``obstacle`` / ``wall`` block, of class ``area`` make walkable (property
  ``weight`` optional). :func:`read_tiled_level` turns all of it into a
  :class:`~navkit.level.NavLevel` whose doors toggle.
* :func:`read_tiled_floors` reads each top-level group layer as one floor of
  a building and objects of class ``link`` as the links between floors
  (:class:`FloorMaps`; the single-floor readers leave link objects out).
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import numbers
import xml.etree.ElementTree as ET
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import shapely
import shapely.affinity
from numpy.typing import NDArray

from ..errors import ConfigError, FormatError, MissingExtraError, shown, unknown_name_message
from ..grid import MAX_CELL_SIZE, MAX_WEIGHT, MIN_CELL_SIZE, NavGrid
from ._common import PathLike, cell_limit, check_cells, read_bytes
from .external import allowed_roots, read_external, resolve_external

if TYPE_CHECKING:
    from ..level import NavLevel

__all__ = [
    "TiledMapping",
    "read_tiled",
    "read_tiled_level",
    "read_tiled_floors",
    "FloorMaps",
    "LinkSource",
    "TILED_EXTENSIONS",
    "DoorBox",
    "door_boxes_meta",
]

#: Extensions :func:`read_tiled` reads.
TILED_EXTENSIONS = (".tmx", ".tmj")

# gid flag bits (Tiled: flipped horizontally, vertically, diagonally, hex rotation)
_FLIP_H = 0x80000000
_FLIP_V = 0x40000000
_FLIP_D = 0x20000000
_GID_MASK = 0x0FFFFFFF
#: Default cell limit of a Tiled map (``max_cells=`` overrides it): pytiled-parser
#: holds each tile as a Python object, about 50 bytes and 1 us a tile, so a
#: 100 KB zlib layer could otherwise declare 67 million tiles (3 GB, a minute).
MAX_TILED_CELLS = 1 << 21
#: The tiles of all tile layers together may be at most this many times the limit.
LAYER_TILES_FACTOR = 2
#: Most objects a map may hold (pytiled-parser: about 2 KB each).
MAX_OBJECTS = 100_000
#: Most points of one object polygon.
MAX_POLYGON_VERTICES = 10_000
#: Most self-crossings of an object polygon navkit repairs (``shapely.make_valid``
#: took 0.02 s for 77 crossings, 0.26 s for 438, 4 s for 2,406, 40 s for 20,000).
MAX_REPAIR_CROSSINGS = 256
#: Most edge pairs the self-crossing count may test, per map (about a second).
MAX_PAIR_TESTS = 20_000_000
#: Most bytes pytiled-parser may read through a map's tilesets and templates in all
#: (it reads a template, and the tileset it names, once per object that uses it).
MAX_EXTERNAL_READS = 64 << 20


@dataclass(frozen=True)
class TiledMapping:
    """Which Tiled layers, tiles and objects mean what (defaults as in docs/tiled.md).

    Names are compared case-insensitively. ``blocked_properties`` block when
    true, ``walkable_properties`` block when false; ``weight_properties`` are
    read in order (the first one a tile has wins).
    """

    cell_size: float = 1.0
    blocked_properties: tuple[str, ...] = ("blocked", "collides")
    walkable_properties: tuple[str, ...] = ("walkable",)
    weight_properties: tuple[str, ...] = ("weight", "cost")
    blocking_layers: tuple[str, ...] = ("walls", "collision", "blocked", "obstacles")
    collision_shapes: bool = True
    door_classes: tuple[str, ...] = ("door",)
    door_prefix: str = "door"
    obstacle_classes: tuple[str, ...] = ("obstacle", "wall")
    area_classes: tuple[str, ...] = ("area",)
    link_classes: tuple[str, ...] = ("link",)

    def __post_init__(self) -> None:
        cs = self.cell_size
        if isinstance(cs, bool) or not isinstance(cs, numbers.Real) or not math.isfinite(cs):
            raise ConfigError(f"expected a finite number, got {shown(cs)}", field="cell_size")
        if not MIN_CELL_SIZE <= float(cs) <= MAX_CELL_SIZE:
            raise ConfigError(f"must lie in [{MIN_CELL_SIZE:g}, {MAX_CELL_SIZE:g}] metres, "
                              f"got {shown(cs)}", field="cell_size")
        object.__setattr__(self, "cell_size", float(cs))
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in ("cell_size", "collision_shapes", "door_prefix"):
                continue
            if isinstance(v, str) or not isinstance(v, Sequence) or not all(
                isinstance(s, str) for s in v
            ):
                raise ConfigError(f"expected a tuple of names, got {shown(v)}", field=f.name)
            object.__setattr__(self, f.name, tuple(s.lower() for s in v))
        if not isinstance(self.collision_shapes, bool):
            raise ConfigError(f"expected True or False, got {shown(self.collision_shapes)}",
                              field="collision_shapes")
        if not isinstance(self.door_prefix, str):
            raise ConfigError(f"expected a string, got {shown(self.door_prefix)}",
                              field="door_prefix")
        object.__setattr__(self, "door_prefix", self.door_prefix.lower())


def _mapping(mapping: TiledMapping | None, options: Mapping[str, Any]) -> TiledMapping:
    base = TiledMapping() if mapping is None else mapping
    if not isinstance(base, TiledMapping):
        raise ConfigError(f"expected a TiledMapping, got {type(base).__name__}", field="mapping")
    names = {f.name for f in fields(TiledMapping)}
    bad = sorted(set(options) - names)
    if bad:
        raise ConfigError(f"unknown Tiled option(s) {', '.join(bad)}; expected some of "
                          f"{', '.join(sorted(names))}", field=bad[0])
    return replace(base, **options) if options else base


# ------------------------------------------------------------------ pre-check
def _xml_tile_layers(el: ET.Element, prefix: str = "") -> Iterator[tuple[str, ET.Element]]:
    for child in el:
        if child.tag == "layer":
            yield prefix + child.attrib.get("name", ""), child
        elif child.tag == "group":
            yield from _xml_tile_layers(child, prefix + child.attrib.get("name", "") + "/")


def _json_tile_layers(layers: Any, prefix: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if not isinstance(layers, list):
        return
    for lay in layers:
        if not isinstance(lay, dict):
            continue
        name = str(lay.get("name", ""))
        if lay.get("type") == "tilelayer":
            yield prefix + name, lay
        elif lay.get("type") == "group":
            yield from _json_tile_layers(lay.get("layers"), prefix + name + "/")


def _int_attr(raw: Any, what: str, path: Path, *, minimum: int | None = None) -> int:
    try:
        if isinstance(raw, bool):
            raise ValueError
        if isinstance(raw, float) and raw == int(raw):
            raw = int(raw)
        value = int(raw) if isinstance(raw, (int, str)) else None
        if value is None:
            raise ValueError
    except (ValueError, OverflowError):
        raise FormatError(f"{what}: expected an integer, got {shown(raw)}", path=path) from None
    if minimum is not None and value < minimum:
        raise FormatError(f"{what}: must be >= {minimum}, got {value}", path=path)
    return value


def _check_data(
    encoding: str | None, compression: str | None, text: Any, n: int, where: str, path: Path
) -> None:
    """Encoding/compression supported; base64 data decodes to ``n`` gids (bounded work)."""
    if encoding not in (None, "", "csv", "base64"):
        raise FormatError(f"{where}: unsupported encoding {shown(encoding)} "
                          "(supported: csv, base64)", path=path)
    if compression not in (None, ""):
        if encoding != "base64":
            raise FormatError(f"{where}: compression {shown(compression)} needs base64 encoding",
                              path=path)
        if compression == "zstd":
            raise FormatError(f"{where}: zstd-compressed layer data is not supported; save the map "
                              "with zlib, gzip, base64 or CSV layer format", path=path)
        if compression not in ("zlib", "gzip"):
            raise FormatError(f"{where}: unsupported compression {shown(compression)} "
                              "(supported: zlib, gzip)", path=path)
    if encoding == "base64":
        if not isinstance(text, str):
            raise FormatError(f"{where}: base64 layer data must be a string", path=path)
        try:
            raw = base64.b64decode(text.strip(), validate=False)
        except (binascii.Error, ValueError) as exc:
            raise FormatError(f"{where}: bad base64 layer data ({exc})", path=path) from None
        want = 4 * n
        try:
            if compression in ("zlib", "gzip"):
                dec = zlib.decompressobj(wbits=47)  # zlib or gzip header, detected
                raw = dec.decompress(raw, want + 1)
                if len(raw) <= want and not dec.eof:
                    raise FormatError(f"{where}: bad {compression} layer data (truncated)",
                                      path=path)
        except zlib.error as exc:
            raise FormatError(f"{where}: bad {compression} layer data ({exc})", path=path) from None
        if len(raw) != want:
            raise FormatError(f"{where}: layer data holds {len(raw) // 4} tiles"
                              f"{' or more' if len(raw) > want else ''}, expected {n}", path=path)
    elif isinstance(text, str):
        count = text.count(",") + 1 if text.strip() else 0
        if count != n:
            raise FormatError(f"{where}: layer data holds {count} tiles, expected {n}", path=path)
    elif isinstance(text, list) and len(text) != n:
        raise FormatError(f"{where}: layer data holds {len(text)} tiles, expected {n}", path=path)


@dataclass(frozen=True)
class _Header:
    width: int
    height: int
    infinite: bool
    origin: tuple[int, int]  # tile of cell (0, 0)


def _extent(rects: list[tuple[int, int, int, int]], infinite: bool, w: int, h: int,
            limit: int, path: Path) -> _Header:
    if not infinite:
        check_cells(w, h, limit, path=path, what="Tiled map")
        return _Header(w, h, False, (0, 0))
    if not rects:
        raise FormatError("infinite map has no chunks in any tile layer", path=path)
    x0 = min(r[0] for r in rects)
    y0 = min(r[1] for r in rects)
    x1 = max(r[0] + r[2] for r in rects)
    y1 = max(r[1] + r[3] for r in rects)
    check_cells(x1 - x0, y1 - y0, limit, path=path, what="infinite Tiled map (union of chunks)")
    return _Header(x1 - x0, y1 - y0, True, (x0, y0))


def _precheck_tmx(data: bytes, path: Path, limit: int, roots: tuple[Path, ...]) -> _Header:
    root = parse_xml(data, path)
    if root.tag != "map":
        raise FormatError(f"expected a Tiled <map> element, got <{root.tag}>", path=path)
    _orientation(root.attrib.get("orientation"), path)
    for key in ("width", "height", "tilewidth", "tileheight"):
        if key not in root.attrib:
            raise FormatError(f"<map> has no {key!r} attribute", path=path)
    w = _int_attr(root.attrib["width"], "map width", path, minimum=0)
    h = _int_attr(root.attrib["height"], "map height", path, minimum=0)
    for key in ("tilewidth", "tileheight"):
        _int_attr(root.attrib[key], f"map {key}", path, minimum=1)
    infinite = root.attrib.get("infinite", "0") == "1"
    for ts in root.findall("tileset"):
        if "firstgid" not in ts.attrib:
            raise FormatError("<tileset> has no 'firstgid' attribute", path=path)
        _int_attr(ts.attrib["firstgid"], "tileset firstgid", path, minimum=1)
    _Externals(path, roots).map(root)
    rects: list[tuple[int, int, int, int]] = []
    if not infinite:
        check_cells(w, h, limit, path=path, what="Tiled map")
    tiles = 0
    for name, lay in _xml_tile_layers(root):
        where = f"layer {name!r}"
        d = lay.find("data")
        if d is None:
            continue
        enc, comp = d.attrib.get("encoding"), d.attrib.get("compression")
        chunks = d.findall("chunk")
        if chunks and not infinite:
            raise FormatError(f"{where}: chunked layer data in a map that is not infinite",
                              path=path)
        if chunks:
            for ch in chunks:
                cx, cy, cw, chh = (_int_attr(ch.attrib.get(k), f"{where} chunk {k}", path,
                                             minimum=1 if k in ("width", "height") else None)
                                   for k in ("x", "y", "width", "height"))
                rects.append((cx, cy, cw, chh))
                check_cells(cw, chh, limit, path=path, what=f"{where} chunk")
                tiles = _add_tiles(tiles, cw * chh, limit, path)
                _check_data(enc, comp, ch.text or "", cw * chh,
                            f"{where} chunk at ({cx}, {cy})", path)
        else:
            if infinite:
                continue
            lw = _int_attr(lay.attrib.get("width"), f"{where} width", path, minimum=0)
            lh = _int_attr(lay.attrib.get("height"), f"{where} height", path, minimum=0)
            if (lw, lh) != (w, h):
                raise FormatError(f"{where}: size {lw} x {lh} differs from the map's {w} x {h}",
                                  path=path)
            if enc is None and d.find("tile") is not None:
                raise FormatError(f"{where}: the deprecated XML <tile> layer format is not "
                                  "supported; save the map with CSV or base64 layer format",
                                  path=path)
            tiles = _add_tiles(tiles, w * h, limit, path)
            _check_data(enc, comp, d.text or "", w * h, where, path)
    _check_objects(sum(1 for _ in root.iter("object")), path)
    return _extent(rects, infinite, w, h, limit, path)


def _precheck_tmj(data: bytes, path: Path, limit: int, roots: tuple[Path, ...]) -> _Header:
    doc = load_json_document(data, path)
    if not isinstance(doc, dict) or doc.get("type", "map") != "map":
        raise FormatError("expected a Tiled JSON map (an object with \"type\": \"map\")", path=path)
    _orientation(doc.get("orientation"), path)
    for key in ("width", "height", "tilewidth", "tileheight", "layers"):
        if key not in doc:
            raise FormatError(f"field {key!r}: missing", path=path)
    w = _int_attr(doc["width"], "field 'width'", path, minimum=0)
    h = _int_attr(doc["height"], "field 'height'", path, minimum=0)
    for key in ("tilewidth", "tileheight"):
        _int_attr(doc[key], f"field {key!r}", path, minimum=1)
    if not isinstance(doc["layers"], list):
        raise FormatError("field 'layers': expected a list", path=path)
    infinite = doc.get("infinite") is True
    tilesets = doc.get("tilesets", [])
    if not isinstance(tilesets, list):
        raise FormatError("field 'tilesets': expected a list", path=path)
    for i, ts in enumerate(tilesets):
        if not isinstance(ts, dict) or "firstgid" not in ts:
            raise FormatError(f"field 'tilesets[{i}]': expected an object with 'firstgid'",
                              path=path)
        _int_attr(ts["firstgid"], f"field 'tilesets[{i}].firstgid'", path, minimum=1)
        src = ts.get("source")
        if src is not None and not isinstance(src, str):
            raise FormatError(f"field 'tilesets[{i}].source': expected a string", path=path)
    _Externals(path, roots).map(doc)
    if not infinite:
        check_cells(w, h, limit, path=path, what="Tiled map")
    rects: list[tuple[int, int, int, int]] = []
    tiles = 0
    for name, lay in _json_tile_layers(doc["layers"]):
        where = f"layer {name!r}"
        enc, comp = lay.get("encoding"), lay.get("compression")
        if "chunks" in lay and not infinite:
            raise FormatError(f"{where}: chunked layer data in a map that is not infinite",
                              path=path)
        if "chunks" in lay:
            chunks = lay["chunks"]
            if not isinstance(chunks, list):
                raise FormatError(f"{where}: field 'chunks': expected a list", path=path)
            for j, ch in enumerate(chunks):
                if not isinstance(ch, dict):
                    raise FormatError(f"{where}: chunks[{j}]: expected an object", path=path)
                cx, cy, cw, chh = (_int_attr(ch.get(k), f"{where} chunks[{j}].{k}", path,
                                             minimum=1 if k in ("width", "height") else None)
                                   for k in ("x", "y", "width", "height"))
                rects.append((cx, cy, cw, chh))
                check_cells(cw, chh, limit, path=path, what=f"{where} chunk")
                tiles = _add_tiles(tiles, cw * chh, limit, path)
                _check_data(enc, comp, ch.get("data"), cw * chh, f"{where} chunks[{j}]", path)
        elif "data" in lay and not infinite:
            lw = _int_attr(lay.get("width", w), f"{where} width", path, minimum=0)
            lh = _int_attr(lay.get("height", h), f"{where} height", path, minimum=0)
            if (lw, lh) != (w, h):
                raise FormatError(f"{where}: size {lw} x {lh} differs from the map's {w} x {h}",
                                  path=path)
            tiles = _add_tiles(tiles, w * h, limit, path)
            _check_data(enc, comp, lay["data"], w * h, where, path)
    _check_objects(_count_json_objects(doc["layers"]), path)
    return _extent(rects, infinite, w, h, limit, path)


def _add_tiles(tiles: int, n: int, limit: int, path: Path) -> int:
    """The running count of layer tiles, refused past ``LAYER_TILES_FACTOR * limit``
    (pytiled-parser holds every tile of every layer as a Python int)."""
    tiles += n
    if tiles > LAYER_TILES_FACTOR * limit:
        raise FormatError(f"the map's tile layers hold {tiles:_} tiles or more, more than "
                          f"{LAYER_TILES_FACTOR} x the {limit:_}-cell limit (max_cells= "
                          "raises it)", path=path)
    return tiles


def _check_objects(n: int, path: Path) -> None:
    if n > MAX_OBJECTS:
        raise FormatError(f"the map has {n:_} objects, more than MAX_OBJECTS = {MAX_OBJECTS:_}",
                          path=path)


def _count_json_objects(layers: Any) -> int:
    n = 0
    stack = [layers]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, dict))
        elif isinstance(node, dict):
            objs = node.get("objects")
            if isinstance(objs, list):
                n += len(objs)
            if isinstance(node.get("layers"), list):
                stack.append(node["layers"])
    return n


def tiled_cell_limit(max_cells: int | None) -> int:
    """The cell limit of a Tiled read: ``max_cells`` when given, else the smaller of
    ``navkit.formats.MAX_CELLS`` and :data:`MAX_TILED_CELLS`."""
    if max_cells is not None:
        return cell_limit(max_cells)
    return min(cell_limit(None), MAX_TILED_CELLS)


def _orientation(value: Any, path: Path) -> None:
    if value not in (None, "orthogonal"):
        raise FormatError(f"map orientation {shown(value)} is not supported (navkit grids are "
                          "orthogonal)", path=path)


def load_json_document(data: bytes, path: Path) -> Any:
    """``data`` parsed as JSON; malformed JSON raises FormatError naming the file and line."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(f"invalid UTF-8 at byte {exc.start}", path=path) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(f"malformed JSON: {exc.msg} (column {exc.colno})", path=path,
                          line=exc.lineno) from None
    except RecursionError:
        raise FormatError("malformed JSON: nested too deeply", path=path) from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise FormatError(f"malformed JSON: {shown(str(exc))}", path=path) from None


def parse_xml(data: bytes, path: Path, what: str = "") -> ET.Element:
    """``data`` parsed as XML; malformed XML (or an unknown declared encoding) raises
    FormatError naming the file and line, ``what`` leading the message."""
    try:
        return ET.fromstring(data)
    except ET.ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise FormatError(f"{what}malformed XML: {exc}", path=path, line=line) from None
    except (LookupError, ValueError, RecursionError) as exc:
        raise FormatError(f"{what}malformed XML: {type(exc).__name__}: {shown(str(exc))}",
                          path=path) from None


class _Externals:
    """The files a Tiled map names, checked before pytiled-parser opens any of them:
    tilesets (``<tileset source>``, ``"tilesets": [{"source"}]``), object templates
    (``template``, in the map and in its external tilesets' tile objects) and
    templates' tilesets. Each must resolve inside ``roots`` (symlinks resolved;
    :mod:`navkit.formats.external`), be a regular file of at most
    :data:`~navkit.formats.external.MAX_EXTERNAL_BYTES` and parse; and what
    pytiled-parser will read through them (a template once per object that uses
    it) is capped at :data:`MAX_EXTERNAL_READS` bytes per map."""

    def __init__(self, map_path: Path, roots: tuple[Path, ...]):
        self.map_path = map_path
        self.roots = roots
        self.files: dict[Path, tuple[int, Any]] = {}  # resolved -> (bytes, parsed document)
        self.reads = 0

    def _load(self, referrer: Path, ref: Any, what: str) -> tuple[Path, int, Any]:
        real = resolve_external(referrer, ref, self.roots, what, map_path=self.map_path)
        got = self.files.get(real)
        if got is None:
            data = read_external(real, str(ref), what, self.map_path)
            if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
                doc: Any = parse_xml(data, real, f"{what} {str(ref)!r} (used by "
                                                 f"{self.map_path}): ")
            else:
                doc = load_json_document(data, real)
            got = self.files[real] = (len(data), doc)
        self._count(got[0], what, ref)
        return Path(referrer).absolute().parent / str(ref), got[0], got[1]

    def _count(self, n: int, what: str, ref: Any) -> None:
        self.reads += n
        if self.reads > MAX_EXTERNAL_READS:
            raise FormatError(f"{what} {shown(ref)}: the map's tilesets and templates would "
                              f"be read {self.reads:_} bytes in all, more than the "
                              f"{MAX_EXTERNAL_READS:_} allowed (templates are read once per "
                              "object)", path=self.map_path)

    def tileset(self, referrer: Path, ref: Any, *, templates: bool = True) -> None:
        """A tileset file; with ``templates``, the templates its tiles' objects name."""
        path, _, doc = self._load(referrer, ref, "tileset")
        if isinstance(doc, ET.Element):
            if doc.tag != "tileset":
                raise FormatError(f"tileset {str(ref)!r}: expected a <tileset> element, got "
                                  f"<{doc.tag}>", path=path)
        elif not isinstance(doc, dict):
            raise FormatError(f"tileset {str(ref)!r}: expected a JSON object", path=path)
        if templates:
            for t in _template_refs(doc):
                self.template(path, t)

    def template(self, referrer: Path, ref: Any) -> None:
        """An object template (and the tileset it names, read with it each time)."""
        path, _, doc = self._load(referrer, ref, "template")
        if isinstance(doc, ET.Element):
            for ts in doc.iter("tileset"):
                if "source" in ts.attrib:
                    self.tileset(path, ts.attrib["source"], templates=False)
        elif isinstance(doc, dict):
            tsd = doc.get("tileset")
            if isinstance(tsd, dict) and "source" in tsd:
                self.tileset(path, tsd["source"], templates=False)
        else:
            raise FormatError(f"template {str(ref)!r}: expected a JSON object", path=path)

    def map(self, doc: Any) -> None:
        """Every file the map document (XML root or JSON object) names."""
        if isinstance(doc, ET.Element):
            for el in doc.iter("tileset"):
                if "source" in el.attrib:
                    self.tileset(self.map_path, el.attrib["source"])
        else:
            for ts in doc.get("tilesets") or ():
                if isinstance(ts, dict) and "source" in ts:
                    self.tileset(self.map_path, ts["source"])
        for t in _template_refs(doc):
            self.template(self.map_path, t)


def _template_refs(doc: Any) -> Iterator[Any]:
    """The ``template`` references of objects anywhere in an XML tree or JSON document."""
    if isinstance(doc, ET.Element):
        for el in doc.iter("object"):
            if "template" in el.attrib:
                yield el.attrib["template"]
        return
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            t = node.get("template")
            if t is not None and not isinstance(t, (dict, list)):
                yield t
            stack.extend(v for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, (dict, list)))


# ------------------------------------------------------------------- parsing
def _parse(path: Path) -> Any:
    """The pytiled-parser map (its exceptions wrapped in FormatError)."""
    try:
        import pytiled_parser
    except ImportError:
        raise MissingExtraError("reading Tiled maps", "tiled", "pytiled_parser") from None
    try:
        return pytiled_parser.parse_map(path)
    except FormatError:
        raise
    except Exception as exc:  # the parser raises KeyError, ValueError, ... on bad input
        raise FormatError(f"pytiled-parser could not read the map: {type(exc).__name__}: "
                          f"{shown(str(exc))}", path=path) from None


def _walk_layers(layers: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    for lay in layers or ():
        name = prefix + (lay.name or "")
        sub = getattr(lay, "layers", None)
        if sub is not None and not hasattr(lay, "data"):
            yield from _walk_layers(sub, name + "/")
        else:
            yield name, lay


def _truth(value: Any, what: str, path: Path) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if isinstance(value, numbers.Integral) and int(value) in (0, 1):
        return bool(value)
    raise FormatError(f"{what}: expected true or false, got {shown(value)}", path=path)


def _props(obj: Any) -> dict[str, Any]:
    raw = getattr(obj, "properties", None) or {}
    return {str(k).lower(): v for k, v in raw.items()}


def _blocks(props: Mapping[str, Any], m: TiledMapping, what: str, path: Path) -> bool:
    for key in m.blocked_properties:
        if key in props and _truth(props[key], f"{what}, property {key!r}", path):
            return True
    for key in m.walkable_properties:
        if key in props and not _truth(props[key], f"{what}, property {key!r}", path):
            return True
    return False


def _weight(props: Mapping[str, Any], m: TiledMapping, what: str, path: Path) -> int | None:
    for key in m.weight_properties:
        if key not in props:
            continue
        v = props[key]
        where = f"{what}, property {key!r}"
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise FormatError(f"{where}: expected a number in [1, {MAX_WEIGHT}], got {shown(v)}",
                              path=path)
        fv = float(v)
        if not math.isfinite(fv):
            raise FormatError(f"{where}: expected a finite number, got {shown(v)}", path=path)
        iv = int(v) if isinstance(v, numbers.Integral) else round(fv)
        if not 1 <= iv <= MAX_WEIGHT:
            raise FormatError(f"{where}: must lie in [1, {MAX_WEIGHT}], got {shown(v)}", path=path)
        return iv
    return None


def object_geometry(obj: Any, budget: list[int] | None = None) -> shapely.Geometry | None:
    """A pytiled-parser object as a shapely geometry in pixels (y down), or None
    for points, polylines, text and zero-size shapes. Rotation (degrees
    clockwise on screen, about the object's position) is applied; ellipses
    become 64-gons per quarter.

    A self-intersecting polygon is repaired (``shapely.make_valid``) only when
    it has at most :data:`MAX_POLYGON_VERTICES` vertices and
    :data:`MAX_REPAIR_CROSSINGS` crossings (the repair's time grows with them:
    minutes for a few thousand): counted first, by a sweep that tests at most
    ``budget[0]`` segment pairs (default :data:`MAX_PAIR_TESTS`; the count is
    taken off, so one budget can serve a whole map). ValueError otherwise."""
    kind = type(obj).__name__
    x, y = float(obj.coordinates.x), float(obj.coordinates.y)
    w, h = float(obj.size.width), float(obj.size.height)
    if not all(math.isfinite(v) and abs(v) <= 1e15 for v in (x, y, w, h)):
        raise ValueError("the object's position and size must be finite numbers within 1e15 "
                         f"pixels, got ({x!r}, {y!r}) size {w!r} x {h!r}")
    geom: shapely.Geometry
    if kind == "Polygon":
        pts = np.array([(x + float(p.x), y + float(p.y)) for p in obj.points],
                       dtype=np.float64).reshape(-1, 2)
        if len(pts) < 3:
            return None
        if len(pts) > MAX_POLYGON_VERTICES:
            raise ValueError(f"a polygon of {len(pts)} points, more than "
                             f"MAX_POLYGON_VERTICES = {MAX_POLYGON_VERTICES}")
        if not np.isfinite(pts).all() or np.abs(pts).max() > 1e15:
            raise ValueError("a polygon point is not a finite number within 1e15 pixels")
        k = polygon_crossings(pts, MAX_REPAIR_CROSSINGS + 1,
                              [MAX_PAIR_TESTS] if budget is None else budget)
        if k > MAX_REPAIR_CROSSINGS:
            raise ValueError(f"the polygon crosses itself more than {MAX_REPAIR_CROSSINGS} "
                             "times (MAX_REPAIR_CROSSINGS); navkit repairs only simpler "
                             "ones: redraw it without crossings")
        try:
            geom = shapely.Polygon(pts)
            if not geom.is_valid:
                geom = shapely.make_valid(geom)
        except shapely.errors.GEOSException as exc:
            raise ValueError(f"the polygon cannot be repaired ({exc})") from None
    elif kind == "Rectangle":
        if w <= 0 or h <= 0:
            return None
        geom = shapely.box(x, y, x + w, y + h)
    elif kind == "Ellipse":
        if w <= 0 or h <= 0:
            return None
        circle = shapely.Point(0.0, 0.0).buffer(1.0, quad_segs=64)
        geom = shapely.affinity.affine_transform(circle, [w / 2, 0, 0, h / 2, x + w / 2, y + h / 2])
    else:
        return None
    rot = float(obj.rotation or 0.0)
    if not math.isfinite(rot):
        raise ValueError(f"rotation must be a finite number of degrees, got {rot!r}")
    if rot:
        # y points down, so the plain rotation matrix turns clockwise on screen
        geom = shapely.affinity.rotate(geom, rot, origin=(x, y))
    if not geom.is_empty:
        bounds = np.asarray(geom.bounds, dtype=np.float64)
        if not np.isfinite(bounds).all() or np.abs(bounds).max() > 1e15:
            raise ValueError("the shape's coordinates must be finite and within 1e15 pixels")
    return geom


def polygon_crossings(pts: NDArray[np.float64], stop: int, budget: list[int]) -> int:
    """How many pairs of non-adjacent edges of the closed polygon ``pts`` (``(n, 2)``)
    touch or cross, counting up to ``stop``. Edges are swept along x or along
    z, whichever gives fewer pairs whose ranges overlap; only those pairs are
    tested, and their number is taken off ``budget[0]`` first: ValueError when
    it would go below 0 (a polygon too intricate to check in reasonable time)."""
    n = len(pts)
    a = pts
    b = np.roll(pts, -1, axis=0)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    best: tuple[int, int, Any, Any] | None = None
    for axis in (0, 1):
        order = np.argsort(lo[:, axis], kind="stable")
        reach = np.searchsorted(lo[order, axis], hi[order, axis], side="right")
        counts = np.maximum(reach - np.arange(n) - 1, 0)
        total = int(counts.sum())
        if best is None or total < best[0]:
            best = (total, axis, order, counts)
    assert best is not None
    total, axis, order, counts = best
    if total > budget[0]:
        raise ValueError(f"a polygon of {n} points is too intricate to check for "
                         f"self-intersections ({total:_} edge pairs to test, more than the "
                         f"{budget[0]:_} left of MAX_PAIR_TESTS)")
    budget[0] -= total
    other = 1 - axis
    found = 0
    ends = np.cumsum(counts)
    step = 1 << 20
    i0 = 0
    while i0 < n and found < stop:
        base = int(ends[i0 - 1]) if i0 else 0
        i1 = min(n, max(i0 + 1, int(np.searchsorted(ends, base + step, side="right"))))
        c = counts[i0:i1]
        m = int(c.sum())
        if m:
            ii = np.repeat(np.arange(i0, i1), c)
            jj = ii + 1 + np.arange(m) - np.repeat(np.cumsum(c) - c, c)
            e, f = order[ii], order[jj]
            keep = ((lo[e, other] <= hi[f, other]) & (lo[f, other] <= hi[e, other])
                    & (np.abs(e - f) != 1) & (np.abs(e - f) != n - 1))
            e, f = e[keep], f[keep]
            p1, p2, q1, q2 = a[e], b[e], a[f], b[f]
            d1 = _orient(q1, q2, p1)
            d2 = _orient(q1, q2, p2)
            d3 = _orient(p1, p2, q1)
            d4 = _orient(p1, p2, q2)
            found += int(np.count_nonzero((d1 * d2 <= 0) & (d3 * d4 <= 0)))
        i0 = i1
    return min(found, stop)


def _orient(o: NDArray[np.float64], p: NDArray[np.float64], q: NDArray[np.float64]
            ) -> NDArray[np.float64]:
    """Sign of the turn o -> p -> q, per row (-1, 0, 1)."""
    return np.sign((p[:, 0] - o[:, 0]) * (q[:, 1] - o[:, 1])
                   - (p[:, 1] - o[:, 1]) * (q[:, 0] - o[:, 0]))


@dataclass
class _TileInfo:
    blocked: bool
    weight: int | None


class _Tiles:
    """gid -> tileset tile, with per-gid blocking and weight (cached)."""

    def __init__(self, tmap: Any, m: TiledMapping, path: Path):
        self.m = m
        self.path = path
        self.firstgids = sorted(tmap.tilesets)
        self.tilesets = tmap.tilesets
        self.map_tw = float(tmap.tile_size.width)
        self.map_th = float(tmap.tile_size.height)
        self.cache: dict[int, _TileInfo] = {}
        #: Edge pairs the map's polygons may still test (:func:`polygon_crossings`).
        self.budget = [MAX_PAIR_TESTS]

    def info(self, gid: int, where: str) -> _TileInfo:
        hit = self.cache.get(gid)
        if hit is not None:
            return hit
        base = gid & _GID_MASK
        first = 0
        for f in self.firstgids:
            if f <= base:
                first = f
        ts = self.tilesets.get(first)
        local = base - first
        tiles = ts.tiles or {} if ts is not None else {}
        if ts is None or not (local < int(ts.tile_count or 0) or local in tiles):
            known = ", ".join(f"{t.name!r} from {f}" for f, t in sorted(self.tilesets.items()))
            raise FormatError(f"{where}: tile gid {base} belongs to no tileset "
                              f"(tilesets by firstgid: {known or 'none'})", path=self.path)
        tile = tiles.get(local)
        what = f"{where}: tileset {ts.name!r} tile {local} (gid {base})"
        props = _props(tile) if tile is not None else {}
        blocked = _blocks(props, self.m, what, self.path)
        weight = _weight(props, self.m, what, self.path)
        if not blocked and tile is not None and self.m.collision_shapes and tile.objects:
            try:
                blocked = self._shape_covers_centre(gid, ts, tile)
            except ValueError as exc:
                raise FormatError(f"{what}, collision shape: {exc}", path=self.path) from None
        info = _TileInfo(blocked, weight)
        self.cache[gid] = info
        return info

    def _shape_covers_centre(self, gid: int, ts: Any, tile: Any) -> bool:
        tw = float(tile.width or ts.tile_width or self.map_tw)
        th = float(tile.height or ts.tile_height or self.map_th)
        if gid & _FLIP_D:
            rw, rh = th, tw
        else:
            rw, rh = tw, th
        # tiles are drawn bottom-left aligned on their cell: the cell centre in the drawn tile
        px, py = self.map_tw / 2, rh - self.map_th / 2
        if gid & _FLIP_V:
            py = rh - py
        if gid & _FLIP_H:
            px = rw - px
        if gid & _FLIP_D:
            px, py = py, px
        for obj in getattr(tile.objects, "tiled_objects", None) or ():
            geom = object_geometry(obj, self.budget)
            if geom is not None and bool(shapely.intersects_xy(geom, px, py)):
                return True
        return False


def _layer_gids(lay: Any, hdr: _Header, where: str, path: Path) -> NDArray[np.uint32]:
    """The layer's gids on the grid, shape (height, width); 0 where empty."""
    out = np.zeros((hdr.height, hdr.width), dtype=np.uint32)
    ox, oy = hdr.origin
    if lay.chunks:
        for ch in lay.chunks:
            cw, chh = int(ch.size.width), int(ch.size.height)
            arr = _rows(ch.data, chh, cw, f"{where} chunk at ({ch.coordinates.x}, "
                        f"{ch.coordinates.y})", path)
            x0 = int(ch.coordinates.x) - ox
            y0 = int(ch.coordinates.y) - oy
            if not hdr.infinite or x0 < 0 or y0 < 0 or x0 + cw > hdr.width or (
                    y0 + chh > hdr.height):
                raise FormatError(f"{where}: chunk at ({ch.coordinates.x}, {ch.coordinates.y}) "
                                  "lies outside the map (chunks need infinite=\"1\")", path=path)
            out[y0:y0 + chh, x0:x0 + cw] = arr
    elif lay.data is not None and not hdr.infinite:
        out[:, :] = _rows(lay.data, hdr.height, hdr.width, where, path)
    return out


def _rows(data: Any, h: int, w: int, where: str, path: Path) -> NDArray[np.uint32]:
    if h == 0 or w == 0:
        return np.zeros((h, w), dtype=np.uint32)
    if len(data) != h or any(len(r) != w for r in data):
        raise FormatError(f"{where}: layer data is not {w} x {h} tiles", path=path)
    try:
        arr = np.array(data, dtype=np.int64)
    except (ValueError, OverflowError, TypeError):
        raise FormatError(f"{where}: layer data holds a value that is not a tile gid",
                          path=path) from None
    if arr.size and (arr.min() < 0 or arr.max() > 0xFFFFFFFF):
        raise FormatError(f"{where}: tile gids must lie in [0, 2**32), got "
                          f"[{arr.min()}, {arr.max()}]", path=path)
    return arr.astype(np.uint32)


@dataclass(frozen=True)
class DoorBox:
    """A door: its name, the cells whose centres it covers and its world rectangle.

    ``cells`` is ``(x0, z0, x1, z1)``, half-open (``x0 <= x < x1``); ``rect``
    is ``(min_x, min_z, max_x, max_z)`` in metres; ``polygon`` the outline in
    metres ``((x, z), ...)``.
    """

    name: str
    cells: tuple[int, int, int, int]
    rect: tuple[float, float, float, float]
    polygon: tuple[tuple[float, float], ...]


def door_boxes_meta(doors: Sequence[DoorBox]) -> list[dict[str, Any]]:
    """Doors as ``grid.meta["doors"]`` lists them (JSON-ready)."""
    return [{"name": d.name, "cells": list(d.cells), "rect": list(d.rect)} for d in doors]


def covered_cells(geom: shapely.Geometry, width: int, depth: int) -> NDArray[np.bool_]:
    """Which cells of a ``(depth, width)`` grid of unit cells at the origin have
    their centre ``(x + 0.5, z + 0.5)`` in ``geom`` (edges included).

    >>> covered_cells(shapely.box(0, 0, 1.5, 1), 3, 2).astype(int).tolist()
    [[1, 1, 0], [0, 0, 0]]
    """
    out = np.zeros((depth, width), dtype=bool)
    if geom is None or geom.is_empty:
        return out
    bx0, bz0, bx1, bz1 = geom.bounds
    x0 = max(0, math.ceil(bx0 - 0.5))
    z0 = max(0, math.ceil(bz0 - 0.5))
    x1 = min(width, math.floor(bx1 - 0.5) + 1)
    z1 = min(depth, math.floor(bz1 - 0.5) + 1)
    if x0 >= x1 or z0 >= z1:
        return out
    xs, zs = np.meshgrid(np.arange(x0, x1) + 0.5, np.arange(z0, z1) + 0.5)
    out[z0:z1, x0:x1] = shapely.intersects_xy(geom, xs, zs)
    return out


def _object_where(lname: str, obj: Any) -> str:
    name = obj.name or ""
    return f"object layer {lname!r}, object {obj.id}" + (f" {name!r}" if name else "")


def _is_link(obj: Any, m: TiledMapping, where: str, path: Path) -> bool:
    """Whether ``obj`` is a link: class in ``m.link_classes`` or property ``link`` true."""
    if (obj.class_ or "").lower() in m.link_classes:
        return True
    props = _props(obj)
    return "link" in props and _truth(props["link"], f"{where}, property 'link'", path)


@dataclass
class _MapObjects:
    doors: list[tuple[str, shapely.Geometry]]
    obstacles: list[tuple[str, shapely.Geometry]]
    areas: list[tuple[str, shapely.Geometry, int]]


def _objects(ld: _Loaded, layers: Any, prefix: str = "") -> _MapObjects:
    """Object-layer shapes of ``layers`` in cell units (x, z), the grid's cell (0, 0)
    at the origin (link objects left out: :func:`_link_objects`)."""
    m, hdr, path, budget = ld.mapping, ld.header, ld.path, ld.tiles.budget
    tw, th = ld.tile_px
    ox, oy = hdr.origin
    out = _MapObjects([], [], [])
    seen: dict[str, str] = {}
    for lname, lay in _walk_layers(layers, prefix):
        for obj in getattr(lay, "tiled_objects", None) or ():
            cls = (obj.class_ or "").lower()
            name = obj.name or ""
            kind = type(obj).__name__
            where = _object_where(lname, obj)
            if _is_link(obj, m, where, path):
                continue
            is_door = cls in m.door_classes or (
                bool(m.door_prefix) and name.lower().startswith(m.door_prefix) and not cls)
            is_obstacle = cls in m.obstacle_classes
            is_area = cls in m.area_classes
            if not (is_door or is_obstacle or is_area):
                continue
            if is_door and kind != "Rectangle":
                raise FormatError(f"{where}: a door must be a rectangle, got a "
                                  f"{kind.lower()}", path=path)
            if kind not in ("Rectangle", "Polygon", "Ellipse"):
                raise FormatError(f"{where}: class {cls!r} needs a rectangle, polygon or "
                                  f"ellipse, got a {kind.lower()}", path=path)
            try:
                px = object_geometry(obj, budget)
            except ValueError as exc:
                raise FormatError(f"{where}: {exc}", path=path) from None
            if px is None or px.is_empty or px.area <= 0:
                raise FormatError(f"{where}: shape has no area", path=path)
            geom = shapely.affinity.affine_transform(px, [1 / tw, 0, 0, 1 / th, -ox, -oy])
            label = name or f"{cls or 'door'}{obj.id}"
            if label in seen:
                raise FormatError(f"{where}: duplicate name {label!r} (also {seen[label]})",
                                  path=path)
            seen[label] = where
            if is_door:
                out.doors.append((label, geom))
            elif is_obstacle:
                out.obstacles.append((label, geom))
            else:
                w = _weight(_props(obj), m, where, path)
                out.areas.append((label, geom, 1 if w is None else w))
    return out


@dataclass
class _Built:
    covered: NDArray[np.bool_]
    blocked: NDArray[np.bool_]
    weights: NDArray[np.int32]
    objects: _MapObjects
    header: _Header
    tile_size: tuple[int, int]
    layers: list[str]


@dataclass
class _Loaded:
    """A checked, parsed Tiled map: what :func:`_build_layers` reads layers with."""

    path: Path
    mapping: TiledMapping
    header: _Header
    tmap: Any
    tiles: _Tiles

    @property
    def tile_px(self) -> tuple[float, float]:
        return float(self.tmap.tile_size.width), float(self.tmap.tile_size.height)


def _load(path: PathLike, m: TiledMapping, max_cells: int | None, allow_dirs: Any) -> _Loaded:
    """Check the file (and the files it names), then parse it with pytiled-parser."""
    p = Path(path)
    limit = tiled_cell_limit(max_cells)
    roots = allowed_roots(p, allow_dirs)
    data = read_bytes(p)
    ext = p.suffix.lower()
    looks_xml = data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<")
    if ext == ".tmx" or (ext != ".tmj" and looks_xml):
        hdr = _precheck_tmx(data, p, limit, roots)
    else:
        hdr = _precheck_tmj(data, p, limit, roots)
    tmap = _parse(p)
    return _Loaded(p, m, hdr, tmap, _Tiles(tmap, m, p))


def _build_layers(ld: _Loaded, layers: Any, prefix: str = "") -> _Built:
    """Read ``layers`` (a map's, or one group's; names shown as ``prefix + name``)
    as one map: tiles, blocking, weights and objects on the map's grid."""
    hdr, p, m, tiles = ld.header, ld.path, ld.mapping, ld.tiles
    H, W = hdr.height, hdr.width
    covered = np.zeros((H, W), dtype=bool)
    blocked = np.zeros((H, W), dtype=bool)
    weights = np.ones((H, W), dtype=np.int32)
    names: list[str] = []
    for lname, lay in _walk_layers(layers, prefix):
        if not hasattr(lay, "data"):
            continue
        names.append(lname)
        where = f"layer {lname!r}"
        gids = _layer_gids(lay, hdr, where, p)
        present = gids != 0
        if not present.any():
            continue
        covered |= present
        lprops = _props(lay)
        if (lname.rsplit("/", 1)[-1].lower() in m.blocking_layers
                or _blocks(lprops, m, where, p)):
            blocked |= present
        uniq, inv = np.unique(gids, return_inverse=True)
        inv = inv.reshape(gids.shape)
        blk = np.zeros(len(uniq), dtype=bool)
        wt = np.zeros(len(uniq), dtype=np.int32)  # 0: the tile sets no weight
        for i, g in enumerate(uniq.tolist()):
            if g == 0:
                continue
            info = tiles.info(int(g), where)
            blk[i] = info.blocked
            wt[i] = 0 if info.weight is None else info.weight
        blocked |= blk[inv]
        lw = wt[inv]
        weights = np.where(lw > 0, lw, weights).astype(np.int32)
    objects = _objects(ld, layers, prefix)
    tw, th = ld.tile_px
    return _Built(covered, blocked, weights, objects, hdr, (int(tw), int(th)), names)


def _build(path: PathLike, m: TiledMapping, max_cells: int | None, allow_dirs: Any) -> _Built:
    ld = _load(path, m, max_cells, allow_dirs)
    return _build_layers(ld, ld.tmap.layers)


def _doors(built: _Built, cs: float) -> list[DoorBox]:
    H, W = built.covered.shape
    out = []
    for name, geom in built.objects.doors:
        cov = covered_cells(geom, W, H)
        zs, xs = np.nonzero(cov)
        cells = ((int(xs.min()), int(zs.min()), int(xs.max()) + 1, int(zs.max()) + 1)
                 if len(xs) else (0, 0, 0, 0))
        b = geom.bounds
        ring = tuple((float(x) * cs, float(z) * cs) for x, z in geom.exterior.coords[:-1])
        out.append(DoorBox(name, cells, (b[0] * cs, b[1] * cs, b[2] * cs, b[3] * cs), ring))
    return out


def _meta(built: _Built, doors: list[DoorBox], path: Path) -> dict[str, Any]:
    return {
        "source": "tiled",
        "file": str(path),
        "tile_size": list(built.tile_size),
        "infinite": built.header.infinite,
        "tile_offset": list(built.header.origin),
        "layers": built.layers,
        "doors": door_boxes_meta(doors),
        "obstacles": [n for n, _g in built.objects.obstacles],
        "areas": [n for n, _g, _w in built.objects.areas],
    }


def read_tiled(
    path: PathLike, *, mapping: TiledMapping | None = None, max_cells: int | None = None,
    allow_dirs: Any = None, **options: Any,
) -> NavGrid:
    """Read a Tiled ``.tmx`` / ``.tmj`` map as a grid, doors open (docs/tiled.md).

    ``options`` override fields of ``mapping`` (:class:`TiledMapping`), e.g.
    ``cell_size=0.5`` or ``blocking_layers=("solid",)``. The grid is
    ``(height, width)`` tiles (for an infinite map the union of its chunks,
    ``meta["tile_offset"]`` the tile at cell (0, 0)); ``meta["doors"]`` lists
    each door's name, half-open cell box ``[x0, z0, x1, z1]`` and world
    rectangle. Object-layer areas make the cells they cover walkable,
    obstacles block theirs, open doors make theirs walkable. Files the map
    names (tilesets, object templates, templates' tilesets) must resolve,
    symlinks resolved, inside the map's folder or one of ``allow_dirs`` (a
    folder or a list of folders), be regular files of at most
    ``navkit.formats.external.MAX_EXTERNAL_BYTES`` and, read as often as
    pytiled-parser reads them, total at most :data:`MAX_EXTERNAL_READS`; object
    polygons may have at most :data:`MAX_POLYGON_VERTICES` points and, to be
    repaired, :data:`MAX_REPAIR_CROSSINGS` self-crossings. Bad input raises
    :class:`~navkit.errors.FormatError` naming the file and the layer, tile or
    field; a missing pytiled-parser raises
    :class:`~navkit.errors.MissingExtraError` (``pip install navkit[tiled]``).
    """
    m = _mapping(mapping, options)
    p = Path(path)
    return _grid(_build(p, m, max_cells, allow_dirs), m, p, p.stem)


def _grid(built: _Built, m: TiledMapping, p: Path, name: str, floor_y: float = 0.0,
          meta: Mapping[str, Any] | None = None) -> NavGrid:
    """The grid of a built map (or floor): doors open, areas, obstacles over all."""
    doors = _doors(built, m.cell_size)
    H, W = built.covered.shape
    walk = built.covered & ~built.blocked
    weights = built.weights.copy()
    for _n, geom, w in built.objects.areas:
        cov = covered_cells(geom, W, H)
        walk |= cov
        weights[cov] = w
    for d in built.objects.doors:
        cov = covered_cells(d[1], W, H)
        walk |= cov
        weights[cov] = 1
    # obstacles win over doors and areas, as in a polygon level
    for _n, geom in built.objects.obstacles:
        walk &= ~covered_cells(geom, W, H)
    weights[~walk] = 1
    if walk.size == 0:
        raise FormatError("map has no cells", path=p)
    info = _meta(built, doors, p)
    info.update(meta or {})
    return NavGrid(walk, weights=weights, cell_size=m.cell_size, floor_y=floor_y, name=name,
                   meta=info, copy=False)


def _rectangles(
    mask: NDArray[np.bool_], weights: NDArray[np.int32]
) -> list[tuple[int, int, int, int, int]]:
    """``mask`` as disjoint rectangles ``(x0, z0, x1, z1, weight)`` of equal weight
    (row runs, merged downwards while identical)."""
    H, W = mask.shape
    out: list[tuple[int, int, int, int, int]] = []
    open_runs: dict[tuple[int, int, int], int] = {}  # (x0, x1, w) -> z0
    for z in range(H + 1):
        runs: set[tuple[int, int, int]] = set()
        if z < H:
            row, wrow = mask[z], weights[z]
            x = 0
            while x < W:
                if not row[x]:
                    x += 1
                    continue
                x0, w = x, int(wrow[x])
                while x < W and row[x] and int(wrow[x]) == w:
                    x += 1
                runs.add((x0, x, w))
        for key in sorted(set(open_runs) - runs):
            out.append((key[0], open_runs.pop(key), key[1], z, key[2]))
        for key in sorted(runs - set(open_runs)):
            open_runs[key] = z
    return sorted(out, key=lambda r: (r[1], r[0]))


def read_tiled_level(
    path: PathLike, *, mapping: TiledMapping | None = None, max_cells: int | None = None,
    agent_radius: float = 0.0, object_padding: float = 0.0, allow_dirs: Any = None,
    **options: Any,
) -> NavLevel:
    """Read a Tiled map as a :class:`~navkit.level.NavLevel` whose doors open and close.

    The walkable tiles (minus door cells) become areas named ``tiles:<i>`` (one
    rectangle per run of equal weight), each door an area named after its
    object (available: open), object-layer ``area`` shapes areas, and
    ``obstacle`` / ``wall`` shapes obstacles (inflated by ``agent_radius +
    object_padding`` metres, default 0). Its grid has the same cell centres as
    :func:`read_tiled`'s, with a margin of 2 blocked cells on every side
    (``LevelConfig.margin``), so ``level.grid.walkable[2:-2, 2:-2]`` equals
    the tile grid when every door is open and no padding is set.
    ``level.set_area_available("door1", False)`` closes a door. ``allow_dirs``
    and the limits on the files the map names: as :func:`read_tiled`.
    """
    from ..level import AreaConfig, LevelConfig, NavLevel, ObstacleConfig

    m = _mapping(mapping, options)
    p = Path(path)
    built = _build(p, m, max_cells, allow_dirs)
    cs = m.cell_size
    H, W = built.covered.shape
    door_mask = np.zeros((H, W), dtype=bool)
    for _n, geom in built.objects.doors:
        door_mask |= covered_cells(geom, W, H)
    tile_walk = built.covered & ~built.blocked & ~door_mask
    areas: list[AreaConfig] = []
    for i, (x0, z0, x1, z1, w) in enumerate(_rectangles(tile_walk, built.weights)):
        ring = ((x0 * cs, z0 * cs), (x1 * cs, z0 * cs), (x1 * cs, z1 * cs), (x0 * cs, z1 * cs))
        areas.append(AreaConfig(f"tiles:{i}", ring, weight=w))

    def ring_of(geom: shapely.Geometry) -> tuple[tuple[float, float], ...]:
        poly = geom if geom.geom_type == "Polygon" else max(geom.geoms, key=lambda g: g.area)
        return tuple((float(x) * cs, float(z) * cs) for x, z in poly.exterior.coords[:-1])

    for name, geom, w in built.objects.areas:
        areas.append(AreaConfig(name, ring_of(geom), weight=w))
    for name, geom in built.objects.doors:
        areas.append(AreaConfig(name, ring_of(geom)))
    # the corners keep the level's bounds (and so its grid) at the tile grid's
    areas.append(AreaConfig("tiles:bounds", ((0.0, 0.0), (W * cs, 0.0), (W * cs, H * cs),
                                       (0.0, H * cs)), available=False))
    obstacles = [ObstacleConfig(name, ring_of(geom)) for name, geom in built.objects.obstacles]
    limit = tiled_cell_limit(max_cells)
    try:
        cfg = LevelConfig(
            areas=tuple(areas), obstacles=tuple(obstacles), cell_size=cs,
            agent_radius=agent_radius, object_padding=object_padding, boundary_padding=0.0,
            max_cells=limit, name=p.stem, source=str(p),
        )
    except ConfigError as exc:
        raise FormatError(f"the map's level is invalid: {exc.reason} ({exc.field})",
                          path=p) from None
    return NavLevel(cfg)


# ------------------------------------------------------------ floors and links
#: Height step between floors when a floor gives no ``floorY`` (metres): floor
#: ``i`` of the file (counting every floor, read or not) stands at ``i * 3.0``.
DEFAULT_FLOOR_STEP = 3.0
#: Most floors a map may give (the building's own limit, ``navkit.floors``'
#: ``MAX_FLOORS``, is the same 256).
MAX_MAP_FLOORS = 256

# a link's JSON key -> how an error names it, before the file's own spelling
_LINK_LABELS = {"name": "name", "kind": "kind", "to.floor": "to", "cost": "cost",
                "capacity": "capacity", "bidirectional": "bidirectional", "enabled": "enabled"}

_T = TypeVar("_T")


@dataclass(frozen=True)
class LinkSource:
    """Where a link was drawn: ``where`` names its object (``"object layer
    'ground/links', object 7 'stairs'"``), ``what`` what the file calls its values
    (``"property"``, ``"field"``), ``to_point`` how it names the target point."""

    where: str
    what: str
    to_point: str


@dataclass(frozen=True)
class FloorMaps:
    """The floors and links of a map file, ready for a building.

    ``grids``: one grid per floor, all of one shape, cell size and corner (each
    at its floor's height, ``floor_y``); ``names`` and ``floor_ys`` (metres) in
    the same order; ``links``: the links as the building JSON's ``links`` list
    (``name``, ``kind``, ``from`` / ``to`` = ``{"floor": name, "point": [x, z]}``
    in metres, ``bidirectional``, ``cost``, ``capacity``, ``enabled``, as given);
    ``sources``: where each link was drawn; ``path``: the file; ``name``: its stem.
    ``maps.build(navkit.floors.Building.from_grids)`` makes the building.
    """

    grids: tuple[NavGrid, ...]
    names: tuple[str, ...]
    floor_ys: tuple[float, ...]
    links: tuple[dict[str, Any], ...]
    sources: tuple[LinkSource, ...]
    path: Path
    name: str

    def build(self, factory: Callable[..., _T]) -> _T:
        """``factory(grids, links, names=, floor_ys=, name=)``, e.g.
        ``navkit.floors.Building.from_grids``; a ConfigError it raises about a
        link (a ``kind`` it does not know, an end on a blocked cell, a cost that
        is not positive) is raised again naming the file and the link's object
        (:meth:`explain`)."""
        try:
            return factory(list(self.grids), [dict(lk) for lk in self.links], names=self.names,
                           floor_ys=self.floor_ys, name=self.name)
        except ConfigError as exc:
            raise self.explain(exc) from None

    def explain(self, exc: ConfigError) -> ConfigError:
        """``exc`` (a ConfigError whose field is ``links[i]...``, as the building's
        parser names them) naming the file and, for a link, its object and
        property instead."""
        fld = exc.field or ""
        if not fld.startswith("links["):
            return ConfigError(exc.reason, field=exc.field, path=self.path)
        k, _, rest = fld[len("links["):].partition("]")
        if not k.isdigit() or int(k) >= len(self.sources):
            return ConfigError(exc.reason, field=exc.field, path=self.path)
        rest = rest.lstrip(".")
        src = self.sources[int(k)]
        if rest.startswith("from.point"):
            where = f"{src.where}, its position"
        elif rest.startswith("to.point"):
            where = f"{src.where}, {src.to_point}"
        else:
            key = _LINK_LABELS.get(rest, rest)
            where = f"{src.where}, {src.what} {key!r}" if key else src.where
        return ConfigError(exc.reason, field=where, path=self.path)


def _link_number(v: Any, what: str, path: Path) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(float(v)):
        raise FormatError(f"{what}: expected a finite number, got {shown(v)}", path=path)
    return float(v)


def link_from_properties(
    props: Mapping[str, Any], *, name: str, floor: str, at_px: tuple[float, float],
    to_keys: tuple[str, str], px_to_m: Callable[[float, float], tuple[float, float]],
    floors: Sequence[str], where: str, what: str, path: Path, floor_word: str = "floor",
) -> tuple[dict[str, Any], LinkSource]:
    """A JSON link from an object's properties (``props``: lower-case keys, empty
    values left out): ``kind``, ``to`` (target floor, default ``floor``),
    ``to_keys`` (the target point in pixels, default ``at_px``, the object's own
    position), ``bidirectional``, ``cost``, ``capacity``, ``enabled``.
    ``px_to_m`` turns pixels ``(x, y)`` into metres ``(x, z)``; ``floors`` are
    every floor of the file. A value of the wrong type is a FormatError, a
    missing floor a ConfigError, both naming ``path`` and ``where`` (``what``:
    ``"property"`` or ``"field"``)."""
    def label(key: str) -> str:
        return f"{where}, {what} {key!r}"

    link: dict[str, Any] = {"name": name}
    if "kind" in props:
        kind = props["kind"]
        if not isinstance(kind, str):
            raise FormatError(f"{label('kind')}: expected a string, got {shown(kind)}", path=path)
        link["kind"] = kind.strip().lower()
    to = props.get("to", floor)
    if not isinstance(to, str):
        raise FormatError(f"{label('to')}: expected a {floor_word} name, got {shown(to)}",
                          path=path)
    if to not in floors:
        raise ConfigError(unknown_name_message(floor_word, to, list(floors)),
                          field=label("to"), path=path)
    tx, tz = at_px
    if any(k.lower() in props for k in to_keys):
        tx = _link_number(props.get(to_keys[0].lower(), at_px[0]), label(to_keys[0]), path)
        tz = _link_number(props.get(to_keys[1].lower(), at_px[1]), label(to_keys[1]), path)
    link["from"] = {"floor": floor, "point": list(px_to_m(*at_px))}
    link["to"] = {"floor": to, "point": list(px_to_m(tx, tz))}
    for key in ("bidirectional", "enabled"):
        if key in props:
            v = props[key]
            if isinstance(v, str) and v.strip().lower() in ("true", "false"):
                v = v.strip().lower() == "true"
            if not isinstance(v, bool):
                raise FormatError(f"{label(key)}: expected true or false, got {shown(v)}",
                                  path=path)
            link[key] = v
    if "cost" in props:
        link["cost"] = _link_number(props["cost"], label("cost"), path)
    if "capacity" in props:
        cap = props["capacity"]
        if isinstance(cap, bool) or not isinstance(cap, numbers.Integral):
            raise FormatError(f"{label('capacity')}: expected an integer, got {shown(cap)}",
                              path=path)
        link["capacity"] = int(cap)
    plural = "properties" if what == "property" else f"{what}s"
    return link, LinkSource(where, what, f"{plural} {to_keys[0]!r} / {to_keys[1]!r}")


def floor_maps(grids: Sequence[NavGrid], names: Sequence[str], ys: Sequence[float],
               links: Sequence[tuple[dict[str, Any], LinkSource]], *, path: Path) -> FloorMaps:
    """:class:`FloorMaps` of floors read from ``path``; the links with an end on a
    floor not in ``names`` left out; a duplicate link name is a ConfigError naming
    both objects."""
    keep = [(lk, src) for lk, src in links
            if lk["from"]["floor"] in names and lk["to"]["floor"] in names]
    seen: dict[str, str] = {}
    for lk, src in keep:
        if lk["name"] in seen:
            raise ConfigError(f"duplicate link name {lk['name']!r} (also {seen[lk['name']]})",
                              field=src.where, path=path)
        seen[lk["name"]] = src.where
    return FloorMaps(tuple(grids), tuple(names), tuple(float(y) for y in ys),
                     tuple(lk for lk, _ in keep), tuple(src for _, src in keep), path, path.stem)


def check_floor_count(floors: int, width: int, depth: int, limit: int, path: Path,
                      what: str = "floors") -> None:
    """Refuse, before any floor is built, more than :data:`MAX_MAP_FLOORS` floors or
    more than ``limit`` cells on all floors together."""
    if floors > MAX_MAP_FLOORS:
        raise FormatError(f"{floors} {what}, more than {MAX_MAP_FLOORS} (pass {what}= to read "
                          "some)", path=path)
    total = floors * width * depth
    if total > limit:
        raise FormatError(f"{floors} {what} of {width} x {depth} cells = {total:_} cells, more "
                          f"than the {limit:_}-cell limit (max_cells= raises it)", path=path)


def select_floors(floors: Any, names: Sequence[str], fld: str = "floors",
                  word: str = "floor") -> list[int]:
    """Indices of the floors ``floors`` picks (names or indices; None: all), in its
    order; ConfigError naming ``fld[i]``."""
    if floors is None:
        return list(range(len(names)))
    if isinstance(floors, (str, bytes)) or not isinstance(floors, Sequence) or not floors:
        raise ConfigError(f"expected a non-empty list of {word} names or indices, got "
                          f"{shown(floors)}", field=fld)
    out: list[int] = []
    for i, f in enumerate(floors):
        at = f"{fld}[{i}]"
        if isinstance(f, str):
            if f not in names:
                raise ConfigError(unknown_name_message(word, f, list(names)), field=at)
            k = list(names).index(f)
        elif isinstance(f, numbers.Integral) and not isinstance(f, bool):
            if not 0 <= int(f) < len(names):
                raise ConfigError(f"{word} index {int(f)} outside 0..{len(names) - 1}",
                                  field=at)
            k = int(f)
        else:
            raise ConfigError(f"expected a {word} name or index, got {shown(f)}", field=at)
        if k in out:
            raise ConfigError(f"{word} {names[k]!r} is listed twice", field=at)
        out.append(k)
    return out


def _is_group(lay: Any) -> bool:
    return getattr(lay, "layers", None) is not None and not hasattr(lay, "data")


def _floor_y(props: Mapping[str, Any], default: float, what: str, path: Path) -> float:
    if "floory" not in props:
        return default
    return _link_number(props["floory"], f"{what}, property 'floorY'", path)


def _link_objects(ld: _Loaded, layers: Any, prefix: str, floor: str, floors: Sequence[str]
                  ) -> list[tuple[dict[str, Any], LinkSource]]:
    """The link objects among ``layers`` (floor ``floor``'s), their positions in metres."""
    m, p = ld.mapping, ld.path
    tw, th = ld.tile_px
    ox, oy = ld.header.origin
    cs = m.cell_size

    def px_to_m(x: float, y: float) -> tuple[float, float]:
        return ((x / tw - ox) * cs, (y / th - oy) * cs)

    out = []
    for lname, lay in _walk_layers(layers, prefix):
        for obj in getattr(lay, "tiled_objects", None) or ():
            where = _object_where(lname, obj)
            if not _is_link(obj, m, where, p):
                continue
            kind = type(obj).__name__
            if kind == "Point":
                at = (float(obj.coordinates.x), float(obj.coordinates.y))
                if not all(math.isfinite(v) and abs(v) <= 1e15 for v in at):
                    raise FormatError(f"{where}: position must be finite within 1e15 pixels, "
                                      f"got {at!r}", path=p)
            elif kind in ("Rectangle", "Polygon", "Ellipse"):
                try:
                    geom = object_geometry(obj, ld.tiles.budget)
                except ValueError as exc:
                    raise FormatError(f"{where}: {exc}", path=p) from None
                if geom is None or geom.is_empty or geom.area <= 0:
                    raise FormatError(f"{where}: a link shape needs an area (or use a point)",
                                      path=p)
                c = geom.centroid
                at = (float(c.x), float(c.y))
            else:
                raise FormatError(f"{where}: a link must be a point, rectangle, ellipse or "
                                  f"polygon, got a {kind.lower()}", path=p)
            props = {k: v for k, v in _props(obj).items() if v is not None}
            out.append(link_from_properties(
                props, name=obj.name or f"link{obj.id}", floor=floor, at_px=at,
                to_keys=("toX", "toZ"), px_to_m=px_to_m, floors=floors, where=where,
                what="property", path=p))
    return out


def read_tiled_floors(
    path: PathLike, mapping: TiledMapping | None = None, *,
    floors: Sequence[str | int] | None = None, max_cells: int | None = None,
    allow_dirs: Any = None, **options: Any,
) -> FloorMaps:
    """Read a Tiled map's floors and links, a floor per top-level group layer.

    docs/tiled.md, "Floors and links"; ``read_tiled_floors(path).build(
    navkit.floors.Building.from_grids)`` gives the building. Each top-level
    group layer is a floor named after the group, at height ``floorY`` (a group
    property, metres; default ``i * 3.0`` for the ``i``-th group); its layers
    are read as :func:`read_tiled` reads a whole map (doors open). A map
    without group layers is one floor called ``"ground"`` (height the map
    property ``floorY``, default 0). Objects of class ``link`` (or with property
    ``link = true``) are links from their position (a point, or a shape's
    centre) on their group's floor to the floor named by property ``to``
    (default their own) at ``toX`` / ``toZ`` (pixels, as object positions;
    default their own position), with ``kind``, ``bidirectional``, ``cost``
    (metres), ``capacity`` and ``enabled``. ``floors``: the floors to read
    (names or indices, in that order; links to the others are left out).
    ``mapping`` / ``options``: as :func:`read_tiled`. A property of the wrong
    type raises :class:`~navkit.errors.FormatError`, a link to a missing floor
    or a duplicate link name :class:`~navkit.errors.ConfigError`, both naming
    the file and the object (:meth:`FloorMaps.build` names them too for what
    the building refuses).
    """
    m = _mapping(mapping, options)
    p = Path(path)
    ld = _load(p, m, max_cells, allow_dirs)
    top = list(ld.tmap.layers or ())
    entries: list[tuple[str, Any, str, float]] = []  # name, layers, prefix, floorY
    if any(_is_group(lay) for lay in top):
        seen: set[str] = set()
        for lay in top:
            lname = lay.name or ""
            if not _is_group(lay):
                if hasattr(lay, "data") or getattr(lay, "tiled_objects", None) is not None:
                    raise FormatError(f"layer {lname!r} lies outside the group layers: in a map "
                                      "with floors, every top-level tile or object layer must be "
                                      "a group layer (one per floor)", path=p)
                continue
            what = f"group layer {lname!r}"
            if not lname:
                raise FormatError(f"group layer {lay.id}: a floor needs a name", path=p)
            if lname in seen:
                raise FormatError(f"{what}: two floors are called {lname!r}", path=p)
            seen.add(lname)
            y = _floor_y(_props(lay), len(entries) * DEFAULT_FLOOR_STEP, what, p)
            entries.append((lname, lay.layers, lname + "/", y))
    else:
        y = _floor_y(_props(ld.tmap), 0.0, "the map", p)
        entries.append(("ground", top, "", y))
    all_names = [e[0] for e in entries]
    picked = select_floors(floors, all_names)
    check_floor_count(len(picked), ld.header.width, ld.header.height,
                      tiled_cell_limit(max_cells), p)
    grids, links = [], []
    for k in picked:
        fname, layers, prefix, y = entries[k]
        built = _build_layers(ld, layers, prefix)
        grids.append(_grid(built, m, p, f"{p.stem}:{fname}", floor_y=y, meta={"floor": fname}))
        links += _link_objects(ld, layers, prefix, fname, all_names)
    return floor_maps(grids, [entries[k][0] for k in picked], [entries[k][3] for k in picked],
                      links, path=p)
