"""The journal's flash log at boot (``zuni_board.flashlog``): its blocks reserved as files,
and the records a reset kept from their game files put there. Loaded by firmware/main.py
before the app and unloaded once it runs (its code is garbage then: the heap of a long
game to resume needs it)."""

import os

from zuni_board.flashlog import BLOCK
from zuni_board.journal import FORMAT, OLD_FORMAT, POSITION_FORMAT, Journal, unseal

RESERVE_DIR = "zwal"
_MARK = b"ZWAL-RESERVED "


def _join(directory, name):
    return directory + name if directory.endswith("/") else directory + "/" + name


def reserve(dev, directory, count):
    """The physical block numbers of the ``count`` reserved files under ``directory``
    (made, and their blocks found, on first use; an index file keeps the numbers)."""
    folder = _join(directory, RESERVE_DIR)
    index = _join(folder, "index")
    blocks = _read_index(index, folder, count)
    if blocks is not None:
        return blocks
    _make_files(folder, count)
    blocks = _find(dev, folder, count)
    f = open(index + ".tmp", "w")
    try:
        f.write(" ".join([str(b) for b in blocks]) + "\n")
    finally:
        f.close()
    os.rename(index + ".tmp", index)
    return blocks


def reserved(directory):
    """The block numbers of the reserved files under ``directory`` as their index says, or
    None (none reserved): for a reader of a flash image (``replay`` with them
    puts what waits in the log into the game files, as the board does at boot)."""
    folder = _join(directory, RESERVE_DIR)
    return _read_index(_join(folder, "index"), folder, -1)


def _read_index(index, folder, count):
    try:
        with open(index) as f:
            blocks = [int(x) for x in f.read().split()]
        if count < 0:
            count = len(blocks)
        if len(blocks) != count or count < 2:
            return None
        for k in range(count):
            if os.stat(_join(folder, "b%d" % k))[6] != BLOCK:
                return None
    except (OSError, ValueError):
        return None
    return blocks


def _make_files(folder, count):
    try:
        os.mkdir(folder)
    except OSError:
        pass
    for name in os.listdir(folder):
        os.remove(_join(folder, name))
    try:
        raw = os.urandom(8)
    except (AttributeError, OSError):
        raw = b"\x00" * 8
    tag = "".join(["%02x" % x for x in raw])
    blank = b"\xff" * 256
    for k in range(count):
        mark = (_MARK.decode() + tag + " %d " % k).encode()
        f = open(_join(folder, "b%d" % k), "wb")
        try:
            f.write(mark + blank[len(mark) :])  # a page at a time: no 4 KB buffer
            for _ in range(BLOCK // 256 - 1):
                f.write(blank)
        finally:
            f.close()
    f = open(_join(folder, "tag"), "w")
    try:
        f.write(tag)
    finally:
        f.close()


def _find(dev, folder, count):
    with open(_join(folder, "tag")) as f:
        tag = f.read().strip()
    total = dev.ioctl(4, 0)
    head = bytearray(64)
    found = [-1] * count
    prefix = (_MARK.decode() + tag + " ").encode()
    for block in range(total):
        dev.readblocks(block, head, 0)
        if bytes(head[: len(prefix)]) != prefix:
            continue
        rest = bytes(head[len(prefix) :]).split(b" ")[0]
        k = int(rest)
        if 0 <= k < count:
            found[k] = block
    for k in range(count):
        if found[k] < 0:
            raise OSError(5, "flash log: reserved block %d not found on the flash" % k)
    return found


def replay(directory, log):
    """At boot, before the journal's ``resume``: append to their game files the records
    of ``log`` that a reset kept from getting there (a record goes to its file only if
    the file has its game id and exactly its offset as length, so nothing is ever
    appended twice or to another game); then the whole log counts as written, and the
    sector the next record goes to is erased if it is not yet. Returns the number of
    records appended."""
    records = log.load()
    done = 0
    journal = Journal(directory)
    heads = {}  # type: dict
    for _seq, number, offset, game_id, line in records:
        path = journal.path_of(number)
        gid = heads.get(number)
        if gid is None:
            gid = _header_id(path)
            heads[number] = gid
        if gid != game_id:
            continue  # a deleted game's record, or another game under that number
        try:
            size = os.stat(path)[6]
        except OSError:
            continue
        if size != offset:
            continue  # in the file already (or a gap: never filled with a later record)
        f = open(path, "a")
        try:
            f.write(line)
        finally:
            f.close()
        done += 1
    log.release(log.seq - 1)
    # The sector the next record goes to erased now, at boot, if it is not yet (the
    # reserved blocks' first use): never by a move's append.
    log.idle()
    return done


def _header_id(path):
    """The game id in a game file's header line, or "" (no file, or no sound header)."""
    try:
        f = open(path, "r")
    except OSError:
        return ""
    try:
        body = unseal(f.readline())
    finally:
        f.close()
    if body is None:
        return ""
    parts = body.split(" ", 2)
    if len(parts) < 2 or parts[0] not in (FORMAT, OLD_FORMAT, POSITION_FORMAT):
        return ""
    return parts[1]
