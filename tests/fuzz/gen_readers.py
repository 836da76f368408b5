"""Readers: Moving AI .map/.scen, .txt grid files, images (Pillow), .npy/.npz.

Inputs are valid files (the bundled examples, or small grids written here
without navkit's writers) mutated at the byte level (truncation, flips,
insertions, hostile number tokens, BOMs, NULs, line endings) or crafted:
.npy headers declaring shapes far larger than their data, odd dtypes, .npz
archives with bad entries, PNG headers with huge sizes, decompression bombs.
Readers must answer with a grid or a :class:`navkit.NavkitError`; a grid read
back is checked, and an unmutated input must read back exactly what was written.
"""

from __future__ import annotations

import functools
import io
import os
import re
import struct
import tempfile
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from .core import BIG300, Case, Context, Gen, check, show

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = REPO_ROOT / "navkit" / "examples"
_CACHE = Path(tempfile.gettempdir()) / "navkit-fuzz-cache"
#: Grids larger than this are not round-tripped (time).
_ROUND_TRIP_CELLS = 200_000


# ------------------------------------------------------------------ valid inputs
def _small_walk(g: Gen, max_side: int = 24) -> np.ndarray:
    d, w = g.randint(1, max_side), g.randint(1, max_side)
    return g.np.random((d, w)) < g.choice([0.0, 0.5, 0.8, 1.0])


def map_text(walk: np.ndarray, g: Gen) -> bytes:
    """A Moving AI map of ``walk`` using every passable / blocked character."""
    d, w = walk.shape
    passable = np.array(list(b".GS"), np.uint8)[g.np.integers(0, 3, walk.shape)]
    blocked = np.array(list(b"@OTW"), np.uint8)[g.np.integers(0, 4, walk.shape)]
    cells = np.where(walk, passable, blocked)
    rows = b"\n".join(bytes(r) for r in cells)
    return b"type octile\nheight %d\nwidth %d\nmap\n" % (d, w) + rows + b"\n"


def text_grid(walk: np.ndarray, weights: np.ndarray | None, geo: dict[str, float]) -> bytes:
    """A ``.txt`` grid file (docs/rules.md §2.5), floats written with ``repr``."""
    d, w = walk.shape
    head = [f"{k} {v!r}" for k, v in geo.items()] + [f"gridWidth {w}", f"gridDepth {d}"]
    if weights is not None:
        head.append("weighted 1")
    body = ["".join("1" if c else "0" for c in row) for row in walk]
    if weights is not None:
        body.append("weights")
        body += [" ".join(str(int(v)) for v in row) for row in weights]
    return ("\n".join(head + body) + "\n").encode()


def scen_text(g: Gen, w: int, h: int, n: int) -> bytes:
    lines = ["version 1"]
    for _ in range(n):
        sx, sy, gx, gy = g.randint(0, w - 1), g.randint(0, h - 1), g.randint(0, w - 1), \
            g.randint(0, h - 1)
        lines.append(f"{g.randint(0, 9)}\tmaps/x.map\t{w}\t{h}\t{sx}\t{sy}\t{gx}\t{gy}\t"
                     f"{g.uniform(0, 50):.8f}")
    return ("\n".join(lines) + "\n").encode()


