"""The virtual board in the browser: the page and its server (``zuni sim --http PORT``).

``start_web(virtual_board, port)`` serves the page of a running ``VirtualBoard`` and
returns the server; ``.url`` is the page's address, ``.close()`` stops it. See
``docs/simulator.md`` for the page and the control API.
"""

from __future__ import annotations

from typing import Any

from zuniboard.web.server import WebServer


def start_web(board: Any, port: int = 0, ruleset: str | None = None) -> WebServer:
    """Serve the page of ``board`` (a ``zuniboard.virtual.board.VirtualBoard``, or the TCP port of a
    virtual board's control channel together with ``ruleset``) on 127.0.0.1:``port``
    (0: any free port). The server runs in background threads until ``close()``.

    >>> web = start_web(virtual_board, 8765)
    >>> web.url
    'http://127.0.0.1:8765/'
    >>> web.close()
    """
    return WebServer.start(board, port, ruleset)


__all__ = ["WebServer", "start_web"]
