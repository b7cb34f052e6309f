"""The link end to end with the REAL firmware: firmware/main.py (BoardApp, BoardSession,
the journal on a littlefs flash image) under the MicroPython unix port, its link on a
pty; pyserial and BoardLink on the host side; between them a relay (tools/linkrig.py)
that can pull the cable, stop reading, and drop, corrupt, cut, duplicate, delay and
invent lines. Moves are made by a Hand lifting and placing magnets through the virtual
board's control channel; the host's moves are carried out by that hand.

Every scenario ends with the same check: the host's mirror, the board's flash journal
(read with the firmware's own Journal code) and the player's game are the same moves
with the same digest, and the host's event stream, replayed, gives those moves once
each, in order. The board uses its layout with a faster clock (tools/linkrig.py,
FAST_TIMING), and both ends' link timers at a quarter, in proportion (LINK_SCALE: the
board's through ``--link-ms``, the host's through ``BoardLink(timers=...)``; the faults'
delays scaled alike; tools/bench_link.py --soak runs on the real ones). Tests wait for frames and
events, not fixed sleeps (a window is timed only to show that something does NOT happen).
The behaviours that wait only on the link's own timers run with the same firmware code
(BoardApp, BoardSession under CPython) and the same host code on a virtual clock, at the
real timers, in tests/unit/test_link_pair.py: a take-back whose reply was lost, done once
across a reconnect and a reset; a take-back right after a move across a reset; a late
reply and its resends; a cable pulled without the host noticing; a whole game through a
faulty line; one fault at a time (kept here too, end to end). Here stay, for each kind
of behaviour, the scenarios through the real path: hello and sync, requests, garbage,
one fault at a time, a hard unplug, a board reset, a host crash, a host that does not
read, the worst line under `zuni play`'s session, and that session with the cable
pulled. The host's logic alone against a scripted board: tests/unit/test_link_clock.py;
the link's figures (round trips, the board's scan rate with the host away):
tools/bench_link.py.
"""

from __future__ import annotations

import fcntl
import signal
import struct
import subprocess
import sys
import termios
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import serial
from waiting import wait_until

import zuni
from zuniboard.link.client import BoardError, BoardLink, SerialPort
from zuniboard.link.events import BoardEvent, BoardRestarted, LinkEvent, Moved, Reset, Undone
from zuniboard.link.timers import REAL_TIMERS, LinkTimers
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))  # linkrig; zuniboard.link.client put firmware/lib on the path

from linkrig import WAIT_S, Faults, FirmwareBoard, Frame, Relay, digest_of  # noqa: E402

from zuni_link import codec  # noqa: E402
from zuni_link.session import BEAT_MS, HOST_TIMEOUT_MS, QUEUE_BYTES, RESEND_MS  # noqa: E402

try:
    micropython_executable()
except MicroPythonMissing as exc:  # pragma: no cover
    pytest.skip("no MicroPython unix port: %s" % exc, allow_module_level=True)


# Both ends' link timers at a quarter, in proportion, so every scenario is the one on a
# cable, four times faster: the board (``--link-ms``) resends moves every 250 ms, beats
# every 500 ms, counts the host away after 1.5 s of silence; the host resends requests
# every 125 ms, keeps alive every 375 ms, reopens within 250 ms, and reopens a port
# silent for 2 s (4 beats). A round trip through the relay stays far below all of them.
LINK_SCALE = 0.25
BOARD_LINK_MS = (int(RESEND_MS * LINK_SCALE), int(BEAT_MS * LINK_SCALE), int(HOST_TIMEOUT_MS * LINK_SCALE))
FAST_LINK = REAL_TIMERS.scaled(LINK_SCALE, silence_s=REAL_TIMERS.silence_s * LINK_SCALE)
# Where the host must notice a pulled cable by its silence: two beats' gap.
QUICK_SILENCE = REAL_TIMERS.scaled(LINK_SCALE, silence_s=2 * BOARD_LINK_MS[1] / 1000)


