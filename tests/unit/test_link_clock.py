"""The board link's behaviours on a virtual clock: hello and its resends, requests
resent until answered and ended at their deadline, keep-alive and silence, unplug and
replug, a board reset that forgot a request, the sync of moves, the typed events.

No thread and no real time: the test is the port thread. It attaches a ``FakePort``
(bytes in, bytes out) to ``BoardLink.port``, calls the link's ``idle(now)`` and
``line(line, now)`` with times it chooses, and a ``FakeBoard`` reads the host's frames
from the port and answers as the firmware's session does (docs/protocol.md). The real
path (the firmware under MicroPython on a pty) is tests/e2e/test_link_e2e.py.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from zuni_link import codec
from zuniboard.link.client import (
    FETCH_RETRY_S,
    HELLO_RESEND_S,
    HELLO_TRIES,
    KEEPALIVE_S,
    SILENCE_S,
    BoardLink,
    LinkError,
)
from zuniboard.link.events import (
    Answered,
    BoardEvent,
    BoardRestarted,
    Connected,
    Disconnected,
    Failed,
    LinkEvent,
    LinkFault,
    Moved,
    Refused,
    RequestResult,
    Reset,
    StateSent,
    Undone,
    Woken,
)
from zuniboard.link.mirror import digest_of
from zuniboard.link.requests import REQUEST_RESEND_S

BEAT_S = 2.0  # the board's heartbeat (zuni_link.session.BEAT_MS)
MOVES = ["s3xm4-m5", "n4xm5-s4", "m6-m5", "n5-m6"]  # as text only: the fake board checks nothing


class FakePort:
    """A port that keeps what the host wrote."""

    def __init__(self) -> None:
        self.written = bytearray()
        self.closed = False

    @property
    def in_waiting(self) -> int:
        return 0

    def read(self, size: int = 1) -> bytes:
        return b""

    def write(self, data: bytes) -> int | None:
        if self.closed:
            raise OSError("the port is closed")
        self.written += data
        return len(data)

    def close(self) -> None:
        self.closed = True

    def frames(self) -> list[tuple[int, str, str]]:
        """The host's frames since the last call: (seq, verb, body)."""
        lines = bytes(self.written).split(b"\n")
        self.written = bytearray(lines.pop())
        out = []
        for line in lines:
            seq, verb, body, _ = codec.decode(line)
            out.append((seq, verb, body))
        return out


