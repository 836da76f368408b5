"""Reading level configs: decoded JSON or a file -> a validated
:class:`~navkit.level.model.LevelConfig`.

The format is described in :mod:`navkit.level.config`. Unknown keys warn
(:class:`NavkitWarning`, naming the key's path); invalid values raise
:class:`~navkit.errors.ConfigError` naming the field, prefixed with the file
when there is one.

>>> parse_level({"areas": [{"name": "a", "polygon": [[0, 0], [4, 0], [4, 3]]}]}).areas[0].name
'a'
"""

from __future__ import annotations

import difflib
import json
import re
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._reading import cell_limit, read_bytes, size_message
from ..errors import ConfigError, FormatError
from .model import AreaConfig, LevelConfig, ObstacleConfig

__all__ = ["NavkitWarning", "parse_level", "read_level", "read_level_or_map", "scene_map",
           "grid_scene_error", "check_reader_limit", "warn_unknown_keys", "read_json"]

_TOP_KEYS = (
    "cellSize",
    "agentRadius",
    "objectPadding",
    "boundaryPadding",
    "floorY",
    "maxCells",
    "areas",
    "obstacles",
)
_AREA_KEYS = ("name", "available", "polygon", "holes", "weight")
_OBSTACLE_KEYS = ("name", "polygon")

class NavkitWarning(UserWarning):
    """A level config contains something navkit ignores (an unknown key).

    ``field`` is the path of the offending key, e.g. ``areas[1].colour``.
    """

    def __init__(self, message: str, *, field: str | None = None):
        self.field = field
        super().__init__(message)

def _warn_unknown(obj: Mapping[str, Any], known: Sequence[str], prefix: str) -> None:
    for key in obj:
        if key in known:
            continue
        path = f"{prefix}.{key}" if prefix else str(key)
        hint = difflib.get_close_matches(str(key), known, n=1)
        extra = f" (did you mean {hint[0]!r}?)" if hint else ""
        warnings.warn(
            NavkitWarning(f"{path}: unknown key {key!r} ignored{extra}", field=path), stacklevel=4
        )

def warn_unknown_keys(obj: Mapping[str, Any], known: Sequence[str], prefix: str) -> None:
    """Warn (:class:`NavkitWarning`) about each key of ``obj`` not in ``known``,
    naming its path under ``prefix`` and the closest known key."""
    _warn_unknown(obj, known, prefix)


# -------------------------------------------------------------------- parsing
def _as_object(raw: Any, fld: str) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"expected a JSON object, got {type(raw).__name__}", field=fld)
    return raw


def _parse(obj: Any) -> dict[str, Any]:
    if not isinstance(obj, Mapping):
        raise ConfigError(f"a level config must be a JSON object, got {type(obj).__name__}")
    top = obj
    if "floors" in top:
        raise ConfigError("this level lists floors: read it with navkit.FloorMap or "
                          "navkit.floors.parse_building (docs/floors.md)", field="floors")
    _warn_unknown(top, _TOP_KEYS, "")
    kwargs: dict[str, Any] = {}
    for key, attr in (
        ("cellSize", "cell_size"),
        ("agentRadius", "agent_radius"),
        ("objectPadding", "object_padding"),
        ("boundaryPadding", "boundary_padding"),
        ("floorY", "floor_y"),
        ("maxCells", "max_cells"),
    ):
        if key in top:
            kwargs[attr] = top[key]
    if "areas" not in top:
        raise ConfigError("a level needs at least one navigation area (key missing)", field="areas")
    raw_areas = top["areas"]
    if isinstance(raw_areas, (str, bytes)) or not isinstance(raw_areas, Sequence):
        raise ConfigError(
            f"expected a list of areas, got {type(raw_areas).__name__}", field="areas"
        )
    areas = []
    for i, ra in enumerate(raw_areas):
        pre = f"areas[{i}]"
        ra = _as_object(ra, pre)
        _warn_unknown(ra, _AREA_KEYS, pre)
        if "name" not in ra:
            raise ConfigError("missing", field=f"{pre}.name")
        if "polygon" not in ra:
            raise ConfigError("missing", field=f"{pre}.polygon")
        areas.append(
            AreaConfig(
                name=ra["name"],
                polygon=ra["polygon"],
                holes=ra.get("holes", ()),
                available=ra.get("available", True),
                weight=ra.get("weight", 1),
            )
        )
    raw_obs = top.get("obstacles", [])
    if isinstance(raw_obs, (str, bytes)) or not isinstance(raw_obs, Sequence):
        raise ConfigError(
            f"expected a list of obstacles, got {type(raw_obs).__name__}", field="obstacles"
        )
    obstacles = []
    for i, ro in enumerate(raw_obs):
        pre = f"obstacles[{i}]"
        ro = _as_object(ro, pre)
        _warn_unknown(ro, _OBSTACLE_KEYS, pre)
        if "name" not in ro:
            raise ConfigError("missing", field=f"{pre}.name")
        if "polygon" not in ro:
            raise ConfigError("missing", field=f"{pre}.polygon")
        obstacles.append(ObstacleConfig(name=ro["name"], polygon=ro["polygon"]))
    kwargs["areas"] = tuple(areas)
    kwargs["obstacles"] = tuple(obstacles)
    return kwargs


