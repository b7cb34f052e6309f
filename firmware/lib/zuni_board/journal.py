"""Append-only journal of the games played on the board, on the flash filesystem.

One text file per game in ``journal_dir`` (``zj00007.txt``), one record per line, each
line ending in ``*`` and a CRC-16 of the rest, so that a write torn by a power cut is
detected and dropped::

    Z2 00007-3fa2 5 mosona*1c2b        header: format, game id, history version, ruleset
    M 0 s3xm4-m5*8e01                  move 0 committed
    M 1 n5xm5-m4*77a0
    U 1*4d1e                           move 1 taken back
    E resign north*02ff                an end that is not a board position

A game on a clock (docs/clocks.md) has a ``T <time control>`` record right after its header
(``T 5+3``, ``T south=5+3%20north=10``: the control's text with spaces as ``%20``); its move
records carry the move's time, the mover's time left after it and the mover's side
(``M 4 m6-m5 4200 295800 2``), and ``K <side> <ms left>`` records, written every
``clock.SAVE_MS`` while a clock runs and when it stops, keep the running side's time, so
that a reset costs that side at most the time since the last of them. Older firmware reads
such a file as torn at its ``T`` record (it resumes the game without its moves).

A game set up from a position (``HostCommands.cmd_setup``) has the header ``Z3 <id> <version>
<position text>`` instead (docs/rules.md, "Positions as text": its first field is the
ruleset), and its moves replay from that position. Older firmware skips ``Z3`` files as it
skips any header it does not know; ``Z2`` and ``Z1`` files still read.

The **history version** (docs/protocol.md) counts the cuts of the history: a new game
starts at the previous game's version + 1 (its header says it) and each take-back (``U``,
``E clear``) adds one, so it survives a reset with the record that changed it. Files in
the older format ``Z1`` (no version) read as version 0; older firmware skips ``Z2`` files.

Each record is appended and the file closed (which commits it on littlefs) as the
move is committed. Only the newest ``keep`` games are kept, so flash use stays bounded.

With a flash log in ``log`` (``zuni_board.flashlog``: on the Pico and the virtual board)
a record is instead programmed into the log's next erased page (no erase: littlefs would
copy the file's last block to a freshly erased one at every append) and appended to its
file later, with the others waiting, by ``sync()``: in quiet time (``flashlog.idle``,
the outer loop's) or by whatever reads or starts a file first. ``flashboot.replay`` at
boot puts the records a reset caught in the log into their files.

A write that fails (flash full, a littlefs error) raises OSError and leaves the file as
it was or with a torn last line (dropped on reading). ``make_room()`` deletes the oldest
other game to free flash; ``rewrite(moves)`` writes the current game again whole, under
the same id, once writes work again (the app's degraded mode, ``BoardApp``).

>>> j = Journal("/")
>>> gid = j.start("mosona")
>>> j.move(0, "s3xm4-m5")
>>> j.resume()         # after a reset: (game id, ruleset text, Texts of the moves, end or None)
('00001-3fa2', 'mosona', ['s3xm4-m5'], None)
"""

import os

PREFIX = "zj"
SUFFIX = ".txt"
FORMAT = "Z2"
OLD_FORMAT = "Z1"  # before history versions: read, never written
POSITION_FORMAT = "Z3"  # a game set up from a position: its header carries the position


class JournalError(ValueError):
    """A journal operation was given bad input (the message names it)."""


def crc16(data):
    """CRC-16/CCITT-FALSE of a str or bytes: ``crc16("123456789") == 0x29B1``."""
    if isinstance(data, str):
        data = data.encode()
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


def seal(body):
    """One journal line: ``seal("M 0 a-b") == "M 0 a-b*xxxx\\n"``."""
    return "%s*%04x\n" % (body, crc16(body))


def unseal(line):
    """The body of a sound journal line, or None for a torn or corrupted one."""
    if not line.endswith("\n"):
        return None
    line = line[:-1]
    star = line.rfind("*")
    if star < 0 or len(line) - star != 5:
        return None
    body = line[:star]
    try:
        crc = int(line[star + 1 :], 16)
    except ValueError:
        return None
    if crc16(body) != crc:
        return None
    return body


