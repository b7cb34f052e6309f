"""The board link's events in a play session: ``LinkEvents``.

Each event the link reports (connected, unplugged, restarted, the board's moves and
state, its own events) is said to the user where it matters and handed to the game
controller, whose actions the session does; the controller's mirror is brought up to the
link's move list when the board's moves change. Part of ``session.PlaySession``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import assert_never

from zuniboard.link.client import BoardLink
from zuniboard.link.events import (
    BoardEvent,
    BoardRestarted,
    Connected,
    Console,
    Disconnected,
    LinkEvent,
    LinkFault,
    Moved,
    Reset,
    StateSent,
    Undone,
)
from zuniboard.play.actions import Action
from zuniboard.play.controller import GameController


def link_words(event: Connected | Disconnected | BoardRestarted | LinkFault, who: str) -> tuple[str, str, str]:
    """A link event as the controller hears it (the board event's kind and text) and as
    the user reads it (``who``: the board's id, '' not known)."""
    match event:
        case Connected(url):
            return "connected", url, "board %sconnected (%s)" % (who + " " if who else "", url)
        case Disconnected(why):
            return "disconnected", why, "board disconnected (%s); waiting for it to come back" % why
        case BoardRestarted(boot):
            return "boardreset", boot, "the board restarted (boot %s)" % boot
        case LinkFault(message):
            return "linkerror", message, "the board's link reports: %s" % message
        case _:
            assert_never(event)


class LinkEvents:
    """The events of ``link`` handed to ``control``: ``say`` tells the user, ``do`` does
    the controller's actions (the session's, which may change the controller's state, so
    each answer is done before the next is asked)."""

    def __init__(
        self,
        link: BoardLink,
        control: GameController,
        say: Callable[[str, str], None],
        do: Callable[[list[Action], float], None],
    ) -> None:
        self.link = link
        self.control = control
        self.say = say
        self.do = do

    def read(self, now: float) -> None:
        """Handles the link's events that came since the last pass."""
        for event in self.link.unread_events():
            self.on_event(event, now)

    def on_event(self, event: LinkEvent, now: float) -> None:
        """One link event: said to the user where it matters, handed to the controller."""
        control = self.control
        match event:
            case Connected() | Disconnected() | BoardRestarted() | LinkFault():
                kind, text, words = link_words(event, self.link.board_id)
                self.say("link", words)
                self.do(control.board_event(kind, text, now), now)
                if isinstance(event, Connected):
                    self.reconcile(now)
            case Moved() | Undone() | Reset():
                self.reconcile(now)
            case StateSent():
                self.do(control.board_state(self.link.info, now), now)
            case BoardEvent(name, text):
                if name == "over":
                    self.reconcile(now)
                self.do(control.board_event(name, text, now), now)
            case Console():
                pass  # MicroPython's own output: in the link's console log
            case _:
                assert_never(event)

    def reconcile(self, now: float) -> None:
        """Brings the mirror and the log up to the link's move list."""
        link = self.link
        self.do(self.control.board_moves(link.game, link.moves, link.synced(), now, link.move_times), now)
