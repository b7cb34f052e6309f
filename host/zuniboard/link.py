"""The host side of the board link (docs/protocol.md): ``BoardLink``.

>>> link = BoardLink.open("auto")            # or "/dev/ttyACM0", "socket://host:7777", a pty path
>>> link.wait_synced(5.0)
>>> link.moves                               # the board's game, mirrored
['s3xm4-m5']
>>> event = link.events.get(timeout=60)      # LinkEvent("move", index=1, text="m6-m5"), ...
>>> link.host_move("n4xm5-s4")               # raises BoardError if the board refuses it

A background thread owns the serial port: it says hello, fetches what the host lacks,
acknowledges moves, sends a keep-alive, and reopens the port by itself after an
unplug, a board reset or silence. The mirror of the game (``game``, ``moves``) changes
only in that thread, by these rules (the digest is a CRC chain over the move texts):

- a move with the next index whose digest continues ours is appended (event "move");
- a move we already hold (same index and digest) is a duplicate: dropped;
- a move at a lower index that continues our shorter prefix means the board took moves
  back and played another: ours are cut there (event "undo") and it is appended;
- a move beyond the next index, or a count/digest we cannot match, makes us ask the
  board for the moves we lack (``moves <n>``), or all of them after a divergence
  (event "reset").

So consumers of ``events`` see every move once, in order, with take-backs explicit.
"""

from __future__ import annotations

import contextlib
import queue
import random
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

# No stubs for pyserial in the venv; should types-pyserial be installed, the ignores are silent.
import serial  # type: ignore[import-untyped, unused-ignore]
from serial.tools import list_ports  # type: ignore[import-untyped, unused-ignore]

from zuniboard import __version__
from zuniboard.paths import FIRMWARE_LIB

if str(FIRMWARE_LIB) not in sys.path:
    # zuni_link is firmware (the board runs the same codec), not an installed package.
    sys.path.append(str(FIRMWARE_LIB))

from zuni_link import codec
from zuni_link.codec import FrameError

BAUD = 115200  # USB CDC ignores it; it must just never be 1200 (that reboots a Pico into its bootloader)
PICO_VID = 0x2E8A
PICO_PID = 0x0005
HELLO_RESEND_S = 0.5  # no hello reply: say it again
HELLO_TRIES = 6  # then reopen the port
REQUEST_RESEND_S = 0.5  # no reply to a request: send it again (the board does it once)
REQUEST_TIMEOUT_S = 5.0
KEEPALIVE_S = 1.5  # an ack as keep-alive (the board stops resending after 6 s of silence)
SILENCE_S = 8.0  # nothing heard for this long: reopen (the board beats every 2 s; 3 beats late is busy, not gone)
FETCH_RETRY_S = 1.0  # do not ask for the same moves again sooner
REOPEN_S = (0.05, 0.1, 0.2, 0.5, 1.0)  # back-off between attempts to reopen the port


class SerialPort(Protocol):
    """What BoardLink needs of a port (pyserial's Serial, or a test double)."""

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes) -> int | None: ...

    def close(self) -> None: ...


class LinkError(Exception):
    """The link could not do what was asked: no board, no reply in time, closed."""


class BoardError(LinkError):
    """The board refused a request: ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__("board refused (%s): %s" % (code, message))
        self.code = code
        self.message = message


@dataclass(frozen=True)
class LinkEvent:
    """Something that happened on the link, in order.

    kinds: "move" (index, text), "undo" (index = moves left), "reset" (the mirror was
    cleared: a new game or a divergence; text = game id), "connected" (text = url),
    "disconnected" (text = why), "boardreset" (text = new boot id), "linkerror" (the
    board could not read a line from us; text = "code message"), "console" (a line that is not
    a frame: MicroPython output), "state" (the board sent its state on its own: a new game,
    a take-back, the end, setup done; text = its phase, the whole state in ``info``), and
    the board's own events: "button", "over", "raw", "sensed", "ledwalk", ...
    """

    kind: str
    text: str = ""
    index: int = -1


@dataclass
class _Waiter:
    event: threading.Event = field(default_factory=threading.Event)
    verb: str = ""
    body: str = ""


@dataclass
class LinkStats:
    frames_in: int = 0
    frames_out: int = 0
    bad_frames: int = 0
    duplicates: int = 0
    fetches: int = 0
    reconnects: int = 0
    resends: int = 0
    already_done: int = 0  # requests found done by the board (its state) before a resend


def _kv_after_re(body: str) -> tuple[int, str]:
    """``ok``/``err`` bodies start with the request's sequence number."""
    head, _, rest = body.partition(" ")
    return codec.parse_index(head, "reply sequence number"), rest


