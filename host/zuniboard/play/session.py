"""The play session: one game on a board between people and the computer.

``PlaySession(link, db, ui, ...)`` sits between the board link (``BoardLink``), the
game log (``Database``), the computer players (``zuniboard.ai``) and a user interface
(``PlayUI``: the terminal, or a recorder in tests). It is single-threaded: ``pump()``
handles what arrived (link events, keys, the computer's answers) and does what is due;
only the searches run in worker threads, and they post their results to ``inbox``.

The board is the truth about the game: the session mirrors the link's move list into
its own ``zuni.Game`` and into the log (each move committed as it arrives), and follows
take-backs and new games the board makes on its own. The computer's move is sent to the
board as a host move; the game goes on when the board reports it carried out.

>>> session = PlaySession(link, db, ui, ruleset="mosona", players={"north": "ai:2"})
>>> session.start()              # new game on the board, logged
>>> session.run()                # until quit (q) or the game is over and stdin ends
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import zuni
from zuniboard.ai import Searcher, SearchInfo, SearchPlayer, score_text, tablebase
from zuniboard.link import REQUEST_TIMEOUT_S as LINK_REQUEST_TIMEOUT_S
from zuniboard.link import BoardError, BoardLink, LinkError, LinkEvent
from zuniboard.play.seats import Seat, seats_for, seats_from_record
from zuniboard.records.db import Database, MoveConflictError
from zuniboard.records.record import UNFINISHED, RecordError

REQUEST_TIMEOUT_S = LINK_REQUEST_TIMEOUT_S  # the link's: longer than its worst round trip (docs/protocol.md)
RETRY_S = 0.3  # the board was not ready (setting up, reconnecting): ask again after this
STATE_POLL_S = 0.5  # while the board's phase is not known (after a reset, a game it switched to): ask this often
# The board says when setup turns into play (a "state" event); asking during setup is
# only a fallback for an event lost with the connection.
SETUP_POLL_S = 5.0
HINT_TIME_S = 0.3  # thinking time of a hint
JUDGE_TIME_S = 0.2  # thinking time of the computer weighing a draw offer
DRAW_MARGIN = 50  # the computer accepts a draw unless it stands this much better (hundredths)

KEYS_HELP = "keys: h hint, u take back, r resign, d draw, c end by counting, n new game (when over), q quit"


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

    def set_up(self, game: Any) -> None: ...


@dataclass
class _Job:
    """A search in a worker thread: for position generation ``gen``."""

    gen: int
    what: str  # "ai" or "hint"
    side: str
    stop: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None


def _prefix(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def board_identity(hello: dict[str, str]) -> str:
    """A name for the board in the log: its own id if its hello gives one, else its layout."""
    for key in ("id", "board", "uid"):
        if hello.get(key):
            return hello[key]
    return hello.get("layout") or "board"


def describe_move(game: Any, move: Any) -> str:
    """What a person does on the board for ``move`` (``game`` before it):
    ``lift n4, place it on s4, remove m5``."""
    names = game.geometry.names
    if move.kind == zuni.PASS:
        return "pass (nothing to do on the board)"
    if move.kind == zuni.DROP:
        text = "place a piece on %s" % names[move.dest]
    else:
        path = [names[p] for p in move.path]
        text = "lift %s, place it on %s" % (path[0], path[-1])
        if len(path) > 2:
            text += " (via %s)" % ", ".join(path[1:-1])
    if move.captures:
        text += ", remove %s" % " ".join(names[p] for p in move.captures)
    return text


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
    ) -> None:
        self.link = link
        self.db = db
        self.ui = ui
        self.ruleset = ruleset
        self.players: dict[str, str | None] = dict(players or {})
        self.board_id = board_id
        self.seed = seed
        self.deterministic = deterministic
        self.hand = hand
        self.request_timeout = request_timeout
        self.inbox: queue.Queue[tuple[Any, ...]] = queue.Queue()
        self.seats: dict[str, Seat] = {}
        self.game: Any = None  # zuni.Game mirroring the board's game
        self.moves: list[str] = []
        self.board_game = ""  # the board's id of its game
        self.db_game: int | None = None
        self.layout: str | None = None
        self.phase = "?"  # the board's: setup, play, over ("?" not known yet)
        self.quit = False
        self.stdin_closed = False
        self.ai_move: str | None = None  # the computer's move for this position
        self.ai_sent = False  # ... shown on the board as a host move
        self.offer: tuple[str, str] | None = None  # (what, side) a human offered
        self.hint_shown = False
        self.last_wrong = ""
        self._gen = 0  # position generation: answers for older positions are dropped
        self._jobs: list[_Job] = []
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
        adopted = self._adopt_board_game()
        if resume:
            self._resume(adopted)
        else:
            if adopted is not None:
                self._abandon(adopted)
            self._new_game(self.ruleset or link.ruleset)
        self.ui.position(self)
        self._poll_state()  # says whose turn it is once the board is set up

    def _drain_link(self) -> None:
        while True:
            try:
                self.link.events.get_nowait()
            except queue.Empty:
                return

    def _adopt_board_game(self) -> int | None:
        """Logs the moves of the board's current game (played standalone, or while the
        host was away); returns its log id, or None for a game with no moves nobody logged."""
        link = self.link
        game_id, moves, ruleset = link.game, link.moves, link.ruleset
        assert self.board_id is not None
        if not game_id:
            return None
        gid = self.db.board_game(self.board_id, game_id)
        if gid is None and not moves:
            return None
        if gid is None:
            gid, added = self.db.attach_board_moves(
                self.board_id, game_id, ruleset, list(enumerate(moves)), layout=self.layout
            )
            self.ui.message(
                "info", "logged the %d moves the board played on its own as game #%d (%s)" % (added, gid, ruleset)
            )
            return gid
        try:
            added = self._sync_log(gid, moves)
        except RecordError as exc:  # e.g. the log ended the game, the board went on
            self.ui.message("error", "log: game #%d: %s" % (gid, exc))
            return gid
        if added:
            self.ui.message("info", "logged %d moves the board made while the host was away (game #%d)" % (added, gid))
        return gid

    def _abandon(self, gid: int) -> None:
        """A new game replaces the board's unfinished one: the log says it was given up."""
        record = self.db.get(gid)
        if record.result != UNFINISHED or not record.moves:
            return
        try:
            self.db.finish_game(gid, UNFINISHED, "abandoned")
        except RecordError as exc:
            self.ui.message("error", "log: %s" % exc)
            return
        self.ui.message(
            "info",
            "the board's unfinished game #%d (%d moves) is logged as abandoned (zuni play --resume goes on with "
            "the board's game instead of starting a new one)" % (gid, len(record.moves)),
        )

    def _sync_log(self, gid: int, moves: list[str]) -> int:
        """Makes the log of game ``gid`` hold exactly ``moves`` (the board's); returns
        how many moves were added."""
        record = self.db.get(gid)
        stored = record.move_texts()
        k = _prefix(stored, moves)
        if k < len(stored):
            self.db.take_back(gid, k)
        added = 0
        for i in range(k, len(moves)):
            if self.db.add_move(gid, i, moves[i]):
                added += 1
        return added

    def _new_game(self, ruleset: str) -> None:
        link = self.link
        try:
            canonical = str(zuni.parse_ruleset(ruleset))
        except zuni.RulesetError as exc:
            raise SessionError("ruleset %r: %s" % (ruleset, exc))
        try:
            seats = seats_for(canonical, self.players)
        except ValueError as exc:
            raise SessionError(str(exc))
        try:
            link.new_game(canonical, timeout=self.request_timeout * 2)
        except BoardError as exc:
            raise SessionError("the board cannot start %s: %s" % (canonical, exc.message))
        except LinkError as exc:
            raise SessionError("no new game on the board: %s" % exc)
        self.seats = seats
        self.ruleset = canonical
        self._open_game(link.game, [], canonical, None)
        self.ui.message(
            "info",
            "new game #%d: %s, %s; set up the pieces on the board"
            % (self.db_game or 0, canonical, ", ".join("%s %s" % (s, seat) for s, seat in self.seats.items())),
        )

    def _open_game(self, board_game: str, moves: list[str], ruleset: str, gid: int | None) -> None:
        """Mirrors board game ``board_game`` and logs it as ``gid`` (None: a new log game)."""
        assert self.board_id is not None
        self._cancel_jobs()
        if gid is None:
            players = {side: seat.text for side, seat in self.seats.items()}
            try:
                gid = self.db.new_game(
                    ruleset, players=players, board=self.board_id, layout=self.layout, board_game_id=board_game
                )
            except RecordError as exc:
                # The board reused a game id the log already has (another board with the
                # same identity): log the game without the board's id.
                self.ui.message("error", "log: %s; logging it without the board's game id" % exc)
                gid = self.db.new_game(ruleset, players=players, board=self.board_id, layout=self.layout)
        self.db_game = gid
        self.board_game = board_game
        self.ruleset = ruleset
        self.game = zuni.new_game(ruleset)
        self.moves = []
        self._new_position()
        for i, text in enumerate(moves):
            self._apply(i, text, quiet=True)
        self.phase = "?"

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
            try:
                self.db.set_players(gid, players)  # e.g. a game the board began on its own
            except RecordError as exc:
                self.ui.message("error", "log: %s" % exc)
        self._open_game(link.game, link.moves, record.ruleset, gid)
        self.ui.message(
            "info",
            "resumed game #%d: %s after %d moves, %s"
            % (gid, record.ruleset, len(self.moves), ", ".join("%s %s" % (s, seat) for s, seat in seats.items())),
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
        self._cancel_jobs()
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
        self._gen += 1
        self._cancel_jobs()
        self.ai_move = None
        self.ai_sent = False
        self.offer = None
        self.hint_shown = False
        self.last_wrong = ""

    def _cancel_jobs(self) -> None:
        for job in self._jobs:
            job.stop.set()
        self._jobs = []

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
            self.ui.message("wrong", "the board: %s" % event.text)
        elif kind == "error":
            self.ui.message("board", "the board: %s" % event.text)
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
                    self.db.reopen_game(self.db_game)
                self._new_position()
                self.ui.message("takeback", "the board took back the end of the game: play on")
            self.phase = "setup"

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
        k = _prefix(self.moves, moves)
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
        while len(self.moves) > k:
            self.moves.pop()
            self.game.pop()
        self.game.clear_agreement()
        if self.db_game is not None:
            self.db.take_back(self.db_game, k)
        self._new_position()
        self.phase = "setup"
        self.ui.message(
            "takeback", "took back %d move%s; restore the position the board shows" % (n, "" if n == 1 else "s")
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
        if self.db_game is not None:
            try:
                self.db.add_move(self.db_game, index, text)
            except (MoveConflictError, RecordError) as exc:
                self.ui.message("error", "log: %s" % exc)
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
            try:
                self._sync_log(gid, moves)
            except RecordError as exc:
                self.ui.message("error", "log: game #%d: %s" % (gid, exc))
            self._open_game(game_id, moves, self.db.get_ruleset(gid), gid)
            self.ui.message("info", "the board went back to game #%d" % gid)
        else:
            if self.seats == {} or set(self.seats) != set(seats_for(ruleset, {})):
                self.seats = seats_for(ruleset, self.players)
            self._open_game(game_id, moves, ruleset, None)
            self.ui.message("info", "the board started a new game: #%d (%s)" % (self.db_game or 0, ruleset))
        self.ui.position(self)
        self._announce_turn()

    def _finish(self) -> None:
        outcome = self.game.outcome()
        if outcome is None or self.db_game is None:
            return
        self._new_position()
        try:
            self.db.finish_game(self.db_game, outcome.result, outcome.termination)
        except RecordError as exc:
            self.ui.message("error", "log: %s" % exc)
        self.phase = "over"
        text = "game over: %s (%s)" % (outcome.result, outcome.termination)
        if outcome.scores is not None:
            text += ", score %d-%d" % tuple(outcome.scores)
        self.ui.message("over", "%s; game #%d logged. n: new game, q: quit" % (text, self.db_game))

    def _board_over(self, text: str) -> None:
        """The board says the game is over (``result termination``)."""
        self.phase = "over"
        if self.game is None or self.game.is_game_over():
            return  # the mirror knows already (the last move, or our own request)
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
            if not any(job.what == "ai" for job in self._jobs):
                self._think(side)
        elif not self.ai_sent and now >= self._send_at:
            self._send_ai_move()

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
        if self.hand is not None and phase == "setup" and self.game is not None:
            self.hand.set_up(self.game)
        if phase != self.phase:
            old = self.phase
            self.phase = phase
            if phase == "play" and old in ("setup", "?"):
                if old == "setup":
                    self.ui.message("board", "the board is set up: play on")
                self._announce_turn()
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
        self.ui.message("ai", "carry out %s on the board: %s" % (self.ai_move, self._how(self.ai_move)))
        if self.hand is not None:
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
            self.ui.message("info", "%s to move (make the move on the board; ? for keys)" % side)

    # -- the computer ------------------------------------------------------------------
    def _player(self, level: int, job: _Job, **limits: Any) -> SearchPlayer:
        def progress(info: SearchInfo) -> None:
            self.inbox.put(("progress", job.gen, job.side, info))

        return SearchPlayer(
            level, self.seed, deterministic=self.deterministic, progress=progress, stop=job.stop, **limits
        )

    def _spawn(self, job: _Job, player: SearchPlayer) -> None:
        game = self.game.copy()

        def work() -> None:
            try:
                move = player.choose(game)
                self.inbox.put((job.what, job.gen, job.side, move.text()))
            except Exception as exc:  # a bug in the search must not stop the game
                self.inbox.put(("failed", job.gen, job.side, "%s: %r" % (job.what, exc)))

        job.thread = threading.Thread(target=work, name="zuni-%s" % job.what, daemon=True)
        self._jobs.append(job)
        job.thread.start()

    def _think(self, side: str) -> None:
        seat = self._seat(side)
        job = _Job(self._gen, "ai", side)
        self.ui.message("ai", "%s (%s) is thinking" % (side, seat))
        self._spawn(job, self._player(seat.level, job))

    def _hint(self) -> None:
        side = self.turn_side()
        if side is None:
            self.ui.message("hint", "no hint: the game is over")
            return
        if self._seat(side).is_ai:
            self.ui.message("hint", "no hint: it is the computer's turn (%s)" % side)
            return
        if any(job.what == "hint" for job in self._jobs):
            return
        job = _Job(self._gen, "hint", side)
        self.ui.message("hint", "looking for a good move for %s" % side)
        if self.deterministic:
            player = self._player(2, job)
        else:
            player = self._player(2, job, time_limit=HINT_TIME_S)
        self._spawn(job, player)

    def _on_inbox(self, item: tuple[Any, ...]) -> None:
        what = item[0]
        if what == "key":
            self._on_key(str(item[1]))
            return
        if what == "eof":
            self.stdin_closed = True
            return
        gen, side = item[1], item[2]
        if gen != self._gen:
            return  # about a position that is gone
        if what == "progress":
            self.ui.thinking(side, item[3])
            return
        self._jobs = [job for job in self._jobs if not (job.gen == gen and job.what == what)]
        if what == "ai":
            self.ui.thinking(side, None)
            self.ai_move = str(item[3])
            self.ai_sent = False
            self.ui.message("ai", "%s (%s) plays %s" % (side, self._seat(side), self.ai_move))
            self._send_ai_move()
        elif what == "hint":
            text = str(item[3])
            try:
                self.link.hint(text, timeout=self.request_timeout)
                self.hint_shown = True
                verdict = tablebase.verdict_text(self.game)
                tail = ", tablebase: %s" % verdict if verdict else ""
                self.ui.message(
                    "hint", "hint for %s: %s (%s), shown on the board%s" % (side, text, self._how(text), tail)
                )
            except LinkError as exc:
                self.ui.message("hint", "hint for %s: %s (the board could not show it: %s)" % (side, text, exc))
        elif what == "failed":
            self.ui.thinking(side, None)
            self.ui.message("error", "the computer failed (%s)" % item[3])

    # -- keys ------------------------------------------------------------------------
    def _on_key(self, line: str) -> None:
        word = line.strip()
        low = word.lower()
        if not word:
            return
        if low in ("q", "quit", "exit"):
            self.quit = True
        elif low in ("h", "hint"):
            self._hint()
        elif low in ("u", "undo", "takeback", "take-back"):
            self._take_back()
        elif low in ("r", "resign"):
            self._resign()
        elif low in ("d", "draw"):
            self._agree("draw")
        elif low in ("c", "count"):
            self._agree("count")
        elif low in ("n", "new"):
            if not self.is_over():
                self.ui.message("info", "the game is not over: finish it, resign (r) or agree an end (d, c) first")
            else:
                try:
                    self._new_game(self.ruleset or self.link.ruleset)
                except SessionError as exc:
                    self.ui.message("error", str(exc))
                    return
                self.ui.position(self)
                self._poll_state()
        elif low in ("?", "help"):
            self.ui.message(
                "info", KEYS_HELP + (", or type a move to make it on the virtual board" if self.hand else "")
            )
        elif low in ("b", "board"):
            self.ui.position(self)
        elif self.hand is not None and self.game is not None:
            self._hand_move(word)
        else:
            self.ui.message("info", "unknown key %r; %s" % (word, KEYS_HELP))

    def _hand_move(self, text: str) -> None:
        assert self.hand is not None
        side = self.turn_side()
        if side is not None and self._seat(side).is_ai:
            self.ui.message("info", "%r: it is the computer's turn (%s)" % (text, side))
            return
        if self.phase != "play":
            self._poll_state()  # the phase we know may be a moment old
        if self.phase != "play":
            self.ui.message("info", "%r: the board is not ready (%s); try again in a moment" % (text, self.phase))
            return
        try:
            move = self.game.parse_move(text)
        except zuni.MoveError as exc:
            self.ui.message("error", "move %r: %s" % (text, exc))
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
        self._cancel_jobs()
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
                self.ui.message("info", "%s offers %s: %s, press %s to agree" % (side, word, "/".join(people), what[0]))
                return
        elif others:
            verdict = self._computer_accepts(what, others[0])
            if verdict:
                self.ui.message("info", "%s offers %s: %s" % (side, word, verdict))
                return
        if not self._request("agree " + what, self.link.agree, what):
            return
        self._declare(game.agree(what), "agreed %s" % word)

    def _computer_accepts(self, what: str, side: str) -> str:
        """'' if the computer playing ``side`` accepts, else why it declines."""
        game = self.game
        team = game.team_of(zuni.SIDE_NAMES.index(side))
        if what == "count":
            outcome = game.copy().agree("count")
            if outcome.winner is not None and outcome.winner != team:
                return "%s declines: it has fewer pieces" % side
            return ""
        # Deterministic play judges by a node budget alone: a clock could end the search
        # early on a loaded machine and change the answer.
        if self.deterministic:
            result = Searcher().search(game, time_limit=None, node_limit=4000)
        else:
            result = Searcher().search(game, time_limit=JUDGE_TIME_S)
        score = result.score if game.team_of(game.turn) == team else -result.score
        if score > DRAW_MARGIN:
            return "%s declines: it stands better (%s)" % (side, score_text(score))
        return ""

    def _declare(self, outcome: Any, why: str) -> None:
        """A declared end (resignation, agreement) the board accepted: log it."""
        self._new_position()
        self.phase = "over"
        if self.db_game is not None:
            try:
                self.db.finish_game(self.db_game, outcome.result, outcome.termination)
            except RecordError as exc:
                self.ui.message("error", "log: %s" % exc)
        self.ui.message(
            "over",
            "game over: %s (%s, %s); game #%d logged. n: new game, q: quit"
            % (outcome.result, outcome.termination, why, self.db_game or 0),
        )
        self.ui.position(self)
