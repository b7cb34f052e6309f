"""Board layouts: which sensor and which LED serve each rules point, and which pins.

A layout is data (``hardware/layouts/*.json``, every field described in
``hardware/README.md``); this module loads and checks it on the board and on the PC
(MicroPython and CPython; no ``machine``). Any mistake raises ``LayoutError`` naming
the field, so that a maker editing a file learns what to fix:

>>> layout = Layout.load("hardware/layouts/board25.json")
>>> sensor_of, led_of = layout.maps(zuni.new_game("mosona").geometry)
>>> Layout.from_dict({"format": 2})
LayoutError: format: 2 is not a supported layout format (allowed: 1)
"""

import json

FORMAT = 1

# Raspberry Pi Pico: GPIOs brought out to the header (GP23-GP25 and GP29 are used
# on the board itself: regulator mode, VBUS sense, LED, VSYS/3 ADC).
PICO_PINS = tuple(range(0, 23)) + (26, 27, 28)

# The RP2040's SPI function pins per block (datasheet, GPIO function table). The
# 74HC165 chain needs SCK and RX (the chain's serial output, "data"); TX is unused.
SPI_SCK = ((2, 6, 18, 22), (10, 14, 26))
SPI_RX = ((0, 4, 16, 20), (8, 12, 28))
# machine.SPI on the rp2 port always gives a TX (MOSI) pin to the SPI block: the one
# passed as mosi=, else the port's default, GP19 on SPI0 and GP11 on SPI1. The chain
# leaves it unconnected, but it is no longer a free GPIO (make_sensors passes it
# explicitly), so the loader reserves it.
SPI_MOSI = (19, 11)

SENSOR_TYPES = ("hc165", "matrix")
LED_TYPES = ("ws2812", "sk6812")
LED_ORDERS = ("RGB", "RBG", "GRB", "GBR", "BRG", "BGR")
BUTTON_NAMES = ("ok", "back", "hint")

# docs/board.md's defaults; a layout may override each one. commit_ms 150 (= stable_ms): a
# finished move is committed by the scan that sees it stable, so that its frame is out
# at most 200 ms after the hand on an RP2040 too (the change is first seen up to one
# 10 ms scan after it, and the commit's scan takes some 15-40 ms there:
# docs/firmware-timing.md).
TIMING_DEFAULTS = {
    "scan_ms": 10,
    "debounce_scans": 3,
    "stable_ms": 150,
    "commit_ms": 150,
    "error_ms": 1000,
    "chain_settle_ms": 2000,
}

# ma_per_channel: 20 mA, a third of the 60 mA per LED at full white that the Adafruit
# NeoPixel Uberguide gives for WS2812B/SK6812 (PJRC measured 33.5-52.5 mA per LED);
# idle_ma: 1 mA, PJRC's "just under 1 mA" per dark LED. hardware/<board>/power.md.
LED_DEFAULTS = {
    "order": "GRB",
    "max_level": 48,
    "ma_per_channel": 20.0,
    "idle_ma": 1.0,
    "budget_ma": 200,
}

# USB current the firmware asks the host for (the configuration descriptor's
# bMaxPower). 250 mA is what MicroPython's rp2 port asks for by default (its built-in
# CDC configuration descriptor has bMaxPower 125, in 2 mA units); a USB 2.0 port gives
# at most 500 mA to a configured device.
POWER_DEFAULTS = {"usb_ma": 250}
# power.led_enable (optional): the GPIO that drives the LED rail's load switch EN (TPS2553
# pin 3, active high, held low by a pull-down). Without it the switch's EN is tied to its
# input and the LEDs draw their idle current from plug-in, before USB configuration.
# no_host_ms: with no host on the bus (no start-of-frame packets, no address) for this
# long, the board is on a charger or a power bank, which configures nothing: the rail
# comes on anyway. A host sends its first packets well within a second of attach (USB 2.0
# 7.1.7.3 and 7.1.7.5: a 100 ms connect debounce, then a reset of at least 10 ms, then
# start-of-frame packets every millisecond). settle_ms: after EN goes high, the LEDs
# get no data until the 220 uF has charged at the switch's current limit (2 ms).
LED_POWER_DEFAULTS = {"no_host_ms": 3000, "settle_ms": 20}
# power.fault (optional): the GPIO reading the load switch's ~FAULT (TPS2553 pin 4, open
# drain, pulled up to 3.3 V by R3): low while the switch limits an overload on the LED
# rail (zuni_hw.fault).
POWER_KEYS = ("fault", "led_enable", "no_host_ms", "settle_ms", "usb_ma")
USB_DEFAULT_MA = 250
USB_MAX_MA = 500

