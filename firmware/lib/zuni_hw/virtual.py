"""The virtual board's drivers (MicroPython unix port): the same firmware, without a board.

- ``VirtualSensors`` / ``VirtualButtons`` / ``VirtualLeds``: the hardware, as state that
  the **control channel** changes and reports.
- ``ControlServer``: TCP on 127.0.0.1:PORT, one command per line, replies and pushed
  events as one JSON object per line (see CONTROL below). Any number of clients (the
  test "hand", the browser simulator); a client that does not read is cut off when its
  bounded outbox overflows, so it never blocks the scan loop.
- ``open_link(spec)``: the link port on a pseudo-terminal: ``fd:N`` (an inherited pty
  fd the parent made O_NONBLOCK) or a pty path (raw mode, VMIN=0/VTIME=0 reads; writes
  one byte at a time after ``poll`` says writable, since a blocking pty write of n bytes
  waits until all n fit); or, where there are no ptys (Windows), ``tcp:PORT``: a
  ``SocketLink`` serving the link on 127.0.0.1:PORT (the host opens
  ``socket://127.0.0.1:PORT``).
- ``connect_lifeline("tcp:PORT:TOKEN")``: the host's lifeline as a socket (where a pipe
  cannot be polled).
- ``FileBlockDevice`` and ``mount_flash(image)``: a littlefs "flash" in an image file,
  mounted at ``/flash`` (formatted on first use), so the journal survives restarts.

CONTROL (client -> board, one line each; point names are the rules' names)::

    lift m5 [n4 ...]      magnets off these points       -> {"reply": "lift", "ok": true}
    place m5 [...]        magnets onto these points
    set m1 m2 ...         exactly these points occupied (none: an empty board)
    press ok|back|hint    one button press
    fault on|off          the LED supply switch's ~FAULT line low (an overload on the LED
                          line) or high again; the board trips after 50 ms low (zuni_hw.fault)
    sensors?              -> {"reply": "sensors", "ok": true, "occupied": ["m1", ...]}
    leds?                 -> {"reply": "leds", "ok": true, "frame": "rrggbb..."}
    stable?               -> {"reply": "stable", "ok": true, "occupied": [...] or null}
    hello?                -> the hello event again, as a reply
    stats?                -> loop figures: iterations, scans, busy_avg_us, busy_max_us, errors
    moves?                -> {"reply": "moves", "ok": true, "game": "...", "moves": ["s3xm4-m5", ...]}
    state?                -> the board application's state (as the link's state message):
                             {"reply": "state", "ok": true, "game": "...", "moves": 3,
                              "ruleset": "mosona", "phase": "play", "turn": "north",
                              "occupancy": "0110...", ["result", "termination",
                              "hostmove", "error"]}; {"ok": false, ...} without an app
    (an error)            -> {"reply": "lift", "ok": false, "error": "unknown point 'zz' ..."}

Events pushed to every client::

    {"event": "hello", "layout": "board25", "points": [...], "occupied": [...], "frame": "..."}
    {"event": "sensors", "occupied": [...], "changed": ["+m5", "-s3"]}   raw sensor changes
    {"event": "stable", "occupied": [...]}         the debounced position the app was given
    {"event": "leds", "frame": "rrggbb..."}        a new LED frame (per POINT, full scale)
    {"event": "state", "phase": "play", "turn": ..., "moves": ..., ...}
                                                   the app's state (as ``state?``) when it
                                                   changes: a move committed or taken back,
                                                   a new game, the phase, an error shown or
                                                   cleared, a host move asked (checked once a
                                                   loop iteration, a few attribute reads)

``occupancy`` in a state is the sensed position when the state was made; the ``stable``
event follows every change of it.

``frame`` is hex, 6 digits (r, g, b) per point in the order of ``points``.
"""

import json
import select
import socket  # type: ignore  # the unix port has it; the Pico stubs do not
import sys

try:
    import errno

    _EAGAIN = errno.EAGAIN
    # Windows' sockets say "would block" with their own number (WSAEWOULDBLOCK, 10035);
    # MicroPython's errno has no EWOULDBLOCK (on Linux it is EAGAIN anyway).
    _EWOULDBLOCK = getattr(errno, "EWOULDBLOCK", _EAGAIN)
