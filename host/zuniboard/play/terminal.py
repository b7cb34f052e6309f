"""The terminal of `zuni play`: the board drawing, the move list, the computer's
thinking, and keys read without blocking the game.

On a terminal a key acts at once (h, u, r, d, c, n, q, ?); other text is collected up
to Enter (a move typed for the virtual board). When standard input is a pipe or a file,
it is read line by line (one key or move per line), so scripts and tests drive it too.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import threading
from collections.abc import Callable
from typing import Any, TextIO

from zuniboard.ai import SearchInfo
from zuniboard.play.session import PlaySession
from zuniboard.records.text import render

SINGLE_KEYS = "hurdcnqb?"
_KIND_COLORS = {"wrong": "1;31", "error": "1;31", "board": "33", "over": "1;32", "ai": "36", "hint": "35", "link": "2"}
SHOWN_MOVES = 24  # the move list shows this many of the last moves


def moves_per_round(ruleset: Any) -> int:
    """Moves under one move number: 4 when four players take separate turns, else 2."""
    if ruleset.game_id == "awithlaknakwe" and ruleset["players"] == "4" and ruleset["teams"] == "separate":
        return 4
    return 2


def move_list(game: Any, moves: list[str], last: int = SHOWN_MOVES) -> str:
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
    """Writes the session's reports to ``out``. ``live``: a terminal, where the
    thinking display is one line rewritten in place (else one line per depth)."""

    def __init__(self, out: TextIO | None = None, *, color: bool | None = None, live: bool | None = None) -> None:
        self.out = out or sys.stdout
        tty = bool(getattr(self.out, "isatty", lambda: False)())
        self.color = tty and os.environ.get("NO_COLOR") is None if color is None else color
        self.live = tty if live is None else live
        self._progress = False
        self._lock = threading.Lock()

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
        lines.append(render(game, color=self.color).rstrip("\n"))
        if session.moves:
            lines.append("moves: " + move_list(game, session.moves))
        seats = ", ".join("%s %s" % (side, seat) for side, seat in session.seats.items())
        lines.append("game #%d (%s): %s" % (session.db_game or 0, game.ruleset, seats))
        self._write("\n".join(lines) + "\n")

    def thinking(self, side: str, info: SearchInfo | None) -> None:
        if info is None:
            if self.live:
                with self._lock:
                    if self._progress:
                        self.out.write("\r\x1b[K")
                        self.out.flush()
                        self._progress = False
            return
        best = str(info.best_move) if info.best_move is not None else "-"
        text = "%s thinks: depth %d, %d nodes, best %s (%s), %.1f s" % (
            side,
            info.depth,
            info.nodes,
            best,
            info.score_text(),
            info.elapsed,
        )
        if self.live:
            with self._lock:
                self.out.write("\r\x1b[K" + text)
                self.out.flush()
                self._progress = True
        else:
            self._write(text + "\n")


class KeyReader:
    """Reads keys and lines from ``stdin`` in a thread and hands each to ``on_line``;
    calls ``on_eof`` when the input ends. ``close()`` restores the terminal."""

    def __init__(
        self,
        on_line: Callable[[str], None],
        on_eof: Callable[[], None],
        stdin: TextIO | None = None,
        echo: TextIO | None = None,
    ) -> None:
        self.stdin = stdin or sys.stdin
        self.on_line = on_line
        self.on_eof = on_eof
        self.echo = echo or sys.stdout
        self._stop = threading.Event()
        self._saved: Any = None
        self._thread = threading.Thread(target=self._run, name="zuni-keys", daemon=True)
        self.is_tty = False
        with contextlib.suppress(AttributeError, ValueError, OSError):
            self.is_tty = self.stdin.isatty()

    def start(self) -> None:
        if self.is_tty:
            self._cbreak()
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._restore()

    def _cbreak(self) -> None:
        try:
            import termios
            import tty

            fd = self.stdin.fileno()
            self._saved = termios.tcgetattr(fd)
            tty.setcbreak(fd)
        except (ImportError, OSError, ValueError):
            self._saved = None
            self.is_tty = False

    def _restore(self) -> None:
        if self._saved is None:
            return
        import termios

        with contextlib.suppress(OSError, ValueError):
            termios.tcsetattr(self.stdin.fileno(), termios.TCSADRAIN, self._saved)
        self._saved = None

    def _run(self) -> None:
        try:
            if self.is_tty:
                self._run_tty()
            else:
                for line in self.stdin:
                    if self._stop.is_set():
                        return
                    self.on_line(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        if not self._stop.is_set():
            self.on_eof()

    def _run_tty(self) -> None:
        fd = self.stdin.fileno()
        buf = ""
        while not self._stop.is_set():
            ready, _, _ = select.select([fd], [], [], 0.2)
            if not ready:
                continue
            data = os.read(fd, 64).decode("utf-8", "replace")
            if not data:
                return
            for ch in data:
                if ch in "\r\n":
                    self._echo("\n")
                    if buf:
                        self.on_line(buf)
                    buf = ""
                elif ch in "\x7f\b":
                    if buf:
                        buf = buf[:-1]
                        self._echo("\b \b")
                elif ch == "\x04":  # Ctrl-D
                    return
                elif not buf and ch.lower() in SINGLE_KEYS:
                    self.on_line(ch)
                elif ch.isprintable():
                    buf += ch
                    self._echo(ch)

    def _echo(self, text: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.echo.write(text)
            self.echo.flush()
