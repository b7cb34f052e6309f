"""zuni_hw.pico drivers against explicit fake pins, SPI bus and NeoPixel buffer that
record what the driver did (both interpreters). The fakes model the parts from their
datasheets: a 74HC165 chain, a diode switch matrix, a WS2812 chain, a bouncing button."""

from check import eq, raises

try:
    import zuni_hw  # noqa: F401
except ImportError:  # CPython: zuni_hw is board-only (not installed for the host)
    import os
    import sys

    sys.path.append(
        os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "firmware", "lib")
    )

from zuni_hw import pico
from zuni_hw.port import StreamPort

# -- fakes ---------------------------------------------------------------------------


class Log:
    def __init__(self):
        self.events = []
        self.t = 0

    def add(self, what):
        self.events.append(what)


class FakePin:
    """A GPIO: ``pin()`` reads, ``pin(v)`` drives (recorded in the log)."""

    def __init__(self, log, name, value=1, reader=None):
        self.log = log
        self.name = name
        self.value = value
        self.reader = reader

    def __call__(self, *v):
        if v:
            self.value = v[0]
            if self.log is not None:
                self.log.add((self.name, v[0]))
            return None
        if self.reader is not None:
            return self.reader()
        return self.value


class HC165Model:
    """A chain of 74HC165s: ``inputs[chip][k]`` is the level of input k (A=0 .. H=7) of
    chip ``chip`` (chip 0 nearest the MCU). Loads while SH/LD is low; shifts out H first."""

    def __init__(self, chips, log):
        self.inputs = [[1] * 8 for _ in range(chips)]
        self.reg = [[0] * 8 for _ in range(chips)]
        self.log = log
        self.latch = FakePin(log, "latch", 1)
        self.loads = 0

    def load_if_low(self):
        if self.latch.value == 0:
            self.reg = [list(c) for c in self.inputs]
            self.loads += 1


class FakeSPI:
    """SPI reading the model: the latch's low phase loads the registers (checked at each
    latch edge through the log); readinto clocks the bits out MSB first."""

    def __init__(self, model, log):
        self.model = model
        self.log = log

    def readinto(self, buf, write=0):
        log = self.log
        # The registers must have been loaded (latch low) and be in shift mode (latch high).
        assert self.model.latch.value == 1, "SPI clocked while SH/LD is low: the 165 would not shift"
        log.add(("spi", len(buf)))
        # Serial stream: chip 0's H, G, ..., A, then chip 1's H ...
        bits = []
        for chip in self.model.reg:
            for k in range(7, -1, -1):
                bits.append(chip[k])
        for i in range(len(buf)):
            b = 0
            for j in range(8):
                b = (b << 1) | (bits[i * 8 + j] if i * 8 + j < len(bits) else 1)
            buf[i] = b


class LatchPin(FakePin):
    def __init__(self, log, model):
        FakePin.__init__(self, log, "latch", 1)
        self.model = model

    def __call__(self, *v):
        r = FakePin.__call__(self, *v)
        if v:
            self.model.latch.value = v[0]
            self.model.load_if_low()
        return r


def make_chain(chips):
    log = Log()
    model = HC165Model(chips, log)
    latch = LatchPin(log, model)
    spi = FakeSPI(model, log)
    sleeps = []

    def sleep_us(us):
        log.add(("sleep", us))
        sleeps.append(us)

    chain = pico.HC165Chain(spi, latch, chips * 8, True, sleep_us)
    return chain, model, log


# -- 74HC165 chain ----------------------------------------------------------------------


def test_hc165_latch_then_read_order():
    chain, model, log = make_chain(2)
    log.events = []
    chain.read()
    eq(
        log.events,
        [("latch", 0), ("sleep", 1), ("latch", 1), ("sleep", 1), ("spi", 2)],
        "SH/LD low (load), wait, high (shift), wait, then clock the bits",
    )
    eq(model.loads, 1, "one parallel load per read")


def test_hc165_bit_order_first_bit_is_index_0():
    chain, model, log = make_chain(2)
    # Active low: a closed switch reads 0. Close chip 0 input H, chip 0 input A, chip 1 input G.
    model.inputs[0][7] = 0
    model.inputs[0][0] = 0
    model.inputs[1][6] = 0
    out = chain.read()
    on = [i for i in range(16) if out[i]]
    eq(on, [0, 7, 9], "H of the nearest chip is index 0, its A index 7, the next chip's G index 9")


def test_hc165_each_single_input():
    chain, model, log = make_chain(3)
    for chip in range(3):
        for k in range(8):
            model.inputs = [[1] * 8 for _ in range(3)]
            model.inputs[chip][k] = 0
            out = chain.read()
            expected = chip * 8 + (7 - k)
            eq([i for i in range(24) if out[i]], [expected], "chip %d input %d" % (chip, k))


def test_hc165_active_high_and_reused_buffer():
    log = Log()
    model = HC165Model(1, log)
    chain = pico.HC165Chain(FakeSPI(model, log), LatchPin(log, model), 8, False, lambda us: None)
    model.inputs[0] = [0, 0, 0, 0, 0, 0, 0, 1]  # H high: with active_low False, a magnet
    first = chain.read()
    eq(bytes(first), b"\x01" + b"\x00" * 7, "active high")
    second = chain.read()
    eq(first is second, True, "the same buffer every scan (no allocation)")


def test_hc165_change_after_quiet_scans_is_seen():
    chain, model, log = make_chain(1)
    for _ in range(3):
        eq(sum(chain.read()), 0, "nothing closed")
    model.inputs[0][3] = 0
    eq([i for i in range(8) if chain.read()[i]], [4], "input D (index 4) closed after quiet scans")
    model.inputs[0][3] = 1
    eq(sum(chain.read()), 0, "and open again")


def test_hc165_bad_count():
    with raises(ValueError, "count 12"):
        pico.HC165Chain(None, FakePin(None, "l"), 12)


def test_hc165_read_allocates_nothing():
    try:
        import micropython
    except ImportError:
        return
    if not hasattr(micropython, "heap_lock"):
        return

    class QuietSPI:
        def __init__(self):
            self.v = 0x5A

        def readinto(self, buf, write=0):
            buf[0] = self.v

    class QuietPin:
        def __call__(self, v=None):  # no *args: that would allocate a tuple
            return None

    spi = QuietSPI()
    chain = pico.HC165Chain(spi, QuietPin(), 32, True, lambda us: None)
    chain.read()
    micropython.heap_lock()
    try:
        out = chain.read()  # unchanged: the fast path
        first = out[0]
        spi.v = 0xDA  # a change: the full decode
        out = chain.read()
    finally:
        micropython.heap_unlock()
    eq(first, 1, "bit 7 of 0x5A is 0: closed")
    eq(out[0], 0, "bit 7 of 0xDA is 1: open")


