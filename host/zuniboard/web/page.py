"""The hook ``zuni play --sim`` looks for (``zuniboard.play.connect.browser_page``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from zuniboard.web.server import WebServer

_served: list[WebServer] = []


def serve(board: Any, port: int = 0) -> str:
    """Serve ``board``'s page (a running ``VirtualBoard``) for the rest of the process;
    returns its address."""
    web = WebServer.start(board, port)
    _served.append(web)
    return web.url


def publish(name: str, value: object) -> None:
    """Shows ``value`` (JSON data) as ``name`` in the state of every page served (the
    replay's view: docs/replay.md)."""
    for web in _served:
        web.sim.publish(name, value)


def on_line(handler: Callable[[str], None] | None) -> None:
    """Lines typed on the page (``POST /api/line``: a move or a command) go to ``handler``
    (a game controller's runner: ``PlaySession.key``); None: the page takes none."""
    for web in _served:
        web.sim.input.line_handler = handler


def on_remote(handler: Callable[[dict[str, object]], dict[str, object]] | None) -> None:
    """The page's "Play someone remotely" requests (``POST /api/remote``) go to
    ``handler`` (``remote.page_lobby.PageLobby.request``); None: the page offers none."""
    for web in _served:
        web.sim.input.remote_handler = handler


def fits(ruleset: str) -> bool:
    """Whether ``ruleset`` plays on the board of every page served (its points)."""
    import zuni

    names = sorted(zuni.new_game(ruleset).geometry.names)
    return all(sorted(web.sim.board["names"]) == names for web in _served)


def stop_all() -> None:
    """Stop every page ``serve`` started."""
    while _served:
        _served.pop().close()
