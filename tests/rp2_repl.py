"""A stand-in for a Raspberry Pi Pico's MicroPython REPL on a pty, for tests/e2e/test_deploy.py.

    python tests/rp2_repl.py FS_DIR [--log FILE] [--bus FILE --drops N]
        (stdin and stdout: the pty's master)

A Pico cannot be plugged in here, and the MicroPython unix port is not one: Ctrl-D at its
raw REPL ends the process (MICROPYTHON-NOTES.md). This program models what matters for a
deploy, as the rp2 port's ``main.c`` and ``shared/runtime/pyexec.c`` do it (v1.28):

- Power-on and ``machine.reset()`` (a hard reset: the input buffered so far is lost, as
  the USB connection is) boot in the FRIENDLY mode and run ``/main.py`` if it exists.
- Ctrl-D at the friendly prompt: ``MPY: soft reboot``, then ``main.py`` runs again.
- Ctrl-A enters the RAW REPL (``raw REPL; CTRL-B to exit`` and ``>``); Ctrl-B leaves it
  (the banner and ``>>>``). Code ending in Ctrl-D is answered ``OK``, its output, ``\\x04``,
  its error (a MicroPython-style traceback line), ``\\x04``, ``>``. Raw-paste mode
  (``\\x05A\\x01``, flow control by windows of PASTE_WINDOW bytes) as MicroPython has it.
- Ctrl-D at the RAW prompt (mpremote's ``soft-reset``, and the reset it does on connect):
  ``MPY: soft reboot`` and back to the raw REPL. ``main.py`` does NOT run: that is the rp2
  port's rule (``pyexec_mode_kind`` is raw), and the trap of issue 18.
- Ctrl-C stops a running ``main.py`` (``KeyboardInterrupt``) and leaves the friendly REPL.
- (``boot.py``, which main.c runs in both modes, is not modelled: the deploy writes
  firmware/boot.py, whose USB request tests/shared/test_pico_drivers.py tests.) What
  follows from its request is: with ``--drops N``, each of the first N soft resets at the
  raw prompt **drops the board off USB**, as a Pico does when MicroPython clears the
  runtime USB descriptor boot.py set (hardware/<board>/power.md): the pty's master is
  closed (the host's reads fail, as on a vanished /dev/ttyACM0), and after RE_ENUMERATE_S
  the board is back on a new pty, at its raw REPL. ``--bus FILE`` is the USB bus: one
  line ``PATH SERIAL`` while the board is on it, empty while it is off (a test's stand-in
  for serial.tools.list_ports; the test writes the first line, for the pty it made).

The code of the raw REPL runs under CPython with the board's filesystem as its root
(``os`` and ``open`` see only FS_DIR; ``os.ilistdir``, ``time.sleep_ms`` and a ``machine``
whose ``reset()`` is the hard reset exist). "Running main.py" answers the board link's
``hello`` (docs/protocol.md) with ``fw`` and ``layout`` taken from the deployed files: the
firmware version the MicroPython unix port reads from the deployed ``lib/zuni_board/app.mpy``
and the name in ``/layout.json``. The log file gets one line per boot and mode change.
"""

from __future__ import annotations

import argparse
import builtins
import errno
import io
import json
import os
import select
import subprocess
import sys
import time
import tty
import types
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "firmware" / "lib"))
sys.path.insert(0, str(REPO / "host"))

from zuni_link import codec  # noqa: E402

BANNER = b'MicroPython v1.28.0 on 2026-04-06; Raspberry Pi Pico with RP2040\r\nType "help()" for more information.\r\n'
RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n>"
PASTE_WINDOW = 512  # raw-paste mode's flow-control window (bytes)
BOOT_S = 0.3  # a hard reset: the chip restarts and USB enumerates again before main.py speaks
RE_ENUMERATE_S = 0.5  # off the bus after a drop-off, before the new device appears
SERIAL = "E6614C311B7C8E2A"  # the USB serial number (a Pico's is its flash chip's id)


