"""The play session: the controller of one game on a board between people and the
computer, which the terminal and the tests drive.

``PlaySession(link, db, ui, ...)`` sits between the board link (``BoardLink``), the game
log (``gamelog.BoardGameLog``), the computer's searches (``thinking.Thinking``, worker
threads that post their answers to ``inbox``) and a user interface (``PlayUI``: the
terminal, or a recorder in tests). Typed lines are read by ``commands.read_line`` (a
move or a command, never one for the other); what it says is put in a player's words by
``words``; the computer's word on an offered draw or count is ``judge.verdict``. It is
single-threaded: ``pump()`` handles what arrived (link events, typed lines, the
computer's answers) and does what is due.

The board is the truth about the game: the session mirrors the link's move list into
its own ``zuni.Game`` and into the log (each move committed as it arrives), and follows
take-backs and new games the board makes on its own. The computer's move is sent to the
board as a host move; the game goes on when the board reports it carried out (by a
person, or on the virtual board by the terminal's hand once it has been lit for
``show_move_s``).

>>> session = PlaySession(link, db, ui, ruleset="mosona", players={"north": "ai:2"})
>>> session.start()              # new game on the board, logged
>>> session.run()                # until quit, or the game is over and the input ends
"""

from __future__ import annotations

import contextlib
import queue
import time
from typing import Any, Protocol

import zuni
from zuniboard.ai import LEVEL_TIMES, SearchInfo
from zuniboard.board_mirror import start_game
from zuniboard.link import REQUEST_TIMEOUT_S as LINK_REQUEST_TIMEOUT_S
from zuniboard.link import BoardError, BoardLink, LinkError, LinkEvent
from zuniboard.play import clock_view
from zuniboard.play.clock_view import ClockView
from zuniboard.play.commands import CONFIRM, YES, help_text, read_line
from zuniboard.play.connect import page_note
from zuniboard.play.gamelog import BOARD_PLY_TAG, BoardGameLog, board_ply, common_prefix
from zuniboard.play.judge import verdict
from zuniboard.play.seats import Seat, seats_for, seats_from_record
from zuniboard.play.start_from import StartFrom
from zuniboard.play.thinking import Thinking
from zuniboard.play.words import (
    MARKS_HELP,
    board_error_words,
    count_words,
    hint_note,
    hint_words,
    move_words,
    occupied_names,
    outcome_words,
    plays_words,
    restore_words,
)
from zuniboard.records.db import Database
from zuniboard.records.record import UNFINISHED, RecordError

REQUEST_TIMEOUT_S = LINK_REQUEST_TIMEOUT_S  # the link's: longer than its worst round trip (docs/protocol.md)
RETRY_S = 0.3  # the board was not ready (setting up, reconnecting): ask again after this
STATE_POLL_S = 0.5  # while the board's phase is not known (after a reset, a game it switched to): ask this often
# The board says when setup turns into play (a "state" event); asking during setup is
# only a fallback for an event lost with the connection.
SETUP_POLL_S = 5.0
HINT_TIME_S = 0.3  # thinking time of a hint
HINT_LEVEL = 2
# The computer's move stays lit on the board this long before the terminal's hand on the
# virtual board carries it out, so that a person sees it (on the page, or on LEDs).
SHOW_AI_MOVE_S = 2.0

KEYS_HELP = "type a move (Tab completes), or a command: hint, undo, resign, draw, count, new, quit, help"


class SessionError(Exception):
    """The session cannot start or go on (no board game to resume, board out of sync)."""


class PlayUI(Protocol):
    """What the session reports. ``kind`` of a message: info, move, ai, board, wrong,
    error, hint, takeback, link, over."""

    def message(self, kind: str, text: str) -> None: ...

    def position(self, session: PlaySession) -> None: ...

    def thinking(self, side: str, info: SearchInfo | None) -> None: ...


class Hand(Protocol):
    """Moves pieces on the virtual board for the person at the terminal (before the
    browser page exists): sets up positions, makes typed moves and carries out the
    computer's moves."""

    def make_move(self, game: Any, move: Any) -> None: ...

    def set_up(self, game: Any, sides: tuple[int, ...] | None = None) -> None: ...


def board_identity(hello: dict[str, str]) -> str:
    """A name for the board in the log: its own id if its hello gives one, else its layout."""
    for key in ("id", "board", "uid"):
        if hello.get(key):
            return hello[key]
    return hello.get("layout") or "board"


describe_move = move_words  # the old name


