"""The runner of a course on a board: ``LessonSession`` wires ``LessonController`` to a
board link (``BoardLink``), the terminal's hand on the virtual board, and a user
interface (anything with ``message(kind, text)``). Single-threaded: ``pump()`` hands what
arrived (link events, typed lines, the board's replies) to the controller and does the
actions it returns; ``key(line)`` may be called from any thread. It never waits on the
board: requests are begun on the link and their results come back through the inbox.
``pump`` reads the clock (``now``, by default ``time.monotonic``); the rest gets the time.
"""

from __future__ import annotations

import contextlib
import queue
import time
from collections.abc import Callable
from typing import Any, Protocol, assert_never

from zuniboard.errors import UsageError
from zuniboard.learn.controller import LessonController
from zuniboard.learn.lessons import Course, Labels
from zuniboard.learn.progress import Progress
from zuniboard.learn.typed import HELP
from zuniboard.link.client import REQUEST_TIMEOUT_S, BoardLink, LinkError
from zuniboard.link.events import (
    Answered,
    BoardEvent,
    BoardRestarted,
    Connected,
    Console,
    Disconnected,
    Failed,
    LinkEvent,
    LinkFault,
    Moved,
    Refused,
    RequestResult,
    Reset,
    StateSent,
    Undone,
    Woken,
)
from zuniboard.link.port import Clock
from zuniboard.play.actions import (
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
from zuniboard.play.connect import BoardConnection, check_port, connect
from zuniboard.play.terminal import LineReader, TerminalUI
from zuniboard.records.db import Database, DatabaseError

Inbox = str | RequestResult | Woken  # a typed line, how a request ended, or a wake-up


class LessonUI(Protocol):
    def message(self, kind: str, text: str) -> None: ...


class LessonSession:
    def __init__(
        self,
        link: BoardLink,
        control: LessonController,
        ui: LessonUI,
        *,
        hand: Any = None,
        request_timeout: float = REQUEST_TIMEOUT_S,
        on_change: Callable[[LessonController], None] | None = None,
        now: Clock = time.monotonic,
    ) -> None:
        self.link = link
        self.now = now  # the clock: read by ``pump`` and ``start``, the edges
        self.control = control
        self.ui = ui
        self.hand = hand
        self.request_timeout = request_timeout
        self.on_change = on_change
        self.inbox: queue.Queue[Inbox] = queue.Queue()
        link.on_event = lambda _event: self.inbox.put(Woken())  # a board move handled as it comes
        # Requests on their way: one is not asked again while it is (a timer asks again).
        self.in_flight: set[tuple[str, tuple[str, ...]]] = set()

    def start(self, timeout: float = 10.0) -> None:
        if not self.link.wait_synced(timeout):
            raise LinkError("the board did not answer within %.0f s" % timeout)
        self.link.drop_events()
        now = self.now()
        self._do(self.control.start(now), now)

    def key(self, line: str) -> None:
        self.inbox.put(line)

    def run(self) -> int:
        while not self.control.quit:
            self.pump(0.05)
        return 0

    def pump(self, timeout: float = 0.05) -> None:
        """Handles what arrived (waiting at most ``timeout`` s for a typed line or a reply)."""
        items: list[Inbox] = []
        with contextlib.suppress(queue.Empty):
            items.append(self.inbox.get(timeout=timeout))
        self.step(self.now(), items)

    def step(self, now: float, items: list[Inbox] | None = None) -> None:
        """One pass at time ``now``: the link's events, ``items`` and the inbox, what is due."""
        for event in self.link.unread_events():
            self._on_link(event, now)
        pending = list(items or [])
        while True:
            for item in pending:
                if isinstance(item, str):
                    self._do(self.control.line(item, now), now)
                elif not isinstance(item, Woken):  # a wake-up: the link's events are read above
                    self._replied(item, now)
            pending = []
            try:
                pending.append(self.inbox.get_nowait())
            except queue.Empty:
                break
        self._do(self.control.tick(now), now)

    def _on_link(self, event: LinkEvent, now: float) -> None:
        control, link = self.control, self.link
        match event:
            case Moved() | Undone() | Reset():
                self._do(control.board_moves(link.game, link.moves, now), now)
            case Connected(url):
                self._do(control.board_moves(link.game, link.moves, now), now)
                self._do(control.board_event("connected", url, now), now)
            case StateSent():
                self._do(control.board_state(link.info, now), now)
            case BoardEvent(name, text):
                if name == "over":
                    self._do(control.board_moves(link.game, link.moves, now), now)
                self._do(control.board_event(name, text, now), now)
            case Disconnected(why):
                self._do(control.board_event("disconnected", why, now), now)
            case BoardRestarted(boot):
                self._do(control.board_event("boardreset", boot, now), now)
            case LinkFault(message):
                self._do(control.board_event("linkerror", message, now), now)
            case Console():
                pass
            case _:
                assert_never(event)

    # -- the controller's actions ----------------------------------------------------------
    def _do(self, actions: list[Action], now: float) -> None:
        for action in actions:
            self._act(action, now)
        if actions and self.on_change is not None:
            self.on_change(self.control)

    def _act(self, action: Action, now: float) -> None:
        match action:
            case Say(text, tone):
                self.ui.message(tone, text)
            case Request():
                self._request(action, now)
            case MakeMove(move):
                if self.hand is not None:
                    self.hand.make_move(self.control.game, move)
            case SetUp(sides):
                if self.hand is not None:
                    self.hand.set_up(self.control.game, sides)
            case Restore(game):
                if self.hand is not None:
                    self.hand.set_up(game)  # the position before the last move: the board takes it back
            case (
                Redraw()
                | ShowProgress()
                | Think()
                | Cancel()
                | Judge()
                | Played()
                | MoveGraded()
                | Cut()
                | Ended()
                | Reopened()
                | Referee()
                | Switched()
                | NewGame()
                | Quit()
            ):
                pass  # a lesson asks for none of these but quit, which ``run`` reads from the controller
            case _:
                assert_never(action)

    def _request(self, action: Request, now: float) -> None:
        """Begins the request on the link; its result comes back through the inbox as
        ``Answered``/``Refused``/``Failed`` of the lesson's own name (``setup``)."""
        name, args = action.name, action.args
        call, call_args = name, args
        if name == "setup":
            # The rules' start (``(ruleset, "new")``): a new game; else from a position.
            call, call_args = "new_game", (args[0], "") if args[1:] == ("new",) else ("", args[0])

        if (name, args) in self.in_flight:
            return  # still on its way: its result answers this ask too
        self.in_flight.add((name, args))

        def then(result: RequestResult) -> None:
            self.inbox.put(_renamed(result, name, args))

        self.link.begin(call, call_args, now, then, timeout=self.request_timeout)

    def _replied(self, result: RequestResult, now: float) -> None:
        name, args = result.call, result.args
        self.in_flight.discard((name, args))
        match result:
            case Answered(fields=fields):
                if name == "state":
                    fields = dict(self.link.info) or fields  # the freshest: newer than this reply
                    self._do(self.control.board_state(fields, now), now)
                self._do(self.control.replied(name, args, now, reply=fields), now)
            case Refused(message=message):
                self._do(self.control.replied(name, args, now, error=message), now)
            case Failed(why=why):
                self._do(self.control.replied(name, args, now, error=why), now)
            case _:
                assert_never(result)


def _renamed(result: RequestResult, call: str, args: tuple[str, ...]) -> RequestResult:
    """``result`` as the result of the controller's request ``call`` with ``args``."""
    match result:
        case Answered(fields=fields):
            return Answered(call, args, fields)
        case Refused(code=code, message=message):
            return Refused(call, args, code, message)
        case Failed(why=why):
            return Failed(call, args, why)
        case _:
            assert_never(result)


def _session(conn: BoardConnection, control: LessonController, ui: TerminalUI) -> LessonSession:
    """The lesson's session on ``conn``; on the virtual board, its page shows the lesson
    and takes its typed lines."""
    if conn.virtual is None:
        return LessonSession(conn.link, control, ui, hand=conn.hand)
    from zuniboard.web import page

    def on_change(c: LessonController) -> None:
        page.publish("lesson", c.view())

    session = LessonSession(conn.link, control, ui, hand=conn.hand, on_change=on_change)
    page.on_line(session.key)
    return session


def _record_tries(progress: Progress, course: Course, kind: str, start_at: int, control: LessonController) -> None:
    """Each step from ``start_at`` to the one reached, tried, and whether it was solved."""
    for sid in [s.id for s in course.steps[start_at : control.index + 1]]:
        with contextlib.suppress(DatabaseError):
            progress.record(kind, "%s/%s" % (course.game, sid) if kind == "lesson" else sid, sid in control.solved)


def run_course(
    course: Course,
    labels: Labels,
    db: Database,
    kind: str,
    start_at: int = 0,
    *,
    port: str | None,
    sim: bool,
    timeout: float,
    http: int,
) -> int:
    """Runs ``course`` (lessons, or puzzles as steps) on the board; each step done (and
    each begun, for puzzles) goes to the game log database as ``kind``."""
    progress = Progress(db)
    if port:
        try:
            check_port(port)
        except LinkError as exc:
            db.close()
            raise UsageError(str(exc))
    ui = TerminalUI()
    conn: BoardConnection | None = None
    keys: LineReader | None = None
    control: LessonController | None = None
    ruleset = course.steps[start_at].ruleset
    try:
        try:
            conn = connect(port, sim, ruleset, ui.message, timeout=timeout, page_port=http)
        except LinkError as exc:
            raise UsageError(str(exc))
        control = LessonController(course, labels, hand=conn.hand is not None, start_at=start_at)
        session = _session(conn, control, ui)
        keys = LineReader(session.key, lambda: session.key("quit"), prompt=lambda: "learn> ")
        keys.start()
        ui.message("info", HELP)
        try:
            session.start(timeout=timeout)
        except LinkError as exc:
            raise UsageError(str(exc))
        return session.run()
    except KeyboardInterrupt:
        ui.message("info", "interrupted")
        return 130
    finally:
        if control is not None:
            _record_tries(progress, course, kind, start_at, control)
        if keys is not None:
            keys.close()
        if conn is not None:
            conn.close()
        with contextlib.suppress(Exception):
            db.close()
