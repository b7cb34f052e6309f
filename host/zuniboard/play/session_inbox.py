"""What comes to a play session from other threads: ``SessionInbox``.

Lines typed at the terminal or on the page, the end of the typed input, the computer's
answers, the board's replies to requests and the wake-ups of the link's and the broker's
threads are put here from any thread; the session's loop (single-threaded) waits on it
and takes them out in order. Part of ``session.PlaySession``.
"""

from __future__ import annotations

import contextlib
import queue
from collections.abc import Iterator
from dataclasses import dataclass

from zuniboard.link.events import RequestResult, Woken
from zuniboard.play.openings import NewGamePlan
from zuniboard.play.thinking import SearchPost


@dataclass(frozen=True)
class Typed:
    """A line typed at the terminal (``where="terminal"``) or on the page (``"page"``)."""

    line: str
    where: str = "terminal"


@dataclass(frozen=True)
class InputEnded:
    """The typed input ended (Ctrl-D, ``</dev/null``)."""


@dataclass(frozen=True)
class NewGameStarted:
    """The board's answer to the ``new_game`` request that opens ``opening``."""

    plan: NewGamePlan
    result: RequestResult


InboxItem = Typed | InputEnded | SearchPost | RequestResult | NewGameStarted | Woken


class SessionInbox:
    """The session's items in the order they came (``put`` from any thread)."""

    def __init__(self) -> None:
        self.queue: queue.Queue[InboxItem] = queue.Queue()

    def put(self, item: InboxItem) -> None:
        self.queue.put(item)

    def wait(self, timeout: float) -> list[InboxItem]:
        """The first item to come within ``timeout`` s (none: an empty list)."""
        with contextlib.suppress(queue.Empty):
            return [self.queue.get(timeout=timeout)]
        return []

    def drain(self, items: list[InboxItem]) -> Iterator[InboxItem]:
        """``items``, then what is in the inbox, one at a time: an item put while one is
        handled comes in the same pass."""
        yield from items
        while True:
            try:
                yield self.queue.get_nowait()
            except queue.Empty:
                return
