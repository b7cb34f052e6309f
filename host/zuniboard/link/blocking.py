"""The blocking face of the link's requests: ``BlockingCalls``.

``begin(call, args, now, then)`` never blocks (the loops that wait on a board use it,
with their inbox as ``then``); scripts and commands that have nothing else to do meanwhile
call ``state()``, ``host_move()``, ... which are ``begin`` plus a wait on this thread.
``BoardLink`` is a ``BlockingCalls``: it provides ``begin`` and ``clock``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from zuniboard.link.events import Failed, Refused, RequestResult
from zuniboard.link.port import Clock, LinkError
from zuniboard.link.requests import BoardError

REQUEST_TIMEOUT_S = 10.0  # above the worst round trip survived: 2 x 2.5 s on the line, a pulled cable, resends
WAIT_GRACE_S = 5.0  # a blocking call waits this much past its timeout for the link thread's verdict


class BlockingCalls:
    """The named requests, each waiting for its result (``BoardLink``'s base)."""

    clock: Clock

    def begin(
        self,
        call: str,
        args: tuple[str, ...],
        now: float,
        then: Callable[[RequestResult], None],
        timeout: float = REQUEST_TIMEOUT_S,
    ) -> None:
        raise NotImplementedError

    def call(self, call: str, args: tuple[str, ...], timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """``begin`` and wait (this thread) for its result: the reply's fields;
        BoardError when the board refuses, LinkError when no reply comes in time."""
        box: list[RequestResult] = []
        ended = threading.Event()

        def then(result: RequestResult) -> None:
            box.append(result)
            ended.set()

        self.begin(call, args, self.clock(), then, timeout)
        if not ended.wait(timeout + WAIT_GRACE_S):  # the link thread ends it at the deadline
            raise LinkError("no reply to %s within %.1f s" % (call, timeout))
        result = box[0]
        if isinstance(result, Refused):
            raise BoardError(result.code, result.message)
        if isinstance(result, Failed):
            raise LinkError(result.why)
        return result.fields

    def ping(self, timeout: float = REQUEST_TIMEOUT_S) -> float:
        """Round-trip time of one request in seconds."""
        start = self.clock()
        self.call("ping", (), timeout)
        return self.clock() - start

    def state(self, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """The board's whole state: game, ruleset, moves, digest, hv, phase, turn, ..."""
        return self.call("state", (), timeout)

    def new_game(
        self, ruleset: str, timeout: float = REQUEST_TIMEOUT_S, *, position: str = "", clock: str = ""
    ) -> dict[str, str]:
        """A new game of ``ruleset``; with ``position`` (a position text, docs/rules.md
        "Positions as text", whose ruleset wins over ``ruleset``) a game from that position,
        which the board has the player set up one side at a time (``setup``). A board whose
        firmware predates ``setup`` raises ``BoardError`` (code ``unknown``) saying so.
        ``clock``: a time control (``zuni.clock`` text, e.g. "5+3", "south=5+3 north=10"):
        the board keeps the game's clocks (docs/clocks.md)."""
        return self.call("new_game", (ruleset, position, clock), timeout)

    def take_back(self, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Takes the last move back (once, even across a board reset: the request names
        the history it takes the move from, ``zuniboard.link.calls``)."""
        return self.call("take_back", (), timeout)

    def host_move(self, text: str, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Shows the computer's move on the board; the player carries it out."""
        return self.call("host_move", (text,), timeout)

    def hint(self, text: str = "", timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Shows a suggested move ("" clears it)."""
        return self.call("hint", (text,), timeout)

    def grade(self, kind: str, point: str, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Shows a graded mistake (``kind``: mistake, blunder; off clears) on ``point``,
        the moved piece's (docs/protocol.md)."""
        return self.call("grade", (kind, point) if point else (kind,), timeout)

    def led_test(self, timeout: float = REQUEST_TIMEOUT_S, walk_ms: int | None = None) -> dict[str, str]:
        """Every LED red, green, blue, white; with ``walk_ms``: one LED at a time in chain
        order, ``walk_ms`` each, each step a ``BoardEvent("ledwalk", "<LED index> <point>")``."""
        return self.call("led_test", () if walk_ms is None else (str(walk_ms),), timeout)

    def raw(self, on: bool, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Raw sensor view: the board sends "raw" events with every sensed change."""
        return self.call("raw", ("on" if on else "off",), timeout)

    def resign(self, side: str, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        return self.call("resign", (side,), timeout)

    def agree(self, what: str, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """``what``: "draw" or "count"."""
        return self.call("agree", (what,), timeout)

    def press_ok(self, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """The OK button, from the PC."""
        return self.call("press_ok", (), timeout)
