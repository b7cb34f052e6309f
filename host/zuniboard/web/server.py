"""The browser page of the virtual board: a small HTTP server on localhost.

It serves the page (``static/``, no network fetches: every file is local) and the
CONTROL API, JSON over HTTP (``docs/simulator.md`` documents every call):

- ``GET /api/board``: the drawing (rules geometry: names, coords, lines, homes, shape).
- ``GET /api/state``: LED frame, sensors, disks on the board, in the hand and in the
  tray, and the board's status.
- ``GET /api/events``: the same state as server-sent events, one per change.
- ``POST /api/lift|place|discard|take|move|remove|press|setup``: what a hand does.
- ``POST /api/fault`` ``{"on": true}``: the LED supply switch's ~FAULT line low (a short
  on the LED line, for tests and demonstrations), ``false``: high again.

The firmware sees only lifts and places (and button presses), through the virtual
board's control channel, exactly as the reed switches of a wooden board would report
them; the server keeps the ``World`` (whose disk is where) next to it.

It obeys only its own page (``RequestGuard``): listening on 127.0.0.1 does not stop
another site open in the same browser from sending requests to it, so every request
must name this server in its ``Host`` (no DNS rebinding), and every POST must come from
the page's own origin (``Origin``, else ``Referer``) with ``Content-Type:
application/json`` (which a cross-site form or "simple" fetch cannot send without a
CORS preflight, and the server grants none). Refusals are 403 with the reason. It
serves on loopback only: it has no token, so no option puts it on another interface.

>>> with WebServer.start(virtual_board, port=8765) as web:
...     print(web.url)
http://127.0.0.1:8765/
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import threading
import time
import webbrowser
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, TypedDict
from urllib.parse import urlsplit

import zuni
from zuniboard.web.control import REPLY_TIMEOUT_S, ControlClient, ControlError
from zuniboard.web.world import PieceJson, UnknownPoint, World, WorldError

BUTTONS = ("ok", "back", "hint")
STATIC_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
MAX_BODY = 16 * 1024
SSE_HEARTBEAT_S = 15.0
RECONNECT_HELLO_S = 0.5
GIVE_UP_S = 10.0  # a virtual board not running for this long has been closed, not restarted


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")  # what a browser on this machine may call it


class ApiError(Exception):
    """A request the API refuses: ``status`` and a message naming the input."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


class RequestGuard:
    """Which requests come from the page itself: pure checks of the headers.

    ``host_refusal`` for every request (GET, SSE, POST): its ``Host`` must be this
    server's address, ``127.0.0.1``, ``localhost`` or ``[::1]`` with its port (a
    DNS-rebinding page reaches 127.0.0.1 under the attacker's name, and its browser
    sends that name). ``post_refusal`` for state-changing requests: ``Origin`` (or, when
    a browser sends none, ``Referer``) must be the page's own origin, and the body JSON.
    Each returns None (accepted) or the message of a 403."""

    def __init__(self, bind_host: str, port: int) -> None:
        names = {name.lower() for name in LOOPBACK_NAMES} | {bind_host.lower()}
        hosts = {"%s:%d" % (name, port) for name in names}
        if port == 80:  # a browser leaves the default port out of Host and Origin
            hosts |= names
        self.hosts = frozenset(hosts)

    def host_refusal(self, host: str | None) -> str | None:
        if not host:
            return "refused: the request names no Host: this server answers only its own page on this computer"
        if host.strip().lower() not in self.hosts:
            return "refused: Host %r is not this server (%s): it answers only its own page on this computer" % (
                host,
                ", ".join(sorted(self.hosts)),
            )
        return None

    def post_refusal(
        self, method_path: str, host: str, origin: str | None, referer: str | None, ctype: str | None
    ) -> str | None:
        own = "http://" + host.strip().lower()
        if origin is not None:
            if origin.strip().lower() != own:
                return "refused: %s from origin %r: only the page itself (%s) may change the board" % (
                    method_path,
                    origin,
                    own,
                )
        elif referer:
            parts = urlsplit(referer.strip())
            if "%s://%s" % (parts.scheme.lower(), parts.netloc.lower()) != own:
                return "refused: %s from page %r: only the page itself (%s) may change the board" % (
                    method_path,
                    referer,
                    own,
                )
        else:
            return (
                "refused: %s carries neither Origin nor Referer: only the page itself may change the board"
                " (a script sends Origin: %s, as the page's browser does)" % (method_path, own)
            )
        media = (ctype or "").split(";", 1)[0].strip().lower()
        if media != "application/json":
            return "refused: %s with Content-Type %r: the API takes application/json" % (method_path, ctype or "")
        return None


