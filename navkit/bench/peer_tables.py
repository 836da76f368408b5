"""The peer benchmark's output: one table per map, how each peer is called, the targets, JSON.

Figures come from :mod:`navkit.bench.peers`; nothing here measures.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import fmt_ratio, fmt_us
from .jit import TARGET_FIRST_CALL_S
from .libraries import PeerResult

__all__ = [
    "TARGET_MAPS",
    "TARGET_RATIO",
    "NOTE",
    "PEER_SETUP",
    "map_table",
    "print_setup",
    "target_rows",
    "print_summary",
    "json_default",
]

#: Maps with a speed target: navkit A* at least ``TARGET_RATIO`` times faster than pyastar2d.
TARGET_MAPS = ("den520d", "AR0011SR", "maze512-1-0", "random512-10-0")
TARGET_RATIO = 2.0

#: Printed under the tables and stored in the JSON.
NOTE = (
    "pyastar2d charges a diagonal step like a straight one (cost 1, not sqrt(2)) and also cuts "
    "corners; tcod "
    "(AStar, diagonal 1.41, and Pathfinder) and scikit-image MCP_Geometric cut corners. "
    "They answer an easier question than navkit (exact sqrt(2) diagonals, no corner "
    "cutting), so their 'optimal' counts are low by design."
)


def map_table(res: dict[str, Any]) -> Any:
    """The rich table of one map's results (:func:`navkit.bench.peers.bench_map`)."""
    from rich.table import Table

    nav = res["navkit"]
    w, h = res["size"]
    notes = []
    if nav.get("median_expanded") is not None:
        notes.append(
            f"navkit A*: median {nav['median_expanded']:,.0f} nodes expanded, "
            f"{nav['ns_per_expansion']:.0f} ns per expansion"
        )
    for row in res["peers"]:
        if row.status != "ok":
            continue
        if "threads" in row.extra:
            notes.append(f"batch: {row.extra['threads']} threads")
        if row.peer == "pathfinding A* (search)" and row.extra.get("median_build_us") is not None:
            notes.append(f"pathfinding Grid build {row.extra['median_build_us'] / 1e3:,.0f} ms")
        if "graph_build_s" in row.extra:
            notes.append(f"networkx graph build {row.extra['graph_build_s']:.2f} s (untimed)")
    table = Table(
        title=(f"{res['map']} ({w}x{h}): {res['queries']} queries of {res['scenario_lines']} "
               "scenario lines"),
        caption="; ".join(notes),
    )
    table.add_column("peer")
    table.add_column("queries", justify="right")
    table.add_column("median us", justify="right")
    table.add_column("peer/navkit", justify="right")
    table.add_column("optimal", justify="right")
    table.add_column("valid", justify="right")
    table.add_column("len = opt", justify="right")
    for row in res["peers"]:
        if row.status != "ok":
            table.add_row(row.peer, "-", row.status, "-", "-", "-", "-", style="dim")
            continue
        table.add_row(
            row.peer,
            str(row.run),
            fmt_us(row.median_us),
            fmt_ratio(row.ratio),
            f"{row.optimal}/{row.run}",
            f"{row.valid}/{row.run}",
            f"{row.length_match}/{row.run}",
        )
    return table


#: (peer, how it is called): the "How each peer is called" table.
PEER_SETUP = (
    ("navkit A*", "Pathfinder(grid, costs='exact').find_path_cells, after one warm-up query"),
    ("navkit batch",
     "find_paths_cells over all queries; whole-call wall time / n, median of 3 calls"),
    ("pyastar2d",
     "astar_path(float32 weights, inf = blocked, allow_diagonal=True); (row, col) order"),
    ("tcod AStar", "tcod.path.AStar(cost[x, y], diagonal=1.41).get_path"),
    ("tcod Pathfinder",
     "SimpleGraph(cardinal=1000, diagonal=1414) once; new Pathfinder + add_root + path_to"),
    ("pathfinding (search)",
     "AStarFinder(only_when_no_obstacle); Grid reused, cleanup() + find_path timed"),
    ("pathfinding (+Grid build)", "the same search plus building Grid(matrix) for the query"),
    ("networkx A*", "astar_path_length, octile heuristic, no-corner-cutting graph; build untimed"),
    ("scikit-image MCP", "MCP_Geometric(inf = blocked) once; find_costs + traceback per query"),
)


