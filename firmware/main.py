"""Firmware entry point: build the drivers from the layout, run the scan loop.

On a Raspberry Pi Pico (``sys.platform == "rp2"``) it reads ``/layout.json`` (copied there
by tools/deploy.py, with the module ``zuni_layout`` packed from it: read instead of the
JSON while it is the same file), keeps the journal in ``/`` and talks over the USB serial port.
Anywhere else it is the **virtual board** (MicroPython unix port)::

    micropython firmware/main.py --layout hardware/layouts/board25.json [--layout-packed DIR] \\
        [--link fd:N | --link /dev/pts/N | --link tcp:PORT] [--control PORT] \\
        [--flash IMAGE] [--ruleset TEXT] [--occupied m1,m2,...] [--lifeline FD|tcp:PORT:TOKEN]

``--layout-packed``: a folder holding the module ``zuni_layout`` packed from the layout
file (as the Pico's, ``zuniboard.games.layouts.packed_source``; the virtual board's host
writes it): read instead of the JSON while it is that file's.
``--link``: the link's pseudo-terminal (an inherited fd, or a pty path), or where there
are no ptys a TCP port on 127.0.0.1 that the host opens as ``socket://``; ``--control``:
TCP port on 127.0.0.1 for the control channel (zuni_hw/virtual.py); ``--flash``: littlefs
image file mounted at /flash for the journal (made on first use; without it nothing is
kept); ``--occupied``: points holding a magnet at power-on (a restart keeps the pieces);
``--lifeline``: an inherited pipe fd, or a socket to the host's 127.0.0.1:PORT that
says TOKEN: the board exits when its other end (the host) is gone.
``host/zuniboard/virtual/board.py`` starts it this way.

The loop (docs/architecture.md) is the only code that reads the clock. Sensors are
scanned every ``timing.scan_ms``; in between the loop waits for input on the link (and
the control channel) so that a host's request is answered at once, without scanning
more often (the debounce counts scans).
"""

import gc
import sys
import time

from zuni_board import load_board
from zuni_board.scan import Debouncer

try:
    from time import ticks_diff
except ImportError:  # CPython (the tests' loop scans): the Pico's tick arithmetic
    from zuni_board.ticks import ticks_diff

PICO_LAYOUT = "/layout.json"
# The layout packed on the PC (tools/deploy.py: lib/zuni_layout.mpy), imported at boot
# instead of parsing and checking the JSON (zuni_board.load_board).
LAYOUT_MODULE = "zuni_layout"
PICO_JOURNAL = "/"
VIRTUAL_JOURNAL = "/flash"

USAGE = (
    "usage: micropython firmware/main.py --layout PATH [--layout-packed DIR] [--link fd:N|PTY_PATH|tcp:PORT]"
    " [--control PORT]"
    " [--flash IMAGE] [--ruleset TEXT] [--occupied P1,P2,...] [--lifeline FD|tcp:PORT:TOKEN]"
    " [--link-ms RESEND,BEAT,HOST_TIMEOUT]"
)
OPTIONS = (
    "--layout",
    "--layout-packed",
    "--link",
    "--control",
    "--flash",
    "--ruleset",
    "--occupied",
    "--flash-blocks",
    "--lifeline",
    "--link-ms",
)


class UsageError(ValueError):
    pass


def parse_args(argv):
    """``--name value`` pairs into a dict; UsageError names a bad one."""
    opts = {}
    i = 0
    while i < len(argv):
        name = argv[i]
        if name not in OPTIONS:
            raise UsageError("unknown argument %r (allowed: %s)" % (name, ", ".join(OPTIONS)))
        if i + 1 >= len(argv):
            raise UsageError("%s needs a value" % name)
        opts[name[2:]] = argv[i + 1]
        i += 2
    if "layout" not in opts:
        raise UsageError("--layout PATH is required")
    if "control" in opts:
        try:
            port = int(opts["control"])
        except ValueError:
            port = -1
        if port < 1 or port > 65535:
            raise UsageError("--control %s: expected a TCP port 1..65535" % opts["control"])
    if "link-ms" in opts:
        link_ms(opts["link-ms"])
    return opts


def link_ms(text):
    """``--link-ms RESEND,BEAT,HOST_TIMEOUT``: the link's timers in ms (tests shorten them)."""
    try:
        timers = tuple(int(v) for v in text.split(","))
    except ValueError:
        timers = ()
    if len(timers) != 3 or min(timers) < 10 or max(timers) > 60000:
        raise UsageError("--link-ms %s: expected three ms counts 10..60000, RESEND,BEAT,HOST_TIMEOUT" % text)
    return timers


