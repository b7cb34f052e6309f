"""Finding the board for `zuni play`: --port, --sim, or discovery with the virtual board
as the fallback (what `make play` gives a new user with no board plugged in).

The virtual board keeps its flash image in the user data directory (one per layout, the
file `zuni sim` uses too), so `zuni play --sim --resume` finds the game again.

Hook for the browser page of the virtual board: ``browser_page(board)`` returns its
address once a module ``zuniboard.web.page`` provides ``serve(board) -> url``; until
then `zuni play --sim` says where the page will be and how to reach the control channel.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zuni
from zuniboard.link.client import BoardLink, LinkError, discover

PAGE_PORT = 8765  # the browser page's port, as `zuni sim`'s (--http)


@dataclass
class BoardConnection:
    link: BoardLink
    virtual: Any = None  # the VirtualBoard when playing on it
    hand: Any = None  # the terminal's hand on the virtual board (None: pieces move elsewhere)

    def close(self) -> None:
        self.link.close()
        if self.virtual is not None:
            self.virtual.close()


HAND_SPEED = 2.0  # the terminal's hand: twice a player's pace, on a board with the usual times
USUAL_STABLE_MS = 150  # the layouts' stable time (hardware/layouts)


def hand_speed(board: Any) -> float:
    """The terminal's hand keeps pace with the board: on a layout with shorter times
    (stable_ms) it moves as much faster, so that its pauses stay in the same proportion to
    what the board waits for."""
    timing = getattr(getattr(board, "layout", None), "timing", None) or {}
    stable = int(timing.get("stable_ms", USUAL_STABLE_MS)) or USUAL_STABLE_MS
    return HAND_SPEED * max(1.0, USUAL_STABLE_MS / stable)


class SimHand:
    """The person at the terminal's hand on the virtual board: sets up positions, makes
    typed moves and carries out the computer's moves (with a player's timing)."""

    def __init__(self, board: Any, seed: int | None = None) -> None:
        from zuniboard.virtual.board import Hand

        self.board = board
        self.hand = Hand(board, seed=seed, speed=hand_speed(board), bounce=False)

    def make_move(self, game: zuni.Game, move: zuni.Move) -> None:
        self.hand.play(game, move.text())

    def set_up(self, game: zuni.Game, sides: tuple[int, ...] | None = None) -> None:
        """Put ``game``'s pieces on the board (only those of ``sides``: a staged setup)."""
        names = game.geometry.names
        board = game.board
        want = {
            str(names[i])
            for i in range(len(names))
            if board[i] and (sides is None or zuni.piece_side(board[i]) in sides)
        }
        if set(self.board.occupied) != want:
            self.board.set_occupied(want)


def browser_page(board: Any, port: int = PAGE_PORT) -> str | None:
    """The address of the virtual board's browser page, or None while there is none."""
    try:
        page = importlib.import_module("zuniboard.web.page")
    except ImportError:
        return None
    serve = getattr(page, "serve", None)
    if serve is None:
        return None
    # The same address as `zuni sim` (8765), so a tab left open from the last game
    # finds this one; any free port when another program holds it.
    try:
        url = serve(board, port)
    except OSError:
        if port == 0:
            raise
        url = serve(board, 0)
    return None if url is None else str(url)


def ports_found() -> list[str]:
    """The serial ports this computer has now (device paths)."""
    try:
        from serial.tools import list_ports
    except ImportError:  # pragma: no cover
        return []
    return sorted(str(p.device) for p in list_ports.comports())


def check_port(port: str) -> None:
    """A device path that does not exist is an error at once, naming the ports there
    are (URLs such as socket:// are left to the link)."""
    if "://" in port:
        return
    if (port.startswith("/") or port.upper().startswith("COM")) and not os.path.exists(port):
        if port.upper().startswith("COM") and os.name == "nt":  # pragma: no cover - Windows ports are no files
            return
        found = ports_found()
        raise LinkError(
            "no serial port %s on this computer; ports found: %s"
            % (
                port,
                ", ".join(found)
                if found
                else "none (is the board plugged in? without --port the virtual board is used)",
            )
        )


