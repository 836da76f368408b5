"""``navkit bake`` and ``navkit world info|stats`` through typer's CliRunner.

Oracles: the Moving AI map read by navkit's own reader (a different code
path than the baked store), file sizes from the file system, the rules for
exit codes in navkit.cli.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from navkit.cli import app
from navkit.formats import load_grid
from navkit.world import ChunkStore

MAPS = Path(__file__).resolve().parents[2] / ".." / "shared" / "maps" / "movingai"
RUN = CliRunner()


def _map(tmp_path: Path) -> Path:
    src = MAPS / "den520d.map"
    if src.exists():
        dst = tmp_path / "den520d.map"
        shutil.copy(src, dst)
        return dst
    dst = tmp_path / "tiny.map"  # fallback: a small Moving AI map
    rows = ["." * 40 if z % 7 else "@" * 30 + "." * 10 for z in range(33)]
    dst.write_text("type octile\nheight 33\nwidth 40\nmap\n" + "\n".join(rows) + "\n")
    return dst


def test_bake_map_then_up_to_date_then_stale(tmp_path: Path) -> None:
    src = _map(tmp_path)
    out = tmp_path / "w.nkw"
    r = RUN.invoke(app, ["bake", str(src), "-o", str(out), "--chunk", "32", "--json"])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert rep["fileBytes"] == out.stat().st_size and rep["chunk"] == 32
    grid = load_grid(src)
    with ChunkStore.open(out) as store:
        assert store.to_grid().equals(grid.with_weights(None)) or store.to_grid().equals(grid)
    r = RUN.invoke(app, ["bake", str(src), "-o", str(out), "--chunk", "32"])
    assert r.exit_code == 0 and "up to date, nothing to do" in r.stdout
    before = out.read_bytes()
    r = RUN.invoke(app, ["bake", str(src), "-o", str(out)])  # other chunk: stale
    assert r.exit_code == 2 and "stale" in r.stderr and "--force" in r.stderr
    assert out.read_bytes() == before
    text = src.read_text().replace(".", "@", 1)
    src.write_text(text)
    r = RUN.invoke(app, ["bake", str(src), "-o", str(out), "--chunk", "32"])
    assert r.exit_code == 2 and "stale" in r.stderr
    r = RUN.invoke(app, ["bake", str(src), "-o", str(out), "--chunk", "32", "--force"])
    assert r.exit_code == 0, r.output
    with ChunkStore.open(out) as store:
        assert store.cell(*_first_changed(text)) == 0


def _first_changed(text: str) -> tuple[int, int]:
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip() == "map") + 1
    for z, ln in enumerate(lines[start:]):
        if "@" in ln:
            return (ln.index("@"), z)
    raise AssertionError


def test_bake_procedural_info_and_stats(tmp_path: Path) -> None:
    out = tmp_path / "p.nkw"
    spec = "procedural:rooms?seed=5&width=1000&depth=600"
    r = RUN.invoke(app, ["bake", spec, "-o", str(out), "--codec", "zlib", "--json"])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    r = RUN.invoke(app, ["world", "info", str(out), "--json"])
    assert r.exit_code == 0, r.output
    info = json.loads(r.stdout)
    assert (info["width"], info["depth"], info["chunk"]) == (1000, 600, 64)
    assert info["chunks"] == 16 * 10 and info["uniform"] + info["mixed"] == 160
    assert info["uniform"] == rep["uniform"] and info["fileBytes"] == out.stat().st_size
    assert info["codec"] == "zlib" and info["source"] == spec
    assert info["fingerprint"] == rep["fingerprint"]
    r = RUN.invoke(app, ["world", "info", str(out)])
    assert r.exit_code == 0 and "fingerprint" in r.stdout
    r = RUN.invoke(app, ["world", "stats", str(out), "--reads", "50", "--json"])
    assert r.exit_code == 0, r.output
    st = json.loads(r.stdout)
    s = st["stats"]
    assert s["hits"] + s["misses"] == 50 and st["openSeconds"] > 0
    r = RUN.invoke(app, ["world", "stats", str(out), "--reads", "20"])
    assert r.exit_code == 0 and "open" in r.stdout
    r = RUN.invoke(app, ["bake", spec, "-o", str(out), "--codec", "zlib"])
    assert r.exit_code == 0 and "up to date" in r.stdout


def test_cli_errors_exit_2_naming_the_file(tmp_path: Path) -> None:
    junk = tmp_path / "junk.nkw"
    junk.write_bytes(b"hello world, not a world" * 10)
    for args in (["world", "info", str(junk)], ["world", "stats", str(junk)]):
        r = RUN.invoke(app, args)
        assert r.exit_code == 2 and r.stderr.startswith("error: ") and str(junk) in r.stderr
    r = RUN.invoke(app, ["bake", str(tmp_path / "nope.map"), "-o", str(tmp_path / "x.nkw")])
    assert r.exit_code == 2 and "nope.map" in r.stderr
    r = RUN.invoke(app, ["bake", "procedural:rooms?sed=1", "-o", str(tmp_path / "x.nkw")])
    assert r.exit_code == 2 and "sed=1" in r.stderr
    r = RUN.invoke(app, ["bake", "procedural:rooms?width=100", "-o", str(tmp_path / "x.nkw"),
                         "--chunk", "48"])
    assert r.exit_code == 2 and "chunk" in r.stderr
    r = RUN.invoke(app, ["bake", "procedural:rooms?width=100&depth=64", "-o",
                         str(tmp_path / "x.nkw"), "--codec", "lzma"])
    assert r.exit_code == 2 and "codec" in r.stderr
    r = RUN.invoke(app, ["bake", "procedural:rooms?width=100&depth=64", "-o", str(junk)])
    assert r.exit_code == 2 and "--force" in r.stderr
    assert not (tmp_path / "x.nkw").exists()
    _ = np