MECHANICS_DEFAULTS = {
    "pitch_mm": 30.0,
    "switch_offset_mm": 6.0,
    "switch_angle_deg": 0.0,
}

_TOP_KEYS = (
    "format",
    "name",
    "title",
    "rulesets",
    "points",
    "sensors",
    "leds",
    "buttons",
    "timing",
    "mechanics",
    "power",
    "notes",
)


class LayoutError(ValueError):
    """A layout file or dict is malformed; the message names the field."""


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    return (isinstance(value, int) or isinstance(value, float)) and not isinstance(value, bool)


def _check_keys(d, allowed, where):
    # Keys starting with "_" are comments (JSON has none of its own).
    for key in d:
        if key[:1] != "_" and key not in allowed:
            raise LayoutError("%s%s: unknown field (allowed: %s)" % (where, key, ", ".join(allowed)))


def _dict(value, field):
    if not isinstance(value, dict):
        raise LayoutError("%s: expected an object, got %r" % (field, value))
    return value


def _int(value, field, low, high):
    if not _is_int(value) or value < low or value > high:
        raise LayoutError("%s: expected an integer %d..%d, got %r" % (field, low, high, value))
    return value


def _number(value, field, low, high):
    if not _is_number(value) or value < low or value > high:
        raise LayoutError("%s: expected a number %s..%s, got %r" % (field, low, high, value))
    return value


def _str(value, field):
    if not isinstance(value, str) or not value:
        raise LayoutError("%s: expected a non-empty string, got %r" % (field, value))
    return value


def _pin(value, field):
    if not _is_int(value) or value not in PICO_PINS:
        raise LayoutError("%s: %r is not a GPIO on the Pico's header (allowed: GP0-GP22, GP26-GP28)" % (field, value))
    return value


def _pin_list(value, field):
    if not isinstance(value, list) or not value:
        raise LayoutError("%s: expected a non-empty list of pins, got %r" % (field, value))
    for i in range(len(value)):
        _pin(value[i], "%s[%d]" % (field, i))
    return list(value)


