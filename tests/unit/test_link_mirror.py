"""The host's pure mirror of the board's game (zuniboard.link.mirror): the history
version rules, case by case and under any delivery order of the board's reports; and the
host's clear error for a board that speaks another protocol version."""

from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zuni_link import codec
from zuniboard.link.client import BoardLink, LinkError
from zuniboard.link.mirror import BoardMirror, Report, digest_of


def _report(game: str, hv: int, moves: list[str]) -> Report:
    return Report(game, hv, len(moves), digest_of(game, moves))


def _move(m: BoardMirror, game: str, hv: int, moves: list[str], index: int) -> list[str]:
    return m.move(game, hv, index, moves[index], digest_of(game, moves[: index + 1])).kinds()


def _mirror(game: str = "g1", hv: int = 1, moves: list[str] | None = None) -> BoardMirror:
    m = BoardMirror()
    m.report(_report(game, hv, []))
    for i in range(len(moves or [])):
        _move(m, game, hv, moves or [], i)
    return m


A = ["s3xm4-m5", "n5xm5-m4", "m7xn6-n5"]


def test_a_heartbeat_made_before_a_move_and_read_after_it_takes_nothing_back() -> None:
    m = _mirror(moves=A[:2])
    beat = _report("g1", 1, A[:2])  # queued (low priority) when the board had two moves
    assert _move(m, "g1", 1, A, 2) == ["move"]
    out = m.report(beat)
    assert out.stale and out.kinds() == []
    assert m.moves == A and m.synced(), "the board's freshest word is the move"


def test_a_late_reply_with_the_old_count_takes_nothing_back() -> None:
    m = _mirror(moves=A)
    out = m.report(_report("g1", 1, A[:1]))  # an ok made before two moves, read after them
    assert out.stale and m.moves == A


def test_a_higher_version_with_fewer_moves_is_a_take_back() -> None:
    m = _mirror(moves=A)
    out = m.report(_report("g1", 2, A[:2]))
    assert out.kinds() == ["undo"] and out.changes[0].index == 2
    assert m.moves == A[:2] and m.hv == 2 and m.synced()
    # And the same version's older report (from before the take-back) stays ignored.
    assert m.report(_report("g1", 1, A)).stale
    assert m.moves == A[:2]


def test_a_take_back_then_another_move_seen_only_as_the_move() -> None:
    m = _mirror(moves=A)
    other = A[:2] + ["m7-m6"]
    assert _move(m, "g1", 2, other, 2) == ["undo", "move"]
    assert m.moves == other
    # At the same version a different move at a held index is not a take-back: the
    # histories differ, the mirror starts again from the board's first move.
    m2 = _mirror(moves=A)
    out = m2.move("g1", 1, 2, "m7-m6", digest_of("g1", other))
    assert out.kinds() == ["reset"] and out.fetch_from == 0


def test_a_move_from_before_a_cut_is_ignored() -> None:
    m = _mirror(moves=A)
    m.report(_report("g1", 2, A[:2]))
    out = m.move("g1", 1, 2, A[2], digest_of("g1", A))  # a resend queued before the take-back
    assert out.stale and m.moves == A[:2]


def test_a_new_game_and_a_late_report_of_the_old_one() -> None:
    m = _mirror(moves=A)
    out = m.report(_report("g2", 2, []))
    assert out.kinds() == ["reset"] and out.ask_state and m.game == "g2"
    # A heartbeat of the old game, queued before the new game: no way back to it.
    assert m.report(_report("g1", 1, A)).stale
    assert m.game == "g2" and m.moves == []


def test_more_moves_are_fetched_and_a_different_history_refetched() -> None:
    m = _mirror(moves=A[:1])
    out = m.report(_report("g1", 1, A))
    assert out.fetch_from == 1 and m.moves == A[:1]
    assert not m.synced()
    m2 = _mirror(moves=A[:2])
    out = m2.report(_report("g1", 2, ["s3xm4-m5", "n6-m4"]))
    assert out.kinds() == ["reset"] and out.fetch_from == 0


