"""``navkit sim``: run a character simulation scene for N ticks.

::

    navkit sim SCENE.json --ticks N [--avoidance orca|none] [--save STATE.json]
               [--record REPLAY.jsonl] [--record-queries FILE.jsonl] [--png OUT.png] [--json]

Prints a summary: arrivals, blocked stops, retries, replans, the closest
approach between contact circles (smallest ``distance - r_i - r_j`` seen
after any tick; never negative unless characters spawned overlapping), and
the mean and p99 tick time (planning included; the numba kernels are loaded
before the clock starts). ``--save`` writes the final state (a scene that
continues exactly where this run stopped), ``--record`` one JSON line per
tick (:mod:`navkit.sim.replay`), ``--record-queries`` every plan as a query
corpus line (:mod:`navkit.corpus`, ``navkit replay``), ``--png`` the map with every character's
trail and final contact circle. ``--avoidance`` replaces the scene's
``avoidance`` (docs/rules.md §9.6: ``orca`` or ``none``).
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from ..errors import ConfigError
from .common import emit_json, num

__all__ = ["sim_cmd", "run_scene", "draw_location", "MAX_RUN_TICKS"]

#: Most ticks one ``navkit sim`` run takes (the tick times it keeps for the
#: summary's p99 are 8 bytes a tick: 80 MB); a longer run continues from a
#: ``--save``-d state.
MAX_RUN_TICKS = 10_000_000


def run_scene(
    scene: Path,
    ticks: int,
    *,
    save: Path | None = None,
    record: Path | None = None,
    png: Path | None = None,
    progress: bool = False,
    avoidance: str | None = None,
    record_queries: Path | None = None,
) -> dict[str, Any]:
    """Load ``scene``, run ``ticks`` ticks and return the summary dict
    (``avoidance``: replaces the scene's avoidance mode). ``ticks`` outside
    ``0 ..`` :data:`MAX_RUN_TICKS`, or past the scene's largest tick, raise
    :class:`~navkit.errors.ConfigError` (field ``ticks``)."""
    from ..sim import ReplayWriter, load_scene, warm_up
    from ..sim.schema import MAX_TICK

    if (isinstance(ticks, bool) or not isinstance(ticks, (int, np.integer))
            or not 0 <= ticks <= MAX_RUN_TICKS):
        raise ConfigError(f"expected an integer in [0, {MAX_RUN_TICKS:,}], got {ticks!r}",
                          field="ticks")
    ticks = int(ticks)
    loc = load_scene(scene)
    if loc.tick + ticks > MAX_TICK:
        raise ConfigError(f"the scene is at tick {loc.tick:,}: {ticks:,} more would pass the "
                          f"largest tick {MAX_TICK:,}", field="ticks")
    if avoidance is not None:
        loc.set_avoidance(avoidance)
    warm_up()
    start_tick = loc.tick
    start_stats = loc.stats.to_json_dict()
    times = np.zeros(ticks, dtype=np.float64)
    trails: list[list[tuple[float, float]]] | None = None
    if png is not None:
        trails = [[p] for p in map(tuple, loc.positions())]
    writer = ReplayWriter(record, loc) if record is not None else None
    recorder = loc.record_queries(record_queries) if record_queries is not None else None
    counts = {"arrivals": 0, "blockedStops": 0, "retries": 0, "replans": 0, "interactions": 0,
              "gaveUp": 0}
    min_gap = math.inf
    prog = Progress(TextColumn("sim"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                    console=Console(file=sys.stderr), transient=True, disable=not progress)
    try:
        with prog:
            task = prog.add_task("ticks", total=ticks)
            for k in range(ticks):
                t0 = time.perf_counter()
                ev = loc.step()
                times[k] = (time.perf_counter() - t0) * 1000.0
                counts["arrivals"] += len(ev.arrived)
                counts["blockedStops"] += len(ev.blocked_stops)
                counts["retries"] += len(ev.retries)
                counts["replans"] += ev.replans
                counts["interactions"] += len(ev.interactions)
                counts["gaveUp"] += len(ev.gave_up)
                min_gap = min(min_gap, ev.min_gap)
                if writer is not None:
                    writer.record(ev)
                if trails is not None:
                    pos = loc.positions()
                    if len(pos) == len(trails):
                        for tr, p in zip(trails, pos, strict=True):
                            tr.append((float(p[0]), float(p[1])))
                prog.advance(task)
    finally:
        if writer is not None:
            writer.close()
        if recorder is not None:
            recorder.close()
    if save is not None:
        loc.save(save)
    if png is not None:
        from ..render import save_png

        save_png(draw_location(loc, trails), png)
    moving = sum(1 for c in loc.characters if c.is_moving())
    return {
        "scene": str(scene),
        "characters": len(loc),
        "startTick": start_tick,
        "endTick": loc.tick,
        "ticks": ticks,
        "tickRate": loc.tick_rate,
        "avoidance": loc.avoidance,
        **counts,
        "closestApproach": num(min_gap),
        "stillMoving": moving,
        "meanTickMs": float(times.mean()) if ticks else None,
        "p99TickMs": float(np.percentile(times, 99)) if ticks else None,
        "maxTickMs": float(times.max()) if ticks else None,
        "totals": loc.stats.to_json_dict(),
        "totalsBefore": start_stats,
        "save": None if save is None else str(save),
        "record": None if record is None else str(record),
        "png": None if png is None else str(png),
        **({} if recorder is None else {"recordQueries": str(record_queries),
                                        "queriesRecorded": recorder.count}),
    }


def draw_location(loc: Any, trails: list[list[tuple[float, float]]] | None = None) -> Any:
    """The map with character trails (one colour each) and final contact circles."""
    from PIL import ImageDraw

    from ..render import PATH_COLORS, auto_scale, render_grid

    grid = loc.map.grid
    scale = auto_scale(grid.width, grid.depth)
    paths = []
    if trails is not None:
        for tr in trails:
            arr = np.asarray(tr, dtype=np.float64)
            # drop repeated points: a long standing trail draws as one dot
            keep = np.ones(len(arr), dtype=bool)
            keep[1:] = np.any(arr[1:] != arr[:-1], axis=1)
            paths.append(arr[keep])
    image = render_grid(grid, scale=scale, paths=paths) if paths else render_grid(grid, scale=scale)
    draw = ImageDraw.Draw(image)
    px = scale / grid.cell_size
    for i, (p, r) in enumerate(zip(loc.positions(), loc.contact_radii(), strict=True)):
        cx = (p[0] - grid.min_x) * px
        cz = (p[1] - grid.min_z) * px
        rr = max(1.5, r * px)
        draw.ellipse((cx - rr, cz - rr, cx + rr, cz + rr), outline=(0, 0, 0),
                     fill=PATH_COLORS[i % len(PATH_COLORS)], width=1)
    return image


def _print_summary(s: dict[str, Any]) -> None:
    con = Console(file=sys.stdout, highlight=False, soft_wrap=False)
    table = Table(title=escape(f"navkit sim {s['scene']}"), show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    table.add_row("characters", f"{s['characters']}")
    table.add_row("ticks", f"{s['ticks']} ({s['startTick']} -> {s['endTick']} at "
                           f"{s['tickRate']:g} Hz)")
    table.add_row("avoidance", f"{s['avoidance']}")
    table.add_row("arrivals", f"{s['arrivals']}")
    table.add_row("blocked stops", f"{s['blockedStops']}")
    table.add_row("retries", f"{s['retries']}")
    table.add_row("replans", f"{s['replans']}")
    if s["interactions"]:
        table.add_row("interactions", f"{s['interactions']}")
    if s["gaveUp"]:
        table.add_row("gave up", f"{s['gaveUp']}")
    ca = s["closestApproach"]
    table.add_row("closest approach",
                  "n/a (no neighbours)" if ca is None else f"{ca:.4f} m between contact circles")
    table.add_row("still moving", f"{s['stillMoving']}")
    if s["meanTickMs"] is not None:
        table.add_row("tick time", f"mean {s['meanTickMs']:.3f} ms, p99 {s['p99TickMs']:.3f} ms, "
                                   f"max {s['maxTickMs']:.3f} ms")
    for key, label in (("save", "state"), ("record", "replay"), ("png", "image")):
        if s[key]:
            table.add_row(label, escape(s[key]))
    con.print(table)


def sim_cmd(
    scene: Annotated[Path, typer.Argument(
        metavar="SCENE.json", help="Scene or saved state file.")],
    ticks: Annotated[int, typer.Option(
        "--ticks", min=0, max=MAX_RUN_TICKS, metavar="N",
        help="Ticks to run (at most 10,000,000 a run; --save and run on for more).")],
    save: Annotated[Path | None, typer.Option(
        "--save", metavar="STATE.json",
        help="Write the final state (a scene that continues exactly).")] = None,
    record: Annotated[Path | None, typer.Option(
        "--record", metavar="REPLAY.jsonl", help="Write one JSON line per tick.")] = None,
    png: Annotated[Path | None, typer.Option(
        "--png", metavar="OUT.png",
        help="Draw the map, trails and final contact circles.")] = None,
    record_queries: Annotated[Path | None, typer.Option(
        "--record-queries", metavar="FILE.jsonl",
        help="Write every path query to a corpus for `navkit replay`.")] = None,
    avoidance: Annotated[str | None, typer.Option(
        "--avoidance", metavar="orca|none",
        help="Local avoidance (docs/rules.md §9.6); default: the scene's (none).")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print one JSON object instead of a table.")] = False,
) -> None:
    """Run a character simulation scene and print a summary."""
    if avoidance is not None and avoidance not in ("orca", "none"):
        raise typer.BadParameter(f"expected orca or none, got {avoidance!r}",
                                 param_hint="--avoidance")
    summary = run_scene(scene, ticks, save=save, record=record, png=png,
                        progress=not as_json and sys.stderr.isatty(), avoidance=avoidance,
                        record_queries=record_queries)
    if as_json:
        emit_json(summary)
    else:
        _print_summary(summary)
