"""Timing runs of tools/bench_firmware_runner.py: the per-scan log, commit latencies and
flash operations. Imported only in timing runs (as .mpy, like the runner), so that the
runs whose heap is bisected do not carry this code.

Every scan's time in us is kept (2 bytes a scan) with what the scan did (bits: 1 a new
stable position, 2 the journal and messages of the scan before, 4 a commit); the PC takes
each scan's best over several runs, so that another process taking the core does not
pass for the firmware's own work. Beside it, for every scan that drew a frame, the time
the Pico's LED driver (``zuni_hw.pico.LedChain``, on a stand-in for ``neopixel``) takes
to send it, measured apart from the scan's time; and per commit of a move that cannot be
extended: its scan, the simulated ms from the last change to it, and the scan that drew
the new position's whole picture (the commit's own, or the one that completed the
position after it: zuni_board.app's ``_catch_up``).
"""

import time

_TIMES = None  # type: ignore
_KINDS = None  # type: ignore
_SHOWS = None  # type: ignore
_COMMITS = None  # type: ignore
MAX_COMMITS = 1024


def allocate(n):
    global _TIMES, _KINDS, _SHOWS, _COMMITS
    from array import array

    _TIMES = array("H", bytes(2 * n))
    _KINDS = bytearray(n)
    _SHOWS = array("H", bytes(2 * n))
    _COMMITS = array("H", bytes(6 * MAX_COMMITS))


class _Neo:
    """neopixel.NeoPixel's interface without the wire (its 30 us per LED is added on
    the PC, from MICROPYTHON-NOTES)."""

    def __init__(self, n):
        self.buf = bytearray(3 * n)

    def write(self):
        pass


def mount(image):
    """(block device, journal directory, flash log or None) for a timing run: littlefs on
    ``image`` as the virtual board mounts it, the journal's flash log as firmware/main.py
    opens it (older firmware has none)."""
    from zuni_hw import virtual

    dev = virtual.mount_flash(image, "/flash", 64)
    try:
        from zuni_board import flashboot, flashlog
    except ImportError:
        return dev, "/flash", None
    log = flashlog.FlashLog(dev, flashboot.reserve(dev, "/flash", 4))
    flashboot.replay("/flash", log)
    return dev, "/flash", log


class IoLoop:
    """What firmware/main.py's ``Loop.scan`` does after the app's step and frame, for a
    timing run: the commit's record (a page of the flash log) and move in its own scan,
    the flash jobs that stall the chip in quiet time, the link session polled; and the
    figures: scans a commit spans (from its own to the one that sent its move and made
    the next position), erases between a move's last change and its move reaching the
    link, the flash log's and the USB port's counters."""

    def __init__(self, bench, log, timing):
        self.bench = bench
        app = bench.app
        self.journal = None
        self._idle = None
        if log is not None:
            from zuni_board import flashlog

            flashlog.attach(app.journal, log)
            self.journal = app.journal
            self._idle = flashlog.idle
        self.quiet_ms = timing["commit_ms"] + 250  # firmware/main.py's Loop
        self.usb = CountingStream()
        self.session = attach_session(app, self.usb)
        self.commit_scans = [0, 0, 0]  # commits, scans in all, most scans of one
        self._open = 0
        self.window_erases = 0
        self._erases_at_change = -1

    def scan(self, stable, buttons):
        bench = self.bench
        outbox = bench.outbox
        journal = self.journal
        if journal is not None:
            if outbox.queue:
                outbox.flush()
            if stable is None and not buttons and not bench.deb.in_motion() and not outbox.queue:
                quiet = time.ticks_diff(bench.now, bench.deb.changed_at)
                if quiet >= self.quiet_ms:
                    self._idle(journal, quiet >= 3000)
        if bench.cycles % 100 == 0:
            self.usb.ping()
        self.session.poll(bench.now)

    def changed(self):
        flash = self.bench.flash
        if flash is not None:
            self._erases_at_change = flash.erases

    def count_commit(self, before):
        bench = self.bench
        app = bench.app
        outbox = bench.outbox
        done = not app.play.fresh and not (outbox is not None and outbox.pending())
        if app.play.commits != before:
            self._open = 1
        elif self._open:
            self._open += 1
        if self._open and done:
            c = self.commit_scans
            c[0] += 1
            c[1] += self._open
            if self._open > c[2]:
                c[2] = self._open
            self._open = 0
            flash = bench.flash
            if flash is not None and self._erases_at_change >= 0:
                self.window_erases += flash.erases - self._erases_at_change
                self._erases_at_change = -1

    def report(self, out):
        c = self.commit_scans
        if c[0]:
            out["commit_scans_mean"] = c[1] / c[0]
            out["commit_scans_max"] = c[2]
        flash = self.bench.flash
        if flash is not None:
            out["window_erases"] = self.window_erases
            out["flash_bytes"] = flash.written
        journal = self.journal
        if journal is not None:
            out["journal_syncs"] = journal.log.syncs
            out["log_programs"] = journal.log.programs
            out["log_erases"] = journal.log.erases
            out["log_forced"] = journal.log.forced
        out["usb_writes"] = self.usb.calls
        out["usb_bytes"] = self.usb.bytes
        out["usb_frames"] = self.session.out.tx_frames


