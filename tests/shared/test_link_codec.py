"""The link codec and the board session, on both interpreters.

The session runs against an explicit in-memory port and a small fake app; times are
made up (``poll(now_ms)``), so resend and heartbeat timing is exact."""

import sys

from check import eq, raises

try:
    import zuni_link  # noqa: F401
except ImportError:
    # CPython: firmware/lib is not on the path (MicroPython's MICROPYPATH has it).
    _HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    sys.path.append(_HERE + "/../../firmware/lib")

from zuni_link import codec, commands  # noqa: E402
from zuni_link.codec import (  # noqa: E402
    BADBYTES,
    LINE,
    MAX_LINE,
    NONE,
    TOOLONG,
    FrameError,
    LineAssembler,
    decode,
    digest_seed,
    digest_step,
    encode,
    esc,
    hex8,
    kv_decode,
    kv_encode,
    next_seq,
    unesc,
)
from zuni_link.session import (  # noqa: E402
    BEAT_MS,
    HOST_TIMEOUT_MS,
    LO_BYTES,
    MAX_PENDING,
    QUEUE_BYTES,
    RESEND_MS,
    STREAM_CHUNK,
    STREAM_FRAMES,
    BoardSession,
    ticks_add,
)

# --- codec -------------------------------------------------------------------------------


def test_encode_decode_round_trip():
    cases = [
        (1, "ping", ""),
        (65535, "new", "mosona board=open"),
        (42, "move", "g1 3 n4xm5-s4xs5-m6 0123ABCD"),
        (7, "err", "3 illegal hostmove m1-m2: not a legal move *here*"),
        (0, "event", "button ok"),
    ]
    for seq, verb, body in cases:
        line = encode(seq, verb, body)
        assert line.endswith(b"\n")
        assert line.startswith(b"~")
        for b in line[:-1]:
            assert 0x20 <= b < 0x7F, line
        eq(decode(line[:-1]), (seq, verb, body, True), "round trip")


def test_checksum_is_crc32_of_the_text_before_it():
    line = encode(7, "ping")
    eq(line, b"~7 ping *FD148EF8\n")
    eq(decode(b"~7 ping *fd148ef8"), (7, "ping", "", True), "lower-case hex")


def test_placeholder_checksum_is_unchecked():
    eq(decode(b"~0 state *"), (0, "state", "", False))
    eq(decode(b"~12 moves 5 *"), (12, "moves", "5", False))


def test_every_single_byte_corruption_is_rejected():
    line = encode(513, "move", "g1 12 n4xm5-s4 0A1B2C3D")[:-1]
    for i in range(len(line)):
        for repl in (0x20, 0x2A, 0x30, 0x41, 0x7E, ord("m")):
            if line[i] == repl:
                continue
            bad = bytearray(line)
            bad[i] = repl
            try:
                got = decode(bad)
            except FrameError:
                continue
            # The only corruption that may pass: the checksum turned into the placeholder.
            assert got[3] is False and bytes(bad).endswith(b" *"), (bytes(bad), got)


def test_truncated_frames_are_rejected():
    line = encode(9, "hostmove", "m6-m5")[:-1]
    for cut in range(1, len(line)):
        part = line[:cut]
        try:
            got = decode(part)
        except FrameError:
            continue
        assert got[3] is False, part  # "~9 hostmove m6-m5 *": the placeholder form


def test_decode_errors_name_the_fault():
    cases = [
        (b"hello", "garbage", "'hello'"),
        (b"", "garbage", ""),
        (b"~1 ping", "syntax", "checksum"),
        (b"~1 ping *12", "syntax", "8 hex"),
        (b"~1 ping *ZZZZZZZZ", "syntax", "8 hex"),
        (b"~1 ping *00000000", "crc", "mismatch"),
        (b"~x1 ping *", "syntax", "sequence"),
        (b"~99999 ping *", "syntax", "sequence"),
        (b"~ ping *", "syntax", "sequence"),
        (b"~1 Ping *", "syntax", "verb"),
        (b"~1 *", "syntax", "verb"),
        (b"~1 p1ng *", "syntax", "verb"),
        (b"~1 ping\x03 *", "garbage", "\\x03"),
        (b"~1 caf\xc3\xa9 *", "garbage", "\\xc3"),
    ]
    for line, code, mention in cases:
        with raises(FrameError, mention) as r:
            decode(line)
        eq(r.value.code, code, "code for %r" % (line,))
    with raises(FrameError) as r:
        decode(b"~1 ping " + b"x" * MAX_LINE + b" *")
    eq(r.value.code, "toolong")


