"""Locks between processes: what one `zuni` holds (a board, a virtual board's flash image,
a logged game, a ruleset's table build), no other may take.

An OS lock (``flock`` on POSIX, ``msvcrt.locking`` on Windows) on a small file, which the
OS releases when its holder dies, so a crashed `zuni` never blocks the next one. The
file holds the holder's process id, for the message that names it.

>>> with ProcessLock(path, "the virtual board's flash image x.img"):
...     ...   # raises LockBusy("... is in use by another zuni (process 1234)") if held
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
from pathlib import Path
from typing import IO


class LockBusy(Exception):
    """Another process holds the lock: ``what`` it guards and the holder's ``pid`` (0: not known)."""

    def __init__(self, what: str, pid: int) -> None:
        self.what = what
        self.pid = pid
        holder = "another zuni (process %d)" % pid if pid else "another zuni"
        super().__init__("%s is in use by %s" % (what, holder))


def lock_dir() -> Path:
    """Where the locks of things with no folder of their own live (serial ports, logged
    games): a folder of this user's in the system's temporary folder, which is always
    writable, even when the data folder is not."""
    uid = getattr(os, "getuid", lambda: 0)()
    return Path(tempfile.gettempdir()) / ("zuniboard-locks-%d" % uid)


def lock_path(kind: str, key: str) -> Path:
    """The lock file for ``key`` (a port's name, a database's path and a game's id)."""
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
    return lock_dir() / ("%s-%s.lock" % (kind, digest))


class ProcessLock:
    """An exclusive lock on ``path`` held until ``release`` (or the holder's end).
    ``wait=False`` raises ``LockBusy`` at once when another process holds it."""

    def __init__(self, path: Path, what: str, wait: bool = False) -> None:
        self.path = path
        self.what = what
        self.wait = wait
        self._file: IO[str] | None = None

    @property
    def held(self) -> bool:
        return self._file is not None

    def acquire(self) -> ProcessLock:
        if self._file is not None:
            return self
        self.path.parent.mkdir(parents=True, exist_ok=True)
        f = open(self.path, "a+")
        try:
            _lock(f, self.wait)
        except BlockingIOError:
            f.seek(0)
            text = f.read().strip()
            f.close()
            raise LockBusy(self.what, int(text) if text.isdigit() else 0)
        except BaseException:
            f.close()
            raise
        f.seek(0)
        f.truncate()
        f.write("%d\n" % os.getpid())
        f.flush()
        self._file = f
        return self

    def release(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                _unlock(self._file)
            self._file.close()
            self._file = None

    def __enter__(self) -> ProcessLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


if sys.platform == "win32":  # pragma: no cover - no Windows here
    import msvcrt

    def _lock(f: IO[str], wait: bool) -> None:
        # Byte 1, not 0: the holder's pid is written at 0 and read by a refused process.
        f.seek(1)
        try:
            msvcrt.locking(f.fileno(), msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)
        except OSError:
            if not wait:
                raise BlockingIOError()
            raise

    def _unlock(f: IO[str]) -> None:
        f.seek(1)
        msvcrt.locking(f.fileno(), msvcrt.LK_UNLCK, 1)

else:
    try:
        import fcntl
    except ImportError:  # a POSIX without it (tests/windows_like hides it, as Windows has none)
        fcntl = None  # type: ignore[assignment]

    def _lock(f: IO[str], wait: bool) -> None:
        if fcntl is None:
            return  # no lock to be had: each side's writes are still whole
        fcntl.flock(f.fileno(), fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(f: IO[str]) -> None:
        if fcntl is not None:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)
