"""The board side of the link: ``BoardSession`` (docs/protocol.md).

``session.poll(now_ms)`` does all the I/O from the scan loop and never blocks: it reads
what the port has (at most RX_CHUNK bytes), answers, and writes what the port takes.
Output waits in one bounded queue (QUEUE_BYTES) in which diagnostics go first when it is
full. Moves are reliable: kept until the host acknowledges them and resent every
RESEND_MS while a host is there; a host that missed them (queue overflow, absence,
restart) fetches them with ``moves``, since the truth is the app's move list.

Every report of the game (hello, state, ok, beat, move) carries the **history version**
``hv`` with the game id, move count and digest: the app's counter of history cuts
(take-backs and new games), kept in its journal. The host cuts its copy of the history
only on a report with a higher version, so a report that was made before a move and
reaches the host after it (a heartbeat queued behind the move) takes nothing back.

The app provides ``hello_info()``, ``state_info()`` (dicts; ``state_info()["hv"]``: the
history version), ``moves_from(index)`` (move texts) and ``command(verb, body)``
(dispatched from ``zuni_link.commands``; raises ValueError(message) to refuse); it calls
``send_move``, ``send_event`` and ``send_state``.
"""

from micropython import const
from zuni_link import codec, commands
from zuni_link.codec import (
    E_ARGS,
    E_CHANGED,
    E_GARBAGE,
    E_HELLO,
    E_ILLEGAL,
    E_INTERNAL,
    E_READONLY,
    E_TOOLONG,
    E_VERSION,
    MAX_LINE,
    PROTO,
    FrameError,
    digest_seed,
    digest_step,
    encode,
    esc,
    hex8,
    kv_decode,
    kv_encode,
    next_seq,
    snippet,
)
from zuni_link.commands import GAME, LINK, READONLY

try:
    from time import ticks_add, ticks_diff
except ImportError:  # CPython (host-side tests): the same arithmetic as the Pico's
    _PERIOD = const(1 << 30)

    def ticks_diff(a, b):  # type: ignore
        d = (a - b) & (_PERIOD - 1)
        return d - _PERIOD if d >= _PERIOD // 2 else d

    def ticks_add(a, b):  # type: ignore
        return (a + b) & (_PERIOD - 1)


RX_CHUNK = const(128)  # bytes read per poll: a flood of input cannot stall the scan loop
QUEUE_BYTES = const(3072)  # all queued output
LO_BYTES = const(768)  # of which diagnostics (raw sensor events, heartbeats, garbage errors)
MAX_PENDING = const(32)  # unacknowledged moves kept for resending; older ones the host fetches
RESEND_MS = const(1000)
BEAT_MS = const(2000)
HOST_TIMEOUT_MS = const(6000)  # no valid frame for this long: the host is away, stop resending
STREAM_ROOM = const(600)  # a `moves` stream leaves this much queue room for other replies
# A `moves` reply goes out a few frames a poll, its texts asked of the app a few at a time:
# on the chip a 400-ply reply made in one scan took 671 ms before its first frame and
# left the heap in pieces (docs/firmware-timing.md).
STREAM_FRAMES = const(4)
STREAM_CHUNK = const(8)

# Event kinds that are diagnostics: dropped first when the queue is full.
DIAG_KINDS = ("raw", "sensor", "diag", "debug")


def _boot_id():
    try:
        import os

        b = os.urandom(3)
        return "%02x%02x%02x" % (b[0], b[1], b[2])
    except Exception:  # no urandom: the clock is still unlikely to repeat
        import time

        return "%06x" % (int(time.time()) & 0xFFFFFF)


def _printable(text, limit=200):
    """Free text for an `err` or `event` line: printable ASCII, bounded length."""
    out = []
    for c in str(text)[:limit]:
        out.append(c if " " <= c <= "~" else "?")
    return "".join(out)


def _value(v):
    """A state/hello value as text: occupancy bytes as a string of 0 and 1."""
    if isinstance(v, (bytes, bytearray)):
        return "".join(["1" if b else "0" for b in v])
    if isinstance(v, bool):
        return "1" if v else "0"
    if v is None:
        return ""
    if isinstance(v, (list, tuple)):
        return ",".join([str(x) for x in v])
    return str(v)


