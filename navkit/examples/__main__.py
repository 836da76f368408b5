"""``python -m navkit.examples [NAME] [--json]``: where the bundled examples are.

Without ``NAME`` it lists every bundled example (its name and what it is)
and the folder that holds them; with ``NAME`` (a name from the list, or a
file name alone when unique) it prints that file's absolute path and nothing
else, for the shell::

    navkit sim "$(python -m navkit.examples follow.json)" --ticks 200
    python -m navkit.examples --json      # [{"name", "path", "description"}, ...]

An unknown name prints ``error: ...`` (with the closest name) and exits 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import NavkitError
from . import describe, names, path

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run the listing; returns the exit status (0, or 2 for an unknown name)."""
    ap = argparse.ArgumentParser(prog="python -m navkit.examples",
                                 description="List navkit's bundled examples, or print the "
                                             "path of one.")
    ap.add_argument("name", nargs="?", help="print this example's absolute path")
    ap.add_argument("--json", action="store_true", help="print JSON instead of text")
    args = ap.parse_args(argv)
    try:
        chosen = [args.name] if args.name is not None else names()
        rows = [{"name": n, "path": str(path(n)), "description": describe(n)} for n in chosen]
    except NavkitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(rows[0] if args.name is not None else rows))
    elif args.name is not None:
        print(rows[0]["path"])
    else:
        width = max(len(r["name"]) for r in rows)
        for r in rows:
            print(f"{r['name']:<{width}}  {r['description']}")
        print(f"\nin {path(names()[0]).parent}")
        print("python -m navkit.examples NAME prints one example's path.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
