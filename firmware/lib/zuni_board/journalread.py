"""Reading the journal's game files (``Journal.read`` and ``Journal.resume`` call
this): loaded at boot to resume the newest game and unloaded by the app after it
(``BoardApp``), so that the board in play does not keep this code.

A game file is read 256 bytes at a time (MicroPython's ``readline`` reads a byte per
call), each line's CRC-16 checked by a table made for the read, and the move texts kept
in one ``Texts`` (a list of 400 strings, made between the lines' garbage, was left
spread over the whole heap of the chip). docs/firmware-timing.md, "Boot".
"""

import os


class Texts:
    """A game's move texts as read from its file, kept in one buffer and one array of
    ends: a list of 400 strings, made between the lines' garbage, was left spread over
    the whole heap of the chip, with no free block of 2 KB (docs/firmware-timing.md).
    A list's calls that the reading needs (append, pop, len, [i]); ``texts(a, b)`` the
    texts from ``a`` to ``b`` as a list; equal to the list of its texts."""

    def __init__(self):
        from array import array

        self.buf = bytearray()
        self.ends = array("I")

    def append(self, text):
        buf = self.buf
        buf.extend(text.encode())
        buf.append(10)  # a newline after each: ``texts`` splits them at C speed
        self.ends.append(len(buf))

    def pop(self):
        """The last text, taken off (a take-back record: rare, so a copy of both)."""
        ends = self.ends
        n = len(ends) - 1
        text = self[n]
        self.ends = ends[:n]
        self.buf = self.buf[: ends[n - 1] if n > 0 else 0]
        return text

    def __len__(self):
        return len(self.ends)

    def __getitem__(self, i):
        ends = self.ends
        if type(i) is slice:
            return self.texts(0, len(ends))[i]
        if i < 0:
            i += len(ends)
        start = ends[i - 1] if i > 0 else 0
        return self.buf[start : ends[i] - 1].decode()

    def __iter__(self):
        return iter(self.texts(0, len(self.ends)))

    def texts(self, start, end):
        if start >= end:
            return []
        ends = self.ends
        return self.buf[ends[start - 1] if start > 0 else 0 : ends[end - 1] - 1].decode().split("\n")

    def __eq__(self, other):
        return self.texts(0, len(self.ends)) == other


def _crc16_table():
    """The CRC-16/CCITT-FALSE of each byte value from 0 (array("H"): 0.5 KB, made for
    a read; bit by bit the CRC was some 0.5 s of a 400-line file on the chip)."""
    from array import array

    table = array("H", bytes(512))
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
        table[byte] = crc
    return table


def _unseal(line, table):
    """``journal.unseal``, the CRC by ``table``."""
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
    value = 0xFFFF
    for byte in body.encode():
        value = ((value << 8) & 0xFFFF) ^ table[(value >> 8) ^ byte]
    if value != crc:
        return None
    return body


def _lines(f):
    """The lines of the binary file ``f`` as str, the last one as it is (torn: no
    newline), read 256 bytes at a time: MicroPython's readline reads a byte per call
    (a 400-move game's file took the chip about 1 s). A line that is not UTF-8 comes
    out as "" (unsealed, it is torn)."""
    rest = b""
    while True:
        chunk = f.read(256)
        if not chunk:
            break
        rest += chunk
        start = 0
        while True:
            cut = rest.find(b"\n", start)
            if cut < 0:
                break
            yield _text(rest[start : cut + 1])
            start = cut + 1
        rest = rest[start:]
    if rest:
        yield _text(rest)


def _text(raw):
    try:
        return raw.decode()
    except UnicodeError:
        return ""


def read(j, number, formats):
    """(game id, ruleset, moves, end, sound_bytes, torn) of one game file; its history
    version is left in ``read_version``, its start position (or None) in ``read_position``.

    Read a line at a time (a long game's file is never in memory at once). Records
    after a torn or corrupted one are dropped with it; ``sound_bytes`` is the length
    of the sound part."""
    version = 0
    game_id = None
    ruleset = None
    position = None
    moves = Texts()
    end = None  # type: tuple[str, str] | None
    sound = 0
    torn = False
    j.read_clock = None
    j.sync()  # the lines waiting in the flash log first
    table = _crc16_table()
    f = open(j.path_of(number), "rb")
    try:
        for line in _lines(f):
            body = _unseal(line, table)
            if body is None or not _apply(body, moves, formats):
                torn = True
                break
            if body[0] == "M" and game_id is not None:
                sound += len(line)  # a move, nearly every line: no header checks
                continue
            head = _header(body, formats)
            if head is not None:
                if not head or game_id is not None:
                    torn = True
                    break
                game_id, version, ruleset, position = head
            elif game_id is None:
                torn = True
                break
            elif body[0] == "E":
                parts = body.split(" ", 2)
                if parts[1] == "clear":
                    end = None
                    version += 1
                else:
                    end = (parts[1], parts[2] if len(parts) > 2 else "")
            elif body[0] == "U":
                end = None
                version += 1
            elif body[0] == "T":
                if moves or j.read_clock is not None:
                    torn = True
                    break
                j.read_clock = body[2:].replace("%20", " ")
            sound += len(line)
    finally:
        f.close()
    j.read_version = version
    j.read_position = position
    return game_id, ruleset, moves, end, sound, torn


