"""`make setup`, `make play` and `make test` in plain Python, for a computer without make
or a POSIX shell (Windows)::

    python tools/make.py play [ZUNI PLAY ARGS...]   set up on first use, then play
    python tools/make.py test [PYTEST ARGS...]      set up on first use, then the tests
    python tools/make.py setup [--dev]              only set up (.venv in the repository)

The Makefile's setup runs this file too, so both ways install the same things the same
way: ``.venv`` made with the Python that runs this and the project with what it needs
to run (play); for the tests (``--dev``, ``test``) also its dev extras (pytest,
Playwright, mypy, ruff...) and the Pico stubs apart from the venv's site-packages.
Each installs again whenever pyproject.toml, the Makefile or this file is newer than
its last install.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VENV = REPO / ".venv"
STAMP = VENV / ".installed"  # what play needs
DEV_STAMP = VENV / ".installed-dev"  # and what the tests need
STUBS = VENV / "pico-stubs"
STUB_PACKAGES = ("micropython-rp2-rpi_pico-stubs>=1.29,<1.30", "micropython-stdlib-stubs>=1.29,<1.30")
INPUTS = (REPO / "pyproject.toml", REPO / "Makefile", Path(__file__).resolve())
# setuptools' editable install tells, as a warning, how it finds the packages (their
# folders are mapped: host/, firmware/lib/); a new user need not read it at every setup.
EDITABLE_ENV = {"PYTHONWARNINGS": "ignore::UserWarning:setuptools.command.editable_wheel"}


def venv_bin(name: str) -> Path:
    """A program of the venv: ``.venv/bin/NAME``, or ``.venv\\Scripts\\NAME.exe`` on Windows."""
    if os.name == "nt":  # pragma: no cover - Windows
        return VENV / "Scripts" / (name + ".exe")
    return VENV / "bin" / name


def run(*command: str | Path, env: dict[str, str] | None = None) -> None:
    """Runs ``command`` in the repository (``env``: variables added to the environment)."""
    print("+ " + " ".join(str(c) for c in command), flush=True)
    subprocess.run([str(c) for c in command], cwd=REPO, check=True, env=dict(os.environ, **(env or {})))


def up_to_date(stamp: Path | None = None) -> bool:
    stamp = stamp or STAMP
    if not stamp.exists() or not venv_bin("python").exists():
        return False
    installed = stamp.stat().st_mtime
    return all(path.stat().st_mtime <= installed for path in INPUTS if path.exists())


def setup(force: bool = False, dev: bool = False) -> None:
    """The venv with what play needs; with ``dev`` also what the tests need."""
    stamp = DEV_STAMP if dev else STAMP
    if up_to_date(stamp) and not force:
        return
    python = venv_bin("python")
    if not python.exists():
        run(sys.executable, "-m", "venv", VENV)
    run(python, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    run(python, "-m", "pip", "install", "--quiet", "-e", ".[dev]" if dev else ".", env=EDITABLE_ENV)
    if dev:
        # The Pico stubs shadow CPython's stdlib, so they live apart from the venv's
        # site-packages and only the firmware type check looks at them.
        shutil.rmtree(STUBS, ignore_errors=True)
        run(python, "-m", "pip", "install", "--quiet", "--no-deps", "--target", STUBS, *STUB_PACKAGES)
        STAMP.touch()  # the dev install holds all that play needs
    stamp.touch()


def play(args: list[str]) -> int:
    setup()
    return subprocess.run([str(venv_bin("zuni")), "play", *args], cwd=REPO).returncode


def test(args: list[str]) -> int:
    setup(dev=True)
    if os.name != "nt" and shutil.which("sh"):
        run("sh", "tools/ensure_browser.sh")  # Debian's chromium for the browser tests (as root)
        run("sh", "tools/ensure_speech.sh")  # Debian's espeak-ng for the spoken-move tests (as root)
        run("sh", "tools/ensure_mosquitto.sh")  # Debian's mosquitto for the remote-game tests (as root)
        run("sh", "tools/ensure_kicad.sh")  # Debian's KiCad 9 for the hardware tests (as root)
    # Three workers on two cores, as `make test`: the end-to-end tests mostly wait on timers.
    return subprocess.run([str(venv_bin("python")), "-m", "pytest", "-n", "3", *args], cwd=REPO).returncode


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("setup", "play", "test"):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    target, rest = argv[0], argv[1:]
    try:
        if target == "setup":
            setup(force="--force" in rest, dev="--dev" in rest)
            return 0
        return play(rest) if target == "play" else test(rest)
    except subprocess.CalledProcessError as exc:
        print("tools/make.py %s: %s failed (status %d)" % (target, exc.cmd[0], exc.returncode), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
