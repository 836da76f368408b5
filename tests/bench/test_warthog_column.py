"""The warthog column of ``navkit.bench.jps_plus`` (``--warthog PATH``), with a fake binary.

The fake prints warthog's experiment table as warthog itself does:
``run_experiments`` in ShortestPathLab/warthog-jps ``apps/jps.cpp`` (and
warthog-core's ``apps/warthog.cpp``) writes to stdout the header
``id alg expanded generated reopen surplus heapops nanos plen pcost scost map``
(tab-separated), then one row per scenario line, ``i alg expanded ...``, with
``nanos`` the search time, ``pcost`` the path's cost and ``scost`` the
scenario's optimal length, and ``mapfile=...`` / ``done. total memory: ...``
on stderr; an unknown ``--alg`` prints ``err; invalid search algorithm: ALG``
to stderr and exits 1. Newer versions add a ``snapshot`` column after ``id``.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from navkit.bench import jps_plus as bench

FAKE = r'''#!{python}
import os, sys
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
alg = args["--alg"]
runs = sys.argv[0] + ".runs." + alg  # the first run of each alg is twice as slow
k = int(open(runs).read()) if os.path.exists(runs) else 0
open(runs, "w").write(str(k + 1))
if alg not in ("jps", "jps+", "jpsP", "jpsP+"):
    sys.stderr.write("err; invalid search algorithm: " + alg + "\n")
    sys.exit(1)
lines = [ln.split("\t") for ln in open(args["--scen"]).read().splitlines()[1:] if ln.strip()]
sys.stderr.write("mapfile=" + args["--map"] + "\n")
print({header!r})
for i, f in enumerate(lines[:len(lines) - {drop}]):
    opt = float(f[8])
    nanos = 1000 * (i + 1) * (2 if k == 0 else 1)
    cells = {snapshot!r} + [str(i), alg, "12", "40", "0", "0", "50", str(nanos),
                            "7", repr(opt), repr(opt), f[1]]
    print("\t".join(cells))
sys.stderr.write("done. total memory: 1234\n")
'''
HEADER = "id\talg\texpanded\tgenerated\treopen\tsurplus\theapops\tnanos\tplen\tpcost\tscost\tmap"


def _fake(tmp_path: Path, name: str, *, drop: int = 0, snapshot: bool = False,
          body: str | None = None) -> Path:
    header = HEADER.replace("id\t", "id\tsnapshot\t", 1) if snapshot else HEADER
    text = body if body is not None else FAKE.format(
        python=sys.executable, header=header, drop=drop, snapshot=["0"] if snapshot else [])
    if body is not None:
        text = f"#!{sys.executable}\n" + body
    p = tmp_path / name
    p.write_text(text)
    p.chmod(0o755)
    return p


def _tiny_map(tmp_path: Path) -> tuple[Path, list[float]]:
    """A 12x10 Moving AI map with a wall and its scenario file (five lines)."""
    rows = ["." * 12 for _ in range(10)]
    rows = [r[:6] + "@" + r[7:] if 1 <= z <= 7 else r for z, r in enumerate(rows)]
    (tmp_path / "tiny.map").write_text("type octile\nheight 10\nwidth 12\nmap\n"
                                       + "\n".join(rows) + "\n")
    from navkit import Pathfinder
    from navkit.formats import load_grid

    pf = Pathfinder(load_grid(tmp_path / "tiny.map"), costs="exact")
    pairs = [((0, 0), (11, 9)), ((0, 4), (11, 4)), ((2, 8), (9, 1)), ((5, 5), (5, 5)),
             ((11, 0), (0, 9))]
    opts = [pf.find_path_cells(s, g).cost for s, g in pairs]
    lines = ["version 1"] + [f"0\ttiny.map\t12\t10\t{s[0]}\t{s[1]}\t{g[0]}\t{g[1]}\t{o:.8f}"
                             for (s, g), o in zip(pairs, opts, strict=True)]
    (tmp_path / "tiny.map.scen").write_text("\n".join(lines) + "\n")
    return tmp_path, opts


def _camel(snake: str) -> str:
    return re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), snake)


def _key(d: dict[str, Any], snake: str) -> Any:
    """``d[snake]``, or its camelCase spelling (the bench's JSON casing may be either)."""
    return d[snake] if snake in d else d[_camel(snake)]


def _row(tmp_path: Path, binary: Path, algs: str | None = "jps,jps+",
         extra: tuple[str, ...] = ("--quick",)) -> dict[str, Any]:
    data, _ = _tiny_map(tmp_path)
    out = tmp_path / "out.json"
    rc = bench.main(["--data", str(data), "--maps", "tiny", "--queries", "3", *extra,
                     "--skip", "nano-astar", "--skip", "w9-pathfinding", "--quiet",
                     "--warthog", str(binary), *(("--warthog-algs", algs) if algs else ()),
                     "--json", str(out)])
    assert rc == 0
    doc = json.loads(out.read_text())
    rows = doc["maps"] if isinstance(doc, dict) and "maps" in doc else doc
    assert len(rows) == 1
    return dict(rows[0])


def _run(tmp_path: Path, binary: Path, algs: str = "jps,jps+",
         extra: tuple[str, ...] = ("--quick", "--warthog-rounds", "2")) -> dict[str, Any]:
    return dict(_key(_row(tmp_path, binary, algs, extra), "warthog"))


def test_parse_warthog_reads_the_real_table_layout() -> None:
    text = ("mapfile=x.map\n" + HEADER + "\n"
            "0\tjps\t12\t40\t0\t0\t50\t1500\t7\t9.89949\t9.89949\tx.map\n"
            "1\tjps\t3\t9\t0\t0\t8\t700\t2\t2\t2\tx.map\n")
    cols = bench.parse_warthog(text)
    assert cols["nanos"].tolist() == [1500.0, 700.0]
    assert cols["pcost"].tolist() == [9.89949, 2.0]
    assert cols["expanded"].tolist() == [12.0, 3.0]
    assert "map" not in cols and "alg" not in cols  # text columns are dropped
    with pytest.raises(ValueError, match="no warthog results table"):
        bench.parse_warthog("mapfile=x.map\ndone. total memory: 1\n")


def test_warthog_columns_in_the_json(tmp_path: Path) -> None:
    # every line (no --quick): the long set is line 0 alone, every line all five
    row = _row(tmp_path, _fake(tmp_path, "warthog"), None,
               ("--edits", "0", "--rounds", "1", "--warthog-rounds", "2"))
    wh = _key(row, "warthog")
    assert tuple(wh) == bench.WARTHOG_ALGS  # the default --warthog-algs
    for ent in wh.values():
        assert _key(ent, "lines") == 5 and _key(ent, "rounds") == 2
        # the fastest of two runs: nanos 1000 * (i + 1), every line 1..5 us
        assert math.isclose(_key(ent, "median_us_every"), 3.0)
        assert math.isclose(_key(ent, "mean_us_every"), 3.0)
        assert math.isclose(_key(ent, "median_us_long"), 1.0)
        assert _key(ent, "optimal") == "5/5"  # pcost printed = the scenario's optimal
        assert "error" not in ent
    vs = _key(row, "versus_warthog")
    med = _key(row, "median_us_every")
    for label, table in (("long", _key(row, "median_us_long")), ("every", med)):
        v = vs[label]
        w_us = 1.0 if label == "long" else 3.0
        assert math.isclose(_key(v, "warthog_us"), w_us)
        best = min(_key(table, k) for k in bench.NAVKIT_CALLS
                   if k in table or _camel(k) in table)
        assert math.isclose(_key(v, "call_us"), best)
        assert math.isclose(_key(v, "call_ratio"), best / w_us)
        batch = _key(row, f"batch_us_{label}")
        assert math.isclose(_key(v, "batch_ratio"), min(batch.values()) / w_us)


def test_one_warthog_round_keeps_the_slow_first_run(tmp_path: Path) -> None:
    ent = _run(tmp_path, _fake(tmp_path, "warthog"), "jps",
               ("--quick", "--warthog-rounds", "1"))["jps"]
    assert math.isclose(_key(ent, "median_us_long"), 2.0)  # line 0, 2 * 1000 ns


def test_warthog_with_a_snapshot_column(tmp_path: Path) -> None:
    wh = _run(tmp_path, _fake(tmp_path, "warthog", snapshot=True), algs="jps")
    assert _key(wh["jps"], "lines") == 5 and _key(wh["jps"], "optimal") == "5/5"


def test_failing_warthog_gives_an_error_entry(tmp_path: Path) -> None:
    wh = _run(tmp_path, _fake(tmp_path, "warthog"), algs="jps,bogus")
    assert "error" not in wh["jps"]
    err = wh["bogus"]["error"]
    assert "exited 1" in err and "invalid search algorithm: bogus" in err


def test_crashing_warthog_and_garbage_output(tmp_path: Path) -> None:
    crash = _fake(tmp_path, "crash", body="import sys\nsys.stderr.write('Segmentation fault\\n')\n"
                                          "sys.exit(139)\n")
    err = _run(tmp_path, crash, algs="jps")["jps"]["error"]
    assert "exited 139" in err and "Segmentation fault" in err
    garbage = _fake(tmp_path, "garbage", body="print('hello')\n")
    err = _run(tmp_path, garbage, algs="jps")["jps"]["error"]
    assert "no warthog results table" in err


def test_warthog_short_table_is_an_error(tmp_path: Path) -> None:
    ent = _run(tmp_path, _fake(tmp_path, "warthog", drop=2), algs="jps")["jps"]
    assert "3 result rows for 5 scenario lines" in ent["error"]


def test_missing_warthog_binary_is_bad_input(tmp_path: Path) -> None:
    data, _ = _tiny_map(tmp_path)
    rc = bench.main(["--data", str(data), "--maps", "tiny", "--quick", "--quiet",
                     "--warthog", str(tmp_path / "nope")])
    assert rc == 2
    rc = bench.main(["--data", str(data), "--maps", "tiny", "--quick", "--quiet",
                     "--warthog", str(_fake(tmp_path, "warthog")), "--warthog-rounds", "0"])
    assert rc == 2


def test_no_versus_line_when_warthog_fails(tmp_path: Path) -> None:
    row = _row(tmp_path, _fake(tmp_path, "warthog"), "bogus")
    assert _key(row, "versus_warthog") is None