def test_a_board_that_lost_its_journal_is_followed_after_its_new_boot() -> None:
    m = _mirror(hv=7, moves=A)
    assert m.report(_report("nojournal", 0, [])).stale
    m.new_boot()
    out = m.report(_report("nojournal", 0, []))
    assert out.kinds() == ["reset"] and m.game == "nojournal" and m.hv == 0


# --- any delivery order -------------------------------------------------------------------


@st.composite
def _histories(draw: st.DrawFn) -> tuple[list[tuple[str, int, list[str]]], list[int]]:
    """A board's life: each step appends a move, takes one back or starts a new game;
    the states after each step, and an order in which their reports reach the host."""
    game, hv, moves = "g1", 1, []
    states: list[tuple[str, int, list[str]]] = [(game, hv, [])]
    serial = 0
    for op in draw(st.lists(st.sampled_from("aaaatn"), min_size=1, max_size=14)):
        if op == "a":
            serial += 1
            moves = moves + ["m%d-x%d" % (len(moves), serial % 3)]
        elif op == "t" and moves:
            moves = moves[:-1]
            hv += 1
        elif op == "n":
            game, hv, moves = "g%d" % (hv + 1), hv + 1, []
        states.append((game, hv, moves))
    order = draw(st.permutations(list(range(len(states)))))
    return states, order


@settings(max_examples=300, deadline=None)
@given(_histories(), st.booleans())
def test_no_order_of_reports_cuts_a_move_that_stands(
    life: tuple[list[tuple[str, int, list[str]]], list[int]], as_moves: bool
) -> None:
    states, order = life
    final_of: dict[int, list[str]] = {}  # a version's last history: every earlier one is a prefix of it
    for _game, hv, moves in states:
        final_of[hv] = moves
    m = BoardMirror()
    for i in order:
        game, hv, moves = states[i]
        if as_moves and moves:
            _move(m, game, hv, moves, len(moves) - 1)
        else:
            m.report(_report(game, hv, moves))
        if m.hv >= 1:
            held = final_of[m.hv]
            assert m.moves == held[: len(m.moves)], (m.moves, m.hv, held)
    # The freshest word, then the moves it asks for: the mirror is the board's game.
    game, hv, moves = states[-1]
    out = m.report(_report(game, hv, moves))
    while out.fetch_from is not None:
        start = out.fetch_from
        for k in range(start, len(moves)):
            out = m.move(game, hv, k, moves[k], digest_of(game, moves[: k + 1]))
            if out.fetch_from is not None:
                break
        else:
            out = m.report(_report(game, hv, moves))
    assert (m.game, m.moves) == (game, moves) and m.synced()


# --- another protocol version ------------------------------------------------------------


class _OldBoard:
    """A port whose board speaks protocol 2 (before clocks): it refuses our hello as such a
    board does (its session's text: zuni_link.session, v_hello)."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.lock = threading.Lock()

    @property
    def in_waiting(self) -> int:
        return len(self.out)

    def read(self, size: int = 1) -> bytes:
        with self.lock:
            data = bytes(self.out[:size])
            del self.out[:size]
        if not data:
            time.sleep(0.01)
        return data

    def write(self, data: bytes) -> int:
        seq, verb, body, _ = codec.decode(data.rstrip(b"\n"))
        if verb == "hello":
            reply = (
                "%d version board speaks link protocol 2, host offered %s: update the host (zuni) or the firmware"
                % (
                    seq,
                    body.split(" ")[0],
                )
            )
            with self.lock:
                self.out += codec.encode(1, "err", reply)
        return len(data)

    def close(self) -> None:
        pass


def test_a_board_of_another_protocol_version_gets_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import zuniboard.link.port as port_module

    monkeypatch.setattr(port_module, "default_opener", lambda url: _OldBoard())
    with pytest.raises(LinkError, match="another link protocol: board speaks link protocol 2, host offered proto=3"):
        BoardLink.open("old-board", timeout=1.5)
