"""The play session: the runner of one game on a board between people and the computer.

The game itself is ``controller.GameController`` (pure: events in, actions out).
``PlaySession(link, db, ui, ...)`` wires it to the board link (``BoardLink``), the game
log (``gamelog.BoardGameLog``), the computer's searches (``thinking.Thinking``, worker
threads that post their answers to ``inbox``), the terminal's hand on the virtual board
and a user interface (``PlayUI``: the terminal, or a recorder in tests). It is
single-threaded: ``pump()`` hands what arrived (link events, typed lines, the computer's
answers) to the controller and does the actions it returns; ``key(line)`` may be called
from any thread (the terminal's reader, the page's ``POST /api/line``).

>>> session = PlaySession(link, db, ui, ruleset="mosona", players={"north": "ai:2"})
>>> session.start()              # new game on the board, logged
>>> session.run()                # until quit, or the game is over and the input ends
"""

from __future__ import annotations

import contextlib
import queue
import time
from collections.abc import Callable
from typing import Any, Protocol

import zuni
from zuniboard.ai import SearchInfo
from zuniboard.games.clock_view import ClockView
from zuniboard.games.words import count_words, move_words
from zuniboard.link.client import REQUEST_TIMEOUT_S as LINK_REQUEST_TIMEOUT_S
from zuniboard.link.client import BoardError, BoardLink, LinkError, LinkEvent
from zuniboard.oslock import LockBusy
from zuniboard.play.controller import (
    HINT_LEVEL,
    HINT_TIME_S,
    MOVES_AT_BOARD,
    RETRY_S,
    SETUP_POLL_S,
    SHOW_AI_MOVE_S,
    STATE_POLL_S,
    Action,
    GameController,
)
from zuniboard.play.gamelog import BoardGameLog, LoggedGame
from zuniboard.play.judge import verdict
from zuniboard.play.openings import Opening, OpeningError, Openings, board_identity
from zuniboard.play.seats import Seat
from zuniboard.play.start_from import StartFrom
from zuniboard.play.thinking import Thinking
from zuniboard.records.db import Database, LogUnwritable

__all__ = [
    "HINT_LEVEL",
    "HINT_TIME_S",
    "KEYS_HELP",
    "KEYS_HELP_NO_HAND",
    "REQUEST_TIMEOUT_S",
    "RETRY_S",
    "SETUP_POLL_S",
    "SHOW_AI_MOVE_S",
    "STATE_POLL_S",
    "Hand",
    "PlaySession",
    "PlayUI",
    "SessionError",
    "board_identity",
    "describe_move",
]

REQUEST_TIMEOUT_S = LINK_REQUEST_TIMEOUT_S  # the link's: longer than its worst round trip (docs/protocol.md)

KEYS_HELP = "type a move (Tab completes), or a command: hint, undo, resign, draw, count, new, quit, help"
# Without the terminal's hand (a real board, --manual): moves are made with pieces.
KEYS_HELP_NO_HAND = "make your moves %s; type a command: hint, undo, resign, draw, count, new, quit, help"

# Link events that change the board's move list: the controller reconciles its mirror.
_MOVE_LIST_EVENTS = ("move", "undo", "reset", "connected", "over")


CATCH_UP_S = 2.0  # how often a log that could not be written is tried again

SessionError = OpeningError  # the session cannot start or go on (no game to resume, the board out of sync)


class PlayUI(Protocol):
    """What the session reports. ``kind`` of a message: info, move, ai, board, wrong,
    error, hint, takeback, link, over, ask."""

    def message(self, kind: str, text: str) -> None: ...

    def position(self, session: PlaySession) -> None: ...

    def thinking(self, side: str, info: SearchInfo | None) -> None: ...