def print_setup(console: Any) -> None:
    """Print :data:`PEER_SETUP`."""
    from rich.table import Table

    t = Table(title="How each peer is called", show_header=False, box=None)
    t.add_column("peer", style="bold")
    t.add_column("call", overflow="fold")
    for name, how in PEER_SETUP:
        t.add_row(name, how)
    console.print(t)


def target_rows(maps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per :data:`TARGET_MAPS` map that ran: navkit A* against pyastar2d, PASS / MISS."""
    out = []
    for res in maps:
        if res["map"] not in TARGET_MAPS:
            continue
        py = next((r for r in res["peers"] if r.peer == "pyastar2d"), None)
        ratio = py.ratio if py is not None and py.status == "ok" else None
        out.append(
            {
                "map": res["map"],
                "target": f"navkit A* >= {TARGET_RATIO:g}x faster than pyastar2d",
                "ratio_pyastar2d_over_navkit": ratio,
                "navkit_median_us": res["navkit"]["median_us"],
                "pyastar2d_median_us": py.median_us if py is not None else None,
                "result": "n/a" if ratio is None else ("PASS" if ratio >= TARGET_RATIO else "MISS"),
            }
        )
    return out


def print_summary(console: Any, targets: list[dict[str, Any]], jit: dict[str, Any] | None) -> None:
    """Print the targets table and, when measured, the JIT start-up table."""
    from rich.table import Table

    if targets:
        t = Table(title=f"Targets: navkit A* at least {TARGET_RATIO:g}x faster than pyastar2d")
        for col in ("map", "navkit us", "pyastar2d us", "pyastar2d/navkit", "result"):
            t.add_column(col, justify="left" if col == "map" else "right")
        for row in targets:
            style = {"PASS": "green", "MISS": "red"}.get(row["result"], "dim")
            t.add_row(
                row["map"],
                fmt_us(row["navkit_median_us"]),
                fmt_us(row["pyastar2d_median_us"]),
                fmt_ratio(row["ratio_pyastar2d_over_navkit"]),
                f"[{style}]{row['result']}[/{style}]",
            )
        console.print(t)
    if jit is not None:
        t = Table(title="JIT: first use of navkit in a new process")
        t.add_column("case")
        t.add_column("import navkit", justify="right")
        t.add_column("first query", justify="right")
        t.add_column("second query", justify="right")
        t.add_column("first batch", justify="right")
        t.add_column("target")
        for label, key, target in (
            ("cold: fresh NUMBA_CACHE_DIR, compiles", "cold", "-"),
            ("warm cache: second of two runs", "warm", f"first query <= {TARGET_FIRST_CALL_S:g} s"),
        ):
            fig = jit[key]
            if "error" in fig:
                t.add_row(label, "-", "-", "-", "-", f"error: {fig['error']}")
                continue
            verdict = target
            if key == "warm":
                ok = jit.get("warm_first_call_pass")
                verdict += " [green]PASS[/green]" if ok else " [red]MISS[/red]"
            t.add_row(
                label,
                f"{fig['import_s']:.2f} s",
                f"{fig['first_query_s']:.3f} s",
                f"{fig['second_query_s'] * 1e3:.2f} ms",
                f"{fig['first_batch_s']:.3f} s",
                verdict,
            )
        console.print(t)


def json_default(obj: Any) -> Any:
    """``json.dumps(default=...)`` for the results: PeerResult rows and numpy values."""
    if isinstance(obj, PeerResult):
        return obj.to_json()
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"cannot serialise {type(obj).__name__}")

