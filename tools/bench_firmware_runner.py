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


def _imports():
    global zuni, BoardApp
    import zuni as _zuni

    zuni = _zuni
    _mark("engine_code")
    from zuni_board.app import BoardApp as _App

    BoardApp = _App
    _mark("app_code")


from zuni_board.scan import Debouncer  # noqa: E402


class Bench:
    def __init__(self, spec):
        layout = load_board(spec["layout"])
        _mark("layout")
        _imports()
        if spec.get("timing"):
            # The game's own size, for the table (timing runs only: a game made and
            # dropped before the app's would leave holes that distort the bisection).
            game = zuni.new_game(spec["ruleset"])
            _mark("game")
            del game
            gc.collect()
        self.app = BoardApp(layout, spec["ruleset"], spec.get("journal"), None)
        _mark("app")
        geometry = self.app.game.geometry
        self.names = geometry.names
        self.sensor_of, self.led_of = self.app.sensor_of, self.app.led_of
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
        # Histogram of scan times in 10 us buckets (timing runs only: it costs 8 KB,
        # which would distort the heap bisection).
        self.hist = None
        if spec.get("timing"):
            from array import array

            self.hist = array("I", bytes(4 * 2001))

    def cycle(self, buttons=0):
        app = self.app
        before = app.commits
        t0 = time.ticks_us()
        stable = self.deb.step(self.now, self.raw)
        app.step(self.now, stable, buttons, self.deb.in_motion())
        if app.frame_dirty(self.now):
            app.frame(self.now)
            self.frames += 1
        dt = time.ticks_diff(time.ticks_us(), t0)
        self.cycles += 1
        self.total_us += dt
        if dt > self.worst_us:
            self.worst_us = dt
        if self.hist is not None:
            self.hist[min(dt // 10, 2000)] += 1
        if app.commits != before:
            if dt > self.worst_commit_us:
                self.worst_commit_us = dt
            # Simulated ms from the last sensor change to this scan, plus the real
            # time the scan took to commit and draw.
            latency = time.ticks_diff(self.now, self.last_change) + (dt + 999) // 1000
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
        while app.commits == before:
            self.cycle(1 if (ok and waited == 0) else 0)
            waited += 1
            if waited > 400:
                raise RuntimeError("%s was not committed" % text)
        gc.collect()
        used = gc.mem_alloc()
        if used > self.peak:
            self.peak = used


def main(spec_path):
    f = open(spec_path)
    spec = json.load(f)
    f.close()
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
    hist = bench.hist
    if hist is not None:
        for name, q in (("p50_us", 0.5), ("p99_us", 0.99), ("p999_us", 0.999)):
            want = q * bench.cycles
            seen = 0
            for i in range(len(hist)):
                seen += hist[i]
                if seen >= want:
                    out[name] = i * 10 + 10
                    break
    print("BENCH " + json.dumps(out))
