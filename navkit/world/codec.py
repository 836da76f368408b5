"""Chunk codecs of the baked world file (``.nkw``): compress / decompress one chunk.

A chunk's payload is its ``(chunk, chunk)`` uint16 cells, little-endian,
row-major (``[z, x]``). Each codec has a one-byte id stored in the file
header (docs/worlds.md). Every codec is deterministic: the same bytes in give
the same bytes out on every machine with the same library version.

=====  ===============  ==========================================================
id     name             library
=====  ===============  ==========================================================
1      ``zlib``         the standard library (deflate), levels 1-9
2      ``zstd``         zstandard, levels 1-22 (the default, level 3)
3      ``blosc2-zstd``  blosc2 ``compress`` with byte shuffle, zstd inside
4      ``blosc2-lz4``   blosc2 ``compress`` with byte shuffle, lz4 inside
=====  ===============  ==========================================================

>>> import numpy as np
>>> c = get_codec("zlib", 6)
>>> raw = np.arange(256, dtype="<u2").tobytes()
>>> c.decompress(c.compress(raw), len(raw)) == raw
True
"""

from __future__ import annotations

import threading
import zlib
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError

__all__ = ["Codec", "CODECS", "CODEC_IDS", "DEFAULT_CODEC", "DEFAULT_LEVELS", "get_codec",
           "codec_by_id"]

#: Codec name -> id byte in the header.
CODECS: dict[str, int] = {"zlib": 1, "zstd": 2, "blosc2-zstd": 3, "blosc2-lz4": 4}
#: Id byte -> codec name.
CODEC_IDS: dict[int, str] = {v: k for k, v in CODECS.items()}
#: The codec ``bake`` uses unless told otherwise (see docs/worlds.md for the figures).
DEFAULT_CODEC = "zstd"
#: Default level per codec.
DEFAULT_LEVELS: dict[str, int] = {"zlib": 6, "zstd": 3, "blosc2-zstd": 5, "blosc2-lz4": 5}
_LEVEL_RANGE: dict[str, tuple[int, int]] = {
    "zlib": (1, 9), "zstd": (1, 22), "blosc2-zstd": (1, 9), "blosc2-lz4": (1, 9),
}


class _Local(threading.local):
    zc: Any = None
    zd: Any = None


@dataclass(frozen=True)
class Codec:
    """One codec at one level. ``compress(bytes) -> bytes``; ``decompress(blob, size)``
    returns exactly ``size`` bytes or raises ``ValueError`` (bad data, wrong size)."""

    name: str
    level: int

    @property
    def id(self) -> int:
        """The header's codec id byte."""
        return CODECS[self.name]

    def _local(self) -> _Local:
        loc = _LOCALS.get(self)
        if loc is None:
            loc = _LOCALS.setdefault(self, _Local())
        return loc

    def compress(self, data: bytes | memoryview) -> bytes:
        """Compress ``data`` (a chunk's raw little-endian cells, or the index)."""
        if self.name == "zlib":
            return zlib.compress(data, self.level)
        if self.name == "zstd":
            loc = self._local()
            if loc.zc is None:
                import zstandard

                loc.zc = zstandard.ZstdCompressor(level=self.level, write_content_size=True,
                                                  write_checksum=False, threads=0)
            return bytes(loc.zc.compress(data))
        import blosc2

        inner = blosc2.Codec.ZSTD if self.name == "blosc2-zstd" else blosc2.Codec.LZ4
        typesize = 2 if len(data) % 2 == 0 else 1
        return bytes(blosc2.compress(data, typesize=typesize, clevel=self.level,
                                     filter=blosc2.Filter.SHUFFLE, codec=inner))

    def decompress(self, blob: bytes, size: int) -> bytes:
        """The ``size`` bytes ``blob`` holds; ``ValueError`` when it holds anything else."""
        try:
            if self.name == "zlib":
                d = zlib.decompressobj()
                out = d.decompress(blob, size)
                if d.unconsumed_tail or not d.eof:
                    raise ValueError("deflate stream longer than expected or cut short")
            elif self.name == "zstd":
                import zstandard

                if zstandard.frame_content_size(blob) != size:
                    raise ValueError("zstd frame declares another size")
                loc = self._local()
                if loc.zd is None:
                    loc.zd = zstandard.ZstdDecompressor()
                out = loc.zd.decompress(blob, max_output_size=size)
            else:
                import blosc2

                if len(blob) < 16 or int.from_bytes(blob[4:8], "little") != size:
                    raise ValueError("blosc2 header declares another size")
                out = blosc2.decompress(blob)
        except ValueError:
            raise
        except Exception as exc:  # zlib.error, ZstdError, blosc2's RuntimeError
            raise ValueError(f"{self.name} cannot decompress: {exc}") from None
        if not isinstance(out, (bytes, bytearray)) or len(out) != size:
            raise ValueError(f"{self.name} gave {len(out)} bytes, expected {size}")
        return bytes(out)


_LOCALS: dict[Codec, _Local] = {}


def get_codec(name: str, level: int | None = None) -> Codec:
    """The codec called ``name`` at ``level`` (default :data:`DEFAULT_LEVELS`)."""
    if name not in CODECS:
        raise ConfigError(f"unknown codec {name!r}, expected one of {', '.join(CODECS)}",
                          field="codec")
    lo, hi = _LEVEL_RANGE[name]
    if level is None:
        level = DEFAULT_LEVELS[name]
    if isinstance(level, bool) or not isinstance(level, int) or not lo <= level <= hi:
        raise ConfigError(f"{name} level must be an int in [{lo}, {hi}], got {level!r}",
                          field="level")
    if name.startswith("blosc2"):
        from ..errors import require_extra

        require_extra(["blosc2"], f"the {name} codec", "world")
    elif name == "zstd":
        from ..errors import require_extra

        require_extra(["zstandard"], "the zstd codec", "world")
    return Codec(name, int(level))


def codec_by_id(cid: int, level: int) -> Codec:
    """The codec whose header id is ``cid`` (``ValueError`` for an unknown id)."""
    if cid not in CODEC_IDS:
        raise ValueError(f"unknown codec id {cid}")
    name = CODEC_IDS[cid]
    lo, hi = _LEVEL_RANGE[name]
    return get_codec(name, min(max(level, lo), hi))
