"""Drivers for the Raspberry Pi Pico: reed switches (74HC165 chain or diode matrix), WS2812
LEDs, buttons, and the USB serial port for the link.

The classes take pins, buses and streams as arguments (the tests pass explicit fakes);
the ``make_*`` factories build them from a layout's sections and are the only code that
imports ``machine``. Every driver's ``read``/``show`` reuses its buffers: nothing is
allocated per scan.
"""

from array import array

import micropython


def _no_sleep(us):
    pass


try:
    from time import sleep_us as _default_sleep
except ImportError:  # CPython (tests): delays are the fakes' business
    _default_sleep = _no_sleep  # type: ignore

try:
    from time import ticks_add as _ticks_add
    from time import ticks_diff as _ticks_diff
except ImportError:  # CPython (tests): the Pico's wrapping arithmetic
    from zuni_board.ticks import ticks_add as _ticks_add  # type: ignore
    from zuni_board.ticks import ticks_diff as _ticks_diff  # type: ignore

try:
    ptr8  # type: ignore[has-type,used-before-def]  # noqa: B018  # a viper cast on the board
except NameError:

    def ptr8(buf):  # type: ignore[no-redef]
        """CPython and bytecode: a byte buffer is its own byte view."""
        return buf


try:
    ptr16  # type: ignore[has-type,used-before-def]  # noqa: B018  # a viper cast on the board
except NameError:

    def ptr16(buf):  # type: ignore[no-redef]
        """CPython and bytecode: an array('H') is its own view."""
        return buf


# Buttons bitmask, as zuni_board.app reads it (pressed edges).
BUTTON_BITS = {"ok": 1, "back": 2, "hint": 4}


