"""MicroPython side of tools/bench_firmware.py: plays one scripted game through the
board application, scan by scan, and prints one JSON line of measurements.

Imported (as .mpy) by ``micropython -c "import bench_firmware_runner as r; r.main(SPEC)"``
where SPEC is the path of a JSON file: ``{"layout": path, "ruleset": text,
"moves": path of a text file with one move per line, "journal": dir, "hint_every": N}``.
Moves are read one at a time, so the script costs the heap no more than the board's own
loop would. With ``hint_every`` the player presses HINT before every N-th move and waits
until the board shows its own hint (zuni_board.hint, a slice per scan cycle): the scan
cycles while it thinks are measured apart.
The clock is simulated (10 ms per scan), the processing time of each scan is measured
with ``time.ticks_us``.
"""

import gc
import json
import time

gc.collect()
_BASE = gc.mem_alloc()
_MEM = {}
# RP2040 against this unix port: legal_moves() is 160-190 times slower there
# (MICROPYTHON-NOTES, measured 2026-12-01); the main loop is busy 2.4-3.1 ms per iteration
# on average there. A hint's time on the chip: each scan cycle while it thinks takes
# max(scan_ms, its unix time x CHIP_FACTOR + CHIP_LOOP_US).
CHIP_FACTOR = 190
CHIP_LOOP_US = 3100


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
        self.hint_every = spec.get("hint_every", 0)
        self.thinking = False
        self.hints = 0
        self.hint_cycles = 0
        self.hint_worst_us = 0
        self.hint_chip_us = 0  # estimated chip time of the current hint
        self.hint_worst_chip_us = 0
        self.hint_nodes = 0
        self.hint_worst_nodes = 0
        self.hint_worst_work = 0
        self.hint_depth_min = 99
        # Timing runs: every thinking cycle's time and each hint's cycle count, so that
        # tools/bench_firmware.py can take, cycle by cycle, the best of its runs (the
        # search is deterministic; a shared machine preempts a run now and then).
        self.hint_times = None
        self.hint_lens = None  # type: list | None
        # Histogram of scan times in 10 us buckets (timing runs only: it costs 8 KB,
        # which would distort the heap bisection).
        self.hist = None
        if spec.get("timing"):
            from array import array

            self.hist = array("I", bytes(4 * 2001))
            self.hint_times = array("H")
            self.hint_lens = []

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
        if self.thinking:
            # Apart from the play figures: the board thinks only after HINT.
            self.hint_cycles += 1
            if dt > self.hint_worst_us:
                self.hint_worst_us = dt
            self.hint_chip_us += max(self.scan_ms * 1000, dt * CHIP_FACTOR + CHIP_LOOP_US)
            if self.hint_times is not None:
                self.hint_times.append(min(dt, 65535))
            self.now += self.scan_ms
            return
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

    def hint(self):
        """Press HINT and let the board think until it shows its own hint."""
        app = self.app
        pos = app.pos
        if app.phase != 1 or pos is None or len(pos.foot) < 2:
            return
        # The press itself counts: it loads the search's code (zuni_board.hint).
        self.thinking = True
        self.hint_chip_us = 0
        first = self.hint_cycles
        self.cycle(4)
        search = app._search
        if search is None:
            raise RuntimeError("HINT started no search")
        while app._search is not None:
            self.cycle()
            if self.hint_chip_us > 60000000:
                raise RuntimeError("the hint did not end")
        self.thinking = False
        if self.hint_lens is not None:
            self.hint_lens.append(self.hint_cycles - first)
        if app.hint is None or app.hint.move != search.best:
            raise RuntimeError("the board did not show its hint")
        self.hints += 1
        self.hint_nodes += search.nodes
        self.hint_worst_nodes = max(self.hint_worst_nodes, search.nodes)
        self.hint_worst_work = max(self.hint_worst_work, search.work)
        self.hint_depth_min = min(self.hint_depth_min, search.depth)
        self.hint_worst_chip_us = max(self.hint_worst_chip_us, self.hint_chip_us)
        del search

    def play(self, index, text):
        app = self.app
        if self.hint_every and index % self.hint_every == 0 and len(app.game.move_stack) == index:
            self.hint()
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
    if bench.hints:
        out["hints"] = bench.hints
        out["hint_cycles"] = bench.hint_cycles
        out["hint_worst_cycle_us"] = bench.hint_worst_us
        out["hint_mean_nodes"] = bench.hint_nodes // bench.hints
        out["hint_worst_nodes"] = bench.hint_worst_nodes
        out["hint_worst_work"] = bench.hint_worst_work
        out["hint_min_depth"] = bench.hint_depth_min
        out["hint_worst_chip_ms"] = bench.hint_worst_chip_us // 1000
        if bench.hint_times is not None:
            out["hint_times"] = list(bench.hint_times)
            out["hint_lens"] = bench.hint_lens
            out["scan_ms"] = bench.scan_ms
            out["chip_factor"] = CHIP_FACTOR
            out["chip_loop_us"] = CHIP_LOOP_US
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