class CountingStream:
    """The USB serial port's stream as a host that reads at once: counts the write calls
    and bytes (``zuni_hw.port.StreamPort`` writes a frame in one call while a host reads;
    firmware before that wrote a byte a call: 157 us each on the chip)."""

    def __init__(self):
        self.calls = 0
        self.bytes = 0
        self.incoming = bytearray()
        self._seq = 0

    def write(self, data):
        self.calls += 1
        self.bytes += len(data)
        return len(data)

    def readinto(self, buf):
        n = min(len(buf), len(self.incoming))
        buf[:n] = self.incoming[:n]
        self.incoming = self.incoming[n:]
        return n

    def ping(self):
        """The host's ping (a host that speaks, so the port writes whole frames)."""
        from zuni_link import codec

        self._seq += 1
        self.incoming += codec.encode(self._seq, "ping")


class _Poller:
    def register(self, stream, mask):
        self.stream = stream
        self.mask = mask

    def poll(self, timeout):
        if self.mask == 4 or self.stream.incoming:
            return [(self.stream, self.mask)]
        return []


class _Select:
    POLLIN = 1
    POLLOUT = 4

    def poll(self):
        return _Poller()


def attach_session(app, stream):
    """A link session on the Pico's port class (``zuni_hw.pico.make_usb_port``) over
    ``stream``."""
    from zuni_hw import pico
    from zuni_link.session import BoardSession

    port = pico.make_usb_port(_FakeSys(stream), _Select())
    session = BoardSession(port, app, "bench0")
    app.attach(session)
    return session


class _FakeSys:
    def __init__(self, stream):
        class Std:
            pass

        self.stdin = Std()
        self.stdin.buffer = stream
        self.stdout = Std()
        self.stdout.buffer = stream


