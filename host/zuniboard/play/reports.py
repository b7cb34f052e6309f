"""What the board reports besides its move list: ``BoardReports``.

Its state (a reply, or what it sent on its own) gives its phase (setup, play, over),
the mistake it shows, a fault of its LED supply and its clocks; its events (a refused
move, a button, a take-back of the game's end, a restart) are handled from one table.
While the phase is not known it is asked for often, during setup rarely (the board says
when setup turns into play). Part of ``controller.GameController``.
"""

from __future__ import annotations

from collections.abc import Callable

import zuni
from zuniboard.games import clock_view
from zuniboard.play.actions import Action, Reopened, SetUp, Think, request, say
from zuniboard.play.clock_watch import ClockWatch
from zuniboard.play.computer import ComputersTurn
from zuniboard.play.helping import Helping
from zuniboard.play.state import GameState
from zuniboard.play.typed_moves import TypedMoves

STATE_POLL_S = 0.5  # while the board's phase is not known (after a reset, a game it switched to): ask this often
# The board says when setup turns into play (a "state" event); asking during setup is
# only a fallback for an event lost with the connection.
SETUP_POLL_S = 5.0

# What a person reads when the board's LED supply switch trips (the board's ``fault``
# event and the state's ``fault=``): the cause to look for, in plain words.
SUPPLY_FAULT_WORDS = "the LED supply switched off: too much current (short on the LED line?)"


def supply_fault_words(fault: str) -> str:
    """The sentence for a board's ``fault`` (``led-supply``; a newer board's other kinds
    are said by name)."""
    if fault.strip() == "led-supply":
        return SUPPLY_FAULT_WORDS
    return "the board reports a fault: %s" % fault.strip()


