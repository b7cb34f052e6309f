"""The layout loader (firmware/lib/zuni_board/layout.py) on both interpreters:
the shipped layouts load, and every kind of mistake raises LayoutError naming the field."""

import json
import sys

from check import eq, raises

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
REPO = _HERE + "/../.."
LAYOUTS = REPO + "/hardware/layouts/"

try:
    from zuni_board.layout import Layout, LayoutError
except ImportError:
    # CPython: firmware/lib is not on the path (MicroPython's MICROPYPATH has it).
    sys.path.append(REPO + "/firmware/lib")
    from zuni_board.layout import Layout, LayoutError

SHIPPED = ("board25", "board25-matrix", "board49", "board168")


class _Geometry:
    """Just what Layout.maps reads from a zuni.Geometry: names and index."""

    def __init__(self, names):
        self.names = names
        self.index = {}
        for i in range(len(names)):
            self.index[names[i]] = i


def _small():
    """A valid four-point layout to break one field at a time."""
    return {
        "format": 1,
        "name": "tiny",
        "title": "four points",
        "rulesets": ["mosona"],
        "points": {"a": [0, 3], "b": [1, 2], "c": [2, 1], "d": [9, 0]},
        "sensors": {
            "type": "hc165",
            "count": 16,
            "spi": 0,
            "pins": {"sck": 18, "data": 16, "latch": 17},
            "active_low": True,
        },
        "leds": {"type": "ws2812", "pin": 22, "count": 4, "order": "GRB", "max_level": 48, "budget_ma": 100},
        "buttons": {"ok": 10, "back": 11, "hint": 12},
    }


def _fails(mutate, contains):
    d = _small()
    mutate(d)
    with raises(LayoutError, contains):
        Layout.from_dict(d)


def test_small_layout_loads_with_defaults():
    layout = Layout.from_dict(_small())
    eq(layout.name, "tiny")
    eq(layout.sensor_count, 16)
    eq(layout.led_count, 4)
    eq(layout.points["d"], [9, 0])
    eq(layout.timing["stable_ms"], 150)
    eq(layout.timing["chain_settle_ms"], 2000)
    eq(layout.leds["idle_ma"], 1.0)
    eq(layout.leds["ma_per_channel"], 20.0)
    eq(layout.power["usb_ma"], 250)  # MicroPython's own request, unless the layout asks for more
    eq(layout.sensors["pins"]["latch"], 17)
    eq(layout.buttons["hint"], 12)


def test_buttons_and_timing_are_optional():
    d = _small()
    del d["buttons"]
    d["timing"] = {"debounce_scans": 5}
    layout = Layout.from_dict(d)
    eq(layout.buttons, {})
    eq(layout.timing["debounce_scans"], 5)
    eq(layout.timing["scan_ms"], 10)


def test_maps_follow_the_geometry_order():
    layout = Layout.from_dict(_small())
    sensor_of, led_of = layout.maps(_Geometry(("d", "c", "b", "a")))
    eq(sensor_of, [9, 2, 1, 0])
    eq(led_of, [0, 1, 2, 3])


def test_maps_reject_a_missing_or_extra_point():
    layout = Layout.from_dict(_small())
    with raises(LayoutError, "point e"):
        layout.maps(_Geometry(("a", "b", "c", "d", "e")))
    with raises(LayoutError, "points.d"):
        layout.maps(_Geometry(("a", "b", "c")))


def test_bad_top_level_fields_are_named():
    _fails(lambda d: d.update({"format": 2}), "format")
    _fails(lambda d: d.pop("name"), "name: missing")
    _fails(lambda d: d.update({"rulesets": []}), "rulesets")
    _fails(lambda d: d.update({"colour": "red"}), "colour: unknown field")


def test_bad_points_are_named():
    _fails(lambda d: d["points"].update({"e": [16, 0]}), "points.e[0] (sensor index)")
    _fails(lambda d: d["points"].update({"e": [10, 4]}), "points.e[1] (LED index)")
    _fails(lambda d: d["points"].update({"e": [1, 3]}), "sensor 1 is already used by b")
    _fails(lambda d: d["points"].update({"a": [0]}), "points.a")
    _fails(lambda d: d["points"].update({"a": [True, 3]}), "points.a[0]")