class Timer:
    def __init__(self, spec):
        self.times = _TIMES
        self.kinds = _KINDS
        self.shows = _SHOWS
        self.leds = None  # type: ignore
        # Per commit: its scan, the ms from the last change to it, the scan that drew the
        # whole picture; 3 entries each (preallocated: the heap is the board's).
        self.commit_log = _COMMITS
        self.logged = 0
        self._open = -1  # the last commit's entry while its position is incomplete
        self.latency_sum = 0
        self.commits = 0
        self.worst_latency_ms = 0
        self.worst_us = 0
        self.worst_commit_us = 0
        self.total_us = 0
        self.flash_max = [0, 0]  # most programs, erases littlefs did for one move
        self.flash_seen = (0, 0)
        self.hints = []  # (depth_slices, work) of each hint (zuni_board.hint)

    def attach_leds(self, cfg, led_of):
        """The Pico's LED driver for the layout's ``leds`` section."""
        from zuni_hw import pico

        self.leds = pico.LedChain(
            _Neo(cfg["count"]),
            led_of,
            cfg.get("order", "GRB"),
            cfg.get("max_level", 255),
            cfg.get("ma_per_channel", 0.0),
            cfg.get("idle_ma", 0.0),
            cfg.get("budget_ma", 0),
        )

    def show(self, bench, frame):
        """Send a frame through the LED driver, timed apart from the scan."""
        leds = self.leds
        if leds is None:
            return
        t0 = time.ticks_us()
        leds.show(frame)
        dt = time.ticks_diff(time.ticks_us(), t0)
        i = bench.cycles
        if i < len(self.shows):
            self.shows[i] = min(dt, 65535)

    def scan(self, bench, dt, stable, queued, committed, complete=True, player=True):
        """``complete``: the app's position has its moves after this scan; ``player``:
        the commit (if any) is a player's move, not only forced passes."""
        i = bench.cycles
        if i < len(self.times):
            self.times[i] = min(dt, 65535)
            self.kinds[i] = (1 if stable else 0) | (2 if queued else 0) | (4 if committed else 0)
        if self._open >= 0 and complete:
            self.commit_log[3 * self._open + 2] = i
            self._open = -1
        self.total_us += dt
        if dt > self.worst_us:
            self.worst_us = dt
        if committed:
            if dt > self.worst_commit_us:
                self.worst_commit_us = dt
            # Simulated ms from the last sensor change to this scan, plus the real time
            # the scan took to commit and draw; an extendable move waits for the OK.
            if player and not bench.extendable:
                since = time.ticks_diff(bench.now, bench.last_change)
                latency = since + (dt + 999) // 1000
                self.latency_sum += latency
                self.commits += 1
                if latency > self.worst_latency_ms:
                    self.worst_latency_ms = latency
                k = self.logged
                log = self.commit_log
                if k < len(log) // 3:
                    log[3 * k] = i
                    log[3 * k + 1] = since
                    log[3 * k + 2] = i
                    self.logged = k + 1
                    if not complete:
                        self._open = k

    def moved(self, bench):
        flash = bench.flash
        if flash is None:
            return
        programs = flash.writes - self.flash_seen[0]
        erases = flash.erases - self.flash_seen[1]
        self.flash_seen = (flash.writes, flash.erases)
        if programs > self.flash_max[0]:
            self.flash_max[0] = programs
        if erases > self.flash_max[1]:
            self.flash_max[1] = erases

    def report(self, bench, out):
        out["mean_us"] = self.total_us // max(1, bench.cycles)
        out["worst_us"] = self.worst_us
        out["worst_commit_us"] = self.worst_commit_us
        out["worst_latency_ms"] = self.worst_latency_ms
        if self.commits:
            out["mean_latency_ms"] = self.latency_sum // self.commits
        if self.hints:
            out["hint_log"] = self.hints
        flash = bench.flash
        if flash is not None:
            out["flash_programs"] = flash.writes
            out["flash_erases"] = flash.erases
            out["flash_programs_max"] = self.flash_max[0]
            out["flash_erases_max"] = self.flash_max[1]
        times = self.times
        kinds = self.kinds
        shows = self.shows
        # Every scan's time, 4 hex digits each, in lines of 256 scans (a small heap).
        n = min(bench.cycles, len(times))
        for start in range(0, n, 256):
            end = min(n, start + 256)
            print("TIMES " + "".join(["%04x" % times[i] for i in range(start, end)]))
            print("KINDS " + "".join(["%x" % kinds[i] for i in range(start, end)]))
            print("SHOWS " + "".join(["%04x" % shows[i] for i in range(start, end)]))
        log = self.commit_log
        for start in range(0, 3 * self.logged, 255):
            end = min(3 * self.logged, start + 255)
            print("COMMITS " + "".join(["%04x" % log[i] for i in range(start, end)]))
