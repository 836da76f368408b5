"""Make the pictures of docs/viewer.md with the viewer itself: ``docs/images/viewer_*.png``.

Run from the repository root::

    python docs/make_viewer_pictures.py            # writes docs/images/viewer_*.png
    python docs/make_viewer_pictures.py --out DIR

It serves bundled examples with ``navkit view``'s app on a free loopback port and
photographs the page in headless Chromium through Playwright (the ``playwright``
package, with Debian's ``/usr/bin/chromium`` or ``$NAVKIT_CHROMIUM`` as the
browser: nothing is downloaded). Every click is at a fixed world point and the
window has a fixed size, so the pictures are the same on every run.

=========================  ========================================================
file                       what
=========================  ========================================================
``viewer_legend.png``      ``interior.json``: an ``auto`` path with the nav mesh's
                           exact and funnel paths, the on-canvas legend and the
                           labels placed apart
``viewer_edits.png``       the same level with a door closed and a crate dropped,
                           loaded again: the notice of the edits the server
                           holds, and Reset
``viewer_radius.png``      the agent-radius preview at the cursor and the waypoints
``viewer_tiled.png``       ``dungeon.tmj`` (a Tiled map) with ``door1`` closed
``viewer_floors.png``      ``tavern.json`` (a building): a route from the taproom
                           up to a bedroom, shown upstairs with the link ends
                           and where they lead, the stairs' arrival, the panel's
                           floors and links taken
=========================  ========================================================
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "docs" / "images"
INTERIOR = ROOT / "navkit" / "examples" / "interior.json"
DUNGEON = ROOT / "navkit" / "examples" / "dungeon.tmj"
TAVERN = ROOT / "navkit" / "examples" / "tavern.json"
VIEWPORT: Any = {"width": 1100, "height": 680}
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--font-render-hinting=none"]
#: Pictures over this size are an error: they go into the repository.
MAX_BYTES = 200_000


def chromium_path() -> str:
    """The Chromium binary: ``$NAVKIT_CHROMIUM``, else Debian's ``chromium``."""
    env = os.environ.get("NAVKIT_CHROMIUM")
    if env:
        return env
    for name in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if os.access(name, os.X_OK):
            return name
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        raise SystemExit("error: no Chromium found (apt-get install chromium, or set "
                         "NAVKIT_CHROMIUM)")
    return found


