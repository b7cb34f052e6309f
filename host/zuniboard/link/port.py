"""The transport under the board link: ``LinkPort`` owns the serial port.

One thread opens the port by URL (``serial.serial_for_url``: a device path, ``socket://``,
a pty; "auto" finds a Pico that answers hello), reads it, cuts the bytes into lines and
hands each line to its ``LinkHandler``; on an error (unplugged, a board reset that makes
the device vanish) it drops the port and opens it again with back-off. Any thread may
write. It knows nothing of frames or games: ``zuniboard.link.client.BoardLink`` does.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time
from collections.abc import Callable
from typing import Protocol

# No stubs for pyserial in the venv; should types-pyserial be installed, the ignores are silent.
import serial
from serial.tools import list_ports

from zuni_link import codec
from zuni_link.codec import FrameError
from zuniboard import __version__
from zuniboard.link.timers import LinkTimers

BAUD = 115200  # USB CDC ignores it; it must just never be 1200 (that reboots a Pico into its bootloader)
PICO_VID = 0x2E8A
PICO_PID = 0x0005
REOPEN_S = LinkTimers.reopen_s  # back-off between attempts to reopen the port


Clock = Callable[[], float]  # seconds, only ever compared with itself (time.monotonic)
TICK_S = 0.05  # the longest the port thread waits before it calls the handler again


class LinkError(Exception):
    """The link could not do what was asked: no board, no reply in time, closed."""


class SerialPort(Protocol):
    """What the link needs of a port (pyserial's Serial, or a test double)."""

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes) -> int | None: ...

    def close(self) -> None: ...


class LinkHandler(Protocol):
    """What LinkPort calls, from its thread, with the time its loop read (``now``, in
    seconds of the link's clock): the handler never reads a clock itself."""

    def opened(self, now: float) -> None:
        """A port was opened (a new connection)."""

    def line(self, line: bytes, now: float) -> None:
        """One line from the port, line end removed."""

    def idle(self, now: float) -> None:
        """Called between reads (about every 50 ms); raise LinkError to drop the port."""

    def closed_tick(self, now: float) -> None:
        """Called while no port is open (between attempts to open one)."""

    def dropped(self, why: str) -> None:
        """The port was closed (an error, or the link closing)."""


def discover(timeout: float = 1.0, clock: Clock = time.monotonic) -> list[str]:
    """Device paths of boards: USB 2E8A:0005 ports that answer hello."""
    found = []
    for info in list_ports.comports():
        if info.vid != PICO_VID or info.pid != PICO_PID:
            continue
        try:
            port: SerialPort = serial.serial_for_url(info.device, baudrate=BAUD, timeout=0.05)
            try:
                if _says_hello(port, timeout, clock):
                    found.append(info.device)
            finally:
                port.close()
        except (OSError, serial.SerialException):
            continue
    return found


def _says_hello(port: SerialPort, timeout: float, clock: Clock) -> bool:
    port.write(codec.encode(1, "hello", "proto=%d host=zuni/%s" % (codec.PROTO, __version__)))
    asm = codec.LineAssembler()
    deadline = clock() + timeout
    while clock() < deadline:
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


def default_opener(url: str) -> SerialPort:
    if url == "auto":
        found = discover()
        if not found:
            raise LinkError("no board found (USB %04X:%04X answering hello)" % (PICO_VID, PICO_PID))
        url = found[0]
    assert BAUD != 1200  # 1200 baud reboots a Pico into its bootloader
    port: SerialPort = serial.serial_for_url(url, baudrate=BAUD, timeout=0.05, write_timeout=1.0)
    if url.startswith("socket://"):
        no_nagle(port)
        sock = getattr(port, "_socket", None)
        if isinstance(sock, socket.socket):
            return SocketURLPort(port, sock)
    return port


