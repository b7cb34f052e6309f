"""`zuni log replay GAME`: go over a logged game on the board, move by move.

The board starts the game from its start (a set-up position is set up one side at a
time) and shows each move as the computer's move is shown (blue double flash: the
piece; green: where it goes; orange: what it takes); carry it out on the pieces. On
the virtual board the terminal's hand carries it out itself, visibly (not with --manual).

Keys (or the board's buttons): n / OK: the next move; b / BACK: one move back (restore the
position the board lights); h / HINT: the computer's view of the move about to be
played (the move it prefers, and how much the move played lost; lit as a hint);
p / play [SIDE=WHO ...]: leave the replay and play on from here, e.g.
`play north=ai:2` (default: South human, North ai:3), logged as a new game that starts
from this game at this move; q: quit. docs/replay.md says more.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
from collections.abc import Callable
from typing import Any

from zuniboard.errors import UsageError
from zuniboard.link.client import LinkError
from zuniboard.play.connect import PAGE_PORT, BoardConnection, connect
from zuniboard.play.gamelog import BOARD_PLY_TAG, BoardGameLog
from zuniboard.play.seats import parse_player, seats_for
from zuniboard.play.session import PlaySession, board_identity
from zuniboard.play.terminal import LineReader, TerminalUI, move_list
from zuniboard.records.db import Database
from zuniboard.records.record import GameRecord
from zuniboard.records.select import get_game, open_database
from zuniboard.records.text import render
from zuniboard.replay.control import KEYS_HELP, SHOW_S, PlayOn, ReplayController
from zuniboard.replay.cursor import ReplayCursor, ReplayError
from zuniboard.replay.driver import ANALYZE_TIME_S, ReplayDriver, ReplayStartError

SIDES = ("south", "west", "north", "east")


def publish(name: str, value: Any) -> None:
    """The replay's view on the virtual board's page (when the page is served here)."""
    try:
        from zuniboard.web import page
    except ImportError:  # pragma: no cover - the page's dependencies missing
        return
    page.publish(name, value)


def register(sub: Any, db_option: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "replay",
        help="go over a game on the board move by move (OK/BACK/HINT), and play on from any move",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[db_option],
    )
    p.add_argument("game", metavar="GAME", help="game id, or `last` (the newest game with moves)")
    p.add_argument("--from-move", type=int, default=0, metavar="N", help="start after move N (default 0: the start)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--port", metavar="URL", help="the board's serial port (device path, socket://, pty)")
    where.add_argument("--sim", action="store_true", help="replay on the virtual board")
    p.add_argument("--manual", action="store_true", help="virtual board: the terminal's hand moves no pieces")
    p.add_argument(
        "--show",
        metavar="SECONDS",
        type=float,
        default=SHOW_S,
        help="virtual board: a move stays lit this long before the hand carries it out (default %.1f)" % SHOW_S,
    )
    p.add_argument(
        "--time", type=float, default=ANALYZE_TIME_S, help="thinking time of a hint's analysis (default 0.5 s)"
    )
    p.add_argument("--http", metavar="PORT", type=int, default=PAGE_PORT, help="virtual board: the page's port")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto", help="coloured board drawing")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the board (default 10)")
    p.set_defaults(func=run_replay)


def seats_words(text: str, ruleset: str) -> dict[str, str]:
    """``play north=ai:2 south=human`` -> the players of the game played on."""
    players: dict[str, str | None] = {}
    for token in text.split()[1:]:
        side, sep, who = token.partition("=")
        if not sep or side not in SIDES:
            raise ValueError("%r: give SIDE=WHO, e.g. north=ai:2 (sides: %s)" % (token, ", ".join(SIDES)))
        parse_player(who)
        players[side] = who
    return {side: seat.text for side, seat in seats_for(ruleset, players).items()}


def replay_text(controller: ReplayController) -> str:
    """The position and the move list with the current move in [brackets]."""
    view = controller.view()
    game = controller.cursor.game
    marked = list(view.moves)
    if view.ply < len(marked):
        marked[view.ply] = "[%s]" % marked[view.ply]
    head = "replay of game #%s (%s): move %d of %d" % (view.game_id, view.ruleset, view.ply, len(view.moves))
    return "\n".join(["", render(game).rstrip("\n"), head, "moves: " + move_list(game, marked, last=len(marked))])


def play_on(
    link: Any, db: Database, ui: Any, cursor: ReplayCursor, players: dict[str, str], **options: Any
) -> PlaySession:
    """Leaves the replay at ``cursor``: a new log game from its position (tagged with
    the game and move it came from) goes on with the board's game."""
    branch = cursor.branch(players)
    # The board's game id, with the move of it the log game starts at, so that `zuni play
    # --resume` finds the game on the board again (docs/replay.md).
    tags = dict(branch.tags, **{BOARD_PLY_TAG: str(cursor.ply)})
    gid = BoardGameLog(db, ui.message).open(
        branch.ruleset,
        branch.players,
        board_identity(link.hello),
        link.hello.get("layout"),
        link.game,
        branch.position,
        tags,
        branch.time_control,
    )
    session = PlaySession(link, db, ui, **options)
    session.start_branch(gid, cursor.ply)
    return session