except ImportError:  # pragma: no cover
    _EAGAIN = 11
    _EWOULDBLOCK = 11

LOOPBACK = "127.0.0.1"  # the link, the control channel and the lifeline: this computer only


def _would_block(e):
    return bool(e.args) and (e.args[0] == _EAGAIN or e.args[0] == _EWOULDBLOCK)


def listen_loopback(port, backlog):
    """A non-blocking socket listening on 127.0.0.1:PORT (OSError when it is taken)."""
    s = socket.socket()
    if sys.platform != "win32":
        # Rebind at once after a restart despite the old connections' TIME_WAIT. Not on
        # Windows: there SO_REUSEADDR would let another program bind the same port.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(socket.getaddrinfo(LOOPBACK, port)[0][-1])
    s.listen(backlog)
    s.setblocking(False)
    return s


OUTBOX_LIMIT = 256 * 1024  # bytes queued for one control client before it is cut off
LINE_LIMIT = 4096  # a control line longer than this is refused
BUTTONS = {"ok": 1, "back": 2, "hint": 4}
QUERIES = ("sensors?", "leds?", "stable?", "hello?", "stats?", "state?", "moves?")


def _hex(frame):
    out = []
    for b in frame:
        out.append("%02x" % b)
    return "".join(out)


class VirtualSensors:
    """Raw sensor state per SENSOR index (1 = magnet present); ``read()`` returns it."""

    def __init__(self, count):
        self.state = bytearray(count)

    def read(self):
        return self.state


class VirtualButtons:
    def __init__(self):
        self.pending = 0

    def press(self, bit):
        self.pending |= bit

    def read(self, now_ms=0):
        bits = self.pending
        self.pending = 0
        return bits


class VirtualLeds:
    """Keeps the last frame (per point, full scale); ``on_change(frame)`` is told of new ones."""

    def __init__(self, n_points, on_change=None):
        self.frame = bytearray(3 * n_points)
        self.on_change = on_change
        self.shows = 0

    def show(self, frame):
        self.shows += 1
        if frame == self.frame:
            return
        self.frame[:] = frame
        if self.on_change is not None:
            self.on_change(self.frame)


class _Client:
    def __init__(self, sock):
        self.sock = sock
        self.inbox = b""
        self.outbox = b""
        self.dead = False


def _readable(poller):
    """True when a registered socket can be read now (a server: a client is waiting)."""
    if poller is None:
        return False
    ipoll = getattr(poller, "ipoll", None)
    if ipoll is None:
        return bool(poller.poll(0))
    for _ in ipoll(0):  # no allocation per call on MicroPython
        return True
    return False


class StateSeen:
    """What the last ``state`` event showed, to push a new one only when it changes."""

    def __init__(self):
        self._game = None
        self._phase = -1
        self._moves = -1
        self._commits = -1
        self._error = False
        self._fault = ""
        self._host = None
        self._stage = -1

    def changed(self, app):
        """True (and it remembers them) if the app's game, phase, moves, commits, error
        shown, host move asked, staged side or fault differ from the last ones; called every
        loop iteration, so it only compares attributes (no allocation)."""
        game = app.game
        play = app.play
        moves = len(game.move_stack)
        staged = app.staged
        stage = -1 if staged is None else staged.stage  # a staged setup's side: the page says whose
        if (
            game is self._game
            and app.phase == self._phase
            and moves == self._moves
            and play.commits == self._commits
            and play.error_shown == self._error
            and play.host is self._host
            and stage == self._stage
            and app.fault == self._fault
        ):
            return False
        self._game = game
        self._phase = app.phase
        self._moves = moves
        self._commits = play.commits
        self._error = play.error_shown
        self._host = play.host
        self._stage = stage
        self._fault = app.fault
        return True


