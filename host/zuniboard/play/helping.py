"""The help a person gets in ``zuni play``: hints and move grades, ``Helping``.

It owns each seat's help level (``play.assist``), the hints each side may still ask this
game, the hint found and shown for the position, and the grades of the people's moves
(docs/strength.md, "Move grades"), said as the seat's help asks and kept for the review
after the game. Part of ``controller.GameController``.
"""

from __future__ import annotations

from typing import TypedDict

from zuniboard.games.words import HintNote, count_words, hint_note, hint_words
from zuniboard.play.actions import Action, MoveGraded, request, say
from zuniboard.play.assist import ASSISTS, DEFAULT_ASSIST, Assist
from zuniboard.play.grades import GRADES, MoveGrade
from zuniboard.play.state import GameState

HINT_TIME_S = 0.3  # thinking time of a hint
HINT_LEVEL = 2
# A person's move is graded (docs/strength.md, "Move grades") in this long, or in this
# many nodes when the computer thinks by node counts: short, so that the grade is said
# before the computer's reply changes the position (which drops a grade not yet found).
GRADE_TIME_S = 0.3
GRADE_NODES = 3000


class GradedMove(TypedDict):
    index: int
    side: str
    move: str
    grade: str
    words: str
    colour: str


class Review(TypedDict):
    """The grades of the game so far: per side the count of each grade, every move graded."""

    counts: dict[str, dict[str, int]]
    moves: list[GradedMove]


class SeatHelp(TypedDict):
    level: str
    hints_left: int | None