def test_matrix_leds_buttons_allocate_nothing():
    try:
        import micropython
    except ImportError:
        return
    if not hasattr(micropython, "heap_lock"):
        return

    class QuietPin:
        def __init__(self):
            self.v = 1

        def __call__(self, v=None):
            if v is None:
                return self.v
            self.v = v
            return None

    class QuietNeo:
        def __init__(self, n):
            self.buf = bytearray(3 * n)

        def write(self):
            pass

    rows = [QuietPin() for _ in range(3)]
    cols = [QuietPin() for _ in range(4)]
    matrix = pico.DiodeMatrix(rows, cols, True, 30, lambda us: None)
    leds = pico.LedChain(QuietNeo(25), list(range(25)), "GRB", 48)
    limited = pico.LedChain(QuietNeo(25), list(range(25)), "GRB", 128, 12.0, 1.0, 100)
    white = bytearray(b"\xff" * 75)
    frame = bytearray(range(75))
    dark = bytearray(75)  # a commit's own frame (zuni_board.app): nothing lit
    shown_dark = pico.LedChain(QuietNeo(25), list(range(25)), "GRB", 48)
    shown_dark.show(white)
    ok = QuietPin()
    buttons = pico.Buttons([(1, ok), (2, QuietPin())])
    micropython.heap_lock()
    try:
        matrix.read()
        leds.show(frame)
        limited.show(white)  # over the budget: scaled down
        shown_dark.show(dark)  # the fast path: one compare
        t = 0
        for level in (0, 0, 0, 1, 1, 1, 1, 1):
            ok.v = level
            t += 10
            buttons.read(t)
        buttons.edge(1)
        buttons.read(t + 10)
    finally:
        micropython.heap_unlock()
    eq(leds.np.buf[3 * 24 + 1], 14, "last point red: 72 * 48 / 255, rounded up")
    eq(limited.limited, 1, "the white frame was limited")
    eq(bytes(shown_dark.np.buf), bytes(75), "the dark frame cleared what the white one lit")
    eq(shown_dark.level_sum, 0)


# -- diode matrix -----------------------------------------------------------------------


class MatrixModel:
    """Switches at (row, col). With diodes, a column reads low iff a row driven low has a
    closed switch on it. Without diodes, current also sneaks through other closed
    switches (col -> switch -> undriven row -> switch -> col ...), which ghosts."""

    def __init__(self, nrows, ncols, diodes=True):
        self.closed = set()
        self.diodes = diodes
        self.log = Log()
        self.rows = [FakePin(self.log, "row%d" % r, 1) for r in range(nrows)]
        self.cols = [FakePin(None, "col%d" % c, 1, self._reader(c)) for c in range(ncols)]
        self.reads = []

    def _reader(self, c):
        def read():
            low_rows = [r for r in range(len(self.rows)) if self.rows[r].value == 0]
            self.reads.append((c, tuple(low_rows), len([e for e in self.log.events if e[0] == "sleep"])))
            return 0 if self._pulled_low(c, low_rows) else 1

        return read

    def _pulled_low(self, c, low_rows):
        if self.diodes:
            return any((r, c) in self.closed for r in low_rows)
        # Without diodes: flood through closed switches from column c.
        seen_cols = {c}
        seen_rows = set()
        frontier = [("c", c)]
        while frontier:
            kind, i = frontier.pop()
            if kind == "c":
                for r, cc in self.closed:
                    if cc == i and r not in seen_rows:
                        seen_rows.add(r)
                        frontier.append(("r", r))
            else:
                if i in low_rows:
                    return True
                for r, cc in self.closed:
                    if r == i and cc not in seen_cols:
                        seen_cols.add(cc)
                        frontier.append(("c", cc))
        return False


def read_matrix(model):
    def sleep_us(us):
        model.log.add(("sleep", us))

    m = pico.DiodeMatrix(model.rows, model.cols, True, 30, sleep_us)
    return m, m.read()


def test_matrix_scans_one_row_at_a_time_with_settle():
    model = MatrixModel(3, 4)
    model.closed = {(1, 2)}
    m, out = read_matrix(model)
    eq([i for i in range(12) if out[i]], [1 * 4 + 2], "index = row * ncols + col")
    for c, low_rows, _sleeps in model.reads:
        eq(len(low_rows), 1, "exactly one row low while reading column %d" % c)
    # Each row: driven low, settle, 4 column reads, back high.
    rows_low = [e for e in model.log.events if e[0].startswith("row") and e[1] == 0]
    eq([e[0] for e in rows_low], ["row0", "row1", "row2"], "rows in order")
    settle = [e for e in model.log.events if e[0] == "sleep"]
    eq(settle, [("sleep", 30)] * 3, "settle time after driving each row")
    eq([r.value for r in model.rows], [1, 1, 1], "all rows idle high after the scan")
    # Every column read happened after its row's settle delay.
    for i in range(len(model.reads)):
        c, low_rows, sleeps = model.reads[i]
        eq(sleeps, low_rows[0] + 1, "read of column %d on row %d after its settle" % (c, low_rows[0]))


def test_matrix_is_ghost_free_with_diodes():
    # Three corners of a rectangle closed: (0,0), (0,1), (1,0). Without diodes (1,1)
    # reads closed too (a ghost); with diodes it does not.
    pattern = {(0, 0), (0, 1), (1, 0)}
    ghosty = MatrixModel(2, 2, diodes=False)
    ghosty.closed = set(pattern)
    m, out = read_matrix(ghosty)
    eq(out[3], 1, "the no-diode model does ghost (so this test can fail)")
    model = MatrixModel(2, 2, diodes=True)
    model.closed = set(pattern)
    m, out = read_matrix(model)
    eq(bytes(out), b"\x01\x01\x01\x00", "exactly the closed switches")


