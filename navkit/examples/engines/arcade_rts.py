"""navkit + arcade: RTS units walking to a rally point along a navkit FlowField.

Needs arcade for a window (``pip install 'navkit[arcade]'``; headless, it
falls back to Pillow without it). Run ``python -m navkit.examples.engines.arcade_rts``
for a window (click to move the rally point; Esc quits), or headless::

    python -m navkit.examples.engines.arcade_rts --headless --frames 300 --png rts.png

(``python -m navkit.examples arcade_rts.py`` prints this file's path.)

One :class:`navkit.FlowField` (exact costs) holds every cell's way to the
rally area (the free cells within ``RALLY_RADIUS`` of the rally point); each
frame every unit looks its direction up (``FlowField.lookup``, O(1) per
unit) and walks. The field never sends a unit through a wall or across a
blocked corner, so a unit moving along it only ever enters free cells.
A unit stops once its cell is a goal cell. The rally point moves on a fixed
schedule headless (or by mouse click in a window), and the field is rebuilt.

Headless drawing, in order of preference (``--renderer auto``, the
default): arcade's own headless mode (``ARCADE_HEADLESS=1``, an EGL
context, no display; it works on the machine these docs were made on), and,
when arcade cannot open a GL context at all, the same simulation drawn with
Pillow through :mod:`navkit.render`. ``--renderer pillow`` skips GL (what
the smoke test uses); ``--renderer arcade`` insists on it. The summary line
says which path was taken (``renderer=arcade-headless`` or
``renderer=pillow``).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import numpy as np

from navkit.errors import MissingExtraError
from navkit.grid import NavGrid
from navkit.query.flow import FlowField

FPS = 30
DT = 1.0 / FPS
SCALE = 16  # pixels per cell
UNITS = 48
SPEED = 4.0  # m/s
RALLY_RADIUS = 2.5  # m
RALLIES = [(40.5, 26.5), (6.5, 27.5), (24.5, 4.5)]  # headless schedule
RALLY_EVERY = 150  # frames


def build_level() -> NavGrid:
    """A 48 x 32 field (1 m cells): a river with three fords, rocks, a base wall."""
    walk = np.ones((32, 48), dtype=bool)
    walk[0, :] = walk[-1, :] = False
    walk[:, 0] = walk[:, -1] = False
    walk[1:31, 22:24] = False  # the river...
    walk[5:7, 22:24] = walk[15:18, 22:24] = walk[26:28, 22:24] = True  # ...and fords
    walk[20:23, 34:45] = False  # base wall
    walk[20:30, 34] = False
    for x, z in [(8, 8), (12, 18), (30, 8), (38, 12), (15, 26)]:
        walk[z:z + 3, x:x + 3] = False
    return NavGrid(walk, cell_size=1.0, name="rts")


class Army:
    """Units and their flow field (no arcade needed; see :meth:`step`)."""

    def __init__(self, seed: int = 3):
        self.grid = build_level()
        self.field = FlowField(self.grid, costs="exact")
        rng = np.random.default_rng(seed)
        free = np.argwhere(self.grid.walkable[:, :20])  # (z, x), west bank
        pick = free[rng.choice(len(free), size=UNITS, replace=False)]
        jitter = rng.uniform(0.2, 0.8, size=(UNITS, 2))
        self.pos = pick[:, ::-1].astype(np.float64) + jitter  # world (x, z)
        self.frame = 0
        self.rebuilds = 0
        self.blocked = 0  # unit-frames spent in a blocked cell (always 0)
        self.rally: tuple[float, float] = RALLIES[0]
        self.set_rally(self.rally)

    def set_rally(self, point: tuple[float, float]) -> None:
        """Rebuild the field toward the free cells within RALLY_RADIUS of ``point``."""
        g = self.grid
        zz, xx = np.nonzero(g.walkable)
        centres = g.cells_to_world(np.stack([xx, zz], axis=1))
        near = np.hypot(centres[:, 0] - point[0], centres[:, 1] - point[1]) <= RALLY_RADIUS
        goals = np.stack([xx[near], zz[near]], axis=1)
        if len(goals) == 0:
            return
        self.rally = point
        self.field.build(goals)
        self.goal_mask = np.zeros(g.shape, dtype=bool)
        self.goal_mask[goals[:, 1], goals[:, 0]] = True
        self.rebuilds += 1

    def cells(self) -> np.ndarray:
        return np.floor(self.pos / self.grid.cell_size).astype(np.int64)  # (x, z)

    def arrived(self) -> np.ndarray:
        c = self.cells()
        return self.goal_mask[c[:, 1], c[:, 0]]

    def step(self) -> None:
        """One frame: the schedule (headless), look-ups, movement."""
        if self.frame and self.frame % RALLY_EVERY == 0:
            self.set_rally(RALLIES[(self.frame // RALLY_EVERY) % len(RALLIES)])
        self.advance()

    def advance(self) -> None:
        moving = ~self.arrived()
        dirs = self.field.lookup(self.pos)
        self.pos[moving] += dirs[moving] * SPEED * DT
        c = self.cells()
        self.blocked += int(np.count_nonzero(~self.grid.walkable[c[:, 1], c[:, 0]]))
        self.frame += 1

    def summary(self, renderer: str) -> str:
        return (f"frames={self.frame} units={UNITS} arrived={int(self.arrived().sum())} "
                f"rebuilds={self.rebuilds} blocked={self.blocked} renderer={renderer}")


# ------------------------------------------------------------------- drawing
def draw_pillow(army: Army, path: str) -> None:
    """The last frame with Pillow: navkit.render's flow picture plus the units."""
    from PIL import ImageDraw

    from navkit.render import render_flow, save_png

    img = render_flow(army.field, scale=SCALE)
    d = ImageDraw.Draw(img)
    for x, z in army.pos * SCALE:
        d.ellipse([x - 5, z - 5, x + 5, z + 5], fill=(30, 60, 200), outline=(255, 255, 255))
    rx, rz = army.rally[0] * SCALE, army.rally[1] * SCALE
    r = RALLY_RADIUS * SCALE
    d.ellipse([rx - r, rz - r, rx + r, rz + r], outline=(200, 20, 20), width=3)
    save_png(img, path)