class Hand(Protocol):
    """Moves pieces on the virtual board for the person at the terminal: sets up
    positions, makes typed moves and carries out the computer's moves."""

    def make_move(self, game: zuni.Game, move: zuni.Move) -> None: ...

    def set_up(self, game: zuni.Game, sides: tuple[int, ...] | None = None) -> None: ...


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
        on_change: Callable[[GameController], None] | None = None,
        moves_at: str = MOVES_AT_BOARD,
        clock: str = "",
    ) -> None:
        self.link = link
        # ``clock``: the time control of the games this session starts ("": none); the
        # board keeps the clocks, the controller's ``clocks`` shows them (docs/clocks.md).
        # ``start`` (``zuni play --from``): the position each new game starts from.
        self.db = db
        self.ui = ui
        self.ruleset = ruleset
        self.hand = hand
        self.request_timeout = request_timeout
        self.deterministic = deterministic
        # What the page shows of the game (``web.page.publish``), after every change.
        self.on_change = on_change
        self.control = GameController(
            hand=hand is not None, deterministic=deterministic, show_move_s=show_move_s, moves_at=moves_at
        )
        self.inbox: queue.Queue[tuple[Any, ...]] = queue.Queue()
        self.logged: LoggedGame | None = None  # the log's game of the board's game
        self.stdin_closed = False
        self.log = BoardGameLog(db, ui.message)
        self.openings = Openings(
            link,
            self.log,
            players=dict(players or {}),
            start=start,
            clock=clock,
            board_id=board_id,
            request_timeout=request_timeout,
        )
        self.openings.hand_sets_up = hand is not None
        self.thinking = Thinking(self.inbox.put, seed, deterministic)
        self._next_catch_up = 0.0  # when to try again to write what the log lacks

    # -- the controller's state, for the UI and the tests ----------------------------------
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
        return self.logged.gid if self.logged is not None else None

    @property
    def clocks(self) -> ClockView:
        return self.control.clocks

    @property
    def game(self) -> Any:
        return self.control.game

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
        return self.control.ai_move

    @property
    def ai_sent(self) -> bool:
        return self.control.ai_sent

    @property
    def hint_shown(self) -> bool:
        return self.control.hint_shown

    @property
    def board_game(self) -> str:
        return self.control.board_game

    @property
    def position(self) -> str:
        return self.control.position

    @property
    def quit(self) -> bool:
        return self.control.quit

    def turn_side(self) -> str | None:
        return self.control.turn_side()

    def is_over(self) -> bool:
        return self.control.is_over()

    # -- starting ----------------------------------------------------------------------
    def start(self, *, resume: bool = False, timeout: float = 10.0, game: int | None = None) -> None:
        """Agree with the board, log what it played on its own, then start a new game
        on it (or, with ``resume``, go on with the log's unfinished game ``game``: None,
        the board's, else the newest)."""
        link = self.link
        if not link.wait_synced(timeout):
            raise SessionError("the board did not answer and agree on its game within %.0f s" % timeout)
        self.link.drop_events()  # what they said is in link.moves now
        self.openings.know_the_board()
        adopted = self.openings.adopt()
        if resume:
            self._open(self.openings.resume(adopted, game))
            with contextlib.suppress(LinkError):
                shown = link.state(timeout=self.request_timeout).get("hostmove", "")
                self.control.shown_on_resume(shown, time.monotonic())
        else:
            self._open(self.openings.new(self.ruleset or link.ruleset))
            if adopted is not None:
                self.log.left(adopted)
        self.ui.position(self)
        self._do(self.control.tick(time.monotonic(), link.connected))  # whose turn, once the board is set up

    def start_branch(self, gid: int, log_from: int) -> None:
        """Goes on with the board's game (a replay's moves so far) as log game ``gid``,
        which starts from the position after board move ``log_from`` (docs/replay.md)."""
        self.openings.know_the_board()
        self._open(self.openings.branch(gid, log_from))
        self.ui.position(self)
        self._do(self.control.tick(time.monotonic(), self.link.connected))

    def _open(self, opening: Opening) -> None:
        """The controller mirrors the opening's board game, logged as its log game."""
        self.thinking.cancel()
        if self.logged is not None:
            self.logged.release()
            if self.logged.gid != opening.gid:
                self.log.drop_if_empty(self.logged.gid)
        try:
            self.logged = LoggedGame(self.log, opening.gid, opening.log_from)
        except LockBusy as exc:
            self.logged = None
            raise SessionError("%s: go on there, or quit it first (its terminal: quit)" % exc) from None
        self.ruleset = opening.ruleset
        link = self.link
        self._do(
            self.control.open(
                opening.board_game,
                opening.ruleset,
                opening.position,
                opening.seats,
                opening.moves,
                number=opening.gid,
                now=time.monotonic(),
                state=link.info,
                times=link.move_times,
            )
        )
        if opening.said:
            self.ui.message("info", opening.said)

    def _board_switched(self, game_id: str, moves: list[str]) -> None:
        """The board started or went back to another game on its own."""

        def seats_now(ruleset: str) -> dict[str, Seat]:
            return self.control.seats_for_board_game(ruleset, self.players)

        self._open(self.openings.switched(game_id, moves, seats_now, self.ruleset or ""))
        self.ui.position(self)
        self._do(self.control.board_moves(game_id, moves, True, time.monotonic(), self.link.move_times))

    # -- the loop --------------------------------------------------------------------
    def run(self) -> int:
        """Plays until quit (or the game is over and the typed input has ended)."""
        while not self.control.quit:
            self.pump(0.05)
            if self.stdin_closed and self.is_over():
                break
            if self.stdin_closed and self.control.human_side() is not None:
                # Nobody can type any more (`zuni play </dev/null`, Ctrl-D): leave as quit
                # does; a game of computers alone plays on to its end.
                self.ui.message("info", "the input ended: leaving as quit does")
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
        if self.control.deferred:
            self._reconcile()
        now = time.monotonic()
        if self.logged is not None and self.logged.behind and now >= self._next_catch_up:
            self._next_catch_up = now + CATCH_UP_S
            if self.logged.catch_up():
                self.control.number = self.logged.gid
        self._do(self.control.tick(now, self.link.connected))

    def key(self, line: str) -> None:
        """A line typed by the user (from any thread)."""
        self.inbox.put(("key", line))

    def page_line(self, line: str) -> None:
        """A line typed on the page (``POST /api/line``, from the server's thread)."""
        self.inbox.put(("page", line))

    def end_of_input(self) -> None:
        """The typed input ended (from any thread)."""
        self.inbox.put(("eof",))

    def close(self) -> None:
        """Stops the searches and leaves the board showing the game (no hint); another
        process may go on with the game then."""
        self.thinking.cancel()
        logged = self.logged
        if logged is not None:
            logged.catch_up()
            logged.release()
            if logged.behind:
                self.ui.message(
                    "error",
                    "log: %s of game #%d could not be written: the board keeps them, and `zuni play --resume` "
                    "logs them once the log can be written" % (count_words(len(logged.pending), "move"), logged.gid),
                )
            elif not self.is_over():
                self.log.drop_if_empty(logged.gid)
        if self.control.hint_shown and self.link.connected:
            with contextlib.suppress(LinkError):
                self.link.hint("", timeout=1.0)
            self.control.hint_shown = False

    def _on_inbox(self, item: tuple[Any, ...]) -> None:
        what = item[0]
        now = time.monotonic()
        if what == "key":
            self._do(self.control.line(str(item[1]), now))
        elif what == "page":
            self._do(self.control.line(str(item[1]), now, where="page"))
        elif what == "eof":
            self.stdin_closed = True
        else:
            self._do(self.control.answer(item, now))

    # -- the link ----------------------------------------------------------------------
    def _on_link(self, event: LinkEvent) -> None:
        kind = event.kind
        now = time.monotonic()
        if kind == "connected":
            who = self.link.board_id
            self.ui.message("link", "board %sconnected (%s)" % (who + " " if who else "", event.text))
        elif kind == "disconnected":
            self.ui.message("link", "board disconnected (%s); waiting for it to come back" % event.text)
        elif kind == "boardreset":
            self.ui.message("link", "the board restarted (boot %s)" % event.text)
        elif kind == "linkerror":
            self.ui.message("link", "the board's link reports: %s" % event.text)
        if kind == "connected":
            self._do(self.control.board_event(kind, event.text, now))
        if kind in _MOVE_LIST_EVENTS:
            self._reconcile()
        if kind == "state":
            self._do(self.control.board_state(self.link.info, now))
        elif kind != "connected":
            self._do(self.control.board_event(kind, event.text, now))

    def _reconcile(self) -> None:
        """Brings the mirror and the log up to the link's move list."""
        link = self.link
        self._do(self.control.board_moves(link.game, link.moves, link.synced(), time.monotonic(), link.move_times))

    # -- the controller's actions ----------------------------------------------------------
    def _do(self, actions: list[Action]) -> None:
        changed = False
        for action in actions:
            changed = self._act(action) or changed
        if changed and self.on_change is not None:
            self.on_change(self.control)

    def _act(self, action: Action) -> bool:
        """Does ``action``; True when what the page shows may have changed."""
        kind = action.kind
        handler = self._actions.get(kind)
        assert handler is not None, "an action the runner does not know: %s" % kind
        try:
            handler(self, action)
        except LogUnwritable as exc:  # a new log game that cannot be written: the board plays on
            self.ui.message("error", "log: %s; the game goes on (the board keeps its moves)" % exc)
        return kind not in ("progress", "cancel", "think")

    def _say(self, action: Action) -> None:
        self.ui.message(action.tone, action.text)

    def _redraw(self, action: Action) -> None:
        self.ui.position(self)

    def _progress(self, action: Action) -> None:
        self.ui.thinking(action.side, action.value)

    def _think(self, action: Action) -> None:
        self.thinking.start(action.text, action.gen, action.side, action.value, action.level, **dict(action.limits))

    def _cancel(self, action: Action) -> None:
        self.thinking.cancel()

    def _request(self, action: Action) -> None:
        name, args = action.text, action.args
        calls: dict[str, Callable[..., Any]] = {
            "host_move": self.link.host_move,
            "hint": self.link.hint,
            "grade": self.link.grade,
            "resign": self.link.resign,
            "agree": self.link.agree,
            "state": self.link.state,
            "press_ok": self.link.press_ok,
            "take_back": self.link.take_back,
        }
        call = calls[name]
        now = time.monotonic()
        reply: Any = None
        try:
            if name == "take_back":  # args: how many moves
                for _ in range(int(args[0])):
                    call(timeout=self.request_timeout)
            else:
                reply = call(*args, timeout=self.request_timeout)
        except BoardError as exc:
            self._do(self.control.replied(name, args, time.monotonic(), error=exc.message, by_board=True))
            return
        except LinkError as exc:
            self._do(self.control.replied(name, args, time.monotonic(), error=str(exc)))
            return
        self._do(self.control.replied(name, args, max(now, time.monotonic()), reply=reply))

    def _judge(self, action: Action) -> None:
        answer = verdict(action.value, action.text, action.side, deterministic=self.deterministic)
        self._do(self.control.judged(action.text, action.args[0], answer, time.monotonic()))

    def _hand(self, action: Action) -> None:
        if self.hand is not None:
            self.hand.make_move(self.control.game, action.value)

    def _setup(self, action: Action) -> None:
        if self.hand is not None:
            self.hand.set_up(self.control.game, action.value)

    def _played(self, action: Action) -> None:
        if self.logged is not None and self.logged.played(action.index, action.text, action.value):
            self.control.number = self.logged.gid

    def _cut(self, action: Action) -> None:
        if self.logged is None:
            return
        players = {side: seat.text for side, seat in self.seats.items()}
        if self.logged.taken_back(action.index, action.value, self.position, players, self.board_id, self.layout):
            self.control.number = self.logged.gid

    def _ended(self, action: Action) -> None:
        if self.logged is not None:
            self.logged.ended(action.text, action.args[0])

    def _reopened(self, action: Action) -> None:
        if self.logged is not None:
            self.logged.reopened()

    def _switched(self, action: Action) -> None:
        self._board_switched(action.text, list(action.value))

    def _new(self, action: Action) -> None:
        try:
            self._open(self.openings.new(self.ruleset or self.link.ruleset))
        except SessionError as exc:
            self.ui.message("error", str(exc))
            return
        self.ui.position(self)
        self._do(self.control.tick(time.monotonic(), self.link.connected))

    def _quit(self, action: Action) -> None:
        pass  # ``run`` ends: the controller's ``quit`` is set

    _actions: dict[str, Callable[[PlaySession, Action], None]] = {
        "say": _say,
        "redraw": _redraw,
        "progress": _progress,
        "think": _think,
        "cancel": _cancel,
        "request": _request,
        "judge": _judge,
        "hand": _hand,
        "setup": _setup,
        "played": _played,
        "cut": _cut,
        "ended": _ended,
        "reopened": _reopened,
        "switched": _switched,
        "new": _new,
        "quit": _quit,
    }
