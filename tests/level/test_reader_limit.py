"""The readers' size limit reaches the level reader from ``navkit.formats``.

``navkit.formats`` stands above ``navkit.level`` (tests/test_layers.py), so the
level reader cannot ask it for ``MAX_CELLS``; ``navkit.formats`` hands the
limit down to ``navkit._reading`` when it loads. Assigning
``navkit.formats.MAX_CELLS`` must still change what a level read refuses, and
a process that never loads ``navkit.formats`` gets the same default.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import navkit.formats
from navkit.errors import ConfigError
from navkit.level import NavLevel, parse_level

ROOT = Path(__file__).resolve().parents[2]
#: 10 m x 10 m at 1 m cells: a level grid of 16 x 16 = 256 cells (the margin included).
LEVEL = {"cellSize": 1.0, "areas": [{"name": "a", "polygon": [[0, 0], [10, 0], [10, 10],
                                                                 [0, 10]]}]}


def test_assigning_max_cells_changes_the_level_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    cells = parse_level(LEVEL).grid_geometry().size
    monkeypatch.setattr(navkit.formats, "MAX_CELLS", cells)
    assert parse_level(LEVEL).grid_geometry().size == cells  # at the limit: read
    monkeypatch.setattr(navkit.formats, "MAX_CELLS", cells - 1)
    with pytest.raises(ConfigError) as ei:
        parse_level(LEVEL)
    assert ei.value.field == "maxCells" and f"limit of {cells - 1} cells" in str(ei.value)
    with pytest.raises(ConfigError):
        NavLevel(LEVEL)
    assert parse_level(LEVEL, max_cells=cells).max_cells == cells  # the keyword rules


def test_the_level_reader_alone_has_the_same_default() -> None:
    code = ("import sys, navkit.level, navkit._reading as r\n"
            "assert 'navkit.formats' not in sys.modules\n"
            "print(r.cell_limit(None))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=str(ROOT), timeout=300)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) == navkit.formats.MAX_CELLS == 2**26