def test_encode_refuses_an_oversized_frame():
    with raises(FrameError, "limit"):
        encode(1, "event", "x" * MAX_LINE)


def test_sequence_numbers_wrap_to_one():
    eq(next_seq(0), 1)
    eq(next_seq(41), 42)
    eq(next_seq(65535), 1)


def test_escape_round_trip():
    for text in ("plain", "mosona board=open", "100%", "a*b", "tab\there", "naïve", "", " "):
        e = esc(text)
        assert " " not in e and "*" not in e, e
        for c in e:
            assert " " < c <= "~", e
        eq(unesc(e), text, "unesc(esc(%r))" % text)
    eq(esc("mosona board=open"), "mosona%20board=open")
    with raises(FrameError, "escape"):
        unesc("bad%2")
    with raises(FrameError, "escape"):
        unesc("bad%zz")


def test_key_values():
    pairs = [("game", "g7"), ("ruleset", "kolowis size=short"), ("moves", "12")]
    body = kv_encode(pairs)
    eq(body, "game=g7 ruleset=kolowis%20size=short moves=12")
    eq(kv_decode(body), {"game": "g7", "ruleset": "kolowis size=short", "moves": "12"})
    eq(kv_decode(""), {})
    with raises(FrameError, "key=value"):
        kv_decode("proto")
    with raises(FrameError, "key=value"):
        kv_decode("=1")


def test_digest_chain_depends_on_game_and_every_move():
    a = digest_seed("g1")
    eq(a, digest_seed("g1"))
    assert a != digest_seed("g2")
    d1 = digest_step(digest_step(a, "s3xm4-m5"), "m6-m5")
    d2 = digest_step(digest_step(a, "s3xm4-m5"), "m6-m4")
    d3 = digest_step(digest_step(a, "s3xm4-m"), "5m6-m5")  # same characters, other split
    assert d1 != d2 and d1 != d3
    eq(len(hex8(d1)), 8)


# --- line assembly -----------------------------------------------------------------------


def _lines(asm, data):
    out = []
    pos = 0
    while pos < len(data):
        pos = asm.push(data, pos, len(data))
        if asm.ready == LINE:
            out.append(("line", bytes(asm.line())))
        elif asm.ready == TOOLONG:
            out.append(("toolong", asm.length))
        elif asm.ready == BADBYTES:
            out.append(("bad", bytes(asm.bad())))
    return out


def test_assembler_joins_partial_lines_and_accepts_crlf():
    asm = LineAssembler(64)
    eq(_lines(asm, b"~1 pi"), [])
    eq(asm.ready, NONE)
    eq(_lines(asm, b"ng *\r\n\n\r~2 x *\n"), [("line", b"~1 ping *"), ("line", b"~2 x *")])


def test_assembler_drops_oversized_lines_and_recovers():
    asm = LineAssembler(16)
    size = len(asm.buf)
    got = _lines(asm, b"A" * 40 + b"\n~1 ok *\n" + b"B" * 17 + b"\r" + b"C" * 16 + b"\n")
    eq(got, [("toolong", 40), ("line", b"~1 ok *"), ("toolong", 17), ("line", b"C" * 16)])
    eq(len(asm.buf), size, "buffer never grows")
    # The oversized line arrives in pieces: still one report, at its end.
    eq(_lines(asm, b"D" * 10), [])
    eq(_lines(asm, b"D" * 10), [])
    eq(_lines(asm, b"D\n"), [("toolong", 21)])


def test_assembler_drops_lines_with_control_bytes():
    asm = LineAssembler(32)
    eq(_lines(asm, b"~1 pi\x03ng *\n~2 ping *\n"), [("bad", b"~1 pi\x03ng *"), ("line", b"~2 ping *")])
    eq(_lines(asm, b"\xff\xfe\n"), [("bad", b"\xff\xfe")])


# --- the session ---------------------------------------------------------------------------


class FakePort:
    """In-memory serial port: ``inbox`` is what the host sent, ``outbox`` what the
    board wrote. ``cap`` limits the bytes one write takes (0: the host is not reading)."""

    def __init__(self):
        self.inbox = bytearray()
        self.outbox = bytearray()
        self.cap = -1

    def read_into(self, buf):
        n = min(len(buf), len(self.inbox))
        buf[:n] = self.inbox[:n]
        self.inbox = self.inbox[n:]
        return n

    def write(self, data):
        n = len(data) if self.cap < 0 else min(self.cap, len(data))
        self.outbox += bytes(data[:n])
        return n

    def frames(self):
        """Decoded frames written so far (and forget them)."""
        out = []
        lines = bytes(self.outbox).split(b"\n")
        for line in lines[:-1]:
            out.append(decode(line))
        self.outbox = bytearray(lines[-1])  # a partly written frame stays
        return out


