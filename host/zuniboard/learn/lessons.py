"""The lessons of `zuni learn`: data (``lessons/<game>.json``), read and checked here.

A **course** teaches one game: a few lines on its history and sources, then **steps**.
A step is a position the board has the player set up (the staged setup of
``zuni play --from``), one rule said in a sentence (``say``) and shown on the LEDs (``show``:
a move lit as a hint while the rule is said; the board's own lights do the rest: legal
destinations on a lift, captures to remove, errors), a task (``task``) and the line the
player is to play (``line``):

- a move text, or a list of move texts (any of them), is the player's move;
- ``*`` is any legal move, ``*capture`` any capture, ``*drop`` any priest entry;
- ``>MOVE`` is the lesson's reply: the board shows it as the computer's move and the
  player carries it out;
- ``pass`` is a forced pass, which the board makes by itself;
- ``hint`` asks the player to ask for a hint (HINT, or ``hint`` typed): the lesson lights
  the next move of the line;
- ``takeback`` asks the player to take the last move back by putting the pieces back.

``wrong`` maps a move the player may try (legal or not) to why it is not the task;
``why`` is said for any other wrong attempt; ``done`` once the line is played. ``rules``
names what the step teaches (``RULE_TAGS``); the courses together must cover every tag.

Text may say ``{priest}``, ``{Priest}``, ``{priests}``, ``{kolowisi}`` and ``{Kolowisi}``:
the names from Zuni religious life, or neutral labels (``Labels``).

``load_course(game)`` reads and checks a course (``LessonError`` names the file, the step
and what is wrong); ``check_course`` replays every line with the rules engine.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zuni
from zuni.position import PositionError, parse_position

LESSON_DIR = Path(__file__).resolve().parent / "lessons"
GAMES = ("mosona", "kolowis", "awithlaknakwe")

# What the courses must teach, by the course that teaches it (RULES.md, the options a
# player may switch, and how the board works).
RULE_TAGS: dict[str, tuple[str, ...]] = {
    "mosona": (
        "board",
        "board-open",
        "start",
        "first",
        "step",
        "jump",
        "jumps-beyond",
        "jumps-straight",
        "jumps-pattern",
        "chain-forced",
        "capture-forced",
        "capture-free",
        "end-no-pieces",
        "end-no-move",
        "quiet",
        "stall-more",
        "stall-draw",
        "agree",
        "move-text",
        "board-setup",
        "board-lift",
        "board-remove",
        "board-takeback",
        "board-hint",
        "board-error",
        "board-host-move",
    ),
    "kolowis": (
        "board",
        "start",
        "jumps-straight",
        "chain-optional",
        "chain-forced",
        "chain-none",
        "capture-forced",
        "size-short",
        "board-chain-stop",
    ),
    "awithlaknakwe": (
        "board",
        "start",
        "first",
        "warrior",
        "priest",
        "priest-entry",
        "priest-gone",
        "custody",
        "custody-safe",
        "custody-many",
        "custody-all",
        "forced-pass",
        "end-no-move",
        "quiet",
        "scoring",
        "scoring-captures",
        "players-4",
        "teams-combined",
        "priests-team",
        "board-priest-entry",
        "board-remove",
        "board-pass",
    ),
}

SPECIAL = ("*", "*capture", "*drop", "pass", "hint", "takeback")

# The names from Zuni religious life, and the neutral labels a player may choose instead.
LABELS: dict[str, dict[str, str]] = {
    "zuni": {
        "priest": "bow priest",
        "Priest": "Bow priest",
        "priests": "bow priests",
        "Priests": "Bow priests",
        "kolowisi": "kolowisi",
        "Kolowisi": "Kolowisi",
    },
    "neutral": {
        "priest": "leader",
        "Priest": "Leader",
        "priests": "leaders",
        "Priests": "Leaders",
        "kolowisi": "serpent",
        "Kolowisi": "Serpent",
    },
}


class LessonError(ValueError):
    """A course file that is not a valid course: names the file, the step and the fault."""


@dataclass(frozen=True)
class Labels:
    """The words the lessons use for the bow priest and the kolowisi (``LABELS``)."""

    names: str = "zuni"

    def __post_init__(self) -> None:
        if self.names not in LABELS:
            raise LessonError("names %r: choose %s" % (self.names, " or ".join(LABELS)))

    def fill(self, text: str) -> str:
        out = text
        for key, word in LABELS[self.names].items():
            out = out.replace("{%s}" % key, word)
        return out


@dataclass(frozen=True)
class Step:
    """One step of a course (see the module's text)."""

    id: str
    title: str
    rules: tuple[str, ...]
    position: str
    say: str
    task: str
    line: tuple[tuple[str, ...], ...]  # each entry: the moves (or one special word) accepted
    show: str = ""
    wrong: dict[str, str] = field(default_factory=dict)
    why: str = ""
    done: str = ""

    @property
    def ruleset(self) -> str:
        return self.position.split("|", 1)[0].strip()


@dataclass(frozen=True)
class Course:
    game: str
    title: str
    intro: tuple[str, ...]
    steps: tuple[Step, ...]
    outro: str = ""

    def step_index(self, name: str) -> int:
        """The index of step ``name`` (its id, or its number from 1)."""
        if name.isdigit() and 1 <= int(name) <= len(self.steps):
            return int(name) - 1
        for i, step in enumerate(self.steps):
            if step.id == name:
                return i
        raise LessonError(
            "no step %r in the %s lessons: give 1-%d or one of %s"
            % (name, self.game, len(self.steps), ", ".join(s.id for s in self.steps))
        )


def is_reply(entry: tuple[str, ...]) -> bool:
    return len(entry) == 1 and entry[0].startswith(">")


def _entry(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str) and value.strip():
        return (value.strip(),)
    if isinstance(value, list) and value and all(isinstance(v, str) and v.strip() for v in value):
        if any(v.startswith(">") or v in SPECIAL for v in value):
            raise LessonError("%s: a list of moves holds moves only, not %r" % (where, value))
        return tuple(v.strip() for v in value)
    raise LessonError("%s: a line entry is a move text or a list of them, not %r" % (where, value))


def _text(data: dict[str, Any], key: str, where: str, required: bool = True) -> str:
    value = data.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise LessonError("%s: %r must be a text%s" % (where, key, "" if not required else " (not empty)"))
    return value.strip()


STEP_KEYS = {"id", "title", "rules", "position", "say", "task", "line", "show", "wrong", "why", "done"}


def parse_step(data: Any, where: str) -> Step:
    if not isinstance(data, dict):
        raise LessonError("%s: a step is an object, not %r" % (where, type(data).__name__))
    unknown = sorted(set(data) - STEP_KEYS)
    if unknown:
        raise LessonError(
            "%s: unknown key(s) %s (known: %s)" % (where, ", ".join(unknown), ", ".join(sorted(STEP_KEYS)))
        )
    sid = _text(data, "id", where)
    where = "%s (%s)" % (where, sid)
    rules = data.get("rules", [])
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules) or not rules:
        raise LessonError("%s: 'rules' must be a list of rule names" % where)
    line = data.get("line", [])
    if not isinstance(line, list):
        raise LessonError("%s: 'line' must be a list" % where)
    wrong = data.get("wrong", {})
    if not isinstance(wrong, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in wrong.items()):
        raise LessonError("%s: 'wrong' maps move texts to explanations" % where)
    return Step(
        id=sid,
        title=_text(data, "title", where),
        rules=tuple(rules),
        position=_text(data, "position", where),
        say=_text(data, "say", where),
        task=_text(data, "task", where),
        line=tuple(_entry(v, "%s line[%d]" % (where, i)) for i, v in enumerate(line)),
        show=_text(data, "show", where, required=False),
        wrong=dict(wrong),
        why=_text(data, "why", where, required=False),
        done=_text(data, "done", where, required=False),
    )