class BoardReports:
    """The board's state and events, for the game of ``state``."""

    def __init__(
        self, state: GameState, computer: ComputersTurn, helping: Helping, typed: TypedMoves, watch: ClockWatch
    ) -> None:
        self.state = state
        self.computer = computer
        self.helping = helping
        self.typed = typed
        self.watch = watch
        self.state_at = 0.0  # when to ask the board's state again (while not in play)
        self.last_wrong = ""  # the board's refusal of the last move, as its event said it
        self.board_error = ""  # the mistake the board shows now, as its last state said
        # The board's fault (``fault=`` in its state, the ``fault`` event), said once: the
        # event is best effort, so a state that carries it says it when the event was lost.
        self.board_fault = ""
        state.on_new_position(self.forget)

    def forget(self) -> None:
        self.last_wrong = ""

    def refusal(self) -> str:
        """Why the board refused the last move, in the rule's words ('' it did not)."""
        wrong = self.last_wrong or self.board_error
        return self.state.board_words(wrong) if wrong else ""

    def poll(self, now: float) -> list[Action]:
        """The board's state asked for, when it is due (not in play)."""
        if self.state.phase != "play" and now >= self.state_at:
            # "?" at once and often, "setup" rarely: the board says when it is set up.
            self.state_at = now + STATE_POLL_S
            return [request("state")]
        return []

    def replied(self, now: float, error: str, reply: dict[str, str] | None) -> list[Action]:
        """The board's answer to the ``state`` request."""
        out: list[Action] = []
        if error:
            self.state_at = now + STATE_POLL_S
        else:
            out += self.board_state(dict(reply or {}), now)
        return out + self.typed.ahead_note()

    def board_state(self, board: dict[str, str], now: float) -> list[Action]:
        """The board's state (a reply, or what it sent on its own): its phase."""
        state = self.state
        out: list[Action] = []
        phase = board.get("phase", "?")
        self.state_at = now + (SETUP_POLL_S if phase == "setup" else STATE_POLL_S)
        self.board_error = str(board.get("error", "")).replace("_", " ")
        fault = str(board.get("fault", ""))
        if fault != self.board_fault:
            self.board_fault = fault  # "" again after the board restarted
            if fault:
                out.append(say(supply_fault_words(fault), "board"))
        if board.get("game", state.board_game) == state.board_game:
            self.watch.clocks.report(board, now)
            if phase == "over" and board.get("termination") == "time" and state.game is not None:
                if clock_view.apply_time_loss(state.game, board.get("result", "")):
                    out += state.time_lost()  # a flag fell, its event lost with the connection
        if state.hand and phase == "setup" and state.game is not None:
            out += self._set_up(board.get("setup", ""))
        if phase != state.phase:
            out += self._phase(phase)
        return out

    def _set_up(self, staged: str) -> list[Action]:
        """The terminal's hand sets the position up on the virtual board."""
        if staged in zuni.SIDE_NAMES:
            # A position set up one side at a time: the sides up to the one the
            # board asks for now; then OK for the next (as a person would press it).
            upto = tuple(range(zuni.SIDE_NAMES.index(staged) + 1))
            return [SetUp(upto), request("press_ok")]
        return [SetUp()]

    def _phase(self, phase: str) -> list[Action]:
        """The board's phase changed to ``phase``."""
        out: list[Action] = []
        old = self.state.phase
        self.state.phase = phase
        if phase == "play" and old in ("setup", "?"):
            if old == "setup":
                out.append(say("the board is set up: play on", "board"))
            out += self.computer.announce_turn()
            out += self.typed.set_up()
        elif phase == "setup":
            out.append(say("set up the pieces as the board shows (blinking points need a piece)", "board"))
        return out

    # -- the board's events ------------------------------------------------------------
    def board_event(self, kind: str, text: str, now: float) -> list[Action]:
        """A report of the board that is not its move list: from one table."""
        handler = self._events.get(kind)
        return handler(self, text, now) if handler is not None else []

    def _connected(self, text: str, now: float) -> list[Action]:
        self.computer.board_forgot()  # show the computer's move again (a reset board forgot it)
        return []

    def _restarted(self, text: str, now: float) -> list[Action]:
        self.computer.board_forgot()
        self.state.phase = "?"
        return []

    def _wrong(self, text: str, now: float) -> list[Action]:
        self.last_wrong = text
        return [say("the board: %s" % self.state.board_words(text), "wrong")]

    def _error(self, text: str, now: float) -> list[Action]:
        return [say("the board: %s" % self.state.board_words(text), "board")]

    def _over(self, text: str, now: float) -> list[Action]:
        """The board says the game is over (``result termination``)."""
        state = self.state
        state.phase = "over"
        if state.game is None or state.game.is_game_over():
            return []  # the mirror knows already (the last move, or our own request)
        result, _, termination = text.strip().partition(" ")
        if termination == "time" and clock_view.apply_time_loss(state.game, result):
            return state.time_lost()  # a flag fell (docs/clocks.md)
        return [say("the board says the game is over: %s" % text, "board")]

    def _button(self, text: str, now: float) -> list[Action]:
        if text.strip() == "hint" and self.state.phase != "setup":  # a hint only means something in play
            out = self.helping.hint()
            if not any(isinstance(a, Think) for a in out) and "hint" not in self.state.busy:
                out.append(request("hint", ""))  # refused: the board shows none of its own either
            return out
        return []

    def _took_back(self, text: str, now: float) -> list[Action]:
        state = self.state
        out: list[Action] = []
        if text.strip() == "end" and state.game is not None:
            state.game.clear_agreement()
            out.append(Reopened())
            state.new_position(out)
            out.append(say("the board took back the end of the game: play on", "takeback"))
        state.phase = "setup"
        return out

    def _fault(self, text: str, now: float) -> list[Action]:
        """The board's LED supply switch cut the rail (docs/protocol.md, "Events")."""
        if text.strip() == self.board_fault:
            return []  # its state said it already
        self.board_fault = text.strip()
        return [say(supply_fault_words(text), "board")]

    _events: dict[str, Callable[[BoardReports, str, float], list[Action]]] = {
        "fault": _fault,
        "connected": _connected,
        "boardreset": _restarted,
        "wrong": _wrong,
        "error": _error,
        "over": _over,
        "button": _button,
        "takeback": _took_back,
    }
