"""Files maps name, bombs, hostile numbers and polygons.

* **Containment**: Tiled maps (``.tmx`` / ``.tmj``) whose tilesets, object
  templates or templates' tilesets, and LDtk projects whose external levels,
  point inside the map's folder, at absolute paths, ``../`` escapes (some that
  come back in), symlinks out and in, symlink loops, ``/proc/self/environ``,
  ``/dev/zero``, FIFOs, folders, sparse 3 GB files, empty or junk files, odd
  names; with and without ``allow_dirs``. Check: a reader that answers never
  read a file outside the allowed folders (every target is resolved here with
  ``os.path.realpath``), and an honest map inside its folder always reads.
* **Bombs**: grid ``.npz`` and mesh ``.npz`` members declaring or inflating to
  hundreds of megabytes, a Tiled layer's zlib data, a template read by
  thousands of objects. Files on disk stay small (deflate, sparse files).
* **Numbers**: query-corpus lines, search windows, ragged NavGrid rows,
  ``chord_error``, Tiled sizes and LDtk IntGrid values at and past every limit.
* **Polygons**: Tiled object polygons of 3 to 6,000 points (random, stars,
  spirals, zigzags, fine circles) with hostile coordinates and rotations.

Every case runs with the resident-memory check (``core.RSS_LIMIT_MB``).
"""

from __future__ import annotations

import copy
import inspect
import io
import json
import os
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .core import BIG300, BIG4400, Case, Context, Gen, WrongAnswer, check, show

REPO_ROOT = Path(__file__).resolve().parents[2]
FIX = REPO_ROOT / "tests" / "formats" / "fixtures"

# ------------------------------------------------------------------ containment
_TARGETS = [
    (8, "inside"), (2, "inside-subdir"), (2, "absolute-inside"), (3, "absolute-outside"),
    (3, "dotdot-outside"), (2, "dotdot-back-inside"), (3, "symlink-out"), (1, "symlink-in"),
    (1, "symlink-loop"), (2, "symlinked-dir-out"), (2, "proc"), (1, "etc"), (1, "dev-zero"),
    (1, "fifo"), (1, "folder"), (2, "sparse-huge"), (1, "missing"), (1, "empty"), (1, "junk"),
    (1, "nul-name"), (1, "long-name"), (1, "empty-name"),
]


def _place(g: Gen, root: Path, kind: str, content: bytes, name: str) -> tuple[str, Path | None]:
    """Make the file a reference of ``kind`` points at; returns the reference as written
    in a file of ``root / "map"`` and the path it opens (None: it cannot be opened)."""
    mapdir, out = root / "map", root / "out"
    mapdir.mkdir(exist_ok=True)
    out.mkdir(exist_ok=True)
    if kind == "inside":
        (mapdir / name).write_bytes(content)
        return name, mapdir / name
    if kind == "inside-subdir":
        (mapdir / "sub").mkdir(exist_ok=True)
        (mapdir / "sub" / name).write_bytes(content)
        return f"sub/{name}", mapdir / "sub" / name
    if kind == "absolute-inside":
        (mapdir / name).write_bytes(content)
        return str(mapdir / name), mapdir / name
    if kind == "absolute-outside":
        (out / name).write_bytes(content)
        return str(out / name), out / name
    if kind == "dotdot-outside":
        (out / name).write_bytes(content)
        return f"../out/{name}", out / name
    if kind == "dotdot-back-inside":
        (mapdir / name).write_bytes(content)
        return f"../map/{name}", mapdir / name
    if kind == "symlink-out":
        (out / name).write_bytes(content)
        os.symlink(out / name, mapdir / ("l" + name))
        return "l" + name, out / name
    if kind == "symlink-in":
        (mapdir / name).write_bytes(content)
        os.symlink(mapdir / name, mapdir / ("l" + name))
        return "l" + name, mapdir / name
    if kind == "symlink-loop":
        os.symlink(mapdir / "loop-b", mapdir / "loop-a")
        os.symlink(mapdir / "loop-a", mapdir / "loop-b")
        return "loop-a", None
    if kind == "symlinked-dir-out":
        (out / name).write_bytes(content)
        if not (mapdir / "d").exists():
            os.symlink(out, mapdir / "d")
        return f"d/{name}", out / name
    if kind == "proc":
        return "/proc/self/environ", Path("/proc/self/environ")
    if kind == "etc":
        return "/etc/passwd", Path("/etc/passwd")
    if kind == "dev-zero":
        return "/dev/zero", Path("/dev/zero")
    if kind == "fifo":
        os.mkfifo(mapdir / name)
        return name, None
    if kind == "folder":
        (mapdir / name).mkdir()
        return name, None
    if kind == "sparse-huge":
        with open(mapdir / name, "wb") as f:
            f.truncate(g.choice([3 << 30, (16 << 20) + 1, 1 << 40]))
        return name, None
    if kind == "missing":
        return name, None
    if kind == "empty":
        (mapdir / name).write_bytes(b"")
        return name, mapdir / name
    if kind == "junk":
        (mapdir / name).write_bytes(g.bytes(g.randint(1, 300)))
        return name, mapdir / name
    if kind == "nul-name":
        return name + "\x00x", None
    if kind == "long-name":
        return "a" * g.choice([300, 5000]) + name, None
    return "", None


