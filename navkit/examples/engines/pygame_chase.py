"""navkit + pygame-ce: a monster chasing the player around obstacles that come and go.

Needs pygame-ce (``pip install 'navkit[pygame]'``). Run
``python -m navkit.examples.engines.pygame_chase`` for a window (arrow keys
steer the player; without keys it walks its scripted route; Esc quits), or
headless::

    python -m navkit.examples.engines.pygame_chase --headless --frames 300 --png chase.png

(``python -m navkit.examples pygame_chase.py`` prints this file's path: copy
it to start a game of your own.)

Headless sets ``SDL_VIDEODRIVER=dummy`` before pygame is imported, opens no
window, draws every frame on an off-screen ``pygame.Surface`` and saves the
last one with ``pygame.image.save``. It prints one summary line (frames,
replans, catches, and ``blocked=`` the number of times the monster stood in,
or planned through, a blocked cell: always 0) and exits 0.

The level is built in code (a walled room with pillars and a long wall),
cell size 1 m. Every frame is 1/30 s. The player walks a loop of corners on
navkit paths; the monster replans toward the player every ``REPLAN_EVERY``
frames with ``Pathfinder.find_path(..., obstacles=circles)``; six circular
obstacles (crates, say) appear and disappear on seeded timers, and both
characters see them at their next plan. Deterministic: same seed, same run.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from navkit.errors import MissingExtraError
from navkit.grid import NavGrid
from navkit.query.pathfinder import Pathfinder
from navkit.results import PathResult

FPS = 30
DT = 1.0 / FPS
SCALE = 20  # pixels per cell
PLAYER_SPEED = 5.0  # m/s
MONSTER_SPEED = 4.4  # m/s
REPLAN_EVERY = 6  # frames
CATCH_DISTANCE = 0.9  # m
ROUTE = [(3.5, 3.5), (36.5, 3.5), (36.5, 24.5), (3.5, 24.5)]
MONSTER_SPAWN = (20.5, 14.5)


def build_level() -> NavGrid:
    """A 40 x 28 room (1 m cells): outer walls, a long wall with two gaps, pillars."""
    walk = np.ones((28, 40), dtype=bool)
    walk[0, :] = walk[-1, :] = False
    walk[:, 0] = walk[:, -1] = False
    walk[9, 6:34] = False  # a long wall...
    walk[9, 12:14] = walk[9, 26:28] = True  # ...with two doors
    walk[18, 8:20] = False
    walk[18:24, 20] = False
    for x in range(6, 36, 6):  # pillars
        walk[13:15, x:x + 2] = False
    walk[20:22, 28:32] = False
    return NavGrid(walk, cell_size=1.0, name="chase")


@dataclass
class Mover:
    """A character walking a list of world waypoints at a fixed speed."""

    pos: np.ndarray
    speed: float
    waypoints: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))

    def advance(self, dt: float) -> None:
        budget = self.speed * dt
        i = 0
        while i < len(self.waypoints) and budget > 0:
            d = self.waypoints[i] - self.pos
            dist = float(math.hypot(d[0], d[1]))
            if dist <= budget:
                self.pos = self.waypoints[i].astype(np.float64).copy()
                budget -= dist
                i += 1
            else:
                self.pos = self.pos + d * (budget / dist)
                budget = 0.0
        self.waypoints = self.waypoints[i:]


class Chase:
    """The game state and its fixed-step update (no pygame needed; see :meth:`step`)."""

    def __init__(self, seed: int = 7):
        self.grid = build_level()
        self.pf = Pathfinder(self.grid, "exact")
        rng = np.random.default_rng(seed)
        free = np.argwhere(self.grid.walkable)  # (z, x)
        pick = free[rng.choice(len(free), size=6, replace=False)]
        #: obstacle circles (x, z, radius) and their (period, phase) in frames
        self.circles = np.array([[x + 0.5, z + 0.5, 1.3] for z, x in pick], dtype=np.float64)
        self.timers = [(int(rng.integers(40, 100)), int(rng.integers(0, 100))) for _ in pick]
        self.player = Mover(np.array(ROUTE[0], dtype=np.float64), PLAYER_SPEED)
        self.monster = Mover(np.array(MONSTER_SPAWN, dtype=np.float64), MONSTER_SPEED)
        self.route_index = 1
        self.frame = 0
        self.replans = 0
        self.catches = 0
        self.blocked = 0  # times the monster stood in / planned through a blocked cell
        self.monster_path: PathResult | None = None
        self.steer: tuple[float, float] | None = None  # keyboard direction, interactive only

    # ----------------------------------------------------------------- state
    def active_circles(self) -> np.ndarray:
        """The circles present this frame, ``(k, 3)``."""
        on = [((self.frame + phase) // period) % 2 == 0 for period, phase in self.timers]
        return self.circles[np.array(on, dtype=bool)]

    def _covered(self, cells: np.ndarray, circles: np.ndarray) -> np.ndarray:
        """Which cells ``(n, 2)`` are walls or have their centre inside a circle (rules §7.1)."""
        bad = ~self.grid.walkable[cells[:, 1], cells[:, 0]]
        centres = self.grid.cells_to_world(cells)
        for cx, cz, r in circles:
            bad |= (centres[:, 0] - cx) ** 2 + (centres[:, 1] - cz) ** 2 < r * r - 1e-9
        return bad

    # ---------------------------------------------------------------- update
    def step(self) -> None:
        """One frame: timers, plans, movement, the catch check."""
        circles = self.active_circles()
        if self.steer is not None:
            self._steer_player()
        elif len(self.player.waypoints) == 0 or self.frame % 15 == 0:
            target = ROUTE[self.route_index]
            if math.dist(self.player.pos, target) < 0.2:
                self.route_index = (self.route_index + 1) % len(ROUTE)
                target = ROUTE[self.route_index]
            res = self.pf.find_path(self.player.pos, target, obstacles=circles)
            self.player.waypoints = res.waypoints if res else np.zeros((0, 2))
        if self.frame % REPLAN_EVERY == 0:
            res = self.pf.find_path(self.monster.pos, self.player.pos, obstacles=circles,
                                    nearest=True)
            self.replans += 1
            self.monster_path = res
            if res:
                self.blocked += int(np.count_nonzero(self._covered(res.cells, circles)))
                self.monster.waypoints = res.waypoints
            else:
                self.monster.waypoints = np.zeros((0, 2))
        if self.steer is None:
            self.player.advance(DT)
        self.monster.advance(DT)
        mx, mz = self.grid.world_to_cell(*self.monster.pos)
        if not (self.grid.in_bounds(mx, mz) and self.grid.is_walkable(mx, mz)):
            self.blocked += 1
        if math.dist(self.monster.pos, self.player.pos) < CATCH_DISTANCE:
            self.catches += 1
            self.monster = Mover(np.array(MONSTER_SPAWN, dtype=np.float64), MONSTER_SPEED)
        self.frame += 1

    def _steer_player(self) -> None:
        assert self.steer is not None
        nxt = self.player.pos + np.array(self.steer) * PLAYER_SPEED * DT
        cx, cz = self.grid.world_to_cell(*nxt)
        if self.grid.in_bounds(cx, cz) and self.grid.is_walkable(cx, cz):
            self.player.pos = nxt
        self.player.waypoints = np.zeros((0, 2))

    def summary(self) -> str:
        return (f"frames={self.frame} replans={self.replans} catches={self.catches} "
                f"caught={'yes' if self.catches else 'no'} blocked={self.blocked}")


# -------------------------------------------------------------------- drawing
def draw(screen: Any, game: Chase) -> None:
    """Draw the level, obstacles, the monster's plan and both characters."""
    import pygame

    from navkit.adapters.pygame import draw_grid, points_to_pixels, world_to_pixel

    g = game.grid
    draw_grid(screen, g, SCALE)
    for x, z, r in game.active_circles():
        pygame.draw.circle(screen, (170, 120, 60), world_to_pixel(g, (x, z), SCALE),
                           int(r * SCALE))
    if game.monster_path:
        line = [world_to_pixel(g, game.monster.pos, SCALE)]
        line += points_to_pixels(g, game.monster.waypoints, SCALE)
        if len(line) >= 2:
            pygame.draw.lines(screen, (220, 60, 60), False, line, 2)
    if len(game.player.waypoints):
        line = [world_to_pixel(g, game.player.pos, SCALE)]
        line += points_to_pixels(g, game.player.waypoints, SCALE)
        if len(line) >= 2:
            pygame.draw.lines(screen, (60, 110, 220), False, line, 1)
    pygame.draw.circle(screen, (40, 90, 210), world_to_pixel(g, game.player.pos, SCALE),
                       int(0.45 * SCALE))
    pygame.draw.circle(screen, (200, 30, 30), world_to_pixel(g, game.monster.pos, SCALE),
                       int(0.5 * SCALE))