def _header(body, formats):
    """A game file's header record (``formats``: the journal's FORMAT, OLD_FORMAT and
    POSITION_FORMAT, not imported here): (game id, history version, ruleset, start position
    or None); () for a header that is not whole; None for another record."""
    FORMAT, OLD_FORMAT, POSITION_FORMAT = formats  # noqa: N806
    if body.startswith(POSITION_FORMAT + " "):
        parts = body.split(" ", 3)
        if len(parts) != 4 or not parts[2].isdigit():
            return ()
        position = parts[3]
        return parts[1], int(parts[2]), position.split("|")[0].strip(), position
    if body.startswith(FORMAT + " ") or body.startswith(OLD_FORMAT + " "):
        old = body[1] == "1"
        parts = body.split(" ", 2 if old else 3)
        if len(parts) != (3 if old else 4) or not (old or parts[2].isdigit()):
            return ()
        if old:
            return parts[1], 0, parts[2], None
        return parts[1], int(parts[2]), parts[3], None
    return None


def _apply(body, moves, formats):
    """Apply a move or take-back record to ``moves``; False if it does not fit."""
    FORMAT, OLD_FORMAT, POSITION_FORMAT = formats  # noqa: N806
    kind = body[:2]
    if kind == "M ":
        parts = body.split(" ")
        n = len(parts)  # 6 on a clock: the times (zuni_board.clocks reads them)
        if (n != 3 and n != 6) or not parts[1].isdigit() or int(parts[1]) != len(moves):
            return False
        moves.append(parts[2])
    elif kind == "K " or kind == "T ":
        return len(body) > 2  # a clock's records (zuni_board.clocks)
    elif kind == "U ":
        parts = body.split(" ")
        if len(parts) != 2 or not parts[1].isdigit() or int(parts[1]) != len(moves) - 1:
            return False
        moves.pop()
    elif kind == "E ":
        return len(body.split(" ")) >= 2
    elif (
        not body.startswith(FORMAT + " ")
        and not body.startswith(OLD_FORMAT + " ")
        and not body.startswith(POSITION_FORMAT + " ")
    ):
        return False
    return True


def resume(j, formats):
    """The newest game in the journal as (game id, ruleset, move texts, end), or None;
    ``position`` then holds its start position's text (None: the rules' start).

    ``end`` is None or (how, arg) for a resignation or agreement. A torn last record
    is dropped and the file rewritten without it, so later appends stay readable.
    Whether the game is finished is for the rules engine to say (see
    ``BoardApp``); the journal only keeps the record. Appends then go to this game."""
    numbers = j.numbers()
    while numbers:
        number = numbers.pop()
        try:
            game_id, ruleset, moves, end, sound, torn = read(j, number, formats)
        except OSError:
            continue
        if game_id is None or ruleset is None:
            continue
        j.path = j.path_of(number)
        j.game_id = game_id
        j.version = j.read_version
        j.ruleset = ruleset
        j.position = j.read_position
        j.clock = j.read_clock
        if torn:
            _rewrite(j, sound)
        return game_id, ruleset, moves, end
    return None


def _rewrite(j, sound):
    """Keep only the first ``sound`` bytes of the current file (copied in chunks to a
    new file that then replaces it, so a cut during the repair loses nothing)."""
    path = j.path
    if path is None:
        return
    tmp = path + ".tmp"
    src = open(path, "rb")  # bytes: a torn record need not be text
    dst = open(tmp, "wb")
    try:
        left = sound
        while left > 0:
            chunk = src.read(min(256, left))
            if not chunk:
                break
            dst.write(chunk)
            left -= len(chunk)
    finally:
        src.close()
        dst.close()
    os.rename(tmp, path)
