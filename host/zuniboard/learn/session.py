"""The runner of a course on a board: ``LessonSession`` wires ``LessonController`` to a
board link (``BoardLink``), the terminal's hand on the virtual board, and a user
interface (anything with ``message(kind, text)``). Single-threaded: ``pump()`` hands what
arrived (link events, typed lines) to the controller and does the actions it returns;
``key(line)`` may be called from any thread.
"""

from __future__ import annotations

import contextlib
import queue
import time
from collections.abc import Callable
from typing import Any, Protocol

from zuniboard.errors import UsageError
from zuniboard.learn.controller import HELP, LessonController
from zuniboard.learn.lessons import Course, Labels
from zuniboard.learn.progress import Progress
from zuniboard.link.client import REQUEST_TIMEOUT_S, BoardError, BoardLink, LinkError
from zuniboard.play.connect import BoardConnection, check_port, connect
from zuniboard.play.controller import Action
from zuniboard.play.terminal import LineReader, TerminalUI
from zuniboard.records.db import Database, DatabaseError

_MOVE_LIST_EVENTS = ("move", "undo", "reset", "connected", "over")


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
    ) -> None:
        self.link = link
        self.control = control
        self.ui = ui
        self.hand = hand
        self.request_timeout = request_timeout
        self.on_change = on_change
        self.inbox: queue.Queue[str] = queue.Queue()

    def start(self, timeout: float = 10.0) -> None:
        if not self.link.wait_synced(timeout):
            raise LinkError("the board did not answer within %.0f s" % timeout)
        self.link.drop_events()
        self._do(self.control.start(time.monotonic()))

    def key(self, line: str) -> None:
        self.inbox.put(line)

    def run(self) -> int:
        while not self.control.quit:
            self.pump(0.05)
        return 0

    def pump(self, timeout: float = 0.05) -> None:
        while True:
            try:
                event = self.link.events.get_nowait()
            except queue.Empty:
                break
            now = time.monotonic()
            if event.kind in _MOVE_LIST_EVENTS:
                self._do(self.control.board_moves(self.link.game, self.link.moves, now))
            if event.kind == "state":
                self._do(self.control.board_state(self.link.info, now))
            else:
                self._do(self.control.board_event(event.kind, event.text, now))
        try:
            line: str | None = self.inbox.get(timeout=timeout)
        except queue.Empty:
            line = None
        if line is not None:
            self._do(self.control.line(line, time.monotonic()))
        self._do(self.control.tick(time.monotonic()))

    # -- the controller's actions ----------------------------------------------------------
    def _do(self, actions: list[Action]) -> None:
        for action in actions:
            self._act(action)
        if actions and self.on_change is not None:
            self.on_change(self.control)

    def _act(self, action: Action) -> None:
        kind = action.kind
        if kind == "say":
            self.ui.message(action.tone, action.text)
        elif kind == "request":
            self._request(action)
        elif kind == "hand" and self.hand is not None:
            self.hand.make_move(self.control.game, action.value)
        elif kind == "setup" and self.hand is not None:
            self.hand.set_up(self.control.game, action.value)
        elif kind == "restore" and self.hand is not None:
            self.hand.set_up(action.value)  # the position before the last move: the board takes it back

    def _request(self, action: Action) -> None:
        name, args = action.text, action.args
        link = self.link
        reply: Any = None
        try:
            if name == "setup":
                if args[1:] == ("new",):  # the rules' start: a new game of the ruleset
                    reply = link.new_game(args[0], self.request_timeout)
                else:
                    reply = link.new_game("", self.request_timeout, position=args[0])
            elif name == "take_back":
                reply = link.take_back(timeout=self.request_timeout)
            else:
                calls: dict[str, Callable[..., Any]] = {
                    "host_move": link.host_move,
                    "hint": link.hint,
                    "state": link.state,
                    "press_ok": link.press_ok,
                }
                reply = calls[name](*args, timeout=self.request_timeout)
        except BoardError as exc:
            self._do(self.control.replied(name, args, time.monotonic(), error=exc.message))
            return
        except LinkError as exc:
            self._do(self.control.replied(name, args, time.monotonic(), error=str(exc)))
            return
        if name == "state" and isinstance(reply, dict):
            self._do(self.control.board_state(reply, time.monotonic()))
        self._do(self.control.replied(name, args, time.monotonic(), reply=reply))


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
        on_change = None
        if conn.virtual is not None:
            from zuniboard.web import page

            def on_change(c: LessonController) -> None:
                page.publish("lesson", c.view())

        session = LessonSession(conn.link, control, ui, hand=conn.hand, on_change=on_change)
        if conn.virtual is not None:
            page.on_line(session.key)
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
            tried = [s.id for s in course.steps[start_at : control.index + 1]]
            for sid in tried:
                with contextlib.suppress(DatabaseError):
                    progress.record(
                        kind, "%s/%s" % (course.game, sid) if kind == "lesson" else sid, sid in control.solved
                    )
        if keys is not None:
            keys.close()
        if conn is not None:
            conn.close()
        with contextlib.suppress(Exception):
            db.close()
