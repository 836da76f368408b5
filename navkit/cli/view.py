"""``navkit view``: the visual debugger in the browser.

::

    navkit view TARGET [--port P] [--host 127.0.0.1] [--no-open] [--replay REPLAY.jsonl]

``TARGET`` is a map (any format ``navkit.load_grid`` reads; a ``.json``
level keeps its areas, so doors can be toggled) or a scene JSON file (then
the page plays the simulation live). The server listens on ``127.0.0.1``
unless ``--host`` says otherwise, prints its URL and opens it in a browser
unless ``--no-open``. ``--port 0`` picks a free port. Errors follow the
``navkit`` CLI: bad input prints ``error: <message>`` and exits with 2.
"""

from __future__ import annotations

import ipaddress
import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from .common import EXIT_BAD_INPUT

__all__ = ["view_cmd", "DEFAULT_PORT"]

DEFAULT_PORT = 8765


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def view_cmd(
    target: Annotated[Path, typer.Argument(
        help="A map file (.map .txt .png .npy .npz .json level) or a scene .json.",
        show_default=False)],
    port: Annotated[int, typer.Option(
        "--port", "-p", min=0, max=65535, help="TCP port (0: any free port).")] = DEFAULT_PORT,
    host: Annotated[str, typer.Option(
        "--host",
        help="Address to listen on. Anything but loopback exposes the viewer (and its edit "
             "endpoints) to your network.")] = "127.0.0.1",
    no_open: Annotated[bool, typer.Option("--no-open", help="Do not open a browser.")] = False,
    replay: Annotated[Path | None, typer.Option(
        "--replay", metavar="REPLAY.jsonl",
        help="Load a `navkit sim --record` file to scrub.")] = None,
) -> None:
    """Open the interactive viewer for a map or scene in the browser."""
    from ..viewer.server import bind_socket, create_app, url_for, uvicorn_config

    app = create_app(target, replay=replay, host=host)
    try:
        sock = bind_socket(host, port)
    except OSError as e:
        typer.echo(f"error: cannot listen on {host}:{port}: {e.strerror or e}", err=True)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    url = url_for(sock)
    if not _is_loopback(host):
        typer.echo(f"warning: listening on {host}: anyone who can reach this machine can use "
                   f"the viewer", err=True)
    typer.echo(f"navkit viewer: {url}  (Ctrl+C to stop)")
    if not no_open:
        try:
            webbrowser.open(url)
        except Exception:  # noqa: BLE001 - no browser is not an error
            pass
    import uvicorn

    server = uvicorn.Server(uvicorn_config(app))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