@pytest.fixture
def board(tmp_path: Path) -> Iterator[FirmwareBoard]:
    with FirmwareBoard(tmp_path, seed=7, link_ms=BOARD_LINK_MS) as b:
        yield b


def _relay(board: FirmwareBoard) -> Relay:
    assert board.relay is not None
    return board.relay


def _open(board: FirmwareBoard, timers: LinkTimers = FAST_LINK) -> BoardLink:
    """A BoardLink that follows the relay's host pty (it changes on a hard unplug)."""
    relay = _relay(board)

    def opener(url: str) -> SerialPort:
        if relay.host_master < 0:
            # Hard-unplugged: the device is gone, as a USB port's is. Its old pty path may
            # already be another program's pty (another test's board): never open it.
            raise serial.SerialException("%s: the device is gone (unplugged)" % relay.host_path)
        port: SerialPort = serial.serial_for_url(relay.host_path, baudrate=115200, timeout=0.05)
        return port

    link = BoardLink(relay.host_path, opener=opener, timers=timers)
    link.start()
    assert link.wait_connected(5.0), "no hello from the board"
    return link


def _agree(link: BoardLink, board: FirmwareBoard, timeout: float = WAIT_S) -> list[str]:
    """Waits until the host's mirror is the board's game as its flash journal has it
    (same id, moves, digest) and the player's game is that too; returns the moves."""
    truth = board.truth()
    wait_until(  # polling the link's own state
        lambda: link.game == truth.game and link.moves == truth.moves and link.synced(),
        lambda: "host %r (%s) == board %r (%s)" % (link.moves, link.game, truth.moves, truth.game),
        timeout,
    )
    assert digest_of(link.game, link.moves) == truth.digest
    assert [m.text() for m in board.game.move_stack] == truth.moves, "the player's game is the board's"
    state = link.state(timeout)  # and the board says so itself over the link
    assert (state["game"], state["moves"], state["digest"]) == (truth.game, str(len(truth.moves)), truth.digest)
    return truth.moves


def _replay(events: list[LinkEvent]) -> list[str]:
    """The move list a consumer builds from the event stream alone: each move must come
    at the next index (a duplicate or a reordered move fails here)."""
    moves: list[str] = []
    for e in events:
        if isinstance(e, Reset):
            moves = []
        elif isinstance(e, Undone):
            del moves[e.moves_left :]
        elif isinstance(e, Moved):
            assert e.index == len(moves), "move %d arrived with %d moves held: %r" % (e.index, len(moves), events)
            moves.append(e.text)
    return moves


def _drain(link: BoardLink) -> list[LinkEvent]:
    out = []
    while not link.events.empty():
        out.append(link.events.get())
    return out


def _index(frame: Frame) -> int:
    return int(frame.body.split(" ")[1])


def test_hello_then_sync_of_moves_made_before_the_host_came(board: FirmwareBoard) -> None:
    relay = _relay(board)
    board.play(4)  # standalone: nobody at the host end
    link = _open(board)
    try:
        assert link.hello["proto"] == "3"
        assert link.hello["layout"] == "board25" and link.hello["fw"]
        moves = _agree(link, board)
        assert len(moves) == 4
        assert link.ruleset == "mosona"
        board.play(2)
        assert link.wait_moves(6, WAIT_S)
        moves = _agree(link, board)
        assert _replay(_drain(link)) == moves
        # Every move acknowledged: up to the first heartbeat at least 1.5 resend
        # intervals later, the board resends nothing.
        mark = relay.mark()
        since = time.monotonic() + 1.5 * BOARD_LINK_MS[0] / 1000
        beat = relay.wait_frame(lambda f: f.verb == "beat" and f.time >= since, WAIT_S, mark)
        assert relay.frames("move", mark) == []
        assert beat.body.split(" ")[1:5] == ["6", digest_of(link.game, moves), "1", link.hello["boot"]]
    finally:
        link.close()


