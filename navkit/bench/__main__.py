"""``python -m navkit.bench [NAME] [OPTIONS]``: the same as ``navkit bench``."""

from __future__ import annotations

import sys

from . import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