class FakeApp:
    """The app's side of the contract, with a list of moves and a log of commands."""

    def __init__(self, moves=None):
        self.game = "g1"
        self.ruleset = "mosona"
        self.moves = list(moves or [])
        self.commands = []
        self.hv = 1

    def hello_info(self):
        return {"fw": "0.1.0", "layout": "board25", "ruleset": self.ruleset}

    def state_info(self):
        return {
            "game": self.game,
            "ruleset": self.ruleset,
            "moves": len(self.moves),
            "hv": self.hv,
            "turn": "south",
            "occupancy": bytearray([1, 0, 1]),
        }

    def moves_from(self, index, count=-1):
        return self.moves[index:] if count < 0 else self.moves[index : index + count]

    def command(self, verb, body):
        arg = commands.parse(verb, body)  # the one check of the arguments, as BoardApp does
        if verb == "hostmove" and arg == "m1-m9":
            raise ValueError("m1-m9 is not a legal move")
        if verb == "new":
            self.game = "g%d" % (len(self.commands) + 2)
            self.ruleset = arg
            self.moves = []
            self.hv += 1
        if verb == "takeback":
            if arg is not None and arg != (self.hv, len(self.moves)):
                raise FrameError("stale", "history %r is not the board's" % (arg,))
            if not self.moves:
                raise ValueError("no move to take back")
            self.moves.pop()
            self.hv += 1
        self.commands.append((verb, arg))


def _session(moves=None):
    port = FakePort()
    app = FakeApp(moves)
    s = BoardSession(port, app, boot_id="b00t01")
    return port, app, s


def _send(port, seq, verb, body="", checked=True):
    line = encode(seq, verb, body)
    if not checked:
        line = line[: line.rfind(b" *") + 2] + b"\n"
    port.inbox += line


def _by_verb(frames, verb):
    return [f for f in frames if f[1] == verb]


def _hello(port, s, now=0):
    _send(port, 900, "hello", "proto=3 host=test sid=5e55")
    s.poll(now)
    return port.frames()


def test_boot_hello_is_sent_when_the_hosts_hello_arrives_first():
    # The host spoke before the board's first poll (it was waiting on the port through
    # the reset): its hello clears stale output, but the boot hello is news of the reset.
    port, app, s = _session(["s3xm4-m5"])
    _send(port, 900, "hello", "proto=3 host=test sid=5e55")
    s.poll(0)
    frames = port.frames()
    eq([(f[1], kv_decode(f[2])["re"]) for f in frames], [("hello", "0"), ("hello", "900")])
    eq(kv_decode(frames[0][2])["moves"], "1")
    # Written once: a second hello is answered alone.
    frames = _hello(port, s, 10)
    eq([(f[1], kv_decode(f[2])["re"]) for f in frames], [("hello", "900")])


def test_boot_hello_is_not_sent_twice_once_it_is_on_its_way():
    port, app, s = _session(["s3xm4-m5"])
    port.cap = 5  # the host reads slowly: the boot hello is being written
    s.poll(0)
    _send(port, 900, "hello", "proto=3 host=test sid=5e55")
    port.cap = -1
    s.poll(10)
    s.poll(20)
    frames = port.frames()
    eq([(f[1], kv_decode(f[2])["re"]) for f in frames], [("hello", "0"), ("hello", "900")])


def test_boot_hello_then_hello_reply_carries_the_game():
    port, app, s = _session(["s3xm4-m5", "m6-m5"])
    s.poll(0)
    boot = port.frames()
    eq([f[1] for f in boot], ["hello"])
    kv = kv_decode(boot[0][2])
    eq(kv["re"], "0")
    eq(kv["proto"], "3")
    eq(kv["hv"], "1")
    eq(kv["boot"], "b00t01")
    eq(kv["moves"], "2")
    eq(kv["layout"], "board25")
    d = digest_step(digest_step(digest_seed("g1"), "s3xm4-m5"), "m6-m5")
    eq(kv["digest"], hex8(d))
    frames = _hello(port, s, 10)
    eq(len(frames), 1)
    kv = kv_decode(frames[0][2])
    eq(kv["re"], "900")
    eq(kv["ruleset"], "mosona")
    eq(kv["game"], "g1")