class FakeBoard:
    """The board's side of the protocol, enough for the link: one game, its history
    version and boot id; it answers hello, state, moves, ping and the game's requests,
    remembering the last request (seq) of the host's session as the firmware does."""

    def __init__(self, moves: list[str] | None = None) -> None:
        self.game = "g1"
        self.hv = 1
        self.boot = "b1"
        self.moves = list(moves or [])
        self.sid = ""
        self.said_hello = False
        self.last: tuple[int, str] | None = None  # (seq, reply) of the last request done
        self.done: list[tuple[str, str]] = []  # the requests it carried out
        self.answer = True  # False: does what it hears, its replies are lost on the way
        self.hear = True  # False: the host's frames are lost on their way to the board
        self.beating = True  # a beat every BEAT_S (the board's heartbeat: no silence)
        self.mute_moves = False  # the replies to ``moves`` are lost
        self.refuse: dict[str, tuple[str, str]] = {}  # verb -> (code, message)
        self.seq = 100

    def digest(self) -> str:
        return codec.hex8(digest_of(self.game, self.moves))

    def triple(self) -> str:
        return "game=%s moves=%d digest=%s hv=%d" % (self.game, len(self.moves), self.digest(), self.hv)

    def frame(self, verb: str, body: str) -> bytes:
        self.seq += 1
        return codec.encode(self.seq, verb, body).rstrip(b"\n")

    def hello(self, re: int) -> bytes:
        return self.frame(
            "hello",
            "re=%d proto=%d layout=board25 ruleset=mosona %s boot=%s" % (re, codec.PROTO, self.triple(), self.boot),
        )

    def state(self, re: int) -> bytes:
        return self.frame("state", "re=%d %s ruleset=mosona phase=play" % (re, self.triple()))

    def move(self, index: int) -> bytes:
        game = digest_of(self.game, self.moves[: index + 1])
        return self.frame("move", "%s %d %s %s %d" % (self.game, index, self.moves[index], codec.hex8(game), self.hv))

    def play(self, text: str) -> bytes:
        self.moves.append(text)
        return self.move(len(self.moves) - 1)

    def serve(self, port: FakePort) -> list[bytes]:
        """The board's lines in answer to what the host wrote."""
        out: list[bytes] = []
        for seq, verb, body in port.frames():
            if not self.hear:
                continue
            reply = self._answer(seq, verb, body)
            if self.answer and not (verb == "moves" and self.mute_moves):
                out += reply
        return out

    def beat(self) -> bytes:
        return self.frame("beat", "%s %d %s %d %s" % (self.game, len(self.moves), self.digest(), self.hv, self.boot))

    def _answer(self, seq: int, verb: str, body: str) -> list[bytes]:
        if verb == "hello":
            sid = codec.kv_decode(body).get("sid", "")
            if sid != self.sid:
                self.last = None  # another host session: its requests are forgotten
            self.sid, self.said_hello = sid, True
            return [self.hello(seq)]
        if verb == "ack":
            return []
        if verb == "state":
            return [self.state(seq)]
        if verb == "moves":
            return [self.move(i) for i in range(int(body), len(self.moves))]
        if verb == "ping":
            return [self.frame("ok", "%d %s" % (seq, self.triple()))]
        if not self.said_hello:
            return [self.frame("err", "%d %s say hello first" % (seq, codec.E_HELLO))]
        if self.last is not None and self.last[0] == seq:  # a resend: done once, answered again
            return [self.frame("ok", "%d %s" % (seq, self.triple()))]
        if verb in self.refuse:
            code, message = self.refuse[verb]
            return [self.frame("err", "%d %s %s" % (seq, code, message))]
        if verb == "takeback":
            if body and body != "%d %d" % (self.hv, len(self.moves)):
                return [self.frame("err", "%d %s history gone" % (seq, codec.E_STALE))]
            self.moves.pop()
            self.hv += 1
        self.done.append((verb, body))
        self.last = (seq, verb)
        return [self.frame("ok", "%d %s" % (seq, self.triple()))]

    def reset(self) -> None:
        """A power cycle: same journal (game, moves, hv), a new boot, nobody known."""
        self.boot = "b%d" % (int(self.boot[1:]) + 1)
        self.said_hello = False
        self.last = None
        self.sid = ""


class Rig:
    """A link, a fake board and a virtual clock, the test turning the crank."""

    def __init__(self, board: FakeBoard | None = None) -> None:
        self.board = board or FakeBoard()
        self.now = 1000.0
        self.link = BoardLink("fake://board", clock=self.clock)
        self.port = FakePort()
        self.results: list[RequestResult] = []
        self.beat_at = self.now
        self.link.port.attach(self.port, self.now)

    def clock(self) -> float:
        return self.now

    def run(self, seconds: float, step: float = 0.05) -> None:
        """The port thread's loop for ``seconds`` of virtual time: idle, the board's answers."""
        end = self.now + seconds
        while True:
            self.link.router.idle(self.now)
            for line in self.board.serve(self.port):
                self.link.router.line(line, self.now)
            if self.board.beating and self.link.connected and self.now >= self.beat_at:
                self.beat_at = self.now + BEAT_S
                self.link.router.line(self.board.beat(), self.now)
            if self.now >= end:
                return
            self.now = min(end, self.now + step)

    def connect(self) -> None:
        self.run(0.0)
        assert self.link.connected
        self.run(0.2)
        assert self.link.synced()

    def begin(self, call: str, *args: str, timeout: float = 10.0) -> None:
        self.link.begin(call, tuple(args), self.now, self.results.append, timeout)

    def events(self) -> list[LinkEvent]:
        out = []
        while not self.link.events.empty():
            out.append(self.link.events.get_nowait())
        return out

    def replug(self) -> None:
        """A new port (the thread opened the device again)."""
        self.port = FakePort()
        self.link.port.attach(self.port, self.now)