def test_host_requests_reach_the_board_and_bad_ones_change_nothing(board: FirmwareBoard) -> None:
    link = _open(board)
    try:
        board.play(2)
        _agree(link, board)
        before = board.truth()
        state = link.state()
        refused: list[tuple[Callable[[], object], str, str]] = [
            (lambda: link.host_move("m1-m9"), "illegal", "m9"),
            (lambda: link.host_move("s1-s2"), "illegal", "s1-s2"),  # a well-formed move that is not legal
            (lambda: link.new_game("mosona board=wobbly"), "illegal", "wobbly"),
            (lambda: link.new_game("awithlaknakwe"), "illegal", "168-point"),  # not this board's size
            (lambda: link.resign("west"), "illegal", "west"),
            (lambda: link.agree("maybe"), "args", "maybe"),
            (lambda: link.hint("m1-m9"), "illegal", "m9"),
        ]
        for request, code, named in refused:
            with pytest.raises(BoardError) as err:
                request()
            assert err.value.code == code and named in err.value.message, err.value
        assert board.truth() == before, "refused requests changed nothing on the board"
        after = link.state()
        for key in ("game", "moves", "digest", "phase", "turn", "ruleset"):
            assert after[key] == state[key], key
        assert "hostmove" not in after
        # The computer's move, carried out by the player.
        target = board.choose()
        link.host_move(target)
        assert link.state()["hostmove"] == target
        board.carry_out(target)
        assert link.wait_moves(3, WAIT_S)
        assert link.moves[-1] == target
        # The host takes it back; the player puts the pieces back.
        link.take_back()
        assert len(link.moves) == 2
        board.take_back_applied()
        assert len(_agree(link, board)) == 2
        # A new game of other rules on the same board.
        link.new_game("kolowis size=short")
        assert link.moves == [] and link.ruleset == "kolowis size=short"
        assert link.state()["ruleset"] == "kolowis size=short"
        board.new_game("kolowis size=short")
        assert link.state()["phase"] == "play"
        link.led_test()
        link.raw(True)
        link.hint("")
        link.press_ok()
        board.play(1)
        assert link.wait_moves(1, WAIT_S)
        events = _drain(link)
        assert any(isinstance(e, BoardEvent) and e.name == "raw" for e in events), "raw sensor events after raw on"
        assert _replay(events) == _agree(link, board)
    finally:
        link.close()


