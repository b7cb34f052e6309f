"""MicroPython side of tools/bench_firmware.py: plays one scripted game through the
board application, scan by scan, and prints one JSON line of measurements.

Imported (as .mpy) by ``micropython -c "import bench_firmware_runner as r; r.main(SPEC)"``
where SPEC is the path of a JSON file: ``{"layout": path, "ruleset": text,
"moves": path of a text file with one move per line, "journal": dir}``. Moves are read
one at a time, so the script costs the heap no more than the board's own loop would.
The clock is simulated (10 ms per scan), the processing time of each scan is measured
with ``time.ticks_us``.
"""

import gc
import json
import time

gc.collect()
_BASE = gc.mem_alloc()
_MEM = {}


def _mark(label):
    gc.collect()
    _MEM[label] = gc.mem_alloc() - _BASE


# As firmware/main.py: the layout is read first, into a Board (zuni_board.load_board
# unloads the loader), and only then are the engine and the app imported.
from zuni_board import load_board  # noqa: E402

zuni = None
BoardApp = None


def load_code():
    global zuni, BoardApp
    import zuni as _zuni

    zuni = _zuni
    _mark("engine_code")
    from zuni_board.app import BoardApp as _App

    BoardApp = _App
    _mark("app_code")


from zuni_board.scan import Debouncer  # noqa: E402


