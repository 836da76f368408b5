"""Procedural worlds: chunk generators usable as a :class:`~navkit.world.ChunkStore` source.

:func:`rooms` makes a world of open fields, seas, marshes, forests and
buildings. It is stateless and hash-based (kernel
:mod:`navkit._kernels.world_gen`): chunk ``(cx, cz)`` is the same whatever
order chunks are made in, on every machine. Layout (docs/worlds.md):

* the world is cut in chunks; a 4 x 4 block of chunks is sea (all blocked)
  with probability ``sea`` per mille, except the road rows and columns
  (``cx % 8 == 0`` or ``cz % 8 == 0``), which are never sea;
* each other chunk is buildings (``rooms`` per mille: walls on an 8- or
  16-cell lattice, a two-cell door in every wall segment), forest (``forest``:
  single-cell trees on a 3-cell lattice, weight-3 undergrowth when
  ``weights``), marsh (``marsh``: uniform weight 4 when ``weights``, else
  field) or open field (uniform weight 1);
* mixed chunks keep their outer ring of cells walkable, so any two
  neighbouring non-sea chunks connect and long cross-world paths exist.

>>> gen = rooms(seed=1, width=256, depth=256)
>>> a = gen(3, 5, 64)
>>> a.shape, a.dtype.name, bool((a == gen(3, 5, 64)).all())
((64, 64), 'uint16', True)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError

__all__ = ["RoomsGenerator", "rooms", "GENERATORS", "parse_procedural", "warm_up"]

_UNIFORM_OF_KIND = {0: 1, 1: 0}  # field, sea; marsh depends on weights


@dataclass(frozen=True)
class RoomsGenerator:
    """The ``rooms`` generator (see the module docstring); a picklable callable
    ``(cx, cz, chunk) -> uint16 (chunk, chunk)``."""

    seed: int = 0
    width: int = 4096
    depth: int = 4096
    sea: int = 250
    rooms: int = 120
    forest: int = 100
    marsh: int = 60
    weights: bool = True

    #: Bumped whenever the layout changes (part of the fingerprint).
    version = 1
    name = "rooms"

    def __post_init__(self) -> None:
        for f in ("seed", "width", "depth", "sea", "rooms", "forest", "marsh"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise ConfigError(f"expected an int, got {v!r}", field=f)
        if not 0 <= self.seed < 1 << 63:
            raise ConfigError(f"must lie in [0, 2**63), got {self.seed}", field="seed")
        for f in ("width", "depth"):
            if not 1 <= getattr(self, f) <= 1 << 40:
                raise ConfigError(f"must lie in [1, 2**40], got {getattr(self, f)}", field=f)
        for f in ("sea", "rooms", "forest", "marsh"):
            if not 0 <= getattr(self, f) <= 1000:
                raise ConfigError(f"per-mille share must lie in [0, 1000], got "
                                  f"{getattr(self, f)}", field=f)
        if self.rooms + self.forest + self.marsh > 1000:
            raise ConfigError("rooms + forest + marsh must not exceed 1000 per mille",
                              field="rooms")

    @property
    def params(self) -> dict[str, Any]:
        """The JSON parameters (part of the fingerprint)."""
        return {k: (bool(v) if k == "weights" else int(v)) for k, v in asdict(self).items()}

    @property
    def weighted(self) -> bool:
        """True when some cells may carry a weight other than 1."""
        return bool(self.weights) and (self.forest > 0 or self.marsh > 0)

    @property
    def min_weight(self) -> int:
        """A lower bound of the walkable weights (1)."""
        return 1

    def kinds(self, cxs: NDArray[np.int64], czs: NDArray[np.int64]) -> NDArray[np.int32]:
        """The kind code of each chunk (:mod:`navkit._kernels.world_gen`)."""
        from .._kernels.world_gen import gen_kinds

        cxs = np.ascontiguousarray(cxs, dtype=np.int64)
        czs = np.ascontiguousarray(czs, dtype=np.int64)
        out = np.empty(cxs.shape[0], dtype=np.int32)
        gen_kinds(cxs, czs, np.uint64(self.seed), int(self.sea), int(self.rooms),
                  int(self.forest), int(self.marsh), out)
        return out

    def uniform_batch(self, cxs: NDArray[np.int64], czs: NDArray[np.int64],
                      chunk: int) -> NDArray[np.int32]:
        """Per chunk its uniform value, or -1 for a mixed chunk (no cells made)."""
        k = self.kinds(cxs, czs)
        out = np.full(k.shape[0], -1, dtype=np.int32)
        out[k == 0] = 1
        out[k == 1] = 0
        out[k == 4] = 4 if self.weights else 1
        return out

    def uniform_value(self, cx: int, cz: int, chunk: int) -> int | None:
        """Chunk ``(cx, cz)``'s value when uniform, else None (no cells made)."""
        v = int(self.uniform_batch(np.array([cx]), np.array([cz]), chunk)[0])
        return None if v < 0 else v

    def __call__(self, cx: int, cz: int, chunk: int) -> NDArray[np.uint16]:
        from .._kernels.world_gen import gen_chunk

        kind = int(self.kinds(np.array([cx]), np.array([cz]))[0])
        out = np.empty((chunk, chunk), dtype=np.uint16)
        gen_chunk(int(cx), int(cz), int(chunk), np.uint64(self.seed), kind,
                  1 if self.weights else 0, out)
        return out


