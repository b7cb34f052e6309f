"""The journal's write-ahead log on raw flash: a move's record is on the flash without an erase.

On littlefs every append to a game file of more than a few hundred bytes copies the file's
last block to a freshly erased one: an erase of a 4 KB sector (45 ms typical, 400 ms at
the W25Q16JV's datasheet maximum, the whole chip stalled) in the scan that sends the move
to the host. Here a record is programmed into one 256-byte page of sectors erased ahead
of need (0.4 ms); ``journal.Journal`` appends the records to the game files later, in
quiet time (``Journal.idle``), when an erase costs nobody anything, and at boot
``flashboot.replay`` puts any record that did not reach its file there first.

The sectors are blocks of the same flash that littlefs manages, reserved as files
(``flashboot.reserve``: boot-time code, unloaded once the board runs): one file of
exactly one block each, whose block littlefs never touches again (it relocates a file's
data only when the file is written; it reads a one-block file's data only when the file
is read, and nothing reads these). Their block numbers are
found once, by a random marker written into each, and kept in an index file.

A page::

    "ZW" seq(4) number(4) offset(4) idlen(1) id line-length(1) line  crc32(4)

``seq`` counts records (ring order), ``number`` is the game file, ``offset`` the file's
length before the line, ``id`` the game id in its header: a record is appended to its
file at boot only if the file has that id and exactly that length, so replaying twice, or
a record of a deleted game, changes nothing. Power cuts: a torn page fails its CRC and is
skipped (its move was never reported: the frame goes out after the program); a sector is
erased only when every record on it is in its file, and a torn erase leaves only such
records; a page is programmed only after it read blank.

>>> log = FlashLog(dev, flashboot.reserve(dev, "/", 8))  # dev: readblocks/writeblocks/ioctl
>>> flashboot.replay("/", log)              # at boot: the records into their files
>>> attach(journal, log)                    # the journal's records go to the log first
>>> idle(journal)                           # quiet time: one flash job, if one is due
"""

import os
from binascii import crc32

PAGE = 256
BLOCK = 4096
PAGES = BLOCK // PAGE
_HEAD = 15  # "ZW", seq, number, offset
MAGIC = b"ZW"
_BLANK = b"\xff" * PAGE


# Lines that wait in the flash log before quiet time appends them to their file (one
# erase for them all); fewer wait for a long pause (``idle``).
SYNC_LINES = 8

FULL = -1  # append: no erased page ahead, and the next sector holds lines not in their files
TOO_LONG = 0  # append: the record does not fit a page


def _u32(buf, i):
    return buf[i] | (buf[i + 1] << 8) | (buf[i + 2] << 16) | (buf[i + 3] << 24)


def _put32(buf, i, v):
    buf[i] = v & 0xFF
    buf[i + 1] = (v >> 8) & 0xFF
    buf[i + 2] = (v >> 16) & 0xFF
    buf[i + 3] = (v >> 24) & 0xFF


