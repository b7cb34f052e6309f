"""The one codec of the board <-> host link (docs/protocol.md), shared by both sides.

A frame is one line of printable ASCII::

    ~<seq> <verb>[ <body>] *<crc>\\n

``crc`` is CRC-32 (``binascii.crc32``) of everything before `` *``, in 8 hex digits.
A person at a serial terminal may type ``*`` alone instead of the checksum; such an
unchecked frame is accepted only for commands that change nothing in the game
(``zuni_link.commands``, flag READONLY).

>>> encode(7, "ping")
b'~7 ping *FD148EF8\\n'
>>> decode(b"~7 ping *")
(7, 'ping', '', False)

Runs under MicroPython and CPython; typed with comments so that the host's strict
mypy reads it.
"""

import binascii

from micropython import const

PROTO = const(3)  # protocol version spoken here (hello proto=); 2: history versions (hv); 3: game clocks
MAX_LINE = const(512)  # longest frame in bytes, line end excluded
MAX_SEQ = const(65535)  # sequence numbers run 1..MAX_SEQ, then wrap to 1
MAX_VERB = const(12)

START = const(0x7E)  # "~": every frame starts with it; other lines are not frames


# Error codes of `err` replies (docs/protocol.md lists them with their meaning).
E_GARBAGE = "garbage"
E_TOOLONG = "toolong"
E_CRC = "crc"
E_SYNTAX = "syntax"
E_VERSION = "version"
E_UNKNOWN = "unknown"
E_ARGS = "args"
E_HELLO = "hello"
E_READONLY = "readonly"
E_ILLEGAL = "illegal"
E_CHANGED = "changed"
E_STALE = "stale"
E_INTERNAL = "internal"

# What LineAssembler.push() found (LineAssembler.ready).
NONE = const(0)
LINE = const(1)
TOOLONG = const(2)
BADBYTES = const(3)


class FrameError(ValueError):
    """A line that is not a valid frame, or a frame with bad arguments (a ValueError:
    the board app refuses a command with bad arguments through it).

    ``code`` is one of the E_* codes, ``message`` says what was wrong with which input."""

    def __init__(self, code, message):  # type: (str, str) -> None
        super().__init__(code + ": " + message)
        self.code = code
        self.message = message


def crc_hex(data):  # type: (bytes) -> str
    return "%08X" % (binascii.crc32(data) & 0xFFFFFFFF)


def snippet(data, limit=40):  # type: (bytes | bytearray | memoryview | str, int) -> str
    """A short, printable rendering of bad input for error messages: ``'ab\\x03'``."""
    if isinstance(data, str):
        data = data.encode()
    out = []
    n = 0
    for b in bytes(data):
        if n >= limit:
            out.append("...")
            break
        if 0x20 <= b < 0x7F and b != 0x5C:
            out.append(chr(b))
        else:
            out.append("\\x%02x" % b)
        n += 1
    return "'" + "".join(out) + "'"


def encode(seq, verb, body=""):  # type: (int, str, str) -> bytes
    """One frame, line end included: ``encode(3, "ack", "g1 0 00000000")``.

    ``body`` must already be printable ASCII (use ``esc`` for free text)."""
    if body:
        head = ("~%d %s %s" % (seq, verb, body)).encode()
    else:
        head = ("~%d %s" % (seq, verb)).encode()
    if len(head) + 10 > MAX_LINE:
        raise FrameError(E_TOOLONG, "frame %s... would be %d bytes (limit %d)" % (verb, len(head) + 10, MAX_LINE))
    return head + b" *" + crc_hex(head).encode() + b"\n"


def _is_hex(s):  # type: (bytes) -> bool
    for b in s:
        if not (0x30 <= b <= 0x39 or 0x41 <= b <= 0x46 or 0x61 <= b <= 0x66):
            return False
    return True


def _is_digits(s):  # type: (str) -> bool
    if not s:
        return False
    for c in s:
        if c < "0" or c > "9":
            return False
    return True