class Layout:
    """A checked layout. Attributes mirror the JSON, with defaults filled in:
    ``name``, ``title``, ``rulesets`` (list of ruleset texts), ``points`` (dict
    name -> [sensor index, LED index]), ``sensors``, ``leds``, ``buttons`` (dict name
    -> pin, possibly empty), ``timing``, ``mechanics``, ``power``; plus ``sensor_count`` and
    ``led_count``."""

    def __init__(self):
        self.name = ""
        self.title = ""
        self.rulesets = []  # type: list[str]
        self.points = {}  # type: dict[str, list[int]]
        self.sensors = {}  # type: dict
        self.leds = {}  # type: dict
        self.buttons = {}  # type: dict[str, int]
        self.timing = {}  # type: dict[str, int]
        self.mechanics = {}  # type: dict
        self.power = {}  # type: dict
        self.sensor_count = 0
        self.led_count = 0
        self.point_count = 0
        self.notes = ""
        self.path = ""

    @classmethod
    def load(cls, path):
        """Read and check a layout file; errors name the file and the field."""
        try:
            with open(path) as f:
                data = json.load(f)
        except OSError as exc:
            raise LayoutError("%s: cannot read the layout (%s)" % (path, exc))
        except ValueError as exc:
            raise LayoutError("%s: not valid JSON (%s)" % (path, exc))
        try:
            layout = cls.from_dict(data)
        except LayoutError as exc:
            raise LayoutError("%s: %s" % (path, exc))
        layout.path = path
        return layout

    @classmethod
    def from_dict(cls, d):
        """Check a decoded layout and build it; LayoutError names the first bad field."""
        _dict(d, "layout")
        _check_keys(d, _TOP_KEYS, "")
        if d.get("format", FORMAT) != FORMAT:
            raise LayoutError("format: %r is not a supported layout format (allowed: %d)" % (d["format"], FORMAT))
        for key in ("format", "name", "rulesets", "points", "sensors", "leds"):
            if key not in d:
                raise LayoutError("%s: missing (required fields: format, name, rulesets, points, sensors, leds)" % key)
        self = cls()
        self.name = _str(d["name"], "name")
        self.title = _str(d.get("title", self.name), "title")
        self.notes = d.get("notes", "")
        rulesets = d["rulesets"]
        if not isinstance(rulesets, list) or not rulesets:
            raise LayoutError("rulesets: expected a non-empty list of ruleset texts, got %r" % (rulesets,))
        for i in range(len(rulesets)):
            _str(rulesets[i], "rulesets[%d]" % i)
        self.rulesets = list(rulesets)
        used = {}  # type: dict[int, str]
        self.sensors = _sensors(_dict(d["sensors"], "sensors"), used)
        self.sensor_count = self.sensors["count"]
        self.leds = _leds(_dict(d["leds"], "leds"), used)
        self.led_count = self.leds["count"]
        self.buttons = _buttons(_dict(d.get("buttons", {}), "buttons"), used)
        self.timing = _timing(_dict(d.get("timing", {}), "timing"))
        self.mechanics = _mechanics(_dict(d.get("mechanics", {}), "mechanics"))
        self.power = _power(_dict(d.get("power", {}), "power"), used)
        self.points = _points(_dict(d["points"], "points"), self.sensor_count, self.led_count)
        self.point_count = len(self.points)
        return self

    def maps(self, geometry):
        """``(sensor_of, led_of)``: lists indexed by the geometry's point index.

        The layout must name exactly the geometry's points."""
        names = geometry.names
        sensor_of = []
        led_of = []
        for name in names:
            pair = self.points.get(name)
            if pair is None:
                raise LayoutError("points: %s has no entry for point %s of this game" % (self.name, name))
            sensor_of.append(pair[0])
            led_of.append(pair[1])
        if len(self.points) != len(names):
            extra = sorted(n for n in self.points if n not in geometry.index)
            raise LayoutError("points.%s: not a point of this game (layout %s)" % (extra[0], self.name))
        return sensor_of, led_of

    def all_on_led_ma(self):
        """Current of the LED chain with every channel of every LED at ``max_level``,
        before the firmware's limit scales such a frame down."""
        leds = self.leds
        per_led = 3 * leds["ma_per_channel"] * leds["max_level"] / 255 + leds["idle_ma"]
        return leds["count"] * per_led

    def worst_led_ma(self):
        """The most the LED chain can draw: every LED white at ``max_level``, or
        ``budget_ma`` where the firmware scales that frame down to the budget."""
        return min(self.all_on_led_ma(), self.leds["budget_ma"])

    def __repr__(self):
        return "Layout(%r)" % (self.name,)