class DropOff(Exception):
    """The board leaves USB (the soft reset cleared boot.py's runtime descriptor)."""


class HardReset(Exception):
    """``machine.reset()`` was called."""


class Board:
    def __init__(self, root: Path, log: Path | None, bus: Path | None = None, drops: int = 0) -> None:
        self.root = root.resolve()
        self.log_path = log
        self.bus = bus
        self.drops = drops
        self.fd_in = 0  # the pty's master: stdin and stdout at first, a new pty after a drop-off
        self.fd_out = 1
        self.slave = -1  # the new pty's slave, held open (its last close would hang the master up)
        self.mode = "friendly"  # friendly | raw | paste | main
        self.code = bytearray()
        self.window = 0
        self.line = bytearray()
        self.namespace: dict[str, Any] = {}
        self.asm = codec.LineAssembler()
        self.boot_id = 0
        self.fw = "?"
        self.layout = "?"

    # -- the pty ------------------------------------------------------------------
    def write(self, data: bytes) -> None:
        os.write(self.fd_out, data)

    def on_bus(self, path: str) -> None:
        if self.bus is not None:
            self.bus.write_text("%s %s\n" % (path, SERIAL) if path else "")

    def re_enumerate(self) -> None:
        """Off USB (the host's port vanishes), then back on a new pty after RE_ENUMERATE_S."""
        self.on_bus("")
        for fd in {self.fd_in, self.fd_out}:
            os.close(fd)
        if self.slave >= 0:
            os.close(self.slave)
        time.sleep(RE_ENUMERATE_S)
        master, slave = os.openpty()
        tty.setraw(slave)
        self.fd_in = self.fd_out = master
        self.slave = slave
        self.on_bus(os.ttyname(slave))
        self.log("back on USB: %s" % os.ttyname(slave))

    def log(self, text: str) -> None:
        if self.log_path is not None:
            with open(self.log_path, "a") as f:
                f.write(text + "\n")

    def drain_input(self) -> None:
        while select.select([self.fd_in], [], [], 0)[0]:
            if not os.read(self.fd_in, 4096):
                return

    # -- resets -------------------------------------------------------------------
    def boot(self, why: str) -> None:
        """Power-on or hard reset: the friendly mode; main.py runs if it is there."""
        self.log("boot " + why)
        self.mode = "friendly"
        self.namespace = {}
        self.run_main_or_prompt()

    def soft_reboot(self) -> None:
        self.write(b"MPY: soft reboot\r\n")
        self.namespace = {}
        if self.mode == "raw":
            self.log("soft reboot raw: main.py not run")
            if self.drops > 0:
                self.drops -= 1
                self.log("dropped off USB (the runtime descriptor cleared)")
                raise DropOff
            self.write(RAW_BANNER)
        else:
            self.log("soft reboot friendly")
            self.run_main_or_prompt()

    def run_main_or_prompt(self) -> None:
        if (self.root / "main.py").is_file():
            self.start_main()
        else:
            self.write(BANNER + b">>> ")

    def start_main(self) -> None:
        """main.py runs the firmware: it answers the link with what was deployed."""
        self.mode = "main"
        self.boot_id += 1
        self.asm = codec.LineAssembler()
        self.fw = deployed_firmware_version(self.root)
        try:
            self.layout = str(json.loads((self.root / "layout.json").read_text())["name"])
        except (OSError, ValueError, KeyError):
            self.layout = "?"
        self.log("main.py running: fw %s layout %s" % (self.fw, self.layout))
        self.send_hello(0)  # the boot hello (a host may miss it; it says hello itself)

    def send_hello(self, re: int) -> None:
        pairs = [
            ("re", str(re)),
            ("proto", str(codec.PROTO)),
            ("fw", self.fw),
            ("layout", self.layout),
            ("game", ""),
            ("ruleset", ""),
            ("moves", "0"),
            ("digest", codec.hex8(codec.digest_seed(""))),
            ("boot", "rp2-fake-%d" % self.boot_id),
        ]
        self.write(codec.encode(1, "hello", codec.kv_encode(pairs)))

    # -- input ----------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        for i in range(len(data)):
            c = data[i : i + 1]
            if self.mode == "main":
                self.main_byte(c)
            elif self.mode == "paste":
                self.paste_byte(c)
            elif self.mode == "raw":
                self.raw_byte(c)
            else:
                self.friendly_byte(c)

    def main_byte(self, c: bytes) -> None:
        if c == b"\x03":
            self.log("main.py interrupted")
            self.write(b'Traceback (most recent call last):\r\n  File "main.py", line 1, in <module>\r\n')
            self.write(b"KeyboardInterrupt: \r\n")
            self.mode = "friendly"
            self.write(BANNER + b">>> ")
            return
        self.asm.push(c, 0, 1)
        if self.asm.ready == codec.LINE:
            try:
                seq, verb, _body, _checked = codec.decode(self.asm.line())
            except codec.FrameError:
                return
            if verb == "hello":
                self.send_hello(seq)

    def friendly_byte(self, c: bytes) -> None:
        if c == b"\x01":
            self.mode = "raw"
            self.code = bytearray()
            self.log("raw REPL")
            self.write(b"\r\n" + RAW_BANNER)
        elif c == b"\x02":
            self.write(b"\r\n" + BANNER + b">>> ")
        elif c == b"\x03":
            self.line = bytearray()
            self.write(b"\r\nKeyboardInterrupt\r\n>>> ")
        elif c == b"\x04":
            if not self.line:
                self.soft_reboot()
        elif c in (b"\r", b"\n"):
            self.line = bytearray()
            self.write(b"\r\n>>> ")
        else:
            self.line += c
            self.write(c)

    def raw_byte(self, c: bytes) -> None:
        if c == b"\x02":
            self.mode = "friendly"
            self.log("friendly REPL")
            self.write(b"\r\n" + BANNER + b">>> ")
        elif c == b"\x01":
            self.code = bytearray()
            self.write(b"\r\n" + RAW_BANNER)
        elif c == b"\x03":
            self.code = bytearray()
        elif c == b"\x04":
            if not self.code:
                self.soft_reboot()
                return
            code, self.code = bytes(self.code), bytearray()
            self.execute(code)
        else:
            self.code += c
            if self.code == b"\x05A\x01":  # raw-paste mode: yes, with this window
                self.code = bytearray()
                self.mode = "paste"
                self.window = 0
                self.write(b"R\x01" + PASTE_WINDOW.to_bytes(2, "little") + b"\x01")

    def paste_byte(self, c: bytes) -> None:
        if c == b"\x04":
            code, self.code = bytes(self.code), bytearray()
            self.mode = "raw"
            self.write(b"\x04")  # end of data acknowledged; then as the raw REPL answers
            self.execute(code, ok=b"")
            return
        self.code += c
        self.window += 1
        if self.window == PASTE_WINDOW:
            self.window = 0
            self.write(b"\x01")  # room for another window

    def execute(self, code: bytes, ok: bytes = b"OK") -> None:
        self.write(ok)
        out = io.StringIO()
        err = ""
        saved = sys.stdout
        sys.stdout = out
        try:
            exec(compile(code.decode(), "<stdin>", "exec"), self.namespace_for_exec())
        except HardReset:
            sys.stdout = saved
            self.log("machine.reset()")
            time.sleep(BOOT_S)
            self.drain_input()  # what the host sent meanwhile went down with the USB connection
            self.boot("hard reset")
            return
        except OSError as exc:
            name = errno.errorcode.get(exc.errno or 0, str(exc.errno))
            err = "Traceback (most recent call last):\r\nOSError: [Errno %s] %s\r\n" % (exc.errno, name)
        except Exception as exc:
            err = "Traceback (most recent call last):\r\n%s: %s\r\n" % (type(exc).__name__, exc)
        finally:
            sys.stdout = saved
        self.write(out.getvalue().replace("\n", "\r\n").encode() + b"\x04" + err.encode() + b"\x04>")

    # -- the board's modules, rooted at FS_DIR ------------------------------------------
    def namespace_for_exec(self) -> dict[str, Any]:
        ns = self.namespace
        if "__builtins__" not in ns:
            board = self
            real_import = builtins.__import__

            def board_import(name: str, *args: Any, **kwargs: Any) -> Any:
                module = board.modules().get(name)
                return module if module is not None else real_import(name, *args, **kwargs)

            def board_open(path: str, *args: Any, **kwargs: Any) -> Any:
                return open(board.path(path), *args, **kwargs)

            ns["__builtins__"] = dict(vars(builtins), __import__=board_import, open=board_open)
        return ns

    def path(self, p: str) -> str:
        full = (self.root / p.lstrip("/")).resolve()
        if full != self.root and self.root not in full.parents:
            raise OSError(errno.ENOENT, p)
        return str(full)

    def modules(self) -> dict[str, types.ModuleType]:
        mods = getattr(self, "_mods", None)
        if mods is None:
            board = self
            fs = types.ModuleType("os")
            fs.stat = lambda p: os.stat(board.path(p))  # type: ignore[attr-defined]
            fs.listdir = lambda p=".": sorted(os.listdir(board.path(p)))  # type: ignore[attr-defined]
            fs.mkdir = lambda p: os.mkdir(board.path(p))  # type: ignore[attr-defined]
            fs.rmdir = lambda p: os.rmdir(board.path(p))  # type: ignore[attr-defined]
            fs.remove = lambda p: os.remove(board.path(p))  # type: ignore[attr-defined]
            fs.rename = lambda a, b: os.rename(board.path(a), board.path(b))  # type: ignore[attr-defined]

            def ilistdir(p: str = ".") -> list[tuple[str, int, int, int]]:
                out = []
                for name in sorted(os.listdir(board.path(p))):
                    st = os.stat(os.path.join(board.path(p), name))
                    out.append(
                        (name, 0x4000 if os.path.isdir(os.path.join(board.path(p), name)) else 0x8000, 0, st.st_size)
                    )
                return out

            fs.ilistdir = ilistdir  # type: ignore[attr-defined]
            clock = types.ModuleType("time")
            clock.sleep_ms = lambda ms: time.sleep(ms / 1000)  # type: ignore[attr-defined]
            clock.sleep = time.sleep  # type: ignore[attr-defined]
            clock.ticks_ms = lambda: int(time.monotonic() * 1000)  # type: ignore[attr-defined]
            machine = types.ModuleType("machine")

            def reset() -> None:
                raise HardReset

            machine.reset = reset  # type: ignore[attr-defined]
            mods = {"os": fs, "time": clock, "machine": machine}
            self._mods = mods
        return mods


def deployed_firmware_version(root: Path) -> str:
    """FIRMWARE_VERSION of the deployed .mpy, as MicroPython itself imports it."""
    from zuniboard.virtual.mpy import micropython_executable

    env = dict(os.environ)
    env.pop("MICROPYPATH", None)
    result = subprocess.run(
        [
            str(micropython_executable()),
            "-c",
            "import sys; sys.path[:] = ['lib']\nimport zuni_board.app as a; print(a.FIRMWARE_VERSION)",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )
    lines = result.stdout.split()
    return lines[0] if result.returncode == 0 and len(lines) == 1 else "?"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("fs")
    parser.add_argument("--log")
    parser.add_argument("--bus", help="the USB bus file (see the module's docstring)")
    parser.add_argument("--drops", type=int, default=0, help="soft resets at the raw prompt that drop off USB")
    args = parser.parse_args()
    bus = Path(args.bus) if args.bus else None
    board = Board(Path(args.fs), Path(args.log) if args.log else None, bus, args.drops)
    board.boot("power-on")
    while True:
        try:
            data = os.read(board.fd_in, 4096)
        except OSError:
            return
        if not data:
            return
        try:
            board.feed(data)
        except DropOff:
            board.re_enumerate()


if __name__ == "__main__":
    main()