def _import_pygame(headless: bool) -> Any:
    if headless:
        os.environ["SDL_VIDEODRIVER"] = "dummy"  # before pygame is imported
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
    except ImportError:
        raise MissingExtraError("navkit.examples.engines.pygame_chase", "pygame",
                                "pygame") from None
    return pygame


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--headless", action="store_true", help="no window (SDL dummy driver)")
    ap.add_argument("--frames", type=int, default=None,
                    help="stop after N frames (default: 300 headless, until closed otherwise)")
    ap.add_argument("--png", default=None, help="save the last frame to this PNG")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    pygame = _import_pygame(args.headless)
    frames = args.frames if args.frames is not None else (300 if args.headless else None)
    game = Chase(args.seed)
    size = (game.grid.width * SCALE, game.grid.depth * SCALE)
    pygame.init()
    try:
        if args.headless:
            screen = pygame.Surface(size)
            while frames is None or game.frame < frames:
                game.step()
            draw(screen, game)
        else:
            screen = pygame.display.set_mode(size)
            pygame.display.set_caption("navkit chase")
            clock = pygame.time.Clock()
            running = True
            while running and (frames is None or game.frame < frames):
                for event in pygame.event.get():
                    if event.type == pygame.QUIT or (
                            event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE):
                        running = False
                keys = pygame.key.get_pressed()
                dx = keys[pygame.K_RIGHT] - keys[pygame.K_LEFT]
                dz = keys[pygame.K_DOWN] - keys[pygame.K_UP]
                n = math.hypot(dx, dz)
                game.steer = (dx / n, dz / n) if n else None
                game.step()
                draw(screen, game)
                pygame.display.flip()
                clock.tick(FPS)
        if args.png:
            pygame.image.save(screen, args.png)
    finally:
        pygame.quit()
    print(game.summary())
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except MissingExtraError as exc:  # one line naming the extra, not a traceback
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