def parse_level(
    obj: Mapping[str, Any],
    *,
    source: str | Path | None = None,
    name: str | None = None,
    max_cells: int | None = None,
) -> LevelConfig:
    """Validate a decoded JSON level config into a :class:`LevelConfig`.

    ``source`` (a file path) is prefixed to error messages; ``name`` labels the
    level (default: the stem of ``source``). Unknown keys warn with
    :class:`NavkitWarning`; invalid values raise
    :class:`~navkit.errors.ConfigError` naming the field path. ``max_cells``
    replaces the config's ``maxCells``; without it the grid may not exceed
    ``navkit.formats.MAX_CELLS`` either, whatever ``maxCells`` says (see
    :func:`check_reader_limit`).
    """
    limit = cell_limit(max_cells)
    src = None if source is None else str(source)
    if name is None:
        name = Path(src).stem if src else ""
    try:
        kwargs = _parse(obj)
    except ConfigError as e:
        if src is not None and e.path is None:
            raise ConfigError(e.reason, field=e.field, path=src) from None
        raise
    if max_cells is not None:
        kwargs["max_cells"] = limit
    config = LevelConfig(**kwargs, name=name, source=src)
    check_reader_limit(config, max_cells)
    return config


def check_reader_limit(config: LevelConfig, max_cells: int | None = None) -> None:
    """Refuse a config read from outside whose grid exceeds the reader limit.

    With ``max_cells`` given the config's own ``maxCells`` is that limit
    (:class:`LevelConfig` checked it); without, a file could lift ``maxCells``
    to ``navkit.grid.MAX_CELLS``, so the grid must also fit
    ``navkit.formats.MAX_CELLS``. Raises :class:`~navkit.errors.ConfigError`
    naming ``maxCells`` and the file.
    """
    if max_cells is not None:
        return
    geo = config.grid_geometry()
    limit = cell_limit(None)
    if geo.size > limit:
        raise ConfigError(
            size_message(geo.width, geo.depth, limit, "the level grid"),
            field="maxCells",
            path=config.source,
        )


#: JSON integers longer than this are read as floats: every field that takes an
#: integer refuses them anyway, and ``int()`` of 4300+ digits raises ValueError.
_MAX_INT_DIGITS = 20
_NESTING_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_MAX_NESTING = 100  # a level config needs 5 (areas, area, holes, hole, point)


def _json_int(text: str) -> int | float:
    return int(text) if len(text) <= _MAX_INT_DIGITS else float(text)


def _nesting_line(text: str) -> int:
    """The line where JSON ``text`` first nests deeper than ``_MAX_NESTING``."""
    depth = 0
    for m in _NESTING_TOKENS.finditer(text):
        c = m.group()[0]
        if c in "[{":
            depth += 1
            if depth > _MAX_NESTING:
                return text.count("\n", 0, m.start()) + 1
        elif c in "]}":
            depth -= 1
    return 1


def read_json(p: Path) -> Any:
    """The decoded JSON of file ``p`` (FormatError naming the file and line)."""
    return _decode(p)


