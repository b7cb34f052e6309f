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
end), board, where (the position in words), moves POINT (one piece's moves), last (the
last move again), help, quit (/q). A word is never a move, so every move can be typed.
With --speak the moves, refusals, hints and results are also said aloud (docs/play.md).
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

Help per seat (docs/learn.md): `--assist warn` grades your moves and warns of a mistake
or a blunder (said, and flashed on the moved piece), `--assist full` says every grade,
`--assist none` gives no hints; per seat: `--assist south=full,north=none`.
`--hint-limit N`: hints per side per game. `--handicap piece|move|time[:SIDE]`: the
stronger side (the computer's) starts a piece short, lets the other begin, or has half
the time on its clock.

After quit, the next `zuni play` lists the unfinished games and offers to go on with
one; `zuni play --resume N` goes on with game N without asking (`--resume` alone: the
board's unfinished game, else the newest). A game left before its first move leaves no
trace in the log, and no game is given up without your word (`resign`). A game, a board
or a virtual board's flash image that another `zuni` is playing on is refused with a
word saying so.

Remote games (docs/remote.md): `zuni play --remote new` starts a game with a person at
another board and prints a short invite code; they type `zuni play --remote CODE`. With
no --broker, the first runs a broker and a referee on this computer (127.0.0.1:1883);
across the internet, name one: `--broker mqtts://host`. The other's moves show on your
board as the computer's do; undo, draw and count are offers they accept (yes) or not.
On the virtual board's page of a plain `zuni play`, "Play someone remotely" starts one
(it shows the code) or joins one with a code, through --broker or this computer's.

Board marks: S N W E pieces (lower case: bow priests), . empty point, [ ] the last
move's start and end, x a piece it took.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import os
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, TextIO

import zuni
from zuniboard.errors import UsageError
from zuniboard.games.clock_view import check_clock
from zuniboard.games.words import count_words
from zuniboard.link.client import LinkError
from zuniboard.play.assist import (
    ASSISTS,
    DEFAULT_ASSIST,
    HANDICAPS,
    Assist,
    AssistError,
    check_hint_limit,
    handicap_clock,
    handicap_position,
    parse_assist,
)
from zuniboard.play.connect import PAGE_PORT, BoardConnection, check_port, connect
from zuniboard.play.controller import MOVES_AT_BOARD, MOVES_AT_PAGE, GameController
from zuniboard.play.endgame_tables import start_first_use_build
from zuniboard.play.openings import check_resumable, resumable
from zuniboard.play.seats import parse_player, seats_for
from zuniboard.play.session import KEYS_HELP, KEYS_HELP_NO_HAND, SHOW_AI_MOVE_S, PlaySession, SessionError
from zuniboard.play.speech import Pyttsx3Voice, Speaker, SpeakingUI, VoiceUnavailable
from zuniboard.play.start_from import StartFrom, StartFromError, start_from
from zuniboard.play.terminal import LineReader, TerminalUI
from zuniboard.records.db import Database, DatabaseError, GameSummary

if TYPE_CHECKING:
    from zuniboard.remote.lobby import Seated
    from zuniboard.remote.page_lobby import PageLobby


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    play = subparsers.add_parser(
        "play", help="play a game on the board", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    _seat_options(play)
    _board_and_start_options(play)
    _log_and_output_options(play)
    _help_options(play)
    _remote_options(play)
    play.add_argument(
        "--timeout", type=float, default=10.0, help="seconds to wait for the board to answer (default 10)"
    )
    play.set_defaults(func=run_play)


def _seat_options(play: argparse.ArgumentParser) -> None:
    """The ruleset and who plays each seat."""
    play.add_argument("--ruleset", default=None, help='ruleset text, e.g. "kolowis chain=forced" (default "mosona")')
    for side in ("south", "north", "west", "east"):
        default = {
            "south": "human; in mosona with no seat given, ai:3",
            "north": "ai:3; in mosona with no seat given, human: North wins Mosona with best play",
        }.get(side, "ai:3 (four players)")
        play.add_argument("--" + side, metavar="WHO", default=None, help="human or ai:LEVEL (default %s)" % default)


def _board_and_start_options(play: argparse.ArgumentParser) -> None:
    """Which board (a port or the virtual one), and where the game starts: a game to resume, clocks, a position."""
    where = play.add_mutually_exclusive_group()
    where.add_argument("--port", metavar="URL", help="the board's serial port (device path, socket://, pty)")
    where.add_argument("--sim", action="store_true", help="play on the virtual board")
    play.add_argument(
        "--layout",
        metavar="NAME",
        default=None,
        help="virtual board: its layout, a name or a .json file (default: the ruleset's; as zuni sim's --layout)",
    )
    play.add_argument(
        "--resume",
        metavar="N",
        nargs="?",
        type=_game_number,
        const=RESUME_LATEST,
        default=None,
        help="go on with unfinished game N (`zuni log list`); without N the board's unfinished game, "
        "else the newest unfinished one",
    )
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


def _log_and_output_options(play: argparse.ArgumentParser) -> None:
    """The game log, the computer's choices, and what the virtual board, the page and the voice show."""
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
    play.add_argument(
        "--speak",
        action="store_true",
        help="say the moves, refusals, hints and results aloud (pyttsx3: espeak-ng, macOS or Windows speech)",
    )
    play.add_argument(
        "--speak-log",
        metavar="FILE",
        default=None,
        help="write what is spoken to FILE, one line each (- : standard error); with or without --speak",
    )
    play.add_argument("--color", choices=("auto", "always", "never"), default="auto", help="coloured board drawing")


def _help_options(play: argparse.ArgumentParser) -> None:
    """Help and handicaps (docs/learn.md)."""
    helps = play.add_argument_group("help and handicaps (docs/learn.md)")
    helps.add_argument(
        "--assist",
        metavar="LEVEL",
        default="",
        help="help for the people's seats: %s (default %s); per seat: south=full,north=none"
        % (", ".join(ASSISTS), DEFAULT_ASSIST),
    )
    helps.add_argument(
        "--hint-limit", metavar="N", type=int, default=None, help="hints per side per game (default: no limit)"
    )
    helps.add_argument(
        "--handicap",
        metavar="KIND[:SIDE]",
        default=None,
        help="the stronger side (the computer's, or SIDE) gives up: %s"
        % "; ".join("%s: %s" % kv for kv in HANDICAPS.items()),
    )


def _remote_options(play: argparse.ArgumentParser) -> None:
    """Remote games (docs/remote.md)."""
    remote = play.add_argument_group("remote games (docs/remote.md)")
    remote.add_argument(
        "--remote", metavar="CODE", default=None, help="new: start a remote game and print its invite code; CODE: join"
    )
    remote.add_argument(
        "--broker", metavar="URL", default=None, help="mqtt://, mqtts://, ws://, wss:// (default: this computer's)"
    )
    remote.add_argument("--name", default=None, help="your name as the others see it (default: your login name)")
    remote.add_argument("--seat", default="", help="the seat to take: south, north, west, east (default: a free one)")
    remote.add_argument(
        "--gone",
        metavar="SECONDS",
        type=int,
        default=0,
        help="a new game: a player silent this long may be claimed against (default 120)",
    )


def _handicap(args: argparse.Namespace, ruleset: str, players: dict[str, str | None]) -> tuple[str, str]:
    """``--handicap KIND[:SIDE]`` applied: (a position text for --from, or ''; the clock)."""
    kind, _, stronger = str(args.handicap).partition(":")
    if not stronger:
        seats = seats_for(ruleset, players)
        ais = [s for s, seat in seats.items() if seat.is_ai]
        if len(ais) != 1:
            raise UsageError("--handicap %s: name the stronger side (%s:south or %s:north)" % (kind, kind, kind))
        stronger = ais[0]
    try:
        if kind == "time":
            return "", handicap_clock(ruleset, args.clock or "", stronger)
        return handicap_position(ruleset, kind, stronger), args.clock or ""
    except AssistError as exc:
        raise UsageError(str(exc))


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


RESUME_LATEST = 0  # --resume without a number
LIST_UNFINISHED = 5  # the unfinished games a start lists, newest first


def _game_number(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError("%r is not a game number (`zuni log list` shows them)" % text)
    return int(text)


def _resume_ruleset(db: Database, game: int | None) -> str | None:
    """The ruleset of the game --resume goes on with (the virtual board's layout follows it)."""
    if game:
        with contextlib.suppress(LookupError):
            return db.get_ruleset(game)
        return None
    choices = resumable(db)
    return str(choices[0].ruleset) if choices else None


def unfinished_lines(games: list[GameSummary]) -> list[str]:
    """One line for each unfinished game a start lists."""
    lines = []
    for g in games[:LIST_UNFINISHED]:
        when = (g.started or "")[:16].replace("T", " ")
        lines.append("  #%-4d %s, %s, started %s" % (g.id, g.ruleset, count_words(g.moves, "move"), when))
    if len(games) > LIST_UNFINISHED:
        lines.append("  ... and %d more (`zuni log list`)" % (len(games) - LIST_UNFINISHED))
    return lines


def offer_resume(db: Database, ruleset: str | None, ask: Callable[[str], str] | None) -> int | None:
    """Which unfinished game to go on with: listed, then asked when ``ask`` reads an
    answer (a terminal: Enter or y the newest, a number that game, n a new game), else
    only said. None: a new game."""
    games = resumable(db)
    if ruleset is not None:
        wanted = str(zuni.parse_ruleset(ruleset))
        games = [g for g in games if g.ruleset == wanted]
    if not games:
        return None
    print("unfinished games in the log (`zuni play --resume N` goes on with game N):", flush=True)
    print("\n".join(unfinished_lines(games)), flush=True)
    if ask is None:
        print("this is a new game", flush=True)
        return None
    numbers = {g.id for g in games}
    while True:
        try:
            answer = ask("go on with game #%d? [Y/n, or a game's number] " % games[0].id).strip().lower()
        except EOFError:
            return None
        if answer in ("", "y", "yes"):
            return games[0].id
        if answer in ("n", "no"):
            return None
        number = answer.lstrip("#")
        if number.isdigit() and int(number) in numbers:
            return int(number)
        print("%r: answer y, n, or one of the numbers listed" % answer, flush=True)


def _left(session: PlaySession, db: Database, ui: TerminalUI | SpeakingUI) -> None:
    """The game left unfinished: said how to go on with it (the command README gives);
    one left before its first move is no game and leaves the log."""
    gid = session.db_game
    assert gid is not None
    with contextlib.suppress(sqlite3.Error):
        if gid not in db.game_ids():  # left before its first move: no game (PlaySession.close)
            return
    ui.message("info", "game #%d is left unfinished in the log; `zuni play --resume %d` goes on with it" % (gid, gid))


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
    if getattr(args, "remote", None) is not None:
        return run_remote(args)
    return run_local(args)


@dataclass
class _Asked:
    """What the options ask for, checked before any board is touched."""

    ruleset: str | None
    players: dict[str, str | None]
    assist: dict[str, Assist]
    start: StartFrom | None = None
    clock: str = ""
    resume: bool = False
    game: int | None = None  # --resume N: game N; --resume: the board's or the newest


def _check_options(args: argparse.Namespace) -> _Asked:
    """The options checked against each other and the rules (``--handicap`` applied)."""
    if not 0 <= args.http <= 65535:
        raise UsageError("--http %d: a TCP port 0..65535 (0: any free one)" % args.http)
    players = _players(args)
    if args.ruleset is not None and args.resume is not None:
        raise UsageError("--resume goes on with the logged game's ruleset: leave out --ruleset")
    if args.start_from is not None and (args.resume is not None or args.ruleset is not None):
        raise UsageError("--from sets the ruleset and starts a new game: leave out --ruleset and --resume")
    if args.layout is not None and args.port is not None:
        raise UsageError("--layout is the virtual board's: leave out --port")
    ruleset = args.ruleset if args.ruleset is not None else ("mosona" if args.resume is None else None)
    if ruleset is not None:
        # Bad input is refused before any board is touched.
        try:
            seats_for(ruleset, players)
        except zuni.RulesetError as exc:
            raise UsageError("--ruleset %r: %s" % (ruleset, exc))
        except ValueError as exc:
            raise UsageError(str(exc))
    if args.handicap is not None:
        if args.start_from is not None or args.resume is not None:
            raise UsageError("--handicap sets up a new game: leave out --from and --resume")
        handicapped, args.clock = _handicap(args, ruleset or "mosona", players)
        if handicapped:
            args.start_from, args.ruleset = handicapped, None
        args.clock = args.clock or None
    try:
        check_hint_limit(args.hint_limit)
        assist = parse_assist(args.assist, [str(s) for s in seats_for(ruleset or "mosona", players)])
    except (AssistError, ValueError) as exc:
        raise UsageError(str(exc))
    return _Asked(ruleset, players, assist)


def _check_with_log(args: argparse.Namespace, db: Database, asked: _Asked) -> None:
    """The options that read the log (``--from``, ``--resume N``) or the computer
    (``--port``), and the clock, into ``asked``; the log is closed when one is refused."""
    try:
        if args.start_from is not None:
            try:
                asked.start = start_from(args.start_from, db)
                asked.ruleset = asked.start.ruleset
                seats_for(asked.ruleset, asked.players)
            except (StartFromError, ValueError) as exc:
                raise UsageError(str(exc))
        if args.clock is not None:
            if args.resume is not None:
                raise UsageError("--resume goes on with the board's game and its clocks: leave out --clock")
            try:
                asked.clock = check_clock(args.clock, asked.ruleset or "mosona")
            except ValueError as exc:
                raise UsageError(str(exc))
        if args.port:
            try:
                check_port(args.port)  # at once: before any question about the log's games
            except LinkError as exc:
                raise UsageError(str(exc))
        asked.resume = args.resume is not None
        asked.game = args.resume or None
        if asked.game is not None:
            try:
                check_resumable(db, asked.game)
            except SessionError as exc:
                raise UsageError(str(exc))
    except UsageError:
        db.close()
        raise


def _resume_or_not(args: argparse.Namespace, db: Database, asked: _Asked, remote: Seated | None) -> None:
    """Whether the game goes on with an unfinished one (asked on the terminal, when it can)."""
    if remote is not None:
        # A remote seat taken again after a crash goes on with its unfinished game.
        asked.resume = remote.resumed and bool(resumable(db, remote=True))
        asked.ruleset = None if asked.resume else asked.ruleset
    elif not asked.resume and asked.start is None:
        asked.game = offer_resume(db, args.ruleset, _ask_on_terminal())
        if asked.game is not None:
            asked.resume = True
            asked.ruleset = None


def run_local(args: argparse.Namespace, remote: Seated | None = None) -> int:
    """``remote``: a ``remote.lobby.Seated`` (the game's ruleset and seats are its)."""
    asked = _check_options(args)
    try:
        db = Database(args.db)
    except DatabaseError as exc:
        raise UsageError(str(exc))
    _check_with_log(args, db, asked)
    _resume_or_not(args, db, asked, remote)
    color = {"always": True, "never": False}.get(args.color)
    terminal = TerminalUI(color=color)
    speaker = _speaker(args, terminal)
    ui: TerminalUI | SpeakingUI = terminal if speaker is None else SpeakingUI(terminal, speaker)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminate)
    run = _Run(db, ui, terminal, speaker)
    try:
        return _play(args, run, asked, remote)
    except KeyboardInterrupt:
        ui.message("info", "interrupted")
        return 130
    finally:
        run.close()


@dataclass
class _Run:
    """What a run of ``zuni play`` holds, let go at its end (``close``)."""

    db: Database
    ui: TerminalUI | SpeakingUI
    terminal: TerminalUI
    speaker: Speaker | None
    conn: BoardConnection | None = None
    session: PlaySession | None = None
    lobby: PageLobby | None = None
    keys: LineReader | None = None
    on_change: Callable[[GameController], None] | None = None

    def close(self) -> None:
        if self.keys is not None:
            self.keys.close()
        session = self.session
        if session is not None:
            session.close()
            if session.db_game is not None and not session.is_over():
                _left(session, self.db, self.ui)
        if self.lobby is not None:
            self.lobby.stop()
            if self.lobby.seated is not None:
                self.lobby.seated.close()
        if self.conn is not None:
            self.conn.close()
        speaker = self.speaker
        if speaker is not None:
            speaker.wait_idle(SPEECH_DRAIN_S)  # the result is heard before the program ends
            speaker.close()
            if speaker.transcript not in (None, sys.stderr):
                with contextlib.suppress(Exception):
                    speaker.transcript.close()
        with contextlib.suppress(Exception):
            self.db.close()


def _play(args: argparse.Namespace, run: _Run, asked: _Asked, remote: Seated | None) -> int:
    """Connects to the board, starts the session and plays until it ends; then, when the
    page's remote lobby seated everyone, the remote game on the same board."""
    db, ui = run.db, run.ui
    try:
        conn = run.conn = connect(
            args.port,
            args.sim,
            asked.ruleset or _resume_ruleset(db, asked.game),
            ui.message,
            timeout=args.timeout,
            hand=not args.manual,
            page_port=args.http,
            layout_name=args.layout,
        )
    except LinkError as exc:
        raise UsageError(str(exc))
    if conn.virtual is not None:
        run.on_change = _publish_game
        if remote is None:
            run.lobby = _page_lobby(args, asked.ruleset or _resume_ruleset(db, asked.game) or "mosona")
    a = asked
    session = run.session = _session(args, conn, db, ui, remote, a.ruleset, a.players, a.start, run.on_change, a.clock)
    session.control.helping.assist = asked.assist
    session.control.helping.hint_limit = args.hint_limit
    if conn.virtual is not None:
        from zuniboard.web import page

        page.on_line(session.page_line)
    _start(args, session, asked, ui)
    # The terminal's lines go to the session playing now (the page may switch it).
    holder = [session]
    run.keys = _line_reader(holder, run.terminal, db)
    ui.message("info", KEYS_HELP if conn.hand is not None else KEYS_HELP_NO_HAND % session.control.state.moves_at)
    lobby = run.lobby
    code = session.run(until=None if lobby is None else lobby.ready.is_set)
    if lobby is None or lobby.seated is None:
        return code
    return _play_remote(args, run, lobby.seated, holder)


def _publish_game(control: GameController) -> None:
    """The page shows the game as the controller knows it (its typed lines, POST
    /api/line, go to the same controller as the terminal's)."""
    from zuniboard.web import page

    page.publish("game", control.view())
    page.publish("hint", control.helping.hint_note)  # the hint beside the board (None: none)


def _page_lobby(args: argparse.Namespace, ruleset: str) -> PageLobby:
    """The page's "Play someone remotely": its lobby waits in a thread of its own; when
    every seat is taken, the board goes over to the remote game (``_play_remote``)."""
    from zuniboard.remote.page_lobby import PageLobby
    from zuniboard.web import page

    lobby = PageLobby(
        broker=args.broker,
        name=args.name or getpass.getuser(),
        ruleset=ruleset,
        publish=lambda view: page.publish("remote_lobby", view),
        fits=page.fits,
    )
    page.on_remote(lobby.request)
    return lobby


def _start(args: argparse.Namespace, session: PlaySession, asked: _Asked, ui: TerminalUI | SpeakingUI) -> None:
    """The session started: a new game, or the one resumed (a new one when that cannot go
    on and none was named)."""
    try:
        session.start(resume=asked.resume, timeout=args.timeout, game=asked.game)
    except DatabaseError as exc:  # the log cannot be written (a full disk, a read-only folder)
        raise UsageError(str(exc)) from None
    except SessionError as exc:
        if not asked.resume or args.resume is not None:
            raise UsageError(str(exc))
        ui.message("info", "cannot go on with it: %s; starting a new game" % exc)
        session.ruleset = "mosona"
        session.start(timeout=args.timeout)
    follow = getattr(session, "follow", None)
    if follow is not None:
        follow(time.monotonic())  # a remote game: the referee's moves the board has not had yet
    if session.game is not None:
        start_first_use_build(str(session.game.ruleset), ui.message)


def _line_reader(holder: list[PlaySession], terminal: TerminalUI, db: Database) -> LineReader:
    """The terminal's typed lines, to the session in ``holder`` (started)."""

    def prompt() -> str:
        side = holder[0].turn_side()
        return "%s> " % side if side else "> "

    keys = LineReader(
        lambda line: holder[0].key(line),
        lambda: holder[0].end_of_input(),
        complete=lambda: holder[0].control.completions(),
        prompt=prompt,
        status=lambda: "   ".join(t for t in (holder[0].clocks.text(time.monotonic()), terminal.status) if t),
        history=history_path(db),
    )
    if keys.is_tty:
        terminal.status_line = keys.refresh
    keys.start()
    return keys


def _play_remote(args: argparse.Namespace, run: _Run, seated: Seated, holder: list[PlaySession]) -> int:
    """Every seat of the page's remote game is taken: this game is left (as quit leaves
    it), and the board plays the remote one."""
    from zuniboard.remote.session import RemoteSession
    from zuniboard.web import page

    db, ui, conn = run.db, run.ui, run.conn
    assert conn is not None and run.session is not None
    page.on_remote(None)
    page.publish("remote_lobby", None)
    run.session.close()
    if run.session.db_game is not None and not run.session.is_over():
        _left(run.session, db, ui)
    ui.message("info", "the remote game %s starts on this board" % _pretty_code(seated.client.creds.code))
    ruleset = str(seated.client.state.get("ruleset", "mosona"))
    run.session = None  # (not closed twice if the next one cannot start)
    remote_session = _session(args, conn, db, ui, seated, ruleset, seated.players(), None, run.on_change, "")
    assert isinstance(remote_session, RemoteSession)
    run.session = holder[0] = remote_session
    page.on_line(remote_session.page_line)
    remote_session.start(timeout=args.timeout)  # the referee's moves so far, if any, follow
    remote_session.follow(time.monotonic())
    return remote_session.run()


def _pretty_code(code: str) -> str:
    """An invite code as people type it: K7M-Q2P."""
    return "%s-%s" % (code[:3].upper(), code[3:].upper())


def _session(
    args: argparse.Namespace,
    conn: BoardConnection,
    db: Database,
    ui: TerminalUI | SpeakingUI,
    remote: Seated | None,
    ruleset: str | None,
    players: dict[str, str | None],
    start: StartFrom | None,
    on_change: Callable[[GameController], None] | None,
    clock: str,
) -> PlaySession:
    """The play session on ``conn``'s board: a remote game's (``remote``: a
    ``remote.lobby.Seated``) or a local one."""
    session_class: Any = PlaySession
    more: dict[str, Any] = {}
    if remote is not None:
        from zuniboard.remote.session import RemoteSession

        session_class = RemoteSession
        more["remote"] = (remote.connection, remote.client, remote.seat_file, remote.client_id)
        if conn.virtual is not None:
            # The page's remote panel: the invite code (and the command the others
            # type), the seats and their presence, the offer to answer.
            from zuniboard.web import page

            invite = remote.invite

            def on_view(view: dict[str, Any]) -> None:
                page.publish("remote", dict(view, invite=invite))

            more["on_view"] = on_view
    session: PlaySession = session_class(
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
        **more,
    )
    return session


SPEECH_DRAIN_S = 10.0  # at the end, what is still being said is waited for this long at most


def _speaker(args: argparse.Namespace, terminal: TerminalUI) -> Speaker | None:
    """The speaker of --speak and --speak-log (None: neither). Without a speech engine
    one line says why, and the game goes on silent (with --speak-log, still written)."""
    if not args.speak and args.speak_log is None:
        return None
    transcript: TextIO | None = None
    if args.speak_log == "-":
        transcript = sys.stderr
    elif args.speak_log is not None:
        try:
            transcript = open(args.speak_log, "a", encoding="utf-8")
        except OSError as exc:
            raise UsageError("--speak-log %s: %s" % (args.speak_log, exc.strerror or exc))
    voice: Pyttsx3Voice | None = None
    if args.speak:
        try:
            Pyttsx3Voice.check()
            voice = Pyttsx3Voice()
        except VoiceUnavailable as exc:
            terminal.message("error", "%s; playing on without it" % exc)
    if voice is None and transcript is None:
        return None
    return Speaker(voice, transcript)


# -- remote games (docs/remote.md) ------------------------------------------------------
LOCAL_ONLY = ("south", "north", "west", "east", "resume", "start_from")


def run_remote(args: argparse.Namespace) -> int:
    from zuniboard.remote.broker import BrokerError
    from zuniboard.remote.lobby import LobbyError, take_seat, wait_for_seats
    from zuniboard.remote.protocol import remote_dir

    for name in LOCAL_ONLY:
        if getattr(args, name, None):
            raise UsageError("--%s: not in a remote game (every seat is a person's)" % name.replace("_", "-"))
    new = args.remote.strip().lower() == "new"
    if not new and (args.ruleset or args.clock or args.gone):
        raise UsageError("--ruleset, --clock and --gone are the new game's: the game joined has its own")
    ruleset = args.ruleset or "mosona"
    clock = ""
    try:
        zuni.parse_ruleset(ruleset)
        if args.clock:
            clock = check_clock(args.clock, ruleset)
    except (zuni.RulesetError, ValueError) as exc:
        raise UsageError(str(exc))
    if args.seat and args.seat not in ("south", "north", "west", "east"):
        raise UsageError("--seat %r: south, north, west or east" % args.seat)
    name = args.name or getpass.getuser()

    def say(text: str) -> None:
        print(text, flush=True)

    try:
        seated = take_seat(
            "new" if new else args.remote,
            broker=args.broker,
            say=say,
            name=name,
            ruleset=ruleset,
            clock=clock,
            seat=args.seat,
            gone_s=args.gone,
        )
    except (LobbyError, BrokerError) as exc:
        raise UsageError(str(exc))
    try:
        if not seated.resumed:
            say("waiting for every seat to be taken (Ctrl-C to give up)")
        try:
            wait_for_seats(seated, say)
        except KeyboardInterrupt:
            print("zuni: interrupted", file=sys.stderr)
            return 130
        if args.port is None:
            # The virtual board's flash is one per layout and user: two terminals playing
            # each other on one computer need one each (this process only).
            creds = seated.client.creds
            os.environ["ZUNI_SIM_DIR"] = str(remote_dir() / "boards" / ("%s-%s" % (creds.code, creds.seat)))
        args.ruleset = str(seated.client.state.get("ruleset", ruleset))
        args.clock = None  # the referee keeps the clocks
        args.south = args.north = args.west = args.east = None
        for side, who in seated.players().items():
            setattr(args, side, who)
        return run_local(args, remote=seated)
    finally:
        seated.close()