def parse_course(data: Any, where: str) -> Course:
    if not isinstance(data, dict):
        raise LessonError("%s: a course is an object" % where)
    game = _text(data, "game", where)
    intro = data.get("intro", [])
    if not isinstance(intro, list) or not intro or not all(isinstance(s, str) for s in intro):
        raise LessonError("%s: 'intro' must be a list of lines" % where)
    steps = data.get("steps", [])
    if not isinstance(steps, list) or not steps:
        raise LessonError("%s: 'steps' must be a list of steps" % where)
    parsed = tuple(parse_step(s, "%s step %d" % (where, i + 1)) for i, s in enumerate(steps))
    ids = [s.id for s in parsed]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise LessonError("%s: step ids used twice: %s" % (where, ", ".join(twice)))
    return Course(game, _text(data, "title", where), tuple(intro), parsed, _text(data, "outro", where, required=False))


def matches(game: Any, entry: tuple[str, ...], move: Any) -> bool:
    """``move`` (legal in ``game``) is what the player's ``entry`` asks for."""
    text = move.text()
    if entry == ("*",):
        return True
    if entry == ("*capture",):
        return bool(move.captures)
    if entry == ("*drop",):
        return bool(move.kind == zuni.DROP)
    return text in entry


def first_move(game: Any, entry: tuple[str, ...]) -> Any:
    """A legal move the player's ``entry`` accepts (the lesson's own answer), or None."""
    for move in game.legal_moves():
        if matches(game, entry, move):
            if entry[0] in ("*", "*capture", "*drop") or move.text() == entry[0]:
                return move
    for move in game.legal_moves():
        if matches(game, entry, move):
            return move
    return None


