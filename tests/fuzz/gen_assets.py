"""Assets: JPS+ tables, goal bounds and baked worlds (``.nkw``), honest and altered.

Files are written with navkit's own writers for a small random grid, then
altered the ways a hostile or damaged file differs: jump values random, at the
int16 extremes, zeroed, shuffled, scaled, one entry off; boxes zeroed, random,
inverted, shrunk or grown; index rows swapped or out of range; digests stale,
absent or recomputed for the altered content (a hand-made file); members of
the wrong dtype or shape, bytes flipped, sizes declared far past the data; a
world header that contradicts its chunks (flags, ``min_weight``, sizes,
geometry, metadata, millions of chunks in a few kilobytes), chunk blobs
rewritten with consistent checksums. Checks (oracles: A* on the same grid; the
honest file's own answers):

* a table file that loads is, entry for entry, :meth:`JumpTables.build`'s,
  and JPS+ on it answers A*'s cost and status with a valid path;
* goal bounds that load under a complete check (``verify="full"``, or the
  default on these small maps) answer A*'s costs exactly; under the partial
  checks (``"sample"``, ``"structure"``) a found path is valid and never
  shorter than A*'s;
* an honest file always loads;
* a world that opens and answers gives the honest world's statuses and costs.
"""

from __future__ import annotations

import inspect
import io
import math
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from .core import Case, Context, Gen, WrongAnswer, check, show
from .gen_files import cached, npz_bomb
from .gen_readers import mutate

BIG = 10**12

# ------------------------------------------------------------------ grids
def _walk(g: Gen, lo: int = 3, hi: int = 26) -> np.ndarray:
    d, w = g.randint(lo, hi), g.randint(lo, hi)
    walk = g.np.random((d, w)) < g.choice([0.55, 0.7, 0.8, 0.9, 1.0])
    walk[0, 0] = walk[-1, -1] = True
    return walk


