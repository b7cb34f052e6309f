"""The play session: the runner of one game on a board between people and the computer.

The game itself is ``controller.GameController`` (pure: events in, actions out).
``PlaySession(link, db, ui, ...)`` wires it to the board link (``BoardLink``), the game
log (``gamelog.BoardGameLog``), the computer's searches (``thinking.Thinking``, worker
threads that post their answers to ``inbox``), the terminal's hand on the virtual board
and a user interface (``PlayUI``: the terminal, or a recorder in tests). It is
single-threaded: ``pump()`` hands what arrived (link events, typed lines, the board's
replies, the computer's answers) to the controller and does the actions it returns;
``key(line)`` may be called from any thread (the terminal's reader, the page's ``POST
/api/line``). It never waits on the board: a request is begun on the link, and its
result comes back through ``inbox`` (``RequestResult``), so the terminal and the page
answer while a board is unplugged. ``pump`` is the edge that reads the clock (``clock``,
by default ``time.monotonic``); everything below it gets ``now``.

>>> session = PlaySession(link, db, ui, ruleset="mosona", players={"north": "ai:2"})
>>> session.start()              # new game on the board, logged
>>> session.run()                # until quit, or the game is over and the input ends
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Protocol, assert_never

import zuni
from zuniboard.ai import SearchInfo
from zuniboard.games.words import move_words
from zuniboard.link.client import REQUEST_TIMEOUT_S as LINK_REQUEST_TIMEOUT_S
from zuniboard.link.client import BoardLink, LinkError
from zuniboard.link.events import (
    Answered,
    Failed,
    Refused,
    RequestResult,
    Woken,
)
from zuniboard.link.port import Clock
from zuniboard.play.actions import (
    UNSEEN,
    Action,
    Cancel,
    Cut,
    Ended,
    Judge,
    MakeMove,
    MoveGraded,
    NewGame,
    Played,
    Quit,
    Redraw,
    Referee,
    Reopened,
    Request,
    Restore,
    Say,
    SetUp,
    ShowProgress,
    Switched,
    Think,
)
from zuniboard.play.controller import (
    HINT_LEVEL,
    HINT_TIME_S,
    MOVES_AT_BOARD,
    RETRY_S,
    SETUP_POLL_S,
    SHOW_AI_MOVE_S,
    STATE_POLL_S,
    GameController,
)
from zuniboard.play.judge import verdict
from zuniboard.play.link_events import LinkEvents
from zuniboard.play.openings import NewGamePlan, Opening, OpeningError, Openings, board_identity
from zuniboard.play.readout import SessionReadout
from zuniboard.play.requests import ControllerRequests
from zuniboard.play.seats import Seat
from zuniboard.play.session_inbox import InboxItem, InputEnded, NewGameStarted, SessionInbox, Typed
from zuniboard.play.session_log import SessionLog
from zuniboard.play.start_from import StartFrom
from zuniboard.play.thinking import Found, Graded, SearchFailed, Searching, Thinking
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


def by_hand(hand: Hand, game: zuni.Game, action: MakeMove | SetUp | Restore) -> None:
    """The terminal's hand does ``action`` on the virtual board (``game``: the one played)."""
    match action:
        case MakeMove(move):
            hand.make_move(game, move)
        case SetUp(sides):
            hand.set_up(game, sides)
        case Restore(restored):
            hand.set_up(restored)
        case _:
            assert_never(action)


