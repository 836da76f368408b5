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
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError, FormatError
from .model import AreaConfig, LevelConfig, ObstacleConfig

__all__ = ["NavkitWarning", "parse_level", "read_level"]

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

# -------------------------------------------------------------------- parsing
def _as_object(raw: Any, fld: str) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"expected a JSON object, got {type(raw).__name__}", field=fld)
    return raw


def _parse(obj: Any) -> dict[str, Any]:
    if not isinstance(obj, Mapping):
        raise ConfigError(f"a level config must be a JSON object, got {type(obj).__name__}")
    top = obj
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
    obj: Mapping[str, Any], *, source: str | Path | None = None, name: str | None = None
) -> LevelConfig:
    """Validate a decoded JSON level config into a :class:`LevelConfig`.

    ``source`` (a file path) is prefixed to error messages; ``name`` labels the
    level (default: the stem of ``source``). Unknown keys warn with
    :class:`NavkitWarning`; invalid values raise
    :class:`~navkit.errors.ConfigError` naming the field path.
    """
    src = None if source is None else str(source)
    if name is None:
        name = Path(src).stem if src else ""
    try:
        kwargs = _parse(obj)
    except ConfigError as e:
        if src is not None and e.path is None:
            raise ConfigError(e.reason, field=e.field, path=src) from None
        raise
    return LevelConfig(**kwargs, name=name, source=src)


def read_level(path: str | Path) -> LevelConfig:
    """Read a JSON level file.

    Raises :class:`~navkit.errors.FormatError` (file and line) on malformed
    JSON or text that is not UTF-8, :class:`~navkit.errors.ConfigError` (file
    and field) on invalid content and ``OSError`` when the file can't be read.
    """
    p = Path(path)
    data = p.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise FormatError(f"not UTF-8 text: {e.reason}", path=p, line=line) from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(
            f"invalid JSON: {e.msg} (column {e.colno})", path=p, line=e.lineno
        ) from None
    return parse_level(obj, source=p)