def test_hello_is_said_again_every_half_second_until_the_board_answers_then_the_port_is_reopened() -> None:
    rig = Rig()
    rig.board.answer = False
    hellos = 0
    for _ in range(HELLO_TRIES):
        rig.link.router.idle(rig.now)
        hellos += sum(1 for _, verb, _ in rig.port.frames() if verb == "hello")
        rig.link.router.idle(rig.now + HELLO_RESEND_S * 0.9)  # not yet
        assert rig.port.frames() == []
        rig.now += HELLO_RESEND_S
    assert hellos == HELLO_TRIES
    with pytest.raises(LinkError, match="no hello"):
        rig.link.router.idle(rig.now)
    assert not rig.link.connected


def test_connect_syncs_the_moves_the_board_made_before_the_host_came() -> None:
    rig = Rig(FakeBoard(MOVES[:3]))
    rig.connect()
    assert rig.link.moves == MOVES[:3]
    assert rig.link.ruleset == "mosona" and rig.link.hello["boot"] == "b1"
    events = rig.events()
    assert isinstance(events[0], Connected) and events[0].url == "fake://board"
    assert [e for e in events if isinstance(e, Moved)] == [Moved(i, t) for i, t in enumerate(MOVES[:3])]


def test_the_moves_are_asked_for_again_only_after_the_fetch_retry() -> None:
    rig = Rig(FakeBoard(MOVES[:2]))
    rig.board.mute_moves = True  # the move frames are lost
    rig.board.beating = False
    rig.run(0.0)
    assert rig.link.connected and rig.link.moves == [] and not rig.link.synced()
    asked = []
    start = rig.now
    while rig.now < start + FETCH_RETRY_S - 0.1:  # the board's word, again and again
        rig.link.router.line(rig.board.beat(), rig.now)
        asked += [(rig.now, body) for _, verb, body in rig.port.frames() if verb == "moves"]
        rig.now += 0.1
    assert [body for _, body in asked] == ["0"], "asked once within the retry interval: %r" % asked
    rig.now = asked[0][0] + FETCH_RETRY_S
    rig.link.router.line(rig.board.beat(), rig.now)
    assert [body for _, verb, body in rig.port.frames() if verb == "moves"] == ["0"], "and again after it"
    rig.board.mute_moves = False
    rig.now += FETCH_RETRY_S
    rig.link.router.line(rig.board.beat(), rig.now)
    rig.run(0.0)
    assert rig.link.moves == MOVES[:2] and rig.link.synced()


def test_a_request_returns_at_once_is_resent_every_half_second_and_answered_once() -> None:
    rig = Rig(FakeBoard(MOVES[:1]))
    rig.connect()
    rig.board.answer = False
    rig.begin("host_move", "n4xm5-s4")
    assert rig.results == [], "begin does not wait"
    rig.run(REQUEST_RESEND_S * 3 + 0.1)
    sent = rig.board.done
    assert sent == [("hostmove", "n4xm5-s4")], "done once however often it came"
    assert rig.link.stats.resends >= 3
    rig.board.answer = True
    rig.run(REQUEST_RESEND_S)
    assert len(rig.results) == 1 and isinstance(rig.results[0], Answered)
    assert rig.results[0].call == "host_move" and rig.results[0].fields["moves"] == "1"
    rig.run(2.0)
    assert len(rig.results) == 1, "a late reply to a resend is not a second result"


def test_a_request_with_no_answer_fails_at_its_deadline_and_not_before() -> None:
    rig = Rig()
    rig.connect()
    rig.board.answer = False
    rig.begin("hint", "m6-m5", timeout=10.0)
    rig.run(9.9)
    assert rig.results == []
    rig.run(0.15)
    assert rig.results == [Failed("hint", ("m6-m5",), "no reply to hint within 10.0 s")]
    assert rig.link.requests.outstanding() == 0


def test_a_refusal_is_a_typed_result_with_the_boards_code() -> None:
    rig = Rig()
    rig.connect()
    rig.board.refuse["hostmove"] = (codec.E_ILLEGAL, "m1-m9 is not a move")
    rig.begin("host_move", "m1-m9")
    rig.run(0.1)
    assert rig.results == [Refused("host_move", ("m1-m9",), codec.E_ILLEGAL, "m1-m9 is not a move")]


