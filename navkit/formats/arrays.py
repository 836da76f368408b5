"""Grids from numpy arrays and ``.npy`` / ``.npz`` files.

An ``.npz`` grid holds ``walkable`` (2-D, a mask as :class:`~navkit.grid.NavGrid`
reads one: bool, or numbers 0 and 1; other numbers are deprecated and read as
nonzero = walkable, docs/rules.md §1.6), optionally
``weights`` (same shape, integers >= 1) and optional 0-d geometry entries
``cell_size``, ``min_x``, ``min_z``, ``floor_y``, ``agent_radius`` (metres).
A ``.npy`` file holds just the 2-D walkable array.

>>> import numpy as np
>>> from_array(np.array([[1, 0], [1, 1]]), cell_size=0.5).shape
(2, 2)
"""

from __future__ import annotations

import math
import tokenize
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

import numpy as np
from numpy.lib import format as npformat
from numpy.typing import ArrayLike, NDArray

from ..errors import ConfigError, FormatError
from ..grid import NavGrid
from ._common import PathLike, cell_limit, check_cells, open_error
from .archive import MAX_NPY_HEADER, Archive, read_npz

__all__ = ["from_array", "read_npy", "read_npz_members", "write_npz", "GEOMETRY_KEYS"]

#: Scalar geometry entries an ``.npz`` grid may carry (all in metres).
GEOMETRY_KEYS = ("cell_size", "min_x", "min_z", "floor_y", "agent_radius")
_FROM_ARRAY_KEYS = ("weights", *GEOMETRY_KEYS, "name", "meta", "copy")
#: Default cap of :func:`read_npz_members` per array (bytes, unpacked).
MAX_MEMBER_BYTES = 1 << 30
_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a member first, or an empty archive
# what numpy's header parser and zipfile raise on corrupt input: a bad header is
# a ValueError, SyntaxError or tokenize error; an unknown compression method a
# NotImplementedError, an encrypted member a RuntimeError, a bad stream zlib.error
_READ_ERRORS = (
    OSError,
    EOFError,
    ValueError,
    SyntaxError,
    RecursionError,
    tokenize.TokenError,
    zipfile.BadZipFile,
    NotImplementedError,
    RuntimeError,
    zlib.error,
)


def from_array(arr: ArrayLike, **geometry: Any) -> NavGrid:
    """A :class:`NavGrid` from a 2-D ``(depth, width)`` walkability mask (bool,
    or 0 and 1; other numbers as :class:`NavGrid` reads them, docs/rules.md §1.6).

    ``geometry`` takes ``weights``, ``cell_size``, ``min_x``, ``min_z``,
    ``floor_y``, ``agent_radius``, ``name``, ``meta`` and ``copy``; NavGrid
    validates them and raises :class:`~navkit.errors.ConfigError` on bad values.
    The grid holds a copy of ``arr`` (``arr`` stays writeable); ``copy=False``
    hands ``arr`` over instead (see :class:`~navkit.grid.NavGrid`).
    """
    unknown = sorted(set(geometry) - set(_FROM_ARRAY_KEYS))
    if unknown:
        raise ConfigError(
            f"unknown keyword(s) {', '.join(unknown)}; "
            f"expected some of {', '.join(_FROM_ARRAY_KEYS)}",
            field=unknown[0],
        )
    try:
        cells = np.asarray(arr)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ConfigError(f"expected a 2-D array of cells ({exc})", field="array") from None
    return NavGrid(cells, **geometry)


def read_npy(path: PathLike, *, max_cells: int | None = None) -> NavGrid:
    """Read a grid from ``.npy`` (a 2-D walkable array) or ``.npz`` (see the module doc).

    Files are loaded without pickle. Every array's header is checked before
    its data is read: 2-D (0-d for geometry), a bool, integer or float dtype,
    at most ``max_cells`` cells (default ``navkit.formats.MAX_CELLS``) and
    no more data than the file holds. A missing, corrupt, oversized or
    ill-shaped file raises :class:`~navkit.errors.FormatError` naming it.
    """
    limit = cell_limit(max_cells)
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            magic = fh.read(len(_NPY_MAGIC))
            if magic == _NPY_MAGIC:
                fh.seek(0)
                walkable = _read_member(fh, p.stat().st_size, "walkable", 2, p, limit)
                kwargs: dict[str, Any] = {}
            elif not magic.startswith(_ZIP_MAGIC):
                raise FormatError(f"not a numpy file (starts with {magic[:8]!r})", path=p)
        if magic.startswith(_ZIP_MAGIC):
            walkable, kwargs = _read_npz(p, limit)
    except FormatError:
        raise
    except (FileNotFoundError, IsADirectoryError) as exc:
        raise open_error(exc, p) from None
    except _READ_ERRORS as exc:
        raise FormatError(f"not a readable numpy file: {_reason(exc)}", path=p) from None
    try:
        return NavGrid(walkable, name=p.name, copy=False, **kwargs)
    except ConfigError as exc:
        raise FormatError(f"{exc.field or 'array'}: {exc.reason}", path=p) from None