# Moves of a game resumed from the journal replayed a scan, after the boot hello: a move
# pushed costs the RP2040 some 5-10 ms on the 168-point board, and 400 plies replayed at
# once kept the hello 5 s from power-on (docs/firmware-timing.md).
RESUME_SLICE = 2


def build_app(layout, ruleset, journal_dir, board_id=""):
    """The board application and the layout's maps for its geometry."""
    from zuni_board.app import BoardApp

    app = BoardApp(layout, ruleset, journal_dir, None, board_id, RESUME_SLICE)
    # A commit's journal write waits for the next scan, after its LED frame: a Pico
    # stalls during every flash program or erase (its code runs from that flash).
    app.defer_writes()
    return app, app.sensor_of, app.led_of


# The journal's flash log (zuni_board.flashlog): blocks reserved for it on the Pico (of
# 352) and on the virtual board (of its image's 64 by default).
PICO_LOG_BLOCKS = 8
VIRTUAL_LOG_BLOCKS = 4


def open_flash_log(dev, directory, blocks):
    """(the journal's flash log on ``dev``, reserved on first use, its records put into
    their game files by ``flashboot.replay``; why not, or ""). Without one (None) the
    journal writes straight to its files, as it always could; the reason goes to the host
    as a ``diag`` event once the link is up (stdout is the link on the Pico)."""
    import zuni_board
    from zuni_board import flashboot, flashlog

    try:
        log = flashlog.FlashLog(dev, flashboot.reserve(dev, directory, blocks))
        flashboot.replay(directory, log)
    except (OSError, ValueError) as e:
        return None, "no flash log for the journal: %s" % e
    finally:
        zuni_board.unload(("zuni_board.flashboot",))  # boot-time code: garbage from now on
    return log, ""


def use_flash_log(app, log):
    if log is not None and app.journal is not None:
        from zuni_board import flashlog

        flashlog.attach(app.journal, log)
        return app.journal
    return None


def attach_link(app, port, timers=None):
    from zuni_link.session import BoardSession

    session = BoardSession(port, app, None, timers)
    app.attach(session)
    return session


