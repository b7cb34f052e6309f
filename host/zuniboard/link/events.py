"""What the board link reports, as small typed values: ``LinkEvent`` (what happened on
the link, in order) and ``RequestResult`` (how a request ended).

Each kind of event is its own frozen class with the fields it has, so a consumer
dispatches by type (``match event: case Moved(index, text): ...``) and mypy says which
kind a ``match`` forgot (``typing.assert_never``). The board's own events (``event
<kind> <text>`` frames: button, over, raw, sensed, ledwalk, ...) stay one class,
``BoardEvent``, with the board's name for them: a newer board may send kinds this host
does not know, and they must pass through unchanged (docs/protocol.md, "Events").
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "Answered",
    "BoardEvent",
    "BoardRestarted",
    "Connected",
    "Console",
    "Disconnected",
    "Failed",
    "LinkEvent",
    "LinkFault",
    "Moved",
    "Refused",
    "RequestResult",
    "Reset",
    "StateSent",
    "Undone",
]


@dataclass(frozen=True)
class Moved:
    """Move number ``index`` (from 0) of the board's game is ``text``."""

    index: int
    text: str


@dataclass(frozen=True)
class Undone:
    """Moves were taken back: ``moves_left`` remain."""

    moves_left: int


@dataclass(frozen=True)
class Reset:
    """The mirror was cleared (a new game, or a history that is not the mirror's):
    the moves of ``game`` follow from the first."""

    game: str


@dataclass(frozen=True)
class Connected:
    """The board answered hello on ``url``."""

    url: str


@dataclass(frozen=True)
class Disconnected:
    """The connection was lost (``why``); the link opens it again by itself."""

    why: str


@dataclass(frozen=True)
class BoardRestarted:
    """The board booted again (its new boot id): it resumed its game from its journal."""

    boot: str


@dataclass(frozen=True)
class LinkFault:
    """The board could not read a line from this host (``err 0``): its code and text."""

    message: str


@dataclass(frozen=True)
class Console:
    """A line from the board that is not a frame (MicroPython's own output)."""

    line: str


@dataclass(frozen=True)
class StateSent:
    """The board sent its state on its own (a new game, a take-back, the end, setup
    done): its ``phase``; the whole state is the link's ``info``."""

    phase: str


@dataclass(frozen=True)
class BoardEvent:
    """One of the board's own events: ``name`` (button, over, wrong, error, takeback,
    setup, raw, sensed, ledwalk, hint, ...) and its text, as the board sent them."""

    name: str
    text: str = ""


LinkEvent = (
    Moved | Undone | Reset | Connected | Disconnected | BoardRestarted | LinkFault | Console | StateSent | BoardEvent
)


# -- how a request ended (posted to the caller's callback, never raised in the link) --


@dataclass(frozen=True)
class Answered:
    """The board did request ``call`` (with ``args``); ``fields``: its reply's keys."""

    call: str
    args: tuple[str, ...]
    fields: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Refused:
    """The board refused request ``call``: the protocol's error ``code`` and its text."""

    call: str
    args: tuple[str, ...]
    code: str
    message: str


@dataclass(frozen=True)
class Failed:
    """No answer: the link could not get request ``call`` through (``why``: no reply in
    time, the link closed)."""

    call: str
    args: tuple[str, ...]
    why: str


RequestResult = Answered | Refused | Failed


@dataclass(frozen=True)
class Woken:
    """An inbox's wake-up: something arrived outside the inbox (a link event, a broker's
    message), so a loop waiting on its inbox handles it now, not when its wait times out.
    ``BoardLink.on_event`` (the port thread) posts it; the loop reads the events itself."""
