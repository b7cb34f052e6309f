"""firmware/main.py's Pico branch (``main_pico``) under the MicroPython unix port, with
explicit fake ``machine`` and ``neopixel`` modules put first on MICROPYPATH (they shadow
the built-ins) and the link on the process's own stdin/stdout, as on the Pico's USB
serial port.

What this cannot show (no RP2040 here): real SPI/PIO timing, the USB CDC driver's
blocking behaviour (tests/shared/test_pico_drivers.py models it), and boot from /main.py.
"""

from __future__ import annotations

import os
import select
import subprocess
import time
from pathlib import Path

import pytest

from zuni_link import codec
from zuniboard.paths import FIRMWARE_DIR, HARDWARE_DIR
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_command, micropython_env

try:
    micropython_command("x")
except MicroPythonMissing as exc:  # pragma: no cover
    pytest.skip("no MicroPython unix port: %s" % exc, allow_module_level=True)

SCANS = 60  # the fake SPI / row pins stop the loop (KeyboardInterrupt) after this many scans

FAKE_MACHINE = (
    '''
"""Fake machine module: records pins and the SPI bus; every switch open (reads 1); the
RP2040's USB controller as TinyUSB leaves it (USB[0]: 'configured', 'host' = addressed but
not configured, or 'none' = a charger)."""
made = []
scans = [0]
LIMIT = %d
PINS = {}  # GPIO -> the last Pin made for it (its level: .v)
USB = ["configured"]
LOW_FROM = {}  # GPIO -> the scan from which an input reads 0 (the LED supply's ~FAULT)


class _Mem:
    def __init__(self, width):
        self.width = width

    def __getitem__(self, address):
        if address == 0x4000C008:
            return 0x01FFFFFF  # RESET_DONE: every block out of reset
        if address == 0x50110000:
            return 0 if USB[0] == "none" else 5  # ADDR_ENDP: the address the host gave
        if address == 0x50110048:
            return 0  # SOF_RD (read only without an address)
        if address in (0x5010000A, 0x50100012, 0x50100016):  # EP1 IN, EP2 IN, EP2 OUT control, bits 31..16
            return 0x8000 if USB[0] == "configured" else 0
        if 0x50100008 <= address < 0x50100080:
            return 0
        raise AssertionError("unexpected register read")


mem32 = _Mem(4)
mem16 = _Mem(2)


class Pin:
    OUT = 1
    IN = 0
    PULL_UP = 2

    def __init__(self, pin_id, mode=-1, pull=-1, value=None):
        self.id = pin_id
        self.v = 1 if value is None else value
        made.append(("Pin", pin_id, mode, pull, value))
        PINS[pin_id] = self

    def init(self, *a, **k):
        pass

    def __call__(self, v=None):
        if v is None:
            return 0 if self.id in LOW_FROM and scans[0] >= LOW_FROM[self.id] else 1
        self.v = v
        if v == 0 and self.id in ROW_PINS:
            _scan()
        return None


ROW_PINS = []


def unique_id():
    return b"\\xe6\\x61\\x41\\x04\\x03\\x2b\\x5c\\x2a"  # the flash chip's 64-bit id


def _scan():
    scans[0] += 1
    if scans[0] >= LIMIT:
        raise KeyboardInterrupt


class SPI:
    MSB = 0

    def __init__(self, spi_id, **kw):
        made.append(("SPI", spi_id, sorted(kw.items())))

    def readinto(self, buf, write=0):
        for i in range(len(buf)):
            buf[i] = 0xFF
        _scan()
'''
    % SCANS
)

FAKE_NEOPIXEL = """
import machine

writes = []
unpowered = []  # writes made while the LED rail's EN (GP21) was low


class NeoPixel:
    def __init__(self, pin, n):
        self.pin = pin
        self.buf = bytearray(3 * n)

    def write(self):
        writes.append(bytes(self.buf))
        if machine.PINS[21].v != 1:
            unpowered.append(len(writes))
"""

RUNNER = """
import sys
import machine, neopixel
import main
layout = sys.argv[1]
machine.USB[0] = sys.argv[2]
if len(sys.argv) > 3:
    machine.LOW_FROM[20] = int(sys.argv[3])  # the layouts' power.fault: ~FAULT low from that scan
if 'matrix' in layout:
    machine.ROW_PINS[:] = [2]  # board25-matrix.json's first row: one count per scan
try:
    main.main_pico(layout, 'journal')
except KeyboardInterrupt:
    pass
lit = [w for w in neopixel.writes if any(w)]
sys.stderr.write('EN %d UNPOWERED %d\\n' % (machine.PINS[21].v, len(neopixel.unpowered)))
sys.stderr.write('SCANS %d\\n' % machine.scans[0])
top = max([max(w) for w in neopixel.writes] or [0])
sys.stderr.write('WRITES %d LIT %d MAX %d\\n' % (len(neopixel.writes), len(lit), top))
sys.stderr.write('LEVELSUM %d\\n' % max([sum(w) for w in neopixel.writes] or [0]))
for m in machine.made:
    if m[0] == 'SPI':
        sys.stderr.write('SPI %r\\n' % (m,))
"""