def _ended_by(termination: str) -> Callable[[dict[str, str]], bool]:
    """For a resend check: the game is over, ended this way."""

    def done(state: dict[str, str]) -> bool:
        return state.get("phase") == "over" and state.get("termination") == termination

    return done


def discover(timeout: float = 1.0) -> list[str]:
    """Device paths of boards: USB 2E8A:0005 ports that answer hello."""
    found = []
    for info in list_ports.comports():
        if info.vid != PICO_VID or info.pid != PICO_PID:
            continue
        try:
            port: SerialPort = serial.serial_for_url(info.device, baudrate=BAUD, timeout=0.05)
            try:
                if _says_hello(port, timeout):
                    found.append(info.device)
            finally:
                port.close()
        except (OSError, serial.SerialException):
            continue
    return found


def _says_hello(port: SerialPort, timeout: float) -> bool:
    port.write(codec.encode(1, "hello", "proto=%d host=zuni/%s" % (codec.PROTO, __version__)))
    asm = codec.LineAssembler()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        data = port.read(256)
        pos = 0
        while pos < len(data):
            pos = asm.push(data, pos, len(data))
            if asm.ready == codec.LINE:
                try:
                    _, verb, _, _ = codec.decode(asm.line())
                except FrameError:
                    continue
                if verb in ("hello", "err"):
                    return True
    return False