@contextmanager
def serve(target: Path) -> Iterator[str]:
    """The viewer for ``target`` on a free loopback port, in a thread; yields its URL."""
    import uvicorn

    from navkit.viewer.server import bind_socket, create_app, url_for, uvicorn_config

    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn_config(create_app(target)))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise SystemExit(f"error: the viewer did not start for {target}")
        time.sleep(0.02)
    try:
        yield url_for(sock)
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def wait(page: Any, expr: str, timeout: float = 60.0) -> Any:
    """Poll ``expr`` in the page until it is truthy (the page's CSP forbids eval)."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expr)
        if value:
            return value
        if time.monotonic() > deadline:
            raise SystemExit(f"error: timed out waiting for {expr}")
        time.sleep(0.03)


def open_page(browser: Any, url: str) -> Any:
    page = browser.new_page()
    page.goto(url)
    wait(page, "window.navkit && window.navkit.ready")
    return page


def world_click(page: Any, x: float, z: float, *, move_only: bool = False) -> None:
    """Click (or move to) world point ``(x, z)`` metres."""
    px, py = page.evaluate(
        """([x, z]) => { const g = navkit.info.grid;
             return navkit.cellToClient((x - g.minX) / g.cellSize - 0.5,
                                        (z - g.minZ) / g.cellSize - 0.5); }""", [x, z])
    if move_only:
        page.mouse.move(px, py)
    else:
        page.mouse.click(px, py)


def zoom(page: Any, x: float, z: float, factor: float) -> None:
    """Centre world point ``(x, z)`` and zoom ``factor`` times closer than the fitted view."""
    page.evaluate(
        """([x, z, f]) => { navkit.fitView(); const g = navkit.info.grid, v = navkit.view;
             const r = document.getElementById('view').getBoundingClientRect();
             v.scale *= f;
             v.ox = r.width / 2 - (x - g.minX) / g.cellSize * v.scale;
             v.oy = r.height / 2 - (z - g.minZ) / g.cellSize * v.scale;
             navkit.requestRedraw(); }""", [x, z, factor])


def settle(page: Any) -> None:
    """Let the last answer land and the next frame draw."""
    wait(page, "navkit.pending === 0 && navkit.busy === null")
    page.evaluate("navkit.requestRedraw()")
    page.wait_for_timeout(150)


def shoot(page: Any, path: Path) -> Path:
    """Screenshot the page as a 256-colour PNG (small enough to keep in the repository)."""
    import io

    from PIL import Image

    shot = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
    shot.quantize(colors=256, dither=Image.Dither.NONE).save(path, optimize=True)
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise SystemExit(f"error: {path.name} is {size:,} bytes, over {MAX_BYTES:,}")
    return path


def interior_path(page: Any) -> None:
    """Bedroom (6.5, 4) m to the dining room (27, 17) m, by auto (the default)."""
    world_click(page, 6.5, 4.0)
    world_click(page, 27.0, 17.0)
    wait(page, "navkit.drawn.query >= 1")
    status = page.evaluate("navkit.result && navkit.result.status")
    if status != "FOUND":
        raise SystemExit(f"error: the interior path is {status}, expected FOUND")


def legend_picture(browser: Any, out: Path) -> Path:
    with serve(INTERIOR) as url:
        page = open_page(browser, url)
        page.check("#show-mesh")
        wait(page, "navkit.mesh")
        page.check("#mesh-funnel")
        interior_path(page)
        wait(page, "navkit.drawn.meshPaths && navkit.drawn.meshPaths.funnel")
        page.mouse.move(5, 5)
        settle(page)
        return shoot(page, out / "viewer_legend.png")


def edits_picture(browser: Any, out: Path) -> Path:
    with serve(INTERIOR) as url:
        page = open_page(browser, url)
        page.uncheck("#area-door_living")
        wait(page, "navkit.mapLoads >= 2")
        page.check("#tool-obstacle")
        page.fill("#obstacle-size", "4")
        world_click(page, 20.0, 9.5)  # a crate in the hallway
        wait(page, "navkit.info.edits.length === 2")
        page.close()
        page = open_page(browser, url)  # a later page load: the server still holds them
        wait(page, "!document.getElementById('edits').hidden")
        interior_path(page)
        page.mouse.move(5, 5)
        settle(page)
        return shoot(page, out / "viewer_edits.png")


def radius_picture(browser: Any, out: Path) -> Path:
    with serve(INTERIOR) as url:
        page = open_page(browser, url)
        page.uncheck("#show-heat")
        interior_path(page)
        page.check("#show-radius")
        zoom(page, 10.0, 9.5, 3.0)  # the bedroom door and the hallway, 3 times closer
        world_click(page, 13.0, 9.2, move_only=True)  # the cursor in the hallway
        wait(page, "navkit.drawn.radius && navkit.drawn.radius.cursor")
        settle(page)
        return shoot(page, out / "viewer_radius.png")


def tiled_picture(browser: Any, out: Path) -> Path:
    with serve(DUNGEON) as url:
        page = open_page(browser, url)
        world_click(page, 1.5, 1.5)
        world_click(page, 7.5, 1.5)
        wait(page, "navkit.drawn.query >= 1")
        page.uncheck("#area-door1")
        wait(page, "navkit.drawn.query >= 2 && navkit.mapLoads >= 2")
        page.mouse.move(5, 5)
        settle(page)
        return shoot(page, out / "viewer_tiled.png")


def floors_picture(browser: Any, out: Path) -> Path:
    with serve(TAVERN) as url:
        page = open_page(browser, url)
        world_click(page, 2.0, 8.0)  # the start in the taproom (ground floor)
        page.click("#floor-buttons button[data-floor='1']")
        wait(page, "navkit.floorSwitches === 1 && navkit.mapLoads >= 2")
        world_click(page, 16.0, 2.0)  # the goal in room1 (upstairs)
        wait(page, "navkit.routeCount >= 1")
        links = page.evaluate("navkit.route && navkit.route.links.map(l => l.name)")
        if links != ["stairs"]:
            raise SystemExit(f"error: the tavern route takes {links}, expected ['stairs']")
        page.mouse.move(5, 5)
        settle(page)
        return shoot(page, out / "viewer_floors.png")


PICTURES = {"legend": legend_picture, "edits": edits_picture, "radius": radius_picture,
            "tiled": tiled_picture, "floors": floors_picture}


def make_pictures(out: Path = DEFAULT_OUT, only: list[str] | None = None) -> list[Path]:
    """Write the pictures (``only``: some of :data:`PICTURES`' names) into ``out``."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="navkit-pictures-")
    made = []
    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            profile, executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS,
            viewport=VIEWPORT, device_scale_factor=1)
        try:
            for name, fn in PICTURES.items():
                if only is None or name in only:
                    made.append(fn(ctx, out))
        finally:
            ctx.close()
            shutil.rmtree(profile, ignore_errors=True)
    return made


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder for the PNG files")
    ap.add_argument("--only", nargs="+", choices=sorted(PICTURES), help="make only these")
    args = ap.parse_args()
    for path in make_pictures(args.out, args.only):
        print(f"{path} ({path.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
