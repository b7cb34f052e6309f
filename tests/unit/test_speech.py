"""Spoken moves (docs/play.md, *Spoken moves*): what the game says aloud, the speaker's
queue (never waiting, a move cuts short what is queued), the questions where / moves /
last, and where Debian's espeak-ng is installed (tools/ensure_speech.sh) that pyttsx3
really makes sound of the words.

The words are checked as the game controller says them (``controller.GameController``
with made-up times), not as hand-written lines, so that a change of the controller's
wording that speech no longer understands fails here."""

from __future__ import annotations

import array
import math
import shutil
import subprocess
import sys
import threading
import time
import wave
from pathlib import Path

import pytest

from zuniboard.games.spoken import Utterance, move_spoken, moves_spoken, utterance
from zuniboard.play.actions import Say, Think
from zuniboard.play.controller import GameController
from zuniboard.play.seats import seats_for
from zuniboard.play.speech import Speaker
from zuniboard.play.thinking import Found


def opened(players: dict[str, str | None], ruleset: str = "mosona") -> GameController:
    c = GameController(hand=True, deterministic=True, show_move_s=2.0)
    c.open("g1", ruleset, "", seats_for(ruleset, players), [], number=3, now=0.0)
    c.board_state({"phase": "play"}, 0.0)
    return c


def heard(actions: list) -> list[str]:  # type: ignore[type-arg]
    out = []
    for a in actions:
        if isinstance(a, Say):
            u = utterance(a.tone, a.text)
            if u is not None:
                out.append(u.text)
    return out


def test_move_texts_are_said_as_words() -> None:
    assert move_spoken("m6-m5") == "m6 to m5"
    assert move_spoken("s3xm4-m5") == "s3 takes m4 to m5"
    assert move_spoken("n4xn5-n6xm6-m5") == "n4 takes n5 to n6, takes m6 to m5"
    assert move_spoken("@d2") == "a piece down on d2"
    assert moves_spoken("m6-m5: a capture is compulsory: s3xm4-m5") == (
        "m6 to m5: a capture is compulsory: s3 takes m4 to m5"
    )
    assert moves_spoken("game #12 of e14") == "game #12 of e14", "only moves are rewritten"


def test_each_move_of_every_side_the_computers_with_what_hands_do() -> None:
    c = opened({"south": "human", "north": "ai:1"})
    assert heard(c.line("s3xm4-m5", 0.0)) == []  # the hand makes it: said when the board has it
    acts = c.board_moves("g1", ["s3xm4-m5"], True, 1.0)
    assert heard(acts) == ["South, s3 takes m4 to m5"]
    think = next(a for a in c.tick(1.0) if isinstance(a, Think))
    assert heard(c.tick(1.0)) == [], "thinking is not said"
    acts = c.answer(Found("ai", think.gen, "north", "n5xm5-m4"), 1.2)
    assert heard(acts) == ["North, n5 takes m5 to m4; take m5 off"]
    assert [u.cuts for a in acts if isinstance(a, Say) for u in [utterance(a.tone, a.text)] if u] == [True]
    assert heard(c.replied("host_move", ("n5xm5-m4",), 1.3)) == [], "the hand at work is not said"
    acts = c.board_moves("g1", ["s3xm4-m5", "n5xm5-m4"], True, 4.0)
    assert heard(acts) == ["South to move"], "the computer's move said once, then whose turn"


def test_refusals_mistakes_take_backs_hints_and_results() -> None:
    c = opened({"south": "human", "north": "human"})
    assert heard(c.line("m6-m5", 0.0)) == ["m6 to m5: a capture is compulsory: s3 takes m4 to m5"]
    acts = c.board_event("wrong", "missing: m6; extra: m5", 0.5)
    assert heard(acts) == [
        "m6 to m5: a capture is compulsory: s3 takes m4 to m5 (put a piece back on m6; take the piece off m5)"
    ]
    c.board_moves("g1", ["s3xm4-m5"], True, 1.0)
    acts = c.board_moves("g1", [], True, 2.0)  # the board took the move back
    assert heard(acts) == [
        "took back 1 move; on the board: put a piece back on m4 s3; take the piece off m5 (the blinking points)"
    ]
    c.board_state({"phase": "play"}, 2.5)
    assert heard(c.line("hint", 3.0)) == [], "looking for a move is not said"
    c.helping.hint_table = "win in 3 moves (2 of them yours)"
    acts = c.replied("hint", ("s3xm4-m5",), 3.5)
    assert heard(acts) == ["hint: s3 takes m4 to m5; win in 3 moves"]
    c.line("resign", 4.0)
    acts = c.line("yes", 4.1)
    acts = c.replied("resign", ("south",), 4.2)
    assert heard(acts) == ["North wins: South resigned"]