def test_wrong_version_is_refused_and_changes_nothing():
    port, app, s = _session()
    s.poll(0)
    port.frames()
    _send(port, 5, "hello", "proto=1")  # an older host
    s.poll(1)
    f = port.frames()
    eq([x[1] for x in f], ["event", "err"])
    assert f[1][2].startswith("5 version board speaks link protocol 3, host offered proto=1"), f[1][2]
    assert "update" in f[1][2]
    # The older host shows the board's error events: it says the same.
    assert f[0][2].startswith("error board speaks link protocol 3"), f[0][2]
    _send(port, 6, "new", "kolowis")  # still no hello: refused
    s.poll(2)
    f = port.frames()
    assert f[0][2].startswith("6 hello "), f
    eq(app.commands, [])
    _send(port, 7, "hello", "proto=1,3")  # a host offering several versions
    s.poll(3)
    eq(port.frames()[0][1], "hello")


def test_garbage_unknown_oversized_and_placeholder_get_error_replies():
    port, app, s = _session(["s3xm4-m5"])
    _hello(port, s)
    port.inbox += b"hello board\n"
    port.inbox += b"\x03\x04\n"
    port.inbox += b"~3 fly away *\n"
    port.inbox += b"~4 ping *00000000\n"
    port.inbox += b"~5 takeback *\n"
    port.inbox += b"x" * (MAX_LINE + 5) + b"\n"
    _send(port, 8, "hostmove", "m1-m2 m3-m4")
    _send(port, 9, "raw", "maybe")
    _send(port, 10, "moves", "7")
    _send(port, 11, "ack", "g1 1")
    for t in range(30):
        s.poll(t)
    errs = [f[2] for f in port.frames() if f[1] == "err"]
    # Replies to frames come first; errors about lines that are no frames are
    # diagnostics (droppable), so they may come later.
    codes = sorted([" ".join(e.split(" ")[:2]) for e in errs])
    expected = ["0 crc", "0 garbage", "0 garbage", "0 toolong", "10 args", "11 args", "3 unknown", "5 readonly"]
    expected += ["8 args", "9 args"]
    eq(codes, sorted(expected))
    by_code = {}
    for e in errs:
        by_code[" ".join(e.split(" ")[:2])] = e
    assert "'hello board'" in errs[[e.startswith("0 garbage not a frame") for e in errs].index(True)]
    assert "fly" in by_code["3 unknown"]
    assert "moves from 7: game g1 has 1 moves" in by_code["10 args"], by_code["10 args"]
    assert "limit 512" in by_code["0 toolong"]
    eq(app.commands, [])
    eq(app.moves, ["s3xm4-m5"])


def test_illegal_host_request_is_refused_and_changes_nothing():
    port, app, s = _session(["s3xm4-m5"])
    _hello(port, s)
    _send(port, 20, "hostmove", "m1-m9")
    s.poll(1)
    f = port.frames()
    eq([x[1] for x in f], ["err"])
    assert f[0][2].startswith("20 illegal hostmove m1-m9: m1-m9 is not a legal move"), f[0][2]
    eq(app.moves, ["s3xm4-m5"])


def test_commands_reach_the_app_and_are_acknowledged():
    port, app, s = _session()
    _hello(port, s)
    requests = [
        ("new", "mosona  board=open", ("new", "mosona board=open")),
        ("hostmove", "s3xm4-m5", ("hostmove", "s3xm4-m5")),
        ("hint", "", ("hint", "")),
        ("hint", "m6-m5", ("hint", "m6-m5")),
        ("ledtest", "", ("ledtest", 0)),
        ("raw", "on", ("raw", "on")),
        ("resign", "north", ("resign", "north")),
        ("agree", "count", ("agree", "count")),
        ("button", "ok", ("button", "ok")),
        ("ledtest", "walk  40", ("ledtest", 40)),
    ]
    seq = 30
    for verb, body, expected in requests:
        seq += 1
        _send(port, seq, verb, body)
        s.poll(seq)
        f = port.frames()
        eq([x[1] for x in f], ["ok"], verb)
        kv = kv_decode(f[0][2].split(" ", 1)[1])
        eq(f[0][2].split(" ")[0], str(seq))
        eq(kv["game"], app.game)
        eq(kv["hv"], str(app.hv))
        eq(app.commands[-1], expected)