class OutQueue:
    """The session's output: one bounded queue (QUEUE_BYTES) of whole frames, numbered as
    they are made, where diagnostics (LO_BYTES of it at most) go first when it is full;
    ``flush(port)`` writes what the port takes, one frame at a time, never interleaved.

    Counters: ``tx_frames`` written, ``dropped`` (frames dropped from the full queue)."""

    def __init__(self):
        self._hi = []  # type: list
        self._lo = []  # type: list
        self.queued = 0  # bytes waiting (the frame being written not counted)
        self._lo_queued = 0
        self._cur = None  # the frame being written (never interleaved with another)
        self._off = 0
        self._seq = 0
        self.boot_hello = None  # type: bytes | None  # the boot hello while still queued
        self.tx_frames = 0
        self.dropped = 0

    def clear(self):
        """A new conversation: output queued for an earlier host is stale. The boot hello
        not yet written stays: it is news of a reset, not stale output."""
        boot = self.boot_hello
        if boot is not None and boot in self._hi:
            self._hi = [boot]
            self.queued = len(boot)
        else:
            self._hi = []
            self.queued = 0
        self._lo = []
        self._lo_queued = 0

    def out(self, verb, body, hi):
        """Queue one frame (``hi``: a reply, move or event that is not a diagnostic)."""
        self._seq = next_seq(self._seq)
        try:
            line = encode(self._seq, verb, body)
        except FrameError as e:
            line = encode(self._seq, "err", "0 %s %s" % (E_INTERNAL, _printable(e.message)))
        self._enqueue(line, hi)
        return line

    def _enqueue(self, line, hi):
        size = len(line)
        if hi:
            lo = self._lo
            while self.queued + size > QUEUE_BYTES and lo:
                dropped = lo.pop(0)
                self.queued -= len(dropped)
                self._lo_queued -= len(dropped)
                self.dropped += 1
            if self.queued + size > QUEUE_BYTES:
                self.dropped += 1  # moves are resent, replies re-asked: nothing is lost for good
                return False
            self._hi.append(line)
        else:
            if self.queued + size > QUEUE_BYTES or self._lo_queued + size > LO_BYTES:
                self.dropped += 1
                return False
            self._lo.append(line)
            self._lo_queued += size
        self.queued += size
        return True

    def flush(self, port):
        for _ in range(8):
            cur = self._cur
            if cur is None:
                if self._hi:
                    cur = self._hi.pop(0)
                elif self._lo:
                    cur = self._lo.pop(0)
                    self._lo_queued -= len(cur)
                else:
                    return
                self.queued -= len(cur)
                self._cur = cur
                self._off = 0
                if cur == self.boot_hello:
                    self.boot_hello = None  # on its way: a host's hello no longer clears it
            off = self._off
            try:
                n = port.write(cur if off == 0 else memoryview(cur)[off:])
            except OSError:
                n = 0
            if not n:
                return
            off += n
            if off >= len(cur):
                self._cur = None
                self.tx_frames += 1
            else:
                self._off = off
                return