def _query(server, verb):
    """The answer to a query (``QUERIES``, no arguments) of the control channel."""
    if verb == "sensors?":
        return {"reply": verb, "ok": True, "occupied": server.occupied()}
    if verb == "leds?":
        return {"reply": verb, "ok": True, "frame": _hex(server.leds.frame)}
    if verb == "stable?":
        return {"reply": verb, "ok": True, "occupied": server.stable}
    if verb == "state?":
        d = server.app_state()
        d["reply"] = verb
        d["ok"] = True
        return d
    if verb == "moves?":
        # The board's game as move texts: a page that joins mid-game follows it from
        # here (allocates, but only when asked).
        app = server.app
        if app is None:
            raise ValueError("moves?: this board runs no board application")
        return {"reply": verb, "ok": True, "game": app.game_id, "moves": [m.text() for m in app.game.move_stack]}
    if verb == "stats?":
        d = server.stats() if server.stats is not None else {}
        d["reply"] = verb
        d["ok"] = True
        d["commands"] = server.commands
        d["clients"] = len(server.clients)
        return d
    d = server.hello()
    d["reply"] = verb
    d["ok"] = True
    return d


class ControlServer:
    """The control channel; ``poll()`` from the loop does all its I/O without blocking."""

    def __init__(self, port, layout_name, names, sensor_of, sensors, buttons, leds):
        self.layout_name = layout_name
        self.names = names
        self.index = {}
        for i in range(len(names)):
            self.index[names[i]] = i
        self.sensor_of = sensor_of
        self.sensors = sensors
        self.buttons = buttons
        self.leds = leds
        self.stable = None
        self.clients = []
        self.commands = 0
        self.stats = None  # callable -> dict of loop figures (main.py sets it)
        self.app = None  # the board application (main.py sets it): state? and state events
        self.flash_dev = None  # the flash's FileBlockDevice and mount point (main.py sets them)
        self.flash_dir = None  # type: str | None
        self.fault_pin = None  # the LED supply's ~FAULT line (zuni_hw.fault.FaultPin; main.py sets it)
        self._seen = StateSeen()  # what the last state event showed
        self.server = listen_loopback(port, 4)
        self.port = port
        # accept() only when the server is readable: a refused accept every loop
        # iteration would raise (and allocate) an OSError each time.
        self._pserver = select.poll()
        self._pserver.register(self.server, select.POLLIN)

    def close(self):
        for c in self.clients:
            c.sock.close()
        self.clients = []
        self.server.close()

    def register(self, poller):
        """Add the sockets to ``poller`` (for the loop's wait); call again after changes."""
        poller.register(self.server, select.POLLIN)
        for c in self.clients:
            poller.register(c.sock, select.POLLIN)

    # -- state the loop reports ------------------------------------------------------------
    def occupied(self):
        state = self.sensors.state
        return [self.names[p] for p in range(len(self.names)) if state[self.sensor_of[p]]]

    def leds_changed(self, frame):
        self._push({"event": "leds", "frame": _hex(frame)})

    def stable_changed(self, stable):
        self.stable = [self.names[p] for p in range(len(self.names)) if stable[p]]
        self._push({"event": "stable", "occupied": self.stable})

    def app_state(self):
        """``app.state_info()`` as JSON values (the occupancy bytes as a 0/1 string)."""
        app = self.app
        if app is None:
            raise ValueError("state?: this board runs no board application")
        info = app.state_info()
        occ = info.get("occupancy")
        if occ is not None and not isinstance(occ, str):
            info["occupancy"] = "".join(["1" if v else "0" for v in occ])
        return info

    def app_check(self):
        """Push a ``state`` event if the app's state changed since the last one; the loop
        calls it every iteration, so it only compares attributes (no allocation)."""
        app = self.app
        if app is None or not self.clients:
            return
        if not self._seen.changed(app):
            return
        d = self.app_state()
        d["event"] = "state"
        self._push(d)

    def hello(self):
        return {
            "event": "hello",
            "layout": self.layout_name,
            "points": list(self.names),
            "occupied": self.occupied(),
            "frame": _hex(self.leds.frame),
            "stable": self.stable,
        }

    # -- I/O ---------------------------------------------------------------------------
    def poll(self):
        """Accept, read and answer commands, write what the clients take. Returns True
        when the set of clients changed (the loop re-registers its poller)."""
        changed = self._accept()
        for c in self.clients:
            if not c.dead:
                self._read(c)
            if not c.dead:
                self._write(c)
        if any(c.dead for c in self.clients):
            for c in self.clients:
                if c.dead:
                    try:
                        c.sock.close()
                    except OSError:
                        pass
            self.clients = [c for c in self.clients if not c.dead]
            changed = True
        return changed

    def _accept(self):
        accepted = False
        while _readable(self._pserver):
            try:
                sock, _addr = self.server.accept()
            except OSError:
                return accepted
            sock.setblocking(False)
            c = _Client(sock)
            self.clients.append(c)
            self._send(c, self.hello())
            accepted = True
        return accepted

    def _read(self, c):
        while True:
            try:
                data = c.sock.recv(1024)
            except OSError as e:
                if _would_block(e):
                    break
                c.dead = True
                return
            if data is None:
                break  # MicroPython: nothing there on a non-blocking socket
            if not data:
                c.dead = True  # the client closed
                return
            c.inbox += data
            if len(data) < 1024:
                break
        while True:
            nl = c.inbox.find(b"\n")
            if nl < 0:
                if len(c.inbox) > LINE_LIMIT:
                    c.inbox = b""
                    self._send(c, {"reply": "?", "ok": False, "error": "line longer than %d bytes" % LINE_LIMIT})
                return
            line = c.inbox[:nl]
            c.inbox = c.inbox[nl + 1 :]
            try:
                text = line.decode().strip()
            except UnicodeError:
                self._send(c, {"reply": "?", "ok": False, "error": "control lines are UTF-8 text"})
                continue
            if text:
                self._send(c, self.command(text))

    def _write(self, c):
        while c.outbox:
            try:
                n = c.sock.send(c.outbox)
            except OSError as e:
                if _would_block(e):
                    return
                c.dead = True
                return
            if not n:
                return
            c.outbox = c.outbox[n:]

    def _send(self, c, obj):
        line = (json.dumps(obj) + "\n").encode()
        if len(c.outbox) + len(line) > OUTBOX_LIMIT:
            c.dead = True  # it stopped reading: cut it off rather than grow or block
            return
        c.outbox += line

    def _push(self, obj):
        for c in self.clients:
            if not c.dead:
                self._send(c, obj)

    # -- commands ----------------------------------------------------------------------
    def _points(self, verb, args):
        points = []
        for name in args:
            p = self.index.get(name)
            if p is None:
                raise ValueError(
                    "%s: unknown point %r (layout %s has %s ... %s)"
                    % (verb, name, self.layout_name, self.names[0], self.names[-1])
                )
            points.append(p)
        return points

    def command(self, text):
        """Do one control command; returns the reply (dict). Bad input changes nothing."""
        self.commands += 1
        words = text.split()
        verb = words[0]
        args = words[1:]
        try:
            return self._command(verb, args)
        except ValueError as e:
            return {"reply": verb, "ok": False, "error": str(e)}

    def _command(self, verb, args):
        if verb in ("lift", "place", "set"):
            points = self._points(verb, args)
            if verb != "set" and not points:
                raise ValueError("%s: name at least one point (e.g. %s %s)" % (verb, verb, self.names[0]))
            self._set_points(verb, points)
            return {"reply": verb, "ok": True}
        if verb == "press":
            if len(args) != 1 or args[0] not in BUTTONS:
                raise ValueError("press: expected one of ok, back, hint, got %r" % (" ".join(args),))
            self.buttons.press(BUTTONS[args[0]])
            return {"reply": verb, "ok": True}
        if verb == "flash":
            return self._flash(args)
        if verb == "fault":
            return self._fault(args)
        if verb not in QUERIES:
            raise ValueError(
                "unknown command %r (allowed: lift, place, set, press, flash, fault, %s)" % (verb, ", ".join(QUERIES))
            )
        if args:
            raise ValueError("%s takes no arguments" % verb)
        return _query(self, verb)

    def _fault(self, args):
        """``fault on|off``: pull the LED supply switch's ~FAULT line low (an overload on
        the LED line, as the TPS2553 reports it) or let it go high again."""
        if len(args) != 1 or args[0] not in ("on", "off"):
            raise ValueError("fault: expected on or off, got %r" % (" ".join(args),))
        if self.fault_pin is None:
            raise ValueError("fault: layout %s reads no ~FAULT line (no power.fault)" % self.layout_name)
        self.fault_pin.pull_low(args[0] == "on")
        return {"reply": "fault", "ok": True}

    def _flash(self, args):
        """``flash fill``: fill the littlefs with a file until it is full (ENOSPC), so the
        journal meets a really full flash; ``flash free``: delete that file again;
        ``flash stats``: the block device's reads, programs and erases so far."""
        dev = self.flash_dev
        if dev is None or self.flash_dir is None:
            raise ValueError("flash: this virtual board has no flash (start it with --flash IMAGE)")
        if args == ["fill"]:
            return {"reply": "flash", "ok": True, "filled": fill_flash(self.flash_dir)}
        if args == ["free"]:
            return {"reply": "flash", "ok": True, "freed": free_flash(self.flash_dir)}
        if args == ["stats"]:
            return {"reply": "flash", "ok": True, "reads": dev.reads, "writes": dev.writes, "erases": dev.erases}
        raise ValueError("flash takes fill, free or stats, not %r" % (" ".join(args),))

    def _set_points(self, verb, points):
        state = self.sensors.state
        sensor_of = self.sensor_of
        if verb == "set":
            want = bytearray(len(self.names))
            for p in points:
                want[p] = 1
        else:
            want = bytearray(len(self.names))
            for p in range(len(self.names)):
                want[p] = 1 if state[sensor_of[p]] else 0
            v = 1 if verb == "place" else 0
            for p in points:
                want[p] = v
        changed = []
        for p in range(len(self.names)):
            s = sensor_of[p]
            if (1 if state[s] else 0) != want[p]:
                state[s] = want[p]
                changed.append(("+" if want[p] else "-") + self.names[p])
        if changed:
            self._push({"event": "sensors", "occupied": self.occupied(), "changed": changed})