class PlaySession:
    def __init__(
        self,
        link: BoardLink,
        db: Database,
        ui: PlayUI,
        *,
        ruleset: str | None = None,
        players: dict[str, str | None] | None = None,
        board_id: str | None = None,
        seed: int | None = None,
        deterministic: bool = False,
        hand: Hand | None = None,
        request_timeout: float = REQUEST_TIMEOUT_S,
        show_move_s: float = SHOW_AI_MOVE_S,
        start: StartFrom | None = None,
        clock: str = "",
    ) -> None:
        self.link = link
        # The time control of the games this session starts ("": none); the board keeps
        # the clocks, ``clocks`` shows them (docs/clocks.md).
        self.clock = clock
        self.clocks = ClockView()
        # ``zuni play --from``: the position the new game starts from (and its log tags);
        # each new game of this session starts from it again.
        self.start_from = start
        self.position = ""  # the start position of the game mirrored ("" : the rules' start)
        self.db = db
        self.ui = ui
        self.ruleset = ruleset
        self.players: dict[str, str | None] = dict(players or {})
        self.board_id = board_id
        self.seed = seed
        self.deterministic = deterministic
        self.hand = hand
        self.request_timeout = request_timeout
        self.show_move_s = show_move_s
        self.inbox: queue.Queue[tuple[Any, ...]] = queue.Queue()
        self.seats: dict[str, Seat] = {}
        self.game: Any = None  # zuni.Game mirroring the board's game
        self.moves: list[str] = []
        self.board_game = ""  # the board's id of its game
        self.db_game: int | None = None
        # Board moves before the log game's start (a game played on from a replay,
        # docs/replay.md): board move i is the log's move i - log_from.
        self.log_from = 0
        self.layout: str | None = None
        self.phase = "?"  # the board's: setup, play, over ("?" not known yet)
        self.quit = False
        self.stdin_closed = False
        self.ai_move: str | None = None  # the computer's move for this position
        self.ai_sent = False  # ... shown on the board as a host move
        self.offer: tuple[str, str] | None = None  # (what, side) a human offered
        self.hint_shown = False
        page_note("hint", None)
        self.last_wrong = ""
        self.confirm: str | None = None  # a command that ends the game, asked about
        self.typed_ahead: Any = None  # a move typed while the board was being set up
        self.show_at: float | None = None  # when the hand carries out the computer's move
        self.log = BoardGameLog(db, ui.message)
        self.thinking = Thinking(self.inbox.put, seed, deterministic)
        self._send_at = 0.0
        self._state_at = 0.0
        self._deferred = False  # the link's mirror is being refetched: reconcile later

    # -- starting ----------------------------------------------------------------------
    def start(self, *, resume: bool = False, timeout: float = 10.0) -> None:
        """Agree with the board, log what it played on its own, then start a new game
        on it (or, with ``resume``, go on with the log's unfinished game on it)."""
        link = self.link
        if not link.wait_synced(timeout):
            raise SessionError("the board did not answer and agree on its game within %.0f s" % timeout)
        self._drain_link()  # what they said is in link.moves now
        if self.board_id is None:
            self.board_id = board_identity(link.hello)
        self.layout = link.hello.get("layout")
        moves = link.moves
        times = {
            i: t for (g, i, x), t in link.move_times.items() if g == link.game and i < len(moves) and moves[i] == x
        }
        adopted = self.log.adopt(self.board_id, link.game, link.moves, link.ruleset, self.layout, link.position, times)
        if resume:
            self._resume(adopted)
        else:
            if adopted is not None:
                self.log.abandon(adopted)
            self._new_game(self.ruleset or link.ruleset)
        self.ui.position(self)
        self._poll_state()  # says whose turn it is once the board is set up

    def _drain_link(self) -> None:
        while True:
            try:
                self.link.events.get_nowait()
            except queue.Empty:
                return

    def _new_game(self, ruleset: str) -> None:
        link = self.link
        start = self.start_from
        if start is not None:
            ruleset = start.ruleset
        try:
            canonical = str(zuni.parse_ruleset(ruleset))
        except zuni.RulesetError as exc:
            raise SessionError("ruleset %r: %s" % (ruleset, exc))
        try:
            seats = seats_for(canonical, self.players)
        except ValueError as exc:
            raise SessionError(str(exc))
        position = start.position if start is not None else ""
        try:
            link.new_game(canonical, timeout=self.request_timeout * 2, position=position, clock=self.clock)
        except BoardError as exc:
            what = "the position %r" % position if position else canonical
            raise SessionError("the board cannot start %s: %s" % (what, exc.message))
        except LinkError as exc:
            raise SessionError("no new game on the board: %s" % exc)
        self.seats = seats
        self.ruleset = canonical
        self._open_game(link.game, [], canonical, None, position)
        how = (
            "set up the pieces on the board one side at a time, where it lights (OK or a moment's wait between sides)"
            if position
            else "set up the pieces on the board"
        )
        self.ui.message(
            "info",
            "new game #%d: %s%s, %s; %s"
            % (
                self.db_game or 0,
                canonical,
                " from %s" % position if position else "",
                ", ".join("%s %s" % (s, seat) for s, seat in self.seats.items()),
                how,
            ),
        )

    def _open_game(
        self,
        board_game: str,
        moves: list[str],
        ruleset: str,
        gid: int | None,
        position: str = "",
        log_from: int = 0,
    ) -> None:
        """Mirrors board game ``board_game`` (from ``position``, "": the rules' start) and
        logs it as ``gid`` (None: a new log game) from board move ``log_from`` on."""
        assert self.board_id is not None
        self.thinking.cancel()
        self.log_from = log_from
        if gid is None:
            players = {side: seat.text for side, seat in self.seats.items()}
            start = self.start_from
            tags = start.tags if start is not None and position == start.position else {}
            tc = self.link.info.get("tc") or None  # the board's clocks (this game's: new_game asked)
            gid = self.log.open(ruleset, players, self.board_id, self.layout, board_game, position or None, tags, tc)
        self.db_game = gid
        self.board_game = board_game
        self.ruleset = ruleset
        self.position = position
        self.game = start_game(ruleset, position)
        self.moves = []
        self.clocks.report(self.link.info, time.monotonic())
        self._new_position()
        for i, text in enumerate(moves):
            self._apply(i, text, quiet=True)
        self.phase = "?"

    def start_branch(self, gid: int, log_from: int) -> None:
        """Goes on with the board's game (a replay's moves so far) as log game ``gid``,
        which starts from the position after board move ``log_from`` (docs/replay.md)."""
        link = self.link
        if self.board_id is None:
            self.board_id = board_identity(link.hello)
        self.layout = link.hello.get("layout")
        record = self.db.get(gid)
        self.seats = seats_from_record(record.players, record.ruleset)
        self._open_game(link.game, link.moves, record.ruleset, gid, link.position, log_from)
        self.ui.message(
            "info",
            "game #%d: %s from move %d of game #%s, %s"
            % (
                gid,
                record.ruleset,
                log_from,
                record.tags.get("FromGame", "?"),
                ", ".join("%s %s" % (s, seat) for s, seat in self.seats.items()),
            ),
        )
        self.ui.position(self)
        self._poll_state()

    def _branch_again(self, k: int) -> None:
        """The board went back before the position the log's game starts from: the
        moves from there on are a new log game from the position after board move ``k``."""
        assert self.db_game is not None
        from zuni.position import position_text

        old = self.db.get(self.db_game)
        tags = dict(old.tags)
        tags["FromPly"] = str(k)
        tags[BOARD_PLY_TAG] = str(k)  # its first move is the board's move k
        players = {side: seat.text for side, seat in self.seats.items()}
        gid = self.db.new_game(
            old.ruleset,
            players=players,
            board=self.board_id,
            layout=self.layout,
            position=str(position_text(self.game)) if k else (self.position or None),
            tags=tags,
        )
        self.ui.message(
            "info",
            "taken back before the position game #%d starts from: the game from move %d is game #%d"
            % (self.db_game, k, gid),
        )
        self.db_game = gid
        self.log_from = k

    def _resume(self, adopted: int | None) -> None:
        link = self.link
        unfinished = [g for g in self.db.list_games() if g.result == UNFINISHED and g.termination != "abandoned"]
        if adopted is not None and any(g.id == adopted for g in unfinished):
            gid = adopted
        elif not unfinished:
            raise SessionError("no unfinished game in the log %s to resume" % self.db.path)
        else:
            last = unfinished[0]
            raise SessionError(
                "the log's last unfinished game #%d (%s, %d moves) is not the game on the board "
                "(%s, %d moves of %s): the board was reset or started another game"
                % (last.id, last.ruleset, last.moves, link.game or "none", len(link.moves), link.ruleset)
            )
        record = self.db.get(gid)
        seats = seats_from_record(record.players, record.ruleset)
        for side, text in self.players.items():
            if text is not None and side in seats:
                seats[side] = seats_for(record.ruleset, {side: text})[side]
        self.seats = seats
        players = {side: seat.text for side, seat in seats.items()}
        if players != record.players:
            self.log.set_players(gid, players)  # e.g. a game the board began on its own
        offset = board_ply(record.tags)  # a game played on from a replay (docs/replay.md)
        position = link.position if offset else record.position or ""
        self._open_game(link.game, link.moves, record.ruleset, gid, position, offset)
        self.ui.message(
            "info",
            "resumed game #%d: %s after %s, %s"
            % (
                gid,
                record.ruleset,
                count_words(len(self.moves), "move"),
                ", ".join("%s %s" % (s, seat) for s, seat in seats.items()),
            ),
        )
        try:
            state = link.state(timeout=self.request_timeout)
        except LinkError:
            return
        shown = state.get("hostmove")
        mover = self.turn_side()
        if shown and mover is not None and self.seats[mover].is_ai:
            self.ai_move = shown  # the board still shows the computer's move: keep it
            self.ai_sent = True
            if self.hand is not None:
                self.show_at = time.monotonic() + self.show_move_s

    # -- the loop --------------------------------------------------------------------
    def run(self) -> int:
        """Plays until ``q`` (or the game is over and the key input has ended)."""
        while not self.quit:
            self.pump(0.05)
            if self.stdin_closed and self.is_over():
                break
        return 0

    def pump(self, timeout: float = 0.05) -> None:
        """Handles what arrived (waiting at most ``timeout`` s for it) and does what is due."""
        while True:
            try:
                event = self.link.events.get_nowait()
            except queue.Empty:
                break
            self._on_link(event)
        try:
            item = self.inbox.get(timeout=timeout)
        except queue.Empty:
            item = None
        while item is not None:
            self._on_inbox(item)
            try:
                item = self.inbox.get_nowait()
            except queue.Empty:
                item = None
        self._tick()

    def key(self, line: str) -> None:
        """A line typed by the user (from any thread)."""
        self.inbox.put(("key", line))

    def close(self) -> None:
        """Stops the searches and leaves the board showing the game (no hint)."""
        self.thinking.cancel()
        if self.hint_shown and self.link.connected:
            with contextlib.suppress(LinkError):
                self.link.hint("", timeout=1.0)
            self.hint_shown = False

    # -- state -----------------------------------------------------------------------
    def turn_side(self) -> str | None:
        if self.game is None or self.game.is_game_over():
            return None
        return str(zuni.SIDE_NAMES[self.game.turn])

    def is_over(self) -> bool:
        return self.game is not None and bool(self.game.is_game_over())

    def _seat(self, side: str) -> Seat:
        return self.seats.get(side) or Seat("human")

    def _human_side(self) -> str | None:
        """The side a key press speaks for: the side to move if a person plays it,
        else the first side a person plays."""
        side = self.turn_side()
        if side is not None and not self._seat(side).is_ai:
            return side
        for s, seat in self.seats.items():
            if not seat.is_ai:
                return s
        return None

    def _new_position(self) -> None:
        """The position changed: answers being thought about are for the old one."""
        self.thinking.new_position()
        self.ai_move = None
        self.ai_sent = False
        self.offer = None
        self.hint_shown = False
        page_note("hint", None)
        self.last_wrong = ""
        self.confirm = None
        self.show_at = None
        self.typed_ahead = None

    # -- the link ----------------------------------------------------------------------
    def _on_link(self, event: LinkEvent) -> None:
        kind = event.kind
        if kind in ("move", "undo", "reset"):
            self._reconcile()
        elif kind == "connected":
            who = self.link.board_id
            self.ui.message("link", "board %sconnected (%s)" % (who + " " if who else "", event.text))
            self.ai_sent = False  # show the computer's move again (a reset board forgot it)
            self._reconcile()
        elif kind == "disconnected":
            self.ui.message("link", "board disconnected (%s); waiting for it to come back" % event.text)
        elif kind == "boardreset":
            self.ui.message("link", "the board restarted (boot %s)" % event.text)
            self.ai_sent = False
            self.phase = "?"
        elif kind == "wrong":
            self.last_wrong = event.text
            self.ui.message("wrong", "the board: %s" % self._board_words(event.text))
        elif kind == "error":
            self.ui.message("board", "the board: %s" % self._board_words(event.text))
        elif kind == "linkerror":
            self.ui.message("link", "the board's link reports: %s" % event.text)
        elif kind == "over":
            self._reconcile()
            self._board_over(event.text)
        elif kind == "button" and event.text.strip() == "hint":
            if self.phase != "setup":  # every press is reported; a hint only means something in play
                self._hint()
        elif kind == "state":
            self._apply_state(self.link.info)
        elif kind == "takeback":
            if event.text.strip() == "end" and self.game is not None:
                self.game.clear_agreement()
                if self.db_game is not None:
                    self.log.reopen(self.db_game)
                self._new_position()
                self.ui.message("takeback", "the board took back the end of the game: play on")
            self.phase = "setup"

    def _board_words(self, text: str) -> str:
        """The board's ``missing: m6; extra: m5`` said as the rule that refused the move."""
        return text if self.game is None else board_error_words(self.game, text)

    def _reconcile(self) -> None:
        """Brings the mirror and the log up to the link's move list."""
        link = self.link
        if self.game is None:
            return
        game_id = link.game
        moves = link.moves
        if game_id != self.board_game:
            if not link.synced():
                self._deferred = True
                return
            self._board_switched(game_id, link.moves)
            return
        k = common_prefix(self.moves, moves)
        if k < len(self.moves):
            if not link.synced():
                # The link is refetching after a divergence: its list is not the board's yet.
                self._deferred = True
                return
            self._cut(k)
        self._deferred = False
        changed = False
        for i in range(len(self.moves), len(moves)):
            if not self._apply(i, moves[i]):
                break
            changed = True
        if changed:
            self.ui.position(self)
            self._announce_turn()

    def _cut(self, k: int) -> None:
        n = len(self.moves) - k
        before = occupied_names(self.game)
        while len(self.moves) > k:
            self.moves.pop()
            self.game.pop()
        self.game.clear_agreement()
        if self.db_game is not None and k < self.log_from:
            self.log.take_back(self.db_game, 0)
            self._branch_again(k)
        elif self.db_game is not None:
            self.log.take_back(self.db_game, k - self.log_from)
        self._new_position()
        self.phase = "setup"
        todo = restore_words(occupied_names(self.game), before)
        self.ui.message(
            "takeback",
            "took back %s; on the board: %s (the blinking points)"
            % (count_words(n, "move"), todo or "nothing to move"),
        )
        self.ui.position(self)

    def _apply(self, index: int, text: str, quiet: bool = False) -> bool:
        game = self.game
        try:
            move = game.parse_move(text)
        except zuni.MoveError as exc:
            self.ui.message("error", "the board sent move %d %r, which the rules refuse: %s" % (index + 1, text, exc))
            return False
        side = str(zuni.SIDE_NAMES[game.turn])
        seat = self._seat(side)
        expected = self.ai_move
        game.push(move)
        self.moves.append(text)
        times = self.link.move_times.get((self.board_game, index, text))
        self.clocks.moved(side, times[1] if times else None, self.turn_side(), time.monotonic())
        if self.db_game is not None and index >= self.log_from:
            self.log.add_move(self.db_game, index - self.log_from, text, times)
        self.phase = "play"
        self._new_position()
        if not quiet:
            note = ""
            if seat.is_ai and expected == text:
                note = " (carried out on the board)"
            elif seat.is_ai:
                note = " (made on the board instead of the computer's %s)" % (expected or "move")
            self.ui.message("move", "%d. %s %s%s" % (index + 1, side, text, note))
        if game.is_game_over():
            self._finish()
        return True

    def _board_switched(self, game_id: str, moves: list[str]) -> None:
        """The board started or resumed another game on its own (a new game after the
        end, a reset that lost the journal, another host's new game)."""
        assert self.board_id is not None
        ruleset = self.link.ruleset or self.ruleset or "mosona"
        with contextlib.suppress(LinkError):
            ruleset = self.link.state(timeout=self.request_timeout).get("ruleset", ruleset)
        gid = self.db.board_game(self.board_id, game_id)
        if gid is not None:
            record = self.db.get(gid)
            offset = board_ply(record.tags)  # a game played on from a replay (docs/replay.md)
            try:
                self.log.sync(gid, moves[offset:])
            except RecordError as exc:
                self.ui.message("error", "log: game #%d: %s" % (gid, exc))
            position = self.link.position if offset else record.position or ""
            self._open_game(game_id, moves, record.ruleset, gid, position, offset)
            self.ui.message("info", "the board went back to game #%d" % gid)
        else:
            if self.seats == {} or set(self.seats) != set(seats_for(ruleset, {})):
                self.seats = seats_for(ruleset, self.players)
            self._open_game(game_id, moves, ruleset, None, self.link.position)
            self.ui.message("info", "the board started a new game: #%d (%s)" % (self.db_game or 0, ruleset))
        self.ui.position(self)
        self._announce_turn()

    def _finish(self) -> None:
        outcome = self.game.outcome()
        if outcome is None or self.db_game is None:
            return
        self._new_position()
        self.log.finish(self.db_game, outcome.result, outcome.termination)
        self.phase = "over"
        self.ui.message(
            "over",
            "%s. Game #%d is logged; press OK on the board or type new for a new game, quit to leave"
            % (outcome_words(self.game, outcome), self.db_game),
        )

    def _board_over(self, text: str) -> None:
        """The board says the game is over (``result termination``)."""
        self.phase = "over"
        if self.game is None or self.game.is_game_over():
            return  # the mirror knows already (the last move, or our own request)
        result, _, termination = text.strip().partition(" ")
        if termination == "time" and clock_view.apply_time_loss(self.game, result):
            self._finish()  # a flag fell (docs/clocks.md)
            return
        self.ui.message("board", "the board says the game is over: %s" % text)

    # -- what is due -----------------------------------------------------------------
    def _tick(self) -> None:
        if self._deferred:
            self._reconcile()
        if self.game is None or self.game.is_game_over() or not self.link.connected:
            return
        now = time.monotonic()
        if self.phase != "play" and now >= self._state_at:
            self._poll_state()  # "?" at once and often, "setup" rarely: the board says when it is set up
        side = self.turn_side()
        if side is None or not self._seat(side).is_ai:
            return
        if self.ai_move is None:
            if not self.thinking.busy("ai"):
                self._think(side)
        elif not self.ai_sent and now >= self._send_at:
            self._send_ai_move()
        elif self.ai_sent and self.show_at is not None and now >= self.show_at:
            self._carry_out()

    def _poll_state(self) -> None:
        try:
            state = self.link.state(timeout=self.request_timeout)
        except LinkError:
            self._state_at = time.monotonic() + STATE_POLL_S
            return
        self._apply_state(state)

    def _apply_state(self, state: dict[str, str]) -> None:
        """The board's state (a reply, or what it sent on its own): its phase."""
        phase = state.get("phase", "?")
        self._state_at = time.monotonic() + (SETUP_POLL_S if phase == "setup" else STATE_POLL_S)
        if state.get("game", self.board_game) == self.board_game:
            self.clocks.report(state, time.monotonic())
            if phase == "over" and state.get("termination") == "time" and self.game is not None:
                if clock_view.apply_time_loss(self.game, state.get("result", "")):
                    self._finish()  # a flag fell, its event lost with the connection
        if self.hand is not None and phase == "setup" and self.game is not None:
            staged = state.get("setup", "")
            if staged in zuni.SIDE_NAMES:
                # A position set up one side at a time: the sides up to the one the
                # board asks for now; then OK for the next (as a person would press it).
                upto = tuple(range(zuni.SIDE_NAMES.index(staged) + 1))
                self.hand.set_up(self.game, upto)
                with contextlib.suppress(LinkError):
                    self.link.press_ok(timeout=self.request_timeout)
            else:
                self.hand.set_up(self.game)
        if phase != self.phase:
            old = self.phase
            self.phase = phase
            if phase == "play" and old in ("setup", "?"):
                if old == "setup":
                    self.ui.message("board", "the board is set up: play on")
                self._announce_turn()
                ahead, self.typed_ahead = self.typed_ahead, None
                if ahead is not None and self.hand is not None and self.game is not None:
                    if ahead in self.game.legal_moves():
                        self.hand.make_move(self.game, ahead)
            elif phase == "setup":
                self.ui.message("board", "set up the pieces as the board shows (blinking points need a piece)")

    def _send_ai_move(self) -> None:
        assert self.ai_move is not None
        try:
            self.link.host_move(self.ai_move, timeout=self.request_timeout)
        except BoardError as exc:
            self._send_at = time.monotonic() + RETRY_S
            if "no game in play" not in exc.message:
                self.ui.message("error", "the board refused the computer's move %s: %s" % (self.ai_move, exc.message))
                self._send_at = time.monotonic() + 2.0
            return
        except LinkError:
            self._send_at = time.monotonic() + RETRY_S
            return
        self.ai_sent = True
        self.phase = "play"
        self.clocks.switched(self.turn_side() or "", clock_view.side_after(self.game, self.ai_move), time.monotonic())
        if self.hand is not None:
            self.ui.message("ai", "the board shows %s; the terminal's hand carries it out in a moment" % self.ai_move)
            self.show_at = time.monotonic() + self.show_move_s
        else:
            self.ui.message("ai", "carry out %s on the board: %s" % (self.ai_move, self._how(self.ai_move)))

    def _carry_out(self) -> None:
        """The terminal's hand makes the computer's move, once it has been seen lit."""
        self.show_at = None
        if self.hand is not None and self.ai_move is not None and self.ai_sent:
            self.hand.make_move(self.game, self.game.parse_move(self.ai_move))

    def _how(self, text: str) -> str:
        try:
            return describe_move(self.game, self.game.parse_move(text))
        except zuni.MoveError:
            return text

    def _announce_turn(self) -> None:
        side = self.turn_side()
        if side is None:
            return
        seat = self._seat(side)
        if self.phase != "play":
            return  # the board is being set up (or not heard from yet): it says so later
        if seat.is_ai:
            if self.ai_move and self.ai_sent:
                self.ui.message("ai", "%s (%s) waits for %s: %s" % (side, seat, self.ai_move, self._how(self.ai_move)))
        else:
            self.ui.message(
                "info",
                "%s to move (%s; help lists the commands)"
                % (side, "type it or make it on the board" if self.hand is not None else "make it on the board"),
            )

    # -- the computer ------------------------------------------------------------------
    def _think(self, side: str) -> None:
        seat = self._seat(side)
        self.ui.message("ai", "%s (%s) is thinking" % (side, seat))
        limits = {}
        if self.clocks.on and not self.deterministic:
            # On a clock the computer's time comes from its clock (docs/clocks.md).
            limits["time_limit"] = self.clocks.think_s(side, LEVEL_TIMES[seat.level], time.monotonic())
        self.thinking.start("ai", side, self.game, seat.level, **limits)

    def _hint(self) -> None:
        side = self.turn_side()
        if side is None:
            self.ui.message("hint", "no hint: the game is over")
            return
        if self._seat(side).is_ai:
            self.ui.message("hint", "no hint: it is the computer's turn (%s)" % side)
            return
        if self.thinking.busy("hint"):
            return
        self.ui.message("hint", "looking for a good move for %s" % side)
        limits = {} if self.deterministic else {"time_limit": HINT_TIME_S}
        self.thinking.start("hint", side, self.game, HINT_LEVEL, **limits)

    def _on_inbox(self, item: tuple[Any, ...]) -> None:
        what = item[0]
        if what == "key":
            self._on_key(str(item[1]))
            return
        if what == "eof":
            self.stdin_closed = True
            return
        gen, side = item[1], item[2]
        if gen != self.thinking.gen:
            return  # about a position that is gone
        if what == "progress":
            self.ui.thinking(side, item[3])
            return
        self.thinking.done(gen, what)
        if what == "ai":
            self.ui.thinking(side, None)
            self.ai_move = str(item[3])
            self.ai_sent = False
            self.ui.message(
                "ai", "%s (%s)" % (plays_words(self.game, self.game.parse_move(self.ai_move)), self._seat(side))
            )
            self._send_ai_move()
        elif what == "hint":
            text, table = str(item[3]), str(item[4])
            try:
                self.link.hint(text, timeout=self.request_timeout)
                self.hint_shown = True
                self.ui.message("hint", hint_words(side, text, self._how(text), table, True))
            except LinkError as exc:
                self.ui.message(
                    "hint", "%s (the board could not show it: %s)" % (hint_words(side, text, "", table, False), exc)
                )
            page_note("hint", hint_note(self.game, side, text, table))
        elif what == "failed":
            self.ui.thinking(side, None)
            self.ui.message("error", "the computer failed (%s)" % item[3])

    # -- typed lines -----------------------------------------------------------------
    def _on_key(self, line: str) -> None:
        word = line.strip()
        if not word:
            return
        if self.confirm is not None:
            what, self.confirm = self.confirm, None
            if word.lower() in YES:
                self._run_command(what, confirmed=True)
                return
            self.ui.message("info", "%s: not done" % what)
            if word.lower() in ("n", "no"):
                return
        read = read_line(word, self.game)
        if read.command:
            self._run_command(read.command)
        elif read.move is not None:
            self._typed_move(read.text, read.move)
        else:
            self.ui.message("wrong", read.error)

    def _run_command(self, name: str, confirmed: bool = False) -> None:
        if name in CONFIRM and not confirmed:
            question = self._question(name)
            if question:
                self.confirm = name
                self.ui.message("ask", question + " (yes/no)")
            return
        if name == "quit":
            self.quit = True
        elif name == "hint":
            self._hint()
        elif name == "undo":
            self._take_back()
        elif name == "resign":
            self._resign()
        elif name in ("draw", "count"):
            self._agree(name)
        elif name == "new":
            if not self.is_over():
                self.ui.message("info", "the game is not over: finish it, or resign, draw or count first")
                return
            try:
                self._new_game(self.ruleset or self.link.ruleset)
            except SessionError as exc:
                self.ui.message("error", str(exc))
                return
            self.ui.position(self)
            self._poll_state()
        elif name == "help":
            self.ui.message("info", help_text(self.hand is not None))
        elif name == "board":
            self.ui.position(self)
            self.ui.message("info", MARKS_HELP)

    def _question(self, name: str) -> str:
        """What to ask before ``name`` ends the game ('' when it cannot be done now:
        then the reason is said)."""
        side = self._human_side()
        if self.game is None or self.is_over() or side is None:
            self.ui.message(
                "info", "%s: %s" % (name, "the game is over" if self.is_over() else "no person plays in this game")
            )
            return ""
        if name == "resign":
            return "resign the game for %s?" % side
        word = "a draw" if name == "draw" else "to end the game by counting the pieces"
        return "offer %s for %s?" % (word, side)

    def _typed_move(self, text: str, move: Any) -> None:
        if self.hand is None:
            self.ui.message(
                "info", "%s: make it on the board (the terminal's hand moves pieces on the virtual board only)" % text
            )
            return
        side = self.turn_side()
        if side is not None and self._seat(side).is_ai:
            self.ui.message("info", "%r: it is the computer's turn (%s)" % (text, side))
            return
        if self.phase != "play":
            self._poll_state()  # the phase we know may be a moment old
        if self.phase != "play":
            # Typed while the hand is still setting up the board: made once it is set up.
            self.typed_ahead = move
            self.ui.message("info", "%s: the board is being set up; the move is made as soon as it is" % text)
            return
        self.hand.make_move(self.game, move)

    def _request(self, what: str, call: Any, *args: Any) -> bool:
        try:
            call(*args, timeout=self.request_timeout)
        except BoardError as exc:
            self.ui.message("error", "%s: the board refused: %s" % (what, exc.message))
            return False
        except LinkError as exc:
            self.ui.message("error", "%s: %s" % (what, exc))
            return False
        return True

    def _take_back(self) -> None:
        game = self.game
        outcome = game.outcome() if game is not None else None
        if outcome is not None and outcome.termination in ("resign", "agreed-draw", "agreed-count"):
            self.ui.message("takeback", "the game ended by %s: n starts a new game" % outcome.termination)
            return
        if game is None or not self.moves:
            self.ui.message("takeback", "nothing to take back")
            return
        # Back to before the last move a person made: the computer's replies after it
        # go too, so that the same person is to move again.
        count = 0
        previous = game.copy()
        while previous.move_stack:
            previous.pop()
            count += 1
            if not self._seat(str(zuni.SIDE_NAMES[previous.turn])).is_ai:
                break
        self.thinking.cancel()
        for _ in range(count):
            if not self._request("take-back", self.link.take_back):
                break

    def _resign(self) -> None:
        side = self._human_side()
        if self.game is None or self.is_over() or side is None:
            self.ui.message(
                "info", "nobody to resign: %s" % ("the game is over" if self.is_over() else "no person plays")
            )
            return
        if not self._request("resign " + side, self.link.resign, side):
            return
        self._declare(self.game.resign(zuni.SIDE_NAMES.index(side)), "%s resigns" % side)

    def _agree(self, what: str) -> None:
        side = self._human_side()
        game = self.game
        if game is None or self.is_over() or side is None:
            self.ui.message("info", "no agreement possible now")
            return
        word = "a draw" if what == "draw" else "an end by counting"
        team = game.team_of(zuni.SIDE_NAMES.index(side))
        others = [s for s, seat in self.seats.items() if game.team_of(zuni.SIDE_NAMES.index(s)) != team]
        people = [s for s in others if not self._seat(s).is_ai]
        if people:
            if self.offer is None or self.offer[0] != what:
                self.offer = (what, side)
                self.ui.message("info", "%s offers %s: %s, type %s to agree" % (side, word, "/".join(people), what))
                return
        elif others:
            answer = verdict(game, what, others[0], deterministic=self.deterministic)
            if answer:
                self.ui.message("info", "%s offers %s: %s" % (side, word, answer))
                return
        if not self._request("agree " + what, self.link.agree, what):
            return
        self._declare(game.agree(what), "agreed %s" % word)

    def _declare(self, outcome: Any, why: str) -> None:
        """A declared end (resignation, agreement) the board accepted: log it."""
        self._new_position()
        self.phase = "over"
        if self.db_game is not None:
            self.log.finish(self.db_game, outcome.result, outcome.termination)
        self.ui.message(
            "over",
            "%s. Game #%d is logged; press OK on the board or type new for a new game, quit to leave"
            % (outcome_words(self.game, outcome), self.db_game or 0),
        )
        self.ui.position(self)
