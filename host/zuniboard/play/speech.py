"""Spoken moves: what the game says, said aloud, briefly and in the game's terms.

``spoken(tone, text)`` turns one of the game controller's lines (``controller.Action``
``say``: a tone and a text, docs/play.md) into what a player hears, or '' for what a
player need not hear (the computer thinking, the terminal's hand at work): each move of
every side (``South, m6 to m5``), the computer's with what hands do (``North, n5 takes
m5 to m4; take m5 off``), refusals with the rule, the board's mistakes and events, hints
with an endgame table's ``win in N``, a flag about to fall, results, and the answers to
``where``, ``moves`` and ``last``. The browser page speaks the same words
(``web.world``'s announcements, the page's speech setting).

``Speaker`` says them on the terminal (``zuni play --speak``) through a text-to-speech
``Voice`` in a worker thread, so that the game loop never waits on speech; a move cuts
short what is still queued, so that speech never lags behind the board.

>>> spoken("ai", "north plays n5xm5-m4: lift n5, jump m5 to m4, take m5 off (ai:3)")
'North, n5 takes m5 to m4; take m5 off'
>>> spoken("move", "2. south m6-m5")
'South, m6 to m5'
>>> spoken("ai", "north (ai:3) is thinking")
''
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import wave
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TextIO

from zuniboard.play.words import side_title

# A move in RULES.md's text form: point names joined by - (a step or a landing), x (a
# piece jumped) or @ (a drop), or a drop alone.
_POINT = r"[a-z]{1,2}\d{1,2}"
MOVE_TEXT = re.compile(r"(?<![\w@-])(?:@%s|%s(?:[-x@]%s)+)(?![\w-])" % (_POINT, _POINT, _POINT))
# The tones whose line is a move: the next of them cuts short what is still queued.
MOVE_TONES = ("move", "ai")


def move_spoken(text: str) -> str:
    """A move's text as it is said: ``s3xm4-m5xm6-m7`` -> ``s3 takes m4 to m5, takes m6
    to m7``; ``m6-m5`` -> ``m6 to m5``; ``@d2`` -> ``a piece down on d2``.

    >>> move_spoken("s3xm4-m5xm6-m7")
    's3 takes m4 to m5, takes m6 to m7'
    """
    if text.startswith("@"):
        return "a piece down on %s" % text[1:]
    if "@" in text:
        piece, _, dest = text.partition("@")
        return "%s down on %s" % (piece, dest)
    parts = re.split(r"([-x])", text)
    out = parts[0]
    for i in range(1, len(parts) - 1, 2):
        sep, name = parts[i], parts[i + 1]
        if sep == "x":
            out += "%stakes %s" % (", " if i > 1 else " ", name)
        else:
            out += " to %s" % name
    return out


def moves_spoken(text: str) -> str:
    """Every move written in ``text`` said as words (``a capture is compulsory:
    s3xm4-m5`` -> ``... s3 takes m4 to m5``)."""
    return MOVE_TEXT.sub(lambda m: move_spoken(m.group(0)), text)


def _first_sentence(text: str) -> str:
    head, _, _ = text.partition(". ")
    return head


def _spoken_move_line(text: str) -> str:
    # ``3. south m6-m5`` (a note in brackets may follow)
    match = re.match(r"^\d+\. (\S+) (\S+)(.*)$", text)
    if match is None:
        return moves_spoken(text)
    side, move, note = match.groups()
    if "carried out on the board" in note:
        return ""  # the computer's move, said when it was shown: not again
    line = "%s, %s" % (side_title(side), move_spoken(move))
    if "instead of the computer's" in note:
        line += ", not the computer's move"
    elif "cannot tell it from" in note:
        line += ", the same as %s" % move_spoken(note.split("cannot tell it from ", 1)[1].split(",")[0])
    return line


def _spoken_ai(text: str) -> str:
    # ``north plays n5xm5-m4: lift n5, jump m5 to m4, take m5 off (ai:3)``
    match = re.match(r"^(\S+) plays (\S+): (.*)$", text)
    if match is not None:
        side, move, words = match.groups()
        line = "%s, %s" % (side_title(side), move_spoken(move))
        taken = re.search(r"take (.+?) off", words)
        if taken is not None:
            line += "; take %s off" % taken.group(1)
        return line
    match = re.match(r"^(\S+) \(\S+\) waits for (\S+)", text)
    if match is not None:
        return "%s waits for %s" % (side_title(match.group(1)), move_spoken(match.group(2)))
    return ""  # thinking, the terminal's hand at work: nothing a player needs to hear


def _spoken_hint(text: str) -> str:
    # ``hint for south: m5xm6-m7 (lift m5, ...), shown on the board; endgame table: win in 1 move ...``
    match = re.match(r"^hint for \S+: (\S+)", text)
    if match is None:
        return "" if text.startswith("looking for") else moves_spoken(text)
    line = "hint: %s" % move_spoken(match.group(1))
    table = re.search(r"endgame table: ((?:win|lost) in \d+ moves?|drawn with best play)", text)
    if table is not None:
        line += "; %s" % table.group(1)
    return line


def _spoken_info(text: str) -> str:
    match = re.match(r"^(\S+) to move \(", text)
    if match is not None:
        return "%s to move" % side_title(match.group(1))
    if " offers " in text:
        return moves_spoken(text.split(": type", 1)[0])
    return ""  # help, the log, the terminal's own notes


def _spoken_link(text: str) -> str:
    if text.startswith("board disconnected"):
        return "the board is disconnected"
    if text.startswith("board") and "connected" in text:
        return "the board is connected"
    if text.startswith("the board restarted"):
        return "the board restarted"
    return ""


_BY_TONE: dict[str, Callable[[str], str]] = {
    "move": _spoken_move_line,
    "ai": _spoken_ai,
    "hint": _spoken_hint,
    "info": _spoken_info,
    "link": _spoken_link,
    "over": _first_sentence,
    "wrong": lambda text: moves_spoken(text.removeprefix("the board: ")),
    "board": lambda text: moves_spoken(text.removeprefix("the board: ")),
}


def spoken(tone: str, text: str) -> str:
    """What a player hears of the controller's line ``text`` said in ``tone``; '' for
    nothing. Tones not listed (error, takeback, ask, clock, answer) are said whole, with
    the moves in words."""
    said = _BY_TONE.get(tone, moves_spoken)(text.strip())
    return said.strip()


@dataclass(frozen=True)
class Utterance:
    """One thing to say: ``text``, and whether it is a move (``cuts``: it cuts short
    what is still queued)."""

    text: str
    cuts: bool = False


def utterance(tone: str, text: str) -> Utterance | None:
    """The utterance of a controller line (None: nothing to say)."""
    said = spoken(tone, text)
    return Utterance(said, tone in MOVE_TONES) if said else None


class Voice(Protocol):
    """A text-to-speech engine, used from the ``Speaker``'s worker thread only."""

    def say(self, text: str) -> None:
        """Say ``text``; returns once it is said (or stopped)."""

    def stop(self) -> None:
        """Stop what is being said now (called from another thread)."""


