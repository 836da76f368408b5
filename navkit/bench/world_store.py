"""Chunk storage: codecs, chunk sizes, and navkit's ``.nkw`` against zarr v3 and blosc2.

``python -m navkit.bench.world_store [--quick] [--json] [--size N] [--dir D]``

1. *codecs* on the same 64 x 64 chunks (a Moving AI map cut into chunks,
   plus procedural mixed chunks): compressed bytes and median per-chunk
   decompress time for zstd 1/3/9, zlib 6, blosc2 (zstd / lz4 + shuffle);
2. *chunk sizes* 32 / 64 / 128 on one procedural world: file bytes, the
   cold miss (read + check + decompress) per chunk, and the chunks / bytes a
   local query touches (a 256 x 256-cell window at a random place);
3. *formats* on a ``size x size`` procedural world (default 16,384; 4,096
   with ``--quick``) in 256 x 256 chunks: ``.nkw`` (64 and 256 chunks), zarr
   v3 sharded (blosc zstd + shuffle) and a blosc2 NDArray (``.b2nd``): bake
   time, file bytes, open time, median random single-chunk read latency.

Files go to a temporary folder (``--dir`` to keep them). Reads hit a warm
OS page cache (the files were just written): the figures are decode cost,
not disk latency. A measurement script, not a test: it never fails on a
missed target. Returns 0, or 2 on bad input.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from numpy.typing import NDArray

from . import options as opt

__all__ = ["main", "Rechunk", "codec_table", "chunk_size_table", "format_table"]

CODEC_CASES = [("zstd", 1), ("zstd", 3), ("zstd", 9), ("zlib", 6), ("blosc2-zstd", 5),
               ("blosc2-lz4", 5)]


@dataclass(frozen=True)
class Rechunk:
    """The ``rooms`` world laid out in 64-cell chunks, served in chunks of any power of two
    (so every chunk size and format stores the very same cells)."""

    seed: int
    width: int
    depth: int
    version = 1

    @property
    def params(self) -> dict[str, Any]:
        return {"seed": self.seed, "width": self.width, "depth": self.depth}

    def _gen(self) -> Any:
        from ..world.procedural import rooms

        return rooms(seed=self.seed, width=self.width, depth=self.depth)

    def uniform_batch(self, cxs: NDArray[np.int64], czs: NDArray[np.int64],
                      chunk: int) -> NDArray[np.int32]:
        g = self._gen()
        if chunk <= 64:
            k = 64 // chunk
            return np.asarray(g.uniform_batch(cxs // k, czs // k, 64), dtype=np.int32)
        k = chunk // 64
        out = np.empty(cxs.shape[0], dtype=np.int32)
        sub = np.arange(k)
        for i in range(cxs.shape[0]):
            sx = np.tile(cxs[i] * k + sub, k)
            sz = np.repeat(czs[i] * k + sub, k)
            u = g.uniform_batch(sx, sz, 64)
            out[i] = u[0] if (u >= 0).all() and (u == u[0]).all() else -1
        return out

    def __call__(self, cx: int, cz: int, chunk: int) -> NDArray[np.uint16]:
        g = self._gen()
        if chunk <= 64:
            k = 64 // chunk
            a = g(cx // k, cz // k, 64)
            return np.ascontiguousarray(a[(cz % k) * chunk:(cz % k + 1) * chunk,
                                          (cx % k) * chunk:(cx % k + 1) * chunk])
        k = chunk // 64
        out = np.empty((chunk, chunk), dtype=np.uint16)
        for j in range(k):
            for i in range(k):
                out[j * 64:(j + 1) * 64, i * 64:(i + 1) * 64] = g(cx * k + i, cz * k + j, 64)
        return out


def _median_us(times: list[float]) -> float:
    return float(np.median(times)) * 1e6 if times else float("nan")


def _chunks_of_map(path: Path, chunk: int = 64) -> list[bytes]:
    from ..formats import load_grid
    from ..world.sources import grid_cells

    cells = grid_cells(load_grid(path))
    d, w = cells.shape
    out = []
    for z in range(0, d - chunk + 1, chunk):
        for x in range(0, w - chunk + 1, chunk):
            blk = np.ascontiguousarray(cells[z:z + chunk, x:x + chunk])
            if blk.min() != blk.max():
                out.append(blk.astype("<u2").tobytes())
    return out


def _procedural_chunks(n: int) -> list[bytes]:
    from ..world.procedural import rooms

    g = rooms(seed=11, width=1 << 20, depth=1 << 20)
    out: list[bytes] = []
    cx = 0
    while len(out) < n:
        ids = np.arange(cx, cx + 256, dtype=np.int64)
        u = g.uniform_batch(ids % 1024, ids // 1024, 64)
        for i in np.flatnonzero(u < 0):
            out.append(g(int(ids[i] % 1024), int(ids[i] // 1024), 64).astype("<u2").tobytes())
        cx += 256
    return out[:n]


def codec_table(sets: dict[str, list[bytes]], repeat: int) -> list[dict[str, Any]]:
    """Per codec and chunk set: compressed bytes and median decompress time per chunk."""
    from ..world.codec import get_codec

    rows = []
    for name, level in CODEC_CASES:
        c = get_codec(name, level)
        for set_name, chunks in sets.items():
            t0 = time.perf_counter()
            blobs = [c.compress(b) for b in chunks]
            comp_s = time.perf_counter() - t0
            best = float("inf")
            for _ in range(repeat):
                ts = []
                for b, raw in zip(blobs, chunks, strict=True):
                    t = time.perf_counter()
                    c.decompress(b, len(raw))
                    ts.append(time.perf_counter() - t)
                best = min(best, _median_us(ts))
            raw_bytes = sum(len(b) for b in chunks)
            rows.append({"codec": name, "level": level, "chunks": set_name, "n": len(chunks),
                         "raw_bytes": raw_bytes, "bytes": sum(len(b) for b in blobs),
                         "ratio": raw_bytes / max(1, sum(len(b) for b in blobs)),
                         "decompress_us": best,
                         "compress_us": comp_s / max(1, len(chunks)) * 1e6})
    return rows


def _cold_reads(path: Path, n: int, seed: int) -> tuple[float, float, int]:
    """(median us of a cold get of a random mixed chunk, open seconds, mixed count)."""
    from ..world.store import ChunkStore

    t = time.perf_counter()
    store = ChunkStore.open(path, cap_bytes=0)
    open_s = time.perf_counter() - t
    cf = store._backing.cf  # type: ignore[union-attr]
    mixed = np.flatnonzero((cf.entries & np.uint32(1 << 31)) == 0)
    rng = np.random.default_rng(seed)
    pick = rng.choice(mixed, size=min(n, mixed.size), replace=mixed.size < n) \
        if mixed.size else np.empty(0, np.int64)
    ts = []
    for i in pick.tolist():
        t = time.perf_counter()
        store.get(i % store.nx, i // store.nx)
        ts.append(time.perf_counter() - t)
    store.close()
    return _median_us(ts), open_s, int(mixed.size)


def chunk_size_table(folder: Path, size: int, reads: int) -> list[dict[str, Any]]:
    """Chunk 32 / 64 / 128 on one world: bytes, cold miss, chunks per local query."""
    from ..world.bake import bake

    src = Rechunk(seed=3, width=size, depth=size)
    rng = np.random.default_rng(0)
    win = 256
    x0 = rng.integers(0, size - win, 2000)
    rows = []
    for chunk in (32, 64, 128):
        p = folder / f"cs{chunk}.nkw"
        rep = bake(src, p, chunk=chunk, progress=False)
        miss_us, open_s, mixed = _cold_reads(p, reads, 1)
        per_axis = (x0 + win - 1) // chunk - x0 // chunk + 1
        z_axis = np.roll(per_axis, 1)
        touched = per_axis * z_axis
        rows.append({"chunk": chunk, "file_bytes": rep.file_bytes,
                     "bytes_per_cell": rep.bytes_per_cell, "chunks": rep.chunks,
                     "mixed": mixed, "bake_s": rep.seconds, "open_s": open_s,
                     "cold_miss_us": miss_us,
                     "query_chunks": float(touched.mean()),
                     "query_decoded_kib": float(touched.mean()) * chunk * chunk * 2 / 1024})
    return rows


def _band_rows(src: Rechunk, z0: int, rows: int) -> NDArray[np.uint16]:
    from ..world.store import ChunkStore

    st = ChunkStore.from_generator(src, src.width, src.depth, chunk=64, name="rooms",
                                   params=src.params, cap_bytes=0)
    return st.region(0, z0, src.width - 1, z0 + rows - 1)


def format_table(folder: Path, size: int, reads: int, *, zarr_ok: bool, blosc2_ok: bool
                 ) -> list[dict[str, Any]]:
    """nkw 64 / 256, zarr v3 sharded, blosc2 NDArray on one ``size x size`` world."""
    from ..world.bake import bake

    src = Rechunk(seed=5, width=size, depth=size)
    rows: list[dict[str, Any]] = []
    for chunk in (64, 256):
        p = folder / f"fmt{chunk}.nkw"
        rep = bake(src, p, chunk=chunk, progress=False)
        rng = np.random.default_rng(2)
        from ..world.store import ChunkStore

        t = time.perf_counter()
        store = ChunkStore.open(p, cap_bytes=0)
        open_s = time.perf_counter() - t
        ts = []
        for _ in range(reads):
            cx, cz = int(rng.integers(0, store.nx)), int(rng.integers(0, store.nz))
            t = time.perf_counter()
            store.get(cx, cz)
            ts.append(time.perf_counter() - t)
        store.close()
        miss_us, _, _ = _cold_reads(p, reads, 3)
        rows.append({"format": f"navkit .nkw chunk {chunk}", "chunk": chunk,
                     "file_bytes": rep.file_bytes, "write_s": rep.seconds, "open_ms": open_s * 1e3,
                     "read_us": _median_us(ts), "mixed_read_us": miss_us})
    band = 1024 if size >= 1024 else size
    if zarr_ok:
        import zarr

        p = folder / "w.zarr"
        t = time.perf_counter()
        z = zarr.create_array(store=str(p), shape=(size, size), dtype="uint16",
                              chunks=(256, 256), shards=(band, band),
                              compressors=zarr.codecs.BloscCodec(  # type: ignore[attr-defined]
                                  cname="zstd", clevel=5, shuffle="shuffle"),
                              overwrite=True)
        for z0 in range(0, size, band):
            z[z0:z0 + band, :] = _band_rows(src, z0, band)
        write_s = time.perf_counter() - t
        rows.append(_read_rows("zarr v3 sharded (blosc zstd 5)", p, write_s, reads, size,
                               lambda: zarr.open_array(str(p), mode="r")))
    if blosc2_ok:
        import blosc2

        p = folder / "w.b2nd"
        t = time.perf_counter()
        b = blosc2.empty((size, size), dtype=np.uint16, chunks=(256, 256), blocks=(64, 64),
                         urlpath=str(p), mode="w",
                         cparams={"codec": blosc2.Codec.ZSTD, "clevel": 5,
                                  "filters": [blosc2.Filter.SHUFFLE]})
        for z0 in range(0, size, band):
            b[z0:z0 + band, :] = _band_rows(src, z0, band)
        write_s = time.perf_counter() - t
        del b
        rows.append(_read_rows("blosc2 NDArray .b2nd (zstd 5)", p, write_s, reads, size,
                               lambda: blosc2.open(str(p))))
    return rows


def _du(p: Path) -> int:
    if p.is_file():
        return p.stat().st_size
    return sum(f.stat().st_size for f in p.rglob("*") if f.is_file())


def _read_rows(name: str, p: Path, write_s: float, reads: int, size: int, opener: Any
               ) -> dict[str, Any]:
    t = time.perf_counter()
    arr = opener()
    open_s = time.perf_counter() - t
    rng = np.random.default_rng(2)
    n = size // 256
    ts = []
    for _ in range(reads):
        cx, cz = int(rng.integers(0, n)), int(rng.integers(0, n))
        t = time.perf_counter()
        np.asarray(arr[cz * 256:(cz + 1) * 256, cx * 256:(cx + 1) * 256])
        ts.append(time.perf_counter() - t)
    return {"format": name, "chunk": 256, "file_bytes": _du(p), "write_s": write_s,
            "open_ms": open_s * 1e3, "read_us": _median_us(ts), "mixed_read_us": None}


def _print(results: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    con = Console(file=sys.stdout, highlight=False, width=150)
    t = Table(title="codecs on the same 64 x 64 mixed chunks")
    for col in ("codec", "level", "chunks", "n", "bytes", "ratio", "decompress us",
                "compress us"):
        t.add_column(col, justify="left" if col in ("codec", "chunks") else "right")
    for r in results["codecs"]:
        t.add_row(r["codec"], str(r["level"]), r["chunks"], str(r["n"]), f"{r['bytes']:,}",
                  f"{r['ratio']:.1f}", f"{r['decompress_us']:.1f}", f"{r['compress_us']:.1f}")
    con.print(t)
    t = Table(title=f"chunk size on a {results['chunk_world']}^2 procedural world (zstd 3)")
    for col in ("chunk", "file bytes", "B/cell", "chunks", "mixed", "open ms", "cold miss us",
                "chunks / 256^2 query", "KiB decoded / query"):
        t.add_column(col, justify="right")
    for r in results["chunk_sizes"]:
        t.add_row(str(r["chunk"]), f"{r['file_bytes']:,}", f"{r['bytes_per_cell']:.4f}",
                  f"{r['chunks']:,}", f"{r['mixed']:,}", f"{r['open_s'] * 1e3:.1f}",
                  f"{r['cold_miss_us']:.1f}", f"{r['query_chunks']:.2f}",
                  f"{r['query_decoded_kib']:.0f}")
    con.print(t)
    t = Table(title=f"formats on a {results['format_world']}^2 procedural world")
    for col in ("format", "file bytes", "write s", "open ms", "median read us (random chunk)",
                "mixed chunk us"):
        t.add_column(col, justify="left" if col == "format" else "right")
    for r in results["formats"]:
        t.add_row(r["format"], f"{r['file_bytes']:,}", f"{r['write_s']:.2f}",
                  f"{r['open_ms']:.2f}", f"{r['read_us']:.1f}",
                  "-" if r["mixed_read_us"] is None else f"{r['mixed_read_us']:.1f}")
    con.print(t)
    con.print(f"cold chunk miss, 64 x 64 (read + CRC + decompress): "
              f"{results['cold_miss_64_us']:.1f} us median (target <= 50 us)")


def _run(args: opt.Args) -> int:
    """The benchmark on the parsed options ``args`` (:func:`main`)."""
    size = args.size or (4096 if args.quick else 16384)
    if size < 1024 or size % 1024:
        print(f"error: --size must be a multiple of 1024, got {size}", file=sys.stderr)
        return 2
    import importlib.util

    from .common import default_data_dir

    zarr_ok = importlib.util.find_spec("zarr") is not None
    blosc2_ok = importlib.util.find_spec("blosc2") is not None
    reads = 200 if args.quick else 1000
    folder = Path(tempfile.mkdtemp(prefix="navkit-world-store-")) if args.dir is None \
        else args.dir
    folder.mkdir(parents=True, exist_ok=True)
    t_all = time.perf_counter()
    try:
        sets: dict[str, list[bytes]] = {}
        mp = default_data_dir() / args.map
        if mp.exists():
            sets[args.map] = _chunks_of_map(mp)
        sets["procedural rooms"] = _procedural_chunks(200 if args.quick else 1000)
        results: dict[str, Any] = {
            "codecs": codec_table(sets, 2 if args.quick else 3),
            "chunk_world": 2048 if args.quick else 8192,
        }
        results["chunk_sizes"] = chunk_size_table(folder, results["chunk_world"], reads)
        results["format_world"] = size
        results["formats"] = format_table(folder, size, reads, zarr_ok=zarr_ok,
                                          blosc2_ok=blosc2_ok)
        results["cold_miss_64_us"] = next(r["cold_miss_us"] for r in results["chunk_sizes"]
                                          if r["chunk"] == 64)
        results["seconds"] = time.perf_counter() - t_all
        results["quick"] = bool(args.quick)
    finally:
        if args.dir is None:
            shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        print(opt.dumps(results, allow_nan=False, default=str))
    else:
        _print(results)
    return 0


#: ``navkit bench world-store``: the typer app of this benchmark (one command).
app = opt.bench_app()


@app.command("world-store", cls=opt.BenchCommand,
             help=(__doc__ or "").split("\n\n")[0])
def cli(
    quick: Annotated[bool, opt.quick("small sizes (a smoke test, ~20 s)")] = False,
    json: Annotated[bool, opt.json_flag("print one JSON object instead")] = False,
    size: Annotated[
        int | None,
        typer.Option('--size',
                     help="side of the format world in cells (multiple of 1024)"),
    ] = None,
    dir: Annotated[Path | None, typer.Option('--dir', help="keep the files in this folder")] = None,
    map: Annotated[
        str,
        typer.Option('--map',
                     help="Moving AI map for the codec table"),
    ] = "NewYork_0_1024.map",
) -> None:
    """``navkit bench world-store`` (:func:`main`)."""
    opt.done(_run(opt.Args(**locals())))


def main(argv: list[str] | None = None) -> int:
    """Run the storage benchmark; 0, or 2 on bad input."""
    return opt.run(app, argv, "navkit bench world-store")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
