"""The game log of a play session: ``SessionLog``, the log game the board's game is kept
as (``gamelog.LoggedGame``), from the game controller's facts.

A move played, a grade, moves taken back, the game ended or its end taken back go to
the log game; when the moves go on in a new log game (the log had another move at one
of their places, or moves were taken back from before its start) the controller's
``number`` follows. While the log cannot be written the game goes on, and the log
catches up every ``CATCH_UP_S``. Part of ``session.PlaySession``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import assert_never

from zuniboard.games.words import count_words
from zuniboard.oslock import LockBusy
from zuniboard.play.actions import Cut, Ended, MoveGraded, Played, Reopened
from zuniboard.play.controller import GameController
from zuniboard.play.gamelog import BoardGameLog, LoggedGame
from zuniboard.play.openings import OpeningError
from zuniboard.records.db import Database

CATCH_UP_S = 2.0  # how often a log that could not be written is tried again


class SessionLog:
    """The log game of ``control``'s game, in ``db`` (``message``: what it says)."""

    def __init__(self, db: Database, message: Callable[[str, str], None], control: GameController) -> None:
        self.log = BoardGameLog(db, message)
        self.control = control
        self.logged: LoggedGame | None = None  # the log's game of the board's game
        self.next_catch_up = 0.0  # when to try again to write what the log lacks

    @property
    def gid(self) -> int | None:
        """The log's id of the game played."""
        return self.logged.gid if self.logged is not None else None

    def _renumber(self, switched: bool) -> None:
        if switched and self.logged is not None:
            self.control.number = self.logged.gid

    def switch_to(self, gid: int, log_from: int) -> None:
        """The board's game is kept as log game ``gid`` from board move ``log_from`` on;
        the one kept before is let go (dropped from the log if it has no move)."""
        if self.logged is not None:
            self.logged.release()
            if self.logged.gid != gid:
                self.log.drop_if_empty(self.logged.gid)
        try:
            self.logged = LoggedGame(self.log, gid, log_from)
        except LockBusy as exc:
            self.logged = None
            raise OpeningError("%s: go on there, or quit it first (its terminal: quit)" % exc) from None

    def opened(self) -> None:
        """The controller opened the game: the help the people's seats have goes with it
        into the log (docs/learn.md)."""
        if self.logged is not None:
            self.log.set_help(self.logged.gid, self.control.help_logged(), self.control.helping.hint_limit)

    def catch_up(self, now: float) -> None:
        """Tries again to write what the log lacks, when it is due."""
        if self.logged is not None and self.logged.behind and now >= self.next_catch_up:
            self.next_catch_up = now + CATCH_UP_S
            self._renumber(self.logged.catch_up())

    def played(self, action: Played) -> None:
        if self.logged is not None:
            self._renumber(self.logged.played(action.index, action.text, action.times))

    def cut(self, action: Cut, board_id: str | None, layout: str | None) -> None:
        if self.logged is None:
            return
        state = self.control.state
        players = {side: seat.text for side, seat in state.seats.items()}
        self._renumber(self.logged.taken_back(action.index, action.game, state.position, players, board_id, layout))

    def keep(self, action: MoveGraded | Ended | Reopened) -> None:
        """A move's grade, the game's end or its end taken back, into the log game."""
        logged = self.logged
        if logged is None:
            return
        match action:
            case MoveGraded(index, text, _, grade, why):
                logged.graded(index, text, grade, why)
            case Ended(result, termination):
                logged.ended(result, termination)
            case Reopened():
                logged.reopened()
            case _:
                assert_never(action)

    def close(self, over: bool) -> str:
        """Writes what it can and lets the game go ('' or what the log could not keep);
        an unfinished game without a move is dropped from the log."""
        logged = self.logged
        if logged is None:
            return ""
        logged.catch_up()
        logged.release()
        if logged.behind:
            return (
                "log: %s of game #%d could not be written: the board keeps them, and `zuni play --resume` "
                "logs them once the log can be written" % (count_words(len(logged.pending), "move"), logged.gid)
            )
        if not over:
            self.log.drop_if_empty(logged.gid)
        return ""