def _allowed(root: Path, target: Path | None, allow: list[Path]) -> bool:
    if target is None:
        return True  # cannot be opened: nothing is read
    real = Path(os.path.realpath(target))
    roots = [Path(os.path.realpath(root / "map"))] + [Path(os.path.realpath(a)) for a in allow]
    return any(real == r or real.is_relative_to(r) for r in roots)


TEMPLATE = b"""<?xml version="1.0" encoding="UTF-8"?>
<template>
 <object type="obstacle" width="16" height="16"/>
</template>
"""


def gen_tiled_refs(g: Gen) -> Case:
    fmt = g.choice(["tmx", "tmx", "tmj"])
    which = g.choice(["tileset", "tileset", "template", "template-tileset"])
    if fmt == "tmj" and which != "tileset":
        which = "template-json"
    kind = g.weighted(_TARGETS)
    allow = g.choice(["none", "none", "out", "out-str", "bad"])
    level = g.chance(0.2)

    def run(ctx: Context) -> None:
        from navkit.formats.tiled import read_tiled, read_tiled_level

        root = ctx.tmp
        ts_name = "terrain.tsx" if fmt == "tmx" else "terrain.tsj"
        ts_bytes = (FIX / ts_name).read_bytes()
        mapdir = root / "map"
        mapdir.mkdir(exist_ok=True)
        targets: list[Path | None] = []
        text = (FIX / f"basic.{fmt}").read_text()
        if which == "tileset":
            ref, tgt = _place(g, root, kind, ts_bytes, "t" + ts_name)
            targets.append(tgt)
            if fmt == "tmx":
                text = text.replace('source="terrain.tsx"', f'source="{_xml(ref)}"')
            else:
                doc = json.loads(text)
                doc["tilesets"][0]["source"] = ref
                text = json.dumps(doc)
        else:
            (mapdir / ts_name).write_bytes(ts_bytes)
            if which == "template":
                ref, tgt = _place(g, root, kind, TEMPLATE, "t.tx")
                targets.append(tgt)
            elif which == "template-tileset":
                tref, ttgt = _place(g, root, kind, ts_bytes, "x" + ts_name)
                targets.append(ttgt)
                body = TEMPLATE.replace(b"<template>", b'<template>\n <tileset firstgid="1" '
                                        b'source="' + _xml(tref).encode("utf-8", "replace")
                                        + b'"/>')
                (mapdir / "t.tx").write_bytes(body)
                ref = "t.tx"
            else:  # a JSON template in a JSON map
                tj = json.dumps({"type": "template", "object": {
                    "type": "obstacle", "width": 16, "height": 16, "x": 0, "y": 0, "id": 0,
                    "name": "", "rotation": 0, "visible": True}}).encode()
                ref, tgt = _place(g, root, kind, tj, "t.tj")
                targets.append(tgt)
            if fmt == "tmx":
                text = text.replace(' <objectgroup id="5" name="objects">',
                                    ' <objectgroup id="5" name="objects">\n  <object id="9" '
                                    f'template="{_xml(ref)}" x="0" y="48"/>')
            else:
                doc = json.loads(text)
                for lay in doc["layers"]:
                    if lay.get("type") == "objectgroup":
                        lay["objects"].append({"id": 9, "template": ref, "x": 0, "y": 48})
                text = json.dumps(doc)
        p = mapdir / f"m.{fmt}"
        p.write_text(text, encoding="utf-8", errors="surrogateescape")
        allow_dirs: Any = None
        allowed: list[Path] = []
        if not _takes(read_tiled, "allow_dirs"):
            pass  # (a navkit without the option: nothing outside is allowed)
        elif allow == "out":
            allow_dirs, allowed = [root / "out"], [root / "out"]
        elif allow == "out-str":
            allow_dirs, allowed = str(root / "out"), [root / "out"]
        elif allow == "bad":
            allow_dirs = g.choice([3, [None], b"x", [""], {"a": 1}])
        kw = {} if allow_dirs is None else {"allow_dirs": allow_dirs}
        ctx.at("read_tiled_level" if level else "read_tiled")
        try:
            (read_tiled_level if level else read_tiled)(p, **kw)
        except Exception as exc:
            from navkit.errors import NavkitError

            if (isinstance(exc, NavkitError) and kind in ("inside", "inside-subdir")
                    and not (allow == "bad" and kw) and which != "template-json"):
                raise WrongAnswer(f"an honest map was refused: {exc}") from None
            raise
        for t in targets:
            check(_allowed(root, t, allowed), "read a file outside the allowed folders",
                  f"{kind}: {t}")

    return Case("files", f"read_tiled({which})",
                f"{fmt} {which} -> {kind}, allow {allow}{', level' if level else ''}", run)