class Bench:
    def __init__(self, spec, layout=None):
        if layout is None:
            layout = load_board(spec["layout"])
            _mark("layout")
            load_code()
        if spec.get("game_mark"):
            # The game's own size, for the table (not in the bisected runs: a game made
            # and dropped before the app's would leave holes that distort the bisection).
            game = zuni.new_game(spec["ruleset"])
            _mark("game")
            del game
            gc.collect()
        self.flash = None
        journal = spec.get("journal")
        if spec.get("flash"):
            # The journal on littlefs over a block device that counts the programs and
            # erases littlefs asks for (the virtual board's, zuni_hw.virtual).
            from zuni_hw import virtual

            self.flash = virtual.mount_flash(spec["flash"], "/flash", 64)
            journal = "/flash"
        self.app = BoardApp(layout, spec["ruleset"], journal, None)
        # As firmware/main.py: a commit's journal write waits for the next scan. (Older
        # firmware lacks it: the runner also measures those, for before/after figures.)
        if hasattr(self.app, "defer_writes"):
            self.app.defer_writes()
        self.outbox = getattr(self.app, "outbox", None)
        _mark("app")
        geometry = self.app.game.geometry
        self.names = geometry.names
        self.sensor_of = self.app.sensor_of
        timing = layout.timing
        self.scan_ms = timing["scan_ms"]
        self.stable_ms = timing["stable_ms"]
        n = len(self.names)
        self.raw = bytearray(layout.sensor_count)
        self.deb = Debouncer(n, self.sensor_of, timing["debounce_scans"], self.stable_ms)
        self.now = 0
        self.cycles = 0
        self.total_us = 0
        self.worst_us = 0
        self.last_change = 0
        self.worst_latency_ms = 0
        self.worst_commit_us = 0
        self.peak = 0
        self.frames = 0
        self.ok_next = False
        self.extendable = False
        self.timing = bool(spec.get("timing"))
        self.latency_sum = 0
        self.commits = 0
        self.flash_max = [0, 0]  # most programs, erases littlefs did for one move
        self._flash_seen = (0, 0)
        # Every scan's time in us (timing runs only: 2 bytes a scan would distort the
        # heap bisection): the PC takes each scan's best over several runs, so that
        # another process taking the core does not pass for the firmware's own work.
        # What each scan did (bits: 1 a new stable position, 2 the journal and messages
        # of the scan before, 4 a commit), for the table's breakdown of the worst scans.
        # Both made first (main), before the app fragments the heap.
        self.times = _TIMES
        self.kinds = _KINDS

    def cycle(self, buttons=0):
        app = self.app
        before = app.commits
        kinds = self.kinds
        if kinds is not None and self.cycles < len(kinds):
            kinds[self.cycles] = 2 if self.outbox is not None and self.outbox.pending() else 0
        t0 = time.ticks_us()
        stable = self.deb.step(self.now, self.raw)
        app.step(self.now, stable, buttons, self.deb.in_motion())
        if app.frame_dirty(self.now):
            app.frame(self.now)
            self.frames += 1
        dt = time.ticks_diff(time.ticks_us(), t0)
        times = self.times
        if times is not None and self.cycles < len(times):
            times[self.cycles] = min(dt, 65535)
        self.cycles += 1
        self.total_us += dt
        if dt > self.worst_us:
            self.worst_us = dt
        if kinds is not None and self.cycles <= len(kinds):
            if stable is not None:
                kinds[self.cycles - 1] |= 1
            if app.commits != before:
                kinds[self.cycles - 1] |= 4
        if app.commits != before:
            if dt > self.worst_commit_us:
                self.worst_commit_us = dt
            # Simulated ms from the last sensor change to this scan, plus the real
            # time the scan took to commit and draw.
            if not self.extendable:  # (an extendable move waits for the player's OK)
                latency = time.ticks_diff(self.now, self.last_change) + (dt + 999) // 1000
                self.latency_sum += latency
                self.commits += 1
                if latency > self.worst_latency_ms:
                    self.worst_latency_ms = latency
        self.now += self.scan_ms

    def set(self, point, value):
        self.raw[self.sensor_of[point]] = value
        self.last_change = self.now

    def settle(self):
        for _ in range((self.stable_ms + 4 * self.scan_ms) // self.scan_ms + 1):
            self.cycle()

    def setup(self):
        target = self.app.target
        for i in range(len(target)):
            if target[i]:
                self.set(i, 1)
        self.settle()
        if self.app.phase != 1:
            raise RuntimeError("setup did not start play")

    def play(self, index, text):
        app = self.app
        if len(app.game.move_stack) > index:
            return  # a forced pass, committed by the app with the move before it
        before = app.commits
        if text != "pass":
            move = app.game.parse_move(text)
            origin = move.origin
            dest = move.dest
            if origin >= 0:
                self.set(origin, 0)
                self.settle()
            if dest >= 0:
                if dest != origin:
                    for c in move.captures:
                        if c == dest:
                            self.set(c, 0)
                self.set(dest, 1)
                self.settle()
            for c in move.captures:
                if c != dest and self.raw[self.sensor_of[c]]:
                    self.set(c, 0)
                    self.settle()
        waited = 0
        r = app.result
        # A chain that could go on: the player presses OK at once (else the 2 s
        # settle time would end it).
        ok = r is not None and r.kind == 2 and r.extendable
        self.extendable = ok  # committed by the OK press: no commit latency of the board
        while app.commits == before:
            self.cycle(1 if (ok and waited == 0) else 0)
            waited += 1
            if waited > 400:
                raise RuntimeError("%s was not committed" % text)
        # Two scans more: the move's journal record and its garbage collection.
        self.cycle()
        self.cycle()
        flash = self.flash
        if flash is not None:
            seen = self._flash_seen
            programs = flash.writes - seen[0]
            erases = flash.erases - seen[1]
            self._flash_seen = (flash.writes, flash.erases)
            if programs > self.flash_max[0]:
                self.flash_max[0] = programs
            if erases > self.flash_max[1]:
                self.flash_max[1] = erases
        if self.timing:
            return  # the firmware's own collections are part of what is timed
        gc.collect()
        used = gc.mem_alloc()
        if used > self.peak:
            self.peak = used


_TIMES = None  # type: ignore
_KINDS = None  # type: ignore


def main(spec_path):
    global _TIMES, _KINDS
    f = open(spec_path)
    spec = json.load(f)
    f.close()
    if spec.get("timing"):
        from array import array

        n = int(spec.get("max_cycles", 40000))
        _TIMES = array("H", bytes(2 * n))
        _KINDS = bytearray(n)
        gc.collect()
    moves_path = spec["moves"]
    bench = Bench(spec)
    del spec
    gc.collect()  # the layout was only needed to build the maps: as main.py, drop it
    bench.setup()
    stack = bench.app.game.move_stack
    count = 0
    f = open(moves_path)
    for line in f:
        text = line.strip()
        if not text:
            continue
        bench.play(count, text)
        if stack[count].text() != text:
            raise RuntimeError("move %d: expected %s, committed %s" % (count, text, stack[count].text()))
        count += 1
    f.close()
    out = {
        "ok": True,
        "moves": count,
        "cycles": bench.cycles,
        "frames": bench.frames,
        "mean_us": bench.total_us // bench.cycles,
        "worst_us": bench.worst_us,
        "worst_commit_us": bench.worst_commit_us,
        "worst_latency_ms": bench.worst_latency_ms,
        "peak_alloc": bench.peak,
        "phase": bench.app.phase,
        "mem": _MEM,
    }
    if bench.commits:
        out["mean_latency_ms"] = bench.latency_sum // bench.commits
    flash = bench.flash
    if flash is not None:
        out["flash_programs"] = flash.writes
        out["flash_erases"] = flash.erases
        out["flash_programs_max"] = bench.flash_max[0]
        out["flash_erases_max"] = bench.flash_max[1]
    times = bench.times
    if times is not None:
        # Every scan's time, 4 hex digits each, in lines of 256 scans (a small heap).
        n = min(bench.cycles, len(times))
        for start in range(0, n, 256):
            print("TIMES " + "".join(["%04x" % times[i] for i in range(start, min(n, start + 256))]))
            print("KINDS " + "".join(["%x" % bench.kinds[i] for i in range(start, min(n, start + 256))]))
    print("BENCH " + json.dumps(out))