def decode(line):  # type: (bytes | bytearray | memoryview) -> tuple[int, str, str, bool]
    """``(seq, verb, body, checked)`` of one line (without its line end).

    Raises FrameError naming the fault: not a frame, bad checksum, bad syntax. A frame
    whose checksum is the ``*`` placeholder comes back with ``checked`` False."""
    raw = bytes(line)
    if len(raw) > MAX_LINE:
        raise FrameError(E_TOOLONG, "line of %d bytes (limit %d)" % (len(raw), MAX_LINE))
    for b in raw:
        if b < 0x20 or b > 0x7E:
            raise FrameError(E_GARBAGE, "control or non-ASCII byte in %s" % snippet(raw))
    if not raw or raw[0] != START:
        raise FrameError(E_GARBAGE, "not a frame (frames start with '~'): %s" % snippet(raw))
    cut = raw.rfind(b" *")
    if cut < 0:
        raise FrameError(E_SYNTAX, "no ' *' checksum field in %s" % snippet(raw))
    crc = raw[cut + 2 :]
    if crc:
        if len(crc) != 8 or not _is_hex(crc):
            raise FrameError(E_SYNTAX, "checksum %s is not 8 hex digits" % snippet(crc))
        if int(crc, 16) != binascii.crc32(memoryview(raw)[:cut]) & 0xFFFFFFFF:
            raise FrameError(E_CRC, "checksum mismatch in %s" % snippet(raw))
    text = raw[1:cut].decode()
    sp = text.find(" ")
    if sp < 0:
        seq_text = text
        rest = ""
    else:
        seq_text = text[:sp]
        rest = text[sp + 1 :]
    if not _is_digits(seq_text) or len(seq_text) > 5 or int(seq_text) > MAX_SEQ:
        raise FrameError(E_SYNTAX, "sequence number %s is not 0..%d" % (snippet(seq_text), MAX_SEQ))
    sp = rest.find(" ")
    if sp < 0:
        verb = rest
        body = ""
    else:
        verb = rest[:sp]
        body = rest[sp + 1 :]
    if not verb or len(verb) > MAX_VERB or not verb.isalpha() or not verb.islower():
        raise FrameError(E_SYNTAX, "verb %s is not 1..%d lowercase letters" % (snippet(verb), MAX_VERB))
    return int(seq_text), verb, body, len(crc) > 0


def next_seq(seq):  # type: (int) -> int
    """The sequence number after ``seq``: 1, 2, ... MAX_SEQ, 1, ..."""
    return 1 if seq >= MAX_SEQ else seq + 1


# --- arguments -------------------------------------------------------------------------


def esc(text):  # type: (str) -> str
    """A value with no space, '%' or '*' and only printable ASCII: ``esc("a b") == "a%20b"``."""
    ok = True
    for c in text:
        if c <= " " or c > "~" or c == "%" or c == "*":
            ok = False
            break
    if ok:
        return text
    out = []
    for b in text.encode():
        if b <= 0x20 or b >= 0x7F or b == 0x25 or b == 0x2A:
            out.append("%%%02X" % b)
        else:
            out.append(chr(b))
    return "".join(out)


def unesc(text):  # type: (str) -> str
    """The inverse of ``esc``; raises FrameError for a broken ``%`` escape."""
    if "%" not in text:
        return text
    out = bytearray()
    raw = text.encode()
    i = 0
    n = len(raw)
    while i < n:
        b = raw[i]
        if b == 0x25:
            pair = raw[i + 1 : i + 3]
            if len(pair) != 2 or not _is_hex(pair):
                raise FrameError(E_ARGS, "bad %%-escape in %s" % snippet(text))
            out.append(int(pair, 16))
            i += 3
        else:
            out.append(b)
            i += 1
    try:
        return bytes(out).decode()
    except UnicodeError:
        raise FrameError(E_ARGS, "escape in %s is not UTF-8" % snippet(text))


def kv_encode(pairs):  # type: (list[tuple[str, str]]) -> str
    """``kv_encode([("game", "g1"), ("ruleset", "mosona board=open")])``
    == ``'game=g1 ruleset=mosona%20board=open'``."""
    return " ".join([k + "=" + esc(v) for k, v in pairs])