# -- the link on a loopback socket -----------------------------------------------------------


class SocketLink:
    """The link on 127.0.0.1:PORT (``--link tcp:PORT``), where there are no ptys (Windows):
    the host opens ``socket://127.0.0.1:PORT`` with pyserial as it opens a serial port.

    What ``BoardSession`` expects of a port (``read_into``, ``write``, never blocking),
    for one host at a time: a new connection replaces the old one (a host that reopens
    its port), a closed one is dropped, and while none is open what the board writes is
    dropped, as on a USB cable nobody listens to (the session resends what matters once
    a host says hello). The socket's own buffer is the output queue: ``write`` takes what
    fits now. ``generation`` grows whenever the connection changes, so that the loop's
    wait polls the new one (``register``)."""

    def __init__(self, port):
        self.server = listen_loopback(port, 2)
        self.port = port
        self.conn = None
        self._pin = None
        # accept() only when the server is readable: a refused accept every loop
        # iteration would raise (and allocate) an OSError each time.
        self._pserver = select.poll()
        self._pserver.register(self.server, select.POLLIN)
        self.generation = 0
        self.connections = 0  # hosts accepted so far
        self.dropped = 0  # bytes written while no host was connected
        self.errors = 0

    def register(self, poller):
        poller.register(self.server, select.POLLIN)
        if self.conn is not None:
            poller.register(self.conn, select.POLLIN)

    def _accept(self):
        while _readable(self._pserver):
            try:
                conn, _addr = self.server.accept()
            except OSError:
                return
            conn.setblocking(False)
            try:
                # No Nagle: a frame written in pieces would wait for the host's delayed ACK
                # (40 ms on Linux) before its second piece left. MicroPython's socket module
                # has no names for these: IPPROTO_TCP 6, TCP_NODELAY 1 (Linux, macOS, Windows).
                conn.setsockopt(getattr(socket, "IPPROTO_TCP", 6), getattr(socket, "TCP_NODELAY", 1), 1)
            except OSError:
                pass
            self._close_conn()
            self.conn = conn
            self._pin = select.poll()
            self._pin.register(conn, select.POLLIN)
            self.connections += 1
            self.generation += 1

    def _close_conn(self):
        if self.conn is not None:
            try:
                self.conn.close()
            except OSError:
                pass
            self.conn = None
            self._pin = None
            self.generation += 1

    def read_into(self, buf):
        """Bytes from the host now into ``buf``; 0 when there are none (or no host)."""
        self._accept()
        conn = self.conn
        if conn is None or not _readable(self._pin):
            return 0
        try:
            # MicroPython's sockets are streams (readinto); CPython's have recv_into.
            if hasattr(conn, "recv_into"):
                n = conn.recv_into(buf)
            else:
                n = conn.readinto(buf)
        except OSError as e:
            if _would_block(e):
                return 0
            self.errors += 1
            n = 0
        if n is None:
            return 0
        if not n:
            self._close_conn()  # readable with nothing to read: the host hung up
        return n

    def write(self, data):
        """Sends what the socket takes now; returns the bytes taken (all when no host)."""
        conn = self.conn
        if conn is None:
            self.dropped += len(data)
            return len(data)
        try:
            n = conn.send(data)
        except OSError as e:
            if _would_block(e):
                return 0
            self.errors += 1
            self._close_conn()
            self.dropped += len(data)
            return len(data)
        return n or 0

    def close(self):
        self._close_conn()
        self.server.close()


