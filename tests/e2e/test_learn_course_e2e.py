"""Every step of each game's course, end to end: the real firmware under MicroPython (the
virtual board), the lesson session on a real link, the terminal's hand (SimHand) setting
each position up one side at a time and carrying out the lesson's replies, and a
scripted player making the moves the lesson asks for with lifts and places: HINT
pressed where a step wants it, a take-back made by putting the pieces back (``undo``),
forced passes left to the board. The wrong attempts are test_learn_e2e's (a few steps)
and test_learn_lessons's (every step, on the pure controller); here the whole course
must run to its last word on the board."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from waiting import wait_until

from zuniboard.learn import controller as lesson_controller
from zuniboard.learn.controller import LessonController
from zuniboard.learn.lessons import is_reply, load_course
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
COURSES = [("mosona", "board25"), ("kolowis", "board49"), ("awithlaknakwe", "board168")]


class Said:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def message(self, kind: str, text: str) -> None:
        self.lines.append((kind, text))


def _layout(name: str, tmp: Path) -> Path:
    data = json.loads((HARDWARE_DIR / "layouts" / (name + ".json")).read_text())
    data["timing"] = FAST
    path = tmp / (name + "-fast.json")
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(("game", "layout"), COURSES, ids=[c[0] for c in COURSES])
def test_a_whole_course_on_the_virtual_board(
    game: str, layout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A person reads the "done" for 2 s before the next step; the script needs no pause.
    monkeypatch.setattr(lesson_controller, "NEXT_S", 0.2)
    course = load_course(game)
    started = time.monotonic()
    with VirtualBoard(str(_layout(layout, tmp_path)), pieces="start", flash=tmp_path / "flash.img") as vb:
        link = BoardLink.open(vb.port_path, timeout=10.0)
        ui = Said()
        control = LessonController(course, hand=True)
        session = LessonSession(link, control, ui, hand=SimHand(vb, seed=5))
        hand = Hand(vb, seed=11, speed=4.0, bounce=False)

        def pump_until(what: str, predicate: Any, timeout: float = 60.0) -> None:
            wait_until(
                predicate,
                lambda: (
                    "step %s (%d, %s, %s): %s; said last: %s"
                    % (control.step.id, control.index, control.state, control.phase, what, ui.lines[-6:])
                ),
                timeout,
                step=lambda: session.pump(0.02),
            )

        try:
            session.start(timeout=20.0)
            for index, step in enumerate(course.steps):
                # (A step with nothing to do but the setup is done as soon as it stands.)
                pump_until(
                    "set up",
                    lambda index=index, step=step: (
                        step.id in control.solved
                        or (control.index == index and control.state == "doing" and control.phase == "play")
                    ),
                )
                while control.index == index and control.state == "doing":
                    entry = control.entry()
                    assert entry is not None
                    k = control.k
                    if entry[0] == "hint" and not control.hinted:
                        vb.press("hint")  # the board's HINT button, as the lesson asks
                        pump_until("the hint", lambda: control.hinted)
                        continue
                    if entry[0] == "takeback":
                        session.key("undo")  # the terminal's hand puts the pieces back
                    elif not (is_reply(entry) or entry[0] == "pass"):
                        move = control.expected()
                        assert move is not None, entry
                        hand.play(control.game, move.text())
                    # A reply is the terminal's hand's, a pass the board's own.
                    pump_until(
                        "entry %d (%s) done" % (k, " ".join(entry)),
                        lambda k=k: control.k > k or control.state != "doing",
                    )
                pump_until("done", lambda step=step: step.id in control.solved)
                wrong = [t for kind, t in ui.lines if kind in ("wrong", "error")]
                assert wrong == [], "the scripted player never errs: %s" % wrong
            pump_until("the course's last word", lambda: control.state == "finished")
            assert set(control.solved) == {s.id for s in course.steps}
        finally:
            link.close()
    took = time.monotonic() - started
    print("%s: %d steps in %.0f s" % (game, len(course.steps), took))