def _arcade() -> Any:
    try:
        import arcade
    except ImportError:
        raise MissingExtraError("navkit.examples.engines.arcade_rts", "arcade", "arcade") from None
    return arcade


def draw_arcade(arcade: Any, army: Army, height: int) -> None:
    """Draw the current frame into arcade's current window (y up: z is flipped)."""
    g = army.grid
    arcade.get_window().clear(color=(235, 235, 228))
    zz, xx = np.nonzero(~g.walkable)
    for x, z in zip(xx.tolist(), zz.tolist(), strict=True):
        arcade.draw_lbwh_rectangle_filled(x * SCALE, height - (z + 1) * SCALE, SCALE, SCALE,
                                          (60, 62, 70))
    rx, rz = army.rally
    arcade.draw_circle_outline(rx * SCALE, height - rz * SCALE, RALLY_RADIUS * SCALE,
                               (200, 20, 20), 3)
    for x, z in army.pos.tolist():
        arcade.draw_circle_filled(x * SCALE, height - z * SCALE, 5, (30, 60, 200))


def run_arcade_headless(army: Army, frames: int, png: str | None) -> None:
    os.environ["ARCADE_HEADLESS"] = "1"  # before arcade is imported
    arcade = _arcade()
    w, h = army.grid.width * SCALE, army.grid.depth * SCALE
    win = arcade.Window(w, h, "navkit rts", visible=False)
    try:
        while army.frame < frames:
            army.step()
        draw_arcade(arcade, army, h)
        if png:
            arcade.get_image(0, 0, w, h).convert("RGB").save(png)
    finally:
        win.close()


def run_window(army: Army, frames: int | None) -> None:
    arcade = _arcade()
    w, h = army.grid.width * SCALE, army.grid.depth * SCALE

    class Game(arcade.Window):  # type: ignore[name-defined]
        def on_draw(self) -> None:
            draw_arcade(arcade, army, h)

        def on_update(self, delta_time: float) -> None:
            army.advance()
            if frames is not None and army.frame >= frames:
                self.close()

        def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
            army.set_rally((x / SCALE, (h - y) / SCALE))

        def on_key_press(self, symbol: int, modifiers: int) -> None:
            if symbol == arcade.key.ESCAPE:
                self.close()

    Game(w, h, "navkit rts: click to set the rally point", update_rate=DT, draw_rate=DT)
    arcade.run()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--headless", action="store_true", help="no window")
    ap.add_argument("--frames", type=int, default=None,
                    help="stop after N frames (default: 300 headless)")
    ap.add_argument("--png", default=None, help="save the last frame to this PNG (headless)")
    ap.add_argument("--renderer", choices=("auto", "arcade", "pillow"), default="auto",
                    help="headless drawing: arcade's EGL headless mode, Pillow, or auto")
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args(argv)
    army = Army(args.seed)
    if not args.headless:
        run_window(army, args.frames)
        print(army.summary("arcade-window"))
        return 0
    frames = args.frames if args.frames is not None else 300
    renderer = "pillow"
    if args.renderer in ("auto", "arcade"):
        try:
            run_arcade_headless(army, frames, args.png)
            renderer = "arcade-headless"
        except Exception as exc:  # no GL context here: fall back to Pillow
            if args.renderer == "arcade":
                raise
            print(f"arcade headless unavailable ({type(exc).__name__}: {exc}); using Pillow",
                  file=sys.stderr)
    if renderer == "pillow":
        while army.frame < frames:
            army.step()
        if args.png:
            draw_pillow(army, args.png)
    print(army.summary(renderer))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except MissingExtraError as exc:  # one line naming the extra, not a traceback
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