def connect_lifeline(spec):
    """The lifeline on a socket (``tcp:PORT:TOKEN``), where a pipe cannot be polled
    (Windows): connect to the host's 127.0.0.1:PORT and say TOKEN; the host holds the
    connection and never writes, so it becomes readable only when the host is gone (the
    system closes a dead process's sockets, however it died)."""
    parts = spec.split(":")
    if len(parts) != 3 or parts[0] != "tcp" or not parts[2]:
        raise ValueError("--lifeline %s: expected FD or tcp:PORT:TOKEN" % spec)
    try:
        port = int(parts[1])
    except ValueError:
        raise ValueError("--lifeline %s: expected FD or tcp:PORT:TOKEN" % spec)
    s = socket.socket()
    s.connect(socket.getaddrinfo(LOOPBACK, port)[0][-1])
    s.send((parts[2] + "\n").encode())
    s.setblocking(False)
    return s


# -- the link on a pseudo-terminal ---------------------------------------------------------


def open_link(spec):
    """``SocketLink`` on ``tcp:PORT``; ``StreamPort`` on ``fd:N`` (inherited, O_NONBLOCK)
    or a pty path."""
    from zuni_hw.port import StreamPort

    if spec.startswith("tcp:"):
        try:
            port = int(spec[4:])
        except ValueError:
            port = -1
        if port < 1 or port > 65535:
            raise ValueError("--link %s: expected tcp:PORT (1..65535)" % spec)
        return SocketLink(port)
    if spec.startswith("fd:"):
        try:
            fd = int(spec[3:])
        except ValueError:
            raise ValueError("--link %s: expected fd:NUMBER or a pty path" % spec)
        f = open(fd, "rb+")
        return StreamPort(f, f, select, True, 4096, 4096)
    import termios  # type: ignore

    f = open(spec, "rb+")
    fd = f.fileno()
    termios.setraw(fd)
    attrs = termios.tcgetattr(fd)
    attrs[6][6] = 0  # VMIN (Linux index; MicroPython's termios has no names): reads return at once
    attrs[6][5] = 0  # VTIME
    termios.tcsetattr(fd, termios.TCSANOW, attrs)
    return StreamPort(f, f, select, False, 4096, 1024)


