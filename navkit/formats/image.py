"""Grids as images (via Pillow): white = walkable, black = blocked.

Pixel row = z, pixel column = x; one pixel is one cell unless a scale is given.

>>> import numpy as np, tempfile, os
>>> grid = NavGrid(np.array([[1, 0], [1, 1]]), weights=np.array([[1, 1], [9, 1]]))
>>> path = os.path.join(tempfile.mkdtemp(), "g.png")
>>> write_image(grid, path)
>>> read_image(path).walkable.astype(int).tolist()
[[1, 0], [1, 1]]
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..errors import ConfigError, FormatError, shown
from ..grid import MAX_WEIGHT, NavGrid
from ._common import PathLike, cell_limit, check_cells

__all__ = ["read_image", "write_image", "image_values"]

_16BIT_MODES = ("I;16", "I;16L", "I;16B", "I;16N")


def _luminance(path: Path, limit: int) -> NDArray[np.uint8]:
    from PIL import Image, UnidentifiedImageError

    if not path.exists():
        raise FormatError("no such file", path=path)
    if path.is_dir():
        raise FormatError("is a directory, expected an image file", path=path)
    try:
        with warnings.catch_warnings():
            # navkit checks the size itself (below), with its own limit
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = Image.open(path)
        with img:
            check_cells(img.width, img.height, limit, path=path, what="image")
            img.load()
            if img.mode in _16BIT_MODES or img.mode == "I":
                # 16-bit greyscale: scale 0..65535 down to 0..255
                wide = np.asarray(img, dtype=np.int64)
                return np.clip(wide // 257, 0, 255).astype(np.uint8)
            return np.asarray(img.convert("L"), dtype=np.uint8)
    except FormatError:
        raise
    except Image.DecompressionBombError as exc:
        raise FormatError(
            f"{exc} (Pillow's own limit, PIL.Image.MAX_IMAGE_PIXELS, refuses it before navkit's)",
            path=path,
        ) from None
    except UnidentifiedImageError as exc:
        raise FormatError(f"not a readable image: {exc}", path=path) from None
    except (OSError, ValueError, SyntaxError, EOFError) as exc:
        raise FormatError(f"cannot decode image: {exc}", path=path) from None


def read_image(
    path: PathLike,
    threshold: float = 128,
    invert: bool = False,
    cell_size: float = 1.0,
    *,
    max_cells: int | None = None,
) -> NavGrid:
    """Read an image as a grid of shape ``(height_px, width_px)``.

    The image is converted to 8-bit luminance (``'L'``, 0..255; alpha is
    ignored). A pixel is walkable where its value is ``>= threshold``
    (white = walkable), or ``< threshold`` when ``invert`` is true.
    ``cell_size`` is the edge of one pixel in metres. An unreadable file, or
    one whose header declares more than ``max_cells`` pixels (default
    ``navkit.formats.MAX_CELLS``; checked before decoding), raises
    :class:`~navkit.errors.FormatError` naming it.
    """
    try:
        t = float(threshold)
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(f"expected a number, got {shown(threshold)}",
                          field="threshold") from None
    if not (math.isfinite(t) and 0 <= t <= 256):
        raise ConfigError(f"must lie in [0, 256], got {threshold!r}", field="threshold")
    limit = cell_limit(max_cells)
    p = Path(path)
    lum = _luminance(p, limit)
    walkable = lum >= t
    if invert:
        walkable = ~walkable
    return NavGrid(walkable, cell_size=cell_size, name=p.name, copy=False)


def image_values(grid: NavGrid) -> NDArray[np.uint8]:
    """Grey levels :func:`write_image` uses, shape ``(depth, width)``, uint8.

    Blocked = 0, walkable weight 1 = 255, heavier walkable cells darker on a
    log scale down to 128 at ``MAX_WEIGHT``, so they still read back as
    walkable with the default threshold.

    >>> import numpy as np
    >>> image_values(NavGrid(np.array([[0, 1, 1]]), weights=np.array([[1, 1, 65535]]))).tolist()
    [[0, 255, 128]]
    """
    out = np.zeros(grid.shape, dtype=np.uint8)
    w = grid.weight_array().astype(np.float64)
    shade = 254.0 - np.floor(126.0 * np.log(w) / math.log(MAX_WEIGHT))
    grey = np.where(w <= 1, 255.0, shade)
    out[grid.walkable] = grey[grid.walkable].astype(np.uint8)
    return out


def write_image(grid: NavGrid, path: PathLike, scale: int = 1) -> None:
    """Write ``grid`` as an 8-bit greyscale image; the format follows the extension.

    Each cell becomes ``scale x scale`` pixels (``scale`` a positive integer).
    Geometry is not stored. Use a lossless format (PNG, BMP, TIFF) for round trips.
    """
    from PIL import Image

    if isinstance(scale, bool) or not isinstance(scale, (int, np.integer)) or scale < 1:
        raise ConfigError(f"expected a positive integer, got {scale!r}", field="scale")
    pixels = image_values(grid)
    if scale > 1:
        pixels = np.repeat(np.repeat(pixels, int(scale), axis=0), int(scale), axis=1)
    Image.fromarray(np.ascontiguousarray(pixels)).save(Path(path))
