"""Folders as a user's can be: read-only, or on a disk that fills up. As root (CI, this
machine) they are real file systems: a tmpfs of a few hundred kB, mounted read-only or
filled to the last byte; otherwise (a user's machine) a folder without write permission,
and no full disk (a test that needs one skips, saying why)."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a small file system here (%s): a full disk cannot be made" % done.stderr.strip())


def _umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


@contextlib.contextmanager
def small_disk(path: Path, size_kb: int = 512) -> Iterator[Path]:
    """A tmpfs of ``size_kb`` at ``path`` (root only)."""
    if os.geteuid() != 0:
        pytest.skip("a full disk needs a small file system, which only root can mount")
    path.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", "size=%dk" % size_kb, "tmpfs", str(path))
    try:
        yield path
    finally:
        _umount(path)


def fill(path: Path) -> Path:
    """Fills the file system of ``path`` to the last byte; returns the filler to remove."""
    filler = path / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        for size in (65536, 4096, 1):  # big steps, then the last bytes
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)
    return filler


@contextlib.contextmanager
def read_only_folder(path: Path, prepare: Callable[[Path], None] | None = None) -> Iterator[Path]:
    """``path`` made read-only once ``prepare(path)`` has put what it needs there."""
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:  # permissions bind a user, not root
        if prepare is not None:
            prepare(path)
        for p in [path, *path.rglob("*")]:
            if p.is_dir():
                p.chmod(0o555)
        try:
            yield path
        finally:
            for p in [path, *path.rglob("*")]:
                if p.is_dir():
                    p.chmod(0o755)
        return
    _mount("-t", "tmpfs", "-o", "size=4096k", "tmpfs", str(path))
    try:
        if prepare is not None:
            prepare(path)
        _mount("-o", "remount,ro", str(path))
        yield path
    finally:
        _umount(path)