def _join(directory, name):
    if directory.endswith("/"):
        return directory + name
    return directory + "/" + name


def random_hex():
    try:
        raw = os.urandom(2)
        return "%02x%02x" % (raw[0], raw[1])
    except (AttributeError, OSError):
        return "0000"


class Journal:
    """The journal directory. ``keep``: how many game files to keep (newest first)."""

    # The flash log (zuni_board.flashlog.attach sets it), or None: a class attribute, so
    # that a journal without one has no more in its instance (the heap's ragged edge).
    log = None  # type: ignore

    def __init__(self, directory, keep=8):
        if keep < 1:
            raise JournalError("keep must be at least 1, not %r" % (keep,))
        self.directory = directory
        self.keep = keep
        self.path = None  # type: str | None
        self.game_id = None  # type: str | None
        self.version = 0  # history version of the current game (after resume, start, takeback)
        self.read_version = 0  # that of the file read() read last
        self.ruleset = None  # type: str | None
        self.position = None  # type: str | None  # the start position of a game set up from one
        self.read_position = None  # type: str | None  # that of the file read() read last
        self.clock = None  # type: str | None  # the time control of the current game (None: no clock)
        self.read_clock = None  # type: str | None  # that of the file read() read last

    # -- files --------------------------------------------------------------
    def numbers(self):
        """Numbers of the game files present, ascending."""
        out = []  # type: list[int]
        try:
            names = os.listdir(self.directory)
        except OSError:
            return out
        for name in names:
            if name.startswith(PREFIX) and name.endswith(SUFFIX):
                digits = name[len(PREFIX) : len(name) - len(SUFFIX)]
                if digits.isdigit():
                    out.append(int(digits))
        out.sort()
        return out

    def path_of(self, number):
        """The file of game ``number``."""
        return _join(self.directory, "%s%05d%s" % (PREFIX, number, SUFFIX))

    def _append(self, body):
        if self.path is None:
            raise JournalError("no game started: call start() or resume() first")
        line = seal(body)
        log = self.log
        if log is not None:
            if log.record(self, line):
                return  # in the log: the file gets it in quiet time (flashlog.idle)
        # Open, write, close for every record: closing commits the write on littlefs,
        # so a power cut loses at most the record being written.
        f = open(self.path, "a")
        try:
            f.write(line)
        finally:
            f.close()

    def sync(self):
        """The lines waiting in the flash log into their file (see the module's docstring)."""
        if self.log is not None:
            self.log.sync()

    def prune(self, keep=None):
        """Delete the oldest game files beyond ``keep`` (default: the journal's ``keep``)."""
        if keep is None:
            keep = self.keep
        numbers = self.numbers()
        while len(numbers) > keep:
            number = numbers.pop(0)
            path = self.path_of(number)
            if path != self.path:
                try:
                    os.remove(path)
                except OSError:
                    pass

    # -- writing ------------------------------------------------------------
    def header(self, game_id, version, ruleset_text, position=None):
        """The body of a game file's first record."""
        if position is not None:
            return "%s %s %d %s" % (POSITION_FORMAT, game_id, version, position)
        return "%s %s %d %s" % (FORMAT, game_id, version, ruleset_text)

    def start(self, ruleset_text, game_id=None, position=None, clock=None):
        """Begin a new game file; returns its game id (``game_id`` if given: a game the
        app began while the flash failed keeps the id the host knows). ``position``: the
        start position's text of a game set up from one (its ruleset is ``ruleset_text``);
        ``clock``: its time control's text (a ``T`` record)."""
        ruleset_text = str(ruleset_text)
        if not ruleset_text or "\n" in ruleset_text or "*" in ruleset_text:
            raise JournalError("bad ruleset text %r for the journal" % (ruleset_text,))
        if position is not None and (not position or "\n" in position or "*" in position):
            raise JournalError("bad position text %r for the journal" % (position,))
        self.sync()  # the old game's waiting lines belong to the old file
        numbers = self.numbers()
        number = (numbers[-1] + 1) if numbers else 1
        if game_id is None:
            game_id = "%05d-%s" % (number, random_hex())
        elif not game_id or " " in game_id or "*" in game_id or "\n" in game_id:
            raise JournalError("bad game id %r for the journal" % (game_id,))
        path = self.path_of(number)
        version = self.version + 1
        # Room first: the oldest games go before the new one is written (a full flash).
        self.prune(self.keep - 1)
        head = seal(self.header(game_id, version, ruleset_text, position))
        if clock is not None:  # (zuni.clock's parser has refused a "*" or a line end)
            head += seal("T " + clock.replace(" ", "%20"))
        f = open(path, "w")
        try:
            f.write(head)
        finally:
            f.close()
        # Only a written header makes it the current game (a failed start changes nothing).
        self.game_id = game_id
        self.path = path
        self.ruleset = ruleset_text
        self.position = position
        self.clock = clock
        self.version = version
        return game_id

    # The repairs of a failing flash live in ``repair``, loaded only when one is needed;
    # it takes what it writes with (``seal``) from here, and never imports this module.
    def make_room(self):
        """Delete the oldest game file other than the current one (the flash is full);
        True if one was deleted."""
        from zuni_board import repair

        return repair.make_room(self)

    def rewrite(self, moves, left=None):
        """Write the current game again, whole (header and ``moves``, move texts; ``left``:
        the clocks' ms left per side, -1 for none), to a new file that then replaces the old
        one; the game id and the history version (in the header) stay."""
        if self.path is None or self.game_id is None or self.ruleset is None:
            raise JournalError("no game started: call start() or resume() first")
        from zuni_board import repair

        if self.log is not None:
            self.log.rewritten()  # the whole game is in the file: what waited in the log too
        repair.rewrite(self, moves, left, seal)

    def move(self, index, text, times=None):
        """Record move number ``index`` (0-based) as committed; ``times``: on a clock,
        (ms the move took, the mover's ms left after it, the mover's side)."""
        if not text or " " in text or "*" in text or "\n" in text:
            raise JournalError("bad move text %r for the journal" % (text,))
        if times is None:
            self._append("M %d %s" % (index, text))
        else:
            self._append("M %d %s %d %d %d" % (index, text, times[0], times[1], times[2]))

    def clock_left(self, side, left):
        """Record ``side``'s time left (ms) on its clock (the periodic save, a stopped clock)."""
        self._append("K %d %d" % (side, left))

    def takeback(self, index):
        """Record that move ``index`` (the last one) was taken back."""
        self._append("U %d" % (index,))
        self.version += 1

    def end(self, how, arg):
        """Record an end that is not a board position: ``end("resign", "north")``,
        ``end("agree", "draw")``; or ``end("clear", "")`` when such an end is undone."""
        self._append("E %s %s" % (how, arg))
        if how == "clear":
            self.version += 1  # a take-back too

    # -- reading ------------------------------------------------------------
    # -- reading: zuni_board.journalread, loaded for it (at boot) -------------
    def read(self, number):
        """(game id, ruleset, moves, end, sound_bytes, torn) of one game file
        (``journalread.read``)."""
        from zuni_board import journalread

        return journalread.read(self, number, (FORMAT, OLD_FORMAT, POSITION_FORMAT))

    def resume(self):
        """The newest game in the journal as (game id, ruleset, move texts, end), or None
        (``journalread.resume``: the texts are a ``journalread.Texts``); ``position``
        then holds its start position's text (None: the rules' start)."""
        from zuni_board import journalread

        return journalread.resume(self, (FORMAT, OLD_FORMAT, POSITION_FORMAT))

    def size(self):
        """Bytes used by the journal's game files."""
        total = 0
        for number in self.numbers():
            try:
                total += os.stat(self.path_of(number))[6]
            except OSError:
                pass
        return total