class PlaySession(SessionReadout):
    """The runner of one game on ``link`` at a time (``SessionReadout``: what the UI reads of it)."""

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
        now: Clock = time.monotonic,
    ) -> None:
        self.link = link
        self.now = now  # the clock: read by ``pump`` and ``start`` only, the edges
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
        self.inbox = SessionInbox()
        # The link's events wake the loop (its port thread calls this): a move from the
        # board is handled as it comes, not up to a pump's wait later.
        link.on_event = self.wake
        self.stdin_closed = False
        self.record = SessionLog(db, ui.message, self.control)  # the log game of the board's game
        self.openings = Openings(
            link,
            self.record.log,
            players=dict(players or {}),
            start=start,
            clock=clock,
            board_id=board_id,
            request_timeout=request_timeout,
        )
        self.openings.hand_sets_up = hand is not None
        self.thinking = Thinking(self.inbox.put, seed, deterministic)
        self.requests = ControllerRequests(link, self.control, self.inbox.put, request_timeout)
        self.link_events = LinkEvents(link, self.control, ui.message, self._do)

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
            self._open(self.openings.resume(adopted, game), self.now())
            with contextlib.suppress(LinkError):
                shown = link.state(timeout=self.request_timeout).get("hostmove", "")
                self.control.shown_on_resume(shown, self.now())
        else:
            self._open(self.openings.new(self.ruleset or link.ruleset), self.now())
            if adopted is not None:
                self.record.log.left(adopted)
        self._shown(self.now())  # whose turn, once set up

    def start_branch(self, gid: int, log_from: int) -> None:
        """Goes on with the board's game (a replay's moves so far) as log game ``gid``,
        which starts from the position after board move ``log_from`` (docs/replay.md)."""
        self.openings.know_the_board()
        now = self.now()
        self._open(self.openings.branch(gid, log_from), now)
        self._shown(now)

    def _shown(self, now: float) -> None:
        """The game opened is drawn, and what is due done (whose turn, once set up)."""
        self.ui.position(self)
        self._do(self.control.tick(now, self.link.connected), now)

    def _open(self, opening: Opening, now: float) -> None:
        """The controller mirrors the opening's board game, logged as its log game."""
        self.thinking.cancel()
        self.record.switch_to(opening.gid, opening.log_from)
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
                now=now,
                state=link.info,
                times=link.move_times,
            ),
            now,
        )
        if opening.said:
            self.ui.message("info", opening.said)
        self.record.opened()

    def _board_switched(self, game_id: str, moves: list[str], now: float) -> None:
        """The board started or went back to another game on its own."""

        def seats_now(ruleset: str) -> dict[str, Seat]:
            return self.control.seats_for_board_game(ruleset, self.players)

        self._open(self.openings.switched(game_id, moves, seats_now, self.ruleset or ""), now)
        self.ui.position(self)
        self._do(self.control.board_moves(game_id, moves, True, now, self.link.move_times), now)

    # -- the loop --------------------------------------------------------------------
    def run(self, until: Callable[[], bool] | None = None) -> int:
        """Plays until quit (or the game is over and the typed input has ended, or
        ``until()``: the page started a remote game, which takes the board over)."""
        while not self.control.quit:
            if until is not None and until():
                break
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
        """Handles what arrived (waiting at most ``timeout`` s for it) and does what is due.
        The loop's edge: it reads the clock, once a pass, and never waits on the board."""
        self.step(self.now(), self.inbox.wait(timeout))

    def step(self, now: float, items: list[InboxItem] | None = None) -> None:
        """One pass at time ``now``: the link's events, ``items`` and the rest of the inbox,
        then what is due."""
        self.link_events.read(now)
        for item in self.inbox.drain(list(items or [])):
            self._on_inbox(item, now)
        if self.control.following.deferred:
            self.link_events.reconcile(now)
        self.record.catch_up(now)
        self._do(self.control.tick(now, self.link.connected), now)

    def key(self, line: str) -> None:
        """A line typed by the user (from any thread)."""
        self.inbox.put(Typed(line))

    def page_line(self, line: str) -> None:
        """A line typed on the page (``POST /api/line``, from the server's thread)."""
        self.inbox.put(Typed(line, "page"))

    def end_of_input(self) -> None:
        """The typed input ended (from any thread)."""
        self.inbox.put(InputEnded())

    def close(self) -> None:
        """Stops the searches and leaves the board showing the game (no hint); another
        process may go on with the game then."""
        self.thinking.cancel()
        lost = self.record.close(self.is_over())
        if lost:
            self.ui.message("error", lost)
        if self.control.helping.hint_shown and self.link.connected:
            with contextlib.suppress(LinkError):
                self.link.hint("", timeout=1.0)
            self.control.helping.hint_shown = False

    def _on_inbox(self, item: InboxItem, now: float) -> None:
        match item:
            case Typed(line, where):
                self._do(self.control.line(line, now, where=where), now)
            case InputEnded():
                self.stdin_closed = True
            case Found() | Searching() | Graded() | SearchFailed():
                self._do(self.control.answer(item, now), now)
            case Answered() | Refused() | Failed():
                self._do(self.requests.replied(item, now), now)
            case NewGameStarted(plan, result):
                self._new_game_started(plan, result, now)
            case Woken():
                pass  # what woke the loop is read by ``step`` (the link's events, the broker's)
            case _:
                assert_never(item)

    def wake(self, *_: object) -> None:
        """From another thread: the loop's wait ends now (see ``Woken``)."""
        self.inbox.put(Woken())

    # -- the controller's actions ----------------------------------------------------------
    def _do(self, actions: list[Action], now: float) -> None:
        changed = False
        for action in actions:
            changed = self._act(action, now) or changed
        if changed and self.on_change is not None:
            self.on_change(self.control)

    def _act(self, action: Action, now: float) -> bool:
        """Does ``action``; True when what the page shows may have changed."""
        try:
            match action:
                case Say(text, tone):
                    self.ui.message(tone, text)
                case Redraw():
                    self.ui.position(self)
                case ShowProgress(side, info):
                    self.ui.thinking(side, info)
                case Think(what, side, game, level, gen, limits):
                    self.thinking.start(what, gen, side, game, level, **dict(limits))
                case Cancel():
                    self.thinking.cancel()
                case Request():
                    self.requests.begin(action, now)
                case Judge(what, side, game, offered_by):
                    answer = verdict(game, what, side, deterministic=self.deterministic)
                    self._do(self.control.judged(what, offered_by, answer, now), now)
                case MakeMove() | SetUp() | Restore():
                    if self.hand is not None:
                        by_hand(self.hand, self.control.state.game, action)
                case Played():
                    self._played(action, now)
                case MoveGraded() | Ended() | Reopened():
                    self.record.keep(action)
                case Cut():
                    self._cut(action, now)
                case Referee():
                    self._referee(action, now)
                case Switched(game_id, moves):
                    self._board_switched(game_id, list(moves), now)
                case NewGame():
                    self._new(now)
                case Quit():
                    pass  # ``run`` ends: the controller's ``quit`` is set
                case _:
                    assert_never(action)
        except LogUnwritable as exc:  # a new log game that cannot be written: the board plays on
            self.ui.message("error", "log: %s; the game goes on (the board keeps its moves)" % exc)
        return not isinstance(action, UNSEEN)

    def _played(self, action: Played, now: float) -> None:
        self.record.played(action)

    def _cut(self, action: Cut, now: float) -> None:
        self.record.cut(action, self.board_id, self.layout)

    def _referee(self, action: Referee, now: float) -> None:
        """Only a remote game has a referee (``remote.session.RemoteSession``): a game
        without a remote seat asks none."""

    def _new(self, now: float) -> None:
        """A new game: asked of the board without waiting; opened when it answers."""
        try:
            self.openings.ask_new(
                self.ruleset or self.link.ruleset,
                now,
                lambda plan, result: self.inbox.put(NewGameStarted(plan, result)),
            )
        except SessionError as exc:
            self.ui.message("error", str(exc))

    def _new_game_started(self, plan: NewGamePlan, result: RequestResult, now: float) -> None:
        try:
            self._open(self.openings.started(plan, result), now)
        except SessionError as exc:
            self.ui.message("error", str(exc))
            return
        self._shown(now)