class VoiceUnavailable(RuntimeError):
    """No text-to-speech engine works here; the message says why and what to install."""


class Pyttsx3Voice:
    """pyttsx3: espeak-ng on Linux, NSSpeechSynthesizer on macOS, SAPI on Windows. The
    engine is made in the thread that uses it (``open`` in the worker)."""

    def __init__(self, rate: int = 0) -> None:
        self.rate = rate  # words a minute (0: the engine's own)
        self.engine: Any = None

    @staticmethod
    def check() -> None:
        """Raises ``VoiceUnavailable`` when pyttsx3 or its engine is missing."""
        try:
            import pyttsx3
        except ImportError as exc:
            raise VoiceUnavailable(
                "no speech: the Python package pyttsx3 is missing (%s); pip install pyttsx3" % exc
            ) from exc
        try:
            engine = pyttsx3.init()
            engine.stop()
        except Exception as exc:  # pyttsx3 raises whatever its driver does (OSError, RuntimeError, ...)
            raise VoiceUnavailable(
                "no speech: pyttsx3 found no speech engine (%s: %s); on Linux install espeak-ng "
                "(sudo apt-get install espeak-ng alsa-utils)" % (type(exc).__name__, exc)
            ) from exc
        if sys.platform.startswith("linux"):
            Pyttsx3Voice._check_player()

    @staticmethod
    def _check_player() -> None:
        """On Linux pyttsx3 plays espeak-ng's sound with ``aplay``: without it, or
        without a sound device, every utterance would print ALSA's errors instead."""
        player = shutil.which("aplay")
        if player is None:
            raise VoiceUnavailable("no speech: aplay is missing (sudo apt-get install alsa-utils)")
        with tempfile.TemporaryDirectory() as tmp:
            silence = os.path.join(tmp, "silence.wav")
            with wave.open(silence, "wb") as out:
                out.setnchannels(1)
                out.setsampwidth(2)
                out.setframerate(22050)
                out.writeframes(bytes(2 * 220))  # 10 ms
            try:
                done = subprocess.run([player, "-q", silence], capture_output=True, text=True, timeout=10)
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise VoiceUnavailable("no speech: aplay cannot play (%s)" % exc) from exc
        if done.returncode != 0:
            why = (done.stderr.strip().splitlines() or ["exit status %d" % done.returncode])[-1]
            raise VoiceUnavailable("no speech: no sound device plays here (aplay: %s)" % why)

    def open(self) -> None:
        import pyttsx3

        self.engine = pyttsx3.init()
        if self.rate:
            self.engine.setProperty("rate", self.rate)

    def say(self, text: str) -> None:
        if self.engine is None:
            self.open()
        self.engine.say(text)
        self.engine.runAndWait()

    def stop(self) -> None:
        engine = self.engine
        if engine is not None:
            engine.stop()


