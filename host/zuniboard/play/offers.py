"""What ends or turns back a game by agreement: ``Offers`` (take-backs, resignations,
offers of a draw or an end by counting, a remote game's claims).

It owns the offer a person made here, and in a remote game (docs/remote.md) the offer
the others made that waits for our yes or no and the seats gone longer than the game
allows. In a game here the board is asked (and the computer weighs an offer made to it,
``Judge``); in a remote game the referee decides: its commands become ``Referee``
actions and its word comes back through ``offered``, ``offer_closed`` and ``declared``.
Part of ``controller.GameController``.
"""

from __future__ import annotations

import zuni
from zuniboard.games import clock_view
from zuniboard.play.actions import CANCEL, Action, Judge, Referee, request, say
from zuniboard.play.state import GameState

# The ends a remote game's referee declares (the others come with the moves).
DECLARED = ("resign", "agreed-draw", "agreed-count", "time", "abandoned", "abandoned-draw")


class Offers:
    """Take-backs, resignations and agreements in the game of ``state``."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.offer: tuple[str, str] | None = None  # (what, side) a person offered
        self.remote = False  # a remote game: the referee decides
        self.asked: tuple[str, str] | None = None  # an offer (what, by whom) waiting for our yes or no
        self.gone: list[str] = []  # remote seats gone longer than the game allows
        state.on_new_position(self.forget)

    def forget(self) -> None:
        self.offer = None

    def question(self, name: str) -> str:
        """What to ask before ``name`` ends the game ('' when it cannot be done now)."""
        state = self.state
        side = state.human_side()
        if state.game is None or state.is_over() or side is None:
            return ""
        if name == "resign":
            return "resign the game for %s?" % side
        if name == "claim":
            if not self.remote:
                return ""
            return "claim the win for %s (%s gone)?" % (side, "/".join(self.gone) or "nobody is")
        word = "a draw" if name == "draw" else "to end the game by counting the pieces"
        return "offer %s for %s?" % (word, side)

    # -- the commands ----------------------------------------------------------------
    def take_back(self) -> list[Action]:
        state = self.state
        if self.remote:
            if state.game is None or state.is_over():
                return [say("nothing to take back: the game is over", "takeback")]
            return self.referee("offer", "takeback")
        game = state.game
        outcome = game.outcome() if game is not None else None
        if outcome is not None and outcome.termination in ("resign", "agreed-draw", "agreed-count"):
            return [say("the game ended by %s: new starts a new game" % outcome.termination, "takeback")]
        if game is None or not state.moves:
            return [say("nothing to take back", "takeback")]
        # Back to before the last move a person made: the computer's replies after it
        # go too, so that the same person is to move again.
        count = 0
        previous = game.copy()
        while previous.move_stack:
            previous.pop()
            count += 1
            if not state.seat(str(zuni.SIDE_NAMES[previous.turn])).is_ai:
                break
        state.busy.clear()
        return [CANCEL, request("take_back", str(count))]

    def resign(self) -> list[Action]:
        state = self.state
        side = state.human_side()
        if state.game is None or state.is_over() or side is None:
            return [say("nobody to resign: %s" % ("the game is over" if state.is_over() else "no person plays"))]
        if self.remote:
            return self.referee("resign")
        return [request("resign", side)]

    def agree(self, what: str) -> list[Action]:
        state = self.state
        side = state.human_side()
        game = state.game
        if game is None or state.is_over() or side is None:
            return [say("no agreement possible now")]
        if self.remote:
            if what == "draw" and self.gone:
                return self.referee("claim", "draw")
            return self.referee("offer", what)
        word = "a draw" if what == "draw" else "an end by counting"
        team = game.team_of(zuni.SIDE_NAMES.index(side))
        others = [s for s in state.seats if game.team_of(zuni.SIDE_NAMES.index(s)) != team]
        people = [s for s in others if not state.seat(s).is_ai]
        if people:
            if self.offer is None or self.offer[0] != what:
                self.offer = (what, side)
                return [say("%s offers %s: %s, type %s to agree" % (side, word, "/".join(people), what))]
        elif others:
            # The computer weighs the offer (a short search: the runner's, see ``judged``).
            return [Judge(what, others[0], game.copy(), side)]
        return [request("agree", what)]

    def claim(self) -> list[Action]:
        if not self.remote:
            return [say("claim: only in a remote game, when the opponent has been gone too long")]
        return self.referee("claim", "win")

    def judged(self, what: str, offered_by: str, answer: str) -> list[Action]:
        """The computer's word on ``what`` offered by ``offered_by`` (``judge.verdict``:
        '' it agrees, else why not)."""
        if self.state.game is None or self.state.is_over():
            return []
        if answer:
            word = "a draw" if what == "draw" else "an end by counting"
            return [say("%s offers %s: %s" % (offered_by, word, answer))]
        return [request("agree", what)]

    def replied(self, name: str, args: tuple[str, ...], error: str, by_board: bool) -> list[Action]:
        """The board's answer to a ``take_back``, ``resign`` or ``agree`` request."""
        state = self.state
        what = "take-back" if name == "take_back" else " ".join((name, *args))
        if error:
            return [say("%s: %s%s" % (what, "the board refused: " if by_board else "", error), "error")]
        if state.is_over():
            return []  # the referee's end of a remote game, which the board now shows too
        if name == "resign":
            return state.declare(state.game.resign(zuni.SIDE_NAMES.index(args[0])))
        if name == "agree":
            return state.declare(state.game.agree(args[0]))
        return []

    # -- a remote game: what is asked of the referee, and its word -------------------------
    def referee(self, what: str, *args: str) -> list[Action]:
        """Asks the referee (the runner sends it); ``what`` offer, answer, resign, claim."""
        side = self.state.human_side()
        if side is None:
            return [say("%s: no seat of this board plays in this game" % what)]
        words = {
            "offer": "asked the others to agree: %s" % " ".join(args),
            "answer": "answered %s to the %s offer" % (args[-1], args[0]) if args else "",
            "resign": "resigning %s: sent to the referee" % side,
            "claim": "claiming %s: sent to the referee" % ("a draw" if args == ("draw",) else "the win"),
        }
        return [Referee(what, side, args), say(words[what])]

    def answer(self, yes: bool) -> list[Action]:
        """Our yes or no to the others' offer asked about."""
        assert self.asked is not None
        what, self.asked = self.asked[0], None
        return self.referee("answer", what, "yes" if yes else "no")

    def offered(self, what: str, by: str) -> list[Action]:
        """A remote player offers ``what`` (takeback, draw, count): we answer yes or no."""
        if self.asked == (what, by):
            return []
        self.asked = (what, by)
        word = {"takeback": "to take back their last move", "draw": "a draw", "count": "to end by counting"}[what]
        return [say("%s (%s) offers %s: agree? (yes/no)" % (by, self.state.who(by), word), "ask")]

    def offer_closed(self, note: str) -> list[Action]:
        """The offer asked about is gone (answered, declined, or a move made)."""
        self.asked = None
        return [say(note)] if note else []

    def declared(self, result: str, termination: str) -> list[Action]:
        """The referee ended the game by a declaration (resignation, agreement, a flag,
        a claim): the mirror ends so, and the board is asked to end it too."""
        state = self.state
        game = state.game
        if game is None or game.is_game_over() or termination not in DECLARED:
            return []
        if termination in ("agreed-draw", "agreed-count", "abandoned-draw"):
            what = "count" if termination == "agreed-count" else "draw"
            outcome = game.agree(what)
            board = request("agree", what)
        else:
            loser = clock_view.loser_side(game, result)
            outcome = game.lose_on_time(loser) if termination == "time" else game.resign(loser)
            board = request("resign", str(zuni.SIDE_NAMES[loser]))
        outcome.termination = termination
        self.asked = None
        return state.declare(outcome) + [board]
