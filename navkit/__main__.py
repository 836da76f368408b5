"""``python -m navkit``: the same command line as the ``navkit`` script."""

from __future__ import annotations

from .cli import main

if __name__ == "__main__":
    main()
