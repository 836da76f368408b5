"""Worlds larger than memory: chunked cell stores, baked ``.nkw`` files, procedural sources.

See docs/worlds.md and docs/world-queries.md. :class:`World` answers path
queries on a world (bounded local searches, :data:`BOUNDED`, and a hierarchy
over chunks for long ones); :class:`ChunkStore` is the store; :func:`bake` writes a
``.nkw`` file from a grid, a generator or a map file; :func:`is_stale` says
whether a baked file still matches its source; :func:`rooms` is a procedural
generator.
"""

from __future__ import annotations

from .bake import (
    BakeReport,
    BakeSpec,
    BatchResult,
    bake,
    encode_batch,
    is_stale,
    serial_map_batches,
)
from .local import BOUNDED, PRESETS, QueryPreset
from .procedural import RoomsGenerator, parse_procedural, rooms
from .sources import GeneratorSpec, GridSpec, resolve_source
from .store import ChunkStore, StoreStats
from .world import World, WorldStats

__all__ = [
    "World",
    "WorldStats",
    "BOUNDED",
    "PRESETS",
    "QueryPreset",
    "ChunkStore",
    "StoreStats",
    "bake",
    "BakeReport",
    "BakeSpec",
    "BatchResult",
    "encode_batch",
    "serial_map_batches",
    "is_stale",
    "rooms",
    "RoomsGenerator",
    "parse_procedural",
    "resolve_source",
    "GridSpec",
    "GeneratorSpec",
]