def loopback_only(host: str) -> str:
    """``host`` if it is a loopback address; else ValueError: the page has no token, so it
    must not be reachable from another computer."""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ValueError(
            "the page serves on this computer's loopback only (127.0.0.1), not on %r: it has no password or"
            " token, so anyone who reached it could play the board" % host
        )
    return host


class BoardDescription(TypedDict):
    """What the page draws (``GET /api/board``): the rules geometry of a ruleset."""

    ruleset: str
    layout: str
    title: str
    shape: str
    names: list[str]
    coords: list[list[float]]
    lines: list[list[str]]
    homes: dict[str, list[str]]
    sides: list[str]
    palette: dict[str, str]
    contrast: dict[str, str]


class ApiReply(TypedDict, total=False):
    """The answer to a hand's ``POST /api/...``: ok, and the disk it moved."""

    ok: bool
    piece: PieceJson
    # a setup's: the points cleared and those a disk was put on; staged: one side at a time
    cleared: list[str]
    placed: list[str]
    staged: bool


# A request's body: a JSON object, its fields checked one by one (``_text``, ...).
JsonObject = dict[str, object]


def board_description(ruleset: str, layout: str = "") -> BoardDescription:
    """What the page draws: the rules geometry of ``ruleset``."""
    game = zuni.new_game(ruleset)
    g = game.geometry
    names = list(g.names)
    sides = sorted({zuni.piece_side(code) for code in game.board if code})
    return {
        "ruleset": str(game.ruleset),
        "layout": layout,
        "title": zuni.GAME_TITLES.get(game.ruleset.game_id, game.ruleset.game_id),
        "shape": g.shape,
        "names": [str(n) for n in names],
        "coords": [[float(x), float(y)] for x, y in g.coords],
        "lines": [[str(names[p]) for p in line] for line in g.lines],
        "homes": {str(zuni.SIDE_NAMES[side]): [str(names[p]) for p in pts] for side, pts in sorted(g.homes.items())},
        "sides": [str(zuni.SIDE_NAMES[s]) for s in sides],
        "palette": palette(),
        "contrast": dict(CONTRAST_PALETTE),
    }


# The page's high-contrast lights (its "high-contrast lights" setting): each colour of the
# LED language as one that stays apart from the others under red-green colour blindness
# (tests/test_leds_colourblind.py measures it), at full strength however dim the LED.
CONTRAST_PALETTE: dict[str, str] = {
    "white": "#ffffff",
    "dim-white": "#8a8a8a",
    "red": "#e00000",
    "green": "#00e8b0",
    "dim-green": "#00806a",
    "blue": "#2060ff",
    "orange": "#ffb000",
    "magenta": "#c060ff",
    "yellow": "#fff200",
    "cyan": "#40c8ff",
    "dim-yellow": "#a09000",
    "dim-cyan": "#2080a0",
}


def palette() -> dict[str, str]:
    """The firmware's LED colours: "#rrggbb" -> colour name ("blue", "dim-cyan"...), so the
    page names what a light means from the same table the firmware paints with."""
    from zuni_board import leds

    out = {}
    for i, name in enumerate(leds.COLOUR_NAMES):
        r, g, b = leds.PALETTE[3 * i : 3 * i + 3]
        out["#%02x%02x%02x" % (r, g, b)] = str(name)
    return out