def npy_bytes(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


def npy_raw(descr: str, fortran: bool, shape: Any, data: bytes, *, header: str | None = None,
            version: tuple[int, int] = (1, 0)) -> bytes:
    """A hand-made .npy: any header text, any amount of data."""
    text = header if header is not None else (
        f"{{'descr': {descr!r}, 'fortran_order': {fortran!r}, 'shape': {shape!r}, }}")
    raw = text.encode("latin1")
    if version[0] == 1 and len(raw) > 65000:
        version = (2, 0)  # a version 1 header cannot say how long it is
    lenfmt = "<H" if version[0] == 1 else "<I"
    pre = 6 + 2 + struct.calcsize(lenfmt)
    pad = (-(pre + len(raw) + 1)) % 64
    raw = raw + b" " * pad + b"\n"
    return b"\x93NUMPY" + bytes(version) + struct.pack(lenfmt, len(raw)) + raw + data


def npz_bytes(entries: dict[str, bytes], *, deflate: bool = True) -> bytes:
    buf = io.BytesIO()
    mode = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
    with zipfile.ZipFile(buf, "w", mode) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return buf.getvalue()


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(
        ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_raw(width: int, height: int, idat: bytes, *, depth: int = 8, color: int = 0) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", idat)
            + png_chunk(b"IEND", b""))


#: The image modes each format can store.
_MODES = {"png": ("L", "1", "RGB", "RGBA", "P", "LA", "I;16"), "bmp": ("L", "1", "RGB", "P"),
          "gif": ("L", "P", "1"), "tiff": ("L", "1", "RGB", "RGBA", "I;16", "I", "F"),
          "jpeg": ("L", "RGB")}


def image_bytes(g: Gen, walk: np.ndarray, fmt: str) -> tuple[bytes, str]:
    """``walk`` as an image file (white walkable) in one of the modes ``fmt`` stores."""
    from PIL import Image

    lum = np.where(walk, 255, 0).astype(np.uint8)
    mode = g.choice(_MODES[fmt])
    if mode == "I;16":
        img = Image.fromarray(lum.astype(np.uint16) * np.uint16(257))
    elif mode == "I":
        img = Image.fromarray(lum.astype(np.int32) * 257)
    elif mode == "F":
        img = Image.fromarray(lum.astype(np.float32))
    else:
        img = Image.fromarray(lum).convert(mode)
    buf = io.BytesIO()
    img.save(buf, format=fmt.upper())
    return buf.getvalue(), img.mode


# ------------------------------------------------------------------ mutations
_NUM = re.compile(rb"-?\d+(?:\.\d+)?(?:e-?\d+)?")


def mutate(g: Gen, data: bytes, *, text: bool) -> tuple[bytes, str]:
    """One to three byte-level mutations of ``data``; returns the bytes and what was done."""
    done = []
    for _ in range(g.choice([1, 1, 1, 2, 3])):
        ops = ["truncate", "flip", "insert", "delete", "duplicate", "nul", "empty-tail"]
        if text:
            ops += ["number"] * 6 + ["bom", "crlf", "cr", "long-line", "blank-lines", "swap",
                                     "unicode", "repeat-line"]
        op = g.choice(ops)
        n = len(data)
        if op == "truncate":
            cut = g.randint(0, max(0, n - 1))
            data = data[:cut]
        elif op == "flip" and n:
            b = bytearray(data)
            for _ in range(g.randint(1, 8)):
                b[g.randint(0, n - 1)] ^= 1 << g.randint(0, 7)
            data = bytes(b)
        elif op == "insert":
            at = g.randint(0, n)
            data = data[:at] + g.bytes(g.randint(1, 16)) + data[at:]
        elif op == "delete" and n:
            a = g.randint(0, n - 1)
            data = data[:a] + data[a + g.randint(1, 64):]
        elif op == "duplicate" and n:
            a = g.randint(0, n - 1)
            data = data[:a] + data[a:a + g.randint(1, 256)] * g.randint(2, 5) + data[a:]
        elif op == "nul":
            at = g.randint(0, n)
            data = data[:at] + b"\x00" + data[at:]
        elif op == "empty-tail":
            data = data[: g.randint(0, min(n, 40))]
        elif op == "number":
            spans = [m.span() for m in _NUM.finditer(data[:200_000])]
            if spans:
                a, b = g.choice(spans)
                tok = g.token()
                data = data[:a] + tok.encode("utf-8") + data[b:]
                op = f"number->{show(tok, 12)}"
        elif op == "bom":
            data = b"\xef\xbb\xbf" + data
        elif op == "crlf":
            data = data.replace(b"\n", b"\r\n")
        elif op == "cr":
            data = data.replace(b"\n", b"\r")
        elif op == "long-line":
            at = g.randint(0, n)
            data = data[:at] + b"." * g.choice([1000, 100_000]) + data[at:]
        elif op == "blank-lines":
            at = g.randint(0, n)
            data = data[:at] + b"\n" * g.randint(1, 50) + data[at:]
        elif op == "swap":
            lines = data.split(b"\n")
            if len(lines) > 1:
                i, j = g.randint(0, len(lines) - 1), g.randint(0, len(lines) - 1)
                lines[i], lines[j] = lines[j], lines[i]
                data = b"\n".join(lines)
        elif op == "unicode":
            at = g.randint(0, n)
            data = data[:at] + g.choice(["\u0663", "\u00e9", "\ufeff", "\u2028", "\udcff"]
                                        ).encode("utf-8", "surrogatepass") + data[at:]
        elif op == "repeat-line":
            lines = data.split(b"\n")
            i = g.randint(0, len(lines) - 1)
            lines[i:i] = [lines[i]] * g.randint(1, 20)
            data = b"\n".join(lines)
        done.append(op)
    return data, "+".join(done)


# ------------------------------------------------------------------ answer checks
def check_grid(ctx: Context, grid: Any, expect: np.ndarray | None = None,
               weights: np.ndarray | None = None) -> None:
    """A reader's answer: a sane NavGrid, equal to ``expect`` when given, and one that the
    writers round-trip exactly."""
    from navkit import NavGrid, load_grid, save_grid

    check(isinstance(grid, NavGrid), "reader returned no NavGrid", type(grid).__name__)
    walk = grid.walkable
    check(walk.ndim == 2 and walk.dtype == np.bool_ and walk.size >= 1, "bad walkable array",
          f"{walk.shape} {walk.dtype}")
    if expect is not None:
        check(walk.shape == expect.shape and np.array_equal(walk, expect),
              "grid differs from the file's cells", f"{walk.shape} vs {expect.shape}")
        want = np.ones(expect.shape, np.int64) if weights is None else weights
        check(np.array_equal(grid.weight_array(), want), "weights differ from the file's")
    if grid.size > _ROUND_TRIP_CELLS:
        return
    for ext in (".txt", ".npz", ".map"):
        p = ctx.tmp / f"roundtrip{ext}"
        ctx.at(f"save_grid({ext})")
        save_grid(grid, p)
        ctx.at(f"load_grid({ext}) of save_grid({ext})")
        back = load_grid(p)
        if ext == ".map":
            check(np.array_equal(back.walkable, walk), f"{ext} round trip changed the cells")
        else:
            check(back.equals(grid), f"{ext} round trip changed the grid",
                  f"{grid!r} -> {back!r}")


# ------------------------------------------------------------------ generators
def _write(ctx: Context, name: str, data: bytes) -> Path:
    p = ctx.tmp / name
    p.write_bytes(data)
    return p


def _example(name: str) -> bytes:
    return (EXAMPLES / name).read_bytes()


def gen_map(g: Gen) -> Case:
    if g.chance(0.25):
        name = g.choice(["arena.map", "arena.map", "den520d.map"])
        data, walk = _example(name), None
        base = name
    else:
        walk = _small_walk(g)
        data = map_text(walk, g)
        base = f"random {walk.shape[1]}x{walk.shape[0]}"
    control = g.chance(0.1)
    if not control:
        data, how = mutate(g, data, text=True)
    else:
        how = "unmutated"
    via = g.choice(["load_grid", "parse_map", "read_map"])
    ext = g.choice([".map"] * 6 + [".MAP", ".Map"])

    def run(ctx: Context) -> None:
        from navkit.formats import load_grid, parse_map, read_map

        p = _write(ctx, "g" + ext, data)
        ctx.at(f"{via}(.map)")
        grid = load_grid(p) if via == "load_grid" else (
            read_map(p) if via == "read_map" else parse_map(data))
        check_grid(ctx, grid, walk if control else None)

    return Case("readers", f"{via}(.map)", f"{base}, {how}, {len(data)} bytes", run)


def gen_scen(g: Gen) -> Case:
    if g.chance(0.3):
        data = _example(g.choice(["arena.map.scen", "den520d.map.scen"]))
        base = "example"
    else:
        w, h = g.randint(1, 60), g.randint(1, 60)
        data = scen_text(g, w, h, g.randint(0, 12))
        base = f"random {w}x{h}"
        if g.chance(0.3):
            data = data.replace(b"version 1\n", b"version 1.0\n").replace(b"\t", b" ")
    data, how = mutate(g, data, text=True)
    fit = g.chance(0.4)

    def run(ctx: Context) -> None:
        from navkit.formats import check_scenarios_fit, parse_map, parse_scenarios, read_scenarios

        p = _write(ctx, "x.map.scen", data)
        ctx.at("read_scenarios")
        scen = read_scenarios(p) if g.chance(0.5) else parse_scenarios(data)
        n = len(scen)
        check(scen.start.shape == (n, 2) and scen.goal.shape == (n, 2), "scenario arrays ragged")
        check(np.all(np.isfinite(scen.optimal)) and np.all(scen.optimal >= 0),
              "scenario length not finite and >= 0")
        check(np.all(scen.start < np.stack([scen.map_width, scen.map_height], 1)),
              "scenario start outside its declared map")
        if fit and n:
            w, h = int(scen.map_width[0]), int(scen.map_height[0])
            if w * h <= 1 << 16:
                grid = parse_map(b"type octile\nheight %d\nwidth %d\nmap\n" % (h, w)
                                 + (b"." * w + b"\n") * h)
                ctx.at("check_scenarios_fit")
                check_scenarios_fit(scen, grid)

    return Case("readers", "read_scenarios", f"{base}, {how}, {len(data)} bytes", run)


def gen_text_grid(g: Gen) -> Case:
    walk = _small_walk(g)
    weights = None
    if g.chance(0.4):
        weights = g.np.integers(1, g.choice([2, 10, 65536]), walk.shape)
        if np.all(weights == 1):
            weights = None
    geo = {}
    for key, vals in (("cellSize", [0.4, 1.0, 0.25, 1e-3, 3.5]), ("agentRadius", [0.0, 0.45]),
                      ("objectPadding", [0.25, 0.0]), ("boundaryPadding", [0.0, 0.3]),
                      ("floorY", [0.0, -2.5]), ("minX", [0.0, -10.3, 1e6]),
                      ("minZ", [0.0, 7.1])):
        if g.chance(0.7):
            geo[key] = float(g.choice(vals))
    data = text_grid(walk, weights, geo)
    control = g.chance(0.1)
    how = "unmutated"
    if not control:
        data, how = mutate(g, data, text=True)
    via = g.choice(["load_grid", "parse_text_grid"])

    def run(ctx: Context) -> None:
        from navkit.formats import load_grid, parse_text_grid

        p = _write(ctx, "g.txt", data)
        ctx.at(f"{via}(.txt)")
        grid = load_grid(p) if via == "load_grid" else parse_text_grid(data)
        check_grid(ctx, grid, walk if control else None, weights if control else None)

    return Case("readers", f"{via}(.txt)",
                f"{walk.shape[1]}x{walk.shape[0]}{' weighted' if weights is not None else ''}, "
                f"{how}, {len(data)} bytes", run)


def gen_image(g: Gen) -> Case:
    walk = _small_walk(g, 40)
    fmt = g.choice(["png"] * 5 + ["bmp", "gif", "tiff", "jpeg"])
    ext = {"jpeg": ".jpg", "tiff": ".tif"}.get(fmt, "." + fmt)
    control = g.chance(0.15) and fmt != "jpeg"
    mutated = not control
    opts: dict[str, Any] = {}
    if g.chance(0.3):
        key = g.choice(["threshold", "invert", "cell_size", "scale"])
        opts[key] = g.choice([g.number(), 0, 128, 256, 257, -1, True, "128"])
        mutated = mutated or key != "invert"

    def run(ctx: Context) -> None:
        from navkit.formats import load_grid, read_image

        data, mode = image_bytes(g, walk, fmt)
        if mutated and g.chance(0.85):
            data, how = mutate(g, data, text=False)
        else:
            how = "unmutated"
        ctx.note(f"{mode} {how}, {len(data)} bytes")
        ctx.at(f"load_grid({ext})")
        p = _write(ctx, "g" + ext, data)
        direct = "scale" not in opts and g.chance(0.5)  # read_image takes no scale
        grid = read_image(p, **opts) if direct else load_grid(p, **opts)
        exact = how == "unmutated" and not opts and mode not in ("F",)
        check_grid(ctx, grid, walk if exact else None)

    return Case("readers", f"load_grid({ext})",
                f"{walk.shape[1]}x{walk.shape[0]} {fmt}, options {show(opts)}", run)


def gen_png_crafted(g: Gen) -> Case:
    kind = g.choice(["huge-header", "huge-header", "zero-size", "bad-depth", "short-idat",
                     "bomb-error", "bomb-warn"]) if g.chance(0.97) else "bomb-warn"
    if kind.startswith("bomb") and g.chance(0.7):
        kind = "huge-header"  # bombs cost seconds: keep them rare
    w, h = {
        "huge-header": g.choice([(100_000, 100_000), (2**31 - 1, 2**31 - 1), (1, 2**31 - 1),
                                 (40_000, 30_000), (9_000, 9_000), (70_000, 1)]),
        "zero-size": g.choice([(0, 0), (0, 5), (5, 0)]),
        "bad-depth": (g.randint(1, 9), g.randint(1, 9)),
        "short-idat": (g.randint(2, 300), g.randint(2, 300)),
        "bomb-error": (15_000, 15_000),
        "bomb-warn": (10_000, 10_000),
    }[kind]

    def run(ctx: Context) -> None:
        from navkit.formats import load_grid

        if kind.startswith("bomb"):
            data = _png_bomb(w)
        else:
            depth, color = (8, 0)
            if kind == "bad-depth":
                depth, color = g.choice([(3, 0), (16, 3), (8, 5), (1, 2), (7, 0)])
            raw = zlib.compress(bytes(g.randint(0, 64)))
            data = png_raw(w, h, raw, depth=depth, color=color)
        ctx.at("load_grid(.png)")
        grid = load_grid(_write(ctx, "g.png", data))
        check_grid(ctx, grid)

    return Case("readers", "load_grid(.png)", f"crafted PNG {kind} {w}x{h}", run)


@functools.lru_cache(maxsize=4)
def _png_bomb(side: int) -> bytes:
    path = _CACHE / f"bomb-{side}.png"
    if path.exists():
        return path.read_bytes()
    c = zlib.compressobj(9)
    row = bytes(side + 1)  # filter byte 0 + black pixels
    block = row * max(1, (1 << 22) // len(row))
    per = len(block) // len(row)
    parts, left = [], side
    while left > 0:
        k = min(per, left)
        parts.append(c.compress(block[: k * len(row)]))
        left -= k
    parts.append(c.flush())
    data = png_raw(side, side, b"".join(parts))
    _cache_write(path, data)
    return data


def _cache_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


@functools.lru_cache(maxsize=2)
def _npy_bomb_member() -> bytes:
    """``walkable.npy`` deflated: a (16384, 16384) bool array of zeros (256 MiB -> 250 KB)."""
    path = _CACHE / "bomb-walkable-16384.zip"
    if not path.exists():
        head = npy_raw("|b1", False, (16384, 16384), b"")
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf, \
                zf.open("walkable.npy", "w", force_zip64=True) as fh:
            fh.write(head)
            chunk = bytes(1 << 24)
            for _ in range((1 << 28) // len(chunk)):
                fh.write(chunk)
        _cache_write(path, buf.getvalue())
    return path.read_bytes()


_DESCRS = ("|b1", "<i8", ">i4", "<u1", "<f8", "<f4", "<f2", "<c16", "|O", "<U3", "|S2", "|V8",
           "<M8[s]", "<m8[D]", "[('a', '<i4')]", "<i16", "x", "")
_SHAPES: tuple[Any, ...] = (
    (10**6, 10**6), (2**31, 2**31), (2**62, 4), (32768, 32768), (40_000, 40_000), (0, 5), (5, 0),
    (0,), (5,), (), (2, 2, 2), (3, 3), (-1, 3), (3, -3), (BIG300, 2), (1, 1), (2**63, 1),
    (1.5, 2), ("a", 2), [3, 3], None,
)


def gen_npy(g: Gen) -> Case:
    craft = g.chance(0.6)
    if craft:
        descr = g.choice(_DESCRS[:4] * 3 + _DESCRS)
        shape = g.choice(_SHAPES)
        nbytes = g.choice([0, 1, 9, 128, 1024])
        header = None
        if g.chance(0.1):
            header = g.choice([
                "{'descr': '|b1', 'fortran_order': False, 'shape': (" + "9" * 300 + ", 2), }",
                "{'descr': '|b1', 'fortran_order': False, 'shape': (" + "(" * 150 + ")" * 150
                + "), }",
                "{'descr': '|b1', 'fortran_order': 7, 'shape': (2, 2), }",
                "{'descr': '|b1', 'shape': (2, 2), }",
                "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 2), 'x': 1}",
                "[1, 2, 3]", "", "{" * 300, "{'descr': '|b1', 'fortran_order': False, "
                "'shape': (2, 2), }" + " " * 70_000,
            ])
        version = g.choice([(1, 0)] * 4 + [(2, 0), (3, 0), (9, 9)])
        fortran = g.chance(0.2)
        summary = (f"crafted .npy descr {descr!r} shape {show(shape, 30)} + {nbytes} bytes"
                   + (f", header {show(header, 40)}" if header is not None else "")
                   + f", v{version[0]}")
    else:
        walk = _small_walk(g)
        dtype = g.choice([np.bool_, np.uint8, np.int64, np.float64, np.float32, np.int8, object,
                          np.complex64, "U1"])
        arr: Any = walk.astype(dtype) if dtype is not object else walk.astype(object)
        if dtype in (np.float64, np.float32) and g.chance(0.5):
            arr.flat[g.randint(0, arr.size - 1)] = g.choice([np.nan, np.inf, -0.0, 1e30])
        if g.chance(0.2):
            arr = g.choice([arr[None], arr.ravel(), arr.T, np.asfortranarray(arr)])
        summary = f".npy {show(arr)}"

    def run(ctx: Context) -> None:
        from navkit.formats import load_grid, read_npy

        if craft:
            data = npy_raw(descr, fortran, shape, g.bytes(nbytes), header=header, version=version)
        elif dtype is object:
            buf = io.BytesIO()
            np.save(buf, arr, allow_pickle=True)
            data = buf.getvalue()
        else:
            data = npy_bytes(arr)
        if g.chance(0.2):
            data, how = mutate(g, data, text=False)
            ctx.note(f"mutated {how}")
        ctx.at("load_grid(.npy)")
        p = _write(ctx, "g.npy", data)
        grid = load_grid(p) if g.chance(0.5) else read_npy(p)
        check_grid(ctx, grid)

    return Case("readers", "load_grid(.npy)", summary, run)


def gen_npz(g: Gen) -> Case:
    walk = _small_walk(g)
    entries: dict[str, Any] = {"walkable": walk}
    if g.chance(0.3):
        entries["weights"] = g.np.integers(1, 10, walk.shape)
    geo_keys = ("cell_size", "min_x", "min_z", "floor_y", "agent_radius")
    for key in g.sample(geo_keys, g.randint(0, 5)):
        entries[key] = np.array(g.choice([0.4, 1.0, -3.0, 7]))
    hostile = g.choice(["none", "value", "value", "value", "drop-walkable", "extra", "dtype",
                        "shape", "member-bytes", "bad-zip", "stored", "bomb", "bomb-declared"])
    if hostile.startswith("bomb") and g.chance(0.85):
        hostile = "value"
    detail = ""
    if hostile == "value":
        key = g.choice(list(entries) + ["weights", "cell_size"])
        v = g.choice([np.nan, np.inf, -1.0, 0.0, 1e308, 5e-324, 2**63, -(2**63), 0, 65536, 70000,
                      "x", np.array([1.0, 2.0]), np.zeros((0,)), np.ones(walk.shape) * 1.5,
                      np.full(walk.shape, 2**40), np.full(walk.shape, np.nan),
                      np.zeros(walk.shape, bool), np.array(1 + 2j), np.array(None, object)])
        entries[key] = v if isinstance(v, np.ndarray) else np.array(v)
        detail = f"{key}={show(entries[key])}"
    elif hostile == "drop-walkable":
        del entries["walkable"]
    elif hostile == "extra":
        entries[g.choice(["extra", "walkable2", "__proto__", "weights.npy", ""])] = np.ones(2)
    elif hostile == "dtype":
        entries["walkable"] = walk.astype(g.choice(["U2", "c8", "M8[s]", "V1", "f2", "u8"]))
    elif hostile == "shape":
        entries["walkable"] = g.choice([walk[None], walk.ravel(), np.ones((0, 3), bool),
                                        np.ones((), bool)])
    control = hostile == "none" and len(entries) == 1

    def run(ctx: Context) -> None:
        from navkit.formats import load_grid

        members: dict[str, bytes] = {}
        for k, v in entries.items():
            members[k + ".npy"] = (npy_bytes(v) if v.dtype != object else
                                   npy_raw("|O", False, v.shape, b"\x80\x04N."))
        if hostile == "member-bytes":
            k = g.choice(list(members))
            members[k], how = mutate(g, members[k], text=False)
            ctx.note(f"{k} {how}")
        if hostile == "bomb-declared":
            members["walkable.npy"] = npy_raw("<i8", False, (32768, 32768), b"")
        data = npz_bytes(members, deflate=hostile != "stored")
        if hostile == "bad-zip":
            data, how = mutate(g, data, text=False)
            ctx.note(how)
        if hostile == "bomb":
            data = _npy_bomb_member()
        ctx.at("load_grid(.npz)")
        grid = load_grid(_write(ctx, "g.npz", data))
        check_grid(ctx, grid, walk if control else None)

    return Case("readers", "load_grid(.npz)",
                f"{walk.shape[1]}x{walk.shape[0]} keys {sorted(entries)}, {hostile} {detail}", run)


def gen_from_array(g: Gen) -> Case:
    shape = g.choice([(3, 4), (1, 1), (0, 3), (3,), (2, 2, 2), (), (1, 2**20)])
    kind = g.choice(["bool", "int", "float", "nan", "object", "str", "complex", "list", "ragged",
                     "broadcast", "huge-int", "readonly", "noncontig"])
    geometry: dict[str, Any] = {}
    for key in g.sample(["weights", "cell_size", "min_x", "min_z", "floor_y", "agent_radius",
                         "name", "meta", "bogus"], g.randint(0, 3)):
        geometry[key] = g.number() if key != "weights" else g.choice(
            [np.full(shape, 2), np.full(shape, 0), np.full(shape, 65536), np.full(shape, 1.5),
             np.full(shape, np.nan), [[1, 2]], "x", np.full(shape, True),
             np.full(shape, 2**40, np.int64), np.full(shape, 3, np.uint64)])

    def build() -> Any:
        if kind == "list":
            return np.ones(shape, bool).tolist()
        if kind == "ragged":
            return [[1, 0, 1], [1]]
        if kind == "broadcast":
            return np.broadcast_to(np.ones((1, 1), bool), g.choice([(1 << 16, 1 << 15),
                                                                   (1 << 20, 1 << 11), (7, 9)]))
        if kind == "huge-int":
            return [[BIG300, 0], [1, 1]]
        a = np.ones(shape, dtype={"bool": bool, "int": np.int16, "float": float, "nan": float,
                                  "object": object, "str": "U1", "complex": complex,
                                  "readonly": bool, "noncontig": np.int64}[kind])
        if kind == "nan" and a.size:
            a.flat[0] = np.nan
        if kind == "readonly":
            a.setflags(write=False)
        if kind == "noncontig" and a.ndim == 2:
            a = np.repeat(a, 2, axis=1)[:, ::2]
        return a

    def run(ctx: Context) -> None:
        from navkit.formats import from_array

        arr = build()
        ctx.at("from_array")
        grid = from_array(arr, **geometry)
        check_grid(ctx, grid)

    return Case("readers", "from_array", f"{kind} {shape} geometry {show(geometry, 80)}", run)


def gen_load_options(g: Gen) -> Case:
    ext = g.choice([".map", ".txt", ".png", ".npy", ".json", ".xyz", "", ".MAP.", ".npz"])
    name = g.choice(["g", "g\x00x", "dir", "missing", "g" * 300, "\u00e9", "-"])
    opts = {g.choice(["threshold", "cell_size", "invert", "bogus", "name", "max_cells"]):
            g.number()} if g.chance(0.5) else {}
    how = g.choice(["file", "file", "directory", "missing", "path"])

    def run(ctx: Context) -> None:
        from navkit import load_grid

        walk = np.ones((3, 3), bool)
        contents = {".map": map_text(walk, g), ".txt": text_grid(walk, None, {}),
                    ".npy": npy_bytes(walk), ".npz": npz_bytes({"walkable.npy": npy_bytes(walk)}),
                    ".json": (EXAMPLES / "bench80.json").read_bytes()}
        target: Any = ctx.tmp / (name + ext)
        if how == "directory":
            target = ctx.tmp / ("d" + ext)
            target.mkdir()
        elif how == "file" and "\x00" not in name and len(name) < 200:
            if ext == ".png":
                data, _ = image_bytes(g, walk, "png")
            else:
                data = contents.get(ext, b"hello")
            target.write_bytes(data)
        elif how == "path":
            target = g.choice([str(target), Path("."), Path("/"), "", "~/" + name + ext])
        ctx.at(f"load_grid({ext or 'no extension'})")
        load_grid(target, **opts)

    return Case("readers", f"load_grid({ext or 'no extension'})",
                f"{how} {show(name, 20)}{ext} options {show(opts)}", run)


GENERATORS = [
    (14, gen_map), (8, gen_scen), (12, gen_text_grid), (10, gen_image), (4, gen_png_crafted),
    (10, gen_npy), (9, gen_npz), (6, gen_from_array), (4, gen_load_options),
]
