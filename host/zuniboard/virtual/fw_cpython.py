"""The virtual board's firmware under CPython, where the MicroPython unix port has no
wheel (Windows, Linux on ARM...): ``python -m zuniboard.virtual.fw_cpython firmware/main.py
ARGS`` runs the same ``main_virtual`` as ``micropython firmware/main.py ARGS``.

The firmware is written in the subset common to MicroPython and CPython; what CPython
lacks is given here, and nothing else changes: ``time.ticks_*`` (MicroPython's tick
arithmetic, over the same 2**30 period), ``sys.print_exception``, ``select.poll`` where
CPython has none (Windows: ``SelectPoll``, over ``select.select``, for the sockets that
the virtual board polls there), files as MicroPython has them (``firmware_open``: UTF-8
text with "\n" line ends on every system; ``os.rename`` replacing an existing file, as
littlefs does and Windows does not), and the littlefs flash image, which becomes a
directory beside the image file (``IMAGE.d``) holding the same journal files. The
memory figures of the board are MicroPython's only; under CPython they are not measured.
"""

from __future__ import annotations

import builtins
import importlib.util
import os
import select
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


POLLIN = 0x001  # the Linux values, as MicroPython and CPython's poll use them
POLLOUT = 0x004
POLLERR = 0x008
POLLHUP = 0x010


class SelectPoll:
    """``select.poll()`` over ``select.select``, for Windows (where CPython has no poll
    and select takes sockets only): ``register``, ``unregister``, ``poll(ms)`` (a list of
    (descriptor, events), as CPython's) and ``ipoll(ms)``. A descriptor select reports in
    error reads as POLLERR; a closed peer reads as POLLIN (recv then returns b"")."""

    def __init__(self) -> None:
        self._masks: dict[int, int] = {}

    @staticmethod
    def _fd(obj: Any) -> int:
        return obj if isinstance(obj, int) else int(obj.fileno())

    def register(self, obj: Any, mask: int = POLLIN | POLLOUT) -> None:
        self._masks[self._fd(obj)] = mask

    def modify(self, obj: Any, mask: int) -> None:
        self.register(obj, mask)

    def unregister(self, obj: Any) -> None:
        del self._masks[self._fd(obj)]

    def poll(self, timeout_ms: int | None = -1) -> list[tuple[int, int]]:
        timeout = None if timeout_ms is None or timeout_ms < 0 else timeout_ms / 1000.0
        reads = [fd for fd, mask in self._masks.items() if mask & POLLIN]
        writes = [fd for fd, mask in self._masks.items() if mask & POLLOUT]
        if not reads and not writes:
            # Windows' select refuses three empty lists: nothing to wait for but time.
            if timeout is None:
                raise ValueError("poll() without a timeout and with nothing registered waits forever")
            time.sleep(timeout)
            return []
        readable, writable, broken = select.select(reads, writes, list(self._masks), timeout)
        events: dict[int, int] = {}
        for fd in readable:
            events[fd] = events.get(fd, 0) | POLLIN
        for fd in writable:
            events[fd] = events.get(fd, 0) | POLLOUT
        for fd in broken:
            events[fd] = events.get(fd, 0) | POLLERR
        return list(events.items())

    def ipoll(self, timeout_ms: int = -1, flags: int = 0) -> list[tuple[int, int]]:
        return self.poll(timeout_ms)


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
    if not hasattr(select, "poll"):
        # The firmware's own modules (zuni_hw, main.py) import select and call poll().
        shims: dict[str, object] = {"poll": SelectPoll, "POLLIN": POLLIN, "POLLOUT": POLLOUT}
        shims.update(POLLERR=POLLERR, POLLHUP=POLLHUP)
        for key, shim in shims.items():
            setattr(select, key, shim)


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
    # This process runs the firmware only: its files behave as MicroPython's everywhere.
    builtins.open = firmware_open
    os.rename = os.replace  # littlefs's rename replaces; Windows' refuses
    main.main_virtual(args)


_builtin_open = builtins.open


def firmware_open(
    file: Any,
    mode: str = "r",
    buffering: int = -1,
    encoding: str | None = None,
    errors: str | None = None,
    newline: str | None = None,
    closefd: bool = True,
    opener: Any = None,
) -> Any:
    """``open`` as MicroPython's: text is UTF-8 with "\n" line ends whatever the locale
    and the system (on Windows CPython would write the journal in cp1252 with "\r\n");
    "rb+" is unbuffered (the link's pty or descriptor: CPython's buffered "rb+" wants a
    seekable file, and the firmware expects each write to go out at once)."""
    if "b" in mode:
        if "+" in mode and buffering == -1:
            buffering = 0
        return _builtin_open(file, mode, buffering, None, errors, None, closefd, opener)
    text_newline = "\n" if newline is None else newline
    return _builtin_open(file, mode, buffering, encoding or "utf-8", errors, text_newline, closefd, opener)


if __name__ == "__main__":
    run(sys.argv[1:])
