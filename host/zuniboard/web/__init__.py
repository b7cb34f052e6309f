"""The virtual board in the browser: the page and its server (``zuni sim --http``).

``start_web(control_port, ruleset, port)`` serves the page of a running virtual board
(its control channel on 127.0.0.1:``control_port``) and returns the server; ``.url``
is the page's address. See ``docs/simulator.md``.
"""

from __future__ import annotations

from zuniboard.web.server import WebServer


def start_web(control_port: int, ruleset: str, port: int = 0, link: str = "") -> WebServer:
    """Serve the virtual board's page on 127.0.0.1:``port`` (0: any free port).

    >>> web = start_web(board.control_port, "mosona", 8765)
    >>> web.url
    'http://127.0.0.1:8765/'
    >>> web.close()
    """
    return WebServer.start(control_port, ruleset, port, link)


__all__ = ["WebServer", "start_web"]