def _cursor(record: GameRecord, from_move: int) -> ReplayCursor:
    try:
        cursor = ReplayCursor(record)
    except ReplayError as exc:
        raise UsageError(str(exc))
    if not 0 <= from_move <= cursor.length:
        raise UsageError("--from-move %d: game %s has moves 0..%d" % (from_move, record.id, cursor.length))
    return cursor


def _connect(args: argparse.Namespace, ruleset: str, ui: TerminalUI) -> BoardConnection:
    try:
        return connect(
            args.port,
            args.sim,
            ruleset,
            ui.message,
            timeout=args.timeout,
            hand=not args.manual,
            page_port=args.http,
        )
    except LinkError as exc:
        raise UsageError(str(exc))


def _replay_until_play_on(
    driver: ReplayDriver, controller: ReplayController, ui: TerminalUI, ruleset: str
) -> dict[str, str] | None:
    """Runs the replay until it ends (None) or the player plays on from it with seats
    that make sense (who plays which side)."""
    while True:
        end = driver.run()
        if not isinstance(end, PlayOn):
            return None
        try:
            return seats_words(end.line, ruleset)
        except ValueError as exc:
            ui.message("error", "play: %s" % exc)
            controller.done = False
            driver.end = None


def _play_on_from_page(
    conn: BoardConnection, db: Database, ui: TerminalUI, cursor: ReplayCursor, players: dict[str, str]
) -> PlaySession:
    """The game played on from the replay; on the virtual board the page shows it and
    takes its lines, as with zuni play."""
    if conn.virtual is None:
        return play_on(conn.link, db, ui, cursor, players, hand=conn.hand)
    publish("replay", None)  # the page goes back to the game being played
    session = play_on(
        conn.link, db, ui, cursor, players, hand=conn.hand, on_change=lambda control: publish("game", control.view())
    )
    from zuniboard.web import page

    page.on_line(session.page_line)
    return session


def run_replay(args: argparse.Namespace) -> int:
    db: Database = open_database(getattr(args, "db", None))
    record = get_game(db, args.game, with_moves=True)
    cursor = _cursor(record, args.from_move)
    ui = TerminalUI(color={"always": True, "never": False}.get(args.color))
    conn: BoardConnection | None = None
    keys: LineReader | None = None
    last_ply = [-1]

    def changed(c: ReplayController) -> None:
        if conn is not None and conn.virtual is not None:
            publish("replay", dataclasses.asdict(c.view()))
        if c.cursor.ply != last_ply[0]:
            last_ply[0] = c.cursor.ply
            ui.message("info", replay_text(c))

    try:
        conn = _connect(args, record.ruleset, ui)
        controller = ReplayController(
            cursor, hand=conn.hand is not None, show_s=max(0.0, args.show), target=args.from_move
        )
        driver = ReplayDriver(
            conn.link, controller, ui.message, hand=conn.hand, analyze_time=args.time, on_change=changed
        )
        changed(controller)  # the game and its moves, before the board shows any
        try:
            driver.start(timeout=args.timeout)
        except ReplayStartError as exc:
            raise UsageError(str(exc))
        target: list[Any] = [driver.key]
        # After `p` (play on) the prompt is the game's, as zuni play's: whose turn it is.
        prompt: list[Callable[[], str]] = [lambda: "replay> "]
        keys = LineReader(lambda line: target[0](line), lambda: target[0]("quit"), prompt=lambda: prompt[0]())
        keys.start()
        ui.message("info", KEYS_HELP)
        players = _replay_until_play_on(driver, controller, ui, record.ruleset)
        if players is None:
            return 0
        session = _play_on_from_page(conn, db, ui, cursor, players)
        target[0] = session.key
        playing = session

        def turn_prompt() -> str:
            side = playing.turn_side()
            return "%s> " % side if side else "> "

        prompt[0] = turn_prompt
        return session.run()
    except KeyboardInterrupt:
        ui.message("info", "interrupted")
        return 130
    finally:
        if keys is not None:
            keys.close()
        if conn is not None:
            conn.close()
        with contextlib.suppress(Exception):
            db.close()
