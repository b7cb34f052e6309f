"""The link's behaviours that wait only on its own timers (resends, request deadlines,
silence, reconnects), with the real code at both ends on a virtual clock
(tests/link_pair.py: the host's BoardLink, the firmware's BoardApp and BoardSession
under CPython, an in-memory cable), at the real timers, in virtual seconds.

Each scenario ends as tests/e2e/test_link_e2e.py's do: the host's mirror, the board's
game (its app, resumed from its journal after a reset) and the board's own word over
the link (its ``state``) are the same moves with the same digest, and the host's event
stream, replayed, gives those moves once each, in order. The same behaviours end to end
(MicroPython on a pty, pyserial, the port thread), one per kind: tests/e2e/test_link_e2e.py.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from link_pair import SCAN_MS, Faults, LinkPair

import zuni
from zuniboard.link.events import Answered, LinkEvent, Moved, Refused, Reset, Undone

if TYPE_CHECKING:
    from zuniboard.play.session import PlaySession

WAIT_MS = 20_000  # virtual: a scenario that does not converge fails at once in real time


@pytest.fixture
def pair() -> Iterator[LinkPair]:
    with LinkPair(seed=7) as p:
        p.run_until(lambda: p.link.connected, WAIT_MS, "the first hello")
        yield p


def agree(pair: LinkPair) -> list[str]:
    """Runs until the host's mirror is the board's game (same id, moves, digest); the
    board says so itself over the link. Returns the moves."""
    link = pair.link

    def same() -> bool:
        truth = pair.truth()
        return link.connected and link.game == truth.game and link.moves == truth.moves and link.synced()

    pair.run_until(same, WAIT_MS, "the host's mirror to be the board's game")
    truth = pair.truth()
    state = pair.call("state")
    assert isinstance(state, Answered), state
    assert (state.fields["game"], state.fields["moves"], state.fields["digest"]) == (
        truth.game,
        str(len(truth.moves)),
        truth.digest,
    )
    return truth.moves


def replay(events: list[LinkEvent]) -> list[str]:
    """The move list a consumer builds from the events alone: each move at the next index."""
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


def drain(pair: LinkPair) -> list[LinkEvent]:
    return list(pair.link.unread_events())


def take_back(pair: LinkPair, expect_moves: int) -> None:
    result = pair.call("take_back", timeout=15)
    assert isinstance(result, Answered) and result.fields["moves"] == str(expect_moves), result
    pair.pieces_follow()


def test_dropped_corrupted_and_duplicated_lines(pair: LinkPair) -> None:
    """One fault at a time, on the line that matters: a move to the host dropped,
    corrupted, duplicated; a request to the board duplicated, and one dropped with its
    reply dropped too. The host recovers each move, and the board does each request once."""
    link = pair.link
    pair.play(1)
    agree(pair)
    # A move frame dropped: the board resends it (not acknowledged), a second later.
    mark = len(pair.up.tap)
    pair.up.fault_next(b" move ", "drop")
    pair.play(1)
    pair.run_until(lambda: len(link.moves) == 2, WAIT_MS, "the dropped move, resent")
    assert len([f for f in pair.up.frames("move", mark) if f.body.split(" ")[1] == "1"]) >= 2, "sent again"
    # Corrupted: the checksum catches it, the resend brings it.
    bad = link.stats.bad_frames
    pair.up.fault_next(b" move ", "corrupt")
    pair.play(1)
    pair.run_until(lambda: len(link.moves) == 3, WAIT_MS, "the corrupted move, resent")
    assert link.stats.bad_frames > bad
    # Duplicated: the second copy is dropped by the host.
    dups = link.stats.duplicates
    pair.up.fault_next(b" move ", "duplicate")
    pair.play(1)
    pair.run_until(lambda: len(link.moves) == 4 and link.stats.duplicates > dups, WAIT_MS, "the duplicate dropped")
    agree(pair)
    # A take-back duplicated on its way, then one lost with its reply: the board does
    # each once (it remembers the last request's seq and reply).
    pair.down.fault_next(b" takeback", "duplicate")
    take_back(pair, 3)
    assert len(agree(pair)) == 3
    pair.down.fault_next(b" takeback", "drop")
    pair.up.fault_next(b" ok ", "drop")
    resends = link.stats.resends
    take_back(pair, 2)
    assert link.stats.resends >= resends + 1
    assert pair.up.pending_faults() == pair.down.pending_faults() == 0
    assert len(agree(pair)) == 2, "two take-backs, no more"
    pair.play(2)
    assert replay(drain(pair)) == agree(pair)


@pytest.mark.parametrize("fault", ["host reconnect", "board reset"])
def test_a_take_back_whose_reply_was_lost_is_done_once_across_a_reconnect_and_a_reset(
    pair: LinkPair, fault: str
) -> None:
    """The board takes a move back, its reply is lost, and then the host reconnects (or
    the board is reset, forgetting the request) before the host's resend gets through:
    the move is taken back once, not twice."""
    pair.play(4)
    agree(pair)
    mark = len(pair.up.tap)
    pair.up.fault_next(b" ok ", "drop")
    box = pair.begin("take_back", timeout=15)
    pair.run_until(lambda: any(f.body.startswith("takeback ") for f in pair.up.frames("event", mark)), 2000)
    assert pair.link.stats.resends == 0, "before the host's resend (0.5 s)"
    if fault == "host reconnect":
        pair.unplug(hard=True)
        pair.run(20)
        pair.replug()
    else:
        pair.unplug()
        pair.restart_board()
        pair.replug()
    pair.run_until(lambda: box, WAIT_MS, "the take-back's result")
    assert isinstance(box[0], Answered) and box[0].fields["moves"] == "3", (fault, box)
    pair.pieces_follow()
    assert len(agree(pair)) == 3, fault
    assert pair.link.stats.already_done >= 1
    assert replay(drain(pair)) == agree(pair)


def test_a_late_reply_and_its_resends_take_back_nothing(pair: LinkPair) -> None:
    """The board's reply to the computer's move is late (2.5 s on the line, five of the
    host's resend intervals): the host resends the request meanwhile, the player carries
    the move out meanwhile, and the board answers the later resends after the move. Those
    replies must not read as a take-back."""
    link = pair.link
    pair.play(1)
    agree(pair)
    events = drain(pair)
    target = pair.choose()
    mark = len(pair.up.tap)
    pair.up.fault_next(b" ok ", "delay", 2500)
    box = pair.begin("host_move", target, timeout=10)
    pair.run_until(lambda: pair.up.frames("ok", mark), 2000, "the board took it")
    pair.carry_out(target)  # committed while the host still resends
    pair.run_until(lambda: box, WAIT_MS, "the host move's reply")
    assert isinstance(box[0], Answered), box
    assert len(pair.up.frames("ok", mark)) >= 3, "the host resent its request and the board answered each"
    assert isinstance(pair.call("ping"), Answered)  # a barrier: every earlier frame has arrived
    pair.run_until(lambda: len(link.moves) == 2, WAIT_MS)
    events += drain(pair)
    assert [e for e in events if isinstance(e, Reset) and e.game != link.game] == [], events
    assert not [e for e in events if isinstance(e, Undone)], "no take-back: %r" % events
    assert len(agree(pair)) == 2


def test_a_take_back_right_after_a_move_is_done_once_across_a_board_reset(pair: LinkPair) -> None:
    """The host asks for a take-back as soon as a move arrives (before any heartbeat
    confirms it), the board does it and is reset before the reply gets out. The host's
    resend after the reset must not take a second move back: the request names the
    history it takes the last move of, which the reset board no longer has."""
    pair.play(2)
    agree(pair)
    pair.play(1)
    pair.run_until(lambda: len(pair.link.moves) == 3, WAIT_MS)
    mark = len(pair.up.tap)
    pair.up.fault_next(b" ok ", "drop")
    box = pair.begin("take_back", timeout=15)
    pair.run_until(lambda: any(f.body.startswith("takeback ") for f in pair.up.frames("event", mark)), 2000)
    pair.unplug()
    pair.restart_board()
    pair.replug()
    pair.run_until(lambda: box, WAIT_MS, "the take-back's result")
    assert isinstance(box[0], Answered) and box[0].fields["moves"] == "2", box
    pair.pieces_follow()
    assert len(agree(pair)) == 2, "one move taken back, not two"
    assert replay(drain(pair)) == agree(pair)


def test_cable_pulled_without_the_host_noticing(pair: LinkPair) -> None:
    """Soft unplug: the port stays, nothing passes. The host notices the silence (8 s),
    drops and reopens its port, and once the cable is back gets every move made meanwhile,
    with a take-back on the board among them."""
    link = pair.link
    pair.play(2)
    agree(pair)
    pair.unplug()
    pair.play(2)
    pair.table.press(2)  # BACK on the board: the last move taken back, the pieces put back
    pair.pieces_follow()
    assert len(pair.truth().moves) == 3
    pair.play(1)
    pair.run_until(lambda: not link.connected, WAIT_MS, "the silence to be noticed")
    pair.run(1000)
    assert pair.reopens >= 1, "the port was reopened (the device is there)"
    pair.replug()
    moves = agree(pair)
    assert len(moves) == 4
    assert replay(drain(pair)) == moves


def test_a_request_with_the_cable_pulled_fails_at_its_deadline_and_the_next_one_goes(pair: LinkPair) -> None:
    """Hard unplug with a request on its way: it fails at its deadline (not before, not
    after), while the port is closed; once the device is back the next request is answered."""
    pair.unplug(hard=True)
    start = pair.now_ms
    box = pair.begin("hint", "", timeout=3.0)
    pair.run_until(lambda: box, WAIT_MS)
    assert 3000 <= pair.now_ms - start <= 3000 + 2 * 10, pair.now_ms - start
    assert not isinstance(box[0], (Answered, Refused)), box
    pair.replug()
    pair.run_until(lambda: pair.link.connected, WAIT_MS)
    assert isinstance(pair.call("hint", ""), Answered)


WHOLE_GAME_PLIES = 60


def test_a_whole_game_through_a_faulty_line(pair: LinkPair) -> None:
    """A game of Mosona, the computer (host) playing North, through a line that drops,
    corrupts, cuts, duplicates and delays lines both ways and invents some, with a take-back on the way, until
    it ends or North resigns; then, with the host away, a new game on the board."""
    link = pair.link
    faults = Faults(drop=0.05, corrupt=0.05, cut=0.03, duplicate=0.05, delay=0.1, max_delay_ms=800, garbage=0.03)
    pair.up.faults = faults
    pair.down.faults = Faults(**vars(faults))
    took_back = False
    while not pair.game.is_game_over() and len(pair.game.move_stack) < WHOLE_GAME_PLIES:
        ply = len(pair.game.move_stack)
        text = pair.choose(keep_going=False)
        if pair.game.turn == zuni.NORTH:
            result = pair.call("host_move", text, timeout=20)
            assert isinstance(result, Answered), result
        pair.carry_out(text)
        pair.run_until(lambda ply=ply: len(link.moves) == ply + 1, WAIT_MS, "move %d" % ply)
        assert link.moves == [m.text() for m in pair.game.move_stack]
        if ply == 6 and not took_back:
            took_back = True
            take_back(pair, 6)
    if not pair.game.is_game_over():
        assert isinstance(pair.call("resign", "north", timeout=20), Answered)
    state = pair.call("state", timeout=20)
    assert isinstance(state, Answered) and state.fields["phase"] == "over"
    moves = agree(pair)
    assert replay(drain(pair)) == moves
    # With the host away, OK on the board starts a new game, and two moves are made.
    old_game = link.game
    pair.unplug(hard=True)
    pair.table.press(1)
    pair.pieces_follow()
    pair.play(2)
    pair.replug()
    moves = agree(pair)
    assert len(moves) == 2 and link.game != old_game
    events = drain(pair)
    assert any(isinstance(e, Reset) and e.game == link.game for e in events)
    assert replay(events) == moves
    up, down = pair.up.stats, pair.down.stats
    assert up.dropped + up.corrupted + up.cut + down.dropped + down.corrupted + down.cut >= 10, (up, down)
    assert up.garbage + down.garbage >= 2, (up, down)
    assert link.stats.bad_frames > 0


SESSION_PLIES = 16
SEARCH_WAIT_S = 60.0  # real seconds: the computer's search runs on a thread, in real time


def test_zuni_plays_session_through_long_delays_and_unplugging(tmp_path: Path) -> None:
    """`zuni play`'s session (the computer plays North) on the same clock as the link,
    through the worst line the protocol claims to survive (every line may wait up to
    2.5 s, duplicates; the cable pulled while the player moves and hard-unplugged while
    the computer's move is on its way; one late reply at the worst delay): its output has
    no take-back, no move "made on the board instead of the computer's", no refusal; its
    log, its mirror and the board's game are the same."""
    from play_helpers import RecordingUI

    from zuniboard.play.session import PlaySession
    from zuniboard.records.db import Database

    ui = RecordingUI()
    with LinkPair(seed=3) as pair, Database(tmp_path / "games.sqlite3") as db:
        pair.run_until(lambda: pair.link.connected and pair.link.synced(), WAIT_MS)
        session = PlaySession(
            pair.link,
            db,
            ui,
            ruleset="mosona",
            players={"north": "ai:1"},
            seed=1,
            deterministic=True,
            now=lambda: pair.now_ms / 1000.0,
        )
        try:
            old_game = pair.app.game_id
            with pair.driven():  # the session's start waits on the link
                session.start()
            pair.on_scan.append(lambda t: session.step(t))
            pair.run_until(lambda: pair.app.game_id != old_game, WAIT_MS, "the session's new game")
            pair.pieces_follow()  # the player sets it up
            worst = Faults(delay=0.3, max_delay_ms=2500, duplicate=0.03)
            pair.up.faults, pair.down.faults = worst, Faults(**vars(worst))
            while not pair.game.is_game_over() and len(pair.game.move_stack) < SESSION_PLIES:
                ply = len(pair.game.move_stack)
                if pair.game.turn == zuni.NORTH:
                    if ply == 5:
                        pair.up.fault_next(b" ok ", "delay", 2500)
                    if ply == 7:
                        pair.unplug(hard=True)  # while the computer's move is on its way
                        pair.run(1500)
                        pair.replug()
                    text = _shown_host_move(pair, session, ply)
                else:
                    text = pair.choose()
                if ply == 6:
                    pair.unplug()  # the cable pulled while the player moves
                pair.carry_out(text)
                if ply == 6:
                    pair.replug()
            pair.up.faults, pair.down.faults = Faults(), Faults()
            truth = pair.truth()
            pair.run_until(lambda: session.moves == truth.moves, WAIT_MS * 3, "the session to have the board's game")
        finally:
            pair.on_scan.clear()
            session.close()
        bad = [t for t in ui.texts() if "took back" in t or "refused" in t or "instead of the computer" in t]
        assert not bad, bad
        assert len(truth.moves) == min(SESSION_PLIES, len(pair.game.move_stack)) and len(truth.moves) > 8
        assert pair.link.moves == truth.moves
        assert db.get(session.db_game or 0).move_texts() == truth.moves
        for i, text in enumerate(truth.moves):
            if i % 2 == 1:
                assert ui.find(r"^%d\. north %s \(carried out on the board\)$" % (i + 1, text), "move"), (i, text)
    assert pair.up.stats.delayed + pair.down.stats.delayed > 10, (pair.up.stats, pair.down.stats)


def _shown_host_move(pair: LinkPair, session: PlaySession, ply: int) -> str:
    """The computer's move, as soon as the board shows it (the player does not wait for
    the host to hear the board's reply). The search runs on a thread, in real time: the
    clock stands still while it works (a search's time is not the link's)."""
    end = time.monotonic() + SEARCH_WAIT_S
    while True:
        host = pair.app.play.host
        if host is not None and len(pair.game.move_stack) == ply:
            return str(host.move.text())
        assert time.monotonic() < end, "the computer's move never reached the board"
        if any(job.thread is not None and job.thread.is_alive() for job in session.thinking.jobs):
            time.sleep(0.001)
        else:
            pair.run(SCAN_MS)