def _decode(p: Path) -> Any:
    """The decoded JSON of file ``p`` (FormatError naming the file and line)."""
    data = read_bytes(p)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise FormatError(f"not UTF-8 text: {e.reason}", path=p, line=line) from None
    try:
        return json.loads(text, parse_int=_json_int)
    except json.JSONDecodeError as e:
        raise FormatError(
            f"invalid JSON: {e.msg} (column {e.colno})", path=p, line=e.lineno
        ) from None
    except RecursionError:
        raise FormatError(
            f"JSON nested too deeply to read (past {_MAX_NESTING} levels on this line; "
            "a level config needs 5)",
            path=p,
            line=_nesting_line(text),
        ) from None


def scene_map(obj: Any, path: str | Path) -> Mapping[str, Any] | Path | None:
    """The map a decoded scene names, or None when ``obj`` is not a scene.

    A scene (docs/simulation.md, "Scene files") is a JSON object with a
    ``navigation`` key (as ``navkit view`` reads one): its map is an inline level config
    (returned as is) or a path, relative to the scene file ``path``, of a map
    file (returned resolved). Anything else under ``navigation`` raises
    :class:`~navkit.errors.ConfigError` naming ``navigation``.
    """
    if not isinstance(obj, Mapping) or "navigation" not in obj:
        return None
    nav = obj["navigation"]
    if isinstance(nav, Mapping):
        return nav
    if isinstance(nav, str) and nav:
        target = Path(nav)
        return target if target.is_absolute() else Path(path).parent / target
    raise ConfigError(f"expected a level object or a map file path, got {type(nav).__name__}",
                      field="navigation", path=path)


def read_level_or_map(path: str | Path, *, max_cells: int | None = None) -> LevelConfig | Path:
    """A JSON file's level: :func:`read_level`, except that a scene whose map is
    a grid file (not ``.json``) gives that file's path (for ``navkit.load_grid``).

    A scene (:func:`scene_map`) gives the level it holds inline (errors name
    ``navigation.<field>``) or the level file it names; a scene naming
    another scene raises :class:`~navkit.errors.ConfigError` (field ``navigation``).
    """
    p = Path(path)
    obj = _decode(p)
    nav = scene_map(obj, p)
    if nav is None:
        return parse_level(obj, source=p, max_cells=max_cells)
    if isinstance(nav, Path):
        if nav.suffix.lower() != ".json":
            return nav
        inner = _decode(nav)
        if scene_map(inner, nav) is not None:
            raise ConfigError(f"names {str(nav)!r}, another scene, not a level",
                              field="navigation", path=p)
        return parse_level(inner, source=nav, max_cells=max_cells)
    try:
        return parse_level(nav, source=p, max_cells=max_cells)
    except ConfigError as e:
        if e.path != str(p):
            raise
        fld = "navigation" if e.field is None else f"navigation.{e.field}"
        raise ConfigError(e.reason, field=fld, path=p) from None


def read_level(path: str | Path, *, max_cells: int | None = None) -> LevelConfig:
    """Read a JSON level file (``max_cells`` as in :func:`parse_level`).

    A scene file (:func:`scene_map`) gives the level it holds or names; one
    whose map is a grid file raises :class:`~navkit.errors.ConfigError` (field
    ``navigation``) naming that file, which ``navkit.load_grid`` reads.
    Raises :class:`~navkit.errors.FormatError` (file and line) on a missing or
    unreadable file, malformed JSON, nesting too deep to parse or text that is
    not UTF-8; :class:`~navkit.errors.ConfigError` (file and field) on invalid
    content or a grid over the limit.
    """
    level = read_level_or_map(path, max_cells=max_cells)
    if isinstance(level, Path):
        raise grid_scene_error(path, level)
    return level


def grid_scene_error(path: str | Path, map_path: Path) -> ConfigError:
    """The error for a scene ``path`` whose map is the grid file ``map_path``,
    read where a level is expected."""
    return ConfigError(f"a scene whose map is the grid file {str(map_path)!r}, not a level "
                       "config: read that file with navkit.load_grid, or the scene with "
                       "navkit.Location.load", field="navigation", path=path)
