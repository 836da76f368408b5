"""The engine examples run headless, draw a real picture, and never walk through walls."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "navkit" / "examples" / "engines"


def _run(script: str, tmp_path: Path, *extra: str,
         gl: bool = False) -> tuple[str, Path]:
    png = tmp_path / f"{script}.png"
    env = dict(os.environ, PYTHONPATH=str(ROOT), SDL_VIDEODRIVER="dummy")
    r = subprocess.run([sys.executable, str(EXAMPLES / script), "--headless", "--frames", "120",
                        "--png", str(png), *extra],
                       capture_output=True, text=True, timeout=120, env=env, cwd=str(ROOT))
    if gl and r.returncode < 0:  # the GL driver itself crashed: not the example's fault
        pytest.skip(f"arcade's headless GL killed the process (signal {-r.returncode})")
    assert r.returncode == 0, r.stderr
    return r.stdout.strip().splitlines()[-1], png


def _fields(line: str) -> dict[str, str]:
    return dict(re.findall(r"(\w+)=(\S+)", line))


def _png_colours(png: Path) -> int:
    from PIL import Image

    assert png.is_file() and png.stat().st_size > 0
    img = np.asarray(Image.open(png).convert("RGB"))
    assert img.shape[0] > 100 and img.shape[1] > 100
    return len(np.unique(img.reshape(-1, 3), axis=0))


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # (dataclasses look their module up)
    spec.loader.exec_module(mod)
    return mod


def test_pygame_chase_headless(tmp_path: Path) -> None:
    pytest.importorskip("pygame")
    line, png = _run("pygame_chase.py", tmp_path)
    f = _fields(line)
    assert f["frames"] == "120" and int(f["replans"]) == 20 and f["blocked"] == "0"
    assert _png_colours(png) >= 4


def test_arcade_rts_headless_without_gl(tmp_path: Path) -> None:
    line, png = _run("arcade_rts.py", tmp_path, "--renderer", "pillow")
    f = _fields(line)
    assert f["frames"] == "120" and f["blocked"] == "0" and f["renderer"] == "pillow"
    assert _png_colours(png) >= 4


def test_arcade_rts_headless_auto(tmp_path: Path) -> None:
    """arcade's EGL headless mode where it works, else the Pillow fallback: both exit 0."""
    pytest.importorskip("arcade")
    line, png = _run("arcade_rts.py", tmp_path, gl=True)
    assert _fields(line)["renderer"] in ("arcade-headless", "pillow")
    assert _png_colours(png) >= 3


def test_monster_never_enters_a_blocked_cell() -> None:
    """Step the chase in-process; check every frame's cell and every plan's cells here."""
    chase = _load("pygame_chase")
    game = chase.Chase(seed=11)
    walk = game.grid.walkable
    centres = game.grid.cells_to_world(np.argwhere(walk | ~walk)[:, ::-1]).reshape(
        walk.shape + (2,))
    plans = 0
    for _ in range(400):
        planned = game.frame % chase.REPLAN_EVERY == 0
        circles = game.active_circles()  # what this frame's plan sees
        game.step()
        x, z = (int(v) for v in np.floor(game.monster.pos))
        assert walk[z, x], f"monster in wall cell {(x, z)} at frame {game.frame}"
        res = game.monster_path
        if planned and res is not None and res.has_path:
            plans += 1
            cells = res.cells
            assert walk[cells[:, 1], cells[:, 0]].all()
            c = centres[cells[:, 1], cells[:, 0]]
            for cx, cz, r in circles:  # docs/rules.md 7.1: centre inside the closed disc
                assert np.all((c[:, 0] - cx) ** 2 + (c[:, 1] - cz) ** 2 > r * r)
            d = np.diff(cells, axis=0)  # 8-connected, never cutting a wall corner
            assert np.abs(d).max(initial=0) <= 1
            for (x0, z0), (dx, dz) in zip(cells[:-1], d, strict=True):
                if dx and dz:
                    assert walk[z0, x0 + dx] and walk[z0 + dz, x0]
    assert plans > 20
    assert game.blocked == 0 and game.replans > 0


def test_rts_units_reach_the_rally_point_and_stay_on_free_cells() -> None:
    rts = _load("arcade_rts")
    army = rts.Army(seed=5)
    walk = army.grid.walkable
    for _ in range(600):  # 20 s at 4 m/s toward a fixed rally point
        army.advance()
        c = army.cells()
        assert walk[c[:, 1], c[:, 0]].all()
    # every unit arrives (the level is one connected region): checked by distance alone
    d = np.hypot(*(army.pos - np.array(army.rally)).T)
    assert np.all(d <= rts.RALLY_RADIUS + 1.5), np.sort(d)[-5:]


def test_pygame_helpers_match_the_grid() -> None:
    pygame = pytest.importorskip("pygame")
    from navkit import NavGrid
    from navkit.adapters.pygame import cell_rect, draw_grid, pixel_to_cell, world_to_pixel

    rng = np.random.default_rng(2)
    walk = rng.random((7, 9)) < 0.6
    g = NavGrid(walk, cell_size=0.5, min_x=-1.0, min_z=2.0)
    surf = pygame.Surface((9 * 4, 7 * 4))
    draw_grid(surf, g, 4, floor=(255, 255, 255), wall=(0, 0, 0))
    px = pygame.surfarray.array3d(surf)  # (width, height, 3)
    seen = px[2::4, 2::4, 0].T > 128  # the centre pixel of every cell, as [z, x]
    assert np.array_equal(seen, walk)
    assert tuple(cell_rect(3, 2, 4)) == (12, 8, 4, 4)
    for x, z in [(0, 0), (8, 6), (3, 4)]:
        cx, cz = g.cell_center(x, z)
        assert pixel_to_cell(g, world_to_pixel(g, (cx, cz), 4), 4) == (x, z)