class PageInput:
    """Where the page's typed lines and its "Play someone remotely" go: a host program in
    the same process sets the handlers (``page.on_line``, ``page.on_remote``)."""

    def __init__(self) -> None:
        # Where a line typed on the page goes (a move or a command): the game controller
        # of a `zuni play` in this process (``page.on_line``); None: nobody takes lines.
        self.line_handler: Callable[[str], None] | None = None
        # The page's "Play someone remotely" (POST /api/remote): a `zuni play`'s lobby
        # (``page.on_remote``); it answers at once, the lobby's waiting runs elsewhere.
        self.remote_handler: Callable[[JsonObject], JsonObject] | None = None

    def line(self, text: str) -> ApiReply:
        """A line typed on the page: to the game controller, as typed at the terminal."""
        handler = self.line_handler
        if handler is None:
            raise ApiError(
                HTTPStatus.CONFLICT, "line %r: no game is played from this page (zuni play --sim takes lines)" % text
            )
        handler(text)
        return {"ok": True}

    def remote(self, body: JsonObject) -> JsonObject:
        """Start or join a remote game (docs/remote.md, "From the page"): the lobby checks
        the request and answers at once; a refusal (ValueError: a bad code; RuntimeError:
        one is already under way) is the page's error and changes nothing."""
        handler = self.remote_handler
        if handler is None:
            raise ApiError(
                HTTPStatus.CONFLICT, "remote: no game is played from this page (a plain zuni play starts remote games)"
            )
        try:
            return handler(body)
        except ValueError as exc:
            raise ApiError(HTTPStatus.BAD_REQUEST, str(exc)) from None
        except RuntimeError as exc:
            raise ApiError(HTTPStatus.CONFLICT, str(exc)) from None