def _sensors(s, used):
    kind = s.get("type")
    if kind not in SENSOR_TYPES:
        raise LayoutError("sensors.type: %r is not a sensor type (allowed: %s)" % (kind, ", ".join(SENSOR_TYPES)))
    out = {"type": kind}
    active_low = s.get("active_low", True)
    if not isinstance(active_low, bool):
        raise LayoutError("sensors.active_low: expected true or false, got %r" % (active_low,))
    out["active_low"] = active_low
    if kind == "hc165":
        _check_keys(s, ("type", "count", "spi", "pins", "active_low", "baudrate"), "sensors.")
        if "count" not in s:
            raise LayoutError("sensors.count: missing (8 inputs per 74HC165 in the chain)")
        count = _int(s["count"], "sensors.count", 8, 8 * 64)
        if count % 8:
            raise LayoutError("sensors.count: %d is not a multiple of 8 (each 74HC165 has 8 inputs)" % count)
        spi = _int(s.get("spi", 0), "sensors.spi", 0, 1)
        pins = _dict(s.get("pins"), "sensors.pins")
        # Reserved before the pins, so that a latch on it is the field named.
        _use(SPI_MOSI[spi], "SPI%d's MOSI (machine.SPI claims it; the chain leaves it unconnected)" % spi, used)
        _check_keys(pins, ("sck", "data", "latch"), "sensors.pins.")
        for key in ("sck", "data", "latch"):
            if key not in pins:
                raise LayoutError("sensors.pins.%s: missing (74HC165 chain pins: sck, data, latch)" % key)
            _use(_pin(pins[key], "sensors.pins." + key), "sensors.pins." + key, used)
        if pins["sck"] not in SPI_SCK[spi]:
            raise LayoutError(
                "sensors.pins.sck: GP%d is not an SCK pin of SPI%d (allowed: %s)"
                % (pins["sck"], spi, ", ".join("GP%d" % p for p in SPI_SCK[spi]))
            )
        if pins["data"] not in SPI_RX[spi]:
            raise LayoutError(
                "sensors.pins.data: GP%d is not an RX pin of SPI%d (allowed: %s)"
                % (pins["data"], spi, ", ".join("GP%d" % p for p in SPI_RX[spi]))
            )
        out["count"] = count
        out["spi"] = spi
        out["pins"] = {"sck": pins["sck"], "data": pins["data"], "latch": pins["latch"]}
        out["baudrate"] = _int(s.get("baudrate", 1000000), "sensors.baudrate", 10000, 10000000)
    else:
        _check_keys(s, ("type", "count", "rows", "cols", "active_low"), "sensors.")
        rows = _pin_list(s.get("rows"), "sensors.rows")
        cols = _pin_list(s.get("cols"), "sensors.cols")
        for i in range(len(rows)):
            _use(rows[i], "sensors.rows[%d]" % i, used)
        for i in range(len(cols)):
            _use(cols[i], "sensors.cols[%d]" % i, used)
        count = len(rows) * len(cols)
        if "count" in s and s["count"] != count:
            raise LayoutError("sensors.count: %r, but rows x cols is %d" % (s["count"], count))
        out["count"] = count
        out["rows"] = rows
        out["cols"] = cols
    return out


def _leds(s, used):
    _check_keys(s, ("type", "pin", "count", "order", "max_level", "ma_per_channel", "idle_ma", "budget_ma"), "leds.")
    kind = s.get("type")
    if kind not in LED_TYPES:
        raise LayoutError("leds.type: %r is not an LED type (allowed: %s)" % (kind, ", ".join(LED_TYPES)))
    if "pin" not in s:
        raise LayoutError("leds.pin: missing (the LED chain's data pin)")
    if "count" not in s:
        raise LayoutError("leds.count: missing (number of LEDs in the chain)")
    out = {"type": kind}
    out["pin"] = _use(_pin(s["pin"], "leds.pin"), "leds.pin", used)
    out["count"] = _int(s["count"], "leds.count", 1, 1024)
    order = s.get("order", LED_DEFAULTS["order"])
    if order not in LED_ORDERS:
        raise LayoutError("leds.order: %r is not a colour order (allowed: %s)" % (order, ", ".join(LED_ORDERS)))
    out["order"] = order
    out["max_level"] = _int(s.get("max_level", LED_DEFAULTS["max_level"]), "leds.max_level", 1, 255)
    out["ma_per_channel"] = _number(
        s.get("ma_per_channel", LED_DEFAULTS["ma_per_channel"]), "leds.ma_per_channel", 0.1, 100
    )
    out["idle_ma"] = _number(s.get("idle_ma", LED_DEFAULTS["idle_ma"]), "leds.idle_ma", 0, 10)
    out["budget_ma"] = _number(s.get("budget_ma", LED_DEFAULTS["budget_ma"]), "leds.budget_ma", 1, 100000)
    # The firmware scales down any frame that would draw more than budget_ma (a dynamic
    # limit), so max_level is the brightness of one lit point; the budget must still
    # leave room for the idle chain plus one white LED at max_level.
    idle = out["count"] * out["idle_ma"]
    one = 3 * out["ma_per_channel"] * out["max_level"] / 255
    if idle + one > out["budget_ma"]:
        raise LayoutError(
            "leds.budget_ma: %s mA leaves no room for one white LED at max_level %d (%.0f mA) after %d idle LEDs"
            " (%.0f mA)" % (out["budget_ma"], out["max_level"], one, out["count"], idle)
        )
    return out


