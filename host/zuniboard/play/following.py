"""The board is the truth about the game: ``BoardFollowing`` makes the mirrored game
follow the board's move list.

The link's list is compared with the mirror's: moves the board made are played into the
mirror (said, graded, logged through ``Played``), moves it took back are taken back
(``Cut``), and another game the board went to is handed on (``Switched``). While the
link refetches the board's list after a divergence, its list is not the board's yet:
the comparison is ``deferred``. Part of ``controller.GameController``.
"""

from __future__ import annotations

import zuni
from zuniboard.games.words import count_words, occupied_names, restore_words
from zuniboard.play.actions import REDRAW, Action, Cut, Played, Switched, say
from zuniboard.play.clock_watch import ClockWatch
from zuniboard.play.computer import ComputersTurn
from zuniboard.play.gamelog import common_prefix
from zuniboard.play.helping import Helping
from zuniboard.play.state import GameState
from zuniboard.play.typed_moves import TypedMoves

# The clock times the board sent with its moves: (game, index, text) -> (ms taken, ms left).
MoveTimes = dict[tuple[str, int, str], tuple[int, int]]


def same_effect(game: zuni.Game, text: str, move: zuni.Move) -> bool:
    """``text`` is another path of ``move`` with the same start, end and captures (a chain
    round a loop, either way): a board that senses occupancy cannot tell them apart."""
    try:
        other = game.parse_move(text)
    except zuni.MoveError:
        return False
    return bool(
        other.origin == move.origin and other.dest == move.dest and sorted(other.captures) == sorted(move.captures)
    )


class BoardFollowing:
    """The mirror of ``state`` following the board's moves."""

    def __init__(
        self, state: GameState, computer: ComputersTurn, helping: Helping, typed: TypedMoves, watch: ClockWatch
    ) -> None:
        self.state = state
        self.computer = computer
        self.helping = helping
        self.typed = typed
        self.watch = watch
        self.deferred = False  # the board's move list was being refetched: reconcile again later

    def board_moves(
        self, game_id: str, moves: list[str], synced: bool, now: float, times: MoveTimes | None = None
    ) -> list[Action]:
        """The board's game and move list as the link knows them now (``synced``: the
        link agrees with the board, not refetching after a divergence; ``times``: the
        clock times it sent with moves, (game, index, text) -> (ms taken, ms left))."""
        state = self.state
        if state.game is None:
            return []
        if game_id != state.board_game:
            if not synced:
                self.deferred = True
                return []
            self.deferred = False
            return [Switched(game_id, tuple(moves))]
        out: list[Action] = []
        k = common_prefix(state.moves, moves)
        if k < len(state.moves):
            if not synced:
                # The link is refetching after a divergence: its list is not the board's yet.
                self.deferred = True
                return []
            out += self._cut(k)
        self.deferred = False
        changed = False
        for i in range(len(state.moves), len(moves)):
            if not self.apply(out, i, moves[i], now, times):
                break
            changed = True
        if changed:
            out.append(REDRAW)
            out += self.computer.announce_turn()
        return out

    def _cut(self, k: int) -> list[Action]:
        state = self.state
        out: list[Action] = []
        n = len(state.moves)
        before = occupied_names(state.game)
        while len(state.moves) > k:
            state.moves.pop()
            state.game.pop()
        self.helping.taken_back(k, n)
        state.game.clear_agreement()
        out.append(Cut(k, state.game.copy()))
        state.new_position(out)
        state.phase = "setup"
        todo = restore_words(occupied_names(state.game), before)
        out.append(
            say(
                "took back %s; on the board: %s (the blinking points)"
                % (count_words(n - k, "move"), todo or "nothing to move"),
                "takeback",
            )
        )
        out.append(REDRAW)
        return out

    def apply(
        self, out: list[Action], index: int, text: str, now: float, times: MoveTimes | None, quiet: bool = False
    ) -> bool:
        """Plays the board's move ``index`` (``text``) into the mirror; False: the rules refuse it."""
        state = self.state
        game = state.game
        try:
            move = game.parse_move(text)
        except zuni.MoveError as exc:
            out.append(say("the board sent move %d %r, which the rules refuse: %s" % (index + 1, text, exc), "error"))
            return False
        side = str(zuni.SIDE_NAMES[game.turn])
        seat = state.seat(side)
        expected = self.computer.ai_move
        typed = self.typed.reported()
        same = typed and typed != text and not seat.is_away and same_effect(game, typed, move)
        game.push(move)
        state.moves.append(text)
        took = (times or {}).get((state.board_game, index, text))
        self.watch.clocks.moved(side, took[1] if took else None, state.turn_side(), now)
        out.append(Played(index, text, side, took))
        state.phase = "play"
        state.new_position(out)
        if not quiet:
            note = ""
            if seat.is_away and expected == text:
                note = " (carried out on the board)"
            elif seat.is_away:
                note = " (made on the board instead of the computer's %s)" % (expected or "move")
            elif same:
                # A chain round a loop, either way: the board sees the same points
                # touched, the same pieces taken and the same position.
                note = " (the board cannot tell it from %s, which it equals: the same pieces taken)" % typed
            out.append(say("%d. %s %s%s" % (index + 1, side, text, note), "move"))
            out += self.helping.grade_move(side)
        if game.is_game_over():
            outcome = game.outcome()
            if outcome is not None:
                out += state.ended(outcome)
        return True