class Speaker:
    """Says utterances through ``voice`` in a worker thread; ``hear`` never waits.

    A move (``Utterance.cuts``) drops what is still queued and stops what is being said,
    so the player hears the latest move at once rather than a backlog. ``transcript``:
    each thing said is also written there, one line each (``--speak-log``), and kept in
    ``said`` (the last ``KEPT``), so that a test or a person reads what was spoken."""

    KEPT = 200

    def __init__(self, voice: Voice | None, transcript: TextIO | None = None) -> None:
        self.voice = voice
        self.transcript = transcript
        self.said: list[str] = []  # what was handed to the voice, in order
        self.dropped: list[str] = []  # what a move cut short before it was said
        self._queue: queue.Queue[Utterance | None] = queue.Queue()
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()
        self._speaking = False  # the voice is saying something now (a move stops it)
        self.errors: list[str] = []
        self._thread = threading.Thread(target=self._run, name="zuni-speech", daemon=True)
        self._thread.start()

    def hear(self, tone: str, text: str) -> None:
        """A line the game said: queued to be spoken if a player must hear it."""
        said = utterance(tone, text)
        if said is not None:
            self.put(said)

    def put(self, said: Utterance) -> None:
        with self._lock:
            if said.cuts:
                self._cut()
            self._idle.clear()
            self._queue.put(said)

    def _cut(self) -> None:
        while True:
            try:
                old = self._queue.get_nowait()
            except queue.Empty:
                break
            if old is not None:
                self.dropped.append(old.text)
        if self.voice is not None and self._speaking:
            try:
                self.voice.stop()
            except Exception as exc:  # a driver's own failure: speech goes on without the cut
                self.errors.append("stop: %s" % exc)

    def wait_idle(self, timeout: float) -> bool:
        """True once everything queued is said (tests, the end of a game)."""
        return self._idle.wait(timeout)

    def close(self, timeout: float = 2.0) -> None:
        with self._lock:
            self._cut()
            self._queue.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            said = self._queue.get()
            if said is None:
                return
            self.said.append(said.text)
            del self.said[: -self.KEPT]
            if self.transcript is not None:
                try:
                    self.transcript.write(said.text + "\n")
                    self.transcript.flush()
                except (OSError, ValueError) as exc:
                    self.errors.append("transcript: %s" % exc)
                    self.transcript = None
            if self.voice is not None:
                with self._lock:
                    self._speaking = True
                try:
                    self.voice.say(said.text)
                except Exception as exc:  # the engine failed: say so once, go on silently
                    self.errors.append(str(exc))
                    print("speech stopped: %s" % exc, file=sys.stderr, flush=True)
                    self.voice = None
            with self._lock:
                self._speaking = False
                if self._queue.empty():
                    self._idle.set()


class SpeakingUI:
    """A play UI that also speaks: every message goes to ``ui`` and to ``speaker``."""

    def __init__(self, ui: Any, speaker: Speaker) -> None:
        self.ui = ui
        self.speaker = speaker

    def message(self, kind: str, text: str) -> None:
        self.ui.message(kind, text)
        self.speaker.hear(kind, text)

    def position(self, session: Any) -> None:
        self.ui.position(session)

    def thinking(self, side: str, info: Any) -> None:
        self.ui.thinking(side, info)
