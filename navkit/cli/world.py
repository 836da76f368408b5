"""``navkit bake`` and ``navkit world info|stats``: baked chunk worlds (:mod:`navkit.world`).

::

    navkit bake SOURCE -o WORLD.nkw [--chunk 64] [--codec zstd] [--level N] [--force] [--json]
    navkit world info WORLD.nkw [--json]
    navkit world stats WORLD.nkw [--reads N] [--seed S] [--json]

``SOURCE`` is a map file any navkit reader takes (``.map``, ``.txt``, images,
``.npy``/``.npz``, ``.json`` levels) or ``procedural:rooms?seed=1&width=...``
(docs/worlds.md). When ``WORLD.nkw`` exists and its fingerprint matches the
source, ``bake`` says it is up to date and does nothing (exit 0); when it no
longer matches, ``bake`` reports it stale and rebuilds only with ``--force``
(exit 2 otherwise).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.markup import escape
from rich.table import Table

from ..distributed.bake import DASK_BATCH_CHUNKS
from ..errors import ConfigError, FormatError
from .common import EXIT_BAD_INPUT, NavkitGroup, emit_json, stdout
from .distributed import (
    DEFAULT_TIMEOUT_S,
    ConnectTimeoutOpt,
    OptionalWorkersOpt,
    SchedulerOpt,
    ThreadsOpt,
    make_runner,
)

__all__ = ["bake_cmd", "world_app", "info_cmd", "stats_cmd", "BAKE_HELP", "WORLD_HELP"]

BAKE_HELP = "Bake a map file or a procedural world into a chunked .nkw world file."
WORLD_HELP = "Inspect baked .nkw world files (info, stats)."

world_app = typer.Typer(name="world", cls=NavkitGroup, help=WORLD_HELP, no_args_is_help=True,
                        add_completion=False, pretty_exceptions_enable=False)


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(EXIT_BAD_INPUT)


def bake_cmd(
    source: Annotated[str, typer.Argument(
        metavar="SOURCE", help="A map file, or procedural:rooms?seed=1&width=W&depth=D.")],
    output: Annotated[Path, typer.Option("-o", "--output", metavar="WORLD.nkw",
                                         help="The world file to write.")],
    chunk: Annotated[int, typer.Option(help="Cells per chunk side (power of two, 16-1024).")
                     ] = 64,
    codec: Annotated[str, typer.Option(help="zstd, zlib, blosc2-zstd or blosc2-lz4.")
                     ] = "zstd",
    level: Annotated[int | None, typer.Option(help="Codec level (default per codec).")
                     ] = None,
    force: Annotated[bool, typer.Option("--force", help="Rebuild a stale world file.")
                     ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    scheduler: SchedulerOpt = None,
    workers: OptionalWorkersOpt = None,
    threads: ThreadsOpt = False,
    connect_timeout: ConnectTimeoutOpt = DEFAULT_TIMEOUT_S,
) -> None:
    """Bake SOURCE into WORLD.nkw (nothing to do when it is up to date); with
    --workers or --scheduler the chunks are encoded on a Dask cluster (same bytes)."""
    from ..world.bake import bake
    from ..world.chunkfile import ChunkFile
    from ..world.sources import resolve_source

    if not source.startswith("procedural:") and not Path(source).exists():
        raise _fail(f"{source}: no such file")
    if output.exists():
        spec = resolve_source(source, chunk=chunk)
        try:
            cf = ChunkFile(output)
            old_fp: str | None = cf.header.fingerprint
            old_chunk = cf.header.chunk
            cf.close()
        except FormatError as exc:
            old_fp, old_chunk = None, -1
            reason = f"unreadable ({exc.reason})"
        if old_fp == spec.fingerprint and old_chunk == chunk:
            if as_json:
                emit_json({"path": str(output), "up_to_date": True, "fingerprint": old_fp})
            else:
                typer.echo(f"{output}: up to date, nothing to do")
            return
        if old_fp is not None:
            reason = "stale (its fingerprint no longer matches the source)"
        if not force:
            raise _fail(f"{output} is {reason}; rerun with --force to rebuild it")
        if not as_json:
            typer.echo(f"{output}: {reason}; rebuilding", err=True)
    on_dask = scheduler is not None or workers is not None
    extra: dict[str, Any] = {"batch_chunks": DASK_BATCH_CHUNKS} if on_dask else {}
    with make_runner(scheduler, workers, threads=threads, progress=not as_json,
                     timeout=connect_timeout) as runner:
        report = bake(source, output, chunk=chunk, codec=codec, level=level,
                      progress=not as_json, map_batches=runner.map_batches, **extra)
    d = report.to_dict()
    if as_json:
        emit_json(d)
        return
    typer.echo(f"baked {output}: {report.width} x {report.depth} cells, "
               f"{report.chunks:,} chunks of {report.chunk} ({report.uniform:,} uniform, "
               f"{report.mixed:,} mixed), {report.file_bytes:,} bytes "
               f"({report.bytes_per_cell:.4f} B/cell), {report.seconds:.2f} s")


def _info(path: Path) -> dict[str, Any]:
    from ..world.chunkfile import ChunkFile
    from ..world.codec import CODEC_IDS

    cf = ChunkFile(path)
    try:
        h = cf.header
        n = h.nx * h.nz
        return {
            "path": str(path), "width": h.width, "depth": h.depth, "cells": h.width * h.depth,
            "chunk": h.chunk, "nx": h.nx, "nz": h.nz, "chunks": n,
            "uniform": cf.uniform_count, "mixed": n - cf.uniform_count,
            "file_bytes": cf.file_bytes, "bytes_per_cell": cf.file_bytes / (h.width * h.depth),
            "codec": CODEC_IDS.get(h.codec_id, str(h.codec_id)), "level": h.level,
            "fingerprint": h.fingerprint, "format_version": h.version,
            "weighted": h.weighted, "min_weight": h.min_weight, "cell_size": h.cell_size,
            "min_x": h.min_x, "min_z": h.min_z, "floor_y": h.floor_y,
            "name": h.meta.get("name", ""), "source": h.meta.get("source", ""),
            "meta": h.meta,
        }
    finally:
        cf.close()


@world_app.command("info")
def info_cmd(
    world: Annotated[Path, typer.Argument(metavar="WORLD.nkw", help="A baked world file.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Print a world file's sizes, chunk counts, bytes, codec, fingerprint and source."""
    info = _info(world)
    if as_json:
        emit_json(info)
        return
    t = Table(title=escape(f"navkit world info {world}"), show_header=False)
    t.add_column("field", style="bold")
    t.add_column("value")
    t.add_row("size", f"{info['width']:,} x {info['depth']:,} cells = {info['cells']:,}")
    t.add_row("chunks", f"{info['nx']:,} x {info['nz']:,} of {info['chunk']} cells: "
                        f"{info['uniform']:,} uniform, {info['mixed']:,} mixed")
    t.add_row("file", f"{info['file_bytes']:,} bytes ({info['bytes_per_cell']:.4f} B/cell)")
    t.add_row("codec", f"{info['codec']} level {info['level']}")
    t.add_row("weights", f"weighted, min {info['min_weight']}" if info["weighted"]
              else "uniform (1)")
    t.add_row("geometry", f"cell {info['cell_size']:g} m, origin ({info['min_x']:g}, "
                          f"{info['min_z']:g}), floor y {info['floor_y']:g}")
    t.add_row("fingerprint", info["fingerprint"])
    t.add_row("format version", str(info["format_version"]))
    t.add_row("name", escape(str(info["name"])))
    t.add_row("source", escape(str(info["source"])))
    stdout().print(t)


