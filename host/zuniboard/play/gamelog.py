"""The game log's side of `zuni play`: every board game logged as it is played, the
moves the board made on its own adopted, an unfinished game given up when a new one
replaces it. Errors of the log are said (``say("error", ...)``) and never stop a game.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import zuni
from zuniboard.games.words import count_words
from zuniboard.oslock import LockBusy, ProcessLock, lock_path
from zuniboard.records.db import Database, DatabaseError, LogUnwritable, MoveConflictError
from zuniboard.records.record import UNFINISHED, RecordError

# A log game played on from a replay (docs/replay.md): the board's game began N moves
# before the log game's first move, which is the board's move N.
BOARD_PLY_TAG = "BoardPly"


def board_ply(tags: dict[str, str]) -> int:
    """The board's move index of a log game's first move: 0 but for a game played on
    from a replay (N > 0), or a game resumed on a board that started from its position
    (-N: the board's first move is the log's move N)."""
    text = tags.get(BOARD_PLY_TAG, "0")
    return int(text) if text.lstrip("-").isdigit() else 0


def log_moves(stored: list[str], offset: int, board_moves: list[str]) -> list[str]:
    """The log game's moves the board's ``board_moves`` make (``offset``: ``board_ply``;
    ``stored``: the log's moves, whose first -offset ones the board began after)."""
    if offset >= 0:
        return board_moves[offset:]
    return stored[:-offset] + board_moves


def game_lock(db_path: str, gid: int) -> ProcessLock | None:
    """The lock a `zuni play` holds on the log game it plays (docs/play.md, *Two at
    once*); None for a database in memory, which no other process can open."""
    if db_path == ":memory:" or not db_path:
        return None
    return ProcessLock(lock_path("game", "%s#%d" % (Path(db_path).resolve(), gid)), "game #%d" % gid)


def game_holder(db_path: str, gid: int) -> int | None:
    """The process id of the `zuni` playing log game ``gid`` now (0: one whose id is not
    known), or None when no process holds it."""
    lock = game_lock(db_path, gid)
    if lock is None:
        return None
    try:
        lock.acquire()
    except LockBusy as exc:
        return exc.pid
    except OSError:
        return None
    lock.release()
    return None


def common_prefix(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class BoardGameLog:
    def __init__(self, db: Database, say: Callable[[str, str], None]) -> None:
        self.db = db
        self.say = say

    def adopt(
        self,
        board_id: str,
        game_id: str,
        moves: list[str],
        ruleset: str,
        layout: str | None,
        position: str = "",
        times: dict[int, tuple[int, int]] | None = None,
    ) -> int | None:
        """Logs the moves of the board's current game (played standalone, or while the
        host was away; from ``position`` when the board set it up from one; ``times``:
        the clock times the board sent with some of them); returns its log id, or None
        for a game with no moves nobody logged."""
        if not game_id:
            return None
        gid = self.db.board_game(board_id, game_id)
        if gid is None and not moves:
            return None
        if gid is None:
            gid, added = self.db.attach_board_moves(
                board_id, game_id, ruleset, list(enumerate(moves)), layout=layout, position=position or None
            )
            self.say("info", "logged the %d moves the board played on its own as game #%d (%s)" % (added, gid, ruleset))
            return gid
        record = self.db.get(gid)
        offset = board_ply(record.tags)
        if len(moves) < offset:
            self.say("error", "log: the board's game went back before the start of game #%d" % gid)
            return gid
        shifted = {i - offset: t for i, t in (times or {}).items() if i >= offset}
        try:
            gid, added = self.sync(gid, log_moves(record.move_texts(), offset, moves), shifted)
        except RecordError as exc:  # e.g. the log ended the game, the board went on
            self.say("error", "log: game #%d: %s" % (gid, exc))
            return gid
        if added:
            self.say(
                "info",
                "logged %s the board made while the host was away (game #%d)" % (count_words(added, "move"), gid),
            )
        return gid

    def left(self, gid: int) -> None:
        """A new game replaces the board's unfinished game ``gid``: it stays unfinished in
        the log (given up only on the player's word), and the player is told how to go
        on with it."""
        record = self.db.get(gid)
        if record.result != UNFINISHED or not record.moves:
            return
        self.say(
            "info",
            "the board's unfinished game #%d (%s) stays in the log: `zuni play --resume %d` goes on with it"
            % (gid, count_words(len(record.moves), "move"), gid),
        )

    def drop_if_empty(self, gid: int) -> None:
        """A game left before its first move is no game: it leaves the log."""
        try:
            self.db.drop_empty_game(gid)
        except (RecordError, DatabaseError, sqlite3.Error, LookupError) as exc:
            self.say("error", "log: %s" % exc)

    def sync(self, gid: int, moves: list[str], times: dict[int, tuple[int, int]] | None = None) -> tuple[int, int]:
        """Makes the log hold the board's ``moves`` (``times``: on a clock, index -> (ms
        the move took, the mover's ms left)) as game ``gid``; returns the log game that
        holds them now and how many moves were added. Moves the board took back (its
        moves are the first of the stored ones) go; a stored move the board's game does
        not have is never dropped: game ``gid`` keeps all its moves and the board's game
        goes on from where they part as a new log game (``branch``)."""
        stored = self.db.get(gid).move_texts()
        k = common_prefix(stored, moves)
        base = 0  # the log index of the board's (the moves') first move
        if k < len(stored):
            if k == len(moves):
                self.db.take_back(gid, k)  # taken back on the board: the player's word
            else:
                gid = self.branch(gid, k, moves[k])
                base = k
        added = 0
        for i in range(k, len(moves)):
            t = (times or {}).get(i)
            elapsed, left = t if t else (None, None)
            if self.db.add_move(gid, i - base, moves[i], elapsed_ms=elapsed, clock_ms=left):
                added += 1
        return gid, added

    def branch(self, gid: int, keep: int, move: str) -> int:
        """The board's game parts from log game ``gid`` after its first ``keep`` moves (the
        board has ``move`` where the log has another): ``gid`` keeps every move it has,
        and the board's game from there is a new log game (tags FromGame, FromPly), which
        takes the board's game id. Returns the new game's id."""
        from zuni.position import position_text
        from zuniboard.records.record import replay

        db = self.db
        old = db.get(gid)
        start = replay(old, complete=False)
        while start.ply() > keep:
            start.pop()
        tags = dict(old.tags)
        tags["FromGame"] = str(gid)
        tags["FromPly"] = str(keep)
        tags[BOARD_PLY_TAG] = str(board_ply(old.tags) + keep)
        db.hand_over_board_game(gid)
        new = db.new_game(
            old.ruleset,
            players=old.players,
            board=old.board,
            layout=old.layout,
            board_game_id=old.board_game_id,
            position=str(position_text(start)) if keep or old.position else None,
            tags=tags,
            time_control=old.time_control,
        )
        self.say(
            "error",
            "log: the board's game has %s after move %d where game #%d has %s: game #%d keeps its %s, "
            "the board's game goes on as game #%d"
            % (move, keep, gid, old.move_texts()[keep], gid, count_words(len(old.move_texts()), "move"), new),
        )
        return new

    def open(
        self,
        ruleset: str,
        players: dict[str, str],
        board_id: str,
        layout: str | None,
        board_game: str,
        position: str | None = None,
        tags: dict[str, str] | None = None,
        time_control: str | None = None,
    ) -> int:
        """A new game in the log for board game ``board_game`` (from ``position``, with
        ``tags``, on the clocks of ``time_control``)."""
        fields: dict[str, Any] = {
            "players": players,
            "board": board_id,
            "layout": layout,
            "position": position,
            "tags": tags,
            "time_control": time_control,
        }
        try:
            return self.db.new_game(ruleset, board_game_id=board_game, **fields)
        except RecordError as exc:
            # The board reused a game id the log already has (another board with the
            # same identity): log the game without the board's id.
            self.say("error", "log: %s; logging it without the board's game id" % exc)
            return self.db.new_game(ruleset, **fields)

    def add_move(self, gid: int, index: int, text: str, times: tuple[int, int] | None = None) -> int:
        """``times``: on a clock, (ms the move took, the mover's ms left after it). A move
        where the log has another starts a new log game from there (``branch``): returns
        the log game that holds the move (``gid`` or the new one)."""
        elapsed, left = times if times is not None else (None, None)
        try:
            self.db.add_move(gid, index, text, elapsed_ms=elapsed, clock_ms=left)
        except MoveConflictError:
            gid = self.branch(gid, index, text)
            self.db.add_move(gid, 0, text, elapsed_ms=elapsed, clock_ms=left)
        except RecordError as exc:
            self.say("error", "log: %s" % exc)
        return gid

    def finish(self, gid: int, result: str, termination: str) -> None:
        try:
            self.db.finish_game(gid, result, termination)
        except RecordError as exc:
            self.say("error", "log: %s" % exc)

    def set_players(self, gid: int, players: dict[str, str]) -> None:
        try:
            self.db.set_players(gid, players)
        except RecordError as exc:
            self.say("error", "log: %s" % exc)

    def set_help(self, gid: int, help: dict[str, str], hint_limit: int | None) -> None:
        """The seats' help levels and the hint limit of game ``gid`` (said, not raised,
        when the log cannot take them: the game goes on)."""
        try:
            self.db.set_help(gid, help, hint_limit)
        except (RecordError, DatabaseError, sqlite3.Error, LookupError) as exc:
            self.say("error", "log: %s" % exc)

    def take_back(self, gid: int, keep: int) -> None:
        self.db.take_back(gid, keep)

    def reopen(self, gid: int) -> None:
        self.db.reopen_game(gid)


class LoggedGame:
    """The log's game of the board's game ``gid``: board move i is the log's move
    i - ``log_from`` (a game played on from a replay starts at the replay's move,
    docs/replay.md). Follows the game controller's facts: a move played, moves taken
    back, the game ended or its end taken back.

    While the log cannot be written (a full disk, a folder made read-only), the game goes
    on: the board keeps its moves, this keeps those the log lacks (``pending``, in
    order, with the game's end) and writes them at the next move or ``catch_up``."""

    def __init__(self, log: BoardGameLog, gid: int, log_from: int = 0) -> None:
        """Raises ``LockBusy`` when another process plays game ``gid``."""
        self.log = log
        self.gid = gid
        self.log_from = log_from
        self._lock = game_lock(log.db.path, gid)
        if self._lock is not None:
            self._lock.acquire()
        self.pending: list[tuple[int, str, tuple[int, int] | None]] = []  # (board index, move, times)
        # Grades of moves, written once their moves are: (board index, move, grade, why).
        self.pending_grades: list[tuple[int, str, str, str]] = []
        self.pending_end: tuple[str, str] | None = None  # (result, termination)
        self._behind_said = False

    @property
    def behind(self) -> bool:
        """The log lacks moves or the end of the game (it could not be written)."""
        return bool(self.pending) or self.pending_end is not None or bool(self.pending_grades)

    def _cannot_write(self, exc: LogUnwritable) -> None:
        if not self._behind_said:
            self._behind_said = True
            self.log.say(
                "error",
                "log: %s; the game goes on (the board keeps its moves) and the log catches up once it can" % exc,
            )

    def catch_up(self) -> bool:
        """Writes what the log lacks; True when the moves went on in a new log game (the
        log had another move at one of their places)."""
        switched = False
        try:
            while self.pending:
                index, text, times = self.pending[0]
                gid = self.log.add_move(self.gid, index - self.log_from, text, times)
                self.pending.pop(0)
                if gid != self.gid:
                    self.log_from = index
                    self._switch(gid)
                    switched = True
            while self.pending_grades:
                index, text, grade, words = self.pending_grades[0]
                if index >= self.log_from:
                    # False: the move is gone (taken back) or another stands there: no grade.
                    self.log.db.set_grade(self.gid, index - self.log_from, text, grade, words)
                self.pending_grades.pop(0)
            if self.pending_end is not None:
                self.log.finish(self.gid, *self.pending_end)
                self.pending_end = None
        except LogUnwritable as exc:
            self._cannot_write(exc)
            return switched
        if self._behind_said:
            self._behind_said = False
            self.log.say("info", "log: written again: game #%d has all its moves" % self.gid)
        return switched

    def _switch(self, gid: int) -> None:
        """The board's game goes on as log game ``gid`` (new: no other process has it)."""
        lock = game_lock(self.log.db.path, gid)
        if lock is not None:
            with contextlib.suppress(LockBusy, OSError):
                lock.acquire()
        self.release()
        self._lock = lock
        self.gid = gid

    def release(self) -> None:
        """This process stops playing the game (another may go on with it)."""
        if self._lock is not None:
            self._lock.release()

    def played(self, index: int, text: str, times: tuple[int, int] | None = None) -> bool:
        """``times``: on a clock, (ms the move took, the mover's ms left after it). True
        when the move went to a new log game (the log had another move there)."""
        if index < self.log_from:
            return False
        self.pending.append((index, text, times))
        return self.catch_up()

    def graded(self, index: int, text: str, grade: str, words: str) -> None:
        """Board move ``index`` (``text``) was graded ``grade`` (``words``: why), kept
        with the move in the log (after it, if the move waits to be written)."""
        self.pending_grades.append((index, text, grade, words))
        self.catch_up()

    def taken_back(
        self, keep: int, game: zuni.Game, start: str, players: dict[str, str], board: str | None, layout: str | None
    ) -> bool:
        """The board keeps its first ``keep`` moves (``game``: the game then, ``start``:
        the position the board's game starts from, "" the rules'). Before the position
        the log's game starts from, the moves from there on are a new log game from
        the position after ``keep`` moves (True: ``gid`` is that new game)."""
        self.pending = [p for p in self.pending if p[0] < keep]
        self.pending_end = None
        if self.pending:
            return False  # the log has none of the moves from ``keep`` on yet
        if keep >= self.log_from:
            try:
                self.log.take_back(self.gid, keep - self.log_from)
            except LogUnwritable as exc:
                self._cannot_write(exc)  # pragma: no cover - a take-back frees space
            return False
        from zuni.position import position_text

        self.log.take_back(self.gid, 0)
        db = self.log.db
        old = db.get(self.gid)
        tags = dict(old.tags)
        tags["FromPly"] = str(keep)
        tags[BOARD_PLY_TAG] = str(keep)  # its first move is the board's move ``keep``
        gid = db.new_game(
            old.ruleset,
            players=players,
            board=board,
            layout=layout,
            position=str(position_text(game)) if keep else (start or None),
            tags=tags,
        )
        self.log.say(
            "info",
            "taken back before the position game #%d starts from: the game from move %d is game #%d"
            % (self.gid, keep, gid),
        )
        self._switch(gid)
        self.log_from = keep
        return True

    def ended(self, result: str, termination: str) -> None:
        self.pending_end = (result, termination)
        self.catch_up()

    def reopened(self) -> None:
        if self.pending_end is not None:
            self.pending_end = None
            return
        try:
            self.log.reopen(self.gid)
        except LogUnwritable as exc:
            self._cannot_write(exc)