class Loop:
    """The outer loop; ``wait(ms)`` sleeps until the next scan or until input arrives."""

    def __init__(
        self,
        layout,
        sensors,
        debouncer,
        app,
        session,
        leds,
        buttons,
        wait,
        control=None,
        report=None,
        power=None,
        journal=None,
        fault=None,
    ):
        self.scan_ms = layout.timing["scan_ms"]
        # The journal with a flash log: its flash jobs that stall the chip (an append to a
        # game file, an erase ahead of need) wait for quiet time, this long after the last
        # sensor change with nothing to commit or send, never in a move's way.
        self.journal = journal
        self._idle = None  # type: ignore  # zuni_board.flashlog.idle (loaded with a log only)
        if journal is not None:
            from zuni_board.flashlog import idle

            self._idle = idle  # type: ignore
        self.quiet_ms = layout.timing["commit_ms"] + 250
        # A pause this long (a player thinks, nobody plays): the lines waiting in the
        # flash log go to their file however few.
        self.long_quiet_ms = 3000
        self.sensors = sensors
        self.debouncer = debouncer
        self.app = app
        self.session = session
        self.leds = leds
        self.buttons = buttons
        self.wait = wait
        self.control = control
        self.report = report
        self.power = power  # the switched LED rail (zuni_hw.pico.LedPower), or None
        # The LED supply switch's ~FAULT line (zuni_hw.fault.SupplyFault), or None.
        self.fault = fault
        app.supply = fault
        self.errors = 0
        self.iterations = 0
        self.busy_us = 0  # time spent working (not waiting), summed over iterations
        self.busy_max_us = 0

    def scan(self, now):
        """One scan at ``now`` (ms): sensors, buttons, the app's step, its LED frame, then
        the commit's journal record and move, then a quiet time's flash job."""
        debouncer = self.debouncer
        app = self.app
        journal = self.journal
        outbox = app.outbox
        fault = self.fault
        if fault is not None and fault.step(now):
            self.trip(now)
        stable = debouncer.step(now, self.sensors.read())
        pressed = self.buttons.read(now)
        moving = debouncer.in_motion()
        app.step(now, stable, pressed, moving)
        if app.frame_dirty(now):
            # The scan's picture first: a commit's frame goes out before the host's
            # requests are read (one may need the whole new position).
            self.leds.show(app.frame(now))
        if journal is not None and outbox.queue:
            # Then, in the same scan, the commit's journal record (a page of the flash
            # log: no erase) and its move frame, before the next position's legal moves
            # (the app's next scan).
            outbox.flush()
        if journal is not None and stable is None and not pressed and not moving and not outbox.queue:
            quiet = ticks_diff(now, debouncer.changed_at)
            if quiet >= self.quiet_ms and not outbox.failing:
                try:
                    self._idle(journal, quiet >= self.long_quiet_ms)  # type: ignore
                except OSError as e:  # a full or failing flash: the outbox's degraded mode
                    outbox.write_failed(e)
        if stable is not None and self.control is not None:
            self.control.stable_changed(stable)

    def trip(self, now):
        """The LED supply switch reported an overload: the rail off for good, the LEDs
        dark (the virtual board's too), the host told (``BoardApp.supply_fault``)."""
        if self.power is not None:
            self.power.trip()
        self.app.supply_fault(now)
        self.leds.show(self.app.frame(now))

    def run(self):
        ticks_ms = time.ticks_ms
        ticks_diff = time.ticks_diff
        ticks_add = time.ticks_add
        scan_ms = self.scan_ms
        app = self.app
        session = self.session
        leds = self.leds
        control = self.control
        wait = self.wait
        power = self.power
        ticks_us = time.ticks_us
        next_scan = ticks_ms()
        if session is not None:
            # The boot hello first, before the first scan's work (the first picture, a
            # resumed game's first moves): boot to hello is the board's start-up time.
            try:
                session.poll(next_scan)
            except Exception as e:  # as in the loop: report, go on
                self.errors += 1
                if self.report is not None:
                    self.report(e)
        while True:
            t0 = ticks_us()
            now = ticks_ms()
            try:
                if ticks_diff(now, next_scan) >= 0:
                    self.scan(now)
                    next_scan = ticks_add(next_scan, scan_ms)
                    if ticks_diff(next_scan, now) <= 0:
                        next_scan = ticks_add(now, scan_ms)  # fell behind: no burst of scans
                if session is not None:
                    session.poll(now)
                if power is not None and power.step(now):
                    leds.flush()  # the rail is up: the frame that waited goes out
                if app.frame_dirty(now):
                    leds.show(app.frame(now))
                if control is not None:
                    control.app_check()  # a state event when the app's state changed
                    if control.poll():
                        wait.rebuild()  # clients came or went: wait on the new set of sockets
            except Exception as e:  # a bug must not leave the board dead: report, go on
                self.errors += 1
                if self.report is not None and (self.errors <= 5 or self.errors % 100 == 0):
                    self.report(e)
            busy = ticks_diff(ticks_us(), t0)
            self.iterations += 1
            self.busy_us += busy
            if busy > self.busy_max_us:
                self.busy_max_us = busy
            wait(ticks_diff(next_scan, ticks_ms()))

    def stats(self):
        """Loop figures for diagnostics: iterations, scans, busy time (us) per iteration."""
        n = self.iterations or 1
        return {
            "iterations": self.iterations,
            "scans": self.debouncer.scans,
            "busy_avg_us": self.busy_us // n,
            "busy_max_us": self.busy_max_us,
            "errors": self.errors,
        }


# -- the Pico ------------------------------------------------------------------------------


def hex_id(raw):
    """A board id as text: the bytes of ``machine.unique_id()`` in hex."""
    return "".join(["%02x" % b for b in raw])


