"""What the user interface and the tests read of a play session's game: ``SessionReadout``,
the base of ``session.PlaySession``.

Read-only views of the game controller's state (the mirrored game, its seats, phase and
clocks, the computer's move shown, the hint shown), of the board the games are opened on
(``openings.Openings``) and of the log game (``session_log.SessionLog``).
"""

from __future__ import annotations

from typing import Any

from zuniboard.games.clock_view import ClockView
from zuniboard.play.controller import GameController
from zuniboard.play.openings import Openings
from zuniboard.play.seats import Seat
from zuniboard.play.session_log import SessionLog


class SessionReadout:
    """The session's game as its UI reads it (the session sets the three parts)."""

    control: GameController
    openings: Openings
    record: SessionLog

    @property
    def players(self) -> dict[str, str | None]:
        """The seats asked for (None: the default), for the games this session opens."""
        return self.openings.players

    @players.setter
    def players(self, players: dict[str, str | None]) -> None:
        self.openings.players = dict(players)

    @property
    def board_id(self) -> str | None:
        return self.openings.board_id

    @property
    def layout(self) -> str | None:
        return self.openings.layout

    @property
    def db_game(self) -> int | None:
        """The log's id of the game played."""
        return self.record.gid

    @property
    def clocks(self) -> ClockView:
        return self.control.clocks

    @property
    def game(self) -> Any:
        return self.control.state.game

    @property
    def moves(self) -> list[str]:
        return self.control.moves

    @property
    def seats(self) -> dict[str, Seat]:
        return self.control.seats

    @property
    def phase(self) -> str:
        return self.control.phase

    @property
    def ai_move(self) -> str | None:
        return self.control.computer.ai_move

    @property
    def ai_sent(self) -> bool:
        return self.control.computer.ai_sent

    @property
    def hint_shown(self) -> bool:
        return self.control.helping.hint_shown

    @property
    def board_game(self) -> str:
        return self.control.state.board_game

    @property
    def position(self) -> str:
        return self.control.state.position

    @property
    def quit(self) -> bool:
        return self.control.quit

    def turn_side(self) -> str | None:
        return self.control.turn_side()

    def is_over(self) -> bool:
        return self.control.is_over()
