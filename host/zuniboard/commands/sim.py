"""`zuni sim`: run the virtual board (the real firmware under the MicroPython unix port).

It prints the serial port to give `zuni play --port` (or any serial program) and the
control channel's address (TCP, one command a line: `lift m5`, `place m5`, `press ok`,
`sensors?`, `leds?`; see firmware/lib/zuni_hw/virtual.py), then runs until Ctrl-C. The
flash image keeps the journal between runs, as a real board's flash does.

It also serves the board's page for the web browser (`--http PORT`, default 8765; `--open`
opens it): the board drawn with its lights, disks to lift and place by click, drag or
touch, the OK/BACK/HINT buttons. See docs/simulator.md.
"""

from __future__ import annotations

import argparse
import signal
import threading
import time
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from zuniboard.errors import UsageError
from zuniboard.games import layouts
from zuniboard.virtual.flash import default_flash
from zuniboard.virtual.mpy import MicroPythonMissing

if TYPE_CHECKING:
    from zuni_board.layout import Layout
    from zuniboard.web import WebServer


DEFAULT_HTTP_PORT = 8765


def start_page(board: object, port: int, default: int = DEFAULT_HTTP_PORT) -> WebServer:
    """The browser page's server for ``board`` (``zuniboard.web``); the ``default`` port
    falls back to any free one when another program holds it, a port the user asked
    for does not."""
    from zuniboard.web import start_web

    try:
        return start_web(board, port)
    except OSError:
        if port != default:
            raise
        return start_web(board, 0)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("sim", help="run the virtual board", description=__doc__)
    p.add_argument("--layout", default=None, help="layout name or path (default: the one for --ruleset, else board25)")
    p.add_argument("--ruleset", default=None, help="ruleset of a new game (default: the layout's first)")
    p.add_argument(
        "--pieces",
        default="start",
        help='magnets on the board at power-on: "start" (default), "empty", or point names "m1,m2"',
    )
    p.add_argument("--flash", default=None, help="flash image file (default: one per layout in the user data dir)")
    p.add_argument("--control-port", type=int, default=None, help="TCP port of the control channel (default: any)")
    p.add_argument("--seconds", type=float, default=0.0, help="stop after this long (default: run until Ctrl-C)")
    p.add_argument(
        "--http",
        type=int,
        default=DEFAULT_HTTP_PORT,
        metavar="PORT",
        help="serve the board's page on 127.0.0.1:PORT (default %d, another if taken; 0: any free port)"
        % DEFAULT_HTTP_PORT,
    )
    p.add_argument("--no-http", action="store_true", help="do not serve the browser page")
    p.add_argument("--open", action="store_true", help="open the page in the web browser")
    p.set_defaults(func=run_sim)


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _layout(args: argparse.Namespace) -> Layout:
    """The board's layout: ``--layout``, else the one ``--ruleset`` is played on, else board25."""
    try:
        if args.layout:
            return layouts.load_layout(args.layout)
        if args.ruleset:
            return layouts.layout_for_ruleset(args.ruleset)
        return layouts.load_layout("board25")
    except (layouts.layout_error(), ValueError) as exc:
        raise UsageError(str(exc))


def _show_page(web: WebServer, open_it: bool) -> None:
    print("browser page:    %s" % web.url)
    if open_it and not web.open_browser():
        print("(no web browser found: open the address above yourself)")


def run_sim(args: argparse.Namespace) -> int:
    from zuniboard.virtual.board import CPYTHON_NOTICE, SimError, VirtualBoard

    layout = _layout(args)
    flash = Path(args.flash) if args.flash else default_flash(layout.name)
    flash.parent.mkdir(parents=True, exist_ok=True)
    try:
        board = VirtualBoard(
            layout.path, ruleset=args.ruleset, pieces=args.pieces, flash=flash, control_port=args.control_port
        )
    except (ValueError, SimError) as exc:  # a bad ruleset or point name, or $ZUNI_SIM_TRANSPORT
        raise UsageError(str(exc))
    if threading.current_thread() is threading.main_thread():
        # SIGTERM (a service manager, a test, `kill`) leaves as cleanly as Ctrl-C, so the
        # firmware process (in its own session, deaf to our signals) is stopped too.
        signal.signal(signal.SIGTERM, _terminate)
    try:
        board.start()
    except (KeyboardInterrupt, SimError, MicroPythonMissing) as exc:
        board.close()
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise UsageError(str(exc))
    # The flash holds a game in progress (a `zuni play` quit mid-game): its pieces stand
    # where that game left them, as on wood, so the page follows it at once.
    placed = board.place_its_game() if args.pieces == "start" else 0
    web = None
    if not args.no_http:
        try:
            web = start_page(board, args.http)
        except (OSError, ValueError) as exc:
            board.close()
            raise UsageError("--http %d: %s" % (args.http, exc))
    try:
        if board.runtime == "cpython":
            print(CPYTHON_NOTICE)
        print("virtual board: layout %s (%s)" % (layout.name, layout.title))
        print("serial port:     %s" % board.port_path)
        print("control channel: %s" % board.control_address)
        print("flash image:     %s" % flash)
        if placed:
            print("the board's game in the flash has %d moves: its pieces stand where it left them" % placed)
        if web is not None:
            _show_page(web, args.open)
        print("Ctrl-C to stop.", flush=True)
        deadline = time.monotonic() + args.seconds if args.seconds > 0 else None
        while board.alive and (deadline is None or time.monotonic() < deadline):
            time.sleep(0.2)
        if not board.alive:
            print("the virtual board stopped:\n%s" % board.log_tail())
            return 1
    except KeyboardInterrupt:
        print()
    finally:
        if web is not None:
            web.close()
        board.close()
    return 0