# -- the flash ----------------------------------------------------------------------------------


class FileBlockDevice:
    """A block device over an image file, for ``vfs.VfsLfs2`` (the extended interface:
    littlefs reads and writes at offsets within a block and erases through ioctl 6).

    A new image is filled with 0xFF, like erased flash. Each write goes straight to the
    file (the unix port's files are unbuffered), so a killed process keeps every block
    it wrote: littlefs's own copy-on-write makes the filesystem survive that."""

    def __init__(self, path, block_size=4096, block_count=64):
        self.block_size = block_size
        self.block_count = block_count
        size = block_size * block_count
        try:
            f = open(path, "r+b")
            f.seek(0, 2)
            have = f.tell()
            if have != size:
                f.close()
                raise ValueError(
                    "flash image %s has %d bytes; expected %d (%d blocks of %d)"
                    % (path, have, size, block_count, block_size)
                )
        except OSError:
            f = open(path, "w+b")
            blank = b"\xff" * block_size
            for _ in range(block_count):
                f.write(blank)
        self.f = f
        self._blank = b"\xff" * block_size  # an erased block (made once: no 4 KB per erase)
        # What littlefs and the journal's flash log asked of the flash: on a Pico each
        # program and each erase stalls the whole chip (the code runs from that flash),
        # so the benchmark counts them, and the bytes programmed.
        self.reads = 0
        self.writes = 0
        self.erases = 0
        self.written = 0

    def readblocks(self, block, buf, offset=0):
        self.f.seek(block * self.block_size + offset)
        self.f.readinto(buf)
        self.reads += 1

    def writeblocks(self, block, buf, offset=0):
        self.f.seek(block * self.block_size + offset)
        self.f.write(buf)
        self.writes += 1
        self.written += len(buf)

    def ioctl(self, op, arg):
        if op == 4:  # block count
            return self.block_count
        if op == 5:  # block size
            return self.block_size
        if op == 6:  # erase: back to 0xFF, as on the chip (the journal's flash log relies on it)
            self.f.seek(arg * self.block_size)
            self.f.write(self._blank)
            self.erases += 1
            return 0
        if op == 3:  # sync
            return 0
        return 0


