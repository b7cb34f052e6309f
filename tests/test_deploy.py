"""tools/deploy.py against the MicroPython unix port on a pty, standing in for a Pico.

The unix port's REPL runs with its stdin/stdout on the pty's master; mpremote opens the
slave path like a USB serial port and connects with ``resume`` (its usual soft reset is a
Ctrl-D at the raw REPL, which ends the unix port's process: MICROPYTHON-NOTES.md). The
"board's" filesystem is the process's working directory.

Not testable here, and why: the final ``soft-reset`` (the unix port exits instead of
rebooting into main.py: the test passes --no-reset), and main.py's Pico branch
(``sys.platform == "rp2"``: ``machine``, ``neopixel`` and USB CDC do not exist on the PC;
the drivers it builds are tested against fakes in tests/shared/test_pico_drivers.py).
What IS checked: the build, the mpremote command chain, the files on the board, that a
stale .py is removed, that the journal survives (and --wipe-journal removes it), and that
the deployed .mpy firmware imports and loads its layout under MicroPython.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest

from zuniboard.mpy import MicroPythonMissing, micropython_executable

REPO = Path(__file__).resolve().parent.parent
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


def deploy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(DEPLOY), *args], capture_output=True, text=True, timeout=120, cwd=REPO)


@pytest.mark.slow  # about 5 s on an idle machine, 25 s when the suite loads both cores
def test_deploy_to_the_unix_port_on_a_pty(fake_pico: tuple[str, Path], build_dir: Path) -> None:
    port, fs = fake_pico
    # Left over from an older deploy: a source file that would shadow the new .mpy, and a journal.
    (fs / "lib" / "zuni").mkdir(parents=True)
    (fs / "lib" / "zuni" / "core.py").write_text("raise ImportError('stale')\n")
    (fs / "zj00001.txt").write_text("Z1 00001-abcd mosona*0000\n")
    build = build_dir
    t0 = time.monotonic()
    result = deploy("--layout", "board25", "--port", port, "--resume", "--no-reset", "--build-dir", str(build))
    seconds = time.monotonic() - t0
    assert result.returncode == 0, result.stdout + result.stderr
    assert "deployed to " + port in result.stdout
    # The files on the "board".
    assert (fs / "main.py").read_bytes() == (REPO / "firmware" / "main.py").read_bytes()
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
    assert seconds < 90, "deploy took %.1f s" % seconds


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
    assert result.stdout.rstrip().endswith("soft-reset")


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
