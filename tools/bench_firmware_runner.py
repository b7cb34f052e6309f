"""MicroPython side of tools/bench_firmware.py: plays one scripted game through the
board application, scan by scan, and prints one JSON line of measurements.

Imported (as .mpy) by ``micropython -c "import bench_firmware_runner as r; r.main(SPEC)"``
where SPEC is the path of a JSON file: ``{"layout": path, "ruleset": text,
"moves": path of a text file with one move per line, "journal": dir, "hint_every": N,
"packed": "zuni_layout"}`` (``packed``: the module of the layout packed as tools/deploy.py
packs it for the Pico, beside the layout file, whose folder ``bench_firmware.run_once``
puts on MICROPYPATH: read as the board reads it at boot; without it the JSON is read).
Moves are read one at a time, so the script costs the heap no more than the board's own
loop would. With ``hint_every`` the player presses HINT before every N-th move and waits
until the board shows its own hint (zuni_board.hint, a slice per scan cycle); in timing
runs those scans are marked in the scan kinds (bit 8), so that the PC reports them apart.
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
from zuni_board import PLAY, load_board  # noqa: E402

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
            # ``packed``: the layout packed as on the Pico, on MICROPYPATH (run_once).
            layout = load_board(spec["layout"], spec.get("packed"))
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
        log = None
        if spec.get("flash"):
            # Timing runs: the journal on littlefs over a block device that counts the
            # programs and erases (the virtual board's, zuni_hw.virtual), with its flash
            # log as firmware/main.py has it (bench_firmware_timing.io_loop).
            import bench_firmware_timing

            self.flash, journal, log = bench_firmware_timing.mount(spec["flash"])
        self.app = BoardApp(layout, spec["ruleset"], journal, None)
        # As firmware/main.py: a commit's journal write waits for the next scan. (Older
        # firmware lacks it: the runner also measures those, for before/after figures.)
        if hasattr(self.app, "defer_writes"):
            self.app.defer_writes()
        self.outbox = getattr(self.app, "outbox", None)
        self.io = None  # timing runs: firmware/main.py's flash log, quiet time and link
        self.played = 0  # moves the player made (not the forced passes)
        if "clock" in spec:
            # A new game as the host starts it, on a clock (zuni_board.clocks) unless
            # the spec's is "": the clocks' heap, measured against the same without.
            clock = spec["clock"]
            from zuni_board.hostcmd import HostCommands

            HostCommands(self.app).cmd_new(0, ("clock=%s " % clock if clock else "") + spec["ruleset"])
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
        self.last_change = 0
        self.peak = 0
        self.frames = 0
        self.extendable = False
        self._init_hint(spec.get("hint_every", 0))
        self._init_timer(spec, layout, log)

    def _init_timer(self, spec, layout, log):
        # Timing runs only: the measuring code (bench_firmware_timing) is not even loaded
        # in the runs whose heap is bisected.
        self.timer = None
        if spec.get("timing"):
            import bench_firmware_timing

            self.timer = bench_firmware_timing.Timer(spec)
            self.timer.attach_leds(layout.leds, self.app.led_of)
            self.io = bench_firmware_timing.IoLoop(self, log, layout.timing)

    def _init_hint(self, hint_every):
        # The board's own hint (issue 17): HINT before every ``hint_every``-th move.
        self.hint_every = hint_every
        self.thinking = False
        self.hints = 0
        self.hint_cycles = 0
        self.hint_nodes = 0
        self.hint_worst_nodes = 0
        self.hint_worst_work = 0
        self.hint_depth_min = 99
        self._search = None  # type: ignore
        self._waited = 0

    def cycle(self, buttons=0):
        app = self.app
        before = app.play.commits
        stack = app.game.move_stack
        plies = len(stack)
        outbox = self.outbox
        queued = outbox is not None and outbox.pending()
        t0 = time.ticks_us()
        stable = self.deb.step(self.now, self.raw)
        if outbox is not None:
            app.step(self.now, stable, buttons, self.deb.in_motion())
        else:
            app.step(self.now, stable, buttons)  # older firmware (before/after figures)
        frame = None
        if app.frame_dirty(self.now):
            frame = app.frame(self.now)
            self.frames += 1
        if self.io is not None:
            self.io.scan(stable, buttons)  # the rest of firmware/main.py's scan, and the link
        dt = time.ticks_diff(time.ticks_us(), t0)
        if self.io is not None:
            self.io.count_commit(before)
        if self.timer is not None:
            if frame is not None:
                self.timer.show(self, frame)  # the Pico's LED driver, timed apart
            # The app has made the new position (older firmware: always, in the commit).
            complete = not app.play.fresh
            # A forced pass is the board's, not a player's move (the scan after the move's
            # commit finds it): the latencies are the player's moves'.
            player = app.play.commits != before and len(stack) > plies and stack[plies].text() != "pass"
            self.timer.scan(self, dt, stable is not None, queued, app.play.commits != before, complete, player)
            if self.thinking and self.cycles < len(self.timer.kinds):
                self.timer.kinds[self.cycles] |= 8  # the board thinks (HINT)
        if self.thinking:
            self.hint_cycles += 1
        self.cycles += 1
        self.now += self.scan_ms

    def set(self, point, value):
        self.raw[self.sensor_of[point]] = value
        self.last_change = self.now
        if self.io is not None:
            self.io.changed()

    def settle(self):
        for _ in range((self.stable_ms + 4 * self.scan_ms) // self.scan_ms + 1):
            self.cycle()

    def setup(self):
        target = self.app.target
        for i in range(len(target)):
            if target[i]:
                self.set(i, 1)
        self.settle()
        if self.app.phase != PLAY:
            raise RuntimeError("setup did not start play")

    def hint(self):
        """Press HINT and let the board think until it shows its own hint."""
        if not self.hint_begin():
            return
        while self.hint_cycle():
            pass
        self.hint_end()

    def hint_begin(self):
        """Press HINT (when the position has a choice); True if the board thinks."""
        app = self.app
        pos = app.play.pos
        if app.phase != PLAY or pos is None or len(pos.foot) < 2:
            return False
        self.thinking = True  # the press counts too: it loads the search's code
        self.cycle(4)
        self._waited = 0
        # The search's code loads over the scans after the press, then the search is made
        # (zuni_board.play.Play.think).
        while app.play.thinking is None and app.play.hint_busy() and self._waited < 50:
            self.cycle()
            self._waited += 1
        self._search = app.play.thinking  # zuni_board.hintrun.search_for's
        self._loading = self._waited  # scans after the press before the first slice's
        if self._search is None:
            raise RuntimeError("HINT started no search")
        return True

    def hint_cycle(self):
        """One scan while the board thinks; False once it shows its hint."""
        if not self.app.play.hint_busy():
            return False
        self.cycle()
        self._waited += 1
        if self._waited > 1000:
            raise RuntimeError("the hint did not end")
        return True

    def hint_end(self):
        app = self.app
        search = self._search
        self._search = None
        self.thinking = False
        if app.play.hint is None or app.play.hint.move != search.best:
            raise RuntimeError("the board did not show its hint")
        if search.oom:
            # The search ran out of heap: its hint is weaker than the search's own, so
            # the heap the game is measured in was too small for the board's hint.
            raise MemoryError("the hint's search ran out of heap")
        self.hints += 1
        self.hint_nodes += search.nodes
        self.hint_worst_nodes = max(self.hint_worst_nodes, search.nodes)
        self.hint_worst_work = max(self.hint_worst_work, search.work)
        self.hint_depth_min = min(self.hint_depth_min, search.depth)
        if self.timer is not None:
            # Per hint: the slice in which each depth completed, and the work (the PC
            # tells from the scan times which depth the chip reaches in its time).
            self.timer.hints.append((list(search.depth_slices), search.work, self._loading))

    def play(self, index, text):
        app = self.app
        if self.hint_every and index % self.hint_every == 0 and len(app.game.move_stack) == index:
            self.hint()
        if len(app.game.move_stack) > index:
            return  # a forced pass, committed by the app with the move before it
        before = app.play.commits
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
        r = app.play.result
        # A chain that could go on: the player presses OK at once (else the 2 s
        # settle time would end it).
        ok = r is not None and r.kind == 2 and r.extendable
        self.extendable = ok  # committed by the OK press: no commit latency of the board
        while app.play.commits == before:
            self.cycle(1 if (ok and waited == 0) else 0)
            waited += 1
            if waited > 400:
                raise RuntimeError("%s was not committed" % text)
        # Three scans more, as a player's hand takes at least: the next position's legal
        # moves (zuni_board.app's _catch_up), the move's journal record, its garbage
        # collection.
        self.cycle()
        self.cycle()
        self.cycle()
        self.played += 1
        if self.io is not None and self.played % 4 == 0:
            # Timing runs: a player's pause after every fourth move of the player's (half
            # a second), the quiet time in which the journal does its flash jobs.
            for _ in range(500 // self.scan_ms):
                self.cycle()
        if self.timer is not None:
            self.timer.moved(self)
            return  # the firmware's own collections are part of what is timed
        gc.collect()
        used = gc.mem_alloc()
        if used > self.peak:
            self.peak = used


def main(spec_path):
    f = open(spec_path)
    spec = json.load(f)
    f.close()
    if spec.get("timing"):
        # The scan log first, before the app fragments the heap.
        import bench_firmware_timing

        bench_firmware_timing.allocate(int(spec.get("max_cycles", 40000)))
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
    import sys

    out = {
        "ok": True,
        "moves": count,
        "cycles": bench.cycles,
        "frames": bench.frames,
        "peak_alloc": bench.peak,
        "phase": bench.app.phase,
        "mem": _MEM,
        # The host's commands are loaded at the host's first frame only (zuni_board.hostcmd):
        # a board that plays without one never holds them.
        "host_code": "zuni_board.hostcmd" in sys.modules or "zuni_link.commands" in sys.modules,
    }
    clock = getattr(bench.app, "clock", None)
    if clock is not None:
        out["clock"] = clock.spec  # the game ran on a clock (spec "clock")
    if bench.hints:
        out["hints"] = bench.hints
        out["hint_cycles"] = bench.hint_cycles
        out["hint_mean_nodes"] = bench.hint_nodes // bench.hints
        out["hint_worst_nodes"] = bench.hint_worst_nodes
        out["hint_worst_work"] = bench.hint_worst_work
        out["hint_min_depth"] = bench.hint_depth_min
    if bench.io is not None:
        bench.io.report(out)
    if bench.timer is not None:
        bench.timer.report(bench, out)
    print("BENCH " + json.dumps(out))
