"""Readers and writers: every input format becomes one :class:`~navkit.grid.NavGrid`.

=========================================  =====================================
extension                                  reader / writer
=========================================  =====================================
``.map``                                   Moving AI grid (:mod:`.movingai`)
``.txt``                                   text grid file, docs/rules.md §2.5 (:mod:`.textgrid`)
``.png .bmp .gif .jpg .jpeg .tif .tiff``   image, white = walkable (:mod:`.image`)
``.npy .npz``                              numpy arrays (:mod:`.arrays`)
``.json``                                  polygon level config, or a scene's map (``navkit.level``)
``.tmx .tmj``                              Tiled map, docs/tiled.md (:mod:`.tiled`)
``.ldtk``                                  LDtk project, IntGrid layers (:mod:`.ldtk`)
=========================================  =====================================

A Tiled map's group layers or an LDtk project's levels can also be read as the
floors of one building, joined by link objects: :func:`read_tiled_floors`,
:func:`read_ldtk_floors` (a ``FloorMaps``; ``.build(Building.from_grids)``
makes the ``navkit.floors.Building``, docs/tiled.md).

Every reader raises :class:`~navkit.errors.FormatError` naming the file (and
the line, for text formats) on bad input. Readers take ``max_cells=`` and
refuse, from the header and before allocating, a grid of more cells than that
(default :data:`MAX_CELLS`).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from .._reading import READER_MAX_CELLS, use_default_limit
from ..errors import ConfigError, FormatError
from ..grid import NavGrid
from ._common import PathLike, cell_limit
from .arrays import from_array, read_npy, write_npz
from .image import read_image, write_image
from .movingai import (
    ScenarioSet,
    check_scenarios_fit,
    find_map_for,
    parse_map,
    parse_scenarios,
    read_map,
    read_scenarios,
    write_map,
)
from .textgrid import parse_text_grid, read_text_grid, write_text_grid

__all__ = [
    "MAX_CELLS",
    "load_grid",
    "save_grid",
    "READ_EXTENSIONS",
    "WRITE_EXTENSIONS",
    "read_map",
    "parse_map",
    "write_map",
    "read_scenarios",
    "parse_scenarios",
    "ScenarioSet",
    "check_scenarios_fit",
    "find_map_for",
    "read_text_grid",
    "parse_text_grid",
    "write_text_grid",
    "read_image",
    "write_image",
    "from_array",
    "read_npy",
    "write_npz",
    "read_tiled_floors",
    "read_ldtk_floors",
    "FloorMaps",
]

#: Names loaded on first use (their modules import shapely; reading a Tiled map
#: needs the optional pytiled-parser).
_LAZY = {"read_tiled_floors": "tiled", "read_ldtk_floors": "ldtk", "FloorMaps": "tiled"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        mod = importlib.import_module(f".{_LAZY[name]}", __name__)
        value = getattr(mod, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: Default ``max_cells`` of every reader: 2**26 = 67,108,864 cells. A
#: Pathfinder needs about 50 bytes per cell, so this is about 3.4 GB, and 64
#: times the largest Moving AI benchmark map (1024 x 1024), yet a 37 KB PNG or
#: a 128-byte ``.npy`` header can declare far more. Readers look it up at call
#: time: assign ``navkit.formats.MAX_CELLS`` to change it everywhere (NavMap.load,
#: the command line), or pass ``max_cells=`` for one call. At most
#: ``navkit.grid.MAX_CELLS`` (2**30), the hard limit of a NavGrid.
MAX_CELLS = READER_MAX_CELLS


def _max_cells() -> int:
    """:data:`MAX_CELLS` as it is now (the level readers below read it through this)."""
    return MAX_CELLS


use_default_limit(_max_cells)

_IMAGE_READ = (".png", ".bmp", ".gif", ".jpg", ".jpeg", ".tif", ".tiff")
_IMAGE_OPTIONS = ("threshold", "invert", "cell_size")

#: Extensions :func:`load_grid` understands.
READ_EXTENSIONS = (".map", ".txt", *_IMAGE_READ, ".npy", ".npz", ".json",
                   ".tmx", ".tmj", ".ldtk")
#: Extensions :func:`save_grid` writes (images only in lossless formats).
WRITE_EXTENSIONS = (".map", ".txt", ".png", ".bmp", ".tif", ".tiff", ".npz")


def _no_options(kind: str, options: dict[str, Any]) -> None:
    if options:
        name = sorted(options)[0]
        raise ConfigError(
            f"{kind} files take no reader options, got {', '.join(sorted(options))}", field=name
        )


def load_grid(path: PathLike, *, max_cells: int | None = None, **options: Any) -> NavGrid:
    """Read a grid, choosing the reader from the file extension (case-insensitive).

    ``options`` go to the reader: ``threshold``, ``invert``, ``cell_size`` for
    images; anything ``navkit.level.load_level`` accepts for ``.json``. A
    ``.json`` scene (docs/simulation.md: an object with a ``navigation`` key)
    gives the grid of the map it names, its inline level or its map file; its
    characters and commands are not read (``navkit.Location.load`` reads the
    scene). A ``.npy`` / ``.npz`` walkable array follows the rule of
    :class:`~navkit.grid.NavGrid` (bool or 0/1, docs/rules.md §1.6). A
    missing file or unknown extension raises :class:`~navkit.errors.FormatError`,
    so does a file declaring a grid of more than ``max_cells`` cells (default
    :data:`MAX_CELLS`; a :class:`~navkit.errors.ConfigError` for a ``.json``
    level, naming ``maxCells``), before anything large is allocated.
    """
    limit = cell_limit(max_cells)
    p = Path(path)
    ext = p.suffix.lower()
    try:
        exists = p.exists()
    except OSError as exc:  # a name the filesystem refuses (too long, ...)
        raise FormatError(f"cannot read: {exc.strerror or exc}", path=p) from None
    if not exists:
        raise FormatError("no such file", path=p)
    if p.is_dir():
        raise FormatError("is a directory, expected a grid file", path=p)
    if ext == ".map":
        _no_options("Moving AI .map", options)
        return read_map(p, max_cells=limit)
    if ext == ".txt":
        _no_options("text grid .txt", options)
        return read_text_grid(p, max_cells=limit)
    if ext in _IMAGE_READ:
        bad = sorted(set(options) - set(_IMAGE_OPTIONS))
        if bad:
            raise ConfigError(
                f"unknown image option(s) {', '.join(bad)}; "
                f"expected some of {', '.join(_IMAGE_OPTIONS)}",
                field=bad[0],
            )
        return read_image(p, max_cells=limit, **options)
    if ext in (".npy", ".npz"):
        _no_options(f"numpy {ext}", options)
        return read_npy(p, max_cells=limit)
    if ext == ".json":
        try:
            level = importlib.import_module("navkit.level")
        except ImportError as exc:
            raise FormatError(
                f"JSON level configs need navkit.level, which could not be imported ({exc})", path=p
            ) from exc
        loader = getattr(level, "load_level_or_map", None)
        if loader is None:
            raise FormatError(
                "JSON level configs need navkit.level.load_level_or_map, which is missing",
                path=p,
            )
        if max_cells is not None:
            options["max_cells"] = limit
        grid = loader(path, **options)
        if isinstance(grid, Path):  # a scene whose map is a grid file: that file's grid
            return load_grid(grid, max_cells=max_cells)
        return grid
    if ext in (".tmx", ".tmj"):
        from . import tiled

        # (Tiled's own default limit applies unless max_cells is given)
        return tiled.read_tiled(p, max_cells=max_cells, **options)
    if ext == ".ldtk":
        from . import ldtk

        return ldtk.read_ldtk(p, max_cells=limit, **options)
    raise FormatError(
        f"unsupported extension {p.suffix or '(none)'!r}; supported: {' '.join(READ_EXTENSIONS)}",
        path=p,
    )


def save_grid(grid: NavGrid, path: PathLike) -> None:
    """Write a grid, choosing the writer from the extension (see :data:`WRITE_EXTENSIONS`).

    ``.map`` and images keep only walkability (and image grey levels for
    weights); ``.txt`` and ``.npz`` keep everything :meth:`NavGrid.equals` compares.
    """
    p = Path(path)
    ext = p.suffix.lower()
    if ext == ".map":
        write_map(grid, p)
    elif ext == ".txt":
        write_text_grid(grid, p)
    elif ext in (".png", ".bmp", ".tif", ".tiff"):
        write_image(grid, p)
    elif ext == ".npz":
        write_npz(grid, p)
    else:
        raise FormatError(
            f"cannot write extension {p.suffix or '(none)'!r}; "
            f"supported: {' '.join(WRITE_EXTENSIONS)}",
            path=p,
        )
