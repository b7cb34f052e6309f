"""The computer's turn (and a remote player's, shown the same way): ``ComputersTurn``.

It owns the move found for the position, whether the board shows it (as a host move)
and when the terminal's hand carries it out on the virtual board: the computer is asked
to think when its turn comes, its move is said and sent to the board once the board is
set up, sent again while the board is not ready, and made by the hand ``show_move_s``
after the board lit it. Part of ``controller.GameController``.
"""

from __future__ import annotations

import zuni
from zuniboard.ai import LEVEL_TIMES
from zuniboard.games import clock_view
from zuniboard.games.clock_view import ClockView
from zuniboard.games.words import plays_words
from zuniboard.play.actions import Action, MakeMove, ShowProgress, request, say
from zuniboard.play.state import GameState

RETRY_S = 0.3  # the board was not ready (setting up, reconnecting): ask again after this
REFUSED_RETRY_S = 2.0  # the board refused the computer's move: ask again after this
# The computer's move stays lit on the board this long before the terminal's hand on the
# virtual board carries it out, so that a person sees it (on the page, or on LEDs).
SHOW_AI_MOVE_S = 2.0


class ComputersTurn:
    """The computer's (or a remote player's) move for the position of ``state``."""

    def __init__(self, state: GameState, clocks: ClockView, show_move_s: float = SHOW_AI_MOVE_S) -> None:
        self.state = state
        self.clocks = clocks
        self.show_move_s = show_move_s
        self.ai_move: str | None = None  # the computer's move for this position
        self.ai_sent = False  # ... shown on the board as a host move
        self.ai_unsaid = False  # the computer's move found during setup, not said yet
        self.show_at: float | None = None  # when the hand carries out the computer's move
        self.send_at = 0.0
        state.on_new_position(self.forget)

    def forget(self) -> None:
        self.ai_move = None
        self.ai_sent = False
        self.ai_unsaid = False
        self.show_at = None

    def board_forgot(self) -> None:
        """The board was reset or reconnected: show the computer's move again."""
        self.ai_sent = False

    def tick(self, side: str, now: float) -> list[Action]:
        """What is due on the turn of ``side``, a seat no person here plays."""
        state = self.state
        seat = state.seat(side)
        if self.ai_move is None:
            if "ai" not in state.busy and seat.is_ai:
                limits: tuple[tuple[str, float], ...] = ()
                if self.clocks.on and not state.deterministic:
                    # On a clock the computer's time comes from its clock (docs/clocks.md).
                    limits = (("time_limit", self.clocks.think_s(side, LEVEL_TIMES[seat.level], now)),)
                return [say("%s (%s) is thinking" % (side, seat), "ai"), state.think("ai", side, seat.level, limits)]
        elif not self.ai_sent and now >= self.send_at and state.phase == "play":
            self.send_at = now + RETRY_S
            if self.ai_unsaid:
                return self.says(side)
            return [request("host_move", self.ai_move)]
        elif self.ai_sent and self.show_at is not None and now >= self.show_at:
            self.show_at = None  # the terminal's hand makes the computer's move, once seen lit
            if state.hand:
                return [MakeMove(state.game.parse_move(self.ai_move))]
        return []

    def found(self, side: str, move: str, now: float) -> list[Action]:
        """The computer's search found ``move``."""
        self.state.busy.discard("ai")
        self.ai_move = move
        self.ai_sent = False
        out: list[Action] = [ShowProgress(side)]
        if self.state.phase != "play":
            # Found while the board is being set up: said and shown once it is (a
            # computer's move printed before the pieces stand is a move nobody sees).
            self.ai_unsaid = True
            self.send_at = now
            return out
        return out + self.says(side)

    def says(self, side: str) -> list[Action]:
        """The computer's move said, and sent to the board to show."""
        assert self.ai_move is not None
        self.ai_unsaid = False
        game = self.state.game
        move = game.parse_move(self.ai_move)
        return [
            say("%s (%s)" % (plays_words(game, move), self.state.seat(side)), "ai"),
            request("host_move", self.ai_move),
        ]

    def replied(self, now: float, error: str, by_board: bool) -> list[Action]:
        """The board's answer to the ``host_move`` request (``error``: why not)."""
        state = self.state
        if error:
            self.send_at = now + RETRY_S
            if by_board and "no game in play" not in error:
                self.send_at = now + REFUSED_RETRY_S
                return [say("the board refused the computer's move %s: %s" % (self.ai_move, error), "error")]
            return []
        self.ai_sent = True
        state.phase = "play"
        assert self.ai_move is not None
        # The computer's clock stops once its move is shown (docs/clocks.md).
        self.clocks.switched(state.turn_side() or "", clock_view.side_after(state.game, self.ai_move), now)
        if state.hand:
            self.show_at = now + self.show_move_s
            return [say("the board shows %s; the terminal's hand carries it out in a moment" % self.ai_move, "ai")]
        return [say("carry out %s on the board: %s" % (self.ai_move, state.how(self.ai_move)), "ai")]

    def remote_move(self, text: str, now: float) -> list[Action]:
        """A remote player's move, as the referee took it: shown on the board for a person
        here to carry out, exactly as the computer's move is."""
        state = self.state
        side = state.turn_side()
        if side is None or not state.seat(side).is_remote or self.ai_move == text:
            return []
        try:
            move = state.game.parse_move(text)
        except zuni.MoveError as exc:
            return [say("the referee sent %r, which the rules refuse here: %s" % (text, exc), "error")]
        self.ai_move = move.text()
        self.ai_sent = False
        self.send_at = now + RETRY_S
        return [say("%s (%s)" % (plays_words(state.game, move), state.who(side)), "ai")] + [
            request("host_move", self.ai_move)
        ]

    def shown_on_resume(self, hostmove: str, now: float) -> None:
        """Resumed while the board still shows the computer's move ``hostmove``: keep it."""
        side = self.state.turn_side()
        if hostmove and side is not None and self.state.seat(side).is_away:
            self.ai_move = hostmove
            self.ai_sent = True
            if self.state.hand:
                self.show_at = now + self.show_move_s

    def announce_turn(self) -> list[Action]:
        """Whose turn it is, and what they do now."""
        state = self.state
        side = state.turn_side()
        if side is None or state.phase != "play":
            return []  # the board is being set up (or not heard from yet): it says so later
        seat = state.seat(side)
        if seat.is_remote and not self.ai_move:
            return [say("%s (%s) is to move: waiting for their move" % (side, seat.name), "ai")]
        if seat.is_away:
            if self.ai_move and self.ai_sent:
                return [say("%s (%s) waits for %s: %s" % (side, seat, self.ai_move, state.how(self.ai_move)), "ai")]
            return []
        how = "type it or make it %s" % state.moves_at if state.hand else "make it %s" % state.moves_at
        return [say("%s to move (%s; help lists the commands)" % (side, how))]

    def showing(self) -> str | None:
        """The move the board shows now, None: none."""
        if self.ai_move and self.ai_sent and not self.state.is_over():
            return self.ai_move
        return None
