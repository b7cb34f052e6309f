"""Which game `zuni play` plays: the board's game and the log's game for it.

``Openings`` decides, asking the board and the log, what the game controller opens: a new
game on the board (the rules, or ``--from``'s position, on ``--clock``'s clocks), the
log's unfinished game the board still has (``--resume``), a replay's game played on, or
a game the board began on its own. Each answer is an ``Opening``: the board's game and
moves, the rules, the seats and the log's game (a new one opened in the log when needed).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, assert_never

import zuni
import zuni.clock as zclock
from zuniboard.games.words import count_words
from zuniboard.link.client import BoardError, BoardLink, LinkError
from zuniboard.link.events import Answered, Failed, Refused, RequestResult
from zuniboard.play.gamelog import BOARD_PLY_TAG, BoardGameLog, board_ply, game_holder, log_moves
from zuniboard.play.seats import Seat, seats_for, seats_from_record
from zuniboard.play.start_from import StartFrom
from zuniboard.records.db import Database, GameSummary, UnknownGameError
from zuniboard.records.record import SIDES, UNFINISHED, GameRecord, RecordError, replay, sides_in_play

MAX_CLOCK_MS = 36_000_000  # zuni.clock's longest base time (10 hours)


class OpeningError(Exception):
    """No game to open (no unfinished game to resume, a board that refuses the new game)."""


def is_remote_game(players: dict[str, str]) -> bool:
    """Whether a logged game has a seat played from another board (docs/remote.md): only
    the referee's game goes on with it, never a game on this board alone."""
    return any(str(text).startswith("remote:") for text in players.values())


def resumable(db: Database, remote: bool = False) -> list[GameSummary]:
    """The log's games to go on with, newest first: unfinished, with moves, not played by
    another process now, and remote games only for a remote seat (``remote``)."""
    return [
        g
        for g in db.list_games()
        if g.result == UNFINISHED
        and g.moves
        and is_remote_game(g.players) == remote
        and game_holder(db.path, g.id) is None
    ]


def check_resumable(db: Database, gid: int, remote: bool = False) -> None:
    """OpeningError, saying why, unless logged game ``gid`` can be gone on with (a remote
    game only by a remote seat: ``remote``)."""
    try:
        record = db.get(gid)
    except UnknownGameError:
        raise OpeningError("no game #%d in the log %s (`zuni log list` lists them)" % (gid, db.path)) from None
    if record.result != UNFINISHED:
        raise OpeningError("game #%d is over (%s): there is nothing to go on with" % (gid, record.result))
    if is_remote_game(record.players) and not remote:
        raise OpeningError(
            "game #%d is a remote game: `zuni play --remote CODE` (its invite code) goes on with it, "
            "with the referee and the other players" % gid
        )
    holder = game_holder(db.path, gid)
    if holder is not None:
        raise OpeningError(
            "game #%d is being played by another zuni%s: go on there, or quit it first"
            % (gid, " (process %d)" % holder if holder else "")
        )


def carried_clock(record: GameRecord) -> str:
    """The time control that puts a logged game's clocks back where they stood: each
    side's own control, with its base time the time it had left after its last logged
    move (the whole base for a side that has not moved). "" for a game without clocks.
    The time a side spent on a move that was never made is lost with that move."""
    if not record.time_control:
        return ""
    sides = [SIDES.index(side) for side in sides_in_play(zuni.parse_ruleset(record.ruleset))]
    controls = zclock.parse_clock_spec(record.time_control, sides)
    for entry in record.moves:
        if entry.clock_ms is None or entry.side not in SIDES:
            continue
        side = SIDES.index(entry.side)
        control = controls[side]
        if control is not None:
            left = min(max(1, int(entry.clock_ms)), MAX_CLOCK_MS)
            controls[side] = zclock.TimeControl(left, control.mode, control.extra_ms)
    return str(zclock.clock_spec_text(controls))


def board_identity(hello: dict[str, str]) -> str:
    """A name for the board in the log: its own id if its hello gives one, else its layout."""
    for key in ("id", "board", "uid"):
        if hello.get(key):
            return hello[key]
    return hello.get("layout") or "board"


def seats_text(seats: dict[str, Seat]) -> str:
    return ", ".join("%s %s" % (s, seat) for s, seat in seats.items())


@dataclass
class Opening:
    """A board game to mirror and the log game ``gid`` it is, from board move ``log_from``
    on (a replay's game played on), with what to say once it is open."""

    board_game: str
    moves: list[str]
    ruleset: str
    gid: int
    seats: dict[str, Seat]
    position: str = ""
    log_from: int = 0
    said: str = ""


@dataclass(frozen=True)
class NewGamePlan:
    """A new game as asked of the board: its ruleset, seats and start position, and the
    ``new_game`` request's arguments (ruleset, position, time control)."""

    ruleset: str
    seats: dict[str, Seat]
    position: str
    request_args: tuple[str, str, str]

    def refused(self, message: str) -> str:
        what = "the position %r" % self.position if self.position else self.ruleset
        return "the board cannot start %s: %s" % (what, message)


