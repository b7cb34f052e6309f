"""`zuni play`: play a game on the board against people or the computer.

The board is found by itself (a Pico answering on USB), or named with --port, or the
virtual board is started with --sim; with no board plugged in, the virtual board is
used. Each side is `human` or `ai:LEVEL` (1-5). Moves are made on the board; the
computer's moves are shown on the board's LEDs for you to carry out. On the virtual
board you may also type a move (e.g. s3xm4-m5): the terminal's hand makes it, and it
carries out the computer's moves too (not with --manual). Every game and move goes to
the game log (`zuni log`) as it happens.

While playing, type a move (Tab completes the legal ones; on the virtual board the
terminal's hand makes it), or a command: a word, or / and its first letters:
hint (/h), undo (/u), resign, draw, count (each asked again first), new (after the
end), board, help, quit (/q). A word is never a move, so every move can be typed.
With --from the game starts from a position instead of the rules' start: a logged game
at a move (`--from 12:30`: game #12 after 30 moves; the log tags it FromGame/FromPly), a
record file (`--from game.pgn`, `--from game.json:10`: a `zuni log export` file, its
Position tag honoured), or a position text (`--from "mosona | north to move | south s3 s5
| north m4"`, docs/rules.md "Positions as text"). The board lights where one side's
pieces go; place them, then OK (or leave them a moment) for the next side's.

With --clock each side plays on a clock, kept by the board (docs/clocks.md): `--clock 5+3`
(5 minutes, 3 s added after each move), `--clock 10` (sudden death), `--clock 90s`,
`--clock 5d2` (a 2 s delay), `--clock "south=5+3 north=10"` (a time each). The committed
move stops the mover's clock; a flag that falls loses the game on time. The clocks show in
the terminal and on the page; the computer takes its thinking time from its clock.

After quit, the next `zuni play` offers to go on with the unfinished game;
`zuni play --resume` goes on with it without asking.

Board marks: S N W E pieces (lower case: bow priests), . empty point, [ ] the last
move's start and end, x a piece it took.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import zuni
from zuniboard.errors import UsageError
from zuniboard.games.clock_view import check_clock
from zuniboard.games.words import count_words
from zuniboard.link.client import LinkError
from zuniboard.play.connect import PAGE_PORT, BoardConnection, check_port, connect
from zuniboard.play.controller import MOVES_AT_BOARD, MOVES_AT_PAGE, GameController
from zuniboard.play.endgame_tables import start_first_use_build
from zuniboard.play.seats import parse_player, seats_for
from zuniboard.play.session import KEYS_HELP, KEYS_HELP_NO_HAND, SHOW_AI_MOVE_S, PlaySession, SessionError
from zuniboard.play.start_from import StartFrom, StartFromError, start_from
from zuniboard.play.terminal import LineReader, TerminalUI
from zuniboard.records.db import Database, DatabaseError, GameSummary


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    play = subparsers.add_parser(
        "play", help="play a game on the board", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    play.add_argument("--ruleset", default=None, help='ruleset text, e.g. "kolowis chain=forced" (default "mosona")')
    for side in ("south", "north", "west", "east"):
        default = {"south": "human", "north": "ai:3"}.get(side, "ai:3 (four players)")
        play.add_argument("--" + side, metavar="WHO", default=None, help="human or ai:LEVEL (default %s)" % default)
    where = play.add_mutually_exclusive_group()
    where.add_argument("--port", metavar="URL", help="the board's serial port (device path, socket://, pty)")
    where.add_argument("--sim", action="store_true", help="play on the virtual board")
    play.add_argument(
        "--layout",
        metavar="NAME",
        default=None,
        help="virtual board: its layout, a name or a .json file (default: the ruleset's; as zuni sim's --layout)",
    )
    play.add_argument("--resume", action="store_true", help="go on with the last unfinished game")
    play.add_argument(
        "--clock",
        metavar="CONTROL",
        default=None,
        help="play on clocks: 10 (minutes, sudden death), 90s, 5+3 (3 s increment), 5d2 (2 s delay), "
        '"south=5+3 north=10"',
    )
    play.add_argument(
        "--from",
        dest="start_from",
        metavar="X",
        default=None,
        help="start from a position: GAME:N (logged game GAME after N moves), a record file (.pgn/.json[:N]), "
        'or a position text ("mosona | north to move | south s3 s5 | north m4")',
    )
    play.add_argument(
        "--manual",
        action="store_true",
        help="virtual board: the terminal does not move pieces (move them through the control channel or the page)",
    )
    play.add_argument(
        "--db", metavar="PATH", default=None, help="game log database (default $ZUNI_DB or the user data file)"
    )
    play.add_argument("--seed", type=int, default=None, help="seed for the computer's choices between equal moves")
    play.add_argument(
        "--deterministic", action="store_true", help="the computer thinks by node counts, not by the clock (repeatable)"
    )
    play.add_argument(
        "--show",
        metavar="SECONDS",
        type=float,
        default=SHOW_AI_MOVE_S,
        help="virtual board: the computer's move stays lit this long before the terminal's hand carries it out "
        "(default %.0f)" % SHOW_AI_MOVE_S,
    )
    play.add_argument(
        "--http",
        metavar="PORT",
        type=int,
        default=PAGE_PORT,
        help="virtual board: the browser page's port (default %d, as zuni sim's; any free one when it is taken; "
        "0: any free one)" % PAGE_PORT,
    )
    play.add_argument("--color", choices=("auto", "always", "never"), default="auto", help="coloured board drawing")
    play.add_argument(
        "--timeout", type=float, default=10.0, help="seconds to wait for the board to answer (default 10)"
    )
    play.set_defaults(func=run_play)


def _players(args: argparse.Namespace) -> dict[str, str | None]:
    players: dict[str, str | None] = {}
    for side in ("south", "north", "west", "east"):
        text = getattr(args, side)
        if text is not None:
            try:
                parse_player(text)
            except ValueError as exc:
                raise UsageError("--%s: %s" % (side, exc))
        players[side] = text
    return players


def _last_unfinished(db: Database) -> GameSummary | None:
    """The game --resume will look for (the virtual board's layout follows its ruleset)."""
    for game in db.list_games():
        if game.result == "*" and game.termination != "abandoned":
            return game
    return None


def _last_unfinished_ruleset(db: Database) -> str | None:
    game = _last_unfinished(db)
    return None if game is None else str(game.ruleset)


def offer_resume(db: Database, ruleset: str | None, ask: Callable[[str], str] | None) -> bool:
    """Whether to go on with the log's unfinished game: asked when ``ask`` reads an
    answer (a terminal), else only said."""
    game = _last_unfinished(db)
    if game is None or game.moves == 0:
        return False
    if ruleset is not None and str(zuni.parse_ruleset(ruleset)) != game.ruleset:
        return False
    what = "game #%d (%s, %s) was left unfinished" % (game.id, game.ruleset, count_words(game.moves, "move"))
    if ask is None:
        print("%s: `zuni play --resume` goes on with it; this is a new game" % what, flush=True)
        return False
    try:
        answer = ask("%s: go on with it? [Y/n] " % what)
    except EOFError:
        return False
    return answer.strip().lower() in ("", "y", "yes")


def _ask_on_terminal() -> Callable[[str], str] | None:
    if sys.stdin.isatty() and sys.stdout.isatty():
        return input
    return None


def history_path(db: Database) -> str:
    """Where the line editor keeps what was typed: beside the game log."""
    return str(Path(db.path).with_name("play-history"))


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # SIGTERM leaves as cleanly as Ctrl-C


def run_play(args: argparse.Namespace) -> int:
    if not 0 <= args.http <= 65535:
        raise UsageError("--http %d: a TCP port 0..65535 (0: any free one)" % args.http)
    players = _players(args)
    if args.ruleset is not None and args.resume:
        raise UsageError("--resume goes on with the logged game's ruleset: leave out --ruleset")
    if args.start_from is not None and (args.resume or args.ruleset is not None):
        raise UsageError("--from sets the ruleset and starts a new game: leave out --ruleset and --resume")
    if args.layout is not None and args.port is not None:
        raise UsageError("--layout is the virtual board's: leave out --port")
    ruleset = args.ruleset or ("mosona" if not args.resume else None)
    if ruleset is not None:
        # Bad input is refused before any board is touched.
        try:
            seats_for(ruleset, players)
        except zuni.RulesetError as exc:
            raise UsageError("--ruleset %r: %s" % (ruleset, exc))
        except ValueError as exc:
            raise UsageError(str(exc))
    try:
        db = Database(args.db)
    except DatabaseError as exc:
        raise UsageError(str(exc))
    start: StartFrom | None = None
    if args.start_from is not None:
        try:
            start = start_from(args.start_from, db)
            ruleset = start.ruleset
            seats_for(ruleset, players)
        except (StartFromError, ValueError) as exc:
            db.close()
            raise UsageError(str(exc))
    clock = ""
    if args.clock is not None:
        if args.resume:
            db.close()
            raise UsageError("--resume goes on with the board's game and its clocks: leave out --clock")
        try:
            clock = check_clock(args.clock, ruleset or "mosona")
        except ValueError as exc:
            db.close()
            raise UsageError(str(exc))
    if args.port:
        try:
            check_port(args.port)  # at once: before any question about the log's games
        except LinkError as exc:
            db.close()
            raise UsageError(str(exc))
    resume = bool(args.resume)
    if not resume and start is None and offer_resume(db, args.ruleset, _ask_on_terminal()):
        resume = True
        ruleset = None
    color = {"always": True, "never": False}.get(args.color)
    ui = TerminalUI(color=color)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminate)
    conn: BoardConnection | None = None
    session: PlaySession | None = None
    keys: LineReader | None = None
    try:
        try:
            conn = connect(
                args.port,
                args.sim,
                ruleset or _last_unfinished_ruleset(db),
                ui.message,
                timeout=args.timeout,
                hand=not args.manual,
                page_port=args.http,
                layout_name=args.layout,
            )
        except LinkError as exc:
            raise UsageError(str(exc))
        on_change = None
        if conn.virtual is not None:
            # The page shows the game as the controller knows it, and its typed lines
            # (POST /api/line) go to the same controller as the terminal's.
            from zuniboard.web import page

            def on_change(control: GameController) -> None:
                page.publish("game", control.view())
                page.publish("hint", control.hint_note)  # the hint beside the board (None: none)

        session = PlaySession(
            conn.link,
            db,
            ui,
            ruleset=ruleset,
            players=players,
            seed=args.seed,
            deterministic=args.deterministic,
            hand=conn.hand,
            show_move_s=max(0.0, args.show),
            start=start,
            on_change=on_change,
            moves_at=MOVES_AT_PAGE if conn.virtual is not None and conn.hand is None else MOVES_AT_BOARD,
            clock=clock,
        )
        if conn.virtual is not None:
            page.on_line(session.page_line)
        try:
            session.start(resume=resume, timeout=args.timeout)
        except SessionError as exc:
            if not resume or args.resume:
                raise UsageError(str(exc))
            ui.message("info", "cannot go on with it: %s; starting a new game" % exc)
            session.ruleset = "mosona"
            session.start(timeout=args.timeout)
        active = session
        if session.game is not None:
            start_first_use_build(str(session.game.ruleset), ui.message)

        def prompt() -> str:
            side = active.turn_side()
            return "%s> " % side if side else "> "

        keys = LineReader(
            active.key,
            active.end_of_input,
            complete=active.control.completions,
            prompt=prompt,
            status=lambda: "   ".join(t for t in (active.clocks.text(time.monotonic()), ui.status) if t),
            history=history_path(db),
        )
        if keys.is_tty:
            ui.status_line = keys.refresh
        keys.start()
        ui.message("info", KEYS_HELP if conn.hand is not None else KEYS_HELP_NO_HAND % active.control.moves_at)
        return session.run()
    except KeyboardInterrupt:
        ui.message("info", "interrupted")
        return 130
    finally:
        if keys is not None:
            keys.close()
        if session is not None:
            session.close()
            # A game with moves to go on with (an empty one is no game to resume).
            if session.db_game is not None and not session.is_over() and session.moves:
                ui.message(
                    "info",
                    "game #%d is left unfinished in the log; `zuni play --resume%s` goes on with it"
                    % (session.db_game, " --sim" if conn is not None and conn.virtual is not None else ""),
                )
        if conn is not None:
            conn.close()
        with contextlib.suppress(Exception):
            db.close()