def test_matrix_every_pattern_of_a_2x3():
    model = MatrixModel(2, 3)
    m = pico.DiodeMatrix(model.rows, model.cols, True, 30, lambda us: None)
    for bits in range(64):
        model.closed = set((i // 3, i % 3) for i in range(6) if bits >> i & 1)
        out = m.read()
        eq(sum(out[i] << i for i in range(6)), bits, "pattern %d" % bits)


# -- LEDs ---------------------------------------------------------------------------------


class FakeNeoPixel:
    """The neopixel module's object: ``buf`` (bytes as they go on the wire) and write()."""

    def __init__(self, n):
        self.buf = bytearray(3 * n)
        self.writes = []

    def write(self):
        self.writes.append(bytes(self.buf))


def test_leds_grb_wire_order_and_led_map():
    np = FakeNeoPixel(3)
    leds = pico.LedChain(np, [2, 0, 1], "GRB", 255)
    frame = bytearray([10, 20, 30, 40, 50, 60, 70, 80, 90])  # points 0, 1, 2: (r, g, b)
    leds.show(frame)
    wire = np.writes[-1]
    eq(wire[6:9], bytes([20, 10, 30]), "point 0 on LED 2, G R B on the wire")
    eq(wire[0:3], bytes([50, 40, 60]), "point 1 on LED 0")
    eq(wire[3:6], bytes([80, 70, 90]), "point 2 on LED 1")


def test_leds_other_orders():
    for order, expected in (("RGB", [1, 2, 3]), ("BRG", [3, 1, 2]), ("GBR", [2, 3, 1])):
        np = FakeNeoPixel(1)
        pico.LedChain(np, [0], order, 255).show(bytearray([1, 2, 3]))
        eq(list(np.writes[-1]), expected, "order " + order)


def test_leds_max_level_cap_keeps_hue():
    np = FakeNeoPixel(2)
    leds = pico.LedChain(np, [0, 1], "RGB", 48)
    leds.show(bytearray([255, 128, 0, 1, 0, 255]))
    wire = list(np.writes[-1])
    eq(wire[0:3], [48, 25, 0], "full red capped at 48, half green about half of that")
    eq(wire[3:6], [1, 0, 48], "a dim channel stays lit")
    eq(max(wire) <= 48, True, "no channel above max_level")
    for v in range(256):
        leds.show(bytearray([v, v, v, 0, 0, 0]))
        eq(np.writes[-1][0] <= 48, True, "level %d capped" % v)


def _wire_ma(wire, ma_per_channel, idle_ma):
    """Current of a chain from the bytes on its wire (independent of the driver's sum)."""
    return sum(wire) * ma_per_channel / 255 + (len(wire) // 3) * idle_ma


def test_leds_dynamic_limit_leaves_a_small_frame_alone():
    np = FakeNeoPixel(25)
    leds = pico.LedChain(np, list(range(25)), "RGB", 128, 12.0, 1.0, 100)
    frame = bytearray(75)
    frame[30:33] = b"\xff\xff\xff"  # one point white: 18 mA + 25 idle
    leds.show(frame)
    eq(list(np.writes[-1][30:33]), [128, 128, 128], "a single point at full max_level")
    eq(leds.limited, 0, "not limited")
    eq(abs(leds.frame_ma() - (25 + 3 * 12 * 128 / 255)) < 1e-6, True, "frame_ma of one white LED")


def test_leds_dynamic_limit_scales_a_big_frame_keeping_hues():
    np = FakeNeoPixel(25)
    leds = pico.LedChain(np, list(range(25)), "RGB", 128, 12.0, 1.0, 100)
    frame = bytearray(75)
    for p in range(25):
        frame[3 * p] = 255  # orange everywhere: (255, 96, 0)
        frame[3 * p + 1] = 96
    leds.show(frame)
    wire = np.writes[-1]
    eq(leds.limited, 1, "25 orange LEDs exceed 100 mA")
    ma = _wire_ma(wire, 12.0, 1.0)
    eq(ma <= 100, True, "%.1f mA within the budget" % ma)
    eq(ma > 95, True, "%.1f mA: scaled to the budget, not far below it" % ma)
    r, g, b = wire[0], wire[1], wire[2]
    eq(b, 0, "no blue appears")
    eq(abs(g / r - 49 / 128) < 0.05, True, "the hue is kept: green/red %d/%d" % (g, r))
    eq(abs(leds.frame_ma() - ma) < 1e-6, True, "frame_ma agrees with the wire")
    leds.show(bytearray(75))
    eq(leds.frame_ma(), 25.0, "dark frame: idle current only")


def _lcg(seed):
    state = [seed]

    def next_byte():
        state[0] = (state[0] * 1103515245 + 12345) & 0x3FFFFFFF
        return (state[0] >> 12) & 0xFF

    return next_byte


def _reference_wire(n_leds, led_of, order, max_level, limit, frame):
    """The wire bytes of one frame, written plainly point by point (what LedChain.show did
    in bytecode before its loops became viper code): the model the fast loops must match."""
    wire = bytearray(3 * n_leds)
    total = 0
    for p in range(len(led_of)):
        o = 3 * led_of[p]
        for c in range(3):
            v = (frame[3 * p + c] * max_level + 254) // 255
            wire[o + order.index("RGB"[c])] = v
            total += v
    if limit and total > limit:
        acc = 0
        for p in range(len(led_of)):
            o = 3 * led_of[p]
            for k in range(3):
                acc += wire[o + k] * limit
                v = acc // total
                acc -= v * total
                wire[o + k] = v
        total = limit
    return wire, total


def test_leds_match_the_plain_model_on_random_frames():
    """Random frames (few points lit to all, dim to full, over the budget or not) through
    chains in every wire order, shuffled LED maps, more than 85 LEDs (offsets past a byte)
    and a chain with LEDs no point lights: the same bytes as the plain model, every time."""
    rnd = _lcg(7)
    for n_leds, n_points, order, max_level, budget in (
        (25, 25, "GRB", 48, 0),
        (49, 47, "BGR", 128, 120),
        (168, 168, "GRB", 128, 380),
        (300, 290, "GBR", 200, 2000),
    ):
        led_of = list(range(n_leds))
        for i in range(n_leds - 1, 0, -1):  # Fisher-Yates with the test's own generator
            j = (rnd() * 256 + rnd()) % (i + 1)
            led_of[i], led_of[j] = led_of[j], led_of[i]
        led_of = led_of[:n_points]
        np = FakeNeoPixel(n_leds)
        leds = pico.LedChain(np, led_of, order, max_level, 20.0 if budget else 0.0, 1.0, budget)
        limited = 0
        for k in range(40):
            frame = bytearray(3 * n_points)
            every = 1 + rnd() % 8
            for p in range(0, n_points, every):
                for c in range(3):
                    v = rnd()
                    frame[3 * p + c] = v if v > 100 else (v & 3)  # 0-3 (dim or off) or bright
            leds.show(frame)
            wire, total = _reference_wire(n_leds, led_of, order, max_level, leds.limit, frame)
            eq(np.writes[-1], bytes(wire), "%d LEDs %s, frame %d: the model's bytes" % (n_leds, order, k))
            eq(leds.level_sum, total, "%d LEDs, frame %d: level sum" % (n_leds, k))
            if leds.limit and total == leds.limit:
                limited += 1
        eq(leds.limited, limited, "%d LEDs: frames scaled down" % n_leds)


def test_leds_no_frame_exceeds_the_budget_on_the_shipped_boards():
    """Every shipped layout with its real max_level: all white at full level, each
    primary, and random frames stay within leds.budget_ma (the USB budget is built on it)."""
    try:
        from zuni_board.layout import Layout
    except ImportError:
        return
    rnd = _lcg(7)
    for name in ("board25", "board25-matrix", "board49", "board168"):
        here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
        layout = Layout.load(here + "/../../hardware/layouts/%s.json" % name)
        cfg = layout.leds
        n_points = len(layout.points)
        np = FakeNeoPixel(cfg["count"])
        leds = pico.LedChain(
            np,
            [layout.points[k][1] for k in sorted(layout.points)],
            cfg["order"],
            cfg["max_level"],
            cfg["ma_per_channel"],
            cfg["idle_ma"],
            cfg["budget_ma"],
        )
        frames = [bytearray(b"\xff" * (3 * n_points))]
        for c in range(3):
            f = bytearray(3 * n_points)
            for p in range(n_points):
                f[3 * p + c] = 255
            frames.append(f)
        for _ in range(5):
            frames.append(bytearray([rnd() for _ in range(3 * n_points)]))
        for f in frames:
            leds.show(f)
            ma = _wire_ma(np.writes[-1], cfg["ma_per_channel"], cfg["idle_ma"])
            eq(ma <= cfg["budget_ma"], True, "%s: %.1f mA over budget_ma %s" % (name, ma, cfg["budget_ma"]))
        one = bytearray(3 * n_points)
        one[0:3] = b"\xff\xff\xff"
        leds.show(one)
        eq(max(np.writes[-1]), cfg["max_level"], name + ": a single white point shows max_level")


def test_leds_clear_at_start_and_bad_config():
    np = FakeNeoPixel(4)
    np.buf[:] = b"\xff" * 12
    pico.LedChain(np, [3], "GRB", 10)
    eq(np.writes, [bytes(12)], "every LED dark at start, including LEDs with no point")
    with raises(ValueError, "outside the chain"):
        pico.LedChain(FakeNeoPixel(2), [0, 2], "GRB", 10)
    with raises(ValueError, "colour order"):
        pico.LedChain(FakeNeoPixel(2), [0], "GRR", 10)
    with raises(ValueError, "max_level"):
        pico.LedChain(FakeNeoPixel(2), [0], "GRB", 0)
    with raises(ValueError, "no room for one white LED"):
        pico.LedChain(FakeNeoPixel(30), [0], "GRB", 255, 12.0, 1.0, 60)


# -- buttons ----------------------------------------------------------------------------


def test_buttons_edges_with_bounce():
    ok = FakePin(None, "ok", 1)
    back = FakePin(None, "back", 1)
    b = pico.Buttons([(1, ok), (2, back)], 30)
    seen = []
    # Reads 10 ms apart. OK pressed with contact bounce, held, released with bounce
    # (a bounce low again 10 ms after the release); BACK pressed later.
    ok_levels = [1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1]
    back_levels = [1] * 10 + [0, 0, 0, 0, 0, 0]
    for i in range(len(ok_levels)):
        ok.value = ok_levels[i]
        back.value = back_levels[i]
        seen.append(b.read(i * 10))
    eq([i for i in range(len(seen)) if seen[i]], [1, 10], "one edge each, at the first low read")
    eq(seen[1], 1, "OK bit")
    eq(seen[10], 2, "BACK bit")
    eq(b.state, 2, "OK released (high for 30 ms), BACK still held")


def test_buttons_a_press_between_two_reads_is_seen_by_its_edge():
    ok = FakePin(None, "ok", 1)
    b = pico.Buttons([(1, ok)], 30)
    eq(b.read(0), 0, "nothing yet")
    b.edge(1)  # pressed and released between two reads 100 ms apart (a long scan)
    eq(b.read(100), 1, "the latched edge is a press")
    eq(b.read(110), 0, "once")
    eq(b.read(140), 0, "released after 30 ms high")
    ok.value = 0
    eq(b.read(150), 1, "the next press")


# Where the firmware read the buttons on the chip: the starts of the scans after a move's
# last sensor change, in ms, measured with the emulated RP2040 (docs/firmware-timing.md)
# on the firmware before time-debounced buttons (Kolowis, board49): move 36, whose
# journal append erased a flash sector (45 ms, the W25Q16JV's typical time), then the
# garbage collection; and the game's last move, whose game-over scan took 197 ms. The
# driver that counted three equal reads saw 60 and 33 of these 80 presses of 50 ms, 74
# and 45 of 100 ms, 80 and 65 of 200 ms (docs/firmware-timing.md).
CHIP_READS_AFTER_A_MOVE = (
    [7.5, 17.7, 27.4, 38.3, 48.2, 58.1, 68.0, 77.9, 87.9, 97.8, 107.7, 117.6, 127.5, 137.5, 147.4, 158.3]
    + [167.5, 177.6, 242.1, 289.7, 299.5, 309.5, 319.3, 330.2, 340.1, 349.9, 359.9, 369.7, 379.6, 389.5]
    + [399.3, 410.3, 420.1, 430.0, 440.2, 450.1, 460.0]
)
CHIP_READS_AFTER_GAME_OVER = [
    8.9,
    19.0,
    28.5,
    39.1,
    48.8,
    58.6,
    68.4,
    79.1,
    88.8,
    98.6,
    108.5,
    119.2,
    128.9,
    138.6,
    148.4,
] + [159.2, 168.8, 179.1, 376.6, 422.2, 432.4, 442.9, 452.8, 462.9, 472.8]


def _presses_seen(make, hold_ms, reads, step_ms=5, span_ms=400):
    """Presses of ``hold_ms`` starting every ``step_ms`` after a move's last change,
    each given to a fresh driver read at ``reads`` (ms); (seen, pressed)."""
    seen = 0
    total = 0
    for start in range(0, span_ms, step_ms):
        pin = FakePin(None, "hint", 1)
        b = make([(4, pin)])
        got = 0
        last = -1
        for ms in reads:
            t = int(ms)  # ticks are whole ms
            if last < start <= t:
                b.edge(4)  # the pin interrupt: a falling edge since the last read
            pin.value = 0 if start <= t < start + hold_ms else 1
            got |= b.read(t)
            last = t
        seen += 1 if got else 0
        total += 1
    return seen, total


def test_buttons_see_every_press_in_the_scans_after_a_move():
    for reads, what in ((CHIP_READS_AFTER_A_MOVE, "a move"), (CHIP_READS_AFTER_GAME_OVER, "the game's end")):
        for hold in (50, 100, 200):
            seen, total = _presses_seen(pico.Buttons, hold, reads)
            eq(seen, total, "presses of %d ms at every 5 ms offset after %s" % (hold, what))


def test_buttons_none():
    b = pico.Buttons([])
    eq(b.read(), 0, "no buttons: no presses")


# -- factories with a fake machine module ---------------------------------------------


class FakeMachine:
    """Records the constructors the factories call."""

    def __init__(self):
        self.made = []
        machine = self

        class Pin:
            OUT = 1
            IN = 0
            PULL_UP = 2

            def __init__(self, pin_id, mode=-1, pull=-1, value=None):
                self.id = pin_id
                self.mode = mode
                self.pull = pull
                self.v = value
                machine.made.append(("Pin", pin_id, mode, pull, value))

            def __call__(self, *v):
                if v:
                    self.v = v[0]
                    return None
                return 1

        class SPI:
            MSB = 0

            def __init__(self, spi_id, **kw):
                machine.made.append(("SPI", spi_id, kw))
                self.kw = kw

            def readinto(self, buf, write=0):
                for i in range(len(buf)):
                    buf[i] = 0xFF

        self.Pin = Pin
        self.SPI = SPI


def test_make_sensors_hc165_spi_mode_and_pins():
    m = FakeMachine()
    cfg = {"type": "hc165", "count": 32, "spi": 0, "pins": {"sck": 18, "data": 16, "latch": 17}, "active_low": True}
    chain = pico.make_sensors(cfg, m)
    spi = [x for x in m.made if x[0] == "SPI"][0]
    eq(spi[1], 0, "SPI block")
    kw = spi[2]
    eq((kw["polarity"], kw["phase"]), (1, 0), "SPI mode 2: sample on the falling edge")
    eq(kw["firstbit"], 0, "MSB first")
    eq(kw["sck"].id, 18, "sck pin")
    eq(kw["miso"].id, 16, "data pin")
    eq(kw["mosi"].id, 19, "SPI0's MOSI named, the pin the layout loader reserves")
    m = FakeMachine()
    pico.make_sensors({"type": "hc165", "count": 8, "spi": 1, "pins": {"sck": 10, "data": 8, "latch": 9}}, m)
    eq([x for x in m.made if x[0] == "SPI"][0][2]["mosi"].id, 11, "SPI1's MOSI")
    eq(kw["baudrate"], 1000000, "default baud rate")
    eq(chain.read(), bytearray(32), "all inputs high: nothing closed")


def test_the_drivers_mosi_pins_are_the_ones_the_layout_loader_reserves():
    # make_sensors keeps its own copy: importing the loader for it cost the chip's boot.
    from zuni_board.layout import SPI_MOSI

    eq(pico.SPI_MOSI, SPI_MOSI, "SPI0's and SPI1's MOSI")


def test_make_sensors_matrix_and_buttons():
    m = FakeMachine()
    matrix = pico.make_sensors({"type": "matrix", "rows": [2, 3], "cols": [4, 5, 6], "active_low": True}, m)
    eq(len(matrix.out), 6, "2 x 3 sensors")
    pins = [x for x in m.made if x[0] == "Pin"]
    eq([(p[1], p[2]) for p in pins], [(2, 1), (3, 1), (4, 0), (5, 0), (6, 0)], "rows out, columns in")
    eq([p[3] for p in pins[2:]], [2, 2, 2], "columns pulled up")
    buttons = pico.make_buttons({"ok": 10, "hint": 12}, pico.RELEASE_MS, m)
    eq([bit for bit, pin in buttons.pins], [1, 4], "OK and HINT bits")
    eq(pico.make_buttons({}, pico.RELEASE_MS, m).pins, [], "no buttons section")
    with raises(ValueError, "sensors.type"):
        pico.make_sensors({"type": "laser"}, m)


def test_make_leds():
    m = FakeMachine()

    class FakeNeoModule:
        def NeoPixel(self, pin, n):  # noqa: N802  (the module's name)
            self.pin = pin
            return FakeNeoPixel(n)

    neo = FakeNeoModule()
    leds = pico.make_leds({"pin": 22, "count": 25, "order": "GRB", "max_level": 64}, list(range(25)), m, neo)
    eq(neo.pin.id, 22, "data pin")
    eq(len(leds.np.buf), 75, "25 LEDs")
    eq(leds.max_level, 64, "cap from the layout")
    eq(leds.limit, 0, "no budget in the section: no limit")
    cfg = {"pin": 22, "count": 25, "order": "GRB", "max_level": 128, "ma_per_channel": 12.0, "idle_ma": 1.0}
    cfg["budget_ma"] = 400
    leds = pico.make_leds(cfg, list(range(25)), m, neo)
    eq(leds.limit, int(375 * 255 / 12), "the budget as a sum of channel levels")


# -- the USB serial port (StreamPort over a blocking stream) ---------------------------


class FakeStream:
    """A blocking stream: ``readinto`` of n bytes would block unless n are there (the
    fake raises instead, so the test fails); ``write`` takes at most ``room`` bytes, and
    a write of more is what the Pico's USB CDC does when the host does not read: it waits
    (its 500 ms timeout: counted in ``waited``) and returns the bytes that fitted.
    ``calls`` counts the write calls."""

    def __init__(self):
        self.incoming = bytearray()
        self.out = bytearray()
        self.room = 0
        self.waited = 0
        self.calls = 0

    def readinto(self, buf):
        if len(buf) > len(self.incoming):
            raise AssertionError("readinto(%d) with %d bytes there would block" % (len(buf), len(self.incoming)))
        n = len(buf)
        buf[:] = self.incoming[:n]
        self.incoming = self.incoming[n:]
        return n

    def write(self, data):
        self.calls += 1
        n = len(data)
        if n > self.room:
            self.waited += 1
            n = self.room
        self.out += bytes(data[:n])
        self.room -= n
        return n


class FakeSelect:
    POLLIN = 1
    POLLOUT = 4

    def poll(self):
        return FakePoller()


class FakePoller:
    def __init__(self):
        self.stream = None
        self.mask = 0

    def register(self, stream, mask):
        self.stream = stream
        self.mask = mask

    def poll(self, timeout):
        s = self.stream
        if self.mask & 1 and s.incoming:
            return [(s, 1)]
        if self.mask & 4 and s.room > 0:
            return [(s, 4)]
        return []


def test_usb_port_reads_only_what_is_there():
    s = FakeStream()
    port = StreamPort(s, s, FakeSelect(), False, 16)
    buf = bytearray(8)
    eq(port.read_into(buf), 0, "nothing there")
    s.incoming += b"hello"
    eq(port.read_into(buf), 5, "five bytes, without blocking for eight")
    eq(bytes(buf[:5]), b"hello", "the bytes")
    s.incoming += b"0123456789"
    eq(port.read_into(buf), 8, "at most len(buf)")
    eq(port.read_into(buf), 2, "the rest")


def test_usb_port_never_blocks_when_the_host_does_not_read():
    s = FakeStream()
    port = StreamPort(s, s, FakeSelect(), False, 16, 96)
    eq(port.write(b"0123456789"), 10, "queued although the host reads nothing")
    eq(bytes(s.out), b"", "nothing written: no room")
    eq(port.write(b"abcdefghij"), 6, "the bounded queue takes what fits")
    eq(port.write(b"x"), 0, "full queue: 0, no blocking")
    eq(port.refused, 5, "refused bytes counted")
    s.room = 3
    port.read_into(bytearray(4))  # any call pumps the queue
    eq(bytes(s.out), b"012", "only what the host made room for")
    s.room = 100
    port.pump()
    eq(bytes(s.out), b"0123456789abcdef", "the rest, in order")
    eq(port.queued(), 0, "queue empty")
    eq(port.write(b"wrap-around"), 11, "ring buffer wraps")
    eq(bytes(s.out[16:]), b"wrap-around", "wrapped bytes in order")
    eq(s.waited, 0, "no write ever waited")


def test_usb_port_writes_a_frame_in_one_call():
    s = FakeStream()
    s.room = 1000
    port = StreamPort(s, s, FakeSelect(), False, 128, 256, 256)
    port.host_reads = True  # the link session's: a host has spoken lately
    frame = b"~0005 move 12 m4-m5 00012-3fa2 1 9c3e21aa *1f2e\n"
    eq(port.write(frame), len(frame), "queued")
    eq((bytes(s.out), s.calls), (frame, 1), "the whole frame in one write call")
    # Across the ring's end too: two calls (the two contiguous parts), nothing lost.
    for _ in range(4):
        port.write(frame)
    eq(bytes(s.out), frame * 5, "five frames in order, the ring wrapped")
    eq(s.calls, 6, "one call a frame, two for the one across the ring's end")
    eq(s.waited, 0, "no call waited")


def test_usb_port_a_host_that_stops_reading_costs_one_wait():
    s = FakeStream()
    s.room = 20
    port = StreamPort(s, s, FakeSelect(), False, 512, 256, 64)
    port.host_reads = True
    eq(port.write(b"a" * 50), 50, "queued")
    eq((len(s.out), s.waited), (20, 1), "the one call that found the FIFO short waited and wrote what fitted")
    # The host reads no more: a byte at a time, each only when poll says it fits.
    for _ in range(10):
        port.write(b"b" * 10)
    eq(s.waited, 1, "no further call waited")
    s.room = 40
    port.pump()
    eq(s.waited, 1, "byte-wise while the host drains: no wait")
    eq(len(s.out), 60, "what the host made room for")
    # Once recover_bytes went out byte-wise (the host reads again), whole frames again.
    s.room = 10000
    for _ in range(8):
        port.pump()
    calls = s.calls
    port.write(b"c" * 30)
    eq((s.calls - calls, s.waited), (1, 1), "one call for the frame again")
    eq(bytes(s.out[-30:]), b"c" * 30, "in order")


def test_usb_port_without_a_host_never_waits():
    s = FakeStream()
    s.room = 5
    port = StreamPort(s, s, FakeSelect(), False, 64, 256, 256)
    eq(port.host_reads, False, "no host has spoken")
    port.write(b"x" * 30)
    eq((len(s.out), s.waited), (5, 0), "a byte at a time: what fits, no call waited")


def test_usb_port_write_budget_bounds_each_pump():
    s = FakeStream()
    s.room = 1000
    port = StreamPort(s, s, FakeSelect(), False, 512, 32)
    eq(port.write(b"z" * 100), 100, "queued")
    eq(len(s.out), 32, "one pump writes at most write_budget bytes")
    port.pump()
    port.pump()
    port.pump()
    eq(len(s.out), 100, "the rest over later pumps")


def test_make_usb_port_uses_stdin_and_stdout_buffers():
    class Std:
        def __init__(self, stream):
            self.buffer = stream

    class FakeSys:
        pass

    fin = FakeStream()
    fout = FakeStream()
    fake_sys = FakeSys()
    fake_sys.stdin = Std(fin)
    fake_sys.stdout = Std(fout)
    port = pico.make_usb_port(fake_sys, FakeSelect())
    fin.incoming += b"ab"
    fout.room = 10
    eq(port.read_into(bytearray(4)), 2, "reads stdin.buffer")
    port.write(b"ok\n")
    eq(bytes(fout.out), b"ok\n", "writes stdout.buffer")


# MicroPython v1.24 rp2: machine.USBDevice.BUILTIN_CDC.desc_cfg (from the Pico stubs).
# Byte 8 is bMaxPower: 0x7D = 125 units of 2 mA = MicroPython's default 250 mA.
BUILTIN_CDC_CFG = (
    b"\t\x02K\x00\x02\x01\x00\x80}\x08\x0b\x00\x02\x02\x02\x00\x00\t\x04\x00\x00\x01\x02\x02\x00\x04\x05$\x00 "
    b"\x01\x05$\x01\x00\x01\x04$\x02\x06\x05$\x06\x00\x01\x07\x05\x81\x03\x08\x00\x01\t\x04\x01\x00\x02\n\x00"
    b"\x00\x00\x07\x05\x02\x02@\x00\x00\x07\x05\x82\x02@\x00\x00"
)


class FakeBuiltinCDC:
    desc_dev = b"\x12\x01\x00\x02\xef\x02\x01@\x8a.\x05\x00\x00\x01\x01\x02\x03\x01"
    desc_cfg = BUILTIN_CDC_CFG


class FakeUSBDevice:
    """machine.USBDevice as far as request_usb_power uses it (a singleton in MicroPython)."""

    BUILTIN_CDC = FakeBuiltinCDC

    def __init__(self, active):
        self._active = active
        self.calls = []
        self.builtin_driver = None
        self.cfg = None

    def active(self, value=None):
        if value is not None:
            self.calls.append(("active", bool(value)))
            self._active = bool(value)
        return self._active

    def config(self, desc_dev, desc_cfg, desc_strs):
        self.calls.append(("config", bytes(desc_cfg), desc_strs))
        self.cfg = bytes(desc_cfg)


class FakeMem32:
    """machine.mem32: 32-bit words by address, 0 where nothing was written (power-on:
    every peripheral held in reset). Reading the USB controller while it is held in reset
    is an error here (on the chip it is not a defined read)."""

    def __init__(self):
        self.words = {}

    def __getitem__(self, address):
        if address == 0x50110040 and not self.words.get(0x4000C008, 0) & (1 << 24):
            raise AssertionError("read the USB controller while it is held in reset")
        return self.words.get(address, 0)

    def __setitem__(self, address, value):
        self.words[address] = value


class FakeUSBMachine:
    def __init__(self, usbd, mem32=None):
        self.usbd = usbd
        self.mem32 = mem32 or FakeMem32()

    def USBDevice(self):  # noqa: N802 (machine's name)
        return self.usbd


def test_usb_config_descriptor_asks_for_the_layouts_current():
    eq(BUILTIN_CDC_CFG[8] * 2, 250, "MicroPython's default request")
    cfg = pico.usb_config_descriptor(BUILTIN_CDC_CFG, 500)
    eq(cfg[8], 250)
    eq(bytes(cfg[:8]) + bytes(cfg[9:]), BUILTIN_CDC_CFG[:8] + BUILTIN_CDC_CFG[9:], "only bMaxPower changes")
    with raises(ValueError, "expected an even number"):
        pico.usb_config_descriptor(BUILTIN_CDC_CFG, 900)
    with raises(ValueError, "not a USB configuration descriptor"):
        pico.usb_config_descriptor(b"\x12\x01\x00\x02\xef\x02\x01@\x8a", 500)


def test_request_usb_power_after_power_on():
    usbd = FakeUSBDevice(active=False)
    eq(pico.request_usb_power(500, FakeUSBMachine(usbd)), 250)
    eq(usbd.builtin_driver is FakeBuiltinCDC, True, "the built-in CDC (REPL and link) stays")
    want = bytes(pico.usb_config_descriptor(BUILTIN_CDC_CFG, 500))
    eq(usbd.calls, [("config", want, None), ("active", True)])


RESET_DONE = 0x4000C008
USB_MAIN_CTRL = 0x50110040


def test_request_usb_power_not_after_a_soft_reset():
    # After a soft reset the USB controller is out of reset and enabled: leave it alone
    # (re-enumerating would drop mpremote's port on every soft reset).
    mem = FakeMem32()
    mem[RESET_DONE] = 0x01FFFFFF
    mem[USB_MAIN_CTRL] = 1
    usbd = FakeUSBDevice(active=False)
    eq(pico.request_usb_power(500, FakeUSBMachine(usbd, mem)), 0)
    eq(usbd.calls, [])
    eq(pico.usb_running(mem), True)
    # Out of reset but not enabled (MicroPython has not started USB yet): ask.
    mem[USB_MAIN_CTRL] = 0
    eq(pico.request_usb_power(500, FakeUSBMachine(FakeUSBDevice(active=False), mem)), 250)
    # Held in reset (power-up, machine.reset()): MAIN_CTRL is not read at all.
    mem = FakeMem32()
    mem[RESET_DONE] = 0x00FFFFFF
    eq(pico.usb_running(mem), False)


def test_request_usb_power_leaves_a_live_runtime_usb_alone():
    usbd = FakeUSBDevice(active=True)
    eq(pico.request_usb_power(500, FakeUSBMachine(usbd)), 0)
    eq(usbd.calls, [])


def test_request_usb_power_without_usbdevice():
    class OldMachine:
        pass

    eq(pico.request_usb_power(500, OldMachine()), 0)


# -- the switched LED rail: USB state and LedPower ----------------------------------------

try:
    from time import ticks_add, ticks_diff
except ImportError:  # CPython
    from zuni_board.ticks import ticks_add, ticks_diff

ADDR_ENDP = 0x50110000
SOF_RD = 0x50110048


class UsbControllerModel:
    """The RP2040's USB controller registers as TinyUSB (dcd_rp2040.c) drives them under
    MicroPython: ADDR_ENDP 0 until SET_ADDRESS and again after a bus reset; SOF_RD counts
    the host's start-of-frame packets (one per ms, 11 bits); the DPRAM control word of
    each non-control endpoint gets bit 31 (ENABLE) on SET_CONFIGURATION and loses it on a
    bus reset. ``mem32``/``mem16`` read it as machine's do; any other address is an error."""

    def __init__(self):
        self.address = 0
        self.frame = 0
        self.enabled = set()  # endpoint addresses, e.g. 0x81
        self.in_reset = False
        self.mem32 = _Mem(self, 4)
        self.mem16 = _Mem(self, 2)

    def frames(self, ms):
        self.frame = (self.frame + ms) & 0x7FF

    def bus_reset(self):
        self.address = 0
        self.enabled = set()

    def set_address(self, address):
        self.address = address

    def set_configuration(self):
        # MicroPython's built-in CDC (BUILTIN_CDC_CFG above): 0x81 notification, 0x02 and 0x82 data.
        self.enabled = {0x81, 0x02, 0x82}

    def read(self, address, width):
        if address == RESET_DONE and width == 4:
            return 0x00FFFFFF if self.in_reset else 0x01FFFFFF
        if self.in_reset and address >= 0x50100000:
            raise AssertionError("read the USB controller while it is held in reset")
        if address == ADDR_ENDP and width == 4:
            return self.address
        if address == SOF_RD and width == 4:
            return self.frame
        if 0x50100008 <= address < 0x50100080 and width == 2 and address % 4 == 2:
            slot = (address - 2 - 0x50100008) // 4  # EP1 IN, EP1 OUT, EP2 IN, ...
            number = slot // 2 + 1
            ep = number | (0x80 if slot % 2 == 0 else 0)
            return 0x8000 if ep in self.enabled else 0  # bits 31..16 of the control word
        raise AssertionError("unexpected read of %d bytes at %x" % (width, address))


class _Mem:
    def __init__(self, model, width):
        self.model = model
        self.width = width

    def __getitem__(self, address):
        return self.model.read(address, self.width)


def test_usb_state_follows_an_enumeration():
    bus = UsbControllerModel()
    usb = pico.Rp2040Usb(bus.mem32, bus.mem16)
    eq(usb.state(), pico.USB_NONE, "nothing on the bus")
    eq(usb.state(), pico.USB_NONE, "still nothing: SOF_RD does not move")
    bus.bus_reset()
    bus.frames(3)
    eq(usb.state(), pico.USB_HOST, "start-of-frame packets: a host, no address yet")
    bus.set_address(7)
    eq(usb.state(), pico.USB_HOST, "addressed, not configured")
    bus.set_configuration()
    eq(usb.state(), pico.USB_CONFIGURED)
    bus.bus_reset()
    eq(usb.state(), pico.USB_NONE, "right after a bus reset: no address and SOF_RD still")
    bus.frames(1)
    eq(usb.state(), pico.USB_HOST, "re-enumerating")
    bus.frames(2048)  # exactly one wrap of the 11-bit frame number between two reads
    eq(usb.state(), pico.USB_NONE, "the same number: read as no host (the next poll sees it move)")
    bus.in_reset = True
    eq(usb.state(), pico.USB_NONE, "controller held in reset: not read")


class RailBench:
    """A board's LED rail: EN and the data pin (logged), the USB model, a LedPower and the
    LED driver on a FakeNeoPixel; each write is logged with the EN level at that moment."""

    def __init__(self, start=0, no_host_ms=3000, settle_ms=20):
        self.log = Log()
        self.enable = FakePin(self.log, "EN", 1)
        self.data = FakePin(self.log, "DIN", 1)
        self.bus = UsbControllerModel()
        self.start = start
        self.power = pico.LedPower(
            self.enable,
            self.data,
            pico.Rp2040Usb(self.bus.mem32, self.bus.mem16),
            start,
            no_host_ms,
            settle_ms,
        )
        self.np = RecordingNeoPixel(4, self)
        self.leds = pico.LedChain(self.np, [0, 1, 2, 3], "GRB", 255, 20.0, 1.0, 200, self.power)
        self.t = 0
        self.ready_at = []

    def run_to(self, t_ms, host=False, frame=None):
        """The scan loop every 10 ms up to ``t_ms`` (ms after the start): the host sends
        start-of-frame packets meanwhile if ``host``; ``frame`` is shown at every scan."""
        while self.t < t_ms:
            self.t += 10
            if host:
                self.bus.frames(10)
            now = ticks_add(self.start, self.t)
            if self.power.step(now):
                self.ready_at.append(self.t)
                self.leds.flush()
            if frame is not None:
                self.leds.show(frame)


class RecordingNeoPixel(FakeNeoPixel):
    def __init__(self, n, bench):
        FakeNeoPixel.__init__(self, n)
        self.bench = bench

    def write(self):
        FakeNeoPixel.write(self)
        self.bench.log.add(("write", self.bench.t, self.bench.enable.value))


def test_led_power_starts_off_with_the_data_line_low():
    bench = RailBench()
    eq(bench.log.events, [("DIN", 0), ("EN", 0)], "data low, then EN low, before anything else")
    eq(bench.np.writes, [], "the LED driver's start-up clear sent nothing to the unpowered chain")
    eq(bench.leds.pending, True, "the cleared frame waits")


def test_led_power_waits_for_the_configuration_then_the_settle_time():
    red = bytearray([255, 0, 0] * 4)
    bench = RailBench()
    bench.run_to(400, host=True, frame=red)  # enumeration under way: reset, SOFs, an address
    bench.bus.set_address(9)
    bench.run_to(900, host=True, frame=red)
    eq(bench.enable.value, 0, "a host that has not configured the board: EN low")
    eq(bench.np.writes, [], "no LED data while the rail is off")
    bench.bus.set_configuration()
    configured_at = bench.t
    bench.run_to(1200, host=True, frame=red)
    on = [e for e in bench.log.events if e == ("EN", 1)]
    eq(len(on), 1, "EN high once")
    eq(bench.power.switched_on, 1)
    first_write = next(e for e in bench.log.events if e[0] == "write")
    eq(first_write[2], 1, "written only with EN high")
    t_on = bench.ready_at[0] - 20
    eq(
        0 < t_on - configured_at <= 50 + 10,
        True,
        "EN within one poll of the configuration: %d" % (t_on - configured_at),
    )
    eq(first_write[1] - t_on >= 20, True, "the first frame after settle_ms: %d ms" % (first_write[1] - t_on))
    eq(bench.np.writes[0], bytes([0, 255, 0] * 4), "and it is the latest frame (GRB on the wire)")
    eq(all(e[2] == 1 for e in bench.log.events if e[0] == "write"), True, "every write with the rail on")


def test_led_power_on_a_charger_after_no_host_ms():
    bench = RailBench(no_host_ms=3000)
    bench.run_to(2990)
    eq(bench.enable.value, 0, "no host seen yet, within no_host_ms")
    eq(bench.np.writes, [], "nothing written")
    bench.run_to(3100)
    eq(bench.enable.value, 1, "no host for no_host_ms: a charger, the rail comes on")
    bench.run_to(3200)
    eq(len(bench.np.writes), 1, "the waiting frame sent once the rail settled")


def test_led_power_stays_off_while_a_host_never_configures():
    # A bus-powered hub: the host enumerates the board, reads its 500 mA request, and
    # refuses to configure it. The board must stay under 100 mA: the rail stays off.
    bench = RailBench(no_host_ms=3000)
    bench.run_to(200, host=True)
    bench.bus.set_address(3)
    bench.run_to(5000, host=False)  # the hub may even suspend the port: the address stays
    bench.run_to(12000, host=True)
    eq(bench.enable.value, 0, "four times no_host_ms later: still off")
    eq(bench.np.writes, [], "and nothing written")
    eq(bench.power.state, pico.USB_HOST)


def test_led_power_off_again_on_a_bus_reset_and_back_on_reconfiguration():
    green = bytearray([0, 255, 0] * 4)
    bench = RailBench()
    bench.bus.set_address(4)
    bench.bus.set_configuration()
    bench.run_to(200, host=True, frame=green)
    eq(bench.enable.value, 1, "configured: on")
    writes_before = len(bench.np.writes)
    bench.bus.bus_reset()  # e.g. mpremote's soft reset: the board drops off and re-enumerates
    bench.run_to(300, host=True, frame=green)
    eq(bench.enable.value, 0, "a bus reset: back to unconfigured, the rail off")
    eq(bench.data.value, 0, "and the data line low")
    off_at = max(i for i, e in enumerate(bench.log.events) if e == ("EN", 0))
    eq(
        [e for e in bench.log.events[off_at:] if e[0] == "write"],
        [],
        "no LED data after EN went low",
    )
    eq(len(bench.np.writes), writes_before, "frames wait in the buffer")
    bench.bus.set_address(4)
    bench.bus.set_configuration()
    bench.run_to(500, host=True, frame=green)
    eq(bench.enable.value, 1, "configured again: on again")
    eq(bench.power.switched_on, 2)
    eq(len(bench.np.writes) > writes_before, True, "and the frame is shown again")


def test_led_power_timing_across_the_tick_wrap():
    start = ticks_add(0, -1500)  # the millisecond ticks wrap 1.5 s after the start
    bench = RailBench(start=start, no_host_ms=3000)
    bench.run_to(2900)
    eq(bench.enable.value, 0, "across the wrap, before no_host_ms")
    bench.run_to(3100)
    eq(bench.enable.value, 1, "and after it")
    eq(ticks_add(start, 3100) < start, True, "the raw tick value really wrapped")
    eq(ticks_diff(ticks_add(start, 3100), start), 3100)


def test_make_led_power_from_the_layout():
    m = FakeMachine()
    bus = UsbControllerModel()
    m.mem32 = bus.mem32
    m.mem16 = bus.mem16
    eq(pico.make_led_power({"usb_ma": 500}, {"pin": 22}, 0, m), None, "no led_enable: EN tied on, nothing to drive")
    power = pico.make_led_power(
        {"usb_ma": 500, "led_enable": 21, "no_host_ms": 4000, "settle_ms": 30}, {"pin": 22}, 0, m
    )
    pins = [x for x in m.made if x[0] == "Pin"]
    eq([(p[1], p[2], p[4]) for p in pins], [(21, 1, 0), (22, 1, 0)], "EN and the data pin: outputs, low from the start")
    eq((power.no_host_ms, power.settle_ms), (4000, 30), "the layout's times")
    eq(power.ready, False)


def test_led_power_step_allocates_nothing():
    try:
        import micropython
    except ImportError:
        return
    if not hasattr(micropython, "heap_lock"):
        return

    class QuietPin:
        def __init__(self):
            self.v = 0

        def __call__(self, v=None):
            if v is None:
                return self.v
            self.v = v
            return None

    bus = UsbControllerModel()
    enable = QuietPin()
    power = pico.LedPower(enable, QuietPin(), pico.Rp2040Usb(bus.mem32, bus.mem16), 0, 3000, 20, 10)
    bus.set_address(2)
    bus.enabled = {0x82}
    bus.enabled.discard(0x82)  # the set's table made now: adding to it later allocates nothing
    t = 0
    micropython.heap_lock()
    try:
        for _ in range(5):  # addressed, not configured: every endpoint control word read
            t += 10
            power.step(t)
        off = enable.v
        bus.enabled.add(0x82)  # configured
        for _ in range(5):
            t += 10
            power.step(t)
    finally:
        micropython.heap_unlock()
    eq((off, enable.v, power.ready), (0, 1, True), "off while unconfigured, then on and ready, without allocating")
