"""A course of lessons on the board as a pure state machine: ``LessonController``.

Events in (the board's move list and state, its reports, typed lines, the replies to
its requests, the time), actions out (``zuniboard.play.controller.Action``: say, set a
position up on the board, light a move as a hint, show the lesson's reply as a host move,
take a move back, let the terminal's hand move pieces). No threads, no I/O:
``zuniboard.learn.session.LessonSession`` does the actions on a board link.

Each step: the board is asked to set the step's position up (``request setup``, the
staged setup of ``zuni play --from``); once it is in play, the rule is said and lit
(``show`` as a hint), and each move the board commits is checked against the step's
line. A move the rules refuse never reaches the host: the board shows it in red and
reports it (event ``error``), and the lesson says why in the rule's words and the step's.
A legal move that is not the task is explained and taken back (the board lights what to
put back). Once the line is played the step is done and the next one starts after
``NEXT_S``.

The step's line is read by ``step_line`` (which entry a move answers, the board's next
turn, the words for a wrong attempt), typed lines and commands by ``typed``.

>>> from zuniboard.learn.lessons import load_course
>>> c = LessonController(load_course("mosona"))
>>> [type(a).__name__ for a in c.start(now=0.0)][-1]
'Request'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import zuni
from zuni.position import parse_position
from zuniboard.games.words import board_error_words, outcome_words
from zuniboard.learn.lessons import Course, Labels, Step, first_move, is_reply
from zuniboard.learn.step_line import (
    board_turn,
    entry_at,
    error_why,
    follow,
    hand_sets_up,
    how,
    setup_request,
    sides_words,
    wrong_move_why,
)
from zuniboard.learn.typed import typed_line
from zuniboard.play.actions import Action, Quit, Say, SetUp, request, say

NEXT_S = 2.0  # a finished step stays this long before the next one is set up
STATE_POLL_S = 3.0  # while the board is being set up: ask its state this often
SAID_KEPT = 8


class LessonController:
    """One course (``Course``) on one board, from step ``start_at``."""

    def __init__(self, course: Course, labels: Labels | None = None, *, hand: bool = False, start_at: int = 0) -> None:
        self.course = course
        self.labels = labels or Labels()
        self.hand = hand
        self.index = start_at
        self.step: Step = course.steps[start_at]
        self.game: Any = None  # the step's game as the board plays it
        self.k = 0  # the next entry of the step's line
        self.board_game = ""  # the board's id of the step's game ("" until it answered)
        self.phase = "?"  # the board's: setup, play, over
        self.state = "idle"  # idle, setup (asked the board), doing, retract (a wrong move taken back), done, finished
        self.hinted = False  # the player asked for the hint the line's 'hint' entry wants
        self.next_at: float | None = None
        self.poll_at = 0.0
        self.quit = False
        self.said: list[tuple[str, str]] = []
        self.wrong_said = 0  # explanations of wrong attempts in this step (the tests count them)
        self.solved: list[str] = []  # ids of the steps done

    # -- what it is ------------------------------------------------------------------
    def words(self, text: str) -> str:
        return self.labels.fill(text)

    def entry(self) -> tuple[str, ...] | None:
        line = self.step.line
        return line[self.k] if self.k < len(line) else None

    def expected(self) -> Any:
        """The move the player is to make now (the lesson's own answer), or None."""
        entry = self.entry()
        if entry is None or self.game is None or self.game.is_game_over():
            return None
        if entry[0] == "hint":
            entry = self.step.line[self.k + 1]
        if is_reply(entry) or entry[0] in ("pass", "takeback"):
            return None
        return first_move(self.game, entry)

    # -- starting a step ---------------------------------------------------------------
    def start(self, now: float) -> list[Action]:
        out = [say(self.words(self.course.title), "lesson")]
        out += [say(self.words(line), "info") for line in self.course.intro]
        out += self.begin(self.index, now)
        return self.said_too(out)

    def begin(self, index: int, now: float) -> list[Action]:
        self.index = index
        self.step = self.course.steps[index]
        self.game = parse_position(self.step.position)
        self.k = 0
        self.board_game = ""
        self.state = "setup"
        self.hinted = False
        self.next_at = None
        self.wrong_said = 0
        step = self.step
        return [
            say("Step %d of %d: %s" % (index + 1, len(self.course.steps), self.words(step.title)), "lesson"),
            say(self.words(step.say), "info"),
            say("set up the position the board lights (%s)" % self.words(sides_words(self.game)), "board"),
            setup_request(step, self.game),
        ]

    # -- the board's answers -------------------------------------------------------------
    def replied(
        self, name: str, args: tuple[str, ...], now: float, *, reply: Any = None, error: str = ""
    ) -> list[Action]:
        out: list[Action] = []
        if name == "setup":
            if error:
                out.append(say("the board cannot set the step up: %s" % error, "error"))
                self.state = "idle"
            else:
                self.board_game = str((reply or {}).get("game", ""))
                self.phase = "?"
                self.poll_at = now + STATE_POLL_S
                out.append(request("state"))
        elif error and name in ("hint", "host_move", "take_back"):
            out.append(say("the board refused %s: %s" % (name.replace("_", " "), error), "error"))
        return self.said_too(out)

    def board_state(self, state: dict[str, str], now: float) -> list[Action]:
        """The board's state: its phase (setup, play, over) and its staged setup."""
        if self.board_game == "" or state.get("game", "") != self.board_game:
            return []
        out: list[Action] = []
        phase = state.get("phase", "?")
        if self.hand and phase == "setup":
            staged = state.get("setup", "")
            out += hand_sets_up(staged) if staged in zuni.SIDE_NAMES else [SetUp()]
        old, self.phase = self.phase, phase
        if phase in ("play", "over") and old not in ("play", "over"):
            out += self._in_play(now)
        return self.said_too(out)

    def _in_play(self, now: float) -> list[Action]:
        """The position stands on the board: the task (or the restored position)."""
        if self.state == "setup":
            self.state = "doing"
            out = [say("the position stands. Task: %s" % self.words(self.step.task), "task")]
            if not self.step.line:
                return out + self._step_done(now)
            if self.step.show:
                out.append(request("hint", self.step.show))
                out.append(say("the board shows %s: %s" % (self.step.show, how(self.game, self.step.show)), "hint"))
            return out + board_turn(self.game, self.entry(), self.hand)
        if self.state == "retract":
            self.state = "doing"
            out = [say("put back. Try again. Task: %s" % self.words(self.step.task), "task")]
            if self.step.show and self.k == 0:
                out.append(request("hint", self.step.show))
            return out + board_turn(self.game, self.entry(), self.hand)
        return []

    def board_moves(self, game_id: str, moves: list[str], now: float) -> list[Action]:
        """The board's move list of its game ``game_id``."""
        if game_id != self.board_game or self.board_game == "" or self.state in ("setup", "idle"):
            return []
        out: list[Action] = []
        played = [m.text() for m in self.game.move_stack]
        common = 0
        while common < min(len(played), len(moves)) and played[common] == moves[common]:
            common += 1
        if common < len(played):
            for _ in range(len(played) - common):
                self.game.pop()
            out += self._taken_back(now)
        for text in moves[common:]:
            if self.state != "doing":
                break  # a wrong move being taken back, or the step is done
            out += self._moved(text, now)
        return self.said_too(out)

    def _taken_back(self, now: float) -> list[Action]:
        entry = self.entry()
        if self.state == "retract":
            return []  # the wrong move, put back: the board's state says when it stands
        if entry is not None and entry[0] == "takeback":
            self.k += 1
            return [
                say("taken back: the board holds the position before the move again", "takeback")
            ] + self._after_entry(now)
        # The player took back a move of the line: go back to where it was.
        self.k = max(0, min(self.k, entry_at(self.step.line, len(self.game.move_stack))))
        return [say("taken back; %s" % self.words(self.step.task), "takeback")]

    def _moved(self, text: str, now: float) -> list[Action]:
        game = self.game
        try:
            move = game.parse_move(text)
        except zuni.MoveError as exc:
            return [say("the board sent %r, which the rules refuse: %s" % (text, exc), "error")]
        self.k, entry, ok = follow(game, self.step.line, self.k, self.hinted, move, text)
        side = str(zuni.SIDE_NAMES[game.turn])
        before = game.copy()
        game.push(move)
        if not ok or entry is None:
            return self._wrong_move(before, move, entry, now)
        self.k += 1
        mine = not is_reply(entry) and text != "pass"  # the player's move, not the lesson's or the board's
        return [say("%s %s%s" % (side, text, ": right" if mine else ""), "move")] + self._after_entry(now)

    def _after_entry(self, now: float) -> list[Action]:
        if self.k >= len(self.step.line):
            return self._step_done(now)
        return board_turn(self.game, self.entry(), self.hand)

    def _wrong_move(self, before: Any, move: Any, entry: tuple[str, ...] | None, now: float) -> list[Action]:
        text = move.text()
        why = wrong_move_why(self.step, self.k, before, move, entry)
        self.wrong_said += 1
        self.state = "retract"
        self.game.pop()  # the mirror holds what the board will hold once it is taken back
        out = [
            say("%s is legal, but not the task: %s" % (text, self.words(why)), "wrong"),
            say("taking it back: put the pieces back where the board blinks", "takeback"),
            request("take_back", "1"),
        ]
        if self.hand:
            out.append(SetUp())
        return out

    def _step_done(self, now: float) -> list[Action]:
        self.state = "done"
        self.solved.append(self.step.id)
        out: list[Action] = []
        outcome = self.game.outcome() if self.game.move_stack else None
        if outcome is not None:
            out.append(say(outcome_words(self.game, outcome), "over"))
        out.append(say("done: %s" % self.words(self.step.done or "well done."), "done"))
        self.next_at = now + NEXT_S
        return out

    # -- the board's reports ----------------------------------------------------------
    def board_event(self, kind: str, text: str, now: float) -> list[Action]:
        handler = self._events.get(kind)
        return self.said_too(handler(self, text, now)) if handler is not None else []

    def _error(self, text: str, now: float) -> list[Action]:
        """A position no legal move explains (the board shows it in red)."""
        if self.game is None or self.state != "doing":
            return []
        words = board_error_words(self.game, text)
        extra = error_why(self.step, self.k, text)
        self.wrong_said += 1
        out = [say("not legal: %s" % words, "wrong")]
        if extra or self.step.why:
            out.append(say(self.words(extra or self.step.why), "wrong"))
        return out

    def _wrong_host(self, text: str, now: float) -> list[Action]:
        if self.game is None:
            return []
        self.wrong_said += 1
        return [say(board_error_words(self.game, text), "wrong")]

    def _button(self, text: str, now: float) -> list[Action]:
        word = text.strip()
        if word == "hint":
            return self.hint()
        if word == "ok" and self.state == "done":
            return self.next_step(now)
        return []

    def _took_back(self, text: str, now: float) -> list[Action]:
        return []  # the move list says what was taken back

    def _setup_side(self, text: str, now: float) -> list[Action]:
        """A staged setup goes on to ``text``'s pieces: the terminal's hand places them."""
        side = text.strip()
        if not self.hand or side not in zuni.SIDE_NAMES or self.state not in ("setup", "retract"):
            return []
        return hand_sets_up(side)

    _events: dict[str, Callable[[LessonController, str, float], list[Action]]] = {
        "error": _error,
        "wrong": _wrong_host,
        "button": _button,
        "takeback": _took_back,
        "setup": _setup_side,
    }

    # -- typed lines -----------------------------------------------------------------
    def line(self, text: str, now: float) -> list[Action]:
        return typed_line(self, text, now)

    def hint(self) -> list[Action]:
        if self.state != "doing":
            return [say("no hint now: the board is being set up", "hint")]
        move = self.expected()
        entry = self.entry()
        if entry is not None and entry[0] == "hint":
            self.hinted = True
        if move is None:
            return [say(self.words(self.step.task), "hint")]
        text = move.text()
        return [request("hint", text), say("hint: %s (%s), shown on the board" % (text, how(self.game, text)), "hint")]

    def next_step(self, now: float) -> list[Action]:
        if self.index + 1 >= len(self.course.steps):
            self.state = "finished"
            self.next_at = None
            return [say(self.words(self.course.outro or "That was the last step."), "lesson"), Quit()]
        return self.begin(self.index + 1, now)

    # -- the time --------------------------------------------------------------------
    def tick(self, now: float) -> list[Action]:
        if self.state == "done" and self.next_at is not None and now >= self.next_at:
            return self.said_too(self.next_step(now))
        if self.state in ("setup", "retract") and self.board_game and now >= self.poll_at:
            # The board says when setup turns into play; asking is the fallback for a
            # report lost with the connection.
            self.poll_at = now + STATE_POLL_S
            return [request("state")]
        return []

    # -- what the page shows -----------------------------------------------------------
    def said_too(self, out: list[Action]) -> list[Action]:
        for action in out:
            if isinstance(action, Say):
                self.said.append((action.tone, action.text))
        del self.said[:-SAID_KEPT]
        return out

    def view(self) -> dict[str, Any]:
        step = self.step
        return {
            "course": self.words(self.course.title),
            "step": self.index + 1,
            "of": len(self.course.steps),
            "title": self.words(step.title),
            "rule": self.words(step.say),
            "task": self.words(step.task),
            "state": self.state,
            "said": [list(s) for s in self.said],
        }
