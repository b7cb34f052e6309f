"""Lessons end to end: the real firmware under MicroPython (the virtual board), the lesson
session in process on a real link, and a scripted hand that makes the moves with lifts
and places. For each game, steps of its course: the position set up on the board one
side at a time, the rule lit (the hint's double flash), a wrong legal move explained and
taken back (the pieces put back by hand), a move the rules refuse explained from the
board's own error report, the right move, the lesson's reply carried out, the next step."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from waiting import wait_until

from zuniboard.learn.controller import LessonController
from zuniboard.learn.lessons import load_course
from zuniboard.learn.session import LessonSession
from zuniboard.link.client import BoardLink
from zuniboard.paths import HARDWARE_DIR
from zuniboard.play.connect import SimHand
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

try:
    micropython_executable()
    from zuniboard.virtual.board import Hand, VirtualBoard
except (MicroPythonMissing, ImportError) as exc:  # pragma: no cover
    pytest.skip("no virtual board: %s" % exc, allow_module_level=True)

FAST = {"scan_ms": 5, "debounce_scans": 2, "stable_ms": 50, "commit_ms": 150, "error_ms": 400, "chain_settle_ms": 600}


class Said:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def message(self, kind: str, text: str) -> None:
        self.lines.append((kind, text))

    def since(self, mark: int, kind: str | None = None) -> list[str]:
        return [t for k, t in self.lines[mark:] if kind is None or k == kind]


def _layout(name: str, tmp: Path) -> Path:
    data = json.loads((HARDWARE_DIR / "layouts" / (name + ".json")).read_text())
    data["timing"] = FAST
    path = tmp / (name + "-fast.json")
    path.write_text(json.dumps(data))
    return path


def pump_until(session: LessonSession, what: str, predicate: Any, timeout: float = 30.0) -> None:
    said = session.ui.lines  # type: ignore[attr-defined]
    wait_until(predicate, lambda: "%s; said last: %s" % (what, said[-6:]), timeout, step=lambda: session.pump(0.02))


def _in_play(c: LessonController, step_id: str) -> Any:
    return lambda: c.step.id == step_id and c.state == "doing" and c.phase == "play"


# (game, layout, first step, [(step id, wrong attempt or "", the move)])
CASES = [
    ("mosona", "board25", "jump", [("jump", "s3xm4-n4", "s3xm4-m5"), ("compulsory", "m8-m9", "s3xm4-m5")]),
    ("kolowis", "board49", "chain-stop", [("chain-stop", "", "m6xm7-m8"), ("chain-on", "m6xm7-m8", "m6xm7-m8xm9-m10")]),
    ("awithlaknakwe", "board168", "custody", [("custody", "e5-d6", "e5-f6"), ("safe", "e5-e6", "e5-f6")]),
]


@pytest.mark.parametrize(("game", "layout", "first", "steps"), CASES, ids=[c[0] for c in CASES])
def test_lessons_on_the_virtual_board(game: str, layout: str, first: str, steps: Any, tmp_path: Path) -> None:
    course = load_course(game)
    start = course.step_index(first)
    with VirtualBoard(str(_layout(layout, tmp_path)), pieces="start", flash=tmp_path / "flash.img") as vb:
        link = BoardLink.open(vb.port_path, timeout=10.0)
        try:
            ui = Said()
            control = LessonController(course, hand=True, start_at=start)
            session = LessonSession(link, control, ui, hand=SimHand(vb))
            hand = Hand(vb, seed=7, speed=4.0, bounce=False)
            session.start(timeout=20.0)
            for step_id, wrong, right in steps:
                pump_until(session, "step %s set up" % step_id, _in_play(control, step_id))
                step = control.step
                assert vb.sensors() == {
                    str(control.game.geometry.names[i]) for i, p in enumerate(control.game.board) if p
                }, "the position stands on the board"
                if step.show:
                    pump_until(session, "the rule lit", lambda: any(vb.leds().values()))
                if wrong:
                    mark = len(ui.lines)
                    legal = {m.text() for m in control.game.legal_moves()}
                    if wrong in legal:
                        hand.play(control.game, wrong)
                        pump_until(session, "the wrong move explained", lambda mark=mark: bool(ui.since(mark, "wrong")))
                        assert wrong in ui.since(mark, "wrong")[0]
                        assert control.words(step.wrong.get(wrong, step.why)) in ui.since(mark, "wrong")[0]
                        # SimHand puts the pieces back where the board blinks; play goes on.
                        pump_until(session, "the wrong move taken back", _in_play(control, step_id))
                        assert link.moves == []
                    else:
                        origin, _, dest = wrong.partition("-")
                        hand.lift(origin)
                        hand.place(dest)
                        pump_until(session, "the refusal explained", lambda mark=mark: bool(ui.since(mark, "wrong")))
                        said = " ".join(ui.since(mark, "wrong"))
                        assert said.startswith("not legal: ")
                        assert control.words(step.wrong.get(wrong, step.why)) in said
                        # A mistake is a red triple flash (three 100 ms flashes, then 0.5 s
                        # dark: docs/leds.md): watched until a flash is lit, not read once.
                        pump_until(
                            session,
                            "the error shows red",
                            lambda: any(rgb[0] > max(rgb[1], rgb[2]) for rgb in vb.leds().values()),
                        )
                        hand.lift(dest)
                        hand.place(origin)
                mark = len(ui.lines)
                hand.play(control.game, right)
                pump_until(session, "step %s done" % step_id, lambda step_id=step_id: step_id in control.solved)
                assert any(right in t and "right" in t for t in ui.since(mark, "move"))
                assert ui.since(mark, "done")
        finally:
            link.close()


def test_a_puzzle_on_the_virtual_board(tmp_path: Path) -> None:
    """A "win in N" puzzle of Mosona: a wrong first move explained (the table's words) and
    taken back, then the line played, the table's defence shown and carried out."""
    from zuniboard.learn.puzzles import as_course, load_puzzles

    p = next(q for q in load_puzzles("mosona") if q.kind == "table" and q.n >= 3 and q.wrong)
    course = as_course([p], "mosona")
    with VirtualBoard(str(_layout("board25", tmp_path)), pieces="start", flash=tmp_path / "flash.img") as vb:
        link = BoardLink.open(vb.port_path, timeout=10.0)
        try:
            ui = Said()
            control = LessonController(course, hand=True)
            session = LessonSession(link, control, ui, hand=SimHand(vb))
            hand = Hand(vb, seed=3, speed=4.0, bounce=False)
            session.start(timeout=20.0)
            pump_until(session, "the puzzle set up", _in_play(control, p.id))
            key = next(iter(p.wrong))
            wrong = key.split(":", 1)[1]
            mark = len(ui.lines)
            hand.play(control.game, wrong)
            pump_until(session, "the wrong move explained", lambda: bool(ui.since(mark, "wrong")))
            assert p.wrong[key] in ui.since(mark, "wrong")[0]
            pump_until(session, "the wrong move taken back", _in_play(control, p.id))
            for i, entry in enumerate(p.line):
                if i % 2:
                    # The defence: shown on the board, carried out by the terminal's hand.
                    pump_until(session, "the defence %s" % entry[0], lambda n=i + 1: len(link.moves) >= n)
                    assert link.moves[i] == entry[0]
                else:
                    pump_until(session, "the player's turn", lambda n=i: len(link.moves) >= n and control.k == n)
                    hand.play(control.game, entry[0])
            pump_until(session, "solved", lambda: p.id in control.solved)
            assert link.moves == [e[0] for e in p.line]
        finally:
            link.close()
