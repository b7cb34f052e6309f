"""Grades, the review and help levels of `zuni play` end to end: the real firmware under
MicroPython (the virtual board), the play session in process on a real link, the
terminal's hand (SimHand) setting the position up and making the typed moves.

South (help level ``warn``) plays a blunder: the grade is said, kept for the page's
review, and the moved piece's point flashes red on the board (the board's ``grade``
verb). North (help level ``none``) presses HINT on the board: refused in words, and the
board shows no hint of its own either. South's hint limit runs out after one hint. The
game log keeps the seats' help levels, the hint limit and the blunder's grade with its
move, and `zuni log export` shows them (text and JSON)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from play_helpers import RecordingUI
from waiting import wait_until

from zuniboard.link.client import BoardError, BoardLink
from zuniboard.paths import HARDWARE_DIR
from zuniboard.play.assist import parse_assist
from zuniboard.play.connect import SimHand
from zuniboard.play.session import PlaySession
from zuniboard.play.start_from import start_from
from zuniboard.records.db import Database
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

try:
    micropython_executable()
    from zuniboard.virtual.board import VirtualBoard
except (MicroPythonMissing, ImportError) as exc:  # pragma: no cover
    pytest.skip("no virtual board: %s" % exc, allow_module_level=True)

FAST = {"scan_ms": 5, "debounce_scans": 2, "stable_ms": 50, "commit_ms": 150, "error_ms": 400, "chain_settle_ms": 600}
# South to move: s2xm2-n2xn3-m4xm3-n2 takes all three North pieces; s2xm2-n1 stops after
# one and lets North play on (graded a blunder: "missed a win in 1").
POSITION = "mosona | south to move | south m6 m7 s2 s4 | north n3 m3 m2 | quiet 0"
RED = (255, 0, 0)
BLUE = (0, 40, 255)


def pump_until(session: PlaySession, what: str, predicate: Any, timeout: float = 30.0) -> None:
    ui = session.ui
    wait_until(
        predicate, lambda: "%s; said last: %s" % (what, ui.messages[-6:]), timeout, step=lambda: session.pump(0.02)
    )


def test_grades_review_and_help_levels_on_the_virtual_board(tmp_path: Path) -> None:
    data = json.loads((HARDWARE_DIR / "layouts" / "board25.json").read_text())
    data["timing"] = FAST
    layout = tmp_path / "board25-fast.json"
    layout.write_text(json.dumps(data))
    with (
        Database(tmp_path / "games.sqlite3") as db,
        VirtualBoard(str(layout), pieces="start", flash=tmp_path / "flash.img") as vb,
    ):
        link = BoardLink.open(vb.port_path, timeout=10.0)
        ui = RecordingUI()
        players: dict[str, str | None] = {"south": "human", "north": "human"}
        session = PlaySession(
            link,
            db,
            ui,
            players=players,
            seed=1,
            deterministic=True,
            hand=SimHand(vb, seed=2),
            start=start_from(POSITION, db),
        )
        session.control.helping.assist = parse_assist("south=warn,north=none", ["south", "north"])
        session.control.helping.hint_limit = 1
        try:
            session.start(timeout=20.0)
            pump_until(session, "the position set up", lambda: session.phase == "play")
            # A bad grade is refused by the board, naming the input, and shows nothing.
            with pytest.raises(BoardError, match="zz9"):
                link.grade("mistake", "zz9")
            with pytest.raises(BoardError, match=re.escape("grade takes mistake|blunder POINT or off")):
                link.grade("great", "m6")
            assert RED not in vb.leds().values()
            # South's one hint of the game, then no more.
            session.key("hint")
            pump_until(session, "south's hint", lambda: session.hint_shown)
            session.key("hint")
            pump_until(session, "the limit said", lambda: ui.find("no hint: south has had the 1 hint", "hint"))

            session.key("s2xm2-n1")
            pump_until(session, "the move made", lambda: session.moves == ["s2xm2-n1"])
            pump_until(session, "the grade said", lambda: ui.find(r"^1\. south s2xm2-n1: blunder", "grade"))
            assert ui.find(r"blunder, missed a win in 1 \(s2xm2-n2xn3-m4xm3-n2\)", "grade")
            # The board flashes the moved piece red, three times a cycle: watched until lit.
            pump_until(session, "n1 flashes red", lambda: vb.leds().get("n1") == RED)
            review = session.control.view()["review"]
            assert review["counts"]["south"]["blunder"] == 1
            assert [(m["move"], m["grade"]) for m in review["moves"]] == [("s2xm2-n1", "blunder")]

            # North plays without help: HINT on the board is refused, and the board's own
            # hint (shown 1 s after a press the host does not answer) is cleared too.
            vb.press("hint")
            pump_until(session, "the refusal", lambda: ui.find("no hint: north plays without hints", "hint"))
            seen: list[Any] = []
            since = [time.monotonic()]

            def no_hint_lit() -> bool:
                # The board's frames for 3 s: past the 1 s after which it shows its own hint.
                seen.append(dict(vb.leds()))
                return time.monotonic() - since[0] >= 3.0 and len(seen) >= 20

            pump_until(session, "3 s of frames", no_hint_lit)
            assert not [frame for frame in seen if BLUE in frame.values()], "a hint was shown on the board"
            # Meanwhile the blunder's light flashed: lit in some frames, dark in others.
            n1 = [frame.get("n1") for frame in seen]
            assert RED in n1 and any(c != RED for c in n1), n1
            assert not session.hint_shown
            # North's move: not graded (no help), and the red light goes with the move.
            north = session.control.state.game.legal_moves()[0].text()
            session.key(north)
            pump_until(session, "north's move", lambda: len(session.moves) == 2)
            seen.clear()
            since[0] = time.monotonic()
            pump_until(session, "3 s of frames after the move", no_hint_lit)
            assert all(frame.get("n1") != RED for frame in seen), "the grade's light outlived the next move"
            assert [m["move"] for m in session.control.view()["review"]["moves"]] == ["s2xm2-n1"]

            # The log: the help each person's seat had, the hint limit, the grade with its move.
            gid = session.db_game
            assert gid is not None
            record = db.get(gid)
            assert record.help == {"south": "warn", "north": "none"} and record.hint_limit == 1
            assert record.move_texts() == ["s2xm2-n1", north]
            assert (record.moves[0].grade, record.moves[1].grade) == ("blunder", None)
            assert record.moves[0].grade_words == "missed a win in 1 (s2xm2-n2xn3-m4xm3-n2)"
            zuni = [str(Path(sys.executable).parent / "zuni"), "log", "export", str(gid), "--db", str(db.path)]
            text = subprocess.run(zuni, capture_output=True, text=True, timeout=60, check=True).stdout
            assert '[Help "south=warn north=none"]' in text and '[HintLimit "1"]' in text
            assert "s2xm2-n1 {[%time " in text and "[%grade blunder missed a win in 1 (s2xm2-n2xn3-m4xm3-n2)]}" in text
            text = subprocess.run(
                [*zuni, "--format", "json"], capture_output=True, text=True, timeout=60, check=True
            ).stdout
            game = json.loads(text)["games"][0]
            assert game["help"] == {"south": "warn", "north": "none"} and game["hint_limit"] == 1
            assert game["moves"][0]["grade"] == "blunder" and "grade" not in game["moves"][1]
        finally:
            session.close()
            link.close()