class Helping:
    """Hints and grades for the people playing the game of ``state``."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        # Help per seat (``play.assist``), the hints each side may still ask this game
        # (None: no limit), and the grades of the people's moves (move index -> grade).
        self.assist: dict[str, Assist] = {}
        self.hint_limit: int | None = None
        self.hints_used: dict[str, int] = {}
        self.grades: dict[int, tuple[str, str, MoveGrade]] = {}  # index -> (side, move, grade)
        self.hint_shown = False
        self.hint_table = ""  # the endgame tables' verdict of the hint found, in words ('' none)
        # The hint as the page shows it beside the board (``words.hint_note``), None: none.
        self.hint_note: HintNote | None = None
        state.on_new_position(self.forget)

    def forget(self) -> None:
        self.hint_shown = False
        self.hint_table = ""
        self.hint_note = None

    def new_game(self) -> None:
        self.grades = {}
        self.hints_used = {}

    def taken_back(self, k: int, n: int) -> None:
        """Moves ``k`` to ``n`` (not included) were taken back: their grades go too."""
        for index in range(k, n):
            self.grades.pop(index, None)

    # -- the help of each seat ------------------------------------------------------------
    def help_of(self, side: str) -> Assist:
        """The help ``side``'s seat gets (``play.assist``; the default when not set)."""
        return self.assist.get(side) or ASSISTS[DEFAULT_ASSIST]

    def help_logged(self) -> dict[str, str]:
        """The help level of each seat a person plays (the log keeps it with the game)."""
        return {side: self.help_of(side).name for side, seat in self.state.seats.items() if not seat.is_away}

    def hints_left(self, side: str) -> int | None:
        if self.hint_limit is None:
            return None
        return max(0, self.hint_limit - self.hints_used.get(side, 0))

    def seat_help(self) -> dict[str, SeatHelp]:
        """Each person's help level and hints left (the page shows them)."""
        return {
            s: {"level": self.help_of(s).name, "hints_left": self.hints_left(s) if self.help_of(s).hints else None}
            for s, seat in self.state.seats.items()
            if not seat.is_away
        }

    # -- hints -----------------------------------------------------------------------
    def hint(self) -> list[Action]:
        """A hint asked for the side to move: searched for, or why not."""
        state = self.state
        side = state.turn_side()
        if side is None:
            return [say("no hint: the game is over", "hint")]
        if state.seat(side).is_away:
            return [say("no hint: it is %s's turn (%s)" % (side, state.who(side)), "hint")]
        if "hint" in state.busy:
            return []
        # A refused hint also clears the board's own (it shows one when the host sends
        # none within a second of HINT): the help level is the board's too.
        if not self.help_of(side).hints:
            return [say("no hint: %s plays without hints (help level %s)" % (side, self.help_of(side).name), "hint")]
        left = self.hints_left(side)
        if left == 0:
            return [
                say(
                    "no hint: %s has had the %s of this game" % (side, count_words(self.hint_limit or 0, "hint")),
                    "hint",
                )
            ]
        self.hints_used[side] = self.hints_used.get(side, 0) + 1
        limits = () if state.deterministic else (("time_limit", HINT_TIME_S),)
        more = "" if left is None else " (%s left after this one)" % count_words(left - 1, "hint")
        return [
            say("looking for a good move for %s%s" % (side, more), "hint"),
            state.think("hint", side, HINT_LEVEL, limits),
        ]

    def found(self, move: str, verdict: str) -> list[Action]:
        """The hint's search found ``move`` (``verdict``: the tables', in words): shown on the board."""
        self.state.busy.discard("hint")
        self.hint_table = verdict
        return [request("hint", move)]

    def replied(self, args: tuple[str, ...], error: str, by_board: bool) -> list[Action]:
        """The board's answer to the ``hint`` request (``error``: why not)."""
        game = self.state.game
        side = self.state.turn_side() or "?"
        text = args[0] if args else ""
        table = self.hint_table
        if not text:
            self.hint_shown = False
            self.hint_note = None
            return []
        if error:
            why = "the board refused: %s" % error if by_board else error
            line = hint_words(side, text, "", table, False)
            self.hint_note = hint_note(game, side, text, table)
            return [say("%s (the board could not show it: %s)" % (line, why), "hint")]
        self.hint_shown = True
        self.hint_note = hint_note(game, side, text, table)
        return [say(hint_words(side, text, self.state.how(text), table, True), "hint")]

    # -- grades ----------------------------------------------------------------------
    def grade_move(self, side: str) -> list[Action]:
        """``side`` just moved: its move graded, when a person plays it with grades."""
        state = self.state
        if state.seat(side).is_away or not self.help_of(side).grades:
            return []
        limits = (("node_limit", GRADE_NODES),) if state.deterministic else (("time_limit", GRADE_TIME_S),)
        return [state.think("grade", side, 0, limits)]

    def graded(self, side: str, index: int, grade: MoveGrade) -> list[Action]:
        """The grade of move ``index`` (``side``'s): kept for the review, said as the
        seat's help asks, and a mistake or blunder shown on the moved piece's LED."""
        moves = self.state.moves
        self.state.busy.discard("grade")
        if not 0 <= index < len(moves):
            return []
        text = moves[index]
        self.grades[index] = (side, text, grade)
        # Into the log with the move, whatever of it the seat's help says aloud.
        out: list[Action] = [MoveGraded(index, text, side, grade.name, grade.words)]
        if self.help_of(side).grades != "all" and not grade.is_mistake:
            return out
        out += [say("%d. %s %s: %s, %s" % (index + 1, side, text, grade.name, grade.words), "grade")]
        if grade.is_mistake and index == len(moves) - 1:
            game = self.state.game
            move = game.move_stack[index]
            if move.dest >= 0:
                out.append(request("grade", grade.name, str(game.geometry.names[move.dest])))
        return out

    def review(self) -> Review:
        """The grades of the game so far: per side the count of each grade, and every
        move graded (the page's review after the game)."""
        counts: dict[str, dict[str, int]] = {}
        moves: list[GradedMove] = []
        for index in sorted(self.grades):
            side, text, grade = self.grades[index]
            counts.setdefault(side, dict.fromkeys(GRADES, 0))[grade.name] += 1
            moves.append(
                {
                    "index": index,
                    "side": side,
                    "move": text,
                    "grade": grade.name,
                    "words": grade.words,
                    "colour": grade.colour,
                }
            )
        return {"counts": counts, "moves": moves}