def test_a_flag_about_to_fall_is_said_once_a_move() -> None:
    c = GameController(hand=True, deterministic=True)
    state = {"phase": "play", "tc": "1", "clock": "15000,-,60000,-", "running": "south"}
    c.open("g1", "mosona", "", seats_for("mosona", {"north": "human"}), [], number=1, now=0.0, state=state)
    c.board_state(state, 0.0)
    assert heard(c.tick(1.0)) == [], "15 s left: not low yet"
    assert heard(c.tick(5.5)) == ["South: 10 seconds left on the clock"]
    assert heard(c.tick(7.0)) == [], "once a move"


def test_questions_where_moves_and_last() -> None:
    c = opened({"south": "human", "north": "human"})
    where = next(a.text for a in c.line("where", 0.0) if isinstance(a, Say))
    assert where.startswith(
        "South to move. South, 12 pieces: m6 m7 m8 m9 s1 s2 s3 s4 s5 s6 s7 s8. North, 12 pieces: m1"
    )
    moves = [a.text for a in c.line("moves s3", 0.0) if isinstance(a, Say)]
    assert moves == ["s3, South piece: 1 move: s3xm4-m5 (lift s3, jump m4 to m5, take m4 off)"]
    assert heard(c.line("/m m6", 0.0)) == [
        "m6, South piece: no legal move now (a capture is compulsory: s3 takes m4 to m5)"
    ]
    assert [a.text for a in c.line("moves", 0.0) if isinstance(a, Say)] == ["moves: name a point, e.g. moves m5"]
    assert next(a.text for a in c.line("moves q9", 0.0) if isinstance(a, Say)).startswith("moves q9: no such point")
    assert [a.text for a in c.line("last", 0.0) if isinstance(a, Say)] == ["no move yet"]
    c.board_moves("g1", ["s3xm4-m5"], True, 1.0)
    assert heard(c.line("last", 1.0)) == ["1. South played s3 takes m4 to m5: lift s3, jump m4 to m5, take m4 off"]
    where = next(a.text for a in c.line("/w", 1.0) if isinstance(a, Say))
    assert where.startswith("North to move. North, 11 pieces: m1 m2 m3 n1") and "South, 12 pieces: m5 m6" in where


def test_the_page_announces_each_line_once_by_its_key() -> None:
    c = opened({"south": "human", "north": "human"})
    c.line("m6-m5", 0.0)
    first = c.view()["announce"]
    assert first[-1][1:] == ["m6 to m5: a capture is compulsory: s3 takes m4 to m5", False]
    c.board_moves("g1", ["s3xm4-m5"], True, 1.0)
    second = c.view()["announce"]
    assert second[: len(first)] == first, "the same keys for the same lines"
    assert ["South, s3 takes m4 to m5", True] in [a[1:] for a in second[len(first) :]]