def test_the_host_acks_every_one_and_a_half_seconds_and_reopens_after_silence() -> None:
    rig = Rig()
    rig.connect()
    start = rig.now
    acks = []
    while rig.now < start + 3 * KEEPALIVE_S + 0.01:
        rig.link.router.idle(rig.now)
        acks += [rig.now for _, verb, _ in rig.port.frames() if verb == "ack"]
        rig.now += 0.05
    assert len(acks) == 3, acks
    assert all(b - a == pytest.approx(KEEPALIVE_S, abs=0.06) for a, b in itertools.pairwise(acks))
    heard = rig.now
    rig.link.router.line(rig.board.beat(), heard)
    rig.link.router.idle(heard + SILENCE_S - 0.1)
    assert rig.link.connected
    with pytest.raises(LinkError, match="silent"):
        rig.link.router.idle(heard + SILENCE_S + 0.1)


def test_unplugged_a_request_waits_then_goes_once_the_board_is_back() -> None:
    rig = Rig(FakeBoard(MOVES[:2]))
    rig.connect()
    rig.events()
    rig.link.router.dropped("unplugged")  # the port thread lost the device
    assert rig.events() == [Disconnected("unplugged")] and not rig.link.connected
    rig.begin("hint", "m6-m5", timeout=10.0)
    for _ in range(40):  # 2 s with no port: the thread ticks between attempts to open
        rig.now += 0.05
        rig.link.router.closed_tick(rig.now)
    assert rig.results == [] and rig.board.done == []
    moves_meanwhile = [rig.board.play(MOVES[2])]  # made while away; its frame is lost
    assert moves_meanwhile
    rig.replug()
    rig.run(0.5)
    assert rig.link.connected
    assert [type(r) for r in rig.results] == [Answered] and rig.board.done == [("hint", "m6-m5")]
    assert rig.link.moves == MOVES[:3], "the move made while unplugged came with the new hello"
    assert Moved(2, MOVES[2]) in rig.events()


def test_unplugged_past_the_deadline_the_request_fails_while_the_port_is_closed() -> None:
    rig = Rig()
    rig.connect()
    rig.link.router.dropped("unplugged")
    rig.begin("state", timeout=3.0)
    while rig.now < 1000.0 + 10:
        rig.now += 0.25
        rig.link.router.closed_tick(rig.now)
    assert rig.results == [Failed("state", (), "no reply to state within 3.0 s")]


def test_a_take_back_done_before_a_board_reset_is_not_done_again() -> None:
    """The board takes the move back, its reply is lost, it is reset: after the new
    hello the host asks the state first and finds the take-back done."""
    rig = Rig(FakeBoard(MOVES[:3]))
    rig.connect()
    rig.board.answer = False  # the board does it, its reply is lost
    rig.begin("take_back")
    rig.run(0.1)
    assert rig.board.moves == MOVES[:2]
    rig.board.reset()
    rig.board.answer = True
    rig.link.router.line(rig.board.hello(0), rig.now)  # the boot hello: register again
    rig.run(1.0)
    assert [type(r) for r in rig.results] == [Answered], rig.results
    assert rig.board.moves == MOVES[:2], "one move taken back, not two"
    assert rig.link.stats.already_done == 1
    assert rig.link.moves == MOVES[:2]
    events = rig.events()
    assert Undone(2) in events and BoardRestarted("b2") in events


def test_a_request_the_reset_board_refuses_as_unknown_is_sent_again_after_hello() -> None:
    rig = Rig()
    rig.connect()
    rig.board.reset()  # forgot this host; the host has not heard the boot hello yet
    rig.begin("host_move", "s3xm4-m5")
    rig.run(0.1)
    assert rig.link.connected is False or rig.board.said_hello
    rig.run(1.0)
    assert [type(r) for r in rig.results] == [Answered]
    assert rig.board.done == [("hostmove", "s3xm4-m5")]


def test_a_stale_take_back_whose_history_is_gone_is_refused() -> None:
    rig = Rig(FakeBoard(MOVES[:3]))
    rig.connect()
    rig.board.hear = False
    rig.begin("take_back")  # names hv 1, 3 moves
    rig.run(0.0)
    rig.board.moves.pop()  # the player took it back on the board, and played on
    rig.board.moves.append(MOVES[3])
    rig.board.hv += 1
    rig.board.hear = True
    rig.run(1.0)
    assert len(rig.results) == 1 and isinstance(rig.results[0], Refused)
    assert rig.results[0].code == codec.E_STALE
    assert rig.board.moves == MOVES[:2] + [MOVES[3]]