def _pairs(g: Gen, walk: np.ndarray, n: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    free = np.argwhere(walk)
    out = []
    for _ in range(n):
        a, b = free[g.randint(0, len(free) - 1)], free[g.randint(0, len(free) - 1)]
        out.append(((int(a[1]), int(a[0])), (int(b[1]), int(b[0]))))
    return out


def _check_path(walk: np.ndarray, r: Any, s: tuple[int, int], e: tuple[int, int],
                label: str) -> None:
    from tests.reference import is_valid_path

    cells = np.asarray(r.cells)
    check(len(cells) >= 1 and tuple(cells[0]) == s and tuple(cells[-1]) == e,
          f"{label}: path does not join start and goal", f"{s} -> {e}")
    check(is_valid_path(walk, cells), f"{label}: illegal step or blocked cell", f"{s} -> {e}")


def _npz_parts(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as f:
        return {k: f[k] for k in f.files}


def _npz_write(path: Path, parts: dict[str, Any], *, deflate: bool = True) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED) as zf:
        for k, v in parts.items():
            if isinstance(v, bytes):
                zf.writestr(k + ".npy", v)
            else:
                b = io.BytesIO()
                np.save(b, np.asarray(v), allow_pickle=False)
                zf.writestr(k + ".npy", b.getvalue())
    path.write_bytes(buf.getvalue())


def _declared_bomb(member: str, parts: dict[str, Any], declare: int) -> bytes:
    """A zip whose ``member`` holds a small valid .npy but whose directory declares
    ``declare`` bytes (a bomb judged by its declared size)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for k, v in parts.items():
            b = io.BytesIO()
            np.save(b, np.asarray(v), allow_pickle=False)
            zf.writestr(k + ".npy", b.getvalue())
    raw = bytearray(buf.getvalue())
    name = (member + ".npy").encode()
    pos = raw.find(b"PK\x01\x02")
    while pos >= 0:
        nlen = int.from_bytes(raw[pos + 28:pos + 30], "little")
        if raw[pos + 46:pos + 46 + nlen] == name:
            raw[pos + 24:pos + 28] = min(declare, 0xFFFFFFFE).to_bytes(4, "little")
        pos = raw.find(b"PK\x01\x02", pos + 4)
    return bytes(raw)


def _tables_bomb() -> bytes:
    return npz_bomb("tab", 1536 << 20, "<i2", {
        "format": np.array("x"), "shape": np.array([1, 1]), "fingerprint": np.array("x")})


def _bounds_bomb() -> bytes:
    return npz_bomb("boxes", 1536 << 20, "<i2", {
        "format": np.array("x"), "index": np.zeros(4, np.int32),
        "costs": np.array([10, 14]), "fingerprint": np.array("x")})


def _takes(fn: Any, name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


# ------------------------------------------------------------------ JPS+ tables
_TABLE_HOW = [(6, "none"), (3, "random"), (1, "all-max"), (1, "all-min"), (1, "all-one"),
              (1, "zeroed"), (2, "shuffled"), (1, "scaled"), (3, "entries"), (1, "negate"),
              (1, "swap-dirs"), (3, "bytes"), (1, "shape"), (1, "format"), (1, "fingerprint"),
              (1, "dtype"), (1, "bomb-declared"), (1, "bomb"), (1, "other-grid"),
              (2, "hand-made")]


def _tamper_tab(g: Gen, tab: np.ndarray, how: str) -> np.ndarray:
    t = tab.copy()
    if how == "random":
        lo, hi = g.choice([(-32768, 32768), (-3, 4), (0, 40), (-40, 0)])
        k = g.randint(1, len(t))
        idx = g.np.choice(len(t), size=k, replace=False)
        t[idx] = g.np.integers(lo, hi, k)
    elif how == "all-max":
        t[:] = 32767
    elif how == "all-min":
        t[:] = -32768
    elif how == "all-one":
        t[:] = 1
    elif how == "zeroed":
        t[:] = 0
    elif how == "shuffled":
        t = t.reshape(-1, 8)[g.np.permutation(len(t) // 8)].ravel()
    elif how == "scaled":
        t = np.clip(t.astype(np.int64) * g.choice([2, 3, -1, 100]), -32768, 32767).astype(np.int16)
    elif how == "entries":
        for _ in range(g.randint(1, 3)):
            i = g.randint(0, len(t) - 1)
            t[i] = g.choice([int(t[i]) + 1, int(t[i]) - 1, -int(t[i]), 32767, -32768, 0,
                             g.randint(-50, 50)])
    elif how == "negate":
        t = -t
    elif how == "swap-dirs":
        r = t.reshape(-1, 8)
        a, b = g.sample(range(8), 2)
        r[:, [a, b]] = r[:, [b, a]]
        t = r.ravel()
    return t.astype(np.int16)


_VALUE_HOW = {"random", "all-max", "all-min", "all-one", "zeroed", "shuffled", "scaled",
              "entries", "negate", "swap-dirs"}


def gen_tables(g: Gen) -> Case:
    walk = _walk(g)
    costs = g.choice(["seed", "exact", (3, 4)])
    how = g.weighted(_TABLE_HOW)
    pairs = _pairs(g, walk, 4)
    via = g.choice(["load", "load", "precompute"])
    if how == "bomb":
        _tables_bomb()  # made (once, cached) outside the case's clock

    def run(ctx: Context) -> None:
        from navkit import NavGrid, Pathfinder
        from navkit.errors import FormatError
        from navkit.query.jps_plus import JPSPlus, JumpTables

        pf = Pathfinder(NavGrid(walk), costs=costs)
        t = JumpTables.build(pf)
        honest = np.array(t.tab)
        path = ctx.tmp / "t.npz"
        t.save(path)
        parts = _npz_parts(path)
        if how == "hand-made":  # in memory: JPSPlus must check what it did not build or load
            tab = _tamper_tab(g, honest, g.choice(["random", "entries", "zeroed", "none"]))
            ctx.at("JPSPlus(hand-made JumpTables)")
            jp = JPSPlus(pf, JumpTables(tab, t.wp, t.hp, t.fingerprint))
            check(np.array_equal(jp.tables.tab, honest), "hand-made altered tables accepted")
        else:
            if how in _VALUE_HOW:
                parts["tab"] = _tamper_tab(g, parts["tab"], how)
                if np.array_equal(parts["tab"], honest):
                    ctx.note("tampering changed nothing")
            elif how == "shape":
                parts["shape"] = g.choice([np.array([1, 1]), np.array([t.wp, t.hp, 1]),
                                           np.array(2**62), np.array([t.hp, t.wp])])
            elif how == "format":
                parts["format"] = np.array(g.choice(["navkit-jps-plus-0", "", "x" * 300]))
            elif how == "fingerprint":
                parts["fingerprint"] = np.array(g.choice(["", "0" * 64, "zz"]))
            elif how == "dtype":
                parts["tab"] = parts["tab"].astype(g.choice(["<i4", ">i2", "<u2", "<f8"]))
            if how == "bomb-declared":
                data = _declared_bomb("tab", parts, g.choice([1 << 30, 3 << 30, 1 << 40]))
                path.write_bytes(data)
            elif how == "bomb":  # 1.5 GB of zeros in 7 MB, with dummies read before it
                path.write_bytes(_tables_bomb())
            else:
                _npz_write(path, parts)
            if how == "bytes":
                data, what = mutate(g, path.read_bytes(), text=False)
                path.write_bytes(data)
                ctx.note(what)
            owner = pf
            if how == "other-grid":
                w2 = walk.copy()
                w2[g.randint(0, w2.shape[0] - 1), g.randint(0, w2.shape[1] - 1)] ^= True
                w2[0, 0] = w2[-1, -1] = True
                owner = Pathfinder(NavGrid(w2), costs=costs)
                honest = np.array(JumpTables.build(owner).tab)
            try:
                if via == "precompute":
                    ctx.at("Pathfinder.precompute(tables=)")
                    owner.precompute(tables=path)
                    jp = owner.cells.jps_plus
                else:
                    ctx.at("JumpTables.load")
                    jp = JPSPlus(owner, JumpTables.load(path, owner))
            except FormatError:
                if how == "none":
                    raise WrongAnswer("honest tables refused") from None
                raise
            check(np.array_equal(np.asarray(jp.tables.tab), honest),
                  "tables that are not the grid's loaded", how)
            pf = owner
        ctx.at("JPSPlus.cell_query")
        for s, e in pairs:
            if not (pf.grid.walkable[s[1], s[0]] and pf.grid.walkable[e[1], e[0]]):
                continue
            r = jp.cell_query(s, e, smooth=False, nearest=False, budget=BIG)
            a = pf.find_path_cells(s, e, algorithm="astar")
            check((r.status, r.cost_int) == (a.status, a.cost_int), "JPS+ differs from A*",
                  f"{s}->{e}: {r.status.name} {r.cost_int} vs {a.status.name} {a.cost_int}")
            if r.cost_int >= 0:
                _check_path(pf.grid.walkable, r, s, e, "JPS+")

    return Case("assets", "JumpTables.load",
                f"{walk.shape[1]}x{walk.shape[0]} costs {costs} tables {how} via {via}", run)


# ------------------------------------------------------------------ goal bounds
_BOUNDS_HOW = [(6, "none"), (2, "zeroed"), (2, "random"), (2, "inverted"), (3, "shrunk"),
               (2, "grown"), (1, "swap-rows"), (1, "index-swap"), (1, "index-oob"),
               (1, "index-drop"), (1, "costs"), (2, "bytes"), (1, "rows-extra"),
               (1, "dtype"), (1, "bomb-declared"), (1, "bomb"), (2, "hand-made")]


def _tamper_boxes(g: Gen, boxes: np.ndarray, how: str) -> np.ndarray:
    b = boxes.reshape(-1, 4).astype(np.int64)
    if len(b) == 0:
        return boxes.copy()
    pick = g.np.choice(len(b), size=g.randint(1, len(b)), replace=False)
    if how == "zeroed":
        b[pick] = 0
    elif how == "random":
        b[pick] = g.np.integers(-5, 40, (len(pick), 4))
    elif how == "inverted":
        b[pick] = b[pick][:, [2, 3, 0, 1]]
    elif how == "shrunk":
        i = int(pick[0])
        side = g.randint(0, 3)
        b[i, side] += 1 if side < 2 else -1
    elif how == "grown":
        b[pick, 0] -= 1
        b[pick, 3] += 1
    elif how == "swap-rows":
        r = b.reshape(-1, 32)
        if len(r) > 1:
            i, j = g.sample(range(len(r)), 2)
            r[[i, j]] = r[[j, i]]
        b = r.reshape(-1, 4)
    return np.clip(b, -32768, 32767).astype(np.int16).ravel()


def gen_bounds(g: Gen) -> Case:
    walk = _walk(g, 3, 22)
    costs = g.choice(["seed", "exact"])
    how = g.weighted(_BOUNDS_HOW)
    digest = g.choice(["recomputed", "recomputed", "absent", "stale"])
    verify = g.choice(["default", "default", "default", "full", "sample", "structure"])
    pairs = _pairs(g, walk, 5)
    if how == "bomb":
        _bounds_bomb()  # made (once, cached) outside the case's clock

    def run(ctx: Context) -> None:
        from navkit import NavGrid, Pathfinder
        from navkit.errors import FormatError
        from navkit.query.goal_bounds import GoalBounds
        from navkit.query.jps_plus import JPSPlus

        pf = Pathfinder(NavGrid(walk), costs=costs)
        gb = GoalBounds.build(pf)
        path = ctx.tmp / "b.npz"
        gb.save(path)
        parts = _npz_parts(path)
        altered = how != "none"
        if how == "hand-made":
            boxes = _tamper_boxes(g, np.array(gb.boxes), g.choice(["zeroed", "inverted",
                                                                   "random", "shrunk"]))
            index = np.array(gb.index)
            if g.chance(0.4):
                index[index >= 0] += g.choice([1, 10**6, -2])
            ctx.at("JPSPlus(hand-made GoalBounds)")
            jp = JPSPlus(pf, goal_bounds=GoalBounds(index, boxes, gb.fingerprint, gb.costs))
            exact = True
        else:
            if how in ("zeroed", "random", "inverted", "shrunk", "grown", "swap-rows"):
                parts["boxes"] = _tamper_boxes(g, parts["boxes"], how)
            elif how.startswith("index"):
                idx = parts["index"].copy()
                rows = np.flatnonzero(idx >= 0)
                if how == "index-swap" and len(rows) > 1:
                    i, j = g.sample(list(rows), 2)
                    idx[i], idx[j] = idx[j], idx[i]
                elif how == "index-oob" and len(rows):
                    idx[g.choice(list(rows))] = g.choice([len(rows), 2**31 - 1, -5])
                elif how == "index-drop" and len(rows):
                    idx[g.choice(list(rows))] = -1
                parts["index"] = idx
            elif how == "costs":
                parts["costs"] = np.array(g.choice([[10, 15], [0, 0], [1, 2**62], [14, 10]]))
            elif how == "rows-extra":
                parts["boxes"] = np.concatenate([parts["boxes"],
                                                 np.zeros(32 * g.randint(1, 3), np.int16)])
            elif how == "dtype":
                parts["boxes"] = parts["boxes"].astype(g.choice(["<i4", ">i2", "<f4"]))
            if "digest" in parts:
                if digest == "absent":
                    del parts["digest"]
                elif digest == "recomputed":
                    try:
                        fake = GoalBounds(parts["index"], parts["boxes"],
                                          str(parts["fingerprint"]),
                                          tuple(int(v) for v in parts["costs"]))
                        parts["digest"] = np.array(fake.digest())
                    except Exception:  # noqa: BLE001 - a dtype the digest refuses: keep it
                        pass
            if how == "bomb-declared":
                path.write_bytes(_declared_bomb("boxes", parts, g.choice([1 << 30, 1 << 40])))
            elif how == "bomb":
                path.write_bytes(_bounds_bomb())
            else:
                _npz_write(path, parts)
            if how == "bytes":
                data, what = mutate(g, path.read_bytes(), text=False)
                path.write_bytes(data)
                ctx.note(what)
            kw = {}
            if verify != "default" and _takes(GoalBounds.load, "verify"):
                kw["verify"] = verify
            ctx.at("GoalBounds.load")
            try:
                loaded = GoalBounds.load(path, pf, **kw)
            except FormatError:
                if how == "none":
                    raise WrongAnswer("honest goal bounds refused") from None
                raise
            altered = altered and not (np.array_equal(loaded.boxes, gb.boxes)
                                       and np.array_equal(loaded.index, gb.index))
            jp = JPSPlus(pf, goal_bounds=loaded)
            exact = verify in ("default", "full")
        ctx.at("JPSPlus.cell_query(goal bounds)")
        for s, e in pairs:
            r = jp.cell_query(s, e, smooth=False, nearest=False, budget=BIG)
            a = pf.find_path_cells(s, e, algorithm="astar")
            if exact or not altered:
                check((r.status, r.cost_int) == (a.status, a.cost_int),
                      "goal-bounded JPS+ differs from A*",
                      f"{s}->{e}: {r.status.name} {r.cost_int} vs {a.status.name} {a.cost_int}")
            else:  # a partial check let an altered file through: never shorter, never illegal
                check(r.cost_int < 0 or r.cost_int >= a.cost_int >= 0,
                      "goal-bounded JPS+ shorter than A*", f"{s}->{e}")
            if r.cost_int >= 0:
                _check_path(walk, r, s, e, "JPS+ with goal bounds")

    return Case("assets", "GoalBounds.load",
                f"{walk.shape[1]}x{walk.shape[0]} costs {costs} bounds {how} digest {digest} "
                f"verify {verify}", run)


# ------------------------------------------------------------------ baked worlds
_FMT = "<8sHHIQQIIddddHBbIQQII32s"  # the documented header (docs/worlds.md)
_NAMES = ("magic", "version", "flags", "chunk", "width", "depth", "nx", "nz", "cell_size",
          "min_x", "min_z", "floor_y", "min_weight", "codec", "level", "meta_len",
          "index_offset", "index_len", "index_crc", "mixed", "fingerprint")


def _fields(raw: bytes) -> dict[str, Any]:
    return dict(zip(_NAMES, struct.unpack_from(_FMT, raw, 0), strict=True))


def _forge(raw: bytes, *, meta: bytes | None = None, body: bytes | None = None,
           **changes: Any) -> bytes:
    f = _fields(raw)
    old_meta = raw[144:144 + f["meta_len"]]
    rest = raw[144 + len(old_meta):] if body is None else body
    meta = old_meta if meta is None else meta
    f.update(changes)
    f["meta_len"] = len(meta)
    if "index_offset" not in changes:
        f["index_offset"] += len(meta) - len(old_meta)
    fixed = struct.pack(_FMT, *f.values())
    return fixed + struct.pack("<II", zlib.crc32(meta, zlib.crc32(fixed)), 0) + meta + rest


def _rewrite_chunk(raw: bytes, cid: int, cells: np.ndarray) -> bytes:
    """``raw`` (a zlib-coded .nkw) with chunk ``cid``'s blob replaced by ``cells``
    (a mixed chunk), index and every CRC made consistent."""
    f = _fields(raw)
    n = f["nx"] * f["nz"]
    data_off = 144 + f["meta_len"]
    index = np.frombuffer(zlib.decompress(raw[f["index_offset"]:]), dtype="<u4").copy()
    entries, crcs = index[:n], index[n:]
    blobs, pos = [], data_off
    for i in range(n):
        if entries[i] & (1 << 31):
            blobs.append(b"")
        else:
            blobs.append(raw[pos:pos + int(entries[i])])
            pos += int(entries[i])
    blob = zlib.compress(np.ascontiguousarray(cells, dtype="<u2").tobytes(), 6)
    blobs[cid] = blob
    entries[cid] = len(blob)
    crcs[cid] = zlib.crc32(blob)
    mixed = int(np.count_nonzero((entries & (1 << 31)) == 0))
    body = b"".join(blobs)
    idx = zlib.compress(np.concatenate([entries, crcs]).astype("<u4").tobytes(), 6)
    return _forge(raw, body=body + idx, mixed=mixed, index_offset=data_off + len(body),
                  index_len=len(idx), index_crc=zlib.crc32(idx))


def _many_chunks(n_side: int) -> bytes:
    """A zstd index of ``n_side**2`` uniform walkable chunks, streamed (cached)."""
    return cached(f"nkw-index-{n_side}.zst", lambda: _make_many_chunks(n_side))


def _make_many_chunks(n_side: int) -> bytes:
    import zstandard

    n = n_side * n_side
    out = io.BytesIO()
    with zstandard.ZstdCompressor(level=3).stream_writer(out, size=8 * n, closefd=False) as w:
        step = min(n, 1 << 16)
        block = np.full(step, 0x80000001, dtype="<u4").tobytes()
        for _ in range(n // step):
            w.write(block)
        zero = bytes(len(block))
        for _ in range(n // step):
            w.write(zero)
    return out.getvalue()


_WORLD_HOW = [(5, "none"), (3, "min_weight"), (3, "unweighted"), (1, "weighted"),
              (2, "sizes"), (3, "geometry"), (3, "meta"), (2, "many-chunks"), (1, "mixed"),
              (4, "chunk-heavier"), (2, "chunk-past-edge"), (2, "header-bytes"),
              (2, "file-bytes")]


def _world_cells(g: Gen) -> np.ndarray:
    d, w = g.randint(8, 70), g.randint(8, 70)
    cells = np.where(g.np.random((d, w)) < g.choice([0.7, 0.85, 1.0]), 1, 0).astype(np.uint16)
    if g.chance(0.5):
        heavy = g.np.random((d, w)) < 0.3
        cells[heavy & (cells > 0)] = g.randint(2, 9)
    if g.chance(0.3):
        cells[cells > 0] = g.randint(1, 4)  # uniform weights (min_weight may be > 1)
    cells[0, 0] = cells[-1, -1] = max(1, int(cells.max()))
    return cells


def gen_world(g: Gen) -> Case:
    cells = _world_cells(g)
    how = g.weighted(_WORLD_HOW)
    chunk = g.choice([16, 16, 32])
    d, w = cells.shape
    pairs = [((0, 0), (w - 1, d - 1))] + [
        ((g.randint(0, w - 1), g.randint(0, d - 1)), (g.randint(0, w - 1), g.randint(0, d - 1)))
        for _ in range(2)]
    windowed = g.chance(0.5)
    detail: dict[str, Any] = {}
    side = g.choice([1024, 4096, 8192])
    if how == "many-chunks":
        _many_chunks(side)  # made (once, cached) outside the case's clock

    def run(ctx: Context) -> None:
        from navkit import NavGrid
        from navkit.errors import FormatError
        from navkit.world import World, bake

        walk = cells > 0
        grid = NavGrid(walk, weights=np.maximum(cells, 1) if cells.max() > 1 else None)
        path = ctx.tmp / "w.nkw"
        bake(grid, path, chunk=chunk, codec="zlib", progress=False)
        raw = path.read_bytes()
        f = _fields(raw)
        truth = cells
        same_cells = True
        if how == "min_weight":
            detail["min_weight"] = g.choice([0, 1, 2, 3, 9, 65535])
            raw = _forge(raw, min_weight=detail["min_weight"])
        elif how == "unweighted":
            raw = _forge(raw, flags=0, min_weight=g.choice([0, 1, f["min_weight"]]))
        elif how == "weighted":
            raw = _forge(raw, flags=1)
        elif how == "sizes":
            k = g.choice(["width", "depth", "nx", "nz", "chunk"])
            v = g.choice([0, 1, f[k] - 1, f[k] + 1, f[k] * 2, 2**31, 2**63 - 1])
            detail[k] = v
            try:
                raw = _forge(raw, **{k: v})
            except struct.error:
                raw = _forge(raw, **{k: 0})
            same_cells = False
        elif how == "geometry":
            k = g.choice(["cell_size", "min_x", "min_z", "floor_y"])
            detail[k] = g.choice([0.0, -1.0, math.nan, math.inf, -math.inf, 5e-324, 1e300,
                                  1.7e308, 2.5, -3.0])
            raw = _forge(raw, **{k: detail[k]})
        elif how == "meta":
            meta = g.choice([b"[" * 50_000 + b"]" * 50_000, b"{}", b'{"name": 3}',
                             b'{"agent_radius": "x"}', b'{"agent_radius": 1e400}',
                             b'{"a": ' + b"1" * 5000 + b"}", b"\xff\xfe", b"null",
                             b'{"name": "' + b"x" * 100_000 + b'"}'])
            detail["meta"] = show(meta, 30)
            raw = _forge(raw, meta=meta)
        elif how == "many-chunks":
            index = _many_chunks(side)
            raw = _forge(raw, body=index, width=chunk * side, depth=chunk * side, nx=side,
                         nz=side, mixed=0, codec=2, level=3, index_offset=144 + f["meta_len"],
                         index_len=len(index), index_crc=zlib.crc32(index), flags=0,
                         min_weight=1)
            detail["chunks"] = side * side
            same_cells = False
        elif how == "mixed":
            raw = _forge(raw, mixed=g.choice([0, f["mixed"] + 1, 2**32 - 1]))
        elif how in ("chunk-heavier", "chunk-past-edge"):
            nx, nz = f["nx"], f["nz"]
            cx, cz = g.randint(0, nx - 1), g.randint(0, nz - 1)
            if how == "chunk-past-edge":
                cx, cz = nx - 1, nz - 1
            pad = np.zeros((nz * chunk, nx * chunk), dtype=np.uint16)
            pad[:d, :w] = cells
            blk = pad[cz * chunk:(cz + 1) * chunk, cx * chunk:(cx + 1) * chunk].copy()
            if how == "chunk-heavier":
                v = g.choice([2, 5, 200, 1])
                blk[blk > 0] = np.where(g.np.random(int((blk > 0).sum())) < 0.5, v, 1)
                blk[0, 0] = 0  # keep it mixed
                blk[-1, -1] = v
            else:
                blk[:, :] = 1
                blk[0, 0] = 0
            pad[cz * chunk:(cz + 1) * chunk, cx * chunk:(cx + 1) * chunk] = blk
            truth = pad[:d, :w]
            raw = _rewrite_chunk(raw, cz * nx + cx, blk)
            detail["chunk"] = (cx, cz)
        elif how == "header-bytes":
            b = bytearray(raw)
            for _ in range(g.randint(1, 4)):
                b[g.randint(0, 135)] ^= 1 << g.randint(0, 7)
            raw = _forge(bytes(b))  # every CRC recomputed: only the checks of the fields hold
            same_cells = False
        elif how == "file-bytes":
            raw, what = mutate(g, raw, text=False)
            detail["mutation"] = what
            same_cells = False
        bad = ctx.tmp / "bad.nkw"
        bad.write_bytes(raw)
        ref_grid = NavGrid(truth > 0, weights=np.maximum(truth, 1) if truth.max() > 1 else None)
        ref = World.from_grid(ref_grid, chunk=chunk)
        try:
            ctx.at("World.open")
            world = World.open(str(bad))
            for s, e in pairs:
                win = (0, 0, w - 1, d - 1) if windowed else None
                ctx.at("World.find_path_cells" + (" (window)" if windowed else ""))
                r = world.find_path_cells(s, e, window=win)
                if not same_cells:
                    continue
                a = ref.find_path_cells(s, e, window=win)
                check((r.status, r.cost_int) == (a.status, a.cost_int),
                      "a world with a forged header answers differently",
                      f"{s}->{e}: {r.status.name} {r.cost_int} vs {a.status.name} {a.cost_int}")
        except FormatError:
            if how in ("none", "weighted") or (how == "min_weight"
                                               and detail["min_weight"] <= f["min_weight"]):
                raise WrongAnswer(f"honest world refused ({how})") from None
            raise

    return Case("assets", "World.open(.nkw)",
                f"{w}x{d} chunk {chunk} header {how} {show(detail, 60)} "
                f"{'windowed' if windowed else 'long'}", run)


GENERATORS = [(4, gen_tables), (4, gen_bounds), (5, gen_world)]