class HeldVoice:
    """A voice that holds each utterance until released (or stopped): what a slow speech
    engine does, at the pace a test sets."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.stopped = 0
        self.go = threading.Event()
        self.speaking = threading.Event()

    def say(self, text: str) -> None:
        self.started.append(text)
        self.speaking.set()
        self.go.wait(30)
        self.go.clear()
        self.speaking.clear()

    def stop(self) -> None:
        self.stopped += 1
        self.go.set()


def test_the_speaker_never_waits_and_a_move_cuts_short_what_is_queued(tmp_path: Path) -> None:
    voice = HeldVoice()
    transcript = (tmp_path / "spoken.txt").open("w", encoding="utf-8")
    speaker = Speaker(voice, transcript)
    try:
        speaker.put(Utterance("South, m6 to m5", cuts=True))
        assert voice.speaking.wait(10), "the worker says it"
        # While the voice is busy, hear() returns at once: the game loop never waits.
        speaker.hear("wrong", "m6-m5: a capture is compulsory: s3xm4-m5")
        speaker.hear("hint", "hint for south: s3xm4-m5 (lift s3, ...), shown on the board")
        assert voice.started == ["South, m6 to m5"]
        speaker.hear("ai", "north plays n5xm5-m4: lift n5, jump m5 to m4, take m5 off (ai:3)")
        assert voice.stopped == 1, "the move stops what is being said"
        assert speaker.dropped == ["m6 to m5: a capture is compulsory: s3 takes m4 to m5", "hint: s3 takes m4 to m5"]
        deadline = time.monotonic() + 10
        while len(voice.started) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        voice.go.set()
        assert speaker.wait_idle(10)
        assert voice.started == ["South, m6 to m5", "North, n5 takes m5 to m4; take m5 off"]
    finally:
        voice.go.set()
        speaker.close()
        transcript.close()
    lines = (tmp_path / "spoken.txt").read_text(encoding="utf-8").splitlines()
    assert lines == ["South, m6 to m5", "North, n5 takes m5 to m4; take m5 off"]


def test_a_failing_engine_is_said_once_and_the_game_goes_on() -> None:
    class Broken:
        def say(self, text: str) -> None:
            raise RuntimeError("driver gone")

        def stop(self) -> None:
            pass

    speaker = Speaker(Broken())
    speaker.hear("move", "1. south m6-m5")
    speaker.hear("move", "2. north n5xm5-m4")
    assert speaker.wait_idle(10)
    speaker.close()
    assert speaker.errors == ["driver gone"] and speaker.voice is None


SAY = "North, n5 takes m5 to m4; take m5 off"


def _loudness(path: Path) -> tuple[float, float]:
    """(seconds, RMS of the 16-bit samples) of a wav file."""
    with wave.open(str(path)) as w:
        assert w.getsampwidth() == 2
        samples = array.array("h", w.readframes(w.getnframes()))
        seconds = w.getnframes() / w.getframerate()
    rms = math.sqrt(sum(s * s for s in samples) / max(1, len(samples)))
    return seconds, rms


def _pyttsx3_engine() -> str:
    """'' when pyttsx3 finds a speech engine here, else why not."""
    script = "import pyttsx3; pyttsx3.init()"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    return "" if done.returncode == 0 else (done.stderr.strip().splitlines() or ["?"])[-1]


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed (tools/ensure_speech.sh)")
def test_pyttsx3_makes_sound_of_the_computers_move(tmp_path: Path) -> None:
    """What the speaker hands to pyttsx3 becomes audio: pyttsx3's espeak-ng driver (in
    a process of its own: the driver keeps its file target) writes it to a wav, which is
    long enough for the words and far from silent. espeak-ng itself is the yardstick."""
    why = _pyttsx3_engine()
    if why:
        pytest.skip("pyttsx3 finds no engine: %s" % why)
    wav = tmp_path / "move.wav"
    script = "import pyttsx3, sys; e = pyttsx3.init(); e.save_to_file(sys.argv[1], sys.argv[2]); e.runAndWait()"
    # pyttsx3 2.99's espeak-ng driver writes the file from espeak's callback thread; on a
    # machine at load ~20 its loop once ended with no file written (seen in a full run).
    # Three tries: audio must come out of one, with every try's exit status checked.
    for _ in range(3):
        subprocess.run([sys.executable, "-c", script, SAY, str(wav)], check=True, capture_output=True, timeout=120)
        if wav.exists():
            break
    assert wav.exists(), "pyttsx3 wrote no wav in three tries"
    seconds, rms = _loudness(wav)
    assert 1.0 < seconds < 15.0, seconds
    assert rms > 500, "silent: RMS %.0f" % rms
    ref = tmp_path / "ref.wav"
    subprocess.run(["espeak-ng", "-w", str(ref), SAY], check=True, capture_output=True, timeout=60)
    ref_seconds, ref_rms = _loudness(ref)
    assert ref_rms > 500 and abs(seconds - ref_seconds) < 0.5 * ref_seconds, (seconds, ref_seconds)