def no_nagle(port: object) -> None:
    """TCP_NODELAY on a ``socket://`` port (the virtual board where there are no ptys):
    with Nagle on, a frame written while an earlier one waits for its ACK is held until
    the board's delayed ACK (40 ms on Linux), so each request took 44 ms instead of 0.7.
    pyserial has no public name for the socket; without one nothing changes."""
    sock = getattr(port, "_socket", None)
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class SocketURLPort:
    """pyserial's ``socket://`` port with an ``in_waiting`` that counts: pyserial's says
    1 whenever the socket is readable, so the link read one byte per call (2 800 frames
    a second where a pty carries 12 000). This one peeks (MSG_PEEK, on every system) and
    leaves reading, writing and closing to pyserial's port."""

    def __init__(self, port: SerialPort, sock: socket.socket) -> None:
        self.port = port
        self.sock = sock

    @property
    def in_waiting(self) -> int:
        if not select.select([self.sock], [], [], 0)[0]:
            return 0
        try:
            return len(self.sock.recv(65536, socket.MSG_PEEK))
        except BlockingIOError:
            return 0
        except OSError as exc:  # reset: the read that follows says so as pyserial does
            raise serial.SerialException("socket: %s" % exc)

    def read(self, size: int = 1) -> bytes:
        data: bytes = self.port.read(size)
        return data

    def write(self, data: bytes) -> int | None:
        return self.port.write(data)

    def close(self) -> None:
        self.port.close()


class LinkPort:
    """The port and its reading thread. ``start()``, ``write(data)``, ``close()``.

    Its loop is the link's edge: the one place that reads the clock (``clock``, by default
    ``time.monotonic``), handing the time to the handler with every call."""

    def __init__(
        self,
        url: str,
        handler: LinkHandler,
        opener: Callable[[str], SerialPort] | None = None,
        clock: Clock = time.monotonic,
        reopen_s: tuple[float, ...] = REOPEN_S,
    ) -> None:
        self.url = url
        self.handler = handler
        self.reopen_s = reopen_s
        self.opener = opener or default_opener
        self.clock = clock
        self.console_log: Callable[[str], None] = lambda text: None
        self.reconnects = 0
        self.bad_lines = 0  # too long or with control bytes
        self.frames_out = 0
        self._port: SerialPort | None = None
        self._wlock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="zuni-link", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._closed = True
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=2.0)
        self._drop("closed")

    @property
    def closed(self) -> bool:
        return self._closed

    def attach(self, port: SerialPort, now: float) -> None:
        """Uses ``port`` as the open port (the thread does this on every open; a test
        that drives the handler by hand, without the thread, does it once)."""
        with self._wlock:
            self._port = port
        self.handler.opened(now)

    def write(self, data: bytes) -> None:
        """Writes one frame; LinkError when no port is open."""
        with self._wlock:
            port = self._port
            if port is None:
                raise LinkError("not connected")
            port.write(data)
            self.frames_out += 1

    def _drop(self, why: str) -> None:
        with self._wlock:
            port = self._port
            self._port = None
        if port is not None:
            with contextlib.suppress(Exception):
                port.close()
        self.handler.dropped(why)

    def _pause(self, attempt: int) -> None:
        """Waits before the next attempt to open, the handler ticking meanwhile (its
        requests end at their deadlines while the board is away)."""
        end = self.clock() + self.reopen_s[min(attempt, len(self.reopen_s) - 1)]
        while not self._closed:
            now = self.clock()
            self.handler.closed_tick(now)
            if now >= end:
                return
            time.sleep(min(TICK_S, end - now))

    def _run(self) -> None:
        attempt = 0
        while not self._closed:
            try:
                port = self.opener(self.url)
            except (OSError, serial.SerialException, LinkError, ValueError) as exc:
                self.console_log("open %s: %s" % (self.url, exc))
                self._pause(attempt)
                attempt += 1
                continue
            try:
                self.attach(port, self.clock())
                self._converse(port)
                attempt = 0
            except (OSError, serial.SerialException, LinkError) as exc:
                self._drop(str(exc) or type(exc).__name__)
                self._pause(attempt)
                attempt += 1
            else:
                self._drop("closed")
            self.reconnects += 1

    def _converse(self, port: SerialPort) -> None:
        asm = codec.LineAssembler()
        while not self._closed:
            self.handler.idle(self.clock())
            data = port.read(max(1, min(4096, port.in_waiting)))
            if not data:
                continue
            now = self.clock()
            pos = 0
            while pos < len(data):
                pos = asm.push(data, pos, len(data))
                if asm.ready == codec.LINE:
                    self.handler.line(bytes(asm.line()), now)
                elif asm.ready != codec.NONE:
                    self.bad_lines += 1