def test_new_game_asks_the_state_before_it_says_done() -> None:
    rig = Rig(FakeBoard(MOVES[:2]))
    rig.connect()
    rig.board.refuse["new"] = (codec.E_ILLEGAL, "no such ruleset")
    rig.begin("new_game", "wobbly", "", "")
    rig.run(0.1)
    assert rig.results == [Refused("new_game", ("wobbly", "", ""), codec.E_ILLEGAL, "no such ruleset")]
    rig.board.refuse.clear()
    rig.board.refuse["setup"] = (codec.E_UNKNOWN, "unknown verb 'setup'")
    rig.begin("new_game", "", "mosona | south to move | south s3 | north m4", "")
    rig.run(0.1)
    last = rig.results[-1]
    assert isinstance(last, Refused) and "firmware is too old" in last.message
    rig.begin("new_game", "kolowis", "", "")
    rig.run(0.1)
    verbs = [v for v, _ in rig.board.done]
    assert verbs[-1] == "new" and isinstance(rig.results[-1], Answered)


def test_the_boards_frames_become_typed_events() -> None:
    rig = Rig(FakeBoard(MOVES[:1]))
    rig.connect()
    rig.events()
    rig.link.router.line(rig.board.frame("event", "button hint"), rig.now)
    rig.link.router.line(rig.board.frame("event", "ledwalk 3 m4"), rig.now)
    rig.link.router.line(rig.board.frame("state", "re=0 %s phase=over" % rig.board.triple()), rig.now)
    rig.link.router.line(rig.board.frame("err", "0 %s line 7 too long" % codec.E_ARGS), rig.now)
    rig.link.router.line(b"MicroPython v1.24", rig.now)
    rig.link.router.line(rig.board.play(MOVES[1]), rig.now)
    events = rig.events()
    assert events == [
        BoardEvent("button", "hint"),
        BoardEvent("ledwalk", "3 m4"),
        StateSent("over"),
        LinkFault("%s line 7 too long" % codec.E_ARGS),
        events[4],
        Moved(1, MOVES[1]),
    ]
    assert rig.link.console[-1] == "MicroPython v1.24"
    rig.board.game, rig.board.hv, rig.board.moves = "g2", 2, []
    rig.link.router.line(rig.board.frame("state", "re=0 %s phase=setup" % rig.board.triple()), rig.now)
    assert Reset("g2") in rig.events() and rig.link.moves == []


def test_a_forged_or_damaged_frame_changes_nothing() -> None:
    rig = Rig(FakeBoard(MOVES[:2]))
    rig.connect()
    rig.events()
    good = rig.board.play(MOVES[2])
    rig.board.moves.pop()
    damaged = good[:-1] + (b"0" if good[-1:] != b"0" else b"1")
    rig.link.router.line(damaged, rig.now)
    rig.link.router.line(b"~5 move g1 2 m6-m5 *", rig.now)  # no checksum: never from a board
    rig.link.router.line(rig.board.frame("move", "g1 two m6-m5 00000000 1"), rig.now)
    assert rig.link.moves == MOVES[:2] and rig.events() == []
    assert rig.link.stats.bad_frames == 3


def test_begin_refuses_a_request_it_does_not_know() -> None:
    rig = Rig()
    with pytest.raises(ValueError, match="teleport"):
        rig.begin("teleport")


def test_the_boards_events_wake_the_loops_that_wait_on_their_inbox(tmp_path: Path) -> None:
    """A play session waiting on its inbox (``pump``'s timeout) is woken by
    each event the port thread emits, so a board's move is handled as it comes (a remote
    game's p50 from board A's commit to board B's LEDs fell from 51 to 12 ms,
    tools/bench_remote_boards.py), not up to a wait later."""
    from play_helpers import RecordingUI

    from zuniboard.play.session import PlaySession
    from zuniboard.records.db import Database

    rig = Rig(FakeBoard(MOVES[:2]))
    session = PlaySession(rig.link, Database(tmp_path / "games.sqlite3"), RecordingUI(), ruleset="mosona")
    rig.connect()
    emitted = len(rig.events())
    woken = []
    while not session.inbox.queue.empty():
        woken.append(session.inbox.queue.get_nowait())
    assert emitted >= 3  # connected, the two moves
    assert woken == [Woken()] * emitted
