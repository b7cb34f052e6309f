"""The replay on the board as a pure state machine: ``ReplayController``.

Events in (the board's moves and phase, button presses, typed keys, the computer's
analysis, the time), actions out (show a move on the board, take one back, show a hint,
analyze a move, let the terminal's hand carry a move out, say something, play on, quit).
No threads and no I/O: the driver (``zuniboard.replay.driver``) does the actions on the
link and feeds the events; the terminal and the page drive the same controller.

Meaning of the keys and buttons (docs/replay.md):

- OK / ``n``: the board shows the next move of the game as a host move (the LED language
  of docs/leds.md); once the player has carried it out the replay stands at the next
  move. OK while it is shown lets the terminal's hand carry it out (virtual board).
- BACK / ``b``: the last move is taken back; the player restores the position before it
  (the board lights what to put back, as for any take-back). The board's own BACK does
  the take-back itself; ``b`` asks the board for it.
- HINT / ``h``: the computer's view of the move about to be played: the move it prefers
  and how much the move played lost, in words and as the board's hint lights.
- ``p`` / ``play``: leave the replay and play on from here (``PlayOn`` action).

>>> c = ReplayController(ReplayCursor(record), hand=True)
>>> c.key("n", now=0.0)          # [Show("s3xm4-m5"), Say(...)]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import zuni
from zuniboard.ai import Analysis, score_text
from zuniboard.games.words import count_words, move_words, plays_words, side_title
from zuniboard.replay.cursor import ReplayCursor
from zuniboard.replay.mistakes import mistake_words

SHOW_S = 1.0  # a move stays lit this long before the terminal's hand carries it out

KEYS_HELP = "replay keys: n (next: OK), b (back: BACK), h (hint: HINT), p (play on from here), q (quit)"


# What the driver does: one small frozen class per kind, ``Action`` their union (the
# driver dispatches with ``match`` and ``assert_never``).
@dataclass(frozen=True, slots=True)
class Say:
    """Say ``text`` in ``tone``: info, move, hint, error."""

    text: str
    tone: str = "info"


@dataclass(frozen=True, slots=True)
class Show:
    """Show ``move`` (its text) on the board as a host move."""

    move: str


@dataclass(frozen=True, slots=True)
class TakeBack:
    """Ask the board to take its last move back."""


@dataclass(frozen=True, slots=True)
class ShowHint:
    """Light ``move`` (its text) on the board as a hint."""

    move: str


@dataclass(frozen=True, slots=True)
class Analyze:
    """Let the computer look at the move at index ``ply``; answered with ``analysed``."""

    ply: int


@dataclass(frozen=True, slots=True)
class Carry:
    """The terminal's hand carries ``move`` (its text) out on the virtual board."""

    move: str


@dataclass(frozen=True, slots=True)
class SetUp:
    """The terminal's hand sets the position up (after a step back)."""


@dataclass(frozen=True, slots=True)
class PlayOn:
    """Leave the replay and play on at ``ply``; ``line``: what was typed (``play
    north=ai:2``: the players)."""

    line: str
    ply: int


@dataclass(frozen=True, slots=True)
class Quit:
    """Leave the replay."""


End = PlayOn | Quit  # how a replay ends (``ReplayDriver.run``)
Action = Say | Show | TakeBack | ShowHint | Analyze | Carry | SetUp | End


def say(text: str, tone: str = "info") -> Action:
    return Say(text, tone)


@dataclass
class ReplayView:
    """What the terminal and the page show: the moves, where the replay stands, the
    move shown on the board and the last analysis (in words)."""

    moves: list[str] = field(default_factory=list)
    ply: int = 0
    showing: str = ""
    analysis: str = ""
    ruleset: str = ""
    game_id: int | None = None


