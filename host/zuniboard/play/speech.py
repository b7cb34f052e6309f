"""The terminal's speaker (``zuni play --speak``): what a player must hear
(``zuniboard.games.spoken``) said aloud through a text-to-speech ``Voice`` in a worker
thread, so that the game loop never waits on speech; a move cuts short what is still
queued, so that speech never lags behind the board.
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import wave
from typing import Any, Protocol, TextIO

from zuniboard.games.spoken import Utterance, utterance


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