class SimController:
    """The world, the control channel and the state the page shows; thread-safe.

    Every hand action checks the world first (so a refused action changes nothing),
    then tells the board, then updates the world."""

    def __init__(
        self,
        connect: Callable[[float], ControlClient],
        ruleset: str,
        link: str = "",
        alive: Callable[[], bool] | None = None,
    ) -> None:
        self.connect = connect
        self.alive = alive
        self.control = connect(REPLY_TIMEOUT_S)
        self.ruleset = str(zuni.new_game(ruleset).ruleset)
        self.link = link
        self.lock = threading.RLock()
        self.changed = threading.Condition()
        self.seq = 0
        self.last_error = ""
        self.board = board_description(self.ruleset, self.control.layout)
        if self.control.points and sorted(self.control.points) != sorted(self.board["names"]):
            self.control.close()
            raise ValueError(
                "ruleset %s does not fit the virtual board's layout %s (%d points)"
                % (self.ruleset, self.control.layout, len(self.control.points))
            )
        self._homes = World.home_points(self.ruleset)
        # A "set up the position" click goes on by itself through a staged setup: the
        # side whose pieces the page last put down, until the board leaves its setup.
        self.setup_done_side: str | None = None
        # What a host program in the same process shows on the page beside the board
        # (``publish``): e.g. "replay", the replay's moves, current move and analysis.
        self.extras: dict[str, object] = {}
        # Where the page's typed lines and remote-game requests go (``PageInput``).
        self.input = PageInput()
        self._hint: dict[str, tuple[str, str]] = {}
        # The game and rules the firmware last reported (its state): the page follows a new
        # game on the board, not a mere difference (a person sets up other rules before a
        # host's new game of them reaches the firmware, or with no host at all).
        self._board_game: tuple[str, str] | None = None
        # Disks stand where the sensors see magnets (the start position's disks where
        # they fit); the rest of the set lies in the tray.
        self.world = World.for_ruleset(self.ruleset, on_board=False)
        self.world.narrator.fetch_moves = self._board_moves
        self._hint = self.world.start_hint(self.ruleset)
        self.follow()
        self._stop = False
        self.reconnects = 0
        self._pump = BoardPump(self)
        self.control.on_change = self._pump.wake
        self._pump.start()

    # -- following the board ------------------------------------------------------
    def _board_moves(self) -> list[str] | None:
        """The board's game's moves (the virtual board's ``moves?``), None if it cannot say."""
        try:
            reply = self.control.command("moves?")
        except ControlError:
            return None
        moves = reply.get("moves")
        return [str(m) for m in moves] if isinstance(moves, list) else None

    def _adopt(self, ruleset: str) -> None:
        """Play ``ruleset`` from now on (same board): its title, its disks, its start position."""
        self.ruleset = str(zuni.new_game(ruleset).ruleset)
        self.board = board_description(self.ruleset, self.control.layout)
        self._homes = World.home_points(self.ruleset)
        self._hint = self.world.start_hint(self.ruleset)
        self.world.restock(self.ruleset)

    def follow(self) -> None:
        """Sensor changes that did not come through this server move disks in the world;
        a new game of other rules on the board (where the firmware reports its state)
        brings its disks."""
        status = self.control.status
        reported = (str(status.get("game", "")), str(status["ruleset"])) if status and status.get("ruleset") else None
        if reported is not None and reported != self._board_game:
            self._board_game = reported
            try:
                if str(zuni.new_game(reported[1]).ruleset) != self.ruleset:
                    self._adopt(reported[1])
                # Disks appearing take the sides of the game's start: a position's when
                # the board was set up from one (its staged setup places one side at a time).
                self._hint = self.world.start_hint(self.ruleset, str((status or {}).get("position", "")))
            except (zuni.ZuniError, ValueError):
                pass  # rules this host does not know: keep drawing the board as it is
        sensed = list(self.control.occupied)
        mine = self.world.occupied()
        if sensed != mine:
            emptied = [p for p in mine if p not in sensed]
            filled = [p for p in sensed if p not in mine]
            self.world.follow(emptied, filled, self._hint, self._homes, time.monotonic())

    def bump(self) -> None:
        with self.changed:
            self.seq += 1
            self.changed.notify_all()

    def publish(self, name: str, value: object) -> None:
        """Shows ``value`` (JSON data) as ``name`` in the page's state (None removes it)."""
        with self.lock:
            if value is None:
                self.extras.pop(name, None)
            else:
                self.extras[name] = value
        self.bump()

    def wait_change(self, seq: int, timeout: float) -> int:
        """Block until the state is newer than ``seq`` (or ``timeout``); the current seq."""
        with self.changed:
            if self.seq == seq and not self._stop:
                self.changed.wait(timeout)
            return self.seq

    def close(self) -> None:
        self._stop = True
        self._pump.stop()
        with self.changed:
            self.changed.notify_all()
        self.control.close()

    # -- state --------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        with self.lock:
            # The frame lists the points in the firmware's order (its hello says which).
            names = self.control.points or self.board["names"]
            frame = self.control.frame
            leds = {name: "#" + (frame[6 * i : 6 * i + 6] or "000000") for i, name in enumerate(names)}
            state: dict[str, Any] = {
                "seq": self.seq,
                "connected": not self.control.closed,
                "layout": self.control.layout,
                "ruleset": self.ruleset,
                "title": self.board["title"],
                "link": self.link,
                "leds": leds,
                "sensors": list(self.control.occupied),
                "stable": self.control.stable,
                "board": self.control.status,
                "play": self.world.narrate(self.control.status),
                "last_error": self.last_error,
                "lines": self.input.line_handler is not None,
                "remote_start": self.input.remote_handler is not None,
            }
            extras = dict(self.extras)
            # A game controller's view (``zuni play``) is the game itself; the narrator's
            # guesses from the board's reports fill in what it does not say.
            state["play"].update(extras.pop("game", None) or {})
            if not (self.control.status or {}).get("error"):
                state["play"]["refusal"] = ""  # put right on the board: nothing refused now
            # Each disk drawn in the colour of the side whose piece it is in the game.
            self.world.settle(state["play"].get("disks"))
            state.update(self.world.as_json())
            state.update(extras)
            return state

    # -- the hand -----------------------------------------------------------------
    def _tell(self, line: str) -> None:
        try:
            self.control.command(line)
        except ControlError as exc:
            raise ApiError(HTTPStatus.SERVICE_UNAVAILABLE, str(exc))

    def _act(self, what: str, action: Callable[[], ApiReply | None]) -> ApiReply:
        with self.lock:
            try:
                result = action()
            except WorldError as exc:
                self.last_error = "%s: %s" % (what, exc)
                self.bump()
                status = HTTPStatus.BAD_REQUEST if isinstance(exc, UnknownPoint) else HTTPStatus.CONFLICT
                raise ApiError(status, "%s: %s" % (what, exc))
            self.last_error = ""
        self.bump()
        reply: ApiReply = {"ok": True}
        reply.update(result or {})
        return reply

    def lift(self, point: str) -> ApiReply:
        def do() -> ApiReply:
            self.world.can_lift(point)
            self._tell("lift " + point)
            piece = self.world.lift(point)
            return {"piece": piece.as_json()}

        return self._act("lift " + point, do)

    def place(self, point: str, piece_id: int | None = None) -> ApiReply:
        def do() -> ApiReply:
            self.world.can_place(point, piece_id)
            self._tell("place " + point)
            piece = self.world.place(point, piece_id)
            return {"piece": piece.as_json()}

        return self._act("place " + point, do)

    def discard(self, piece_id: int | None = None) -> ApiReply:
        return self._act("discard", lambda: {"piece": self.world.discard(piece_id).as_json()})

    def take(self, side: str | None, kind: str | None, piece_id: int | None) -> ApiReply:
        return self._act("take", lambda: {"piece": self.world.take(side, kind, piece_id).as_json()})

    def move(self, origin: str, dest: str) -> ApiReply:
        """Lift the disk on ``origin`` and put it on ``dest`` (both checked first)."""

        def do() -> ApiReply:
            self.world.can_lift(origin)
            if dest != origin:
                self.world.check_empty(dest)
            lifted = self.lift(origin)
            return self.place(dest, lifted["piece"]["id"])

        return self._act("move %s %s" % (origin, dest), do)

    def remove(self, point: str) -> ApiReply:
        """Lift the disk on ``point`` and lay it in the tray (taking a captured piece off)."""

        def do() -> ApiReply:
            lifted = self.lift(point)
            self.world.discard(lifted["piece"]["id"])
            return lifted

        return self._act("remove " + point, do)

    def press(self, button: str) -> ApiReply:
        if button not in BUTTONS:
            raise ApiError(HTTPStatus.BAD_REQUEST, "press: unknown button %r (allowed: ok, back, hint)" % (button,))
        return self._told("press " + button)

    def fault(self, on: bool) -> ApiReply:
        """The LED supply switch's ~FAULT line pulled low (``on``) or let go: the board
        trips after its blanking time and says so in its state (``board.fault``)."""
        return self._told("fault on" if on else "fault off")

    def _told(self, line: str) -> ApiReply:
        """Tell the board ``line`` (a button, a fault: nothing in the world changes)."""
        with self.lock:
            self._tell(line)
        self.bump()
        return {"ok": True}

    def setup(self, ruleset: str | None = None) -> ApiReply:
        """Put every disk where ``ruleset``'s start position (default: the current one)
        wants it: wrong disks to the tray, missing ones from the tray. The board sees one
        lift of all disks to clear, then one place of all disks to put (two hands)."""
        if ruleset is not None:
            check_fits(ruleset, self.board["names"], self.control.layout)
        staged = False
        with self.lock:
            if ruleset is not None:
                self._adopt(ruleset)
            world = self.world
            for piece in list(world.hand):
                world.discard(piece.id)
            world.restock(self.ruleset)
            wanted = None if ruleset is not None else position_wanted(self.control, world, self.extras)
            want = None
            if wanted is not None:
                want, staged = wanted
            clear, put = world.setup_plan(self.ruleset, want)
            if clear:
                self._tell("lift " + " ".join(clear))
                for point in clear:
                    world.lift(point)
                    world.discard()
            if put:
                self._tell("place " + " ".join(p for p, _, _ in put))
                for point, side, kind in put:
                    world.take(side, kind)
                    world.place(point)
            self.last_error = ""
        if staged:
            # One side set up: OK asks the board for the next (as a person presses it);
            # the pump puts the next side down when the board asks for it.
            self.setup_done_side = str((self.control.status or {}).get("setup", ""))
            with contextlib.suppress(ApiError):
                self.press("ok")
        self.bump()
        return {"ok": True, "cleared": clear, "placed": [p for p, _, _ in put], "staged": staged}


