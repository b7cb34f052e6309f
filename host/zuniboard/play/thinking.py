"""The computer's searches of `zuni play`, each in a worker thread: the computer's move
and hints. A search is for one position (its generation ``gen``, counted by the game
controller); its answers are posted as ``(what, gen, side, ...)`` tuples, and the
controller drops those of an old generation. ``cancel()`` stops them all.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import zuni
from zuniboard.ai import SearchInfo, SearchPlayer, tablebase
from zuniboard.games.words import table_words


@dataclass
class Job:
    """A search in a worker thread: for position generation ``gen``."""

    gen: int
    what: str  # "ai" or "hint"
    side: str
    stop: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None


class Thinking:
    def __init__(self, post: Callable[[tuple[Any, ...]], None], seed: int | None, deterministic: bool) -> None:
        self.post = post
        self.seed = seed
        self.deterministic = deterministic
        self.jobs: list[Job] = []

    def cancel(self) -> None:
        for job in self.jobs:
            job.stop.set()
        self.jobs = []

    def start(self, what: str, gen: int, side: str, game: zuni.Game, level: int, **limits: Any) -> None:
        """Searches ``game`` (copied) at ``level``; posts ``(what, gen, side, move text,
        table verdict)``, ``("progress", gen, side, info)`` on the way, ``("failed",
        gen, side, why)``. A hint in a position an endgame table covers is the table's
        best move, with its verdict in words (``win in 5 moves ...``; else '')."""
        job = Job(gen, what, side)
        self.jobs = [j for j in self.jobs if j.thread is not None and j.thread.is_alive()]

        def progress(info: SearchInfo) -> None:
            self.post(("progress", job.gen, job.side, info))

        player = SearchPlayer(
            level, self.seed, deterministic=self.deterministic, progress=progress, stop=job.stop, **limits
        )
        position = game.copy()

        def work() -> None:
            try:
                verdict = _table_verdict(position) if what == "hint" else None
                if verdict is not None and verdict.best_moves:
                    words = table_words(verdict.result, verdict.moves)
                    self.post((what, job.gen, side, verdict.best_moves[0].text(), words))
                    return
                move = player.choose(position)
                self.post((what, job.gen, side, move.text(), ""))
            except Exception as exc:  # a bug in the search must not stop the game
                self.post(("failed", job.gen, side, "%s: %r" % (what, exc)))

        job.thread = threading.Thread(target=work, name="zuni-%s" % what, daemon=True)
        self.jobs.append(job)
        job.thread.start()


def _table_verdict(game: zuni.Game) -> tablebase.Verdict | None:
    """The endgame tables' verdict (waits for them to load: this runs in the worker)."""
    try:
        return tablebase.probe(game)
    except (ValueError, OSError):
        return None  # a table that does not fit (damaged, other rules): search instead
