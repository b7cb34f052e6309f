"""What the game, lesson and puzzle controllers ask their runner to do: one small frozen
class per kind of action, ``Action`` their union.

A runner dispatches with ``match`` and ends with ``assert_never(action)``, so mypy names
an action a runner forgot (``play.session.PlaySession._act``, ``learn.session``). The
controllers only make these values; they never do them.
"""

from __future__ import annotations

from dataclasses import dataclass

import zuni
from zuniboard.ai import SearchInfo


@dataclass(frozen=True, slots=True)
class Say:
    """Say ``text`` in ``tone``: info, move, ai, board, wrong, error, hint, takeback, over,
    ask, clock (a flag about to fall), answer (to where, moves, last), grade, lesson."""

    text: str
    tone: str = "info"


@dataclass(frozen=True, slots=True)
class Redraw:
    """Draw the position again."""


@dataclass(frozen=True, slots=True)
class ShowProgress:
    """How the search of ``side`` goes (``info``), None: it is done."""

    side: str
    info: SearchInfo | None = None


@dataclass(frozen=True, slots=True)
class Think:
    """Search ``game`` (a copy) for ``side`` at ``level``: ``what`` is ai, hint or grade
    (grade: the last move of ``game``); ``gen`` the position's generation; ``limits``
    the search's limits (time_limit, node_limit)."""

    what: str
    side: str
    game: zuni.Game
    level: int
    gen: int
    limits: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True, slots=True)
class Cancel:
    """Stop every search."""


@dataclass(frozen=True, slots=True)
class Request:
    """Ask the board ``name`` (host_move, hint, grade, take_back, resign, agree, state,
    press_ok; a lesson's setup) with ``args``; the controller hears the result through
    its ``replied``."""

    name: str
    args: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Judge:
    """The computer playing ``side`` weighs ``what`` (draw, count) offered by
    ``offered_by`` in ``game`` (a copy); answered with ``GameController.judged``."""

    what: str
    side: str
    game: zuni.Game
    offered_by: str


@dataclass(frozen=True, slots=True)
class MakeMove:
    """The terminal's hand makes ``move`` (a move of the game as it is) on the virtual board."""

    move: zuni.Move


@dataclass(frozen=True, slots=True)
class SetUp:
    """The terminal's hand sets the position up (only the pieces of ``sides``; None: all)."""

    sides: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class Restore:
    """The terminal's hand puts the pieces as in ``game`` (a lesson's take-back)."""

    game: zuni.Game


@dataclass(frozen=True, slots=True)
class Played:
    """Board move ``index`` is ``text``, made by ``side``; ``times``: its clock times
    (ms taken, ms left), None without clocks. For the game log."""

    index: int
    text: str
    side: str
    times: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class MoveGraded:
    """Board move ``index``, ``text`` made by ``side``, has the grade ``grade`` (its
    name), ``why`` in words: for the game log (docs/learn.md)."""

    index: int
    text: str
    side: str
    grade: str
    why: str


@dataclass(frozen=True, slots=True)
class Cut:
    """The moves from ``index`` on are taken back; ``game``: the game as it stands then."""

    index: int
    game: zuni.Game


@dataclass(frozen=True, slots=True)
class Ended:
    """The game ended: ``result`` (1-0, 0-1, 1/2-1/2) by ``termination``."""

    result: str
    termination: str


@dataclass(frozen=True, slots=True)
class Reopened:
    """The game's end was taken back."""


@dataclass(frozen=True, slots=True)
class Referee:
    """A remote game's referee is asked ``what`` (offer, answer, resign, claim) for
    ``side`` with ``args`` (docs/remote.md)."""

    what: str
    side: str
    args: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Switched:
    """The board plays another game, ``game_id``, with ``moves``: the runner opens it in
    the log and calls the controller's ``open``."""

    game_id: str
    moves: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NewGame:
    """Start a new game."""


@dataclass(frozen=True, slots=True)
class Quit:
    """The session ends."""


Action = (
    Say
    | Redraw
    | ShowProgress
    | Think
    | Cancel
    | Request
    | Judge
    | MakeMove
    | SetUp
    | Restore
    | Played
    | MoveGraded
    | Cut
    | Ended
    | Reopened
    | Referee
    | Switched
    | NewGame
    | Quit
)

# Actions that change nothing a page shows (a runner's ``on_change`` is not called for them).
UNSEEN = (ShowProgress, Cancel, Think)


# The two most made, typed as ``Action`` so that a list they start is a list of actions.
def say(text: str, tone: str = "info") -> Action:
    return Say(text, tone)


def request(name: str, *args: str) -> Action:
    return Request(name, args)


REDRAW = Redraw()
CANCEL = Cancel()


def kind_of(action: object) -> str:
    """An action's kind in a word (``Say`` -> ``say``): for logs, tests and messages."""
    return type(action).__name__.lower()