def _buttons(b, used):
    _check_keys(b, BUTTON_NAMES, "buttons.")
    out = {}
    for key in b:
        if key[:1] != "_":
            out[key] = _use(_pin(b[key], "buttons." + key), "buttons." + key, used)
    return out


def _timing(t):
    _check_keys(t, tuple(sorted(TIMING_DEFAULTS)), "timing.")
    out = {}
    for key in TIMING_DEFAULTS:
        low = 1
        out[key] = _int(t.get(key, TIMING_DEFAULTS[key]), "timing." + key, low, 60000)
    return out


def _power(p, used):
    _check_keys(p, POWER_KEYS, "power.")
    out = {}
    if "led_enable" in p:
        out["led_enable"] = _use(_pin(p["led_enable"], "power.led_enable"), "power.led_enable", used)
        out["no_host_ms"] = _int(p.get("no_host_ms", LED_POWER_DEFAULTS["no_host_ms"]), "power.no_host_ms", 500, 60000)
        out["settle_ms"] = _int(p.get("settle_ms", LED_POWER_DEFAULTS["settle_ms"]), "power.settle_ms", 5, 1000)
    else:
        for key in ("no_host_ms", "settle_ms"):
            if key in p:
                raise LayoutError("power.%s: needs power.led_enable (the LED rail is not switched)" % key)
    if "fault" in p:
        out["fault"] = _use(_pin(p["fault"], "power.fault"), "power.fault", used)
    out["usb_ma"] = _int(p.get("usb_ma", POWER_DEFAULTS["usb_ma"]), "power.usb_ma", 100, USB_MAX_MA)
    if out["usb_ma"] % 2:
        raise LayoutError("power.usb_ma: %d is odd (USB counts it in 2 mA units)" % out["usb_ma"])
    return out


def _mechanics(m):
    _check_keys(m, tuple(sorted(MECHANICS_DEFAULTS)), "mechanics.")
    out = {}
    out["pitch_mm"] = _number(m.get("pitch_mm", MECHANICS_DEFAULTS["pitch_mm"]), "mechanics.pitch_mm", 10, 200)
    out["switch_offset_mm"] = _number(
        m.get("switch_offset_mm", MECHANICS_DEFAULTS["switch_offset_mm"]), "mechanics.switch_offset_mm", -50, 50
    )
    out["switch_angle_deg"] = _number(
        m.get("switch_angle_deg", MECHANICS_DEFAULTS["switch_angle_deg"]), "mechanics.switch_angle_deg", -180, 180
    )
    return out


def _points(p, sensor_count, led_count):
    # The JSON's own [sensor, LED] lists are kept (no copies), and field names are only
    # built for an error: the 168-square layout must load in a small heap.
    if not p:
        raise LayoutError("points: empty (every point of the board needs a sensor and an LED)")
    sensor_owner = {}  # type: dict[int, str]
    led_owner = {}  # type: dict[int, str]
    for name in p:
        pair = p[name]
        if not isinstance(pair, list) or len(pair) != 2:
            raise LayoutError("points.%s: expected [sensor index, LED index], got %r" % (name, pair))
        sensor = pair[0]
        led = pair[1]
        if not _is_int(sensor) or not 0 <= sensor < sensor_count:
            _int(sensor, "points.%s[0] (sensor index)" % name, 0, sensor_count - 1)
        if not _is_int(led) or not 0 <= led < led_count:
            _int(led, "points.%s[1] (LED index)" % name, 0, led_count - 1)
        if sensor in sensor_owner:
            raise LayoutError("points.%s: sensor %d is already used by %s" % (name, sensor, sensor_owner[sensor]))
        if led in led_owner:
            raise LayoutError("points.%s: LED %d is already used by %s" % (name, led, led_owner[led]))
        sensor_owner[sensor] = name
        led_owner[led] = name
    return p


def _use(pin, field, used):
    if pin in used:
        raise LayoutError("%s: GP%d is already used by %s" % (field, pin, used[pin]))
    used[pin] = field
    return pin