def check_step(step: Step, game_id: str, where: str) -> None:
    """Every entry of the line is legal where it is played (the first of a list is the
    lesson's own answer, and the line goes on after it); the rules it names exist."""
    known = RULE_TAGS[game_id]
    for tag in step.rules:
        if tag not in known:
            raise LessonError("%s: unknown rule %r (the %s rules: %s)" % (where, tag, game_id, ", ".join(known)))
    try:
        game = parse_position(step.position)
    except (PositionError, zuni.ZuniError) as exc:
        raise LessonError("%s: position %r: %s" % (where, step.position, exc))
    if str(game.ruleset).split()[0] != game_id:
        raise LessonError("%s: the position's game is %s, not %s" % (where, game.ruleset, game_id))
    if game.is_game_over():
        raise LessonError("%s: the game is over in the position" % where)
    if step.show:
        try:
            game.parse_move(step.show)
        except zuni.MoveError as exc:
            raise LessonError("%s: show %r: %s" % (where, step.show, exc))
    for key in step.wrong:
        try:
            game.parse_move(key.split(":", 1)[-1])  # "k:move": the move at the line's entry k
        except zuni.MoveParseError as exc:
            raise LessonError("%s: wrong %r is no move text: %s" % (where, key, exc))
        except zuni.MoveError:
            pass  # an illegal attempt: the board refuses it, the lesson says why
    _check_line(step, game, where)
    if step.line and not any(not is_reply(e) and e[0] != "pass" for e in step.line):
        raise LessonError("%s: the line asks nothing of the player" % where)


def _check_line(step: Step, game: zuni.Game, where: str) -> None:
    """Plays the step's line in ``game`` (its position), each entry checked where it comes."""
    entries = list(step.line)
    k = 0
    while k < len(entries):
        entry = entries[k]
        at = "%s line[%d] %s" % (where, k, "|".join(entry))
        if game.is_game_over():
            raise LessonError("%s: the game is over before it" % at)
        word = entry[0]
        if word == "hint":
            if k + 1 >= len(entries) or is_reply(entries[k + 1]) or entries[k + 1][0] in SPECIAL:
                raise LessonError("%s: 'hint' must come before a move of the player's" % at)
            k += 1
            continue
        if word == "takeback":
            if not game.move_stack:
                raise LessonError("%s: nothing to take back" % at)
            game.pop()
            k += 1
            continue
        if word == "pass" or is_reply(entry):
            text = word.lstrip(">")
            try:
                game.push(game.parse_move(text))
            except zuni.MoveError as exc:
                raise LessonError("%s: %s" % (at, exc))
            k += 1
            continue
        if word not in ("*", "*capture", "*drop"):
            for text in entry:
                try:
                    game.parse_move(text)
                except zuni.MoveError as exc:
                    raise LessonError("%s: %s" % (at, exc))
        move = first_move(game, entry)
        if move is None:
            raise LessonError("%s: no legal move matches" % at)
        if move.text() in step.wrong or "%d:%s" % (k, move.text()) in step.wrong:
            raise LessonError("%s: %s is both asked for and called wrong" % (at, move.text()))
        game.push(move)
        k += 1


def check_course(course: Course, where: str) -> None:
    for i, step in enumerate(course.steps):
        check_step(step, course.game, "%s step %d (%s)" % (where, i + 1, step.id))


def course_path(game: str) -> Path:
    return LESSON_DIR / ("%s.json" % game)


def game_of(ruleset: str | None) -> str:
    """The course for ``ruleset`` (its game; default Mosona)."""
    if not ruleset:
        return "mosona"
    try:
        return str(zuni.parse_ruleset(ruleset).game_id)
    except zuni.ZuniError as exc:
        raise LessonError("no lessons for %r: %s (choose %s)" % (ruleset, exc, ", ".join(GAMES)))


def load_course(game: str, path: Path | None = None) -> Course:
    """The checked course of ``game`` (from ``path``; default the shipped one)."""
    path = path or course_path(game)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise LessonError("%s: %s" % (path, exc))
    course = parse_course(data, path.name)
    if course.game != game:
        raise LessonError("%s: a course of %s, not %s" % (path.name, course.game, game))
    check_course(course, path.name)
    return course


def covered(courses: list[Course]) -> dict[str, set[str]]:
    """The rule tags each game's course teaches."""
    out: dict[str, set[str]] = {}
    for course in courses:
        out.setdefault(course.game, set()).update(tag for step in course.steps for tag in step.rules)
    return out
