"""The endgame tables' files: one file per material balance, checked when read, written
atomically, and one builder at a time per ruleset (``BuildLock``).

A file (``<s>v<n>.ztb``) is a first line ``ZUNITB <version>``, a second line of JSON
(the header: ruleset, pieces, quiet limit, shape, positions, compression, payload bytes
and its SHA-256), then the payload: the table's first layer and the differences between
layers (``int16``, little-endian), compressed with LZMA (most layers differ in few
places; LZMA makes them 2-3 times smaller than zlib). ``read_table`` refuses, with
``TableFileError`` naming the file and why, a file of another format version, of other
rules, of a wrong shape, cut short or damaged; its caller builds that table again.

``FORMAT`` changes whenever the file layout or the values change (the builder, the
rules engine's moves): older files are then rebuilt, never misread.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import lzma
import os
import sys
from pathlib import Path
from typing import IO, Any

FORMAT = 2  # 1 was the .npz files (no header, no checksum)
MAGIC = b"ZUNITB"
SUFFIX = ".ztb"
LOCK_NAME = ".build.lock"
MAX_HEADER = 4096


class TableFileError(Exception):
    """A table file that cannot be used (another format, other rules, damaged)."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__("%s: %s" % (path, why))
        self.path = path
        self.why = why


def table_name(south: int, north: int) -> str:
    return "%dv%d%s" % (south, north, SUFFIX)


def write_table(path: Path, values: Any, header: dict[str, Any]) -> int:
    """Write ``values`` (numpy int16, layers x slots) to ``path`` atomically (a
    temporary file of this process, then a rename: a reader never sees half a file);
    returns the bytes written."""
    import numpy as np

    deltas = np.diff(values, axis=0, prepend=np.zeros((1, values.shape[1]), dtype=np.int16))
    payload = lzma.compress(deltas.astype("<i2").tobytes(), preset=6)
    head = dict(header)
    head.update(
        {
            "shape": [int(values.shape[0]), int(values.shape[1])],
            "compression": "lzma",
            "payload_bytes": len(payload),
            "sha256": hashlib.sha256(payload).hexdigest(),
        }
    )
    data = b"%s %d\n" % (MAGIC, FORMAT) + json.dumps(head, sort_keys=True).encode() + b"\n" + payload
    tmp = path.with_name("%s.%d.tmp" % (path.name, os.getpid()))
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    return len(data)


def read_header(path: Path, f: IO[bytes] | None = None) -> dict[str, Any]:
    """The header of a table file (checks the format line, not the payload)."""
    own = f is None
    stream = open(path, "rb") if f is None else f
    try:
        first = stream.readline(64)
        parts = first.split()
        if len(parts) != 2 or parts[0] != MAGIC:
            raise TableFileError(path, "not a table file of zuniboard")
        if parts[1] != b"%d" % FORMAT:
            raise TableFileError(
                path, "table format %s, this program writes %d" % (parts[1].decode("ascii", "replace"), FORMAT)
            )
        line = stream.readline(MAX_HEADER)
        if not line.endswith(b"\n"):
            raise TableFileError(path, "the header is cut short")
        try:
            header = json.loads(line)
        except ValueError:
            raise TableFileError(path, "the header is not JSON")
        if not isinstance(header, dict):
            raise TableFileError(path, "the header is not a JSON object")
        return header
    finally:
        if own:
            stream.close()


def _check_header(path: Path, header: dict[str, Any], expect: dict[str, Any]) -> None:
    for key, want in expect.items():
        if header.get(key) != want:
            raise TableFileError(path, "%s is %r, not %r" % (key, header.get(key), want))


def check_file(path: Path, expect: dict[str, Any]) -> None:
    """Cheap checks without reading the values: the format, the header (``expect``) and
    the length (a file cut short). ``read_table`` checks the checksum too."""
    with open(path, "rb") as f:
        header = read_header(path, f)
        _check_header(path, header, expect)
        start = f.tell()
        end = f.seek(0, os.SEEK_END)
    if end - start != header.get("payload_bytes"):
        raise TableFileError(path, "cut short: %d bytes of %s" % (end - start, header.get("payload_bytes")))


def read_table(path: Path, expect: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The values (numpy int16, layers x slots) and header of ``path``, checked against
    ``expect`` (header fields that must be equal: ruleset, south, north, quiet, shape)."""
    import numpy as np

    with open(path, "rb") as f:
        header = read_header(path, f)
        _check_header(path, header, expect)
        payload = f.read()
    if len(payload) != header.get("payload_bytes"):
        raise TableFileError(path, "cut short: %d bytes of %s" % (len(payload), header.get("payload_bytes")))
    if hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        raise TableFileError(path, "damaged: the checksum does not match")
    try:
        raw = lzma.decompress(payload)
    except lzma.LZMAError as exc:
        raise TableFileError(path, "damaged: %s" % exc)
    layers, slots = header["shape"]
    if len(raw) != 2 * layers * slots:
        raise TableFileError(path, "%d bytes of values, not %d" % (len(raw), 2 * layers * slots))
    deltas = np.frombuffer(raw, dtype="<i2").reshape(layers, slots)
    return np.cumsum(deltas, axis=0, dtype=np.int16), header


class BuildBusy(Exception):
    """Another process is building this ruleset's tables now."""


class BuildLock:
    """One builder per ruleset directory, across processes: an OS lock on the file
    ``.build.lock`` (released by the OS when the holder dies, so a crashed builder never
    blocks the next). ``wait=False`` raises ``BuildBusy`` instead of waiting."""

    def __init__(self, directory: Path, wait: bool = True) -> None:
        self.path = directory / LOCK_NAME
        self.wait = wait
        self._file: IO[str] | None = None

    def __enter__(self) -> BuildLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        f = open(self.path, "a+")
        try:
            _lock(f, self.wait)
        except BlockingIOError:
            f.close()
            raise BuildBusy("another process is building the tables in %s" % self.path.parent)
        except BaseException:
            f.close()
            raise
        f.seek(0)
        f.truncate()
        f.write("%d\n" % os.getpid())
        f.flush()
        self._file = f
        return self

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                _unlock(self._file)
            self._file.close()
            self._file = None


if sys.platform == "win32":  # pragma: no cover - no Windows here
    import msvcrt

    def _lock(f: IO[str], wait: bool) -> None:
        f.seek(0)
        try:
            msvcrt.locking(f.fileno(), msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)
        except OSError:
            if not wait:
                raise BlockingIOError()
            raise

    def _unlock(f: IO[str]) -> None:
        f.seek(0)
        msvcrt.locking(f.fileno(), msvcrt.LK_UNLCK, 1)

else:
    try:
        import fcntl
    except ImportError:  # a POSIX without it (tests/windows_like hides it, as Windows has none)
        fcntl = None  # type: ignore[assignment]

    def _lock(f: IO[str], wait: bool) -> None:
        if fcntl is None:
            return  # no lock: two builders may build the same table; each write is still atomic
        fcntl.flock(f.fileno(), fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(f: IO[str]) -> None:
        if fcntl is not None:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)