class ReplayController:
    """Where the replay stands (``cursor``) against what the board has (its moves)."""

    def __init__(self, cursor: ReplayCursor, *, hand: bool = False, show_s: float = SHOW_S, target: int = 0) -> None:
        self.cursor = cursor
        self.hand = hand
        self.show_s = show_s
        self.target = target  # fast-forward: the moves up to it are shown one after another
        self.phase = "?"
        self.board_moves: list[str] = []
        self.showing: str = ""  # the move the board shows as a host move ('' none)
        self.want_show = target > cursor.ply  # show the next move as soon as the board is in play
        self.carry_at: float | None = None
        self.analysis = ""
        self.analysis_ply = -1
        self.analysis_best = ""  # the move the computer prefers there
        self.hint_asked = -1  # the ply an analysis was asked for
        self.done = False
        self.diverged = False

    # -- what the board says -------------------------------------------------------
    def board(self, moves: list[str], phase: str, now: float) -> list[Action]:
        """The board's moves and phase (after a move, a take-back, a state change)."""
        out: list[Action] = []
        if phase:
            self.phase = phase
        if moves == self.board_moves:
            return out + self._maybe_show(now)
        old = len(self.board_moves)
        self.board_moves = list(moves)
        record = [m.text() for m in self.cursor.moves]
        if moves != record[: len(moves)]:
            self.showing = ""
            self.carry_at = None
            if not self.diverged:
                self.diverged = True
                out.append(
                    say(
                        "the board's game left the replayed game at move %d (%s): BACK (or b) takes it back"
                        % (len(moves), moves[-1]),
                        "error",
                    )
                )
            return out
        self.diverged = False
        self.cursor.go_to(len(moves))
        self.showing = ""
        self.carry_at = None
        if len(moves) > old:
            move = self.cursor.moves[len(moves) - 1]
            before = self.cursor.game.copy()
            before.pop()
            out.append(say("%d. %s" % (len(moves), plays_words(before, move)), "move"))
            if self.cursor.at_end():
                out.append(
                    say(
                        "the end of the game (%s): b steps back, p plays on, q quits"
                        % count_words(self.cursor.length, "move")
                    )
                )
        else:
            out.append(say("back at move %d: restore the position the board shows (blinking points)" % len(moves)))
            if self.hand:
                out.append(SetUp())
            self.target = min(self.target, len(moves))
        if self.target > self.cursor.ply:
            self.want_show = True
        return out + self._maybe_show(now)

    def button(self, name: str, now: float) -> list[Action]:
        """A press of a board button (``ok``, ``back``, ``hint``)."""
        if name == "ok":
            return self._next(now)
        if name == "back":
            # The board takes the move back by itself: its new move list says so.
            if self.cursor.at_start():
                return [say("at the start of the game: nothing to step back")]
            return []
        if name == "hint":
            return self._hint()
        return []

    def key(self, line: str, now: float) -> list[Action]:
        """A line typed in the terminal (or a press on the page)."""
        word = line.strip().lower().split(" ", 1)[0] if line.strip() else ""
        if word in ("n", "next", "ok"):
            return self._next(now)
        if word in ("b", "back"):
            if self.cursor.at_start() and not self.diverged:
                return [say("at the start of the game: nothing to step back")]
            self.showing = ""
            self.carry_at = None
            self.want_show = False
            return [TakeBack()]
        if word in ("h", "hint"):
            return self._hint()
        if word in ("p", "play"):
            if self.diverged:
                return [say("the board's game is not the replayed one: b takes its last move back first", "error")]
            self.done = True
            return [PlayOn(line.strip(), self.cursor.ply)]
        if word in ("q", "quit"):
            self.done = True
            return [Quit()]
        if word == "":
            return []
        return [say("%r: %s" % (line.strip(), KEYS_HELP), "error")]

    def analysed(self, ply: int, analysis: Analysis | None, error: str = "") -> list[Action]:
        """The computer's view of the move at index ``ply`` (None: it failed)."""
        if ply != self.hint_asked:
            return []
        self.hint_asked = -1
        if analysis is None:
            return [say("no analysis: %s" % error, "error")]
        before = self.cursor.game.copy()
        while before.ply() > ply:
            before.pop()
        self.analysis = analysis_words(before, analysis)
        self.analysis_ply = ply
        self.analysis_best = str(analysis.best_move)
        out = [say(self.analysis, "hint")]
        if ply == self.cursor.ply and not self.showing and self.phase == "play":
            out.append(ShowHint(str(analysis.best_move)))
        return out

    def tick(self, now: float) -> list[Action]:
        """What is due at ``now`` (the hand carrying a shown move out)."""
        out = self._maybe_show(now)
        if self.carry_at is not None and now >= self.carry_at and self.showing:
            self.carry_at = None
            out.append(Carry(self.showing))
        return out

    def shown(self, text: str, now: float, ok: bool, why: str = "") -> list[Action]:
        """The driver's word on a ``show``: the board took it (``ok``) or refused it."""
        if not ok:
            self.showing = ""
            if "no game in play" in why:
                self.want_show = True  # being set up: shown once it is
                return []
            return [say("the board refused to show %s: %s" % (text, why), "error")]
        if self.hand:
            self.carry_at = now + self.show_s
        return []

    # -- the view ------------------------------------------------------------------
    def view(self) -> ReplayView:
        return ReplayView(
            moves=[m.text() for m in self.cursor.moves],
            ply=self.cursor.ply,
            showing=self.showing,
            analysis=self.analysis if self.analysis_ply == self.cursor.ply else "",
            ruleset=str(self.cursor.record.ruleset),
            game_id=self.cursor.record.id,
        )

    # -- inside --------------------------------------------------------------------
    def _next(self, now: float) -> list[Action]:
        if self.diverged:
            return [say("the board's game is not the replayed one: BACK (or b) takes its last move back", "error")]
        if self.showing:
            if self.hand:
                self.carry_at = None
                return [Carry(self.showing)]
            move = self.cursor.next_move()
            words = move_words(self.cursor.game, move) if move is not None else ""
            return [say("carry out %s on the board: %s" % (self.showing, words))]
        if self.cursor.at_end():
            return [say("the end of the game: no more moves (b steps back, p plays on)")]
        self.want_show = True
        return self._maybe_show(now)

    def _maybe_show(self, now: float) -> list[Action]:
        if not self.want_show or self.showing or self.phase != "play" or self.diverged:
            return []
        move = self.cursor.next_move()
        self.want_show = False
        if move is None:
            return []
        self.showing = move.text()
        text = "the board shows move %d, %s: %s" % (
            self.cursor.ply + 1,
            self.showing,
            "the terminal's hand carries it out in a moment"
            if self.hand
            else "carry it out (%s)" % move_words(self.cursor.game, move),
        )
        return [Show(self.showing), say(text)]

    def _hint(self) -> list[Action]:
        if self.cursor.at_end():
            return [say("the end of the game: no move to analyse", "hint")]
        ply = self.cursor.ply
        if self.analysis_ply == ply and self.analysis:
            out = [say(self.analysis, "hint")]
            if not self.showing and self.phase == "play":
                out.append(ShowHint(self.analysis_best))
            return out
        if self.hint_asked == ply:
            return []
        self.hint_asked = ply
        return [say("the computer looks at move %d" % (ply + 1), "hint"), Analyze(ply)]


def analysis_words(before: zuni.Game, a: Analysis) -> str:
    """``move 2, North n5xm5-m4 (-1.00): the computer prefers n4xm5-s4 (+0.00): lift n4,
    ...; the move played loses 1.00`` (``before``: the game before the move)."""
    side = side_title(str(zuni.SIDE_NAMES[a.side]))
    head = "move %d, %s %s (%s)" % (a.move_index + 1, side, a.move, score_text(a.score))
    if a.is_best:
        text = "%s: the computer prefers %s too: the best move" % (head, a.move)
    else:
        text = "%s: the computer prefers %s (%s): %s; the move played loses %.2f" % (
            head,
            a.best_move,
            score_text(a.best_score),
            move_words(before, a.best_move),
            a.loss / 100.0,
        )
        special = mistake_words(a)
        if special:
            text += " (%s)" % special
    if a.verdict:
        text += "; tablebase: %s" % a.verdict
    return text