def read_npz_members(path: PathLike, keys: tuple[str, ...], what: str, *,
                     max_bytes: int | Mapping[str, int] = MAX_MEMBER_BYTES
                     ) -> dict[str, NDArray[Any]]:
    """The arrays ``keys`` of the ``.npz`` file ``path`` (a navkit asset such as
    JPS+ tables), read through the bounded reader (:mod:`navkit.formats.archive`):
    each array at most ``max_bytes`` (one cap, or one per key), checked from the
    zip directory and the array header before anything is decompressed or
    allocated; no pickles. A missing, truncated, damaged or oversized file, or
    one without some key, raises :class:`~navkit.errors.FormatError` naming the
    file: ``not a {what} (reason)`` or ``{what} member ...: reason``."""
    limits = {k: int(max_bytes[k] if isinstance(max_bytes, Mapping) else max_bytes)
              for k in keys}
    return read_npz(path, limits, what)


def _reason(exc: BaseException) -> str:
    """A short reason for a message (a tokenize error's text without its position)."""
    text = str(exc.args[0] if isinstance(exc, tokenize.TokenError) else exc)
    text = text or type(exc).__name__
    return text if len(text) <= 200 else text[:200] + "..."


def _read_npz(p: Path, limit: int) -> tuple[NDArray[Any], dict[str, Any]]:
    """The walkable array and NavGrid keywords of an ``.npz`` archive (through the
    bounded reader: each member's header is checked before its data is read)."""
    cap = limit * 8 + MAX_NPY_HEADER
    with Archive(p, "numpy file", max_total=2 * cap + len(GEOMETRY_KEYS) * 2 * MAX_NPY_HEADER,
                 max_members=2 + len(GEOMETRY_KEYS)) as ar:
        keys = ar.keys()
        extra = sorted(set(keys) - {"walkable", "weights", *GEOMETRY_KEYS})
        if extra:
            raise FormatError(
                f"unexpected entries {', '.join(extra)}; "
                f"expected walkable, weights, {', '.join(GEOMETRY_KEYS)}",
                path=p,
            )
        if len(set(keys)) != len(keys):
            raise FormatError("an entry appears twice (with and without .npy)", path=p)
        if "walkable" not in keys:
            raise FormatError("no 'walkable' array in the archive", path=p)
        arrays = {}
        for key in keys:
            ndim = 2 if key in ("walkable", "weights") else 0

            def check(shape: tuple[int, ...], dtype: np.dtype[Any], key: str = key,
                      ndim: int = ndim) -> None:
                _check_header(shape, dtype, key, ndim, p, limit)

            arrays[key] = ar.read_array(key, cap if ndim == 2 else 8, check)
    kwargs: dict[str, Any] = {k: float(v) for k, v in arrays.items() if k in GEOMETRY_KEYS}
    if "weights" in arrays:
        kwargs["weights"] = arrays["weights"]
    return arrays["walkable"], kwargs


def _check_header(shape: tuple[int, ...], dtype: np.dtype[Any], key: str, ndim: int, p: Path,
                  limit: int) -> None:
    """Refuse an array header: not ``ndim``-D, not a number dtype, or too many cells."""
    if len(shape) != ndim:
        want = "a 2-D (depth, width) array" if ndim == 2 else "a numeric scalar"
        raise FormatError(f"'{key}': expected {want}, got shape {shape}", path=p)
    if dtype.kind not in "biuf" or dtype.itemsize > 8:
        raise FormatError(
            f"'{key}': expected a bool, integer or float dtype, got {dtype}", path=p
        )
    if ndim == 2:
        depth, width = shape
        if depth < 1 or width < 1:
            raise FormatError(f"'{key}': grid must have at least one cell, got {shape}", path=p)
        check_cells(width, depth, limit, path=p, what=f"'{key}' array")


def _read_member(
    fh: IO[bytes], size: int, key: str, ndim: int, p: Path, limit: int
) -> NDArray[Any]:
    """One ``.npy`` file of ``size`` bytes, its header checked before the data is read."""
    try:
        version = npformat.read_magic(fh)
        if version == (1, 0):
            shape, _, dtype = npformat.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, _, dtype = npformat.read_array_header_2_0(fh)
        else:
            raise FormatError(f"'{key}': unsupported .npy version {version}", path=p)
    except FormatError:
        raise
    except _READ_ERRORS as exc:
        raise FormatError(f"'{key}': corrupt numpy header: {_reason(exc)}", path=p) from None
    _check_header(shape, dtype, key, ndim, p, limit)
    needed = math.prod(shape) * dtype.itemsize
    if size - fh.tell() < needed:
        raise FormatError(
            f"'{key}': the header declares {needed} bytes of data, "
            f"the file holds {max(size - fh.tell(), 0)}",
            path=p,
        )
    fh.seek(0)
    return np.asarray(npformat.read_array(fh, allow_pickle=False))


def write_npz(grid: NavGrid, path: PathLike) -> None:
    """Write ``grid`` as a compressed ``.npz`` (exactly the name given; no suffix is added)."""
    arrays: dict[str, np.ndarray] = {"walkable": np.asarray(grid.walkable, dtype=np.bool_)}
    if grid.weights is not None:
        arrays["weights"] = np.asarray(grid.weights, dtype=np.int32)
    for key in GEOMETRY_KEYS:
        arrays[key] = np.array(getattr(grid, key), dtype=np.float64)
    with open(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]