class FlashLog:
    """``FlashLog(dev, blocks)``: the log on the physical ``blocks`` of ``dev`` (4 KB each,
    in ring order). Counters: ``programs``, ``erases``, ``forced`` (erases that append
    itself had to do, not one done ahead of need)."""

    def __init__(self, dev, blocks):
        if len(blocks) < 2:
            raise ValueError("a flash log needs at least 2 blocks, not %d" % len(blocks))
        self.dev = dev
        self.blocks = list(blocks)
        self.pages = len(self.blocks) * PAGES
        self.seq = 1  # the next record's
        self.pos = 0  # the next page to program (ring index)
        self.applied = 0  # every record up to this seq is in its file
        self.top = [0] * len(self.blocks)  # per block: the highest seq on it (0: none)
        self.clean = bytearray(len(self.blocks))  # per block: 1 = known erased
        self._page = bytearray(PAGE)
        self.programs = 0
        self.erases = 0
        self.forced = 0
        # The journal's lines kept here and not yet in their file: the file, its length
        # with them (-1: to be read), the lines, the seq of the last.
        self._path = None  # type: str | None
        self._size = -1
        self._lines = []  # type: list[str]
        self._last = 0
        self.syncs = 0  # appends of waiting lines to their file (counters for benchmarks)

    # -- the journal's side ---------------------------------------------------------
    def record(self, journal, line):
        """Keep ``journal``'s record ``line`` (for its current file) here; True if it is
        (then it goes to the file by ``sync``), False if the journal must write it to the
        file itself (a record too long for a page)."""
        path = journal.path
        if path != self._path:
            self.sync()  # another file's lines go to that file first
            self._path = path
            self._size = -1
        if self._size < 0:
            self._size = os.stat(path)[6]
        number = _number_of(path)
        seq = self.append(number, self._size, journal.game_id, line)
        if seq == FULL:
            self.sync()  # the log's next sector held lines not yet in the file
            seq = self.append(number, self._size, journal.game_id, line)
        if seq <= 0:
            self.sync()
            self._size = -1  # the journal writes the line itself
            return False
        self._last = seq
        self._lines.append(line)
        self._size += len(line)
        return True

    def pending(self):
        """Lines kept here, not yet in their file."""
        return len(self._lines)

    def sync(self):
        """Append the lines kept here to their file (one littlefs write: an erase); True
        if there were any."""
        lines = self._lines
        if not lines or self._path is None:
            return False
        f = open(self._path, "a")
        try:
            for line in lines:
                f.write(line)
        finally:
            f.close()
        lines.clear()
        self.syncs += 1
        self.release(self._last)
        return True

    def rewritten(self):
        """The journal writes its current game whole: the lines kept here are in it."""
        self._lines.clear()
        self._size = -1
        self.release(self._last)

    # -- boot -----------------------------------------------------------------------
    def load(self):
        """Read every page; the sound records as (seq, number, offset, id, line), oldest
        first. Sets where the next record goes."""
        out = []
        buf = self._page  # a page at a time: no 4 KB buffer in a heap a long game fills
        best = 0
        best_pos = -1
        for b in range(len(self.blocks)):
            top = 0
            blank = True
            for p in range(PAGES):
                self.dev.readblocks(self.blocks[b], buf, p * PAGE)
                if buf[0] == 0xFF and buf == _BLANK:
                    continue
                blank = False
                rec = self._parse(buf, 0)
                if rec is None:
                    continue
                out.append(rec)
                if rec[0] > top:
                    top = rec[0]
                if rec[0] > best:
                    best = rec[0]
                    best_pos = b * PAGES + p
            self.top[b] = top
            self.clean[b] = 1 if blank else 0
        out.sort()
        self.seq = best + 1
        self.pos = (best_pos + 1) % self.pages if best_pos >= 0 else 0
        self.applied = 0
        return out

    def _parse(self, buf, at):
        if buf[at] != 0x5A or buf[at + 1] != 0x57:  # "ZW"
            return None
        idlen = buf[at + _HEAD]
        i = at + _HEAD + 1 + idlen
        if i >= at + PAGE - 3:
            return None
        n = buf[i]
        end = i + 1 + n
        if end + 4 > at + PAGE:
            return None
        if crc32(bytes(buf[at:end])) != _u32(buf, end):
            return None
        try:
            game_id = bytes(buf[at + _HEAD + 1 : i]).decode()
            line = bytes(buf[i + 1 : end]).decode()
        except UnicodeError:
            return None
        return (_u32(buf, at + 2), _u32(buf, at + 6), _u32(buf, at + 10), game_id, line)

    # -- writing --------------------------------------------------------------------
    def append(self, number, offset, game_id, line):
        """Program one record (the caller's file ``number`` had ``offset`` bytes before
        ``line``); returns its seq (from 1). No erase unless the log ran out of erased
        pages (``forced``); FULL if even that is not allowed (the journal writes the
        waiting lines to their file first), TOO_LONG for a record that fits no page."""
        gid = game_id.encode()
        data = line.encode()
        if len(gid) > 40 or _HEAD + 1 + len(gid) + 1 + len(data) + 4 > PAGE:
            return TOO_LONG
        page = self._page
        while True:
            pos = self.pos
            b = pos // PAGES
            at = (pos % PAGES) * PAGE
            if at == 0 and not self.clean[b]:
                if self.top[b] > self.applied:
                    return FULL
                self._erase(b)
                self.forced += 1
            self.dev.readblocks(self.blocks[b], page, at)
            if page == _BLANK:
                break
            self.pos = (pos + 1) % self.pages  # torn or foreign bytes: never program over them
        seq = self.seq
        page[0] = 0x5A
        page[1] = 0x57
        _put32(page, 2, seq)
        _put32(page, 6, number)
        _put32(page, 10, offset)
        page[_HEAD] = len(gid)
        i = _HEAD + 1
        page[i : i + len(gid)] = gid
        i += len(gid)
        page[i] = len(data)
        page[i + 1 : i + 1 + len(data)] = data
        end = i + 1 + len(data)
        _put32(page, end, crc32(memoryview(page)[:end]) & 0xFFFFFFFF)
        page[end + 4 :] = _BLANK[end + 4 :]
        self.dev.writeblocks(self.blocks[b], page, at)
        self.programs += 1
        self.clean[b] = 0
        self.top[b] = seq
        self.seq = seq + 1
        self.pos = (pos + 1) % self.pages
        return seq

    def release(self, seq):
        """Every record up to ``seq`` is in its file: their sectors may be erased."""
        if seq > self.applied:
            self.applied = seq

    def due(self):
        """What ``idle`` would do now: 0 nothing, 1 an erase ahead of need, 2 a sync first
        (the next sector holds records not yet in their files)."""
        b = self._ahead()
        if self.clean[b]:
            return 0
        return 1 if self.top[b] <= self.applied else 2

    def _ahead(self):
        """The block the log enters next (the one after the current page's block; the
        current one's own rest is erased already)."""
        return (self.pos // PAGES + 1) % len(self.blocks) if self.pos % PAGES else self.pos // PAGES

    def idle(self):
        """One erase ahead of need if one is due and allowed; True if it erased."""
        if self.due() != 1:
            return False
        self._erase(self._ahead())
        return True

    def _erase(self, b):
        self.dev.ioctl(6, self.blocks[b])
        self.erases += 1
        self.clean[b] = 1
        self.top[b] = 0


# -- the journal with a log -----------------------------------------------------------


def attach(journal, log):
    """Keep ``journal``'s records in ``log`` first (after ``replay`` and the journal's
    resume or start)."""
    journal.log = log


def _number_of(path):
    """The game number in a journal file's path (``.../zj00007.txt`` -> 7)."""
    name = path.rsplit("/", 1)[-1]
    return int(name[2:-4])


def idle(journal, long_quiet=False):
    """Quiet time (no hand on the board, nothing to commit: the outer loop knows): at
    most one flash job that stalls the chip; True if it did one. The lines waiting in the
    log go into their file (an erase, whatever their number) once there are SYNC_LINES of
    them, or the board has been quiet for long (``long_quiet``: a player thinks), or the
    log's next sector holds them; else an erase of that sector ahead of need."""
    log = journal.log
    if log is None:
        return False
    lines = log.pending()
    if lines and (long_quiet or lines >= SYNC_LINES or log.due() == 2):
        return log.sync()
    return log.idle()