def _takes(fn: Any, name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _xml(ref: str) -> str:
    return (ref.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
            .replace("\x00", "&#0;"))


def gen_ldtk_refs(g: Gen) -> Case:
    kind = g.weighted(_TARGETS)
    allow = g.choice(["none", "none", "out", "bad"])
    junk_rel = g.chance(0.1)

    def run(ctx: Context) -> None:
        from navkit.formats.ldtk import read_ldtk

        root = ctx.tmp
        doc = json.loads((FIX / "dungeon.ldtk").read_text())
        lv = doc["levels"][0]
        level = json.dumps({"layerInstances": lv.pop("layerInstances")}).encode()
        lv["layerInstances"] = None
        ref, tgt = _place(g, root, kind, level, "lv.ldtkl")
        lv["externalRelPath"] = g.choice([3, None, [], {"a": 1}, BIG300]) if junk_rel else ref
        p = root / "map" / "p.ldtk"
        p.write_text(json.dumps(doc))
        kw: dict[str, Any] = {}
        allowed: list[Path] = []
        if not _takes(read_ldtk, "allow_dirs"):
            pass  # (a navkit without the option: nothing outside is allowed)
        elif allow == "out":
            kw["allow_dirs"], allowed = [root / "out"], [root / "out"]
        elif allow == "bad":
            kw["allow_dirs"] = g.choice([3, [None], [""]])
        ctx.at("read_ldtk")
        read_ldtk(p, **kw)
        if not junk_rel:
            check(_allowed(root, tgt, allowed), "read a file outside the allowed folders",
                  f"{kind}: {tgt}")

    return Case("files", "read_ldtk(externalRelPath)",
                f"external level -> {kind}, allow {allow}{', junk path' if junk_rel else ''}",
                run)


# ------------------------------------------------------------------ bombs
_CACHE = Path(tempfile.gettempdir()) / "navkit-fuzz-cache"


def cached(name: str, make: Callable[[], bytes]) -> bytes:
    """``make()``'s bytes, kept in the fuzz cache folder (a bomb is made once per machine:
    seconds of deflate; a few MB on disk)."""
    path = _CACHE / name
    if path.exists():
        return path.read_bytes()
    data = make()
    _CACHE.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return data


def npz_bomb(member: str, raw_bytes: int, dtype: str, others: dict[str, Any]) -> bytes:
    """A cached ``.npz`` whose ``member`` is a valid .npy of ``raw_bytes`` zero bytes,
    deflated (about 1/200 of that on disk), beside small ``others``."""
    key = f"bomb-{member}-{raw_bytes >> 20}M-{dtype.strip('<|>')}-{'-'.join(sorted(others))}.npz"
    hdr = {"descr": dtype, "fortran_order": False,
           "shape": (raw_bytes // np.dtype(dtype).itemsize,)}
    return cached(key, lambda: _deflated_member(member + ".npy", hdr, raw_bytes,
                                                {k + ".npy": _npy(v) for k, v in others.items()}))


def _layer_blob(n: int) -> bytes:
    """Base64 of zlib data holding ``n`` gids of tile 1 (cached)."""
    import base64
    import zlib

    def make() -> bytes:
        comp = zlib.compressobj(1)
        blob = b"".join(comp.compress(b"\1\0\0\0" * (1 << 20)) for _ in range(n >> 20))
        return base64.b64encode(blob + comp.flush())

    return cached(f"tiled-layer-{n}.b64", make)


def _mesh_bomb() -> bytes:
    """A mesh ``.npz`` whose vertices unpack to 900 MB (the loader allowed 1 GB)."""
    meta = np.frombuffer(json.dumps({"format": "navkit-mesh", "version": 1,
                                     "meta": {}}).encode(), np.uint8)
    return npz_bomb("vertices", 900 << 20, "<f8", {"header": meta,
                                                   "poly_start": np.array([0, 3]),
                                                   "poly_verts": np.array([0, 1, 2])})


def _deflated_member(name: str, header: dict[str, Any], raw_bytes: int,
                     others: dict[str, bytes]) -> bytes:
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, header)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for k, v in others.items():
            zf.writestr(k, v)
        with zf.open(name, "w", force_zip64=True) as fh:
            fh.write(head.getvalue())
            zero = bytes(1 << 22)
            for _ in range(raw_bytes // len(zero)):
                fh.write(zero)
    return buf.getvalue()


def _npy(arr: Any) -> bytes:
    b = io.BytesIO()
    np.save(b, np.asarray(arr), allow_pickle=False)
    return b.getvalue()


def _declare(data: bytes, name: str, size: int) -> bytes:
    raw = bytearray(data)
    pos = raw.find(b"PK\x01\x02")
    while pos >= 0:
        nlen = int.from_bytes(raw[pos + 28:pos + 30], "little")
        if raw[pos + 46:pos + 46 + nlen] == name.encode():
            raw[pos + 24:pos + 28] = min(size, 0xFFFFFFFE).to_bytes(4, "little")
        pos = raw.find(b"PK\x01\x02", pos + 4)
    return bytes(raw)


def gen_bombs(g: Gen) -> Case:
    target = g.choice(["grid-npz", "grid-npz", "mesh-npz", "mesh-npz", "tiled-layer",
                       "template-many", "sparse-tileset", "sparse-ldtk"])
    size_mb = g.choice([64, 256, 512])
    mode = g.choice(["inflate", "declare"])
    if mode == "inflate" and target == "mesh-npz":
        _mesh_bomb()  # made (once, cached) outside the case's clock
    if target == "tiled-layer":
        _layer_blob(size_mb << 18)

    def run(ctx: Context) -> None:
        p = ctx.tmp / "bomb"
        if target == "grid-npz":
            from navkit.formats import load_grid

            side = int((size_mb << 20) ** 0.5)
            if mode == "inflate":
                key = f"bomb-walkable-{side}.npz"
                hdr = {"descr": "|b1", "fortran_order": False, "shape": (side, side)}
                data = cached(key, lambda: _deflated_member("walkable.npy", hdr, side * side,
                                                            {}))
            else:
                small = io.BytesIO()
                with zipfile.ZipFile(small, "w") as zf:
                    zf.writestr("walkable.npy", _npy(np.ones((2, 2), bool)))
                data = _declare(small.getvalue(), "walkable.npy", size_mb << 20)
            p = p.with_suffix(".npz")
            p.write_bytes(data)
            ctx.at("load_grid(.npz bomb)")
            # (the default limit, 2**26 cells, is a 3.4 GB Pathfinder by design)
            load_grid(p, max_cells=g.choice([1 << 20, 1 << 22]))
        elif target == "mesh-npz":
            from navkit import NavMesh

            meta = np.frombuffer(json.dumps({"format": "navkit-mesh", "version": 1,
                                             "meta": {}}).encode(), np.uint8)
            others = {"header.npy": _npy(meta), "poly_start.npy": _npy(np.array([0, 3])),
                      "poly_verts.npy": _npy(np.array([0, 1, 2]))}
            if mode == "inflate":
                data = _mesh_bomb()
            else:
                small = io.BytesIO()
                with zipfile.ZipFile(small, "w") as zf:
                    for k, v in others.items():
                        zf.writestr(k, v)
                    zf.writestr("vertices.npy", _npy(np.array([[0.0, 0], [1, 0], [0, 1]])))
                data = _declare(small.getvalue(), "vertices.npy", size_mb << 20)
            p = p.with_suffix(".npz")
            p.write_bytes(data)
            ctx.at("NavMesh.load(bomb)")
            NavMesh.load(p)
        elif target == "tiled-layer":
            from navkit.formats.tiled import read_tiled

            n = size_mb << 18  # gids of 4 bytes
            layers = g.choice([1, 1, 3])
            d = ctx.tmp / "map"
            d.mkdir()
            shutil.copy(FIX / "terrain.tsx", d / "terrain.tsx")
            data = _layer_blob(n).decode()
            body = "".join(f' <layer id="{i + 1}" name="l{i}" width="{n}" height="1">\n'
                           f'  <data encoding="base64" compression="zlib">{data}</data>\n'
                           " </layer>\n" for i in range(layers))
            p = d / "m.tmx"
            p.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<map version="1.10" '
                         'tiledversion="1.10.2" orientation="orthogonal" '
                         f'renderorder="right-down" width="{n}" height="1" tilewidth="16" '
                         'tileheight="16" infinite="0" nextlayerid="9" nextobjectid="1">\n'
                         ' <tileset firstgid="1" source="terrain.tsx"/>\n' + body + "</map>\n")
            ctx.note(f"{layers} layers of {n:_} tiles, {p.stat().st_size:_} bytes")
            ctx.at("read_tiled(layer bomb)")
            read_tiled(p)
        elif target == "template-many":
            from navkit.formats.tiled import read_tiled

            d = ctx.tmp / "map"
            d.mkdir()
            shutil.copy(FIX / "terrain.tsx", d / "terrain.tsx")
            big = TEMPLATE.replace(b"<template>", b"<template>\n<!--" + b"x" * (1 << 20)
                                   + b"-->")
            (d / "t.tx").write_bytes(big)
            k = g.choice([10, 80, 2000])
            objs = "".join(f'  <object id="{100 + i}" template="t.tx" x="0" y="48"/>\n'
                           for i in range(k))
            text = (FIX / "basic.tmx").read_text().replace(
                ' <objectgroup id="5" name="objects">',
                ' <objectgroup id="5" name="objects">\n' + objs)
            p = d / "m.tmx"
            p.write_text(text)
            ctx.note(f"{k} objects")
            ctx.at("read_tiled(template read per object)")
            read_tiled(p)
        elif target == "sparse-tileset":
            from navkit.formats.tiled import read_tiled

            d = ctx.tmp / "map"
            d.mkdir()
            with open(d / "terrain.tsx", "wb") as f:
                f.truncate(size_mb << 24)
            p = d / "m.tmx"
            p.write_text((FIX / "basic.tmx").read_text())
            ctx.at("read_tiled(sparse tileset)")
            read_tiled(p)
        else:
            from navkit.formats.ldtk import read_ldtk

            doc = json.loads((FIX / "dungeon.ldtk").read_text())
            doc["levels"][0]["layerInstances"] = None
            doc["levels"][0]["externalRelPath"] = "lv.ldtkl"
            with open(ctx.tmp / "lv.ldtkl", "wb") as f:
                f.truncate(size_mb << 24)
            p = ctx.tmp / "p.ldtk"
            p.write_text(json.dumps(doc))
            ctx.at("read_ldtk(sparse level)")
            read_ldtk(p)

    return Case("files", f"bomb({target})", f"{target} {mode} {size_mb} MB", run)


# ------------------------------------------------------------------ numbers
def dumps_big(obj: Any) -> str:
    """``json.dumps``, integers past Python's 4,300-digit str() limit included."""
    old = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0
    if old:
        sys.set_int_max_str_digits(0)
    try:
        return json.dumps(obj)
    finally:
        if old:
            sys.set_int_max_str_digits(old)


_HOSTILE = (10**500, -(10**500), BIG300, BIG4400, 10**30, 2**63, -(2**63) - 1, 2**64, 1e308,
            float("nan"), float("inf"), -0.0, [], {}, "", "1", None, True, [1, 2], 7)


def gen_numbers(g: Gen) -> Case:
    what = g.choice(["corpus", "corpus", "window", "navgrid", "chord", "tiled-size",
                     "ldtk-value"])
    v = g.choice(_HOSTILE)

    def run(ctx: Context) -> None:
        import navkit

        if what == "corpus":
            from navkit.corpus.replay import read_corpus

            head = {"navkitCorpus": 2, "source": None, "costs": None, "connectivity": 8,
                    "createdBy": "t"}
            line: dict[str, Any] = {
                "kind": "find_path", "fingerprint": None, "start": [0.5, 0.5],
                "goal": [2.5, 2.5], "options": {
                    "algorithm": "astar", "smooth": False, "nearest": False, "budget": None,
                    "window": None, "costs": [10, 14], "connectivity": 8, "snapRadius": 1.0},
                "obstacles": None, "outcome": {"status": "FOUND", "costInt": 28, "cost": 2.8,
                                               "cells": 3, "endCell": [2, 2]},
                "expanded": 3, "generated": 8, "time": 1e-5}
            where = g.choice([("start", 0), ("goal", 1), ("time",), ("expanded",),
                              ("options", "snapRadius"), ("options", "budget"),
                              ("options", "window"), ("options", "costs"), ("outcome", "status"),
                              ("outcome", "costInt"), ("outcome", "endCell"), ("obstacles",),
                              ("kind",), ("options", "algorithm"), ("fingerprint",)])
            obj = line
            for k in where[:-1]:
                obj = obj[k]
            obj[where[-1]] = copy.deepcopy(v) if where != ("obstacles",) else [[0.0, 0.0, v]]
            ctx.note(f"{'.'.join(map(str, where))}={show(v)}")
            p = ctx.tmp / "c.jsonl"
            p.write_text(json.dumps(head) + "\n" + dumps_big(line) + "\n")
            ctx.at("read_corpus")
            read_corpus(p)
        elif what == "window":
            grid = navkit.NavGrid(np.ones((6, 7), dtype=bool))
            win = [g.choice([0, 3, -1, 6, v]) for _ in range(4)]
            win[g.randint(0, 3)] = v
            ctx.note(f"window {show(win)}")
            target = g.choice(["Pathfinder", "NavMap"])
            ctx.at(f"{target}.find_path(window=)")
            if target == "Pathfinder":
                r = navkit.Pathfinder(grid).find_path_cells((0, 0), (5, 4), window=tuple(win))
            else:
                r = navkit.NavMap(grid).find_path(grid.cell_center(0, 0), grid.cell_center(5, 4),
                                                  window=tuple(win))
            check(r.cost_int == -1 or r.cost_int >= 50, "window: path too short")
        elif what == "navgrid":
            rows = g.choice([[[1, 0], [1]], [[v, 1]], [[1, 1], [v, 0]], [[[1]], [1]], [v],
                             [[1, 0], [0]], [[1, 1]] * 2 + [[1]]])
            ctx.note(f"rows {show(rows)}")
            ctx.at("NavGrid(rows)")
            if g.chance(0.5):
                navkit.NavGrid(rows)
            else:
                navkit.NavGrid(np.ones((2, 2), bool), weights=rows)
        elif what == "chord":
            from navkit.level import parse_level
            from navkit.mesh.build import random_level

            level = parse_level(random_level(30, 20, 8, seed=g.randint(0, 99)))
            ce = g.choice([v, 1e-7, 1e-9, 5e-324, 0.0, -1e-3, 2.0, 0.05])
            ctx.note(f"chord_error {show(ce)}")
            ctx.at("NavMesh.from_level(chord_error=)")
            navkit.NavMesh.from_level(level, chord_error=ce)
        elif what == "tiled-size":
            from navkit.formats.tiled import read_tiled

            d = ctx.tmp / "map"
            d.mkdir()
            fmt = g.choice(["tmx", "tmj"])
            shutil.copy(FIX / f"terrain.{'tsx' if fmt == 'tmx' else 'tsj'}", d)
            text = (FIX / f"basic.{fmt}").read_text()
            token = g.choice(["9" * 5000, "9" * 4000, "1e400", "-1", "0", "2147483648",
                              str(BIG300), "NaN", '"6"', "6.5"])
            if fmt == "tmx":
                text = text.replace('width="6"', f'width="{token}"', 1)
            else:
                text = text.replace('"width":6', '"width":' + token, 1)
            (d / f"m.{fmt}").write_text(text)
            ctx.note(f"width {show(token, 20)}")
            ctx.at("read_tiled(size)")
            read_tiled(d / f"m.{fmt}")
        else:
            from navkit.formats.ldtk import read_ldtk

            doc = json.loads((FIX / "dungeon.ldtk").read_text())
            for la in doc["levels"][0]["layerInstances"]:
                if la.get("__type") == "IntGrid":
                    la["intGridCsv"][g.randint(0, len(la["intGridCsv"]) - 1)] = v
                    break
            p = ctx.tmp / "p.ldtk"
            p.write_text(dumps_big(doc))
            ctx.at("read_ldtk(intGridCsv)")
            read_ldtk(p)

    return Case("files", f"numbers({what})", f"{what} {show(v)}", run)


# ------------------------------------------------------------------ polygons
def _polygon(g: Gen) -> tuple[np.ndarray, str]:
    n = g.choice([3, 4, 10, 60, 300, 1000, 3000, 6000])
    shape = g.choice(["random", "random", "star", "spiral", "zigzag", "circle", "bowtie"])
    if shape == "random":
        pts = g.np.random((n, 2)) * 96
    elif shape == "star":
        ang = np.sort(g.np.random(n)) * 2 * np.pi
        r = 20 + 10 * g.np.random(n)
        pts = np.c_[48 + r * np.cos(ang), 32 + r * np.sin(ang)]
    elif shape == "spiral":
        ang = np.sort(g.np.random(n)) * 2 * np.pi * g.randint(2, 5)
        r = 20 + 5 * g.np.random(n)
        pts = np.c_[48 + r * np.cos(ang), 32 + r * np.sin(ang)]
    elif shape == "zigzag":
        x = np.where(np.arange(n) % 2 == 0, 0.0, 96.0)
        pts = np.c_[x, np.linspace(0, 64, n)]
    elif shape == "circle":
        ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
        pts = np.c_[48 + 20 * np.cos(ang), 32 + 20 * np.sin(ang)]
    else:
        pts = np.array([[0, 0], [32, 32], [32, 0], [0, 32]], float) + [g.randint(0, 60), 0]
    return pts, f"{shape} {len(pts)} points"


def gen_polygons(g: Gen) -> Case:
    pts, what = _polygon(g)
    spoil = g.choice(["none", "none", "none", "inf", "nan", "huge", "rotation", "dup"])
    cls = g.choice(["obstacle", "area", "wall"])
    level = g.chance(0.25)

    def run(ctx: Context) -> None:
        from navkit.formats.tiled import read_tiled, read_tiled_level

        d = ctx.tmp / "map"
        d.mkdir()
        shutil.copy(FIX / "terrain.tsx", d / "terrain.tsx")
        p = pts.copy()
        x0, rot = "0", ""
        if spoil == "inf":
            x0 = g.choice(["1e400", "-1e400"])
        elif spoil == "nan":
            p[g.randint(0, len(p) - 1), 0] = np.nan
        elif spoil == "huge":
            p = p * 1e300
        elif spoil == "rotation":
            rot = f' rotation="{g.choice(["1e400", "nan", "45", "-720", "1e308"])}"'
        elif spoil == "dup":
            p = np.repeat(p, 2, axis=0)
        text = " ".join(f"{x!r},{y!r}" for x, y in p.tolist())
        obj = (f'  <object id="77" name="poly" type="{cls}" x="{x0}" y="0"{rot}>\n'
               f'   <polygon points="{text}"/>\n  </object>\n')
        tmx = (FIX / "basic.tmx").read_text().replace(
            ' <objectgroup id="5" name="objects">', ' <objectgroup id="5" name="objects">\n'
            + obj)
        path = d / "m.tmx"
        path.write_text(tmx)
        ctx.at("read_tiled_level(polygon)" if level else "read_tiled(polygon)")
        out = (read_tiled_level if level else read_tiled)(path)
        if not level:
            check(out.walkable.shape == (4, 6), "polygon changed the grid's size")

    return Case("files", "read_tiled(polygon)",
                f"{what} {cls} {spoil}{' level' if level else ''}", run)


GENERATORS = [(6, gen_tiled_refs), (3, gen_ldtk_refs), (3, gen_bombs), (4, gen_numbers),
              (3, gen_polygons)]
