"""The virtual board's firmware under CPython, where the MicroPython unix port has no
wheel (Windows, Linux on ARM...): ``python -m zuniboard.fw_cpython firmware/main.py
ARGS`` runs the same ``main_virtual`` as ``micropython firmware/main.py ARGS``.

The firmware is written in the subset common to MicroPython and CPython; what CPython
lacks is given here, and nothing else changes: ``time.ticks_*`` (MicroPython's tick
arithmetic, over the same 2**30 period), ``sys.print_exception``, ``select.poll().ipoll``
(CPython's ``poll``), and the littlefs flash image, which becomes a directory beside
the image file (``IMAGE.d``) holding the same journal files. The memory figures of the
board are MicroPython's only; under CPython they are not measured.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

PERIOD = 1 << 30  # MicroPython's ticks period (TICKS_MAX + 1) on the unix port
_START = time.monotonic_ns()


def ticks_ms() -> int:
    return ((time.monotonic_ns() - _START) // 1_000_000) % PERIOD


def ticks_us() -> int:
    return ((time.monotonic_ns() - _START) // 1_000) % PERIOD


def ticks_add(ticks: int, delta: int) -> int:
    return (ticks + delta) % PERIOD


def ticks_diff(end: int, start: int) -> int:
    half = PERIOD // 2
    return ((end - start + half) % PERIOD) - half


def sleep_ms(ms: int) -> None:
    time.sleep(max(0, ms) / 1000.0)


def print_exception(exc: BaseException, file: Any = None) -> None:
    traceback.print_exception(type(exc), exc, exc.__traceback__, file=file or sys.stderr)


def _shim() -> None:
    for name, value in (
        ("ticks_ms", ticks_ms),
        ("ticks_us", ticks_us),
        ("ticks_add", ticks_add),
        ("ticks_diff", ticks_diff),
        ("sleep_ms", sleep_ms),
    ):
        if not hasattr(time, name):
            setattr(time, name, value)
    if not hasattr(sys, "print_exception"):
        sys.print_exception = print_exception  # type: ignore[attr-defined]


class DirectoryFlash:
    """The flash image as a directory: the journal's files are ordinary files there."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.erases = 0


def run(argv: list[str]) -> None:
    _shim()
    main_path = Path(argv[0]).resolve()
    lib = main_path.parent / "lib"
    for folder in (str(lib), str(main_path.parent)):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location("zuni_firmware_main", main_path)
    assert spec is not None and spec.loader is not None
    main = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(main)
    args = argv[1:]
    if "--flash" in args:
        image = args[args.index("--flash") + 1]
        folder = image + ".d"
        os.makedirs(folder, exist_ok=True)
        virtual: Any = importlib.import_module("zuni_hw.virtual")  # the firmware's: not type-checked here

        # The journal goes where the firmware mounts its flash, here a directory.
        setattr(main, "VIRTUAL_JOURNAL", folder)  # noqa: B010
        virtual.mount_flash = lambda image, mountpoint="/flash", block_count=64: DirectoryFlash(mountpoint)
    virtual_module: Any = importlib.import_module("zuni_hw.virtual")
    # The link is a pty or an inherited descriptor: CPython's buffered "rb+" wants a
    # seekable file, MicroPython's does not; unbuffered is what the firmware expects.
    virtual_module.open = _link_open
    main.main_virtual(args)


def _link_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
    if "b" in mode and "+" in mode:
        return open(file, mode, buffering=0)
    return open(file, mode, *args, **kwargs)


if __name__ == "__main__":
    run(sys.argv[1:])
