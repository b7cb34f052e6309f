"""Going over a logged game move by move: ``ReplayCursor``, pure and without I/O.

The replay on the board (``zuni log replay GAME``) drives one cursor: OK steps forward
(the board shows the next move and waits until the player has carried it out), BACK
steps back (the player restores the position before the move), HINT shows the
computer's view of the move about to be played. At any point the player may leave the
replay and play on: ``branch`` is the record of that new game, which starts from the
position reached and names the game and move it came from.

>>> cursor = ReplayCursor(GameRecord("mosona", moves=[MoveEntry("s3xm4-m5"), MoveEntry("n5xm5-m4")]))
>>> str(cursor.forward()), cursor.ply
('s3xm4-m5', 1)
>>> str(cursor.next_move())
'n5xm5-m4'
"""

from __future__ import annotations

import copy

import zuni
from zuni.position import position_text
from zuniboard.records.record import GameRecord, RecordError, replay

# Tags of a game that continues another from one of its positions.
FROM_GAME_TAG = "FromGame"
FROM_PLY_TAG = "FromPly"


class ReplayError(Exception):
    """A step the replay cannot take: past either end, or a record that does not replay."""


class ReplayCursor:
    """A position within a recorded game: ``ply`` moves of ``record`` played.

    ``game`` is the rules engine's game at the cursor (its history starts at the
    record's start, so ``game.ply() == ply``)."""

    def __init__(self, record: GameRecord, ply: int = 0) -> None:
        try:
            self._final = replay(copy.deepcopy(record), complete=False)
        except RecordError as exc:
            raise ReplayError("game %s cannot be replayed: %s" % (record.id, exc))
        self.record = record
        self.moves: list[zuni.Move] = list(self._final.move_stack)
        self.game = self._final.copy()
        while self.game.ply() > 0:
            self.game.pop()
        self.go_to(ply)

    @property
    def ply(self) -> int:
        return int(self.game.ply())

    @property
    def length(self) -> int:
        return len(self.moves)

    def at_start(self) -> bool:
        return self.ply == 0

    def at_end(self) -> bool:
        return self.ply == self.length

    def next_move(self) -> zuni.Move | None:
        """The move OK plays next, or None at the end."""
        return None if self.at_end() else self.moves[self.ply]

    def last_move(self) -> zuni.Move | None:
        """The move BACK takes back, or None at the start."""
        return None if self.at_start() else self.moves[self.ply - 1]

    def forward(self) -> zuni.Move:
        move = self.next_move()
        if move is None:
            raise ReplayError("the game has no more moves: all %d are played" % self.length)
        self.game.push(move)
        return move

    def back(self) -> zuni.Move:
        move = self.last_move()
        if move is None:
            raise ReplayError("already at the start of the game: no move to take back")
        self.game.pop()
        return move

    def go_to(self, ply: int) -> None:
        if not 0 <= ply <= self.length:
            raise ReplayError("move %d is out of range: the game has moves 0..%d" % (ply, self.length))
        while self.ply > ply:
            self.game.pop()
        while self.ply < ply:
            self.game.push(self.moves[self.ply])

    def position(self) -> str:
        """The position at the cursor in the one-line text form (docs/rules.md)."""
        return str(position_text(self.game))

    def branch(self, players: dict[str, str]) -> GameRecord:
        """The record of a new game that starts here, played by ``players``."""
        tags = {FROM_PLY_TAG: str(self.ply)}
        if self.record.id is not None:
            tags[FROM_GAME_TAG] = str(self.record.id)
        start_position = None if self.ply == 0 and self.record.position is None else self.position()
        return GameRecord(
            ruleset=self.record.ruleset,
            players=dict(players),
            position=start_position,
            time_control=self.record.time_control,
            tags=tags,
        )
