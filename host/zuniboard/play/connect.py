"""Finding the board for `zuni play`: --port, --sim, or discovery with the virtual board
as the fallback."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from zuniboard.link import BoardLink, LinkError, discover


@dataclass
class BoardConnection:
    link: BoardLink
    virtual: Any = None  # the VirtualBoard when playing on it
    hand: Any = None  # moves pieces on the virtual board for typed moves

    def close(self) -> None:
        self.link.close()
        if self.virtual is not None:
            self.virtual.close()


def connect(
    port: str | None, sim: bool, ruleset: str | None, say: Callable[[str, str], None], *, timeout: float = 10.0
) -> BoardConnection:
    if port:
        say("link", "opening the board at %s" % port)
        return BoardConnection(BoardLink.open(port, timeout=timeout))
    if not sim:
        found = discover()
        if found:
            say("link", "board found at %s" % found[0])
            return BoardConnection(BoardLink.open(found[0], timeout=timeout))
        say("info", "no board plugged in (no USB 2E8A:0005 answering): playing on the virtual board")
    raise LinkError("the virtual board is not available yet")