class HC165Chain:
    """A chain of 74HC165 parallel-in/serial-out registers read over hardware SPI.

    Wiring: all SH/LD to ``latch``, all CLK to SCK, CLK INH tied LOW, the QH of the chip
    nearest the Pico to the SPI's RX pin, each other chip's QH to the SER of the one
    before it (nearer the Pico). ``read()`` returns a bytearray per sensor index: 1 when
    a magnet closes the switch (with ``active_low`` a closed switch pulls its input to 0).

    Timing (NXP 74HC165 and TI SN74HC165 datasheets): the parallel inputs are loaded
    asynchronously while SH/LD is LOW (minimum pulse width 80 ns at VCC 2 V, 16 ns at
    4.5 V); SH/LD must be HIGH again at least 100 ns (2 V; 20 ns at 4.5 V) before the
    first rising CLK edge; the register shifts on each rising CLK edge. At 3.3 V the 2 V
    figures are the safe bound, and ``sleep_us(1)`` after each latch edge covers them
    ten times over (a MicroPython pin call alone takes longer on the RP2040).

    Bit order: right after the load, QH already shows input H (D7) of the chip nearest
    the Pico, so that is the first bit shifted out: sensor index 0. Then G, F, ... A
    (index 7), then the next chip's H (index 8), and so on. The SPI reads MSB first, so
    index i is bit 7 - (i % 8) of byte i // 8. SPI mode 2 (CPOL=1, CPHA=0): the RP2040
    samples RX on the FALLING clock edge, half a period after the 165 changed QH on the
    rising edge, so no sample races the shift (mode 0 would sample on the very edge the
    165 shifts on and rely on its propagation delay). The first bit needs no clock edge:
    CPHA=0 samples it on the first falling edge, before the first rising one.
    """

    def __init__(self, spi, latch, count, active_low=True, sleep_us=None):
        if count <= 0 or count % 8:
            raise ValueError("74HC165 chain: count %r is not a positive multiple of 8" % (count,))
        self.spi = spi
        self.latch = latch
        self.count = count
        self.active_low = active_low
        self.sleep_us = sleep_us or _default_sleep
        self._buf = bytearray(count // 8)
        self._prev = bytearray(count // 8)
        self.out = bytearray(count)
        self._decoded = False
        latch(1)  # shift mode between reads

    def read(self):
        latch = self.latch
        sleep_us = self.sleep_us
        latch(0)  # load the parallel inputs
        sleep_us(1)
        latch(1)  # back to shift mode before the first clock edge
        sleep_us(1)
        buf = self._buf
        self.spi.readinto(buf, 0)
        out = self.out
        if self._decoded and buf == self._prev:
            return out  # nothing moved: skip the per-bit decode (most scans)
        self._prev[:] = buf
        self._decoded = True
        flip = 0xFF if self.active_low else 0
        i = 0
        for b in buf:
            b ^= flip
            mask = 0x80
            while mask:
                out[i] = 1 if b & mask else 0
                mask >>= 1
                i += 1
        return out


class DiodeMatrix:
    """Reed switches in a row x column matrix with one diode per switch (anode to the
    column side, cathode to the row), read by GPIO.

    Rows are outputs, idle HIGH; columns are inputs with pull-ups. ``read()`` drives one
    row LOW at a time, waits ``settle_us`` for the columns (the RP2040's ~50 kOhm pull-up
    against some 100 pF of wiring is an RC of about 5 us; 30 us is six of them), reads
    every column (a closed switch on that row pulls it LOW through its diode), and
    returns that row HIGH before the next. The diodes block the sneak paths through
    other closed switches that would otherwise show a fourth "ghost" switch at the corner
    of any three closed ones. Sensor index = row * len(cols) + col.
    """

    def __init__(self, rows, cols, active_low=True, settle_us=30, sleep_us=None):
        if not rows or not cols:
            raise ValueError("diode matrix needs at least one row and one column")
        self.rows = rows
        self.cols = cols
        self.active_low = active_low
        self.settle_us = settle_us
        self.sleep_us = sleep_us or _default_sleep
        self.out = bytearray(len(rows) * len(cols))
        for row in rows:
            row(1)

    def read(self):
        out = self.out
        cols = self.cols
        sleep_us = self.sleep_us
        closed = 0 if self.active_low else 1
        i = 0
        for row in self.rows:
            row(0)
            sleep_us(self.settle_us)
            for col in cols:
                out[i] = 1 if col() == closed else 0
                i += 1
            row(1)
        return out


def _level_limit(n_leds, max_level, ma_per_channel, idle_ma, budget_ma):
    """The largest sum of channel levels (0..255 each) a chain of ``n_leds`` may show
    within ``budget_ma``; 0: no budget."""
    if budget_ma <= 0:
        return 0
    if ma_per_channel <= 0:
        raise ValueError("LED budget_ma %r needs ma_per_channel > 0" % (budget_ma,))
    lit_ma = budget_ma - n_leds * idle_ma
    one = 3 * ma_per_channel * max_level / 255
    if lit_ma < one:
        raise ValueError(
            "LED budget_ma %r: %d idle LEDs draw %d mA, no room for one white LED at max_level %d (%d mA)"
            % (budget_ma, n_leds, int(n_leds * idle_ma + 0.5), max_level, int(one + 0.5))
        )
    return int(lit_ma * 255 / ma_per_channel)


class LedChain:
    """WS2812/SK6812 chain through the ``neopixel`` module's buffer.

    ``show(frame)``: ``frame`` has 3 bytes (r, g, b) per POINT at full scale; point p
    lights LED ``led_of[p]``. Each channel is scaled to ``max_level`` (v * max_level /
    255, rounded up so that a dim colour does not vanish): the brightness of one lit
    point. The bytes go straight into ``np.buf`` in the layout's wire ``order`` ("GRB"
    for a WS2812B: green first), bypassing the module's own RGB->GRB reordering, then
    ``np.write()``.

    Dynamic current limit: with ``budget_ma`` (> 0), a frame whose current (sum of the
    channel levels x ``ma_per_channel`` / 255, plus ``idle_ma`` per LED of the chain)
    would exceed ``budget_ma`` is scaled down as a whole (same hues, same proportions)
    until it fits; a frame that fits is left alone. So ``max_level`` can make a single
    point bright while no frame, not even every LED white, draws more than the budget.
    Integer math, no allocation: the budget is turned into a sum of channel levels once.

    Switched rail: with ``power`` (a ``LedPower``), nothing goes on the wire while the LED
    rail is not ``ready``: the frame waits in the buffer and ``flush()`` sends the latest
    one once it is (an unpowered chain must see no data: power.md, "Before USB configuration").

    >>> leds = LedChain(np, led_of, "GRB", 128, 12.0, 1.0, 400)
    >>> leds.show(frame); leds.frame_ma()      # never above 400
    """

    def __init__(
        self, np, led_of, order="GRB", max_level=255, ma_per_channel=0.0, idle_ma=0.0, budget_ma=0, power=None
    ):
        if len(order) != 3 or sorted(order) != ["B", "G", "R"]:
            raise ValueError("LED colour order %r is not a permutation of RGB" % (order,))
        if max_level < 1 or max_level > 255:
            raise ValueError("LED max_level %r is not 1..255" % (max_level,))
        self.np = np
        self.led_of = led_of
        self.max_level = max_level
        self.pos_r = order.index("R")
        self.pos_g = order.index("G")
        self.pos_b = order.index("B")
        n_leds = len(np.buf) // 3
        self.n_leds = n_leds
        for p in range(len(led_of)):
            if led_of[p] < 0 or led_of[p] >= n_leds:
                raise ValueError("point %d: LED %d is outside the chain of %d" % (p, led_of[p], n_leds))
        self.ma_per_channel = ma_per_channel
        self.idle_ma = idle_ma
        self.budget_ma = budget_ma
        # limit: the largest sum of channel levels (0..255 each) the budget allows; 0 = none.
        self.limit = _level_limit(n_leds, max_level, ma_per_channel, idle_ma, budget_ma)
        # Each channel's level at max_level, looked up instead of computed: on the
        # RP2040 a multiply and a division per channel made show() 23.5 ms for 168 LEDs
        # (MICROPYTHON-NOTES), most of a commit's time to its frame.
        self.scale = bytes([(v * max_level + 254) // 255 for v in range(256)])
        self.level_sum = 0  # sum of the channel levels sent in the last frame
        self.shows = 0
        self.limited = 0  # frames scaled down by the current limit
        self.power = power
        self.pending = False  # a frame is in the buffer that the unpowered chain has not seen
        self.dark = bytes(len(np.buf))
        # Where each frame byte goes in the wire buffer (frame point p's r, g, b at 3p..3p+2
        # -> LED led_of[p]'s bytes in the wire order), and each point's first wire byte: the
        # viper loops' tables (16 bits: a chain may have more than 85 LEDs).
        chan_at = array("H", bytes(2 * 3 * len(led_of)))
        led_at = array("H", bytes(2 * len(led_of)))
        for p in range(len(led_of)):
            o = 3 * led_of[p]
            led_at[p] = o
            chan_at[3 * p] = o + self.pos_r
            chan_at[3 * p + 1] = o + self.pos_g
            chan_at[3 * p + 2] = o + self.pos_b
        self.chan_at = chan_at
        self.led_at = led_at
        # A frame with nothing lit (a commit's own, zuni_board.app) is told by one compare.
        n_frame = 3 * len(led_of)
        self.dark_frame = self.dark if n_frame == len(self.dark) else bytes(n_frame)
        self.clear()

    def _write(self):
        power = self.power
        if power is not None and not power.ready:
            self.pending = True
            return
        self.pending = False
        self.np.write()

    def flush(self):
        """Send the buffered frame (called when the LED rail has come up)."""
        if self.pending:
            self._write()

    def clear(self):
        self.np.buf[:] = self.dark
        self.level_sum = 0
        self._write()

    def show(self, frame):
        buf = self.np.buf
        # Every LED dark (one C-level copy), then only the lit channels: most of a game's
        # pictures light a few points of the board. The loops are viper code on the board:
        # in bytecode they were 2.7 ms (8 points lit) to 14.6 ms (168 lit, limited) of a
        # 168-LED frame on the RP2040 (docs/firmware-timing.md, "The LED frame").
        buf[:] = self.dark
        total = 0
        if frame != self.dark_frame:
            total = _led_fill(buf, frame, self.chan_at, self.scale)
        limit = self.limit
        if limit and total > limit:
            _led_limit(buf, self.led_at, limit, total)
            total = limit
            self.limited += 1
        self.level_sum = total
        self._write()
        self.shows += 1

    def frame_ma(self):
        """Current of the chain showing the last frame (mA): what the limit keeps under budget_ma."""
        return self.level_sum * self.ma_per_channel / 255 + self.n_leds * self.idle_ma


@micropython.viper
def _led_fill(buf, frame, chan_at, scale) -> int:
    """Each lit channel of ``frame`` at its level (``scale``) into its wire byte
    (``chan_at``) of ``buf``; the sum of the levels."""
    b = ptr8(buf)
    f = ptr8(frame)
    at = ptr16(chan_at)
    s = ptr8(scale)
    n = int(len(chan_at))
    total = 0
    i = 0
    while i < n:
        v = f[i]
        if v:
            v = s[v]
            b[at[i]] = v
            total += v
        i += 1
    return total


@micropython.viper
def _led_limit(buf, led_at, limit: int, total: int):
    """Scale every channel by limit/total. The remainder is carried from channel to channel
    (each gets the floor or the ceiling of its exact share), so the new sum is floor(limit)
    exactly: a uniform floor would lose up to a tenth of the budget at low levels. Since
    limit < total <= 3 * 1024 * 255, every product stays below 2**30."""
    b = ptr8(buf)
    at = ptr16(led_at)
    n = int(len(led_at))
    acc = 0
    p = 0
    while p < n:
        o = at[p]
        k = 0
        while k < 3:
            acc += b[o + k] * limit
            v = acc // total
            acc -= v * total
            b[o + k] = v
            k += 1
        p += 1


# -- the switched LED rail ------------------------------------------------------------------

# What the RP2040's USB device controller shows of the bus (RP2040 datasheet 4.1, USB
# registers and DPRAM layout; TinyUSB's dcd_rp2040.c is what drives them under MicroPython):
USB_NONE = 0  # no host: no start-of-frame packets, no address (a charger, a power bank)
USB_HOST = 1  # a host on the bus that has not configured the board (yet, or ever)
USB_CONFIGURED = 2  # the host accepted the configuration (and its bMaxPower)

_USB_ADDR_ENDP = 0x50110000  # ADDR_ENDP: bits 6:0 the address; 0 until SET_ADDRESS, 0 again on a bus reset
_USB_SOF_RD = 0x50110048  # SOF_RD: bits 10:0 the number of the last start-of-frame packet (1 per ms)
# DPRAM 0x08..0x7c: the control words of EP1 IN, EP1 OUT, ... EP15 OUT; bit 31 ENABLE. TinyUSB
# sets it when a class driver opens its endpoints, which happens only on SET_CONFIGURATION,
# and clears every one on a bus reset or SET_CONFIGURATION 0. Read as the upper 16 bits
# (mem16 at +2): a word with bit 31 set is no small int, and reading it would allocate.
_USB_EP_CTRL_HIGH = tuple(0x50100008 + 4 * k + 2 for k in range(30))
_EP_ENABLE_HIGH = 0x8000


class Rp2040Usb:
    """``state()``: USB_NONE, USB_HOST or USB_CONFIGURED, read from the USB controller's
    registers (``mem32``/``mem16``: machine's, or the tests' model of the controller)."""

    def __init__(self, mem32, mem16):
        self.mem32 = mem32
        self.mem16 = mem16
        self.last_sof = -1

    def state(self):
        mem32 = self.mem32
        if not mem32[_RESET_DONE] & _USBCTRL_BIT:
            return USB_NONE  # the controller is held in reset: nothing to read
        if mem32[_USB_ADDR_ENDP] & 0x7F:
            mem16 = self.mem16
            for address in _USB_EP_CTRL_HIGH:
                if mem16[address] & _EP_ENABLE_HIGH:
                    return USB_CONFIGURED
            return USB_HOST
        sof = mem32[_USB_SOF_RD] & 0x7FF
        moved = sof != self.last_sof and self.last_sof >= 0
        self.last_sof = sof
        return USB_HOST if moved else USB_NONE


class LedPower:
    """The LED rail's load switch (TPS2553 EN, active high, 100 kOhm pull-down): off from
    plug-in, on once the board may draw more than USB's unconfigured 100 mA.

    ``step(now_ms)`` (from the scan loop) reads ``usb.state()`` every ``poll_ms`` and
    drives ``enable``: on while the host has configured the board; off while a host is on
    the bus without configuring it (a bus-powered hub refusing the request, or the
    enumeration after a bus reset); on when no host has been seen for ``no_host_ms``
    (a charger configures nothing and limits nothing). ``ready`` turns true
    ``settle_ms`` after EN went high (the bulk capacitor charged at the switch's limit,
    every LED up and dark); ``step`` returns True at that moment, so the LED driver can send
    its frame. While the rail is off the LED ``data`` pin is held low: nothing feeds the
    unpowered chain. Time comes in as arguments (``ticks_ms`` values)."""

    def __init__(self, enable, data, usb, now_ms, no_host_ms=3000, settle_ms=20, poll_ms=50):
        self._add = _ticks_add
        self._diff = _ticks_diff
        self.enable = enable
        self.data = data
        self.usb = usb
        self.no_host_ms = no_host_ms
        self.settle_ms = settle_ms
        self.poll_ms = poll_ms
        self.quiet_since = now_ms  # the last time a host was seen (or the start)
        self.next_poll = now_ms
        self.on = False
        self.on_since = now_ms
        self.ready = False
        self.state = USB_NONE
        self.switched_on = 0  # times the rail was turned on (diagnostics)
        self.tripped = False  # the supply switch reported a fault: off for good (``trip``)
        data(0)
        enable(0)

    def trip(self):
        """The supply switch's ~FAULT confirmed an overload (``zuni_hw.fault``): EN and the
        data line low, and the rail stays off whatever the host does, until a restart."""
        self.tripped = True
        self.on = False
        self.ready = False
        self.enable(0)
        self.data(0)

    def step(self, now_ms):
        diff = self._diff
        became_ready = False
        if self.on and not self.ready and diff(now_ms, self.on_since) >= self.settle_ms:
            self.ready = True
            became_ready = True
        if diff(now_ms, self.next_poll) < 0:
            return became_ready
        self.next_poll = self._add(now_ms, self.poll_ms)
        state = self.usb.state()
        self.state = state
        if state == USB_CONFIGURED:
            want = True
        elif state == USB_HOST:
            self.quiet_since = now_ms
            want = False
        else:
            want = diff(now_ms, self.quiet_since) >= self.no_host_ms
        if self.tripped:
            want = False
        if want and not self.on:
            self.on = True
            self.on_since = now_ms
            self.switched_on += 1
            self.enable(1)  # the data line stays low: every LED comes up dark
        elif self.on and not want:
            self.on = False
            self.ready = False
            self.enable(0)
            self.data(0)
            became_ready = False
        return became_ready


# A button counts as released once its line has read high this long (contact bounce at
# release lasts a few ms): a bouncing release never makes a second press.
RELEASE_MS = 30


class Buttons:
    """Push buttons to GND with pull-ups; ``read(now_ms)`` returns the bits of the buttons
    pressed since the last call (an edge, reported once per press).

    Debounced by time, not by a count of reads: on the chip the scans around a commit
    (journal, LED frames, garbage collection) may be 30-100 ms apart, so a press of
    100 ms saw one or two reads and a count of three equal reads lost it. A press counts
    at the first read that finds the line low, or that finds a falling edge latched since
    the last read (``edge(bit)``: the Pico's pin interrupt, so a press that begins and
    ends between two reads, even during a flash erase whose stall holds the interrupt
    back, is still seen); the button is released only once its line has read high for
    ``release_ms`` with no edge in between, so contact bounce never makes two presses.
    No board needs buttons: with none, ``read()`` is always 0.

    ``pins`` is a list of (bit, pin) pairs (bit: OK=1, BACK=2, HINT=4).
    """

    def __init__(self, pins, release_ms=RELEASE_MS):
        self.pins = pins
        self.release_ms = release_ms
        self.state = 0  # debounced: bits of the buttons held down
        self.edges = 0  # falling edges latched since the last read (edge(), an interrupt)
        self._high_at = [0] * len(pins)  # when a held button's line first read high again
        self._high = 0  # bits of held buttons whose line reads high (release pending)

    def edge(self, bit):
        """A falling edge of button ``bit``'s line (the pin interrupt's handler: it
        allocates nothing, so it may run as a hard interrupt)."""
        self.edges |= bit

    def read(self, now_ms=0):
        edges = self.edges
        self.edges = 0
        out = 0
        state = self.state
        high = self._high
        high_at = self._high_at
        i = 0
        for bit, pin in self.pins:
            down = pin() == 0 or edges & bit
            if not state & bit:
                if down:
                    state |= bit
                    out |= bit
                    high &= ~bit
            elif down:
                high &= ~bit  # still held (or bouncing): the release starts again
            elif not high & bit:
                high |= bit
                high_at[i] = now_ms
            elif _ticks_diff(now_ms, high_at[i]) >= self.release_ms:
                state &= ~bit
                high &= ~bit
            i += 1
        self.state = state
        self._high = high
        return out


# -- factories: the only code that touches `machine` ------------------------------------

# The MOSI pin machine.SPI gives SPI0 and SPI1 (zuni_board.layout.SPI_MOSI, which the
# loader reserves; a test holds the two equal): a copy, since importing the loader for it
# at boot cost the chip some 40 ms and its heap the loader's code.
SPI_MOSI = (19, 11)


def _machine(machine):
    if machine is None:
        import machine as m  # type: ignore

        return m
    return machine


def make_sensors(cfg, machine=None):
    """The sensor driver for a layout's ``sensors`` section (dict with defaults filled)."""
    m = _machine(machine)
    Pin = m.Pin
    if cfg["type"] == "hc165":
        pins = cfg["pins"]
        latch = Pin(pins["latch"], Pin.OUT, value=1)
        spi = m.SPI(
            cfg["spi"],
            baudrate=cfg.get("baudrate", 1000000),
            polarity=1,
            phase=0,
            bits=8,
            firstbit=m.SPI.MSB,
            sck=Pin(pins["sck"]),
            miso=Pin(pins["data"]),
            # The SPI takes a MOSI pin whether given or not: name the one the layout
            # loader reserved, rather than rely on the port's default.
            mosi=Pin(SPI_MOSI[cfg["spi"]]),
        )
        return HC165Chain(spi, latch, cfg["count"], cfg.get("active_low", True))
    if cfg["type"] == "matrix":
        rows = [Pin(p, Pin.OUT, value=1) for p in cfg["rows"]]
        cols = [Pin(p, Pin.IN, Pin.PULL_UP) for p in cfg["cols"]]
        return DiodeMatrix(rows, cols, cfg.get("active_low", True))
    raise ValueError("sensors.type %r: no driver (allowed: hc165, matrix)" % (cfg["type"],))


def make_leds(cfg, led_of, machine=None, neopixel=None, power=None):
    """The LED driver for a layout's ``leds`` section (``power``: the rail's ``LedPower``)."""
    m = _machine(machine)
    if neopixel is None:
        import neopixel  # type: ignore
    # value=0: the data line is low from the start (WS2812 idle; nothing feeds an unpowered chain).
    np = neopixel.NeoPixel(m.Pin(cfg["pin"], m.Pin.OUT, value=0), cfg["count"])
    return LedChain(
        np,
        led_of,
        cfg.get("order", "GRB"),
        cfg.get("max_level", 255),
        cfg.get("ma_per_channel", 0.0),
        cfg.get("idle_ma", 0.0),
        cfg.get("budget_ma", 0),
        power,
    )


def make_led_power(power_cfg, leds_cfg, now_ms, machine=None):
    """The LED rail's switch for a layout's ``power`` section, or None when the layout
    has no ``led_enable`` (EN tied on). Build it before the LED driver (make_leds(...,
    power=...)): it takes the enable pin low and the data pin low first."""
    if "led_enable" not in power_cfg:
        return None
    m = _machine(machine)
    Pin = m.Pin
    enable = Pin(power_cfg["led_enable"], Pin.OUT, value=0)
    data = Pin(leds_cfg["pin"], Pin.OUT, value=0)
    return LedPower(
        enable,
        data,
        Rp2040Usb(m.mem32, m.mem16),
        now_ms,
        power_cfg.get("no_host_ms", 3000),
        power_cfg.get("settle_ms", 20),
    )


def make_supply_fault(power_cfg, machine=None):
    """The LED supply switch's ~FAULT reader for a layout's ``power`` section
    (``zuni_hw.fault.SupplyFault``), or None when the layout names no ``fault`` pin. The pin
    is a plain input: R3 (10 kOhm to 3.3 V) is its pull-up, the switch's open drain pulls
    it low."""
    if "fault" not in power_cfg:
        return None
    from zuni_hw.fault import SupplyFault

    m = _machine(machine)
    return SupplyFault(m.Pin(power_cfg["fault"], m.Pin.IN))


def make_buttons(cfg, release_ms=RELEASE_MS, machine=None):
    """The button driver for a layout's ``buttons`` section (may be empty or None); each
    pin's falling edge latched by its interrupt (``Buttons.edge``) where the port has one."""
    pins = []  # type: list
    buttons = Buttons(pins, release_ms)
    if cfg:
        m = _machine(machine)
        for name in ("ok", "back", "hint"):
            if name in cfg:
                bit = BUTTON_BITS[name]
                pin = m.Pin(cfg[name], m.Pin.IN, m.Pin.PULL_UP)
                pins.append((bit, pin))
                _latch_edges(m, pin, buttons, bit)
    buttons._high_at = [0] * len(pins)
    return buttons


def _latch_edges(m, pin, buttons, bit):
    irq = getattr(pin, "irq", None)
    falling = getattr(m.Pin, "IRQ_FALLING", None)
    if irq is None or falling is None:
        return  # no interrupts (a fake machine): the reads alone see presses

    def handler(_pin):
        buttons.edges |= bit

    try:
        irq(handler, falling, hard=True)
    except (TypeError, ValueError, OSError):
        irq(handler, falling)


# Offset of bMaxPower in a USB configuration descriptor (USB 2.0, table 9-10); the
# value counts 2 mA units.
_B_MAX_POWER = 8


def usb_config_descriptor(builtin_cfg, usb_ma):
    """A copy of the built-in driver's configuration descriptor asking for ``usb_ma``."""
    if usb_ma < 2 or usb_ma > 500 or usb_ma % 2:
        raise ValueError("USB current %r mA: expected an even number 2..500" % (usb_ma,))
    cfg = bytearray(builtin_cfg)
    if len(cfg) < 9 or cfg[0] != 9 or cfg[1] != 2:
        raise ValueError("not a USB configuration descriptor: %r" % (bytes(cfg[:9]),))
    cfg[_B_MAX_POWER] = usb_ma // 2
    return cfg


# RP2040 registers (datasheet 2.14 Subsystem resets, 4.1 USB): RESETS.RESET_DONE bit 24 is
# set once the USB controller is out of reset; USB MAIN_CTRL bit 0 is CONTROLLER_EN.
_RESET_DONE = 0x4000C000 + 0x08
_USBCTRL_BIT = 1 << 24
_USB_MAIN_CTRL = 0x50110000 + 0x40


def usb_running(mem32):
    """True when the USB controller is already enabled: after a soft reset (MicroPython
    keeps USB up across it); False after a power-up or a ``machine.reset()``, when boot.py
    runs before MicroPython starts USB. The controller is read only once out of reset."""
    if not mem32[_RESET_DONE] & _USBCTRL_BIT:
        return False
    return bool(mem32[_USB_MAIN_CTRL] & 1)


def request_usb_power(usb_ma, machine=None):
    """Ask the USB host for ``usb_ma`` (the layout's ``power.usb_ma``: the board's worst
    case plus margin) instead of MicroPython's default 250 mA.

    Run from boot.py: on a power-up or a ``machine.reset()`` the rp2 port enables USB only
    after boot.py (MicroPython commit 00ba6aa, "enable USB after boot.py completes"), so the
    host enumerates the board once, with this descriptor. The built-in CDC serial port (the
    REPL and the link) stays as it is: only byte 8 of its configuration descriptor changes.

    Not after a soft reset (USB already up; mpremote makes one when it connects): MicroPython
    clears a runtime descriptor then, so the board drops off USB once and comes back with
    its own 250 mA figure; asking again would drop mpremote's port on every soft reset. The
    host does not police the figure; a hub budgets with it.

    Returns the bMaxPower value sent, or 0 when it did not ask: this MicroPython has no
    ``machine.USBDevice`` (before v1.23), or USB is already up."""
    m = _machine(machine)
    if not hasattr(m, "USBDevice"):
        return 0
    if usb_running(m.mem32):
        return 0
    usbd = m.USBDevice()
    if usbd.active():
        return 0
    builtin = usbd.BUILTIN_CDC
    cfg = usb_config_descriptor(builtin.desc_cfg, usb_ma)
    usbd.builtin_driver = builtin
    # desc_strs None: the built-in strings (some versions require the argument).
    usbd.config(builtin.desc_dev, cfg, None)
    usbd.active(True)
    return cfg[_B_MAX_POWER]


def make_usb_port(sys_module=None, select_module=None):
    """The link on the USB serial port (the REPL's): non-blocking, bounded queue.

    ``micropython.kbd_intr`` is left alone: the protocol is printable text, so a Ctrl-C
    byte only ever comes from mpremote, which must still be able to interrupt."""
    if sys_module is None:
        import sys as sys_module  # type: ignore
    from zuni_hw.port import StreamPort

    # Frames go out in one write of up to the CDC FIFO's 256 bytes (zuni_hw.port).
    return StreamPort(sys_module.stdin.buffer, sys_module.stdout.buffer, select_module, False, 1024, 256, 256)