class History:
    """The game's history as the host is told it: the digest chain of the app's game
    (``digests[n]``: the digest after n moves of ``game``), the moves sent and not yet
    acknowledged (``pending``: [index, text, digest, times]) and the history version ``hv``
    (the app's, else counted here). The methods that change it return True when the
    history was cut (another game, a take-back): a `moves` reply under way is then void."""

    def __init__(self):
        self.game = None  # type: str | None
        self.digests = []  # type: list
        self.pending = []  # type: list
        self.hv = 0
        self._app_hv = False  # the app keeps the history version (state_info()["hv"])

    def moves(self):
        return len(self.digests) - 1

    def sync(self, app):
        """Brings the digest chain up to the app's game: new game, take-back, resume."""
        info = app.state_info()
        game = str(info.get("game", ""))
        moves = info.get("moves")
        if moves is None:
            n = len(app.moves_from(0))
        else:
            n = int(moves)
        cut = False
        if game != self.game:
            self.game = game
            self.digests = [digest_seed(game)]
            self.pending = []
            cut = True
        digests = self.digests
        if n + 1 < len(digests):
            self.truncate(n)
            cut = True
        if n + 1 > len(digests):
            for text in app.moves_from(len(digests) - 1):
                digests.append(digest_step(digests[-1], text))
        hv = info.get("hv")
        if hv is not None:
            self._app_hv = True
            self.hv = int(hv)
        elif cut:
            self.hv += 1  # an app without a version of its own (RAM only)
        return cut

    def record(self, index, text, times, app):
        """Move ``index`` committed (the chain has its predecessor): its digest, and True
        if it replaced a later history (take-back, then another move)."""
        digests = self.digests
        d = digest_step(digests[index], text)
        cut = False
        if index + 1 < len(digests):
            if index + 2 != len(digests) or digests[index + 1] != d:
                self.truncate(index)
                cut = True
                digests.append(d)
                if self._app_hv:
                    self.hv = int(app.state_info()["hv"])
        else:
            digests.append(d)
        pending = self.pending
        while pending and pending[-1][0] >= index:
            pending.pop()
        pending.append([index, text, d, times])
        if len(pending) > MAX_PENDING:
            pending.pop(0)  # the host fetches it with `moves` (it sees the gap)
        return d, cut

    def truncate(self, n):
        """The history now has only n moves (take-back)."""
        del self.digests[n + 1 :]
        pending = self.pending
        while pending and pending[-1][0] >= n:
            pending.pop()

    def ack(self, game, n, d):
        # Only an ack of our own history counts (a stale one, from before a take-back
        # or of another game, releases nothing).
        if game != self.game or n >= len(self.digests) or self.digests[n] != d:
            return
        pending = self.pending
        while pending and pending[0][0] < n:
            pending.pop(0)

    def times_of(self, index):
        """The times of move ``index`` if it is still pending (a `moves` reply), else None."""
        for p in self.pending:
            if p[0] == index:
                return p[3]
        return None

    def triple_body(self):
        n = len(self.digests) - 1
        return "%s %d %s %d" % (esc(self.game or ""), n, hex8(self.digests[n]), self.hv)

    def ok_body(self):
        n = len(self.digests) - 1
        return "game=%s moves=%d digest=%s hv=%d" % (esc(self.game or ""), n, hex8(self.digests[n]), self.hv)

    def pairs(self, re):
        """The key=value pairs every hello and state starts with."""
        n = len(self.digests) - 1
        return [
            ("re", str(re)),
            ("game", self.game or ""),
            ("moves", str(n)),
            ("digest", hex8(self.digests[n])),
            ("hv", str(self.hv)),
        ]