def test_bad_sensors_are_named():
    _fails(lambda d: d["sensors"].update({"type": "hall"}), "sensors.type")
    _fails(lambda d: d["sensors"].update({"count": 12}), "sensors.count: 12 is not a multiple of 8")
    _fails(lambda d: d["sensors"]["pins"].update({"sck": 5}), "sensors.pins.sck: GP5 is not an SCK pin of SPI0")
    _fails(lambda d: d["sensors"]["pins"].update({"data": 17, "latch": 2}), "sensors.pins.data")
    _fails(lambda d: d["sensors"]["pins"].update({"latch": 23}), "sensors.pins.latch: 23 is not a GPIO")
    _fails(lambda d: d["sensors"].update({"spi": 2}), "sensors.spi")
    _fails(lambda d: d["sensors"].update({"active_low": 1}), "sensors.active_low")


def test_spi1_pins_are_checked_against_spi1():
    d = _small()
    d["sensors"]["spi"] = 1
    d["sensors"]["pins"] = {"sck": 14, "data": 8, "latch": 9}
    d["buttons"] = {}
    eq(Layout.from_dict(d).sensors["spi"], 1)
    d["sensors"]["pins"]["data"] = 16
    with raises(LayoutError, "not an RX pin of SPI1"):
        Layout.from_dict(d)


def test_the_spi_mosi_pin_is_reserved():
    # machine.SPI gives the SPI block a MOSI pin even though the chain needs none:
    # GP19 on SPI0, GP11 on SPI1. No other field may have it.
    _fails(lambda d: d["buttons"].update({"ok": 19}), "buttons.ok: GP19 is already used by SPI0's MOSI")
    _fails(lambda d: d["leds"].update({"pin": 19}), "leds.pin: GP19 is already used by SPI0's MOSI")
    _fails(lambda d: d["sensors"]["pins"].update({"latch": 19}), "sensors.pins.latch: GP19 is already used by SPI0")
    d = _small()
    d["sensors"]["spi"] = 1
    d["sensors"]["pins"] = {"sck": 14, "data": 8, "latch": 9}
    d["buttons"] = {"ok": 11}
    with raises(LayoutError, "buttons.ok: GP11 is already used by SPI1's MOSI"):
        Layout.from_dict(d)
    d["buttons"] = {"ok": 19}
    eq(Layout.from_dict(d).buttons, {"ok": 19}, "GP19 is free when the chain is on SPI1")
    d = _small()
    d["sensors"] = {"type": "matrix", "rows": [19, 3, 4], "cols": [11, 6, 7, 8]}
    d["buttons"] = {}
    eq(Layout.from_dict(d).sensors["rows"], [19, 3, 4], "a matrix claims no SPI pin")


def test_matrix_sensors():
    d = _small()
    d["sensors"] = {"type": "matrix", "rows": [2, 3, 4], "cols": [5, 6, 7, 8], "active_low": True}
    layout = Layout.from_dict(d)
    eq(layout.sensor_count, 12)
    eq(layout.sensors["rows"], [2, 3, 4])
    d["sensors"]["cols"] = [5, 6, 22]
    with raises(LayoutError, "leds.pin: GP22 is already used by sensors.cols[2]"):
        Layout.from_dict(d)


def test_a_pin_used_twice_is_named():
    _fails(lambda d: d["buttons"].update({"ok": 22}), "buttons.ok: GP22 is already used by leds.pin")
    _fails(lambda d: d["buttons"].update({"menu": 13}), "buttons.menu: unknown field")


def test_bad_leds_are_named():
    _fails(lambda d: d["leds"].update({"order": "GRBW"}), "leds.order")
    _fails(lambda d: d["leds"].update({"max_level": 300}), "leds.max_level")
    # 4 idle LEDs (4 mA) and one white LED at 255 (60 mA) need 64 mA.
    _fails(lambda d: d["leds"].update({"max_level": 255, "budget_ma": 63}), "leds.budget_ma: 63 mA leaves no room")
    _fails(lambda d: d["leds"].update({"type": "apa102"}), "leds.type")
    _fails(lambda d: d["leds"].pop("pin"), "leds.pin: missing")


