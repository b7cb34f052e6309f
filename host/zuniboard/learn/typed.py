"""What the learner types in a lesson (``LessonController.line``): a command (hint, undo,
again, skip, back, steps, help, quit) or a move, which is made on the board (by the
terminal's hand on the virtual board)."""

from __future__ import annotations

from typing import Protocol

import zuni
from zuniboard.games.words import refusal
from zuniboard.learn.lessons import Course
from zuniboard.play.actions import Action, MakeMove, Quit, Restore, say

LESSON_COMMANDS = ("hint", "undo", "again", "skip", "back", "steps", "help", "quit")
HELP = (
    "make the moves on the board (on the virtual board you may type them); commands: "
    "hint (show the move), undo (put the pieces back as before the last move), again (the "
    "step from its start), skip (the next step), back (the step before), steps (list them), quit"
)


class Lesson(Protocol):
    """What a typed line reads and does of the lesson (``LessonController``)."""

    course: Course
    index: int
    game: zuni.Game
    state: str
    hand: bool
    solved: list[str]
    quit: bool

    def words(self, text: str) -> str: ...
    def hint(self) -> list[Action]: ...
    def begin(self, index: int, now: float) -> list[Action]: ...
    def next_step(self, now: float) -> list[Action]: ...
    def said_too(self, out: list[Action]) -> list[Action]: ...


def typed_line(c: Lesson, text: str, now: float) -> list[Action]:
    """The actions for the line ``text`` typed in lesson ``c``."""
    word = text.strip()
    if not word:
        return []
    low = word.lower().lstrip("/")
    command = next((n for n in LESSON_COMMANDS if n == low or (word.startswith("/") and low and n.startswith(low))), "")
    if command:
        return c.said_too(_command(c, command, now))
    if c.game is None or c.state != "doing":
        return c.said_too([say("wait: the board is being set up", "wrong")])
    try:
        move = c.game.parse_move(word)
    except zuni.MoveError:
        return c.said_too([say("not legal: %s" % (refusal(c.game, word) or word), "wrong")])
    if not c.hand:
        return c.said_too([say("%s: make it on the board" % word, "wrong")])
    return [MakeMove(move)]


def _command(c: Lesson, name: str, now: float) -> list[Action]:
    if name == "hint":
        return c.hint()
    if name == "undo":
        return _undo(c)
    if name == "again":
        return c.begin(c.index, now)
    if name == "skip":
        return c.next_step(now)
    if name == "back":
        return c.begin(max(0, c.index - 1), now)
    if name == "steps":
        return [
            say(
                "; ".join(
                    "%d %s%s" % (i + 1, c.words(s.title), " (done)" if s.id in c.solved else "")
                    for i, s in enumerate(c.course.steps)
                )
            )
        ]
    if name == "quit":
        c.quit = True
        return [Quit()]
    return [say(HELP)]


def _undo(c: Lesson) -> list[Action]:
    """Take the last move back the board's way: by putting the pieces back as they were
    before it (the terminal's hand does it on the virtual board)."""
    if c.state != "doing" or c.game is None or not c.game.move_stack:
        return [say("nothing to take back", "wrong")]
    if not c.hand:
        return [say("put the pieces back as they were before the last move (BACK lights what to restore)", "task")]
    before = c.game.copy()
    before.pop()
    return [Restore(before)]
