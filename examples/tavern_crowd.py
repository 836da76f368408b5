"""A small crowd in a two-floor building: ``python examples/tavern_crowd.py --out out``.

Twelve characters in the bundled ``tavern.json``: six start in the taproom and
go to the rooms upstairs (by the stairs or the ladder, whichever is cheaper),
six start upstairs and come down (one jumps out of the window). The run is
deterministic; it prints the link events and writes ``OUT/tavern_crowd.png``
(every floor side by side, each character's trail in its own colour).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import navkit
from navkit.floors.render import render_building
from navkit.floors.sim import BuildingSim
from navkit.render import save_png

GOALS_UP = [(14.9, 1.0), (16.6, 1.0), (14.9, 3.8), (16.6, 3.8), (14.9, 6.2), (16.6, 9.2)]
UP = [((1.5 + i, 0.0, 4.5), (gx, 3.2, gz)) for i, (gx, gz) in enumerate(GOALS_UP)]
DOWN = [((10.0 + (i % 3), 3.2, 6.5 + 1.2 * (i // 3)), (2.0 + i, 0.0, 8.8)) for i in range(5)]
JUMPER = ((17.0, 3.2, 3.5), (18.5, 0.0, 8.5))


def run(ticks: int = 900) -> tuple[BuildingSim, list[tuple[np.ndarray, np.ndarray]], list[str],
                                   np.ndarray]:
    """Run the scene; returns the simulation, each character's trail (positions
    ``(ticks + 1, 3)`` and floors), the event log and a ``(ticks + 1, n)`` mask
    of who rides a link at each tick (stable-ID order)."""
    sim = BuildingSim(navkit.examples.path("tavern.json"))
    orders = [(f"up{i}", a, b) for i, (a, b) in enumerate(UP)]
    orders += [(f"down{i}", a, b) for i, (a, b) in enumerate(DOWN)]
    orders.append(("jumper", *JUMPER))
    for sid, start, _ in orders:
        sim.add_character(sid, position=start)
    for sid, _, goal in orders:
        sim.set_target(sid, goal)
    ids = sim.ids
    pos = np.zeros((ticks + 1, len(ids), 3))
    fl = np.zeros((ticks + 1, len(ids)), dtype=np.int64)
    pos[0] = sim.positions()
    fl[0] = [sim.floor_of(i) for i in ids]
    riding = np.zeros((ticks + 1, len(ids)), dtype=bool)
    log = []
    for t in range(1, ticks + 1):
        ev = sim.step()
        for kind, items in (("entered", ev.entered), ("left", ev.left)):
            for e in items:
                log.append(f"tick {e.tick:4d}: {e.character} {kind} {e.link}")
        for c in ev.arrived:
            log.append(f"tick {ev.tick:4d}: {c} arrived")
        pos[t] = sim.positions()
        fl[t] = [sim.floor_of(i) for i in ids]
        riding[t] = [sim.phase(i) == "riding" for i in ids]
    trails = [(pos[:, j], fl[:, j]) for j in range(len(ids))]
    return sim, trails, log, riding


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("out"), help="folder for the PNG")
    ap.add_argument("--ticks", type=int, default=900, help="ticks to run (20 per second)")
    args = ap.parse_args()
    sim, trails, log, _ = run(args.ticks)
    print("\n".join(log))
    arrived = sum(1 for line in log if line.endswith("arrived"))
    print(f"{arrived} of {len(sim.ids)} characters arrived in {args.ticks} ticks")
    out = save_png(render_building(sim.building, trails=trails, scale=6),
                   args.out / "tavern_crowd.png")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