def test_budget_is_a_dynamic_limit_not_a_cap_on_max_level():
    # Every LED white at 255 would draw 4 x 61 mA, over a 100 mA budget: allowed, since
    # the firmware scales such a frame down; the worst case is the budget itself.
    d = _small()
    d["leds"].update({"max_level": 255, "budget_ma": 100})
    layout = Layout.from_dict(d)
    eq(round(layout.all_on_led_ma(), 1), 244.0)
    eq(layout.worst_led_ma(), 100)
    d["leds"].update({"max_level": 10, "budget_ma": 100})
    layout = Layout.from_dict(d)
    eq(round(layout.worst_led_ma(), 2), round(4 * (60 * 10 / 255 + 1.0), 2), "under the budget: all LEDs on")


def test_power_section_is_checked():
    d = _small()
    d["power"] = {"usb_ma": 500}
    eq(Layout.from_dict(d).power["usb_ma"], 500)
    _fails(lambda d: d.update({"power": {"usb_ma": 900}}), "power.usb_ma")  # USB 2.0 gives at most 500
    _fails(lambda d: d.update({"power": {"usb_ma": 451}}), "power.usb_ma: 451 is odd")
    _fails(lambda d: d.update({"power": {"usb_mA": 500}}), "power.usb_mA: unknown field")


def test_power_led_enable_pin_is_checked():
    d = _small()
    eq("led_enable" in Layout.from_dict(d).power, False, "optional: without it EN is tied on")
    d["power"] = {"usb_ma": 500, "led_enable": 21}
    power = Layout.from_dict(d).power
    eq((power["led_enable"], power["no_host_ms"], power["settle_ms"]), (21, 3000, 20), "with the defaults")
    _fails(lambda d: d.update({"power": {"settle_ms": 20}}), "power.settle_ms: needs power.led_enable")
    _fails(lambda d: d.update({"power": {"led_enable": 21, "settle_ms": 1}}), "power.settle_ms")
    _fails(lambda d: d.update({"power": {"led_enable": 22}}), "power.led_enable: GP22 is already used by leds.pin")
    _fails(lambda d: d.update({"power": {"led_enable": 19}}), "power.led_enable: GP19 is already used by SPI0's MOSI")
    _fails(lambda d: d.update({"power": {"led_enable": 25}}), "power.led_enable: 25 is not a GPIO on the Pico's header")


def test_power_fault_pin_is_checked():
    d = _small()
    eq("fault" in Layout.from_dict(d).power, False, "optional: without it ~FAULT is only a test point")
    d["power"] = {"usb_ma": 500, "led_enable": 21, "fault": 20}
    eq(Layout.from_dict(d).power["fault"], 20)
    _fails(lambda d: d.update({"power": {"fault": 21, "led_enable": 21}}), "GP21 is already used by power.")
    _fails(lambda d: d.update({"power": {"fault": 22}}), "power.fault: GP22 is already used by leds.pin")
    _fails(lambda d: d.update({"power": {"fault": "GP20"}}), "power.fault: 'GP20' is not a GPIO on the Pico's header")


def test_bad_timing_is_named():
    _fails(lambda d: d.update({"timing": {"stable_ms": -1}}), "timing.stable_ms")
    _fails(lambda d: d.update({"timing": {"stabel_ms": 100}}), "timing.stabel_ms: unknown field")


def test_comment_fields_are_ignored():
    d = _small()
    d["_comment"] = "anything"
    d["leds"]["_why"] = "anything"
    eq(Layout.from_dict(d).name, "tiny")


def test_load_names_the_file():
    with raises(LayoutError, "nosuch.json"):
        Layout.load(LAYOUTS + "nosuch.json")


def test_shipped_layouts_load():
    for name in SHIPPED:
        layout = Layout.load(LAYOUTS + name + ".json")
        eq(layout.name, name)
        eq(len(layout.points), layout.led_count, name + " points vs LEDs")
        if layout.worst_led_ma() > layout.leds["budget_ma"]:
            raise AssertionError(name + ": LEDs over budget")
        eq(layout.leds["max_level"] >= 96, True, name + ": one lit point is bright (max_level)")


def test_shipped_layouts_round_trip_through_json():
    with open(LAYOUTS + "board25.json") as f:
        text = f.read()
    layout = Layout.from_dict(json.loads(text))
    eq(sorted(layout.points)[0], "m1")
    eq(len(layout.points), 25)