def sim_flash(layout_name: str) -> Path:
    """The virtual board's flash image for a layout (shared with `zuni sim`)."""
    try:
        from zuniboard.virtual.flash import default_flash

        path = Path(default_flash(layout_name))
    except ImportError:  # pragma: no cover - zuni sim not installed
        import platformdirs

        path = Path(platformdirs.user_data_dir("zuniboard")) / ("virtual-%s.img" % layout_name)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def start_virtual(
    ruleset: str | None,
    say: Callable[[str, str], None],
    *,
    hand: bool = True,
    timeout: float = 10.0,
    page_port: int = PAGE_PORT,
    layout_name: str | None = None,
) -> BoardConnection:
    """Starts the virtual board for ``ruleset`` (on ``layout_name``, a layout's name or
    file; default the ruleset's layout) and opens the link."""
    from zuniboard.games import layouts
    from zuniboard.virtual.mpy import MicroPythonMissing

    try:
        from zuniboard.virtual.board import SimError, VirtualBoard
    except ImportError as exc:  # pragma: no cover
        raise LinkError("the virtual board is not available: %s" % exc)
    try:
        if layout_name is not None:
            layout = layouts.load_layout(layout_name)
        else:
            layout = layouts.layout_for_ruleset(ruleset or "mosona")
    except (layouts.layout_error(), ValueError, OSError) as exc:
        raise LinkError("no board layout for %r: %s" % (layout_name or ruleset, exc))
    flash = sim_flash(layout.name)
    board = VirtualBoard(layout_name or layout.name, ruleset=ruleset, pieces="start", flash=flash)
    try:
        board.start()
    except (SimError, MicroPythonMissing, OSError) as exc:
        board.close()
        raise LinkError("the virtual board did not start: %s" % exc)
    except BaseException:
        board.close()
        raise
    try:
        return _open_virtual(
            board, layout.name, flash, say, hand=hand, timeout=timeout, page_port=page_port, ruleset=ruleset
        )
    except BaseException:  # Ctrl-C included: the firmware process must not outlive us
        board.close()
        raise


def _open_virtual(
    board: Any,
    layout_name: str,
    flash: Path,
    say: Callable[[str, str], None],
    *,
    hand: bool,
    timeout: float,
    page_port: int = PAGE_PORT,
    ruleset: str | None = None,
) -> BoardConnection:
    if getattr(board, "runtime", "") == "cpython":
        from zuniboard.virtual.board import CPYTHON_NOTICE

        say("link", CPYTHON_NOTICE)
    say("link", "virtual board: layout %s, serial port %s, flash %s" % (layout_name, board.port_path, flash))
    url = browser_page(board, page_port)
    if url:
        say("link", "browser page of the virtual board: %s" % url)
    else:
        say(
            "link",
            "browser page: not available yet (it will be served by `zuni sim`); "
            "control channel at %s (lift m5, place m5, press ok)" % board.control_address,
        )
    link = BoardLink.open(board.port_path, timeout=timeout)
    sim_hand = SimHand(board) if hand else None
    if sim_hand is not None:
        say("link", "type moves (e.g. %s): the terminal's hand makes them on the virtual board" % example_move(ruleset))
    return BoardConnection(link, board, sim_hand)


def example_move(ruleset: str | None) -> str:
    """A legal first move of ``ruleset``, its shortest, to show how moves are typed.

    >>> example_move("mosona"), example_move("awithlaknakwe")
    ('s3xm4-m5', 'e1-d2')
    """
    try:
        moves = [m.text() for m in zuni.new_game(ruleset or "mosona").legal_moves()]
    except zuni.ZuniError:  # a ruleset the engine refuses: the board will say so
        moves = []
    return min(moves, key=len) if moves else "s3xm4-m5"


def need_board(port: str | None) -> None:
    """For commands that need the real board (`zuni board check`): an error at once,
    naming the serial ports there are, when ``port`` does not exist or, for ``auto`` (or
    None), when no board is plugged in."""
    if port and port != "auto":
        check_port(port)
        return
    if not discover():
        found = ports_found()
        raise LinkError(
            "no board plugged in (no USB 2E8A:0005); ports found: %s (give one with --port)"
            % (", ".join(found) if found else "none")
        )


def connect(
    port: str | None,
    sim: bool,
    ruleset: str | None,
    say: Callable[[str, str], None],
    *,
    timeout: float = 10.0,
    hand: bool = True,
    page_port: int = PAGE_PORT,
    layout_name: str | None = None,
) -> BoardConnection:
    """The board at ``port``, or the virtual board (``sim``), or the one plugged in, or
    the virtual board when none is (its page on ``page_port``, else any free port; on
    ``layout_name``, default the ruleset's)."""
    if port:
        check_port(port)
        say("link", "opening the board at %s" % port)
        return BoardConnection(BoardLink.open(port, timeout=timeout))
    if not sim:
        found = discover()
        if found:
            say("link", "board found at %s" % found[0])
            return BoardConnection(BoardLink.open(found[0], timeout=timeout))
        say("info", "no board plugged in (no USB 2E8A:0005 answering): playing on the virtual board")
    return start_virtual(ruleset, say, hand=hand, timeout=timeout, page_port=page_port, layout_name=layout_name)
