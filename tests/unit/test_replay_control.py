"""The replay controller (zuniboard.replay.control): events in, actions out, no board."""

from __future__ import annotations

import zuni
from zuniboard.ai import analyze
from zuniboard.records.record import GameRecord, MoveEntry, replay
from zuniboard.replay.control import Action, Analyze, Carry, PlayOn, Quit, ReplayController, Say, Show, ShowHint
from zuniboard.replay.cursor import ReplayCursor


def _record(plies: int = 4, ruleset: str = "mosona") -> GameRecord:
    record = GameRecord(ruleset)
    game = replay(record, complete=False)
    for _ in range(plies):
        move = game.legal_moves()[0]
        record.moves.append(MoveEntry(str(move)))
        game.push(move)
    record.id = 7
    return record


def kinds(actions: list[Action]) -> list[str]:
    return [type(a).__name__ for a in actions if not isinstance(a, Say)]


def said(actions: list[Action]) -> str:
    return " | ".join(a.text for a in actions if isinstance(a, Say))


def test_ok_shows_the_next_move_and_the_carried_out_move_steps_forward() -> None:
    record = _record()
    texts = record.move_texts()
    c = ReplayController(ReplayCursor(record))
    assert c.board([], "play", 0.0) == []
    out = c.button("ok", 0.0)
    assert out[0] == Show(texts[0]) and kinds(out) == ["Show"]
    assert c.shown(texts[0], 0.0, True) == []
    again = c.button("ok", 0.1)  # shown, not carried out: say how
    assert kinds(again) == [] and "carry out %s" % texts[0] in said(again)
    out = c.board(texts[:1], "play", 0.5)
    assert c.cursor.ply == 1 and kinds(out) == [] and said(out).startswith("1. South plays %s" % texts[0])
    assert c.view().ply == 1 and c.view().showing == ""
    assert kinds(c.key("next", 1.0)) == ["Show"]


def test_back_on_the_board_and_by_key() -> None:
    record = _record()
    texts = record.move_texts()
    c = ReplayController(ReplayCursor(record, 2), hand=True)
    c.board(texts[:2], "play", 0.0)
    assert c.button("back", 0.0) == []  # the board takes it back itself
    out = c.board(texts[:1], "setup", 0.1)
    assert c.cursor.ply == 1 and kinds(out) == ["SetUp"] and "back at move 1" in said(out)
    assert kinds(c.key("b", 0.2)) == ["TakeBack"]
    c.board([], "setup", 0.3)
    assert c.cursor.at_start()
    assert kinds(c.key("b", 0.4)) == [] and "nothing to step back" in said(c.key("b", 0.4))


def test_the_hand_carries_a_shown_move_out_after_the_show_time() -> None:
    record = _record()
    c = ReplayController(ReplayCursor(record), hand=True, show_s=1.0)
    c.board([], "play", 0.0)
    shown = c.key("n", 0.0)[0]
    assert isinstance(shown, Show)
    move = shown.move
    c.shown(move, 0.0, True)
    assert kinds(c.tick(0.5)) == []
    out = c.tick(1.0)
    assert out == [Carry(move)]
    assert c.tick(2.0) == []  # once


def test_a_move_shown_while_the_board_is_set_up_waits_for_play() -> None:
    record = _record()
    c = ReplayController(ReplayCursor(record))
    c.board([], "setup", 0.0)
    assert kinds(c.button("ok", 0.0)) == []
    assert kinds(c.board([], "play", 0.1)) == ["Show"]
    # a refusal because the board went back to setup: shown again once in play
    assert c.shown(record.move_texts()[0], 0.2, False, "hostmove x: no game in play (the board is in setup)") == []
    assert kinds(c.board([], "play", 0.3)) == ["Show"]


def test_fast_forward_to_a_move_shows_each_move_in_turn() -> None:
    record = _record(4)
    texts = record.move_texts()
    c = ReplayController(ReplayCursor(record), target=3)
    shown = [a.move for a in c.board([], "play", 0.0) if isinstance(a, Show)]
    for i in range(3):
        c.shown(texts[i], 0.0, True)
        shown += [a.move for a in c.board(texts[: i + 1], "play", 0.1) if isinstance(a, Show)]
    assert shown == texts[:3] and c.cursor.ply == 3 and not c.showing


def test_a_move_that_is_not_the_games_is_said_and_blocks_until_taken_back() -> None:
    record = _record(ruleset="kolowis size=short")
    texts = record.move_texts()
    other = next(str(m) for m in zuni.new_game("kolowis size=short").legal_moves() if str(m) != texts[0])
    c = ReplayController(ReplayCursor(record))
    out = c.board([other], "play", 0.0)
    assert "left the replayed game at move 1" in said(out) and c.cursor.ply == 0
    assert kinds(c.button("ok", 0.1)) == [] and kinds(c.key("p", 0.1)) == []
    assert kinds(c.key("b", 0.2)) == ["TakeBack"]
    c.board([], "setup", 0.3)
    assert not c.diverged


def test_hint_asks_for_the_analysis_once_and_shows_the_preferred_move() -> None:
    record = _record(3, "kolowis size=short")
    c = ReplayController(ReplayCursor(record, 1))
    c.board(record.move_texts()[:1], "play", 0.0)
    out = c.button("hint", 0.0)
    assert kinds(out) == ["Analyze"] and out[-1] == Analyze(1)
    assert kinds(c.key("h", 0.0)) == []  # already asked
    game = replay(record, complete=False)
    a = analyze(game, 1, time_limit=None, node_limit=300)
    out = c.analysed(1, a)
    assert kinds(out) == ["ShowHint"] and out[-1] == ShowHint(str(a.best_move))
    words = said(out)
    assert words.startswith("move 2, North %s" % a.move)
    assert ("the best move" in words) == a.is_best and str(a.best_move) in words
    assert c.view().analysis == words
    assert kinds(c.button("hint", 0.1)) == ["ShowHint"]  # known: shown again, not thought again
    c.board(record.move_texts()[:2], "play", 0.2)
    assert c.view().analysis == ""  # about another move
    assert c.analysed(5, a) == []  # not asked


def test_play_and_quit_end_the_replay() -> None:
    record = _record()
    c = ReplayController(ReplayCursor(record, 2))
    c.board(record.move_texts()[:2], "play", 0.0)
    out = c.key("play north=ai:2", 0.0)
    assert out == [PlayOn("play north=ai:2", 2)] and c.done
    assert ReplayController(ReplayCursor(record)).key("q", 0.0) == [Quit()]
    assert "replay keys" in said(ReplayController(ReplayCursor(record)).key("xyz", 0.0))