def check_fits(ruleset: str, names: list[str], layout: str) -> None:
    """ApiError unless ``ruleset`` is known and played on the board of ``names``."""
    try:
        game = zuni.new_game(ruleset)
    except (zuni.ZuniError, ValueError) as exc:
        raise ApiError(HTTPStatus.BAD_REQUEST, "setup: %s" % exc)
    if sorted(game.geometry.names) != sorted(names):
        raise ApiError(HTTPStatus.BAD_REQUEST, "setup: %s needs another board than %s" % (game.ruleset, layout))


def position_wanted(
    control: ControlClient, world: World, extras: dict[str, object]
) -> tuple[dict[str, tuple[str, str]], bool] | None:
    """While the board waits to be set up for a game (a position, or moves made), the
    disks it wants now: the game's, those of the sides up to the one a staged setup
    asks for (the switches cannot tell the sides apart, so the board takes one side at
    a time); and whether it is staged. None: the board wants the rules' start."""
    status = control.status or {}
    if status.get("phase") != "setup":
        return None
    view = dict(world.narrate(status))
    game = extras.get("game")
    if isinstance(game, dict):  # a game controller's view (``zuni play``): the game itself
        view.update(game)
    disks = view.get("disks")
    if not disks or (not status.get("position") and not int(status.get("moves", 0) or 0)):
        return None
    stage = str(status.get("setup", ""))
    sides = zuni.SIDE_NAMES[: zuni.SIDE_NAMES.index(stage) + 1] if stage in zuni.SIDE_NAMES else zuni.SIDE_NAMES
    want = {str(p): (str(sk[0]), str(sk[1])) for p, sk in disks.items() if str(sk[0]) in sides}
    return want, stage in zuni.SIDE_NAMES


