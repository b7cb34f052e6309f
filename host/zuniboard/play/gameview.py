"""What the page shows of a game of ``zuni play``: ``GameView`` (JSON, made by
``game_view``) and the last things said (``SaidLog``), which the page shows and
announces. Part of ``controller.GameController``.
"""

from __future__ import annotations

from typing import TypedDict

import zuni
from zuniboard.games.spoken import utterance
from zuniboard.games.words import numbered_moves, outcome_words, plays_words, side_title
from zuniboard.link.mirror import disks_of
from zuniboard.play.actions import Action, Say
from zuniboard.play.helping import Review, SeatHelp
from zuniboard.play.state import GameState

SAID_KEPT = 6  # the view keeps this many of the last things said (the page shows them)


# The last move as the page marks it ("from" and "to" are keywords: the functional form).
LastMove = TypedDict(
    "LastMove",
    {"text": str, "side": str, "words": str, "path": list[str], "took": list[str], "from": str, "to": str},
)


class ShownMove(TypedDict):
    """The computer's move the board shows now."""

    text: str
    path: list[str]
    took: list[str]


class GameView(TypedDict, total=False):
    """The game as the page shows it (JSON: ``GameController.view``)."""

    controller: bool
    said: list[list[str]]
    announce: list[list[str | bool]]
    moves: list[str]
    lost: bool
    numbered: str
    last: LastMove | None
    disks: dict[str, list[str]]
    showing: str
    shown: ShownMove | None
    result: str
    turn: str
    seats: dict[str, str]
    number: int
    refusal: str
    legal: list[str]
    review: Review
    help: dict[str, SeatHelp]


class SaidLog:
    """The last things said (tone, text), and how many were said in all."""

    def __init__(self) -> None:
        self.said: list[tuple[str, str]] = []
        self.count = 0  # the page's announcements count on it

    def keep(self, out: list[Action]) -> list[Action]:
        """``out``, its words kept."""
        for action in out:
            if isinstance(action, Say):
                self.said.append((action.tone, action.text))
                self.count += 1
        del self.said[:-SAID_KEPT]
        return out

    def as_lists(self) -> list[list[str]]:
        return [list(s) for s in self.said]

    def announcements(self) -> list[list[str | bool]]:
        """What the page announces (its live region, its speech) of the last things said:
        ``[key, spoken text, cuts]`` (``speech.spoken``; ``cuts``: a move, which cuts
        short what the page is still saying); each key once, in order."""
        first = self.count - len(self.said)
        out: list[list[str | bool]] = []
        for i, (tone, text) in enumerate(self.said):
            said = utterance(tone, text)
            if said is not None:
                out.append(["said:%d" % (first + i), said.text, said.cuts])
        return out


def _last_move(game: zuni.Game) -> LastMove:
    names = game.geometry.names
    before = game.copy()
    before.pop()
    move = game.move_stack[-1]
    return {
        "text": move.text(),
        "side": str(zuni.SIDE_NAMES[before.turn]),
        "words": plays_words(before, move).replace(" plays ", " played ", 1),
        "path": [str(names[p]) for p in move.path],
        "took": [str(names[p]) for p in move.captures],
        "from": str(names[move.origin]) if move.origin >= 0 else "",
        "to": str(names[move.dest]) if move.dest >= 0 else "",
    }


def game_view(
    state: GameState,
    said: SaidLog,
    *,
    showing: str | None,
    refusal: str,
    review: Review,
    seat_help: dict[str, SeatHelp],
) -> GameView:
    """The game of ``state`` as the page shows it (the keys of ``web.world.Narrator``'s
    view, from the game itself rather than guessed from the board's reports), and what
    was said; ``showing``: the computer's move the board shows, ``refusal``: why the
    board refused the last move ('' it did not); ``review`` and ``seat_help``: the
    grades so far and each person's help."""
    game = state.game
    if game is None:
        return {"controller": True, "said": said.as_lists(), "announce": said.announcements()}
    names = game.geometry.names
    out: GameView = {"controller": True, "moves": list(state.moves), "lost": False}
    out["numbered"] = numbered_moves(game, state.moves)
    out["last"] = _last_move(game) if state.moves else None
    out["disks"] = disks_of(game)  # whose disk stands where (web.world.World.settle)
    out["showing"] = ""
    out["shown"] = None
    if showing:
        shown = game.parse_move(showing)
        out["showing"] = plays_words(game, shown)
        out["shown"] = {
            "text": shown.text(),
            "path": [str(names[p]) for p in shown.path],
            "took": [str(names[p]) for p in shown.captures],
        }
    outcome = game.outcome()
    out["result"] = outcome_words(game, outcome) if outcome is not None else ""
    side = state.turn_side()
    out["turn"] = side_title(side) if side is not None and state.phase == "play" else ""
    out["seats"] = {s: str(seat) for s, seat in state.seats.items()}
    out["number"] = state.number
    # Why the board refused the last move, in the rule's words (as the terminal says
    # it), never the board's "missing: s4; extra: m5"; the page drops it once the
    # board no longer shows the error.
    if refusal:  # (else the page keeps what it read from the board's own report)
        out["refusal"] = refusal
    out["said"] = said.as_lists()
    out["announce"] = said.announcements()
    out["legal"] = sorted(m.text() for m in game.legal_moves())
    out["review"] = review
    out["help"] = seat_help
    return out