def kv_decode(body):  # type: (str) -> dict[str, str]
    """The ``key=value`` tokens of a body; FrameError for a token without ``=``."""
    out = {}  # type: dict[str, str]
    if not body:
        return out
    for token in body.split(" "):
        if not token:
            continue
        eq = token.find("=")
        if eq <= 0:
            raise FrameError(E_ARGS, "expected key=value, got %s" % snippet(token))
        out[token[:eq]] = unesc(token[eq + 1 :])
    return out


def tokens(body):  # type: (str) -> list[str]
    """Space-separated tokens of a body, empty ones (double spaces) skipped."""
    return [t for t in body.split(" ") if t]


def parse_index(text, what):  # type: (str, str) -> int
    """A non-negative decimal integer, or FrameError(args) naming ``what``."""
    if not _is_digits(text) or len(text) > 9:
        raise FrameError(E_ARGS, "%s must be a number 0..999999999, got %s" % (what, snippet(text)))
    return int(text)


def parse_digest(text):  # type: (str) -> int
    b = text.encode()
    if len(b) != 8 or not _is_hex(b):
        raise FrameError(E_ARGS, "digest must be 8 hex digits, got %s" % snippet(text))
    return int(text, 16)


# --- the game digest -------------------------------------------------------------------


def digest_seed(game):  # type: (str) -> int
    """Digest of a game with no moves: CRC-32 of its game id."""
    return binascii.crc32(game.encode()) & 0xFFFFFFFF


def digest_step(digest, move_text):  # type: (int, str) -> int
    """Digest after one more move: CRC-32 continued over a space and the move text.

    Both sides chain it over the move list, so one number (with the move count)
    says whether two histories agree."""
    d = binascii.crc32(b" ", digest)
    return binascii.crc32(move_text.encode(), d) & 0xFFFFFFFF


def hex8(value):  # type: (int) -> str
    return "%08X" % (value & 0xFFFFFFFF)


# --- incremental line assembly ----------------------------------------------------------


class LineAssembler:
    """Cuts a byte stream into lines in one fixed buffer; never grows.

    ``push(data, pos, end)`` consumes bytes up to and including the next line end
    (``\\n`` or ``\\r``) and returns the new position. Then ``ready`` says what was
    found: NONE (need more bytes, or an empty line), LINE (``line()`` is valid until the
    next push), TOOLONG (a line over ``limit`` bytes was dropped), BADBYTES (a line with
    control or non-ASCII bytes was dropped; ``bad`` holds its start for the error)::

        pos = 0
        while pos < n:
            pos = asm.push(buf, pos, n)
            if asm.ready == LINE: handle(asm.line())
    """

    def __init__(self, limit=MAX_LINE):  # type: (int) -> None
        self.limit = limit
        self.buf = bytearray(limit)
        self.view = memoryview(self.buf)
        self.n = 0
        self.state = NONE  # NONE, TOOLONG or BADBYTES while inside a line
        self.ready = NONE
        self.length = 0  # length of the line just finished (also for dropped ones)

    def push(self, data, pos, end):  # type: (bytes | bytearray | memoryview, int, int) -> int
        self.ready = NONE
        buf = self.buf
        limit = self.limit
        n = self.n
        state = self.state
        while pos < end:
            b = data[pos]
            pos += 1
            if b == 0x0A or b == 0x0D:
                self.length = n
                self.n = 0
                self.state = NONE
                if state != NONE:
                    self.ready = state
                    return pos
                if n:
                    self.ready = LINE
                    return pos
                continue  # empty line (or the \n of a \r\n): nothing
            if state == TOOLONG:
                n += 1
                continue
            if n >= limit:
                state = TOOLONG
                n += 1
                continue
            if b < 0x20 or b > 0x7E:
                state = BADBYTES
            buf[n] = b
            n += 1
        self.n = n
        self.state = state
        return pos

    def line(self):  # type: () -> memoryview
        return self.view[: self.length]

    def bad(self):  # type: () -> memoryview
        """The kept start of the line dropped as BADBYTES or TOOLONG."""
        return self.view[: min(self.length, self.limit)]