class BoardPump:
    """The thread that keeps a ``SimController`` in step with the virtual board: woken by
    each change on the control channel, it follows the board into the world, goes on with
    a staged setup and wakes the page; it connects again when the board restarts."""

    def __init__(self, sim: SimController) -> None:
        self._sim = sim
        self._stopped = False
        self._events = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="zuni-web-pump", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self._stopped = True
        self._events.set()

    def wake(self, event: str) -> None:
        # Called from the control client's reader thread: never block it (a command
        # waiting for its reply holds the controller's lock), so just wake the pump.
        self._events.set()

    def _loop(self) -> None:
        while not self._stopped:
            self._events.wait(1.0)
            if self._stopped:
                break
            if self._sim.control.closed:
                self._sim.bump()  # the page shows the board stopped
                self._reconnect()
                if self._sim.control.closed:
                    return  # gave up: the page keeps saying the board stopped
                continue
            if not self._events.is_set():
                continue
            self._events.clear()
            with self._sim.lock:
                self._sim.follow()
            self._continue_setup()
            self._sim.bump()

    def _continue_setup(self) -> None:
        """After one "set up the position" action, each side the board asks for next is
        put down too (the board takes one side at a time, as its switches cannot tell the
        sides apart): one click sets up the whole position."""
        done = self._sim.setup_done_side
        if done is None:
            return
        status = self._sim.control.status or {}
        stage = str(status.get("setup", ""))
        if status.get("phase") != "setup" or stage not in zuni.SIDE_NAMES:
            self._sim.setup_done_side = None  # set up (or the game moved on): nothing to do
        elif stage != done:
            with contextlib.suppress(ApiError):
                self._sim.setup()

    def _reconnect(self) -> None:
        """The virtual board restarted (a power cycle) or stopped: connect again when it is back."""
        delay = 0.05
        dead_since = None
        while not self._stopped:
            time.sleep(delay)
            if self._sim.alive is not None and not self._sim.alive():
                # Down for good (closed, not restarting): stop knocking on its port.
                dead_since = dead_since or time.monotonic()
                if time.monotonic() - dead_since > GIVE_UP_S:
                    return
                continue
            dead_since = None
            try:
                # A dying process may still accept on its old port and never say hello:
                # do not wait long for it (a live board says hello at once).
                control = self._sim.connect(RECONNECT_HELLO_S)
            except (ControlError, OSError):
                delay = min(0.5, delay * 2)
                continue
            with self._sim.lock:
                self._sim.control = control
                control.on_change = self.wake
                self._sim.reconnects += 1
                self._sim.follow()
            self._events.set()
            self._sim.bump()
            return