def test_garbage_oversized_wrong_version_unknown_and_illegal_lines(board: FirmwareBoard) -> None:
    board.play(3)
    before = board.truth()
    relay = _relay(board)
    port = serial.serial_for_url(relay.host_path, baudrate=115200, timeout=0.05)
    asm = codec.LineAssembler()
    replies: list[tuple[str, str]] = []

    def read_until(wanted: list[str], timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            data = port.read(4096)
            pos = 0
            while pos < len(data):
                pos = asm.push(data, pos, len(data))
                if asm.ready == codec.LINE:
                    line = bytes(asm.line())
                    if line.startswith(b"~"):
                        _, verb, body, _ = codec.decode(line)
                        replies.append((verb, body))
            if all(any(verb == "err" and w in body for verb, body in replies) for w in wanted):
                return
        got = [body for verb, body in replies if verb == "err"]
        raise AssertionError("missing errors %r; got %r" % ([w for w in wanted if not any(w in g for g in got)], got))

    try:
        port.write(b"\x03\x03garbage \xff\n")
        port.write(b"print('hello')\n")
        port.write(b"~1 " + b"x" * 700 + b" *\n")
        port.write(codec.encode(2, "hello", "proto=9"))
        port.write(codec.encode(3, "teleport", "m1"))
        port.write(b"~4 takeback *\n")
        port.write(codec.encode(5, "takeback"))  # no hello yet on this connection
        port.write(codec.encode(6, "moves", "99"))
        port.write(codec.encode(7, "ping")[:-9] + b"00000000\n")  # a wrong checksum
        read_until(
            [
                "0 garbage control or non-ASCII",
                "0 garbage not a frame",
                "0 toolong line of 705 bytes",
                "2 version board speaks link protocol 3, host offered proto=9",
                "3 unknown unknown verb 'teleport'",
                "4 readonly takeback needs a real checksum",
                "5 hello say hello first",
                "6 args moves from 99",
                "0 crc",
            ]
        )
        # After hello: requests the app refuses, each answered and none acted on.
        port.write(codec.encode(8, "hello", "proto=3,4 host=test"))
        port.write(codec.encode(9, "hostmove", "m1-m9"))
        port.write(codec.encode(10, "new", "mosona board=wobbly"))
        port.write(codec.encode(11, "resign", "nobody"))
        port.write(codec.encode(12, "hint", "a b"))
        port.write(codec.encode(13, "state"))
        read_until(["9 illegal hostmove m1-m9", "10 illegal new mosona board=wobbly", "11 args resign", "12 args hint"])
        wait_until(
            lambda: any(verb == "state" and body.startswith("re=13 ") for verb, body in replies),
            "the state reply",
            5,
            step=lambda: read_until([]),
        )
        state = codec.kv_decode(next(body for verb, body in replies if verb == "state" and body.startswith("re=13 ")))
        assert (state["game"], state["moves"], state["digest"]) == (before.game, "3", before.digest)
        assert state["phase"] == "play" and "hostmove" not in state
        assert board.truth() == before, "bad input changed nothing"
    finally:
        port.close()
    # The player goes on as if nothing had happened.
    board.play(1)
    assert len(board.truth().moves) == 4


def test_dropped_corrupted_and_duplicated_lines(board: FirmwareBoard) -> None:
    """One fault at a time, on the line that matters: a move to the host dropped,
    corrupted, duplicated; a request to the board dropped and duplicated; its reply
    dropped. The host recovers each move, and the board does each request once."""
    relay = _relay(board)
    link = _open(board)
    try:
        board.play(1)
        _agree(link, board)
        # A move frame dropped: the board resends it (not acknowledged).
        mark = relay.mark()
        relay.fault_next("up", b" move ", "drop")
        board.play(1)
        assert link.wait_moves(2, WAIT_S)
        assert len([f for f in relay.frames("move", mark) if _index(f) == 1]) >= 2, "sent again"
        # Corrupted: the checksum catches it, the resend brings it.
        bad = link.stats.bad_frames
        relay.fault_next("up", b" move ", "corrupt")
        board.play(1)
        assert link.wait_moves(3, WAIT_S)
        assert link.stats.bad_frames > bad
        # Duplicated: the second copy is dropped by the host.
        dups = link.stats.duplicates
        relay.fault_next("up", b" move ", "duplicate")
        board.play(1)
        assert link.wait_moves(4, WAIT_S)
        wait_until(lambda: link.stats.duplicates > dups, "the duplicate to be dropped", 5)
        _agree(link, board)
        # A take-back request duplicated on its way, then one whose reply is lost: the
        # board does each once (it remembers the last request's seq and reply).
        relay.fault_next("down", b" takeback", "duplicate")
        link.take_back()
        board.take_back_applied()
        assert len(_agree(link, board)) == 3
        relay.fault_next("down", b" takeback", "drop")
        relay.fault_next("up", b" ok ", "drop")
        resends = link.stats.resends
        link.take_back()
        assert link.stats.resends >= resends + 1
        board.take_back_applied()
        assert relay.pending_faults() == 0
        assert len(_agree(link, board)) == 2, "two take-backs, no more"
        board.play(2)
        assert link.wait_moves(4, WAIT_S)
        assert _replay(_drain(link)) == _agree(link, board)
    finally:
        link.close()


def test_host_unplugged_and_back_gets_every_move(board: FirmwareBoard) -> None:
    relay = _relay(board)
    link = _open(board, QUICK_SILENCE)
    try:
        board.play(3)
        _agree(link, board)
        relay.unplug(hard=True)  # the device vanishes: reads fail, the path changes
        board.play(3)  # the board commits on with nobody there (its scan rate: tools/bench_link.py)
        assert len(board.truth().moves) == 6 and len(link.moves) == 3
        relay.replug()
        assert link.wait_moves(6, WAIT_S)
        moves = _agree(link, board)
        assert len(moves) == 6
        assert _replay(_drain(link)) == moves
        assert link.stats.reconnects >= 1
    finally:
        link.close()


def test_board_reset_resumes_and_the_host_follows(board: FirmwareBoard) -> None:
    relay = _relay(board)
    link = _open(board)
    try:
        board.play(4)
        _agree(link, board)
        old_boot = link.hello["boot"]
        mark = relay.mark()
        board.restart()  # power cycle: SIGKILL, same flash, pieces where they are
        hello = relay.wait_frame(lambda f: f.verb == "hello" and f.body.startswith("re=0 "), WAIT_S, mark)
        boot = codec.kv_decode(hello.body)["boot"]
        assert boot != old_boot
        assert codec.kv_decode(hello.body)["moves"] == "4", "the game resumed from the journal"
        board.play(3)
        assert link.wait_moves(7, WAIT_S)
        moves = _agree(link, board)
        events = _drain(link)
        assert any(isinstance(e, BoardRestarted) and e.boot == boot for e in events), events
        assert _replay(events) == moves
        link.take_back()  # the reset board knows this host again (it said hello anew)
        board.take_back_applied()
        assert len(_agree(link, board)) == 6
        # Moves the host never saw, then a reset before it comes back: the journal has them.
        relay.unplug()
        board.play(2)
        board.restart()
        relay.replug()
        moves = _agree(link, board)
        assert len(moves) == 8
        events += _drain(link)
        assert _replay(events) == moves
    finally:
        link.close()


HOST_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from zuniboard.link.client import BoardLink
    link = BoardLink.open(sys.argv[1], timeout=5)
    print("up", flush=True)
    while True:
        e = link.events.get()
        if type(e).__name__ == "Moved":
            print("move", e.index, flush=True)
    """
)


def test_host_crash_then_a_new_host_gets_the_whole_game(board: FirmwareBoard, tmp_path: Path) -> None:
    relay = _relay(board)
    script = tmp_path / "host.py"
    script.write_text(HOST_SCRIPT)
    host = subprocess.Popen(
        [sys.executable, str(script), relay.host_path], stdout=subprocess.PIPE, text=True, cwd=str(REPO)
    )
    player = threading.Thread(target=board.play, args=(8,))
    try:
        assert host.stdout is not None
        assert host.stdout.readline().strip() == "up"
        player.start()
        while True:  # crash while moves are arriving
            line = host.stdout.readline()
            assert line, "the host died by itself"
            if line.startswith("move") and int(line.split()[1]) >= 3:
                break
        host.send_signal(signal.SIGKILL)
        host.wait(timeout=5)
    finally:
        if host.poll() is None:
            host.kill()
        if player.is_alive():
            player.join(timeout=30)
    assert not player.is_alive()
    link = _open(board)
    try:
        moves = _agree(link, board)
        assert len(moves) == 8
        assert _replay(_drain(link)) == moves
    finally:
        link.close()


def test_board_keeps_scanning_while_the_host_does_not_read(board: FirmwareBoard) -> None:
    relay = _relay(board)
    link = _open(board)
    try:
        board.play(1)
        _agree(link, board)
        relay.read_board = False  # the PC holds the port open and reads nothing
        s0 = board.stats()
        # The host keeps asking (600 pings, far more replies than the pty and the
        # board's queue hold) while the player makes five moves.
        flood = range(40000, 40600)
        for seq in flood:
            link.send_raw_line(codec.encode(seq, "ping"))
        board.play(5, wait=False)  # no frame reaches the tap now: paced by the pieces alone
        truth = board.wait_truth(6)
        assert len(truth.moves) == 6, "the board committed and journaled every move"
        s1 = board.stats()
        backlog = struct.unpack("i", fcntl.ioctl(relay.board_fd, termios.FIONREAD, b"\0\0\0\0"))[0]
        assert backlog >= 4000, "the board's output backed up in the pty (%d bytes)" % backlog
        # The loop never waited for the host: it went on scanning (its rate meanwhile, a
        # wall-clock figure: tools/bench_link.py, scan_share_host_not_reading).
        assert s1["scans"] > s0["scans"] and s1["errors"] == 0, (s0, s1)
        mark = relay.mark()
        relay.read_board = True
        assert link.wait_moves(6, WAIT_S)
        moves = _agree(link, board)
        events = _drain(link)
        assert _replay(events) == moves
        # Heartbeats queued during the backlog leave after the moves queued later (they
        # are diagnostics): their older move counts take nothing back.
        assert not [e for e in events if isinstance(e, Undone)], events
        # Output was bounded: most replies to the flood were dropped, not queued.
        answered = {int(f.body.split(" ")[0]) for f in relay.frames("ok", mark)} & set(flood)
        assert len(answered) < len(flood) - QUEUE_BYTES // 40, len(answered)
    finally:
        link.close()


# The worst line the protocol claims to survive (docs/protocol.md, "What the link
# survives"): every line may wait up to 2.5 s (in order), and the cable is pulled now and
# then (about every 150 lines, 1.5 s each) and once on purpose in mid-game; times scaled
# with the link's timers (LINK_SCALE).
WORST_DELAY_S = 2.5 * LINK_SCALE
WORST_LINE = Faults(delay=0.3, max_delay_s=WORST_DELAY_S, duplicate=0.03, unplug=1 / 150, unplug_s=1.5 * LINK_SCALE)
GAME_PLIES = 8  # bound on the game (the suite's time); tools/bench_link.py --soak plays on


def test_a_game_against_the_computer_through_long_delays_and_unplugging(board: FirmwareBoard, tmp_path: Path) -> None:
    """`zuni play`'s session (the computer plays North) through the worst line: the host's
    output has no take-back, no move "made on the board instead of the computer's", no
    refusal; its log, its mirror and the board's journal are the same game."""
    from play_helpers import RecordingUI

    from zuniboard.play.session import PlaySession
    from zuniboard.records.db import Database

    relay = _relay(board)
    link = _open(board)
    ui = RecordingUI()
    failures: list[BaseException] = []
    stop = threading.Event()
    with Database(tmp_path / "games.sqlite3") as db:
        session = PlaySession(link, db, ui, ruleset="mosona", players={"north": "ai:1"}, seed=1, deterministic=True)
        try:
            session.start()
            board.new_game("mosona")  # the session started a new game: the player sets it up
            relay.set_faults(WORST_LINE, Faults(**vars(WORST_LINE)))

            def player() -> None:
                try:
                    while not stop.is_set():
                        game = board.game
                        ply = len(game.move_stack)
                        if game.is_game_over() or ply >= GAME_PLIES:
                            return
                        if game.turn == zuni.NORTH:
                            if ply == 5:  # one late reply at the worst delay, on purpose
                                relay.fault_next("up", b" ok ", "delay", WORST_DELAY_S)

                            # The computer's move, as soon as the board shows it (its LEDs:
                            # the player does not wait for the host to hear the board's reply).
                            def shown(ply: int = ply) -> dict[str, object] | None:
                                assert not stop.is_set()
                                state = dict(board.vb.command("state?"))
                                return state if state.get("hostmove") and state.get("moves") == ply else None

                            state = wait_until(shown, "the computer's move to reach the board", 40)
                            assert state is not None
                            text = str(state["hostmove"])
                        else:
                            text = board.choose()
                        if ply == 6:  # the cable pulled while the player moves
                            relay.unplug()
                        board.carry_out(text, timeout=40)
                        if ply == 6:
                            relay.replug()
                except BaseException as exc:
                    failures.append(exc)

            hand = threading.Thread(target=player, name="player")
            hand.start()
            wait_until(lambda: not hand.is_alive(), "the game to finish", 150, step=lambda: session.pump(0.02))
            assert not failures, failures
            relay.set_faults(Faults(), Faults())
            truth = board.truth()
            wait_until(
                lambda: session.moves == truth.moves,
                lambda: "the session's %r to be the board's %r" % (session.moves, truth.moves),
                30,
                step=lambda: session.pump(0.02),
            )
        finally:
            stop.set()
            session.close()
            link.close()
        bad = [t for t in ui.texts() if "took back" in t or "refused" in t or "instead of the computer" in t]
        assert not bad, bad
        assert len(truth.moves) == min(GAME_PLIES, len(board.game.move_stack)) and len(truth.moves) > 6
        assert link.moves == truth.moves
        assert db.get(session.db_game or 0).move_texts() == truth.moves
        for i, text in enumerate(truth.moves):
            if i % 2 == 1:
                assert ui.find(r"^%d\. north %s \(carried out on the board\)$" % (i + 1, text), "move"), (i, text)
    up, down = relay.stats_up, relay.stats_down
    assert up.delayed + down.delayed > 10 and up.unplugs + down.unplugs + 1 >= 1, (up, down)


def test_the_session_answers_while_the_board_is_unplugged_and_gets_every_move_after(
    board: FirmwareBoard, tmp_path: Path
) -> None:
    """`zuni play`'s session with the cable pulled while a request is on its way: the
    terminal's and the page's commands are answered at once (while that request is still
    unanswered: the pump does not wait on the board), and once the cable is back every
    move made meanwhile arrives and the computer's move is shown."""
    from play_helpers import RecordingUI

    from zuniboard.play.prompt import help_text
    from zuniboard.play.session import PlaySession
    from zuniboard.records.db import Database

    relay = _relay(board)
    link = _open(board, QUICK_SILENCE)
    ui = RecordingUI()
    first_help_line = help_text(False).splitlines()[0]
    with Database(tmp_path / "games.sqlite3") as db:
        session = PlaySession(link, db, ui, ruleset="mosona", players={"north": "ai:1"}, seed=1, deterministic=True)
        try:
            session.start()
            board.new_game("mosona")
            wait_until(lambda: session.phase == "play", "the game to start", WAIT_S, step=lambda: session.pump(0.02))
            relay.unplug()  # soft: the port stays open, nothing passes either way
            session.key("hint")
            wait_until(
                lambda: any(call == "hint" for call, _ in session.requests.in_flight),
                "the hint's request to be on its way",
                WAIT_S,
                step=lambda: session.pump(0.02),
            )
            for where in ("terminal", "page"):
                said = len(ui.messages)
                (session.key if where == "terminal" else session.page_line)("help")
                pumps = 0
                while not any(first_help_line in text for _, text in ui.messages[said:]):
                    assert pumps < 5, "the %s's command was not answered within 5 pumps" % where
                    session.pump(0.05)
                    pumps += 1
                assert any(call == "hint" for call, _ in session.requests.in_flight), "answered while the hint waits"
                assert link.requests.outstanding() >= 1
            board.play(1)  # South moves on the board meanwhile; the host hears nothing of it
            assert session.moves == []
            relay.replug()
            truth = board.truth()
            wait_until(
                lambda: session.moves == truth.moves,
                lambda: "the session's %r to be the board's %r" % (session.moves, truth.moves),
                WAIT_S * 2,
                step=lambda: session.pump(0.02),
            )

            def shown() -> bool:
                return bool(dict(board.vb.command("state?")).get("hostmove"))

            wait_until(shown, "the computer's move to reach the board", WAIT_S * 2, step=lambda: session.pump(0.02))
        finally:
            session.close()
            link.close()
    # (The hint, resent once the cable is back, may reach a board that has moved on: it
    # may be refused. The computer's move, asked for the position the board has, is not.)
    assert not [t for t in ui.texts() if "refused the computer's move" in t], ui.texts()


def test_the_host_never_opens_at_1200_baud() -> None:
    from zuniboard.link import client as link_module

    assert link_module.BAUD != 1200
