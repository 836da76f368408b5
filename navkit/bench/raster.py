"""Timing of :func:`~navkit.level.rasterize` on a large synthetic level.

:func:`benchmark_level` builds the level, :func:`benchmark_rasterize` times
it; ``navkit bench level`` (:mod:`navkit.bench.level`) reports the figure.

>>> cfg = benchmark_level(seed=1, size=100, n_obstacles=20)
>>> cfg.grid_geometry().width, cfg.grid_geometry().depth
(100, 100)
"""

from __future__ import annotations

import math
import statistics
import time
from typing import Any

import numpy as np

from ..level import AreaConfig, LevelConfig, ObstacleConfig, rasterize

__all__ = ["benchmark_level", "benchmark_rasterize"]


def _star(
    rng: np.random.Generator, cx: float, cz: float, r_lo: float, r_hi: float, n: int
) -> tuple[tuple[float, float], ...]:
    """A star-shaped (so simple) polygon: increasing angles, random radii."""
    # one jittered angle per sector: strictly increasing within [0, 2 pi)
    ang = (np.arange(n) + rng.uniform(0.1, 0.9, n)) * (2.0 * math.pi / n)
    rad = rng.uniform(r_lo, r_hi, n)
    return tuple(
        (float(cx + r * math.cos(a)), float(cz + r * math.sin(a)))
        for a, r in zip(ang, rad, strict=True)
    )


def benchmark_level(seed: int = 0, size: int = 1000, n_obstacles: int = 200) -> LevelConfig:
    """A deterministic level rasterizing to ``size x size`` cells (cellSize 0.4).

    A large concave ground area with lake holes, overlapping weighted terrain
    areas (grass 2, mud 4), a closed door area, ``boundaryPadding`` 0.2 and
    ``n_obstacles`` star-shaped obstacles (5-12 vertices, 0.5-4 m).
    """
    rng = np.random.default_rng(seed)
    cs = 0.4
    agent, pad = 0.45, 0.25
    margin = 2 * cs + agent + pad
    extent = size * cs - 2 * margin - 1e-6  # width = ceil((extent + 2 margin) / cs) = size
    e = extent
    ground_shell = (
        (0.0, 0.0),
        (e, 0.0),
        (e, 0.55 * e),
        (0.7 * e, 0.6 * e),
        (e, 0.65 * e),
        (e, e),
        (0.0, e),
        (0.05 * e, 0.5 * e),
    )
    holes = (
        _star(rng, 0.3 * e, 0.3 * e, 0.03 * e, 0.08 * e, 24),
        _star(rng, 0.75 * e, 0.85 * e, 0.02 * e, 0.06 * e, 16),
    )
    areas = [AreaConfig("ground", ground_shell, holes)]
    for i in range(6):
        c = rng.uniform(0.15 * e, 0.85 * e, 2)
        areas.append(
            AreaConfig(
                f"terrain_{i}",
                _star(rng, float(c[0]), float(c[1]), 0.03 * e, 0.12 * e, 12),
                weight=int(rng.choice([2, 4])),
            )
        )
    areas.append(
        AreaConfig(
            "door", ((e * 0.5, -0.0), (e * 0.52, 0.0), (e * 0.52, 0.02 * e)), available=False
        )
    )
    obstacles = []
    for i in range(n_obstacles):
        c = rng.uniform(0.0, e, 2)
        obstacles.append(
            ObstacleConfig(
                f"obstacle_{i}",
                _star(rng, float(c[0]), float(c[1]), 0.5, 4.0, int(rng.integers(5, 13))),
            )
        )
    return LevelConfig(
        areas=tuple(areas),
        obstacles=tuple(obstacles),
        cell_size=cs,
        agent_radius=agent,
        object_padding=pad,
        boundary_padding=0.2,
        name=f"bench_{size}",
    )


def benchmark_rasterize(
    seed: int = 0, size: int = 1000, n_obstacles: int = 200, repeat: int = 5
) -> dict[str, Any]:
    """Time :func:`rasterize` on :func:`benchmark_level` (after one warm-up call).

    Returns ``{"seconds": best, "median_seconds", "repeat", "width", "depth",
    "cells", "obstacles", "walkable_fraction"}``; times are wall-clock seconds
    of the whole ``rasterize`` call (packing, kernels, NavGrid construction).
    """
    cfg = benchmark_level(seed, size, n_obstacles)
    grid = rasterize(cfg)  # warm-up: numba compile / cache load
    times = []
    for _ in range(max(1, repeat)):
        t = time.perf_counter()
        grid = rasterize(cfg)
        times.append(time.perf_counter() - t)
    return {
        "seconds": min(times),
        "median_seconds": statistics.median(times),
        "repeat": len(times),
        "width": grid.width,
        "depth": grid.depth,
        "cells": grid.size,
        "obstacles": len(cfg.obstacles),
        "walkable_fraction": float(grid.walkable.mean()),
    }


if __name__ == "__main__":  # pragma: no cover
    print(benchmark_rasterize())