def main_pico(layout_path=PICO_LAYOUT, journal_dir=PICO_JOURNAL):
    import select

    import machine

    from zuni_hw import pico

    try:
        # First, before the engine and the app are imported: the loader and the JSON
        # are garbage again once the Board is made (heap peak).
        layout = load_board(layout_path, LAYOUT_MODULE)
    except ValueError as e:
        # Back to the REPL: the maker fixes the file with mpremote (tools/deploy.py).
        print("zuniboard: %s" % e)
        return
    gc.collect()
    try:
        import rp2

        log, why = open_flash_log(rp2.Flash(), journal_dir, PICO_LOG_BLOCKS)
    except ImportError:  # not an rp2 port (the tests' fake machine)
        log, why = None, "no flash log for the journal: no rp2 module"
    gc.collect()  # the log's boot-time garbage (its first reservation: 8 KB a block) before the game's
    # The flash chip's 64-bit id: the host's game log names the physical board by it.
    app, sensor_of, led_of = build_app(layout, None, journal_dir, hex_id(machine.unique_id()))
    journal = use_flash_log(app, log)
    gc.collect()  # the journal's reading (a resumed game's lines) before the link's code loads
    # The LED rail first: EN and the data line low before the LED driver exists (power.md).
    power = pico.make_led_power(layout.power, layout.leds, time.ticks_ms())
    leds = pico.make_leds(layout.leds, led_of, power=power)
    sensors = pico.make_sensors(layout.sensors)
    timing = layout.timing
    buttons = pico.make_buttons(layout.buttons)  # debounced by time (zuni_hw.pico.Buttons)
    fault = pico.make_supply_fault(layout.power)  # the LED supply's ~FAULT (zuni_hw.fault)
    debouncer = Debouncer(len(sensor_of), sensor_of, timing["debounce_scans"], timing["stable_ms"])
    port = pico.make_usb_port()
    session = attach_link(app, port)
    if why:
        session.send_event("diag", why)
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)

    def wait(ms):
        if ms > 0:
            for _ in poller.ipoll(ms):  # ipoll: no allocation per call
                break

    def report(e):
        session.send_event("diag", "exception %s: %s" % (type(e).__name__, e))

    Loop(layout, sensors, debouncer, app, session, leds, buttons, wait, None, report, power, journal, fault).run()


# -- the virtual board -----------------------------------------------------------------------


class VirtualWait:
    """Waits on the link and the control sockets (select.poll) until the next scan."""

    def __init__(self, link, control, lifeline=-1):
        self.link = link
        self.control = control
        # The read end of a pipe whose write end only the host holds, or a socket to the
        # host that it never writes on (zuni_hw.virtual.connect_lifeline, where pipes
        # cannot be polled): it hangs up when the host is gone, however it died (even
        # SIGKILL), and the board must not outlive it. -1 or None: no lifeline.
        self.lifeline = lifeline
        # poll() reports a registered object itself (MicroPython) or its descriptor (CPython).
        if lifeline is None or isinstance(lifeline, int):
            self._lifeline_fd = -1 if lifeline is None else lifeline
        else:
            self._lifeline_fd = lifeline.fileno()
        self._generation = -1
        self.rebuild()

    def rebuild(self):
        import select

        poller = select.poll()
        link = self.link
        if link is not None:
            register = getattr(link, "register", None)
            if register is not None:
                register(poller)  # a socket link: its listening socket and its connection
                self._generation = link.generation
            else:
                poller.register(link.fin, select.POLLIN)
        if self.control is not None:
            self.control.register(poller)
        if self._lifeline_fd >= 0:
            poller.register(self.lifeline, select.POLLIN)
        self.poller = poller
        return self

    def __call__(self, ms):
        link = self.link
        if self._generation >= 0 and link.generation != self._generation:
            self.rebuild()  # the socket link's host connected or hung up
        # Polled even when the loop is behind (ms <= 0, e.g. a scan that raises every
        # time): a board that never waited never saw its host hang up, and ran on alone.
        lifeline = self.lifeline
        lifeline_fd = self._lifeline_fd
        for entry in self.poller.poll(ms if ms > 0 else 0):
            if lifeline_fd >= 0 and (entry[0] is lifeline or entry[0] == lifeline_fd):
                raise SystemExit(0)  # the host is gone (see __init__)


def _virtual_layout(argv):
    """The options and the board (its layout loaded before the app is imported: see
    main_pico); a usage error exits."""
    try:
        opts = parse_args(argv)
        packed = None
        if "layout-packed" in opts:
            sys.path.insert(0, opts["layout-packed"])
            packed = LAYOUT_MODULE
        return opts, load_board(opts["layout"], packed)
    except ValueError as e:  # UsageError, layout.LayoutError
        sys.stderr.write("zuni-virtual: %s\n%s\n" % (e, USAGE))
        sys.exit(2)


def _virtual_lifeline(virtual, spec):
    """The host's lifeline of ``--lifeline SPEC``: a pipe's fd, or a socket (``tcp:``)."""
    try:
        return virtual.connect_lifeline(spec) if spec.startswith("tcp:") else int(spec)
    except (OSError, ValueError) as e:
        sys.stderr.write("zuni-virtual: --lifeline %s: %s\n" % (spec, e))
        sys.exit(2)


