"""``navkit view``: the visual debugger in the browser.

::

    navkit view TARGET [--port P] [--host 127.0.0.1] [--allow-remote] [--allow-host NAME ...]
                       [--no-open] [--replay REPLAY.jsonl] [--crowd CROWD.json]

``TARGET`` is a map (any format ``navkit.load_grid`` reads; a ``.json``
level keeps its areas, so doors can be toggled) or a scene JSON file (then
the page plays the simulation live). The server listens on ``127.0.0.1``
unless ``--host`` says otherwise, prints its URL and opens it in a browser
unless ``--no-open``. ``--port 0`` picks a free port. ``--crowd`` plays a free
steering crowd (``navkit.crowd.Crowd``, a crowd file: docs/crowds.md "In the
viewer") on the map's grid: agents, velocities, the hovered agent's neighbour
radius.

A ``--host`` beyond loopback also needs ``--allow-remote``; the viewer then
still answers only requests whose ``Host`` is the bound address, a loopback
name or a name given with ``--allow-host`` (DNS rebinding protection), and
says so on start-up. Errors follow the ``navkit`` CLI: bad input prints
``error: <message>`` and exits with 2.
"""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["view_cmd", "DEFAULT_PORT"]

DEFAULT_PORT = 8765


def view_cmd(
    target: Annotated[Path, typer.Argument(
        help="A map file (.map .txt .png .npy .npz .json level or building) or a scene .json.",
        show_default=False)],
    port: Annotated[int, typer.Option(
        "--port", "-p", min=0, max=65535, help="TCP port (0: any free port).")] = DEFAULT_PORT,
    host: Annotated[str, typer.Option(
        "--host",
        help="Address to listen on. Anything but loopback exposes the viewer (and its edit "
             "endpoints) to your network, and needs --allow-remote.")] = "127.0.0.1",
    allow_remote: Annotated[bool, typer.Option(
        "--allow-remote",
        help="Allow a --host beyond loopback (0.0.0.0, a LAN address).")] = False,
    allow_host: Annotated[list[str] | None, typer.Option(
        "--allow-host", metavar="NAME",
        help="Also answer requests for this host name or address (repeatable): the names "
             "clients use to reach the viewer. Others get 400.")] = None,
    no_open: Annotated[bool, typer.Option("--no-open", help="Do not open a browser.")] = False,
    replay: Annotated[Path | None, typer.Option(
        "--replay", metavar="REPLAY.jsonl",
        help="Load a `navkit sim --record` file to scrub.")] = None,
    crowd: Annotated[Path | None, typer.Option(
        "--crowd", metavar="CROWD.json",
        help="Play a steering crowd file (navkit/examples/crowds/flock.json) on the map.")] = None,
) -> None:
    """Open the interactive viewer for a map or scene in the browser."""
    from ..viewer.server import allowed_hosts, is_loopback, serve

    extra = allow_host or []

    def ready(url: str) -> None:
        typer.echo(f"navkit viewer: {url}  (Ctrl+C to stop)")
        if not is_loopback(host) or extra:
            names = ", ".join(sorted(allowed_hosts(host, extra)))
            typer.echo(f"answers only to the host names {names} "
                       f"(add others with --allow-host NAME)", err=True)
        if not is_loopback(host):
            typer.echo(f"warning: listening on {host} (--allow-remote): anyone who can reach "
                       f"this machine can use the viewer, edit the map and drive the "
                       f"simulation", err=True)
        if not no_open:
            try:
                webbrowser.open(url)
            except Exception:  # noqa: BLE001 - no browser is not an error
                pass

    try:
        serve(target, host=host, port=port, replay=replay, crowd=crowd,
              allow_remote=allow_remote,
              allow_hosts=extra, on_ready=ready)
    except KeyboardInterrupt:
        pass
