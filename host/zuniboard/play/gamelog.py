"""The game log's side of `zuni play`: every board game logged as it is played, the
moves the board made on its own adopted, an unfinished game given up when a new one
replaces it. Errors of the log are said (``say("error", ...)``) and never stop a game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import zuni
from zuniboard.games.words import count_words
from zuniboard.records.db import Database, MoveConflictError
from zuniboard.records.record import UNFINISHED, RecordError

# A log game played on from a replay (docs/replay.md): the board's game began N moves
# before the log game's first move, which is the board's move N.
BOARD_PLY_TAG = "BoardPly"


def board_ply(tags: dict[str, str]) -> int:
    """The board's move index of a log game's first move (0 but for a game played on
    from a replay)."""
    text = tags.get(BOARD_PLY_TAG, "0")
    return int(text) if text.isdigit() else 0


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
        offset = board_ply(self.db.get(gid).tags)
        if len(moves) < offset:
            self.say("error", "log: the board's game went back before the start of game #%d" % gid)
            return gid
        shifted = {i - offset: t for i, t in (times or {}).items() if i >= offset}
        try:
            added = self.sync(gid, moves[offset:], shifted)
        except RecordError as exc:  # e.g. the log ended the game, the board went on
            self.say("error", "log: game #%d: %s" % (gid, exc))
            return gid
        if added:
            self.say(
                "info",
                "logged %s the board made while the host was away (game #%d)" % (count_words(added, "move"), gid),
            )
        return gid

    def abandon(self, gid: int) -> None:
        """A new game replaces the board's unfinished one: the log says it was given up."""
        record = self.db.get(gid)
        if record.result != UNFINISHED or not record.moves:
            return
        try:
            self.db.finish_game(gid, UNFINISHED, "abandoned")
        except RecordError as exc:
            self.say("error", "log: %s" % exc)
            return
        self.say(
            "info",
            "the board's unfinished game #%d (%s) is logged as abandoned (zuni play --resume goes on with "
            "the board's game instead of starting a new one)" % (gid, count_words(len(record.moves), "move")),
        )

    def sync(self, gid: int, moves: list[str], times: dict[int, tuple[int, int]] | None = None) -> int:
        """Makes the log of game ``gid`` hold exactly ``moves`` (the board's; ``times``:
        on a clock, index -> (ms the move took, the mover's ms left)); returns how many
        moves were added."""
        stored = self.db.get(gid).move_texts()
        k = common_prefix(stored, moves)
        if k < len(stored):
            self.db.take_back(gid, k)
        added = 0
        for i in range(k, len(moves)):
            t = (times or {}).get(i)
            if self.db.add_move(gid, i, moves[i], elapsed_ms=t[0] if t else None, clock_ms=t[1] if t else None):
                added += 1
        return added

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

    def add_move(self, gid: int, index: int, text: str, times: tuple[int, int] | None = None) -> None:
        """``times``: on a clock, (ms the move took, the mover's ms left after it)."""
        try:
            if times is None:
                self.db.add_move(gid, index, text)
            else:
                self.db.add_move(gid, index, text, elapsed_ms=times[0], clock_ms=times[1])
        except (MoveConflictError, RecordError) as exc:
            self.say("error", "log: %s" % exc)

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

    def take_back(self, gid: int, keep: int) -> None:
        self.db.take_back(gid, keep)

    def reopen(self, gid: int) -> None:
        self.db.reopen_game(gid)


class LoggedGame:
    """The log's game of the board's game ``gid``: board move i is the log's move
    i - ``log_from`` (a game played on from a replay starts at the replay's move,
    docs/replay.md). Follows the game controller's facts: a move played, moves taken
    back, the game ended or its end taken back."""

    def __init__(self, log: BoardGameLog, gid: int, log_from: int = 0) -> None:
        self.log = log
        self.gid = gid
        self.log_from = log_from

    def played(self, index: int, text: str, times: tuple[int, int] | None = None) -> None:
        """``times``: on a clock, (ms the move took, the mover's ms left after it)."""
        if index >= self.log_from:
            self.log.add_move(self.gid, index - self.log_from, text, times)

    def taken_back(
        self, keep: int, game: zuni.Game, start: str, players: dict[str, str], board: str | None, layout: str | None
    ) -> bool:
        """The board keeps its first ``keep`` moves (``game``: the game then, ``start``:
        the position the board's game starts from, "" the rules'). Before the position
        the log's game starts from, the moves from there on are a new log game from
        the position after ``keep`` moves (True: ``gid`` is that new game)."""
        if keep >= self.log_from:
            self.log.take_back(self.gid, keep - self.log_from)
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
        self.gid = gid
        self.log_from = keep
        return True

    def ended(self, result: str, termination: str) -> None:
        self.log.finish(self.gid, result, termination)

    def reopened(self) -> None:
        self.log.reopen(self.gid)