def test_a_resent_request_is_done_once():
    port, app, s = _session(["s3xm4-m5", "m6-m5"])
    _hello(port, s)
    _send(port, 40, "takeback")
    s.poll(1)
    first = port.frames()
    _send(port, 40, "takeback")  # the reply was lost: the host asks again
    s.poll(2)
    second = port.frames()
    eq(app.moves, ["s3xm4-m5"])
    eq(len(app.commands), 1)
    eq(second[0][1:], first[0][1:])
    _send(port, 41, "takeback")  # a new request is done again
    s.poll(3)
    eq(app.moves, [])


def test_a_request_resent_after_the_host_reconnects_is_done_once():
    # The board did the take-back, the reply was lost, the host reconnected (hello) and
    # sends the same request again: the board answers with the stored reply.
    port, app, s = _session(["s3xm4-m5", "m6-m5"])
    _hello(port, s)
    _send(port, 40, "takeback")
    s.poll(1)
    first = port.frames()
    _hello(port, s, 2)
    _send(port, 40, "takeback")
    s.poll(3)
    second = port.frames()
    eq(app.moves, ["s3xm4-m5"])
    eq(len(app.commands), 1)
    eq(_by_verb(second, "ok")[0][1:], first[0][1:])
    # The same seq with another request (a new host that happened to pick it) is done.
    _send(port, 40, "new", "kolowis")
    s.poll(4)
    eq(app.commands[-1], ("new", "kolowis"))


def test_a_resent_request_is_answered_with_the_history_as_it_is_now():
    # The first reply is late; meanwhile a move is committed. The reply to the resend
    # must not carry the old move count (the host read it as a take-back).
    port, app, s = _session(["s3xm4-m5"])
    _hello(port, s)
    _send(port, 40, "hostmove", "m6-m5")
    s.poll(1)
    first = kv_decode(_by_verb(port.frames(), "ok")[0][2].split(" ", 1)[1])
    eq(first["moves"], "1")
    app.moves.append("m6-m5")
    s.send_move(1, "m6-m5")
    _send(port, 40, "hostmove", "m6-m5")
    s.poll(2)
    again = _by_verb(port.frames(), "ok")
    eq(len(again), 1)
    kv = kv_decode(again[0][2].split(" ", 1)[1])
    eq((kv["moves"], kv["hv"]), ("2", "1"), "the history now")
    eq(len(app.commands), 1, "done once")


def test_a_refused_request_resent_gets_the_same_refusal():
    port, app, s = _session(["s3xm4-m5"])
    _hello(port, s)
    _send(port, 41, "hostmove", "m1-m9")
    _send(port, 41, "hostmove", "m1-m9")
    s.poll(1)
    errs = [f[2] for f in _by_verb(port.frames(), "err")]
    eq(len(errs), 2)
    eq(errs[0], errs[1])
    assert errs[0].startswith("41 illegal hostmove m1-m9"), errs
    eq(app.commands, [])


def test_a_new_host_session_is_never_answered_from_the_old_hosts_request():
    port, app, s = _session(["s3xm4-m5"])
    _hello(port, s)  # host session 5e55
    _send(port, 40, "new", "kolowis")
    s.poll(1)
    port.frames()
    # A restarted host whose random first seq (and request) is the old host's.
    _send(port, 901, "hello", "proto=3 host=test sid=0dd1")
    _send(port, 40, "new", "kolowis")
    s.poll(2)
    f = port.frames()
    eq([x[1] for x in f], ["hello", "ok"])
    eq(app.commands, [("new", "kolowis"), ("new", "kolowis")], "a new request, done")
    # A person's hello (no sid) forgets it too.
    _send(port, 0, "hello", "proto=3", checked=False)
    _send(port, 40, "new", "kolowis")
    s.poll(3)
    eq(len(app.commands), 3)


def test_a_take_back_is_never_done_twice_across_a_board_reset():
    # The board takes the move back and is reset before its reply goes out: it forgot
    # the request. The host's resend names the history it took the move from, which is
    # no longer the board's: refused, nothing taken back again.
    port, app, s = _session(["s3xm4-m5", "m6-m5"])
    _hello(port, s)
    _send(port, 40, "takeback", "1 2")
    s.poll(1)
    eq(app.moves, ["s3xm4-m5"])
    port.frames()
    s2 = BoardSession(port, app, boot_id="b00t02")  # reset: a new session, same app (journal)
    s2.poll(10)
    _send(port, 900, "hello", "proto=3 host=test sid=5e55")
    _send(port, 40, "takeback", "1 2")
    s2.poll(11)
    f = port.frames()
    errs = [x[2] for x in _by_verb(f, "err")]
    eq(len(errs), 1)
    assert errs[0].startswith("40 stale history (1, 2)"), errs
    eq(app.moves, ["s3xm4-m5"], "taken back once")
    eq(kv_decode(_by_verb(f, "hello")[-1][2])["hv"], "2")