class Openings:
    def __init__(
        self,
        link: BoardLink,
        log: BoardGameLog,
        *,
        players: dict[str, str | None],
        start: StartFrom | None = None,
        clock: str = "",
        board_id: str | None = None,
        request_timeout: float = 5.0,
    ) -> None:
        self.link = link
        self.log = log
        self.db = log.db
        self.players = players  # the seats asked for (None: the default); a caller may change them
        # ``zuni play --from``: the position each new game starts from (and its log tags).
        self.start = start
        self.clock = clock  # the time control of the games started ("": none)
        self.remote = False  # a remote seat's session: it goes on with remote games only
        self.board_id = board_id
        self.layout: str | None = None
        self.request_timeout = request_timeout
        # The terminal's hand sets up the virtual board's pieces: no set-up for the player.
        self.hand_sets_up = False

    def know_the_board(self) -> None:
        """The board's name and layout, from its hello."""
        if self.board_id is None:
            self.board_id = board_identity(self.link.hello)
        self.layout = self.link.hello.get("layout")

    def adopt(self) -> int | None:
        """Logs what the board played on its own (or while no host listened); the log id
        of the board's game, None for a game with no moves nobody logged."""
        link = self.link
        assert self.board_id is not None
        moves = link.moves
        times = {
            i: t for (g, i, x), t in link.move_times.items() if g == link.game and i < len(moves) and moves[i] == x
        }
        return self.log.adopt(self.board_id, link.game, moves, link.ruleset, self.layout, link.position, times)

    def _logged(self, ruleset: str, seats: dict[str, Seat], board_game: str, position: str) -> int:
        """A new log game for board game ``board_game``."""
        assert self.board_id is not None
        players = {side: seat.text for side, seat in seats.items()}
        start = self.start
        tags = start.tags if start is not None and position == start.position else {}
        tc = self.link.info.get("tc") or None  # the board's clocks (this game's: new_game asked)
        return self.log.open(ruleset, players, self.board_id, self.layout, board_game, position or None, tags, tc)

    def new(self, ruleset: str) -> Opening:
        """A new game on the board (of ``ruleset``, or from ``--from``'s position), logged;
        waits for the board (the session's start: ``plan_new`` and ``opened_new`` are the
        same in two halves, around a request that does not wait)."""
        plan = self.plan_new(ruleset)
        try:
            self.link.call("new_game", plan.request_args, timeout=self.request_timeout * 2)
        except BoardError as exc:
            raise OpeningError(plan.refused(exc.message))
        except LinkError as exc:
            raise OpeningError("no new game on the board: %s" % exc)
        return self.opened_new(plan)

    def plan_new(self, ruleset: str) -> NewGamePlan:
        """What a new game of ``ruleset`` (or ``--from``'s position) asks of the board;
        OpeningError for a ruleset or seats that cannot be."""
        start = self.start
        if start is not None:
            ruleset = start.ruleset
        try:
            canonical = str(zuni.parse_ruleset(ruleset))
        except zuni.RulesetError as exc:
            raise OpeningError("ruleset %r: %s" % (ruleset, exc))
        try:
            seats = seats_for(canonical, self.players)
        except ValueError as exc:
            raise OpeningError(str(exc))
        position = start.position if start is not None else ""
        return NewGamePlan(canonical, seats, position, (canonical, position, self.clock))

    def ask_new(self, ruleset: str, now: float, then: Callable[[NewGamePlan, RequestResult], None]) -> None:
        """A new game of ``ruleset`` asked of the board without waiting (OpeningError: it
        cannot be); ``then`` hears the board's answer (for ``started``)."""
        plan = self.plan_new(ruleset)
        timeout = self.request_timeout * 2
        self.link.begin("new_game", plan.request_args, now, lambda result: then(plan, result), timeout=timeout)

    def started(self, plan: NewGamePlan, result: RequestResult) -> Opening:
        """The board's answer to ``ask_new``: the new game (logged), or OpeningError why not."""
        match result:
            case Answered():
                return self.opened_new(plan)
            case Refused(message=message):
                raise OpeningError(plan.refused(message))
            case Failed(why=why):
                raise OpeningError("no new game on the board: %s" % why)
            case _:
                assert_never(result)

    def opened_new(self, plan: NewGamePlan) -> Opening:
        """The board started the planned game: it is logged."""
        link = self.link
        canonical, seats, position = plan.ruleset, plan.seats, plan.position
        gid = self._logged(canonical, seats, link.game, position)
        how = (
            "the terminal's hand sets up the pieces"
            if self.hand_sets_up
            else "set up the pieces on the board one side at a time, where it lights "
            "(OK or a moment's wait between sides)"
            if position
            else "set up the pieces on the board"
        )
        said = "new game #%d: %s%s, %s; %s" % (
            gid,
            canonical,
            " from %s" % position if position else "",
            seats_text(seats),
            how,
        )
        return Opening(link.game, [], canonical, gid, seats, position, said=said)

    def branch(self, gid: int, log_from: int) -> Opening:
        """The board's game (a replay's moves so far) as log game ``gid``, which starts
        from the position after board move ``log_from`` (docs/replay.md)."""
        link = self.link
        record = self.db.get(gid)
        seats = seats_from_record(record.players, record.ruleset)
        said = "game #%d: %s from move %d of game #%s, %s" % (
            gid,
            record.ruleset,
            log_from,
            record.tags.get("FromGame", "?"),
            seats_text(seats),
        )
        return Opening(link.game, list(link.moves), record.ruleset, gid, seats, link.position, log_from, said)

    def resume(self, adopted: int | None, gid: int | None = None) -> Opening:
        """Goes on with the log's unfinished game ``gid`` (None: the board's game if it is
        an unfinished one, else the newest unfinished game). A game the board does not
        have is set up on it from the position its moves reached."""
        if gid is None:
            choices = resumable(self.db, self.remote)
            if adopted is not None and any(g.id == adopted for g in choices):
                gid = adopted
            elif not choices:
                raise OpeningError("no unfinished game in the log %s to go on with" % self.db.path)
            else:
                gid = choices[0].id
        else:
            check_resumable(self.db, gid, self.remote)
        if gid != adopted:
            return self._set_up_again(gid)
        link = self.link
        record = self.db.get(gid)
        seats = self._seats(record)
        offset = board_ply(record.tags)  # a game played on from a replay (docs/replay.md)
        position = link.position if offset else record.position or ""
        moves = list(link.moves)
        said = "resumed game #%d: %s after %s, %s" % (
            gid,
            record.ruleset,
            count_words(len(record.moves) if offset < 0 else len(moves), "move"),
            seats_text(seats),
        )
        return Opening(link.game, moves, record.ruleset, gid, seats, position, offset, said)

    def _seats(self, record: GameRecord) -> dict[str, Seat]:
        """The seats of a logged game, with those asked for now (--north ai:2) instead."""
        seats = seats_from_record(record.players, record.ruleset)
        for side, text in self.players.items():
            if text is not None and side in seats:
                seats[side] = seats_for(record.ruleset, {side: text})[side]
        players = {side: seat.text for side, seat in seats.items()}
        if players != record.players:
            self.log.set_players(record.id or 0, players)  # e.g. a game the board began on its own
        return seats

    def _set_up_again(self, gid: int) -> Opening:
        """Logged game ``gid``, which the board no longer has, goes on on the board: a new
        board game from the position its moves reached, whose moves the log adds to it."""
        from zuni.position import position_text

        assert self.board_id is not None
        link = self.link
        record = self.db.get(gid)
        played = len(record.moves)
        game = replay(record, complete=False)
        position = str(position_text(game)) if played else record.position or ""
        clock = carried_clock(record)
        try:
            link.new_game(record.ruleset, timeout=self.request_timeout * 2, position=position, clock=clock)
        except BoardError as exc:
            raise OpeningError("the board cannot set up game #%d: %s" % (gid, exc.message))
        except LinkError as exc:
            raise OpeningError("no game on the board: %s" % exc)
        tags = dict(record.tags)
        tags[BOARD_PLY_TAG] = str(-played)  # the board's first move is the log's move ``played``
        self.db.move_to_board_game(gid, self.board_id, link.game, tags)
        seats = self._seats(record)
        said = "resumed game #%d: %s after %s, %s; %s%s" % (
            gid,
            record.ruleset,
            count_words(played, "move"),
            seats_text(seats),
            "the terminal's hand sets up its position"
            if self.hand_sets_up
            else "set up its position on the board one side at a time, where it lights (OK or a moment's "
            "wait between sides)",
            "; its clocks go on from %s" % clock if clock else "",
        )
        return Opening(link.game, [], record.ruleset, gid, seats, position, -played, said)

    def switched(self, game_id: str, moves: list[str], seats_now: Any, fallback_ruleset: str) -> Opening:
        """The board started or went back to game ``game_id`` on its own (a new game after
        the end, a reset that lost the journal, another host's new game). ``seats_now(ruleset)``:
        the seats the session plays with, for those rules."""
        assert self.board_id is not None
        link = self.link
        ruleset = link.ruleset or fallback_ruleset or "mosona"
        with contextlib.suppress(LinkError):
            ruleset = link.state(timeout=self.request_timeout).get("ruleset", ruleset)
        gid = self.db.board_game(self.board_id, game_id)
        if gid is not None:
            record = self.db.get(gid)
            offset = board_ply(record.tags)  # a game played on from a replay (docs/replay.md)
            try:
                gid, _ = self.log.sync(gid, log_moves(record.move_texts(), offset, moves))
            except RecordError as exc:
                self.log.say("error", "log: game #%d: %s" % (gid, exc))
            record = self.db.get(gid)
            offset = board_ply(record.tags)
            position = link.position if offset else record.position or ""
            return Opening(
                game_id,
                moves,
                record.ruleset,
                gid,
                seats_now(record.ruleset),
                position,
                offset,
                "the board went back to game #%d" % gid,
            )
        seats = seats_now(ruleset)
        gid = self._logged(ruleset, seats, game_id, link.position)
        said = "the board started a new game: #%d (%s)" % (gid, ruleset)
        return Opening(game_id, moves, ruleset, gid, seats, link.position, said=said)
