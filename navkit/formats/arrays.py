"""Grids from numpy arrays and ``.npy`` / ``.npz`` files.

An ``.npz`` grid holds ``walkable`` (2-D, nonzero = walkable), optionally
``weights`` (same shape, integers >= 1) and optional 0-d geometry entries
``cell_size``, ``min_x``, ``min_z``, ``floor_y``, ``agent_radius`` (metres).
A ``.npy`` file holds just the 2-D walkable array.

>>> import numpy as np
>>> from_array(np.array([[1, 0], [1, 1]]), cell_size=0.5).shape
(2, 2)
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ConfigError, FormatError
from ..grid import NavGrid
from ._common import PathLike

__all__ = ["from_array", "read_npy", "write_npz", "GEOMETRY_KEYS"]

#: Scalar geometry entries an ``.npz`` grid may carry (all in metres).
GEOMETRY_KEYS = ("cell_size", "min_x", "min_z", "floor_y", "agent_radius")
_FROM_ARRAY_KEYS = ("weights", *GEOMETRY_KEYS, "name", "meta")


def from_array(arr: ArrayLike, **geometry: Any) -> NavGrid:
    """A :class:`NavGrid` from a 2-D ``(depth, width)`` array (nonzero = walkable).

    ``geometry`` takes ``weights``, ``cell_size``, ``min_x``, ``min_z``,
    ``floor_y``, ``agent_radius``, ``name`` and ``meta``; NavGrid validates them
    and raises :class:`~navkit.errors.ConfigError` on bad values.
    """
    unknown = sorted(set(geometry) - set(_FROM_ARRAY_KEYS))
    if unknown:
        raise ConfigError(
            f"unknown keyword(s) {', '.join(unknown)}; "
            f"expected some of {', '.join(_FROM_ARRAY_KEYS)}",
            field=unknown[0],
        )
    return NavGrid(np.asarray(arr), **geometry)


def read_npy(path: PathLike) -> NavGrid:
    """Read a grid from ``.npy`` (a 2-D walkable array) or ``.npz`` (see the module doc).

    Files are loaded without pickle. A missing, corrupt or ill-shaped file raises
    :class:`~navkit.errors.FormatError` naming it.
    """
    p = Path(path)
    if not p.exists():
        raise FormatError("no such file", path=p)
    if p.is_dir():
        raise FormatError("is a directory, expected a file", path=p)
    try:
        loaded = np.load(p, allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise FormatError(f"not a readable numpy file: {exc}", path=p) from None
    kwargs: dict[str, Any] = {"name": p.name}
    if isinstance(loaded, np.lib.npyio.NpzFile):
        with loaded:
            keys = set(loaded.files)
            allowed = {"walkable", "weights", *GEOMETRY_KEYS}
            extra = sorted(keys - allowed)
            if extra:
                raise FormatError(
                    f"unexpected entries {', '.join(extra)}; "
                    f"expected walkable, weights, {', '.join(GEOMETRY_KEYS)}",
                    path=p,
                )
            if "walkable" not in keys:
                raise FormatError("no 'walkable' array in the archive", path=p)
            try:
                walkable = loaded["walkable"]
                if "weights" in keys:
                    kwargs["weights"] = loaded["weights"]
                for key in GEOMETRY_KEYS:
                    if key in keys:
                        value = loaded[key]
                        if value.ndim != 0 or not (
                            np.issubdtype(value.dtype, np.floating)
                            or np.issubdtype(value.dtype, np.integer)
                        ):
                            raise FormatError(
                                f"'{key}' must be a numeric scalar, "
                                f"got dtype {value.dtype} shape {value.shape}",
                                path=p,
                            )
                        kwargs[key] = float(value)
            except FormatError:
                raise
            except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
                raise FormatError(f"corrupt archive entry: {exc}", path=p) from None
    elif isinstance(loaded, np.ndarray):
        walkable = loaded
    else:  # pragma: no cover - np.load returns one of the two above without pickle
        raise FormatError(f"unexpected content {type(loaded).__name__}", path=p)
    try:
        return NavGrid(walkable, **kwargs)
    except ConfigError as exc:
        raise FormatError(f"{exc.field or 'array'}: {exc.reason}", path=p) from None


def write_npz(grid: NavGrid, path: PathLike) -> None:
    """Write ``grid`` as a compressed ``.npz`` (exactly the name given; no suffix is added)."""
    arrays: dict[str, np.ndarray] = {"walkable": np.asarray(grid.walkable, dtype=np.bool_)}
    if grid.weights is not None:
        arrays["weights"] = np.asarray(grid.weights, dtype=np.int32)
    for key in GEOMETRY_KEYS:
        arrays[key] = np.array(getattr(grid, key), dtype=np.float64)
    with open(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]