class _Handler(BaseHTTPRequestHandler):
    server: _HttpServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    # -- responses ----------------------------------------------------------------
    def _send(self, status: HTTPStatus, body: bytes, ctype: str, cache: bool = False, close: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=60" if cache else "no-store")
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, obj: object, status: HTTPStatus = HTTPStatus.OK) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json")

    def _error(self, status: HTTPStatus, message: str) -> None:
        self._json({"ok": False, "error": message}, status)

    def _refuse(self, message: str) -> None:
        # 403, and the connection is not reused: an unread request body would be read as the next request.
        body = json.dumps({"ok": False, "error": message}).encode()
        self._send(HTTPStatus.FORBIDDEN, body, "application/json", close=True)

    def _host_ok(self) -> bool:
        refusal = self.server.guard.host_refusal(self.headers.get("Host"))
        if refusal is not None:
            self._refuse(refusal)
            return False
        return True

    # -- GET ----------------------------------------------------------------------
    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        if not self._host_ok():
            return
        path = urlsplit(self.path).path
        sim = self.server.sim
        if path == "/api/state":
            self._json(sim.state())
        elif path == "/api/board":
            self._json(sim.board)
        elif path == "/api/events":
            self._events()
        elif path == "/favicon.ico":
            self._static("favicon.svg")
        elif path in ("/", "/index.html"):
            self._static("index.html")
        elif path.startswith("/static/"):
            self._static(path[len("/static/") :])
        else:
            self._error(HTTPStatus.NOT_FOUND, "no such page: %s" % path)

    def _static(self, name: str) -> None:
        if "/" in name or name.startswith(".") or "." not in name:
            self._error(HTTPStatus.NOT_FOUND, "no such file: %s" % name)
            return
        ctype = STATIC_TYPES.get(name[name.rindex(".") :])
        resource = resources.files("zuniboard.web").joinpath("static", name)
        if ctype is None or not resource.is_file():
            self._error(HTTPStatus.NOT_FOUND, "no such file: %s" % name)
            return
        self._send(HTTPStatus.OK, resource.read_bytes(), ctype)

    def _events(self) -> None:
        """Server-sent events: a ``state`` event now and after every change."""
        sim = self.server.sim
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        seq = -1
        last_beat = time.monotonic()
        try:
            while not self.server.stopping:
                now_seq = sim.wait_change(seq, 1.0)
                if self.server.stopping:
                    break
                if now_seq != seq:
                    seq = now_seq
                    data = json.dumps(sim.state())
                    self.wfile.write(("event: state\ndata: %s\n\n" % data).encode())
                    self.wfile.flush()
                    last_beat = time.monotonic()
                elif time.monotonic() - last_beat > SSE_HEARTBEAT_S:
                    self.wfile.write(b": still here\n\n")  # finds a closed page; proxies keep it open
                    self.wfile.flush()
                    last_beat = time.monotonic()
        except (BrokenPipeError, ConnectionResetError):
            pass

    # -- POST ---------------------------------------------------------------------
    def do_POST(self) -> None:
        if not self._host_ok():
            return
        path = urlsplit(self.path).path
        h = self.headers
        refusal = self.server.guard.post_refusal(
            "POST " + path, h.get("Host", ""), h.get("Origin"), h.get("Referer"), h.get("Content-Type")
        )
        if refusal is not None:
            self._refuse(refusal)
            return
        try:
            body = self._body()
            result = self._api(path, body)
        except ApiError as exc:
            self._error(exc.status, str(exc))
            return
        self._json(result)

    def _body(self) -> JsonObject:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise ApiError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "request body over %d bytes" % MAX_BODY)
        raw = self.rfile.read(length) if length else b""
        if not raw.strip():
            return {}
        try:
            body = json.loads(raw)
        except ValueError as exc:
            raise ApiError(HTTPStatus.BAD_REQUEST, "the body is not JSON: %s" % exc)
        if not isinstance(body, dict):
            raise ApiError(HTTPStatus.BAD_REQUEST, "the body must be a JSON object, not %s" % type(body).__name__)
        return {str(key): value for key, value in body.items()}  # (JSON keys are strings)

    def _api(self, path: str, body: JsonObject) -> ApiReply | JsonObject:
        sim = self.server.sim
        if path == "/api/lift":
            return sim.lift(_text(body, "point"))
        if path == "/api/place":
            return sim.place(_text(body, "point"), _int_or_none(body, "piece"))
        if path == "/api/discard":
            return sim.discard(_int_or_none(body, "piece"))
        if path == "/api/take":
            return sim.take(_text_or_none(body, "side"), _text_or_none(body, "kind"), _int_or_none(body, "piece"))
        if path == "/api/move":
            return sim.move(_text(body, "from"), _text(body, "to"))
        if path == "/api/remove":
            return sim.remove(_text(body, "point"))
        if path == "/api/press":
            return sim.press(_text(body, "button"))
        if path == "/api/fault":
            on = body.get("on")
            if not isinstance(on, bool):
                raise ApiError(HTTPStatus.BAD_REQUEST, "'on': expected true or false, got %r" % (on,))
            return sim.fault(on)
        if path == "/api/setup":
            return sim.setup(_text_or_none(body, "ruleset"))
        if path == "/api/line":
            return sim.input.line(_text(body, "text"))
        if path == "/api/remote":
            return sim.input.remote(body)
        raise ApiError(HTTPStatus.NOT_FOUND, "no such API call: POST %s" % path)


