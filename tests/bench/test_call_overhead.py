"""``navkit.bench.call_overhead``: a smoke run on the bundled den520d and its cell choice."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from navkit.bench import SUITES
from navkit.bench import call_overhead as bench
from tests.conftest import fixed


def _key(d: dict[str, Any], snake: str) -> Any:
    """``d[snake]`` or its camelCase spelling (the bench's JSON casing may be either)."""
    if snake in d:
        return d[snake]
    return d[re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), snake)]


@given(st.integers(1, 7), st.integers(1, 7), st.integers(0, 2**32 - 1))
@fixed(40)
def test_pick_cell_is_the_most_central_pair(depth: int, width: int, seed: int) -> None:
    walk = np.random.default_rng(seed).random((depth, width)) < 0.6
    cands = [(x, z) for z in range(depth) for x in range(width - 1)
             if walk[z, x] and walk[z, x + 1]]
    if not cands:
        with pytest.raises(ValueError):
            bench.pick_cell(walk)
        return
    cx, cz = (width - 1) / 2, (depth - 1) / 2
    want = min(cands, key=lambda c: ((c[0] - cx) ** 2 + (c[1] - cz) ** 2, c[1], c[0]))
    assert bench.pick_cell(walk) == want


def test_smoke_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "o.json"
    assert bench.main(["--maps", "den520d", "--calls", "300", "--rounds", "1",
                       "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "den520d" in text and ("PASS" in text or "MISS" in text)
    doc = json.loads(out.read_text())
    m = doc["maps"]["den520d"]
    assert set(m["cases"]) == {"same", "step"}
    for rows in m["cases"].values():
        assert set(rows) == set(bench.METHODS)
        for name, row in rows.items():
            call, kernel = _key(row, "call_us"), _key(row, "kernel_us")
            assert kernel > 0 and call > 0
            assert abs(_key(row, "outside_us") - (call - kernel)) < 1e-9
            assert row["algorithm"] == (name.split(":")[-1] if name != "auto"
                                        else row["algorithm"])
        assert rows["auto"]["algorithm"] in ("jps", "jps+")
    assert SUITES["call-overhead"] == "navkit.bench.call_overhead"


@pytest.mark.parametrize("argv", [["--calls", "0"], ["--methods", "bogus"],
                                  ["--maps", "no_such_map", "--calls", "10"]])
def test_bad_input_exits_2(argv: list[str]) -> None:
    assert bench.main(argv) == 2