@world_app.command("stats")
def stats_cmd(
    world: Annotated[Path, typer.Argument(metavar="WORLD.nkw", help="A baked world file.")],
    reads: Annotated[int, typer.Option(help="Random chunks to read.")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the random chunk choice.")] = 0,
    cap_mb: Annotated[float, typer.Option(help="LRU cap in MiB.")] = 64.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Open WORLD.nkw, read N random chunks; print the store statistics and timings."""
    from ..world.store import ChunkStore

    if reads < 0:
        raise ConfigError(f"must be >= 0, got {reads}", field="--reads")
    if not cap_mb >= 0:
        raise ConfigError(f"must be >= 0, got {cap_mb}", field="--cap-mb")
    t0 = time.perf_counter()
    store = ChunkStore.open(world, cap_bytes=int(cap_mb * (1 << 20)))
    open_s = time.perf_counter() - t0
    rng = np.random.default_rng(seed)
    cxs = rng.integers(0, store.nx, reads)
    czs = rng.integers(0, store.nz, reads)
    times = np.empty(reads)
    with store:
        for i in range(reads):
            t = time.perf_counter()
            store.get(int(cxs[i]), int(czs[i]))
            times[i] = time.perf_counter() - t
        st = store.stats()
    out: dict[str, Any] = {"path": str(world), "open_seconds": open_s, "reads": reads,
           "median_read_seconds": float(np.median(times)) if reads else None,
           "p99_read_seconds": float(np.percentile(times, 99)) if reads else None,
           "mean_miss_seconds": (st.decompress_seconds / st.loads) if st.loads else None,
           "stats": st.to_dict()}
    if as_json:
        emit_json(out)
        return
    tbl = Table(title=escape(f"navkit world stats {world}"), show_header=False)
    tbl.add_column("field", style="bold")
    tbl.add_column("value")
    med, p99 = out["median_read_seconds"], out["p99_read_seconds"]
    tbl.add_row("open", f"{open_s * 1e3:.2f} ms (header + index)")
    if isinstance(med, float) and isinstance(p99, float):
        tbl.add_row("reads", f"{reads:,} random chunks: median {med * 1e6:.1f} us, "
                             f"p99 {p99 * 1e6:.1f} us")
    if st.loads:
        tbl.add_row("miss (read + decompress)",
                    f"{st.decompress_seconds / st.loads * 1e6:.1f} us mean")
    for k, v in st.to_dict().items():
        tbl.add_row(k, f"{v:.6f}" if isinstance(v, float) else f"{v:,}")
    stdout().print(tbl)