def _text(body: JsonObject, key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value:
        raise ApiError(HTTPStatus.BAD_REQUEST, "%r: expected a non-empty string, got %r" % (key, value))
    return value


def _text_or_none(body: JsonObject, key: str) -> str | None:
    return None if body.get(key) is None else _text(body, key)


def _int_or_none(body: JsonObject, key: str) -> int | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise ApiError(HTTPStatus.BAD_REQUEST, "%r: expected a disk id (an integer), got %r" % (key, value))
    return value


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], sim: SimController, verbose: bool = False) -> None:
        self.sim = sim
        self.verbose = verbose
        self.stopping = False
        super().__init__(address, _Handler)
        self.guard = RequestGuard(address[0], self.server_address[1])


class WebServer:
    """The page's server, running in a background thread until ``close()``."""

    def __init__(self, sim: SimController, port: int = 0, host: str = "127.0.0.1", verbose: bool = False) -> None:
        self.sim = sim
        loopback_only(host)
        try:
            self.httpd = _HttpServer((host, port), sim, verbose)
        except OSError as exc:
            raise OSError("cannot serve the page on %s:%d: %s" % (host, port, exc.strerror or exc))
        self.port: int = self.httpd.server_address[1]
        self.url = "http://%s:%d/" % (host, self.port)
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="zuni-web", daemon=True
        )
        self.thread.start()

    @classmethod
    def start(
        cls, board: Any, port: int = 0, ruleset: str | None = None, link: str | None = None, verbose: bool = False
    ) -> WebServer:
        """Serve the page of a running virtual board: a ``zuniboard.virtual.board.VirtualBoard``
        (followed across its restarts) or the TCP port of its control channel."""
        alive: Callable[[], bool] | None = None
        if isinstance(board, int):
            control_port = board

            def connect(timeout: float) -> ControlClient:
                return ControlClient.connect(control_port, timeout=timeout)

        else:
            vb = board

            def connect(timeout: float) -> ControlClient:
                return ControlClient.connect(vb.control_port, timeout=timeout)

            ruleset = ruleset or getattr(vb, "ruleset", None) or vb.layout.rulesets[0]
            if hasattr(vb, "alive"):

                def board_alive() -> bool:
                    return bool(vb.alive)

                alive = board_alive

            link = link if link is not None else getattr(vb, "port_path", "")
        if ruleset is None:
            raise ValueError("start a page for a control port with the ruleset in play (e.g. 'mosona')")
        sim = SimController(connect, ruleset, link or "", alive)
        try:
            return cls(sim, port, verbose=verbose)
        except Exception:
            sim.close()
            raise

    def open_browser(self) -> bool:
        return webbrowser.open(self.url)

    def close(self) -> None:
        self.httpd.stopping = True
        self.sim.close()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> WebServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