def mount_flash(image, mountpoint="/flash", block_count=64):
    """Mount the image's littlefs at ``mountpoint``, formatting a new or blank image."""
    import vfs

    dev = FileBlockDevice(image, 4096, block_count)
    # As the rp2 port mounts the Pico's flash (its modules/_boot.py): programs in 256-byte
    # pages, the flash chip's page size, so littlefs does as many flash operations here
    # as on the board.
    try:
        fs = vfs.VfsLfs2(dev, progsize=256)  # type: ignore  # the stubs want an AbstractBlockDev subclass
    except OSError:
        vfs.VfsLfs2.mkfs(dev, progsize=256)  # type: ignore
        fs = vfs.VfsLfs2(dev, progsize=256)  # type: ignore  # the stubs want an AbstractBlockDev subclass
    vfs.mount(fs, mountpoint)
    return dev


FILLER = "filler"


def fill_flash(mountpoint="/flash"):
    """Fill the flash until littlefs refuses more (ENOSPC); returns the bytes written.

    Files of ever smaller sizes, each written whole and closed (a write counts only once
    its close committed it: littlefs drops what a failed close could not write), then
    empty files until the directory's metadata has no room either, so that even a small
    journal record finds none."""
    n = 0
    names = 0
    for size in (16384, 4096, 512, 64, 8, 1, 0):
        chunk = b"\xa5" * size
        while names < 4096:
            try:
                f = open("%s/%s%d" % (mountpoint, FILLER, names), "wb")
                try:
                    f.write(chunk)
                finally:
                    f.close()
            except OSError:
                break
            names += 1
            n += size
    return n


def free_flash(mountpoint="/flash"):
    """Delete the filler file; True if there was one."""
    import os

    found = False
    for name in os.listdir(mountpoint):
        if name.startswith(FILLER):
            os.remove(mountpoint + "/" + name)
            found = True
    return found


BOARD_ID_FILE = "board_id"


def flash_board_id(mountpoint="/flash"):
    """The virtual board's unique id, kept in a file on its flash: made at first boot
    (``virtual-`` and 16 random hex digits, as long as a Pico's ``unique_id``) and read
    back at every later boot, so the host's log names the same board for as long as the
    flash image lives. A damaged file is replaced."""
    import os

    path = mountpoint + "/" + BOARD_ID_FILE
    try:
        with open(path) as f:
            text = f.read().strip()
        if text.startswith("virtual-") and len(text) == 24:
            return text
    except OSError:
        pass
    raw = os.urandom(8)
    text = "virtual-" + "".join(["%02x" % b for b in raw])
    with open(path, "w") as f:
        f.write(text + "\n")
    return text


def log(text):
    """A line for whoever started the virtual board (stderr: stdout gets tracebacks)."""
    sys.stderr.write("zuni-virtual: %s\n" % text)
