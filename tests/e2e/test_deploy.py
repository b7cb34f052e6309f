"""tools/deploy.py against the MicroPython unix port on a pty, standing in for a Pico.

The unix port's REPL runs with its stdin/stdout on the pty's master; mpremote opens the
slave path like a USB serial port and connects with ``resume`` (its usual soft reset is a
Ctrl-D at the raw REPL, which ends the unix port's process: MICROPYTHON-NOTES.md). The
"board's" filesystem is the process's working directory.

Not testable on the unix port, and why: the final reset (the unix port exits instead of
rebooting into main.py: those tests pass --no-reset), and main.py's Pico branch
(``sys.platform == "rp2"``: ``machine``, ``neopixel`` and USB CDC do not exist on the PC;
the drivers it builds are tested against fakes in tests/shared/test_pico_drivers.py).
What IS checked there: the build, the mpremote command chain, the files on the board,
that a stale .py is removed, that the journal survives (and --wipe-journal removes it),
and that the deployed .mpy firmware imports and loads its layout under MicroPython.

The reset and the wait for the firmware's hello are tested against ``tests/rp2_repl.py``,
a model of the rp2 port's REPL on a pty (friendly and raw modes; main.py runs only at
power-on, after ``machine.reset()`` or after Ctrl-D at the friendly prompt, never after
a soft reset at the raw prompt), driven by the real mpremote; and the exact command list.
The model also drops off USB at its first soft reset(s) and comes back on a new pty, as a
Pico does once boot.py has asked for more current: deploy retries once, finding the board
again by its USB serial number, and a second drop-off is a clear error.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import subprocess
import sys
import tty
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from waiting import wait_until

from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "tools" / "deploy.py"

try:
    MICROPYTHON = str(micropython_executable())
except MicroPythonMissing as exc:  # pragma: no cover
    pytest.skip("no MicroPython unix port: %s" % exc, allow_module_level=True)


@pytest.fixture
def fake_pico(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """(serial port path, the board's filesystem) of a unix-port REPL on a pty."""
    fs = tmp_path / "pico"
    fs.mkdir()
    master, slave = os.openpty()
    tty.setraw(slave)
    port = os.ttyname(slave)
    env = dict(os.environ)
    env.pop("MICROPYPATH", None)
    proc = subprocess.Popen(
        [MICROPYTHON], stdin=master, stdout=master, stderr=master, cwd=fs, env=env, start_new_session=True
    )
    os.close(master)
    try:
        yield port, fs
    finally:
        proc.kill()
        proc.wait(timeout=10)
        os.close(slave)


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One build shared by the tests (deploy.py rebuilds only what changed)."""
    return tmp_path_factory.mktemp("deploy-build")


# The stand-in board is MicroPython's unix port on this PC: the firmware's native and
# viper code compiled for its architecture, not the Pico's (which it cannot load).
UNIX_MARCH = {"x86_64": "x64", "amd64": "x64", "i686": "x86", "armv7l": "armv7m"}.get(platform.machine(), "")


def deploy(*args: str) -> subprocess.CompletedProcess[str]:
    if not UNIX_MARCH:
        pytest.skip("mpy-cross has no native architecture for %s" % platform.machine())
    command = [sys.executable, str(DEPLOY), *args, "--march", UNIX_MARCH]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=REPO)


@pytest.mark.slow  # about 5 s on an idle machine, 25 s when the suite loads both cores
def test_deploy_to_the_unix_port_on_a_pty(fake_pico: tuple[str, Path], build_dir: Path) -> None:
    port, fs = fake_pico
    # Left over from an older deploy: a source file that would shadow the new .mpy, and a journal.
    (fs / "lib" / "zuni").mkdir(parents=True)
    (fs / "lib" / "zuni" / "core.py").write_text("raise ImportError('stale')\n")
    (fs / "zj00001.txt").write_text("Z1 00001-abcd mosona*0000\n")
    build = build_dir
    result = deploy("--layout", "board25", "--port", port, "--resume", "--no-reset", "--build-dir", str(build))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "deployed to " + port in result.stdout
    # The files on the "board".
    # main.py compiled (lib/zuni_main.mpy) and a stub that runs it: not compiled at every boot.
    assert (fs / "main.py").read_text() == deploy_tool.MAIN_STUB
    assert (fs / "lib" / "zuni_main.mpy").read_bytes().startswith(b"M")
    assert (fs / "boot.py").read_bytes() == (REPO / "firmware" / "boot.py").read_bytes()
    layout = json.loads((fs / "layout.json").read_text())
    assert layout["name"] == "board25"
    for rel in ("zuni/core.mpy", "zuni/line.mpy", "zuni_board/app.mpy", "zuni_board/scan.mpy", "zuni_hw/pico.mpy"):
        assert (fs / "lib" / rel).read_bytes() == (build / "lib" / rel).read_bytes(), rel
    assert not (fs / "lib" / "zuni" / "core.py").exists(), "the stale source was removed"
    assert not (fs / "lib" / "zuni_hw" / "virtual.mpy").exists(), "the unix-only driver is not deployed"
    assert (fs / "zj00001.txt").exists(), "the journal stays"
    # The deployed firmware imports from .mpy alone and reads its layout.
    check = subprocess.run(
        [
            MICROPYTHON,
            "-c",
            "import sys; sys.path[:] = ['lib']\n"
            "import zuni_board.app, zuni_link.session, zuni_hw.pico, zuni_board.scan\n"
            "from zuni_board.layout import Layout\n"
            "l = Layout.load('layout.json'); print('ok', l.name, zuni_board.app.__file__)",
        ],
        cwd=fs,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert check.stdout.startswith("ok board25 lib/zuni_board/app.mpy"), check.stdout + check.stderr
    # The layout packed on the PC (lib/zuni_layout.mpy) is the one deployed, and what the
    # board reads at boot: the same Board as the JSON's, without parsing it.
    check = subprocess.run(
        [
            MICROPYTHON,
            "-c",
            "import sys; sys.path[:] = ['lib']\n"
            "import zuni, zuni_board, zuni_board.packed\n"
            "packed = zuni_board.packed.packed_layout('layout.json', 'zuni_layout')\n"
            "a = zuni_board.load_board('layout.json', 'zuni_layout'); b = zuni_board.load_board('layout.json')\n"
            "g = zuni.new_game(a.rulesets[0]).geometry\n"
            "print('packed', packed is not None, packed.__file__, a.maps(g) == b.maps(g), a.power == b.power)",
        ],
        cwd=fs,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert check.stdout.startswith("packed True lib/zuni_layout.mpy True True"), check.stdout + check.stderr


def test_wipe_journal(fake_pico: tuple[str, Path], build_dir: Path) -> None:
    port, fs = fake_pico
    (fs / "zj00003.txt").write_text("Z1 00003-abcd mosona*0000\n")
    (fs / "notes.txt").write_text("mine\n")
    result = deploy(
        "--layout", "board49", "--port", port, "--resume", "--no-reset", "--wipe-journal",
        "--build-dir", str(build_dir),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert not (fs / "zj00003.txt").exists()
    assert (fs / "notes.txt").exists(), "only journal files are removed"
    assert json.loads((fs / "layout.json").read_text())["name"] == "board49"


def test_bad_layout_is_refused_before_anything_is_copied(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": 1, "name": "x", "rulesets": ["mosona"]}))
    result = deploy("--layout", str(bad), "--port", "/dev/null", "--build-dir", str(tmp_path / "b"))
    assert result.returncode == 1
    assert "points: missing" in result.stderr or "missing" in result.stderr, result.stderr
    assert not (tmp_path / "b").exists(), "nothing built"


def test_dry_run_prints_the_command(build_dir: Path) -> None:
    result = deploy("--layout", "board168", "--port", "/dev/ttyACM7", "--dry-run", "--build-dir", str(build_dir))
    assert result.returncode == 0, result.stderr
    assert "connect /dev/ttyACM7 exec" in result.stdout
    assert "fs cp -r %s :lib" % (build_dir / "lib") in result.stdout
    assert result.stdout.rstrip().endswith("+ reset"), result.stdout
    assert "soft-reset" not in result.stdout


def test_incremental_build_drops_stale_files(build_dir: Path) -> None:
    result = deploy("--layout", "board25", "--port", "X", "--dry-run", "--build-dir", str(build_dir))
    assert result.returncode == 0, result.stderr
    stale = build_dir / "lib" / "zuni_hw" / "gone.mpy"
    stale.write_bytes(b"M")
    core = build_dir / "lib" / "zuni" / "core.mpy"
    before = core.stat().st_mtime_ns
    result = deploy("--layout", "board25", "--port", "X", "--dry-run", "--build-dir", str(build_dir))
    assert result.returncode == 0, result.stderr
    assert not stale.exists(), "a .mpy without a source is removed"
    assert core.stat().st_mtime_ns == before, "an up-to-date .mpy is not compiled again"


# -- the reset at the end: the board must run the new firmware (issue 18) -------------------


def _load_deploy() -> ModuleType:
    spec = importlib.util.spec_from_file_location("zuni_deploy_tool", DEPLOY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


deploy_tool = _load_deploy()


def test_the_exact_mpremote_command_list(tmp_path: Path) -> None:
    b = tmp_path / "b"
    mpremote = deploy_tool.tool("mpremote")
    copy = [
        "+", "fs", "cp", "-r", str(b / "lib"), ":lib",
        "+", "fs", "cp", str(b / "main.py"), ":main.py",
        "+", "fs", "cp", str(b / "boot.py"), ":boot.py",
        "+", "fs", "cp", str(b / "layout.json"), ":layout.json",
    ]  # fmt: skip
    cmd = deploy_tool.mpremote_command("/dev/ttyACM0", b, resume=False, reset=True, wipe_journal=False)
    assert cmd == [mpremote, "connect", "/dev/ttyACM0", "exec", deploy_tool.CLEANUP, *copy, "+", "reset"]
    cmd = deploy_tool.mpremote_command("/dev/ttyACM0", b, resume=False, reset=True, wipe_journal=True)
    assert cmd[4] == deploy_tool.CLEANUP + deploy_tool.WIPE_JOURNAL and cmd[-2:] == ["+", "reset"]
    # --no-reset: the board stays at the REPL; --resume (the unix port): no reset on connect.
    cmd = deploy_tool.mpremote_command("/dev/pts/3", b, resume=True, reset=False, wipe_journal=False)
    assert cmd == [mpremote, "connect", "/dev/pts/3", "resume", "exec", deploy_tool.CLEANUP, *copy]
    # mpremote's `reset` is a hard reset (machine.reset()), not its raw-REPL soft reset.
    from mpremote.main import _BUILTIN_COMMAND_EXPANSIONS

    assert "machine.reset()" in " ".join(_BUILTIN_COMMAND_EXPANSIONS["reset"]["command"])


@pytest.fixture
def rp2(tmp_path: Path) -> Iterator[tuple[str, Path, Path]]:
    """(serial port path, the board's filesystem, the model's log) of tests/rp2_repl.py on a
    pty. The board already runs an older firmware (main.py and another layout), as a board
    being updated does: mpremote has to interrupt it."""
    fs = tmp_path / "pico"
    fs.mkdir()
    (fs / "main.py").write_text("# an older firmware\n")
    (fs / "layout.json").write_text(json.dumps({"name": "board49"}))
    (fs / "zj00001.txt").write_text("Z1 00001-abcd mosona*0000\n")
    log = tmp_path / "rp2.log"
    master, slave = os.openpty()
    tty.setraw(slave)
    port = os.ttyname(slave)
    proc = subprocess.Popen(
        [sys.executable, str(REPO / "tests" / "rp2_repl.py"), str(fs), "--log", str(log)],
        stdin=master,
        stdout=master,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    os.close(master)
    try:
        _wait_for(lambda: "main.py running" in _read(log))
        yield port, fs, log
    finally:
        proc.kill()
        proc.wait(timeout=10)
        os.close(slave)


def _read(path: Path) -> str:
    return path.read_text() if path.exists() else ""


def _wait_for(predicate: Any, timeout: float = 15.0) -> None:
    wait_until(predicate, "the condition", timeout, step=0.05)


def _hello(port: str, timeout: float) -> dict[str, str] | None:
    """What a host finds on the port: the firmware's hello, or None (a board at its REPL)."""
    from zuniboard.link.client import BoardLink, LinkError

    try:
        with BoardLink.open(port, timeout=timeout) as link:
            return dict(link.hello)
    except LinkError:
        return None


@pytest.mark.slow  # about 5 s idle (mpremote copies 22 files through the model's raw REPL)
def test_deploy_resets_into_the_new_firmware(rp2: tuple[str, Path, Path], build_dir: Path) -> None:
    port, fs, log = rp2
    result = deploy("--layout", "board25", "--port", port, "--build-dir", str(build_dir))
    assert result.returncode == 0, result.stdout + result.stderr
    # A host that comes along afterwards finds the board running the new firmware (with
    # the final `soft-reset` of before, the board sat at `>>>` and this found nothing).
    hello = _hello(port, 5.0)
    assert hello is not None, "the board is not running the firmware: %s" % _read(log).splitlines()[-3:]
    assert hello["layout"] == "board25"
    version = deploy_tool.firmware_version()
    assert hello["fw"] == version
    assert "board running firmware %s, layout board25" % version in result.stdout, result.stdout
    assert json.loads((fs / "layout.json").read_text())["name"] == "board25"
    assert (fs / "zj00001.txt").exists(), "the journal stays"
    events = _read(log).splitlines()
    # mpremote interrupted the old firmware, soft-reset at the raw prompt (main.py did not
    # run), copied, then the hard reset booted main.py with the new files.
    assert events[0] == "boot power-on" and "main.py interrupted" in events
    assert "soft reboot raw: main.py not run" in events
    reset = events.index("machine.reset()")
    assert events[reset + 1 :] == ["boot hard reset", "main.py running: fw %s layout board25" % version]


def test_the_model_keeps_an_rp2_at_the_repl_after_a_raw_soft_reset(rp2: tuple[str, Path, Path]) -> None:
    """The bug of issue 18, on the model: yesterday's final `soft-reset` leaves the board at
    `>>>` (main.py not run), so nothing answers hello; Ctrl-D at the friendly prompt, as
    the issue found, starts it."""
    port, _fs, log = rp2
    mpremote = deploy_tool.tool("mpremote")
    result = subprocess.run(
        [mpremote, "connect", port, "exec", "x = 1", "+", "soft-reset"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert _read(log).splitlines()[-2:] == ["soft reboot raw: main.py not run", "friendly REPL"]
    assert _hello(port, 2.0) is None
    with pytest.raises(deploy_tool.DeployError, match="did not answer hello on %s within 1 s.*at its REPL" % port):
        deploy_tool.wait_for_hello(port, "", timeout=1.0)
    fd = os.open(port, os.O_RDWR | os.O_NOCTTY)
    try:
        os.write(fd, b"\x04")  # Ctrl-D at the friendly prompt
    finally:
        os.close(fd)
    assert _hello(port, 5.0) is not None
    assert _read(log).splitlines()[-2:] == ["soft reboot friendly", "main.py running: fw ? layout board49"]


def test_the_command_with_and_without_the_reset_on_the_model(rp2: tuple[str, Path, Path], tmp_path: Path) -> None:
    """The command list deploy.py builds, run by mpremote on the model (a small build, so
    it is quick): without the reset (--no-reset) the board stays at the REPL; with it the
    board runs the new main.py."""
    port, fs, log = rp2
    build = tmp_path / "small"
    (build / "lib" / "zuni").mkdir(parents=True)
    (build / "lib" / "zuni" / "a.mpy").write_bytes(b"M\x06" + bytes(600))
    (build / "main.py").write_text("# the new firmware\n")
    (build / "boot.py").write_text("# asks USB for the layout's current (not modelled)\n")
    (build / "layout.json").write_text(json.dumps({"name": "board25"}))
    for reset in (False, True):
        cmd = deploy_tool.mpremote_command(port, build, resume=False, reset=reset, wipe_journal=False)
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr
        assert (fs / "lib" / "zuni" / "a.mpy").read_bytes() == (build / "lib" / "zuni" / "a.mpy").read_bytes()
        events = _read(log).splitlines()
        if not reset:
            assert "machine.reset()" not in events and events[-1] == "friendly REPL", events
            assert _hello(port, 1.5) is None, "at the REPL: nothing answers hello"
        else:
            hello = deploy_tool.wait_for_hello(port, "", timeout=5.0)  # (mpremote does not wait for the reset)
            assert hello["layout"] == "board25"
            events = _read(log).splitlines()
            assert events[-3:] == ["machine.reset()", "boot hard reset", "main.py running: fw ? layout board25"]


class PortInfo:
    """What serial.tools.list_ports.comports() lists for a port (a test's own USB bus)."""

    def __init__(self, device: str, vid: int | None = None, pid: int | None = None, serial_number: str = "") -> None:
        self.device = device
        self.vid = vid
        self.pid = pid
        self.serial_number = serial_number


def _pico(device: str, serial_number: str) -> PortInfo:
    return PortInfo(device, 0x2E8A, 0x0005, serial_number)


def test_the_board_is_found_by_its_usb_serial_number() -> None:
    ftdi = PortInfo("/dev/ttyUSB0", 0x0403, 0x6001, "A1")
    assert deploy_tool.resolve_port("auto", lambda: [ftdi, _pico("/dev/ttyACM2", "E6614C")]) == (
        "/dev/ttyACM2",
        "E6614C",
    )
    assert deploy_tool.resolve_port("/dev/ttyACM2", lambda: [_pico("/dev/ttyACM2", "E66")]) == ("/dev/ttyACM2", "E66")
    assert deploy_tool.resolve_port("/dev/pts/4", lambda: [ftdi]) == ("/dev/pts/4", "")
    bus = [ftdi, _pico("/dev/ttyACM1", "E66"), _pico("/dev/ttyACM3", "F77")]
    assert deploy_tool.resolve_port("id:F77", lambda: bus) == ("/dev/ttyACM3", "F77")
    assert deploy_tool.resolve_port("a1", lambda: bus) == ("/dev/ttyACM1", "E66")
    assert deploy_tool.resolve_port("port:/dev/ttyACM1", lambda: bus) == ("/dev/ttyACM1", "E66")
    assert deploy_tool.resolve_port("u0", lambda: bus) == ("/dev/ttyUSB0", "")
    with pytest.raises(deploy_tool.DeployError, match="no Pico with USB serial number Z9"):
        deploy_tool.resolve_port("id:Z9", lambda: bus)
    with pytest.raises(deploy_tool.DeployError, match="no Raspberry Pi Pico running MicroPython found"):
        deploy_tool.resolve_port("auto", lambda: [ftdi])
    with pytest.raises(deploy_tool.DeployError, match="2 Picos are plugged in"):
        deploy_tool.resolve_port("auto", lambda: [_pico("/dev/ttyACM0", "A"), _pico("/dev/ttyACM1", "B")])
    # After the reset: gone, then back under another path (a program still held ttyACM0).
    assert deploy_tool.find_again("/dev/ttyACM0", "E66", lambda: [ftdi]) is None
    found = deploy_tool.find_again(
        "/dev/ttyACM0", "E66", lambda: [_pico("/dev/ttyACM0", "X"), _pico("/dev/ttyACM1", "E66")]
    )
    assert found == "/dev/ttyACM1"
    assert deploy_tool.find_again("/dev/pts/4", "", lambda: []) == "/dev/pts/4"


def test_the_hello_is_awaited_where_usb_puts_the_board_again(rp2: tuple[str, Path, Path]) -> None:
    """The Pico's USB goes away at the reset and comes back under another device path:
    the wait follows its serial number there (the model's pty standing in for it)."""
    port, _fs, _log = rp2
    calls = {"n": 0}

    def bus() -> list[PortInfo]:
        calls["n"] += 1
        if calls["n"] <= 2:
            return [_pico("/dev/ttyACM0", "E6614C")]  # not reset yet
        if calls["n"] <= 6:
            return []  # re-enumerating
        return [_pico(port, "E6614C"), _pico("/dev/ttyACM0", "OTHER")]

    hello = deploy_tool.wait_for_hello("/dev/ttyACM0", "E6614C", timeout=10.0, comports=bus)
    assert hello["layout"] == "board49" and calls["n"] >= 7
    with pytest.raises(deploy_tool.DeployError, match=r"USB serial E6614C\) did not come back within 1 s"):
        deploy_tool.wait_for_hello("/dev/ttyACM0", "E6614C", timeout=1.0, comports=lambda: [])
    with pytest.raises(
        deploy_tool.DeployError,
        match=r"did not answer hello on /nonexistent/tty within 1 s of its reset: open /nonexistent/tty: .*No such",
    ):
        deploy_tool.wait_for_hello("/nonexistent/tty", "", timeout=1.0)
    assert deploy_tool.running_report(
        {"fw": deploy_tool.firmware_version(), "layout": "board25", "id": "e6"}, "board25"
    )
    with pytest.raises(deploy_tool.DeployError, match=r"runs firmware 0\.0\.1, layout board25, not the deployed"):
        deploy_tool.running_report({"fw": "0.0.1", "layout": "board25"}, "board25")


# -- the drop-off at mpremote's first soft reset, and deploy's one retry --------------------


@pytest.fixture
def rp2_usb(tmp_path: Path) -> Iterator[Any]:
    """A factory: the rp2 model on a pty that drops off USB at its first ``drops`` soft
    resets at the raw prompt and comes back on a new pty (tests/rp2_repl.py --drops), with
    the USB bus it is listed on. Returns (port, fs, log, comports)."""
    started: list[tuple[subprocess.Popen[bytes], int]] = []

    def start(drops: int) -> tuple[str, Path, Path, Any]:
        fs = tmp_path / "pico"
        fs.mkdir()
        (fs / "main.py").write_text("# an older firmware\n")
        (fs / "layout.json").write_text(json.dumps({"name": "board49"}))
        log = tmp_path / "rp2.log"
        bus = tmp_path / "usb-bus"
        master, slave = os.openpty()
        tty.setraw(slave)
        port = os.ttyname(slave)
        bus.write_text("%s SERIAL1\n" % port)
        model = [sys.executable, str(REPO / "tests" / "rp2_repl.py"), str(fs), "--log", str(log)]
        proc = subprocess.Popen(
            [*model, "--bus", str(bus), "--drops", str(drops)],
            stdin=master,
            stdout=master,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        os.close(master)
        started.append((proc, slave))
        _wait_for(lambda: "main.py running" in _read(log))

        def comports() -> list[PortInfo]:
            # The bus as serial.tools.list_ports sees it: the Pico under its serial number.
            listed = []
            for line in _read(bus).splitlines():
                path, serial_number = line.split()
                listed.append(_pico(path, serial_number.replace("SERIAL1", "E6614C311B7C8E2A")))
            return listed

        return port, fs, log, comports

    yield start
    for proc, slave in started:
        proc.kill()
        proc.wait(timeout=10)
        os.close(slave)


def _deploy_in_process(monkeypatch: pytest.MonkeyPatch, comports: Any, *args: str) -> int:
    monkeypatch.setattr(deploy_tool, "_comports", comports)
    monkeypatch.setattr(deploy_tool, "RETRY_WAIT_S", 1.0)  # the model is back within 0.5 s
    monkeypatch.setattr(deploy_tool, "GONE_S", 0.5)
    if not UNIX_MARCH:
        pytest.skip("mpy-cross has no native architecture for %s" % platform.machine())
    code: int = deploy_tool.main([*args, "--march", UNIX_MARCH])
    return code


@pytest.mark.slow  # about 8 s idle: one failed mpremote run, the retry's full copy, the reset
def test_deploy_retries_once_when_the_board_drops_off_usb(
    rp2_usb: Any, build_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    port, fs, log, comports = rp2_usb(drops=1)
    code = _deploy_in_process(
        monkeypatch, comports, "--layout", "board25", "--port", port, "--build-dir", str(build_dir)
    )
    out, err = capsys.readouterr()
    assert code == 0, out + err
    events = _read(log).splitlines()
    assert "dropped off USB (the runtime descriptor cleared)" in events, events
    back = next(e for e in events if e.startswith("back on USB: "))[len("back on USB: ") :]
    assert back != port, "the board came back under another device path"
    assert "the board may have dropped off USB once at its soft reset: trying again" in out, out
    assert "deployed to %s" % back in out, "the retry found the board again by its USB serial number: " + out
    version = deploy_tool.firmware_version()
    assert "board running firmware %s, layout board25" % version in out, out
    assert json.loads((fs / "layout.json").read_text())["name"] == "board25"
    # One drop-off, one retry: after it, one soft reset (no drop), the copy, the hard reset.
    assert events.count("dropped off USB (the runtime descriptor cleared)") == 1
    assert events[-3:] == ["machine.reset()", "boot hard reset", "main.py running: fw %s layout board25" % version]


def test_a_second_drop_off_is_a_clear_error(
    rp2_usb: Any, build_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    port, fs, log, comports = rp2_usb(drops=2)
    code = _deploy_in_process(
        monkeypatch, comports, "--layout", "board25", "--port", port, "--build-dir", str(build_dir)
    )
    out, err = capsys.readouterr()
    assert code == 1, out + err
    assert _read(log).splitlines().count("dropped off USB (the runtime descriptor cleared)") == 2
    assert "deploy: mpremote failed twice on /dev/pts/" in err, err
    assert "the board dropped off USB once more, or another program holds its port" in err, err
    assert "unplug the board and plug it in, then deploy again" in err, err
    assert json.loads((fs / "layout.json").read_text())["name"] == "board49", "nothing was copied"


def test_the_retry_says_so_when_the_board_does_not_come_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deploy_tool, "_comports", lambda: [])
    with pytest.raises(deploy_tool.DeployError, match=r"USB serial E66\) dropped off USB and is not back after 3 s"):
        deploy_tool.retry_port("/dev/ttyACM0", "E66")
    assert deploy_tool.retry_port("/dev/pts/9", "") == ("/dev/pts/9", ""), "no USB serial: the same port"


def test_the_native_code_is_built_for_the_pico_unless_asked_and_rebuilt_when_the_arch_changes(tmp_path: Path) -> None:
    """The .mpy header's third byte holds the native code's architecture (bits 2-5:
    MicroPython's MP_NATIVE_ARCH, 4 = armv6m, 2 = x64); the LED picture's viper loop
    (zuni_board/leds.mpy) has native code, the rules' core none."""
    layout = deploy_tool.check_layout("board25")
    leds = tmp_path / "lib" / "zuni_board" / "leds.mpy"
    deploy_tool.build(tmp_path, layout)
    assert leds.read_bytes()[2] >> 2 == 4, "the Pico's Cortex-M0+ by default"
    assert (tmp_path / "lib" / "zuni" / "core.mpy").read_bytes()[2] >> 2 == 0
    deploy_tool.build(tmp_path, layout, "x64")  # the same folder: every .mpy again, not kept as newer
    assert leds.read_bytes()[2] >> 2 == 2