def _virtual_flash(virtual, opts):
    """The virtual board's flash (``--flash IMAGE``): (its device, its flash log or None,
    the board id), or (None, None, "") without one."""
    if "flash" not in opts:
        return None, None, ""
    blocks = int(opts.get("flash-blocks", "64"))
    flash_dev = virtual.mount_flash(opts["flash"], VIRTUAL_JOURNAL, blocks)
    # Stable for as long as the flash image lives, like a Pico's unique_id.
    board_id = virtual.flash_board_id(VIRTUAL_JOURNAL)
    log = None
    if hasattr(flash_dev, "readblocks"):  # (not the PC's folder: fw_cpython)
        log, why = open_flash_log(flash_dev, VIRTUAL_JOURNAL, VIRTUAL_LOG_BLOCKS)
        if why:
            virtual.log(why)
    return flash_dev, log, board_id


def _virtual_sensors(virtual, layout, geometry, sensor_of, occupied):
    """The virtual sensors, the points of ``--occupied`` (comma-separated names) covered."""
    sensors = virtual.VirtualSensors(layout.sensor_count)
    for name in occupied.split(","):
        if name:
            if name not in geometry.index:
                sys.stderr.write("zuni-virtual: --occupied: unknown point %r\n" % name)
                sys.exit(2)
            sensors.state[sensor_of[geometry.index[name]]] = 1
    return sensors


def _virtual_control(virtual, port, layout_name, names, sensor_of, sensors, buttons, leds):
    """The control channel on ``--control PORT``, told of every new LED frame."""
    try:
        control = virtual.ControlServer(int(port), layout_name, names, sensor_of, sensors, buttons, leds)
    except OSError as e:
        sys.stderr.write("zuni-virtual: --control %s: cannot listen (%s)\n" % (port, e))
        sys.exit(3)
    leds.on_change = control.leds_changed
    return control


def _virtual_link(virtual, spec):
    """The link's port of ``--link SPEC`` (zuni_hw.virtual.open_link)."""
    try:
        return virtual.open_link(spec)
    except (OSError, ValueError) as e:
        sys.stderr.write("zuni-virtual: --link %s: %s\n" % (spec, e))
        # A socket link's port taken (between the host's choice and the bind): as --control.
        sys.exit(3 if isinstance(e, OSError) and spec.startswith("tcp:") else 2)


def main_virtual(argv):
    from zuni_hw import virtual

    opts, layout = _virtual_layout(argv)
    gc.collect()
    # First: a host that is already gone must not get a board that runs on alone.
    lifeline = _virtual_lifeline(virtual, opts.get("lifeline", "-1"))
    flash_dev, log, board_id = _virtual_flash(virtual, opts)
    journal_dir = None if flash_dev is None else VIRTUAL_JOURNAL
    app, sensor_of, led_of = build_app(layout, opts.get("ruleset"), journal_dir, board_id)
    journal = use_flash_log(app, log)
    names = app.game.geometry.names
    sensors = _virtual_sensors(virtual, layout, app.game.geometry, sensor_of, opts.get("occupied", ""))
    buttons = virtual.VirtualButtons()
    leds = virtual.VirtualLeds(len(names))
    fault = None
    if "fault" in layout.power:
        from zuni_hw.fault import FaultPin, SupplyFault

        fault = SupplyFault(FaultPin())  # the control channel's ``fault on`` pulls it low
    control = None
    if "control" in opts:
        control = _virtual_control(virtual, opts["control"], layout.name, names, sensor_of, sensors, buttons, leds)
        control.fault_pin = None if fault is None else fault.pin
        if flash_dev is not None:
            control.flash_dev = flash_dev
            control.flash_dir = VIRTUAL_JOURNAL
    link = None
    session = None
    if "link" in opts:
        link = _virtual_link(virtual, opts["link"])
        session = attach_link(app, link, link_ms(opts["link-ms"]) if "link-ms" in opts else None)
    timing = layout.timing
    debouncer = Debouncer(len(sensor_of), sensor_of, timing["debounce_scans"], timing["stable_ms"])
    waiter = VirtualWait(link, control, lifeline)

    def report(e):
        sys.stderr.write("zuni-virtual: error in the loop:\n")
        sys.print_exception(e, sys.stderr)  # type: ignore

    loop = Loop(layout, sensors, debouncer, app, session, leds, buttons, waiter, control, report, None, journal, fault)
    if control is not None:
        control.stats = loop.stats
        control.app = app
    got = (opts.get("link", "none"), opts.get("control", "none"), opts.get("flash", "none"))
    virtual.log("layout %s, ruleset %s, link %s, control %s, flash %s" % ((layout.name, app.game.ruleset) + got))
    try:
        loop.run()
    except KeyboardInterrupt:
        pass
    finally:
        if control is not None:
            control.close()


def main():
    if sys.platform == "rp2":
        main_pico()
    else:
        main_virtual(sys.argv[1:])


if __name__ == "__main__":
    main()