def test_read_only_commands_work_with_the_placeholder_without_hello():
    port, app, s = _session(["s3xm4-m5"])
    s.poll(0)
    port.frames()
    _send(port, 0, "state", "", checked=False)
    _send(port, 0, "ping", "", checked=False)
    _send(port, 0, "ledtest", "", checked=False)
    s.poll(1)
    f = port.frames()
    eq([x[1] for x in f], ["state", "ok", "ok"])
    kv = kv_decode(f[0][2])
    eq(kv["occupancy"], "101")
    eq(kv["moves"], "1")
    eq(kv["turn"], "south")
    eq(app.commands, [("ledtest", 0)])


def test_moves_are_resent_until_acknowledged():
    port, app, s = _session()
    _hello(port, s, 0)
    s.poll(10)
    app.moves.append("s3xm4-m5")
    s.send_move(0, "s3xm4-m5")
    s.poll(10)
    f = _by_verb(port.frames(), "move")
    d1 = digest_step(digest_seed("g1"), "s3xm4-m5")
    eq(f[0][2], "g1 0 s3xm4-m5 " + hex8(d1) + " 1")
    s.poll(10 + RESEND_MS - 1)
    eq(_by_verb(port.frames(), "move"), [], "not before RESEND_MS")
    _send(port, 50, "ack", "g1 0 " + hex8(digest_seed("g1")))  # acks nothing new
    s.poll(10 + RESEND_MS)
    eq(len(_by_verb(port.frames(), "move")), 1, "resent")
    _send(port, 51, "ack", "g1 1 00000000")  # wrong digest: not our history
    s.poll(20 + 2 * RESEND_MS)
    eq(len(_by_verb(port.frames(), "move")), 1, "resent after a wrong ack")
    _send(port, 52, "ack", "g1 1 " + hex8(d1))
    s.poll(30 + 3 * RESEND_MS)
    s.poll(40 + 9 * RESEND_MS)
    eq(_by_verb(port.frames(), "move"), [], "acknowledged: no more resends")
    eq(s.resent, 2)


def test_no_resend_while_the_host_is_away():
    port, app, s = _session()
    _hello(port, s, 0)
    app.moves.append("s3xm4-m5")
    s.send_move(0, "s3xm4-m5")
    t = HOST_TIMEOUT_MS + 1
    s.poll(t)
    port.frames()
    s.poll(t + 5 * RESEND_MS)
    eq(_by_verb(port.frames(), "move"), [])
    _send(port, 60, "ping")  # the host is back: resend at once
    s.poll(t + 5 * RESEND_MS + 1)
    eq(len(_by_verb(port.frames(), "move")), 1)


def test_take_back_then_another_move_rewrites_the_history():
    port, app, s = _session()
    _hello(port, s, 0)
    for i, m in enumerate(["s3xm4-m5", "m6-m5", "s4-m6"]):
        app.moves.append(m)
        s.send_move(i, m)
    app.moves[1:] = ["m6-m4"]
    s.send_move(1, "m6-m4")
    s.poll(1)
    moves = [f[2].split(" ") for f in _by_verb(port.frames(), "move")]
    eq([m[1:3] for m in moves], [["0", "s3xm4-m5"], ["1", "m6-m5"], ["2", "s4-m6"], ["1", "m6-m4"]])
    d = digest_step(digest_step(digest_seed("g1"), "s3xm4-m5"), "m6-m4")
    eq(moves[-1][3], hex8(d))
    s.poll(2 + RESEND_MS)
    again = [f[2].split(" ")[1:3] for f in _by_verb(port.frames(), "move")]
    eq(again, [["0", "s3xm4-m5"], ["1", "m6-m4"]], "only the current history is resent")


def test_take_back_by_the_board_shows_in_state_and_heartbeat():
    port, app, s = _session(["s3xm4-m5", "m6-m5"])
    s.poll(0)
    port.frames()
    app.moves.pop()
    app.hv += 1
    s.send_state()
    s.poll(1)
    s.poll(BEAT_MS)
    f = port.frames()
    eq([x[1] for x in f], ["state", "beat"])
    d = hex8(digest_step(digest_seed("g1"), "s3xm4-m5"))
    eq(kv_decode(f[0][2])["moves"], "1")
    eq(kv_decode(f[0][2])["digest"], d)
    eq(kv_decode(f[0][2])["hv"], "2")
    eq(f[1][2], "g1 1 " + d + " 2 b00t01", "game, moves, digest, history version, boot")