class BoardSession:
    """Board side of the link. ``BoardSession(port, app)``, then ``poll(now_ms)`` each scan.

    ``timers``: (resend, beat, host timeout) in ms, by default (RESEND_MS, BEAT_MS,
    HOST_TIMEOUT_MS); a virtual board takes shorter ones for the tests (``--link-ms``).
    Its output queue is ``out`` (an OutQueue), the game's history as sent ``history``.

    Counters for diagnostics and tests: ``rx_frames``, ``rx_errors``, ``resent``, and the
    queue's ``out.tx_frames``, ``out.dropped`` (frames dropped from the full queue)."""

    def __init__(self, port, app, boot_id=None, timers=None):
        self.port = port
        self.app = app
        if timers is None:
            timers = (RESEND_MS, BEAT_MS, HOST_TIMEOUT_MS)
        self._resend_ms, self._beat_ms, self._host_timeout_ms = timers
        self.boot = boot_id or _boot_id()
        self._rx = bytearray(RX_CHUNK)
        self._asm = codec.LineAssembler(MAX_LINE)
        self.out = OutQueue()
        self.history = History()
        self._hello_ok = False
        # The last game-changing request done (seq, verb, body) and how it ended (None:
        # done, else the error's code and text). It is kept across a hello of the same
        # host session (``sid``): a host that reconnects sends its unanswered request
        # again, with the same seq and text, and it must not be done twice. A hello of
        # another session (a restarted host) forgets it.
        self._last_seq = -1
        self._last_verb = ""
        self._last_body = ""
        self._last_err = None  # type: tuple | None
        self._sid = ""  # the host session of the last hello
        self._seen = 0
        self._seen_any = False
        self._now = 0
        self._started = False
        self._beat_at = 0
        self._resend_at = 0
        self._stream = None  # type: MovesReply | None  # a `moves` reply in progress
        self.rx_frames = 0
        self.rx_errors = 0
        self.resent = 0

    # --- the app's side ----------------------------------------------------------------

    def send_move(self, index, text, times=None):
        """Queue committed move ``index`` (0-based) reliably: resent until acknowledged.
        ``times``: on a clock, (ms the move took, the mover's ms left, ...), sent with it.

        An index below the moves already sent means the history changed (take-back,
        then another move): the later moves are forgotten."""
        history = self.history
        if history.game is None or index + 1 > len(history.digests):
            self._sync()  # missed moves (journal resume): rebuild from the app
            if index + 1 > len(history.digests):
                raise ValueError("send_move(%d): the app's game has only %d moves" % (index, history.moves()))
        d, cut = history.record(index, text, times, self.app)
        if cut:
            self._history_changed()
        send_move_frame(self.out, history, index, text, d, times)
        self._resend_at = ticks_add(self._now, self._resend_ms)  # type: ignore

    def send_event(self, kind, text=""):
        """Best effort: ``event <kind> <text>``; diagnostics (DIAG_KINDS) dropped first."""
        body = esc(str(kind))
        if text:
            body += " " + _printable(text, 400)
        self.out.out("event", body, kind not in DIAG_KINDS)

    def send_state(self):
        """Tell the host the whole state now (after a new game, a take-back, game over)."""
        self._sync()
        self._send_state(0)

    def host_present(self, now_ms):
        """True while the host has sent a valid frame in the last HOST_TIMEOUT_MS."""
        return self._seen_any and ticks_diff(now_ms, self._seen) < self._host_timeout_ms

    def queued_bytes(self):
        """Bytes waiting to be written (the current partial frame not counted)."""
        return self.out.queued

    # --- the loop -----------------------------------------------------------------------

    def poll(self, now_ms):
        self._now = now_ms
        port = self.port
        if hasattr(port, "host_reads"):
            # A host that speaks reads: the port may write whole frames (zuni_hw.port).
            port.host_reads = self.host_present(now_ms)
        if not self._started:
            self._started = True
            self._beat_at = ticks_add(now_ms, self._beat_ms)
            # A host already listening learns of the (re)boot; kept until written, even
            # when a host's hello read in this same poll clears the queue (v_hello).
            self.out.boot_hello = self._send_hello(0)
        self._read(now_ms)
        stream = self._stream
        if stream is not None and stream.pump(self.app, self.history, self.out):
            self._stream = None
            self._ok(stream.re)
        pending = self.history.pending
        if pending and ticks_diff(now_ms, self._resend_at) >= 0:
            self._resend_at = ticks_add(now_ms, self._resend_ms)
            if self.host_present(now_ms) and self.out.queued < QUEUE_BYTES // 2:
                for index, text, d, times in pending:
                    send_move_frame(self.out, self.history, index, text, d, times)
                    self.resent += 1
        if ticks_diff(now_ms, self._beat_at) >= 0:
            self._beat_at = ticks_add(now_ms, self._beat_ms)
            self._sync()
            self.out.out("beat", self.history.triple_body() + " " + self.boot, False)
        self.out.flush(port)

    def _read(self, now_ms):
        try:
            n = self.port.read_into(self._rx)
        except OSError:
            return
        if not n:
            return
        asm = self._asm
        rx = self._rx
        pos = 0
        while pos < n:
            pos = asm.push(rx, pos, n)
            ready = asm.ready
            if ready == codec.LINE:
                self._on_line(now_ms, asm.line())
            elif ready == codec.TOOLONG:
                self.rx_errors += 1
                self._err(0, E_TOOLONG, "line of %d bytes dropped (limit %d)" % (asm.length, MAX_LINE), False)
            elif ready == codec.BADBYTES:
                self.rx_errors += 1
                self._err(0, E_GARBAGE, "control or non-ASCII byte in %s" % snippet(asm.bad()), False)

    def _on_line(self, now_ms, line):
        try:
            seq, verb, body, checked = codec.decode(line)
        except FrameError as e:
            self.rx_errors += 1
            self._err(0, e.code, e.message, False)
            return
        self.rx_frames += 1
        if not self.host_present(now_ms):
            self._resend_at = now_ms  # the host is back: resend unacknowledged moves now
        self._seen = now_ms
        self._seen_any = True
        try:
            self._handle(seq, verb, body, checked)
        except FrameError as e:
            self.rx_errors += 1
            self._err(seq, e.code, e.message, True)

    # --- requests -----------------------------------------------------------------------

    def _handle(self, seq, verb, body, checked):
        row = commands.find(verb)  # FrameError(unknown) for a verb not in the table
        flags = row[1]
        if not checked and not flags & READONLY:
            raise FrameError(E_READONLY, "%s needs a real checksum, not the '*' placeholder" % verb)
        if flags & LINK:  # the session's own verbs, by the table's handler
            getattr(self, row[4])(seq, commands.parse(verb, body))
            return
        if not flags & GAME:  # ledtest, raw: diagnostics, no hello needed
            self._do(seq, verb, body)
            return
        if not self._hello_ok:
            raise FrameError(E_HELLO, "say hello first: hello proto=%d" % PROTO)
        if seq == self._last_seq and verb == self._last_verb and body == self._last_body:
            # A resent request (its reply was lost or is late): done already, not again.
            # The reply is made now, with the history as it is now: the first reply's
            # bytes would carry an older move count than moves sent since.
            self._reply_again(seq)
            return
        self._last_seq = seq
        self._last_verb = verb
        self._last_body = body
        self._last_err = self._do(seq, verb, body)

    def _reply_again(self, seq):
        err = self._last_err
        if err is None:
            self._sync()
            self._ok(seq)
        else:
            self._err(seq, err[0], err[1], True)

    def _do(self, seq, verb, body):
        """Runs one command in the app (which checks its arguments against the shared
        table and refuses with ValueError); returns None if done, else (code, text)."""
        try:
            self.app.command(verb, body)
        except FrameError as e:  # bad arguments (zuni_link.commands.parse)
            self._err(seq, e.code, e.message, True)
            return (e.code, e.message)
        except ValueError as e:
            text = "%s %s: %s" % (verb, body, e)
            self._err(seq, E_ILLEGAL, text, True)
            return (E_ILLEGAL, text)
        except Exception as e:  # an app bug must not stop the board
            text = "%s %s failed: %s" % (verb, body, repr(e))
            self._err(seq, E_INTERNAL, text, True)
            return (E_INTERNAL, text)
        self._sync()
        self._ok(seq)
        return None

    def v_state(self, seq, arg):
        self._sync()
        self._send_state(seq)

    def v_ping(self, seq, arg):
        self._ok(seq)

    def v_hello(self, seq, body):
        kv = kv_decode(body)
        offered = kv.get("proto")
        if offered is None:
            raise FrameError(E_ARGS, "hello needs proto=<version>, e.g. hello proto=%d" % PROTO)
        if str(PROTO) not in offered.split(","):
            text = "board speaks link protocol %d, host offered proto=%s: update the host (zuni) or the firmware" % (
                PROTO,
                esc(offered),
            )
            # An older host ignores an err to its hello; it shows the board's events.
            self.out.out("event", "error " + text, True)
            raise FrameError(E_VERSION, text)
        # A new conversation: output queued for an earlier host is stale (the host
        # re-syncs from this hello). The request memory stays for the same host session
        # (see __init__); another session (or none given: a person) starts afresh.
        sid = kv.get("sid", "")
        if not sid or sid != self._sid:
            self._last_seq = -1
            self._last_err = None
        self._sid = sid
        self.out.clear()
        self._stream = None
        self._hello_ok = True
        # The host fetches what it lacks after this hello: give that a resend interval.
        self._resend_at = ticks_add(self._now, self._resend_ms)  # type: ignore
        self._send_hello(seq)

    def v_moves(self, seq, start):
        self._sync()
        n = self.history.moves()
        if start > n:
            raise FrameError(E_ARGS, "moves from %d: game %s has %d moves" % (start, self.history.game, n))
        if self._stream is not None:
            self._err(self._stream.re, E_CHANGED, "moves request replaced by a newer one", True)
        # (its first frames by this same poll, after the input: see poll)
        self._stream = MovesReply(seq, start, n)

    def v_ack(self, seq, arg):
        self.history.ack(arg[0], arg[1], arg[2])

    # --- the game history --------------------------------------------------------------

    def _sync(self):
        """Brings the history up to the app's game: new game, take-back, resume."""
        if self.history.sync(self.app):
            self._history_changed()

    def _history_changed(self):
        stream = self._stream
        if stream is not None:
            self._stream = None
            self._err(stream.re, E_CHANGED, "the game changed during the moves reply: ask again", True)

    # --- frames out ---------------------------------------------------------------------

    def _send_hello(self, re):
        self._sync()
        info = self.app.hello_info()
        pairs = self.history.pairs(re)
        pairs[1:1] = [
            ("proto", str(PROTO)),
            ("fw", _value(info.get("fw", "?"))),
            ("layout", _value(info.get("layout", "?"))),
        ]
        pairs.insert(5, ("ruleset", _value(info.get("ruleset", ""))))
        pairs.append(("boot", self.boot))
        _add_extra(pairs, info)
        return self.out.out("hello", _fit(pairs), True)

    def _send_state(self, re):
        pairs = self.history.pairs(re)
        _add_extra(pairs, self.app.state_info())
        self.out.out("state", _fit(pairs), True)

    def _ok(self, re):
        return self.out.out("ok", "%d %s" % (re, self.history.ok_body()), True)

    def _err(self, re, code, message, hi):
        return self.out.out("err", "%d %s %s" % (re, code, _printable(message)), hi)