class BoardLink:
    """A connection to one board that keeps itself up. Use ``BoardLink.open(url)``."""

    def __init__(
        self,
        url: str = "auto",
        *,
        on_event: Callable[[LinkEvent], None] | None = None,
        opener: Callable[[str], SerialPort] | None = None,
    ) -> None:
        self.url = url
        self.on_event = on_event
        self._opener = opener or self._default_opener
        self.events: queue.Queue[LinkEvent] = queue.Queue()
        self.stats = LinkStats()
        self.hello: dict[str, str] = {}  # the board's last hello
        self.info: dict[str, str] = {}  # the board's last state
        self.console: deque[str] = deque(maxlen=200)
        self.game = ""
        self.ruleset = ""
        self._moves: list[str] = []
        self._digests: list[int] = [codec.digest_seed("")]
        self._board_triple: tuple[str, int, int] | None = None  # the board's last word on its game
        self._lock = threading.RLock()  # mirror, waiters, sequence numbers
        self._wlock = threading.Lock()  # serial writes
        self._cond = threading.Condition(self._lock)
        self._port: SerialPort | None = None
        self._connected = False
        self._need_hello = False
        self._closed = False
        self._seq = random.randint(1, codec.MAX_SEQ)
        self._waiters: dict[int, _Waiter] = {}
        self._ack_due = False
        self._fetch: tuple[int, float] | None = None  # (from index, when asked)
        self._boot = ""
        self._epoch = 0  # counts registrations (hello replies): a new one after a reconnect or reset
        self.silence_s = SILENCE_S  # tests shorten it
        self._thread = threading.Thread(target=self._run, name="zuni-link", daemon=True)

    # --- opening and closing ------------------------------------------------------------

    @classmethod
    def open(
        cls,
        url: str = "auto",
        timeout: float = 5.0,
        on_event: Callable[[LinkEvent], None] | None = None,
    ) -> BoardLink:
        """Connects and waits for the first hello; LinkError if no board answers in time."""
        link = cls(url, on_event=on_event)
        link.start()
        if not link.wait_connected(timeout):
            link.close()
            raise LinkError("no board answered hello on %s within %.1f s" % (url, timeout))
        return link

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._cond.notify_all()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=2.0)
        self._drop_port("closed")

    def __enter__(self) -> BoardLink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _default_opener(self, url: str) -> SerialPort:
        if url == "auto":
            found = discover()
            if not found:
                raise LinkError("no board found (USB %04X:%04X answering hello)" % (PICO_VID, PICO_PID))
            url = found[0]
        assert BAUD != 1200  # 1200 baud reboots a Pico into its bootloader
        port: SerialPort = serial.serial_for_url(url, baudrate=BAUD, timeout=0.05, write_timeout=1.0)
        return port

    # --- what the companion uses --------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def board_id(self) -> str:
        """The board's unique id from its hello (``id``: a Pico's ``machine.unique_id()``
        in hex, a virtual board's from its flash image); "" if it sends none."""
        with self._lock:
            return self.hello.get("id", "")

    @property
    def moves(self) -> list[str]:
        with self._lock:
            return list(self._moves)

    def wait_connected(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._lock:
            while not self._connected and not self._closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return self._connected

    def synced(self) -> bool:
        """True when the mirror matches the board's last word (hello, beat, reply)."""
        with self._lock:
            t = self._board_triple
            n = len(self._moves)
            return t is not None and t[0] == self.game and t[1] == n and t[2] == self._digests[n]

    def wait_synced(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._lock:
            while not (self._connected and self.synced()):
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    return False
                self._cond.wait(left)
            return True

    def wait_moves(self, count: int, timeout: float) -> bool:
        """Waits until the mirror holds at least ``count`` moves."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while len(self._moves) < count:
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    return False
                self._cond.wait(left)
            return True

    def ping(self, timeout: float = REQUEST_TIMEOUT_S) -> float:
        """Round-trip time of one request in seconds."""
        start = time.monotonic()
        self._request("ping", "", timeout)
        return time.monotonic() - start

    def state(self, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """The board's whole state: game, ruleset, moves, digest, phase, turn, ..."""
        verb, body = self._request("state", "", timeout)
        info: dict[str, str] = codec.kv_decode(body)
        return info

    def new_game(self, ruleset: str, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        with self._lock:
            game = self.game

        def done(state: dict[str, str]) -> bool:
            return state.get("game", game) != game and state.get("moves") == "0"

        result = self._command("new", ruleset, timeout, done)
        self.state(timeout)  # the new game's ruleset and phase
        return result

    def take_back(self, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        done: Callable[[dict[str, str]], bool] | None = None
        with self._lock:
            n = len(self._moves)
            if self.synced() and n > 0:
                game = self.game
                before = codec.hex8(self._digests[n - 1])

                def done(state: dict[str, str]) -> bool:
                    return (state.get("game"), state.get("moves"), state.get("digest")) == (game, str(n - 1), before)

        return self._command("takeback", "", timeout, done)

    def host_move(self, text: str, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Shows the computer's move on the board; the player carries it out."""
        return self._command("hostmove", text, timeout)

    def hint(self, text: str = "", timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Shows a suggested move ("" clears it)."""
        return self._command("hint", text, timeout)

    def led_test(self, timeout: float = REQUEST_TIMEOUT_S, walk_ms: int | None = None) -> dict[str, str]:
        """Every LED red, green, blue, white; with ``walk_ms``: one LED at a time in chain
        order, ``walk_ms`` each, each step an event "ledwalk" (``<LED index> <point>``)."""
        return self._command("ledtest", "" if walk_ms is None else "walk %d" % walk_ms, timeout)

    def raw(self, on: bool, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """Raw sensor view: the board sends "raw" events with every sensed change."""
        return self._command("raw", "on" if on else "off", timeout)

    def resign(self, side: str, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        return self._command("resign", side, timeout, _ended_by("resign"))

    def agree(self, what: str, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """``what``: "draw" or "count"."""
        return self._command("agree", what, timeout, _ended_by("agreed-" + what))

    def press_ok(self, timeout: float = REQUEST_TIMEOUT_S) -> dict[str, str]:
        """The OK button, from the PC."""
        return self._command("button", "ok", timeout)

    def send_raw_line(self, line: bytes) -> None:
        """Writes bytes as they are (diagnostics and tests: garbage, hand-made frames)."""
        self._write(line)

    # --- requests -----------------------------------------------------------------------

    def _command(
        self, verb: str, arg: str, timeout: float, done: Callable[[dict[str, str]], bool] | None = None
    ) -> dict[str, str]:
        _, body = self._request(verb, arg, timeout, done)
        _, rest = _kv_after_re(body)
        result: dict[str, str] = codec.kv_decode(rest)
        return result

    def _next_seq(self) -> int:
        with self._lock:
            self._seq = codec.next_seq(self._seq)
            return self._seq

    def _request(
        self, verb: str, body: str, timeout: float, done: Callable[[dict[str, str]], bool] | None = None
    ) -> tuple[str, str]:
        """Sends a request until its reply comes; the board does it only once (it
        remembers the last request). Returns (verb, body) of the reply.

        A board reset makes it forget: so when the link registered again since the last
        send, ``done(state)`` first asks the board's state whether the request was done
        already (its reply lost), and then it is not sent again."""
        deadline = time.monotonic() + timeout
        seq = self._next_seq()
        waiter = _Waiter()
        with self._lock:
            self._waiters[seq] = waiter
        try:
            epoch = -1  # the registration it was last sent in
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not self.wait_connected(left):
                    raise LinkError("no reply to %s within %.1f s" % (verb, timeout))
                if epoch >= 0:
                    self.stats.resends += 1
                    if done is not None and epoch != self._epoch:
                        state = self.state(left)
                        if done(state):
                            self.stats.already_done += 1
                            return "ok", "%d game=%s moves=%s digest=%s" % (
                                seq,
                                codec.esc(state.get("game", "")),
                                state.get("moves", ""),
                                state.get("digest", ""),
                            )
                if not waiter.event.is_set():  # (a reply may have come during the check)
                    epoch = self._epoch
                    with contextlib.suppress(OSError, serial.SerialException, LinkError):
                        self._write(codec.encode(seq, verb, body))
                    left = deadline - time.monotonic()
                    if not waiter.event.wait(max(0.0, min(REQUEST_RESEND_S, left))):
                        continue
                if waiter.verb == "err":
                    _, rest = _kv_after_re(waiter.body)
                    code, _, message = rest.partition(" ")
                    if code == codec.E_HELLO:
                        # The board was reset and forgot us: hello again, then retry.
                        waiter.event.clear()
                        with self._lock:
                            self._need_hello = True
                            self._connected = False
                        continue
                    raise BoardError(code, message)
                return waiter.verb, waiter.body
        finally:
            with self._lock:
                self._waiters.pop(seq, None)

    def _write(self, data: bytes) -> None:
        with self._wlock:
            port = self._port
            if port is None:
                raise LinkError("not connected")
            port.write(data)
            self.stats.frames_out += 1

    def _send(self, verb: str, body: str = "") -> None:
        """Fire and forget, from the link thread (a lost one is asked again later)."""
        with contextlib.suppress(OSError, serial.SerialException, LinkError):
            self._write(codec.encode(self._next_seq(), verb, body))

    # --- the link thread ----------------------------------------------------------------

    def _emit(self, event: LinkEvent) -> None:
        self.events.put(event)
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception as exc:  # a consumer's bug must not stop the link
                self.console.append("on_event failed: %r" % exc)

    def _drop_port(self, why: str) -> None:
        with self._wlock:
            port = self._port
            self._port = None
        if port is not None:
            with contextlib.suppress(Exception):
                port.close()
        with self._lock:
            was = self._connected
            self._connected = False
            self._cond.notify_all()
        if was:
            self._emit(LinkEvent("disconnected", why))

    def _run(self) -> None:
        attempt = 0
        while not self._closed:
            try:
                port = self._opener(self.url)
            except (OSError, serial.SerialException, LinkError, ValueError) as exc:
                self.console.append("open %s: %s" % (self.url, exc))
                time.sleep(REOPEN_S[min(attempt, len(REOPEN_S) - 1)])
                attempt += 1
                continue
            with self._wlock:
                self._port = port
            try:
                self._converse(port)
                attempt = 0
            except (OSError, serial.SerialException, LinkError) as exc:
                self._drop_port(str(exc) or type(exc).__name__)
                time.sleep(REOPEN_S[min(attempt, len(REOPEN_S) - 1)])
                attempt += 1
            else:
                self._drop_port("closed")
            self.stats.reconnects += 1

    def _converse(self, port: SerialPort) -> None:
        """One connection: hello, then read, answer and keep alive until it fails."""
        asm = codec.LineAssembler()
        with self._lock:
            self._need_hello = True
        hello_at = 0.0
        hello_tries = 0
        last_in = time.monotonic()
        keepalive_at = time.monotonic() + KEEPALIVE_S
        while not self._closed:
            now = time.monotonic()
            if self._need_hello and now >= hello_at:
                if hello_tries >= HELLO_TRIES:
                    raise LinkError("no hello from the board after %d tries" % hello_tries)
                hello_tries += 1
                hello_at = now + HELLO_RESEND_S
                self._send("hello", "proto=%d host=zuni/%s" % (codec.PROTO, __version__))
            if self._connected and now >= keepalive_at:
                keepalive_at = now + KEEPALIVE_S
                self._ack_due = True
            if self._connected and now - last_in > self.silence_s:
                raise LinkError("the board went silent for %.1f s" % self.silence_s)
            data = port.read(max(1, min(4096, port.in_waiting)))
            if data:
                last_in = time.monotonic()
                pos = 0
                while pos < len(data):
                    pos = asm.push(data, pos, len(data))
                    if asm.ready == codec.LINE:
                        self._on_line(bytes(asm.line()))
                    elif asm.ready != codec.NONE:
                        self.stats.bad_frames += 1
                if not self._need_hello:
                    hello_tries = 0
            if self._ack_due and self._connected:
                self._ack_due = False
                with self._lock:
                    n = len(self._moves)
                    body = "%s %d %s" % (codec.esc(self.game), n, codec.hex8(self._digests[n]))
                self._send("ack", body)

    def _on_line(self, line: bytes) -> None:
        if not line.startswith(b"~"):
            text = line.decode("ascii", "replace")
            self.console.append(text)
            self._emit(LinkEvent("console", text))
            return
        try:
            seq, verb, body, checked = codec.decode(line)
        except FrameError:
            self.stats.bad_frames += 1
            return
        if not checked:  # the board always sends checksums: a placeholder is corruption
            self.stats.bad_frames += 1
            return
        self.stats.frames_in += 1
        try:
            self._on_frame(verb, body)
        except FrameError:
            self.stats.bad_frames += 1

    def _on_frame(self, verb: str, body: str) -> None:
        if verb == "move":
            t = codec.tokens(body)
            if len(t) != 4:
                raise FrameError(codec.E_ARGS, "move needs 4 fields")
            self._on_move(codec.unesc(t[0]), codec.parse_index(t[1], "index"), codec.unesc(t[2]), t[3])
        elif verb == "beat":
            t = codec.tokens(body)
            if len(t) != 3:
                raise FrameError(codec.E_ARGS, "beat needs 3 fields")
            self._reconcile(codec.unesc(t[0]), codec.parse_index(t[1], "moves"), codec.parse_digest(t[2]))
        elif verb == "hello":
            self._on_hello(codec.kv_decode(body))
        elif verb == "state":
            kv = codec.kv_decode(body)
            with self._lock:
                self.info = kv
            self._reconcile_kv(kv)
            if kv.get("re", "0") == "0":
                # Unsolicited: a new game, a take-back, the end, setup done. ``info``
                # holds it all; the event says the phase.
                self._emit(LinkEvent("state", kv.get("phase", "")))
            self._reply(kv.get("re", "0"), verb, body)
        elif verb in ("ok", "err"):
            re, rest = _kv_after_re(body)
            if verb == "ok":
                self._reconcile_kv(codec.kv_decode(rest))
            elif re == 0:
                self._emit(LinkEvent("linkerror", rest))
            self._reply(str(re), verb, body)
        elif verb == "event":
            kind, _, text = body.partition(" ")
            self._emit(LinkEvent(codec.unesc(kind), text))
        # Unknown verbs from a newer board are ignored (forward compatible).

    def _reply(self, re: str, verb: str, body: str) -> None:
        if not re.isdigit():
            return
        with self._lock:
            waiter = self._waiters.get(int(re))
        if waiter is not None and not waiter.event.is_set():
            waiter.verb = verb
            waiter.body = body
            waiter.event.set()

    def _on_hello(self, kv: dict[str, str]) -> None:
        if kv.get("proto") != str(codec.PROTO):
            self.console.append("board speaks protocol %s, we speak %d" % (kv.get("proto"), codec.PROTO))
            return
        boot = kv.get("boot", "")
        if boot != self._boot:
            if self._boot:
                self._emit(LinkEvent("boardreset", boot))
            self._boot = boot
        with self._lock:
            self.hello = kv
            self.ruleset = kv.get("ruleset", self.ruleset)
        if kv.get("re", "0") == "0":
            # Unsolicited: the board (re)booted and does not know us. Register again.
            with self._lock:
                self._need_hello = True
            return
        self._reply(kv.get("re", "0"), "hello", "")
        with self._lock:
            newly = not self._connected
            self._need_hello = False
            self._connected = True
            self._epoch += 1
            self._cond.notify_all()
        if newly:
            self._emit(LinkEvent("connected", self.url))
        self._reconcile_kv(kv)

    # --- keeping the mirror ----------------------------------------------------------------

    def _reconcile_kv(self, kv: dict[str, str]) -> None:
        if "game" in kv and "moves" in kv and "digest" in kv:
            self._reconcile(kv["game"], codec.parse_index(kv["moves"], "moves"), codec.parse_digest(kv["digest"]))
        if "ruleset" in kv:
            with self._lock:
                self.ruleset = kv["ruleset"]

    def _reset(self, game: str) -> None:
        """Forget the mirror (lock held): a new game, or histories that diverged."""
        self.game = game
        self._moves = []
        self._digests = [codec.digest_seed(game)]
        self._fetch = None
        self._emit(LinkEvent("reset", game))

    def _ask_moves(self, start: int) -> None:
        """Asks for the moves from ``start`` unless just asked (lock held)."""
        now = time.monotonic()
        if self._fetch is not None and self._fetch[0] == start and now - self._fetch[1] < FETCH_RETRY_S:
            return
        self._fetch = (start, now)
        self.stats.fetches += 1
        self._send("moves", str(start))

    def _reconcile(self, game: str, n: int, digest: int) -> None:
        """The board says: game ``game`` has ``n`` moves with this digest."""
        with self._lock:
            self._board_triple = (game, n, digest)
            if game != self.game:
                self._reset(game)
                self._send("state")  # its ruleset
            have = len(self._moves)
            if n <= have and self._digests[n] == digest:
                if n < have:
                    self._cut(n)
                self._ack_due = True
            elif n > have:
                self._ask_moves(have)
            else:
                self._reset(game)
                self._ask_moves(0)
            self._cond.notify_all()

    def _cut(self, n: int) -> None:
        del self._moves[n:]
        del self._digests[n + 1 :]
        self._emit(LinkEvent("undo", "", n))

    def _on_move(self, game: str, index: int, text: str, digest_hex: str) -> None:
        digest = codec.parse_digest(digest_hex)
        with self._lock:
            if game != self.game:
                self._reset(game)
            have = len(self._moves)
            if index > have:
                self._ask_moves(have)  # a gap: something was lost
            elif index < have and self._digests[index + 1] == digest:
                self.stats.duplicates += 1
                self._ack_due = True
            elif codec.digest_step(self._digests[index], text) == digest:
                if index < have:
                    self._cut(index)  # the board took moves back and played another
                self._moves.append(text)
                self._digests.append(digest)
                self._ack_due = True
                if self._fetch is not None and self._fetch[0] <= index:
                    self._fetch = None
                self._emit(LinkEvent("move", text, index))
            else:
                # Our earlier moves are not the board's: start again from its first.
                self._reset(game)
                self._ask_moves(0)
            self._cond.notify_all()
