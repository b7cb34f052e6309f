"""The computer's searches of `zuni play`, each in a worker thread: the computer's move
and hints. A search is for one position (its generation ``gen``, counted by the game
controller); its answers are posted as ``SearchPost`` values (``Found``, ``Searching``,
``Graded``, ``SearchFailed``), and the controller drops those of an old generation.
``cancel()`` stops them all.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import zuni
from zuniboard.ai import SearchInfo, SearchPlayer, analyze, book, tablebase
from zuniboard.games.words import table_words
from zuniboard.play.grades import MoveGrade, grade

# A hint on Mosona's proof (docs/rules.md, "Who wins Mosona?"), at any level: following
# the hints as North wins.
PROVEN_WORDS = "North wins with best play: this move keeps to the proof"


@dataclass(frozen=True, slots=True)
class Found:
    """The move a search of ``what`` (ai, hint) found for ``side`` in generation ``gen``;
    ``verdict``: a hint's endgame-table verdict (or the proof's), in words ('' none)."""

    what: str
    gen: int
    side: str
    move: str
    verdict: str = ""


@dataclass(frozen=True, slots=True)
class Searching:
    """How the search for ``side`` goes (posted on the way)."""

    gen: int
    side: str
    info: SearchInfo


@dataclass(frozen=True, slots=True)
class Graded:
    """The grade of move ``index`` (``side``'s)."""

    gen: int
    side: str
    index: int
    grade: MoveGrade


@dataclass(frozen=True, slots=True)
class SearchFailed:
    """A search failed (a bug in it): ``why`` starts with what it searched for."""

    gen: int
    side: str
    why: str


SearchPost = Found | Searching | Graded | SearchFailed


@dataclass
class Job:
    """A search in a worker thread: for position generation ``gen``."""

    gen: int
    what: str  # "ai", "hint" or "grade"
    side: str
    stop: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None


class Thinking:
    def __init__(self, post: Callable[[SearchPost], None], seed: int | None, deterministic: bool) -> None:
        self.post = post
        self.seed = seed
        self.deterministic = deterministic
        self.jobs: list[Job] = []

    def cancel(self) -> None:
        for job in self.jobs:
            job.stop.set()
        self.jobs = []

    def start(self, what: str, gen: int, side: str, game: zuni.Game, level: int, **limits: Any) -> None:
        """Searches ``game`` (copied) at ``level``; posts ``Found`` (the move's text and a
        table verdict), ``Searching`` on the way, ``SearchFailed``. A hint in a position an
        endgame table covers is the table's best move, with its verdict in words (``win in
        5 moves ...``; else '')."""
        job = Job(gen, what, side)
        self.jobs = [j for j in self.jobs if j.thread is not None and j.thread.is_alive()]
        if what == "grade":
            self._grade(job, game.copy(), **limits)
            return

        def progress(info: SearchInfo) -> None:
            self.post(Searching(job.gen, job.side, info))

        player = SearchPlayer(
            level, self.seed, deterministic=self.deterministic, progress=progress, stop=job.stop, **limits
        )
        position = game.copy()

        def work() -> None:
            try:
                proven = book.book_move(position) if what == "hint" else None
                if proven is not None:  # Mosona's proof: the hint is North's winning move
                    self.post(Found(what, job.gen, side, proven.text(), PROVEN_WORDS))
                    return
                verdict = _table_verdict(position) if what == "hint" else None
                if verdict is not None and verdict.best_moves:
                    words = table_words(verdict.result, verdict.moves)
                    self.post(Found(what, job.gen, side, verdict.best_moves[0].text(), words))
                    return
                move = player.choose(position)
                self.post(Found(what, job.gen, side, move.text()))
            except Exception as exc:  # a bug in the search must not stop the game
                self.post(SearchFailed(job.gen, side, "%s: %r" % (what, exc)))

        job.thread = threading.Thread(target=work, name="zuni-%s" % what, daemon=True)
        self.jobs.append(job)
        job.thread.start()

    def _grade(self, job: Job, game: zuni.Game, **limits: Any) -> None:
        """Grades the last move of ``game``; posts ``Graded``
        (the endgame tables where they cover the position, else a search of ``limits``)."""
        index = len(game.move_stack) - 1
        if "node_limit" in limits and "time_limit" not in limits:
            limits["time_limit"] = None  # by node counts alone: the same grade under any load

        def work() -> None:
            try:
                verdict = analyze(game, index, stop=job.stop, **limits)
                if not job.stop.is_set():
                    self.post(Graded(job.gen, job.side, index, grade(verdict)))
            except Exception as exc:  # a bug in the analysis must not stop the game
                self.post(SearchFailed(job.gen, job.side, "grade: %r" % (exc,)))

        job.thread = threading.Thread(target=work, name="zuni-grade", daemon=True)
        self.jobs.append(job)
        job.thread.start()


def _table_verdict(game: zuni.Game) -> tablebase.Verdict | None:
    """The endgame tables' verdict (waits for them to load: this runs in the worker)."""
    try:
        return tablebase.probe(game)
    except (ValueError, OSError):
        return None  # a table that does not fit (damaged, other rules): search instead