def send_move_frame(out, history, index, text, d, times=None):
    """Queue a `move` frame of ``history``'s game (``times``: on a clock, the ms the move
    took and the mover's ms left after it)."""
    body = "%s %d %s %s %d" % (esc(history.game or ""), index, esc(text), hex8(d), history.hv)
    if times is not None:
        body += " %d %d" % (times[0], times[1])
    out.out("move", body, True)


class MovesReply:
    """A `moves` reply under way (``re``: its request's seq): its frames go out a few a
    poll, the move texts asked of the app a few at a time."""

    def __init__(self, re, start, end):
        self.re = re
        self._texts = []  # type: list  # the texts of the next few moves to send
        self._base = start  # the index of the first of them
        self._i = 0
        self._end = end

    def pump(self, app, history, out):
        """Sends what the queue has room for; True once the reply is complete."""
        sent = 0
        while self._base + self._i < self._end:
            if out.queued > QUEUE_BYTES - STREAM_ROOM or sent >= STREAM_FRAMES:
                return False  # go on at the next poll, as the port drains the queue
            if self._i >= len(self._texts):
                self._base += self._i
                self._i = 0
                self._texts = app.moves_from(self._base, STREAM_CHUNK)
                if not self._texts:
                    break  # the app's game is shorter now (a take-back): the reply ends here
            index = self._base + self._i
            send_move_frame(
                out, history, index, self._texts[self._i], history.digests[index + 1], history.times_of(index)
            )
            self._i += 1
            sent += 1
        return True


def _add_extra(pairs, info):
    """The app's own keys after the session's, sorted."""
    have = [k for k, _ in pairs]
    for key in sorted(info):
        if key not in have:
            pairs.append((esc(str(key)), _value(info[key])))


# Room for a hello's or state's body in one frame ("~65535 state " before it, " *" and
# the CRC after it).
_BODY_ROOM = MAX_LINE - 24


def _fit(pairs):  # type: (list) -> str
    """The key=value body of ``pairs``; a start position (``position=``) too long for the
    frame is sent as ``position=+`` (docs/protocol.md: the host keeps the one it knows)."""
    body = kv_encode(pairs)
    if len(body) > _BODY_ROOM:
        body = kv_encode([(k, "+" if k == "position" else v) for k, v in pairs])
    return body
