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
from zuniboard.mpy import MicroPythonMissing, micropython_command, micropython_env
from zuniboard.paths import FIRMWARE_DIR, HARDWARE_DIR

try:
    micropython_command("x")
except MicroPythonMissing as exc:  # pragma: no cover
    pytest.skip("no MicroPython unix port: %s" % exc, allow_module_level=True)

SCANS = 60  # the fake SPI / row pins stop the loop (KeyboardInterrupt) after this many scans

FAKE_MACHINE = (
    '''
"""Fake machine module: records pins and the SPI bus; every switch open (reads 1)."""
made = []
scans = [0]
LIMIT = %d


class Pin:
    OUT = 1
    IN = 0
    PULL_UP = 2

    def __init__(self, pin_id, mode=-1, pull=-1, value=None):
        self.id = pin_id
        self.v = 1 if value is None else value
        made.append(("Pin", pin_id, mode, pull, value))

    def init(self, *a, **k):
        pass

    def __call__(self, v=None):
        if v is None:
            return 1
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
writes = []


class NeoPixel:
    def __init__(self, pin, n):
        self.pin = pin
        self.buf = bytearray(3 * n)

    def write(self):
        writes.append(bytes(self.buf))
"""

RUNNER = """
import sys
import machine, neopixel
import main
layout = sys.argv[1]
if 'matrix' in layout:
    machine.ROW_PINS[:] = [2]  # board25-matrix.json's first row: one count per scan
try:
    main.main_pico(layout, 'journal')
except KeyboardInterrupt:
    pass
lit = [w for w in neopixel.writes if any(w)]
sys.stderr.write('SCANS %d\\n' % machine.scans[0])
sys.stderr.write('WRITES %d LIT %d MAX %d\\n' % (len(neopixel.writes), len(lit), max(max(w) for w in neopixel.writes)))
sys.stderr.write('LEVELSUM %d\\n' % max(sum(w) for w in neopixel.writes))
for m in machine.made:
    if m[0] == 'SPI':
        sys.stderr.write('SPI %r\\n' % (m,))
"""


@pytest.mark.parametrize("layout", ["board25", "board25-matrix"])
def test_main_pico_runs_the_loop_and_answers_on_stdio(layout: str, tmp_path: Path) -> None:
    (tmp_path / "machine.py").write_text(FAKE_MACHINE)
    (tmp_path / "neopixel.py").write_text(FAKE_NEOPIXEL)
    (tmp_path / "run.py").write_text(RUNNER)
    (tmp_path / "journal").mkdir()
    env = micropython_env([tmp_path, FIRMWARE_DIR])
    proc = subprocess.Popen(
        micropython_command(tmp_path / "run.py", str(HARDWARE_DIR / "layouts" / (layout + ".json")), heap="1M"),
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
