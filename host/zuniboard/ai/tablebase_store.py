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

Big tables (``MAP_BYTES`` of values and more: the 5- and 6-piece ones) are not held in
memory for play: beside the file sits its values uncompressed (``<s>v<n>.ztb.<sha
prefix>.i16``, named by the payload's checksum, so that it belongs to that file alone),
which ``read_table`` maps read-only (``mmap``): the process reads only the pages
its probes touch, and those are the system's file cache, not the process's own memory.
``TableWriter`` writes a table a layer at a time (the builder never holds all of a big
table's layers), the same bytes as ``write_table``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import lzma
import os
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from zuniboard.oslock import LockBusy, ProcessLock

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

FORMAT = 2  # 1 was the .npz files (no header, no checksum)
MAGIC = b"ZUNITB"
SUFFIX = ".ztb"
LOCK_NAME = ".build.lock"
MAX_HEADER = 4096
# Tables with at least this many bytes of values are mapped from an uncompressed file
# instead of held in memory (the 5- and 6-piece tables of the 25-point boards).
MAP_BYTES = 32_000_000
RAW_SUFFIX = ".i16"
# LZMA's preset: 6 (its default: the smallest files) up to 5 pieces; 2 for bigger
# tables (the 6-piece ones), where preset 6 would take 12 times as long (30 s against
# 2.5 s for 113 MB of values: 13 minutes for Kolowis short's 6 pieces) for files a
# third smaller. The reader does not care which.
PRESET = 6
FAST_PRESET = 2
FAST_BYTES = 150_000_000


def preset_for(values_bytes: int) -> int:
    return FAST_PRESET if values_bytes >= FAST_BYTES else PRESET


class TableFileError(Exception):
    """A table file that cannot be used (another format, other rules, damaged)."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__("%s: %s" % (path, why))
        self.path = path
        self.why = why


def table_name(south: int, north: int) -> str:
    return "%dv%d%s" % (south, north, SUFFIX)


def write_table(path: Path, values: NDArray[np.int16], header: dict[str, Any]) -> int:
    """Write ``values`` (numpy int16, layers x slots) to ``path`` atomically (a
    temporary file of this process, then a rename: a reader never sees half a file);
    returns the bytes written."""
    import numpy as np

    deltas = np.diff(values, axis=0, prepend=np.zeros((1, values.shape[1]), dtype=np.int16))
    payload = lzma.compress(deltas.astype("<i2").tobytes(), preset=preset_for(2 * values.size))
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
    size = _write_atomic(path, [data])
    _remove_other_raw(path, None)
    return size


def raw_path(path: Path, sha256: str) -> Path:
    """The uncompressed values of the table file ``path`` whose payload has ``sha256``."""
    return path.with_name("%s.%s%s" % (path.name, sha256[:16], RAW_SUFFIX))


def _remove_other_raw(path: Path, keep: Path | None) -> None:
    for old in path.parent.glob(path.name + ".*" + RAW_SUFFIX):
        if old != keep:
            with contextlib.suppress(OSError):
                old.unlink()


def _write_atomic(path: Path, chunks: list[bytes]) -> int:
    tmp = path.with_name("%s.%d.tmp" % (path.name, os.getpid()))
    size = 0
    try:
        with open(tmp, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
                size += len(chunk)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    return size


class TableWriter:
    """Writes one table file a layer at a time (layer 0 first), the same bytes as
    ``write_table`` would of all the layers at once (LZMA's output does not depend on
    how its input is cut). With ``raw=True`` the uncompressed values go to the file
    ``read_table`` maps (``raw_path``) as they come; else the layers are kept and
    ``values`` holds them all at the end."""

    def __init__(self, path: Path, layers: int, slots: int, raw: bool) -> None:
        import numpy as np

        self.path = path
        self.slots = slots
        self.layers = 0
        self._expected = layers
        self._compressor = lzma.LZMACompressor(preset=preset_for(2 * layers * slots))
        self._payload: list[bytes] = []
        self._previous = np.zeros(slots, dtype=np.int16)
        self._kept: list[NDArray[np.int16]] = []
        self._raw_tmp = path.with_name("%s.%d.raw.tmp" % (path.name, os.getpid())) if raw else None
        self._raw: IO[bytes] | None = open(self._raw_tmp, "wb") if self._raw_tmp is not None else None
        self.values: NDArray[np.int16] | None = None

    def add(self, layer: NDArray[np.int16]) -> None:
        import numpy as np

        assert layer.shape == (self.slots,) and layer.dtype == np.int16 and self.layers < self._expected
        delta = (layer - self._previous).astype("<i2")
        self._payload.append(self._compressor.compress(delta.tobytes()))
        self._previous = layer
        self.layers += 1
        if self._raw is not None:
            self._raw.write(layer.astype("<i2").tobytes())
        else:
            self._kept.append(layer)

    def finish(self, header: dict[str, Any]) -> int:
        """Write the file (atomically, as ``write_table``); returns its bytes."""
        import numpy as np

        self._payload.append(self._compressor.flush())
        payload = b"".join(self._payload)
        self._payload = []
        head = dict(header)
        sha = hashlib.sha256(payload).hexdigest()
        head.update(
            {
                "shape": [self.layers, self.slots],
                "compression": "lzma",
                "payload_bytes": len(payload),
                "sha256": sha,
            }
        )
        first = b"%s %d\n" % (MAGIC, FORMAT) + json.dumps(head, sort_keys=True).encode() + b"\n"
        raw = None
        if self._raw is not None and self._raw_tmp is not None:
            self._raw.flush()
            os.fsync(self._raw.fileno())
            self._raw.close()
            self._raw = None
            raw = raw_path(self.path, sha)
            os.replace(self._raw_tmp, raw)
            self.values = _map(raw, self.layers, self.slots)
        else:
            self.values = np.stack(self._kept) if self._kept else np.zeros((0, self.slots), dtype=np.int16)
            self._kept = []
        size = _write_atomic(self.path, [first, payload])
        _remove_other_raw(self.path, raw)
        return size

    def abort(self) -> None:
        if self._raw is not None:
            self._raw.close()
            self._raw = None
        if self._raw_tmp is not None:
            with contextlib.suppress(FileNotFoundError):
                self._raw_tmp.unlink()


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


def read_table(path: Path, expect: dict[str, Any]) -> tuple[NDArray[np.int16], dict[str, Any]]:
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
    layers, slots = header["shape"]
    if 2 * layers * slots >= MAP_BYTES:
        return _mapped(path, payload, header), header
    try:
        raw = lzma.decompress(payload)
    except lzma.LZMAError as exc:
        raise TableFileError(path, "damaged: %s" % exc)
    if len(raw) != 2 * layers * slots:
        raise TableFileError(path, "%d bytes of values, not %d" % (len(raw), 2 * layers * slots))
    deltas = np.frombuffer(raw, dtype="<i2").reshape(layers, slots)
    return np.cumsum(deltas, axis=0, dtype=np.int16), header


def _mapped(path: Path, payload: bytes, header: dict[str, Any]) -> NDArray[np.int16]:
    """A big table's values mapped read-only from its uncompressed file, which is made
    first (a layer at a time) when it is missing or of the wrong length."""
    import numpy as np

    layers, slots = header["shape"]
    raw = raw_path(path, str(header["sha256"]))
    try:
        ok = raw.stat().st_size == 2 * layers * slots
    except OSError:
        ok = False
    if not ok:
        decompressor = lzma.LZMADecompressor()
        layer = np.zeros(slots, dtype=np.int16)
        tmp = raw.with_name("%s.%d.tmp" % (raw.name, os.getpid()))
        try:
            with open(tmp, "wb") as f:
                data = payload
                for _ in range(layers):
                    try:
                        chunk = decompressor.decompress(data, max_length=2 * slots)
                    except lzma.LZMAError as exc:
                        raise TableFileError(path, "damaged: %s" % exc)
                    data = b""
                    if len(chunk) != 2 * slots:
                        raise TableFileError(path, "fewer values than its shape %s" % ([layers, slots],))
                    layer = layer + np.frombuffer(chunk, dtype="<i2")
                    f.write(layer.astype("<i2").tobytes())
                if not decompressor.eof and decompressor.decompress(b"", max_length=1):
                    raise TableFileError(path, "more values than its shape %s" % ([layers, slots],))
                if not decompressor.eof:
                    raise TableFileError(path, "damaged: the compressed values do not end")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, raw)
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
        _remove_other_raw(path, raw)
    return _map(raw, layers, slots)


def _map(raw: Path, layers: int, slots: int) -> NDArray[np.int16]:
    """``raw`` mapped read-only as layers x slots values (an ndarray over the map, which
    it keeps open; an ``int()`` of one value is twice as fast as from a ``numpy.memmap``)."""
    import mmap

    import numpy as np

    with open(raw, "rb") as f:
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    advise = getattr(mmap, "MADV_RANDOM", None)
    if advise is not None and hasattr(mapped, "madvise"):
        # Probes are scattered: read the page asked for, not the 128 kB around it
        # (100,000 random probes: 300 MB of file pages resident instead of 2.2 GB).
        with contextlib.suppress(OSError, ValueError):
            mapped.madvise(advise)
    return np.frombuffer(mapped, dtype="<i2", count=layers * slots).reshape(layers, slots)


def is_mapped(values: object) -> bool:
    """True when ``values`` are read from a file mapped (``read_table`` of a big table)."""
    import mmap

    while values is not None:
        if isinstance(values, mmap.mmap):
            return True
        # An ndarray's base; a memoryview's object (np.frombuffer's base).
        values = values.obj if isinstance(values, memoryview) else getattr(values, "base", None)
    return False


class BuildBusy(Exception):
    """Another process is building this ruleset's tables now."""


class BuildLock:
    """One builder per ruleset directory, across processes: an OS lock on the file
    ``.build.lock`` (``oslock.ProcessLock``: released by the OS when the holder dies, so a
    crashed builder never blocks the next). ``wait=False`` raises ``BuildBusy`` instead of
    waiting."""

    def __init__(self, directory: Path, wait: bool = True) -> None:
        self.path = directory / LOCK_NAME
        self.wait = wait
        self._lock = ProcessLock(self.path, "the tables in %s" % directory, wait=wait)

    def __enter__(self) -> BuildLock:
        try:
            self._lock.acquire()
        except LockBusy as exc:
            raise BuildBusy("another process is building the tables in %s (%s)" % (self.path.parent, exc))
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()
