"""The terminal of `zuni play`: the board drawing, the move list, the computer's
thinking, and typed lines read without blocking the game.

Every line is a move or a command (``zuniboard.play.prompt``): on a terminal it is
edited in a line editor with Tab completion and history, and the computer's thinking
shows on the status line under it; when standard input is a pipe or a file it is read
line by line, so scripts and tests drive it too.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TextIO

import zuni
from zuniboard.ai import SearchInfo
from zuniboard.games.words import MARKS_HELP, moves_per_round, outcome_words
from zuniboard.play.session import PlaySession
from zuniboard.records.text import render, status_head

if TYPE_CHECKING:  # (prompt_toolkit is imported when a terminal is used)
    from prompt_toolkit.completion import CompleteEvent, Completer, Completion
    from prompt_toolkit.document import Document

_KIND_COLORS = {"wrong": "1;31", "error": "1;31", "board": "33", "over": "1;32", "ai": "36", "hint": "35", "link": "2"}
SHOWN_MOVES = 24  # the move list shows this many of the last moves
# What the game prints reaches the terminal this often at most while the line editor is
# on (each write redraws the prompt under it): quick enough to read as at once.
OUTPUT_FLUSH_S = 0.03


def move_list(game: zuni.Game, moves: list[str], last: int = SHOWN_MOVES) -> str:
    """``1. s3xm4-m5 n5xm5-m4 2. m6-m5`` (the last ``last`` moves; ``...`` before them)."""
    per = moves_per_round(game.ruleset)
    first = max(0, len(moves) - last)
    first -= first % per
    parts = ["..."] if first else []
    for i in range(first, len(moves)):
        if i % per == 0:
            parts.append("%d." % (i // per + 1))
        parts.append(moves[i])
    return " ".join(parts)


class TerminalUI:
    """Writes the session's reports to ``out`` (default: standard output as it is at
    each write, so that the line editor's redirection above its prompt applies).
    ``live``: a terminal, where the thinking display is one line rewritten in place
    (else one line per depth). With ``status_line`` set (by the line editor) the
    thinking goes to the status line under the prompt instead."""

    def __init__(self, out: TextIO | None = None, *, color: bool | None = None, live: bool | None = None) -> None:
        self._out = out
        tty = bool(getattr(self.out, "isatty", lambda: False)())
        self.color = tty and os.environ.get("NO_COLOR") is None if color is None else color
        self.live = tty if live is None else live
        self.status = ""
        self.status_line: Callable[[], None] | None = None  # redraws the editor's status line
        self._progress = False
        self._marks_said = False
        self._lock = threading.Lock()

    @property
    def out(self) -> TextIO:
        return self._out or sys.stdout

    def _write(self, text: str) -> None:
        with self._lock:
            if self._progress:
                self.out.write("\r\x1b[K")
                self._progress = False
            self.out.write(text)
            self.out.flush()

    def message(self, kind: str, text: str) -> None:
        code = _KIND_COLORS.get(kind)
        if self.color and code:
            text = "\x1b[%sm%s\x1b[0m" % (code, text)
        self._write(text + "\n")

    def position(self, session: PlaySession) -> None:
        game = session.game
        if game is None:
            return
        lines = [""]
        outcome = game.outcome()
        lines.append(render(game, color=self.color, footer=outcome is None).rstrip("\n"))
        if outcome is not None:  # the result in a player's words, not the log's
            last = game.move_stack[-1] if game.move_stack else None
            lines.append("%s: %s" % (status_head(game, last), outcome_words(game, outcome)))
        if not self._marks_said:  # once: what the drawing's marks mean
            lines.append(MARKS_HELP)
            self._marks_said = True
        if session.moves:
            lines.append("moves: " + move_list(game, session.moves))
        seats = ", ".join("%s %s" % (side, seat) for side, seat in session.seats.items())
        lines.append("game #%d (%s): %s" % (session.db_game or 0, game.ruleset, seats))
        view = getattr(session, "clocks", None)  # (a replay's session has none)
        if view is not None and view.on:
            lines.append("clocks (%s): %s" % (view.control, view.text(time.monotonic())))
        self._write("\n".join(lines) + "\n")

    def thinking(self, side: str, info: SearchInfo | None) -> None:
        text = ""
        if info is not None:
            best = str(info.best_move) if info.best_move is not None else "-"
            text = "%s thinks: depth %d, %d nodes, best %s (%s), %.1f s" % (
                side,
                info.depth,
                info.nodes,
                best,
                info.score_text(),
                info.elapsed,
            )
        if self.status_line is not None:
            self.status = text
            self.status_line()
            return
        if info is None:
            if self.live:
                with self._lock:
                    if self._progress:
                        self.out.write("\r\x1b[K")
                        self.out.flush()
                        self._progress = False
            return
        if self.live:
            with self._lock:
                self.out.write("\r\x1b[K" + text)
                self.out.flush()
                self._progress = True
        else:
            self._write(text + "\n")


@contextlib.contextmanager
def above_the_prompt(flush_s: float = OUTPUT_FLUSH_S) -> Iterator[None]:
    """Standard output and error go above the line editor's prompt (escape codes kept),
    written out every ``flush_s`` (prompt_toolkit's ``patch_stdout`` with its pause
    between writes shortened: its 0.2 s made the terminal say a move that late)."""
    from prompt_toolkit.patch_stdout import StdoutProxy

    with StdoutProxy(sleep_between_writes=flush_s, raw=True) as proxy:
        stdout, stderr = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = proxy
        try:
            yield
        finally:
            sys.stdout, sys.stderr = stdout, stderr


def completer(words: Callable[[], list[str]]) -> Completer:
    """The line editor's Tab: the words of ``words()`` (the legal moves now, then the
    commands) that start with what is typed (after a ``/``, the commands)."""
    from prompt_toolkit.completion import Completer, Completion

    class Words(Completer):
        def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
            typed = document.text_before_cursor.strip()
            command = typed.startswith("/")
            for word in words():
                if word.startswith(typed[1:] if command else typed):
                    yield Completion(word, start_position=-len(document.text_before_cursor))

    return Words()


class LineReader:
    """Reads typed lines from ``stdin`` in a thread and hands each to ``on_line``; calls
    ``on_eof`` when the input ends. ``close()`` restores the terminal.

    On a terminal (standard input and output both ttys) it is a line editor
    (prompt_toolkit): Tab completes ``complete()`` (the legal moves and the command
    words), the arrow keys go through the history, and what the game prints appears above
    the prompt line. Anywhere else (a pipe, a file, a test) it reads plain lines."""

    def __init__(
        self,
        on_line: Callable[[str], None],
        on_eof: Callable[[], None],
        *,
        complete: Callable[[], list[str]] | None = None,
        prompt: Callable[[], str] | None = None,
        status: Callable[[], str] | None = None,
        stdin: TextIO | None = None,
        history: str | None = None,
    ) -> None:
        self.stdin = stdin or sys.stdin
        self.on_line = on_line
        self.on_eof = on_eof
        self.complete = complete or (lambda: [])
        self.prompt = prompt or (lambda: "> ")
        self.status = status
        self.history = history
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="zuni-keys", daemon=True)
        self._app: Any = None
        self._patch: Any = None
        self.is_tty = False
        with contextlib.suppress(AttributeError, ValueError, OSError):
            self.is_tty = self.stdin.isatty() and sys.stdout.isatty()

    def start(self) -> None:
        if self.is_tty:
            # What the session prints goes above the prompt line (colours kept).
            self._patch = above_the_prompt()
            self._patch.__enter__()
        self._thread.start()

    def refresh(self) -> None:
        """Redraw the prompt line and the status line under it (from any thread)."""
        app = self._app
        if app is not None:
            with contextlib.suppress(Exception):
                app.invalidate()

    def close(self) -> None:
        self._stop.set()
        app = self._app
        if app is not None:
            with contextlib.suppress(Exception):
                app.loop.call_soon_threadsafe(app.exit, None)
            self._thread.join(timeout=2.0)
        if self._patch is not None:
            with contextlib.suppress(Exception):
                self._patch.__exit__(None, None, None)
            self._patch = None

    def _run(self) -> None:
        try:
            if self.is_tty:
                self._run_editor()
            else:
                for line in self.stdin:
                    if self._stop.is_set():
                        return
                    self.on_line(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        if not self._stop.is_set():
            self.on_eof()

    def _run_editor(self) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory, History, InMemoryHistory

        history: History = InMemoryHistory()
        if self.history:
            with contextlib.suppress(OSError):
                history = FileHistory(self.history)
        status = self.status
        session: Any = PromptSession(
            history=history,
            completer=completer(self.complete),
            complete_while_typing=False,
            bottom_toolbar=(lambda: status() or " ") if status is not None else None,
            # The clocks on the status line count down while the player thinks.
            refresh_interval=0.5 if status is not None else 0,
        )
        self._app = session.app
        while not self._stop.is_set():
            try:
                line = session.prompt(self.prompt, handle_sigint=False)
            except EOFError:  # Ctrl-D
                return
            except KeyboardInterrupt:  # Ctrl-C at the prompt: leave as q does
                self.on_line("quit")
                return
            if line is None:  # closed
                return
            if line.strip():
                self.on_line(line)