def test_heartbeat_every_beat_interval_even_with_ticks_wrapping():
    port, app, s = _session()
    period = ticks_add(0, -1) + 1  # 2**30 on the Pico (and the CPython fallback)
    start = period - 500  # just before the ticks wrap
    s.poll(start)
    port.frames()
    beats = 0
    t = start
    for _ in range(50):
        t = ticks_add(t, 100)
        s.poll(t)
        beats += len(_by_verb(port.frames(), "beat"))
    eq(beats, 5000 // BEAT_MS)


def test_moves_request_streams_a_long_game_through_a_slow_port():
    moves = ["m%d-m%d" % (i % 9 + 1, i % 7 + 1) for i in range(200)]
    port, app, s = _session(moves)
    _hello(port, s, 0)
    port.cap = 40  # a slow host
    _send(port, 70, "moves", "0")
    got = []
    oks = []
    for t in range(1, 3000):
        s.poll(t)
        assert s.queued_bytes() <= QUEUE_BYTES
        f = port.frames()
        got += [x[2].split(" ") for x in _by_verb(f, "move")]
        oks += _by_verb(f, "ok")
        if oks:
            break
    eq([int(m[1]) for m in got], list(range(200)))
    d = digest_seed("g1")
    for i in range(200):
        m = got[i]
        d = digest_step(d, moves[i])
        eq(m[3], hex8(d), "digest of move %s" % m[1])
    kv = kv_decode(oks[0][2].split(" ", 1)[1])
    eq(kv["moves"], "200")
    eq(kv["digest"], hex8(d))
    eq(s.out.dropped, 0)


class CountingApp(FakeApp):
    """FakeApp that records how many move texts each ``moves_from`` call made."""

    def __init__(self, moves):
        FakeApp.__init__(self, moves)
        self.made = []

    def moves_from(self, index, count=-1):
        out = FakeApp.moves_from(self, index, count)
        self.made.append(len(out))
        return out


def test_moves_reply_of_a_long_game_is_made_a_few_moves_a_poll():
    moves = ["m%d-m%d" % (i % 9 + 1, i % 7 + 1) for i in range(400)]
    port = FakePort()
    app = CountingApp(moves)
    s = BoardSession(port, app, boot_id="b00t01")
    _hello(port, s, 0)
    app.made = []
    _send(port, 71, "moves", "0")
    per_poll = []
    got = []
    for t in range(1, 1000):
        s.poll(t)
        f = port.frames()
        sent = _by_verb(f, "move")
        per_poll.append(len(sent))
        got += [int(x[2].split(" ")[1]) for x in sent]
        if _by_verb(f, "ok"):
            break
    eq(got, list(range(400)), "every move, in order")
    eq(max(per_poll), STREAM_FRAMES, "at most STREAM_FRAMES move frames a poll")
    eq(max(app.made), STREAM_CHUNK, "the app makes at most STREAM_CHUNK texts at a time")
    eq(sum(app.made), 400, "each text made once")


def test_moves_reply_ends_where_a_take_back_shortened_the_game():
    moves = ["m%d-m%d" % (i % 9 + 1, i % 7 + 1) for i in range(40)]
    port, app, s = _session(moves)
    _hello(port, s, 0)
    _send(port, 72, "moves", "0")
    s.poll(1)
    del app.moves[20:]  # (the board took moves back while the reply went out)
    got = []
    oks = []
    for t in range(2, 200):
        s.poll(t)
        f = port.frames()
        got += _by_verb(f, "move")
        oks += _by_verb(f, "ok")
        if oks:
            break
    assert oks, "the reply ended"
    assert len(got) <= 20, "no move past the game's end (%d sent)" % len(got)


def test_queue_stays_bounded_and_drops_diagnostics_first():
    port, app, s = _session()
    _hello(port, s, 0)
    port.cap = 0  # the host holds the port open but does not read
    for _ in range(200):
        s.send_event("raw", "1" * 25)
        s.poll(1)
        assert s.queued_bytes() <= QUEUE_BYTES
    eq(s.queued_bytes() <= LO_BYTES, True, "diagnostics use at most LO_BYTES")
    dropped_raw = s.out.dropped
    assert dropped_raw > 150, dropped_raw
    for i in range(MAX_PENDING):
        app.moves.append("m%d-m%d" % (i, i + 1))
        s.send_move(i, app.moves[-1])
        s.poll(2)
        assert s.queued_bytes() <= QUEUE_BYTES
    port.cap = -1
    s.poll(3)
    for _ in range(20):
        s.poll(3)
    f = port.frames()
    moves = _by_verb(f, "move")
    eq(len(moves), MAX_PENDING, "every move kept while raw events went")
    raws = [x for x in f if x[1] == "event"]
    assert len(raws) < 20, len(raws)


def test_writes_may_be_partial_and_frames_never_interleave():
    port, app, s = _session(["s3xm4-m5"])
    s.poll(0)
    port.cap = 3
    s.send_event("button", "ok")
    s.send_event("raw", "0101")
    for t in range(1, 200):
        s.poll(t)
    f = port.frames()
    eq([x[1] for x in f][:3], ["hello", "event", "event"])


def test_new_game_from_the_host_resets_the_history():
    port, app, s = _session(["s3xm4-m5", "m6-m5"])
    _hello(port, s, 0)
    _send(port, 80, "new", "kolowis size=short")
    s.poll(1)
    f = port.frames()
    kv = kv_decode(f[0][2].split(" ", 1)[1])
    eq(kv["moves"], "0")
    eq(kv["game"], app.game)
    assert app.game != "g1"
    eq(kv["digest"], hex8(digest_seed(app.game)))


def test_journal_resume_rebuilds_the_chain_from_the_app():
    # The app resumed 3 moves from flash and then commits a 4th: the session never
    # saw the first three, and its digests still come out right.
    moves = ["s3xm4-m5", "m6-m5", "s4-m6"]
    port, app, s = _session(moves)
    app.moves.append("m4-m3")
    s.send_move(3, "m4-m3")
    s.poll(0)
    f = _by_verb(port.frames(), "move")
    d = digest_seed("g1")
    for m in app.moves:
        d = digest_step(d, m)
    eq(f[0][2], "g1 3 m4-m3 " + hex8(d) + " 1")


def test_the_app_failing_gives_an_internal_error_not_a_crash():
    port, app, s = _session()

    def broken(name, arg):
        raise KeyError("boom")

    app.command = broken
    _hello(port, s)
    _send(port, 90, "takeback")
    s.poll(1)
    f = port.frames()
    assert f[0][2].startswith("90 internal takeback"), f


def test_idle_poll_does_not_allocate():
    try:
        import micropython
    except ImportError:
        return
    if not hasattr(micropython, "heap_lock"):
        return
    port, app, s = _session(["s3xm4-m5"])
    s.poll(0)
    for _ in range(5):
        s.poll(1)
    port.frames()

    class IdlePort:
        def read_into(self, buf):
            return 0

        def write(self, data):
            return 0

    s.port = IdlePort()
    micropython.heap_lock()
    try:
        for t in range(2, 100):
            s.poll(t)
    finally:
        micropython.heap_unlock()
    eq(codec.PROTO, 3)


def test_one_command_table_names_every_handler_and_checks_every_argument():
    from zuni_board.hostcmd import HostCommands

    for verb, flags, _kind, _choices, handler in commands.COMMANDS:
        owner = BoardSession if flags & commands.LINK else HostCommands
        assert hasattr(owner, handler), (verb, handler)
        if not flags & commands.LINK:
            eq(commands.method(verb), handler)
    eq(commands.parse("takeback", ""), None)
    eq(commands.parse("takeback", " 3  12 "), (3, 12))
    eq(commands.parse("ledtest", "walk"), 250)
    eq(commands.parse("new", "kolowis  size=short"), "kolowis size=short")
    eq(commands.parse("ack", "g%201 4 0000000A"), ("g 1", 4, 10))
    for verb, body, named in (
        ("takeback", "3", "<hv> <moves>"),
        ("takeback", "x 1", "'x'"),
        ("ledtest", "walk 19", "20..5000"),
        ("resign", "nobody", "south|west|north|east"),
        ("hostmove", "", "one move"),
        ("ping", "now", "no arguments"),
        ("moves", "-1", "'-1'"),
    ):
        with raises(FrameError, named) as r:
            commands.parse(verb, body)
        eq(r.value.code, "args", verb)
    with raises(FrameError, "unknown verb 'fly'"):
        commands.parse("fly", "")
    with raises(FrameError, "not a board command"):
        commands.method("hello")