def rooms(*, seed: int = 0, width: int = 4096, depth: int = 4096, sea: int = 250,
          rooms: int = 120, forest: int = 100, marsh: int = 60,
          weights: bool = True) -> RoomsGenerator:
    """The ``rooms`` world generator (see the module docstring).

    ``width`` / ``depth`` in cells; ``sea``, ``rooms``, ``forest``, ``marsh``
    are per-mille shares; ``weights`` False makes every walkable cell weight 1.
    """
    return RoomsGenerator(seed=seed, width=width, depth=depth, sea=sea, rooms=rooms,
                          forest=forest, marsh=marsh, weights=bool(weights))


#: Generator name -> factory, for ``procedural:NAME?k=v&...`` sources.
GENERATORS = {"rooms": rooms}


def parse_procedural(text: str) -> RoomsGenerator:
    """``procedural:rooms?seed=1&width=100000&depth=100000`` -> the generator.

    Values are integers (``weights`` takes 0/1/true/false). Unknown names or
    keys raise :class:`~navkit.errors.ConfigError` naming them.

    >>> parse_procedural("procedural:rooms?seed=7&width=100").params["seed"]
    7
    """
    if not text.startswith("procedural:"):
        raise ConfigError(f"expected procedural:NAME?k=v&..., got {text!r}", field="source")
    body = text[len("procedural:"):]
    name, _, query = body.partition("?")
    if name not in GENERATORS:
        raise ConfigError(f"no generator called {name!r} (known: {', '.join(GENERATORS)})",
                          field="source")
    kwargs: dict[str, Any] = {}
    allowed = set(RoomsGenerator.__dataclass_fields__)
    for part in filter(None, query.split("&")):
        key, eq, value = part.partition("=")
        if not eq or key not in allowed:
            raise ConfigError(f"unknown or malformed parameter {part!r} "
                              f"(known: {', '.join(sorted(allowed))})", field="source")
        if key == "weights":
            if value.lower() not in ("0", "1", "true", "false"):
                raise ConfigError(f"weights must be 0/1/true/false, got {value!r}",
                                  field="source")
            kwargs[key] = value.lower() in ("1", "true")
        else:
            try:
                kwargs[key] = int(value.replace("_", ""), 10)
            except ValueError:
                raise ConfigError(f"{key} must be an integer, got {value!r}",
                                  field="source") from None
    return GENERATORS[name](**kwargs)


def warm_up() -> None:
    """Compile (or load) the world kernels: the ``world`` group of ``navkit warmup``."""
    gen = rooms(seed=1, width=1024, depth=1024)
    kinds = gen.kinds(np.arange(64, dtype=np.int64), np.zeros(64, dtype=np.int64))
    for k in range(5):
        hit = np.flatnonzero(kinds == k)
        if hit.size:
            gen(int(hit[0]), 0, 64)