def _run_main_pico(layout: str, usb: str, tmp_path: Path, *extra: str) -> tuple[bytes, str]:
    """main_pico() on the fake machine until SCANS scans; a ping answered on the way."""
    (tmp_path / "machine.py").write_text(FAKE_MACHINE)
    (tmp_path / "neopixel.py").write_text(FAKE_NEOPIXEL)
    (tmp_path / "run.py").write_text(RUNNER)
    (tmp_path / "journal").mkdir()
    env = micropython_env([tmp_path, FIRMWARE_DIR])
    proc = subprocess.Popen(
        micropython_command(
            tmp_path / "run.py", str(HARDWARE_DIR / "layouts" / (layout + ".json")), usb, *extra, heap="1M"
        ),
        cwd=tmp_path,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(codec.encode(7, "ping"))
    proc.stdin.flush()
    out = b""
    deadline = time.monotonic() + 20
    fd = proc.stdout.fileno()
    while b" ok 7 " not in out and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            out += chunk
    rest, err = proc.communicate(timeout=30)  # closes stdin: EOF on the "USB port"
    out += rest
    text = err.decode(errors="replace")
    assert proc.returncode == 0, out.decode(errors="replace") + text
    return out, text


@pytest.mark.parametrize("layout", ["board25", "board25-matrix"])
def test_main_pico_runs_the_loop_and_answers_on_stdio(layout: str, tmp_path: Path) -> None:
    out, text = _run_main_pico(layout, "configured", tmp_path)
    assert "EN 1 UNPOWERED 0" in text, "configured: the LED rail on, and no LED data while it was off: " + text
    assert b" hello " in out, "the session said hello on stdout (the USB serial port)"
    assert b" ok 7 " in out, "the ping read from stdin was answered: %r" % out[-300:]
    assert "SCANS %d" % SCANS in text, text
    writes = next(line for line in text.splitlines() if line.startswith("WRITES")).split()
    assert int(writes[1]) >= 2 and int(writes[3]) >= 1, "LEDs cleared, then the setup picture shown: " + text
    level = int(writes[5])
    assert 0 < level <= 128, "board25's max_level 128 caps every byte on the wire (%d)" % level
    # The setup picture lights all 24 start points white: 24 x 18 mA at 128 plus 25 idle
    # LEDs is over the layout's 400 mA, so the driver's limit scaled it down to the budget.
    level_sum = int(next(line for line in text.splitlines() if line.startswith("LEVELSUM")).split()[1])
    assert level_sum * 12.0 / 255 + 25 * 1.0 <= 400, level_sum
    assert level < 128, "the frame was scaled down (%d)" % level
    assert b" id=e6614104032b5c2a " in out, "hello names the board by machine.unique_id(): %r" % out[:300]
    if layout == "board25":
        assert "('polarity', 1)" in text and "('phase', 0)" in text, text


def test_main_pico_keeps_the_led_rail_off_while_a_host_does_not_configure_it(tmp_path: Path) -> None:
    """A bus-powered hub that refuses the 500 mA configuration: the host has addressed the
    board but never configures it. The rail stays off and no LED data goes out (the
    scans run about 0.6 s, under power.no_host_ms; tests/shared/test_pico_drivers.py
    covers the timings)."""
    out, text = _run_main_pico("board25", "host", tmp_path)
    assert b" ok 7 " in out, "the link works with the LEDs off"
    assert "EN 0 UNPOWERED 0" in text and "WRITES 0 " in text, text


def test_main_pico_turns_the_led_rail_off_when_the_supply_switch_faults(tmp_path: Path) -> None:
    """The TPS2553's ~FAULT (GP20) reads low from scan 20 on (of 60, 10 ms apart): 50 ms
    later the firmware turns EN off for good, sends nothing more to the LEDs and tells the
    host (``event fault led-supply``)."""
    out, text = _run_main_pico("board25", "configured", tmp_path, "20")
    assert b" ok 7 " in out, "the link works with the LEDs off"
    assert "EN 0 UNPOWERED 0" in text, "the rail is off at the end, and no LED data went out while it was: " + text
    assert b"fault led-supply" in out, "the host was told: %r" % out[-400:]
    writes = int(next(line for line in text.splitlines() if line.startswith("WRITES")).split()[1])
    assert writes >= 1, "the LEDs were lit before the fault: " + text
