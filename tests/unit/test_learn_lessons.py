"""The lessons of `zuni learn`: the courses are valid data and cover every rule, and a
scripted hand walks every step of every course to its end through the pure
``LessonController``, trying a wrong move first wherever the step names one (a legal one
is taken back, an illegal one is refused by the board) and checking each explanation.

The board here is ``ScriptedBoard``: an explicit stand-in for the firmware that answers
the controller's requests as the board's protocol does (a new game from a position, its
state, hints, the host's move, a take-back) and commits the moves the hand makes. The
real firmware runs in ``test_learn_e2e.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import zuni
from zuni.position import parse_position
from zuniboard.learn.controller import LessonController
from zuniboard.learn.lessons import (
    GAMES,
    RULE_TAGS,
    Course,
    Labels,
    LessonError,
    covered,
    first_move,
    is_reply,
    load_course,
    parse_course,
)
from zuniboard.play.actions import Action, Quit, Request, Say, kind_of


class ScriptedBoard:
    """Answers ``request`` actions as the board would; keeps the game the board plays."""

    def __init__(self) -> None:
        self.games = 0
        self.game_id = ""
        self.game: Any = None
        self.moves: list[str] = []
        self.hints: list[str] = []
        self.host_moves: list[str] = []
        self.requests: list[str] = []
        self.phase = "setup"

    def state(self) -> dict[str, str]:
        return {"game": self.game_id, "phase": self.phase, "moves": str(len(self.moves))}

    def answer(self, c: LessonController, actions: list[Action], now: float) -> list[Action]:
        """Does the requests among ``actions`` (and those their answers ask for); returns
        every action seen."""
        seen: list[Action] = []
        todo = list(actions)
        while todo:
            action = todo.pop(0)
            seen.append(action)
            if not isinstance(action, Request):
                continue
            name = action.name
            self.requests.append(name)
            if name == "setup":
                self.games += 1
                self.game_id = "g%d" % self.games
                new = action.args[1:] == ("new",)
                self.game = zuni.new_game(action.args[0]) if new else parse_position(action.args[0])
                self.moves = []
                self.phase = "setup"
                todo += c.replied("setup", action.args, now, reply={"game": self.game_id, "moves": "0"})
            elif name == "state":
                todo += c.board_state(self.state(), now)
            elif name == "hint":
                self.hints.append(action.args[0])
            elif name == "host_move":
                self.host_moves.append(action.args[0])
            elif name == "take_back":
                self.game.pop()
                self.moves.pop()
                self.phase = "setup"  # the player puts the pieces back
                todo += c.board_moves(self.game_id, list(self.moves), now)
                todo += c.board_state(self.state(), now)
        return seen

    def placed(self, c: LessonController, now: float) -> list[Action]:
        """The player has set the position up (or restored it): play."""
        self.phase = "over" if self.game.is_game_over() else "play"
        return self.answer(c, c.board_state(self.state(), now), now)

    def commit(self, c: LessonController, text: str, now: float) -> list[Action]:
        """The board commits ``text`` (legal) and reports its move list."""
        move = self.game.parse_move(text)
        self.game.push(move)
        self.moves.append(move.text())
        if self.game.is_game_over():
            self.phase = "over"
        return self.answer(c, c.board_moves(self.game_id, list(self.moves), now), now)

    def refuse(self, c: LessonController, text: str, now: float) -> list[Action]:
        """The player tries ``text``, which the rules refuse: the board reports it."""
        origin, _, dest = text.partition("-")
        return self.answer(c, c.board_event("error", "missing: %s; extra: %s" % (origin, dest), now), now)


def said(actions: list[Action], tone: str | None = None) -> list[str]:
    return [a.text for a in actions if isinstance(a, Say) and (tone is None or a.tone == tone)]


def walk_step(c: LessonController, board: ScriptedBoard, now: float) -> tuple[float, int]:
    """Plays the current step of ``c`` to its end; returns the time and the number of
    wrong attempts explained."""
    step = c.step
    wrongs = 0
    acts = board.placed(c, now)
    assert any(c.words(step.task).split(":")[0][:20] in t for t in said(acts, "task")) or not step.line, said(acts)
    if step.show:
        assert board.hints and board.hints[-1] == step.show, "the rule is lit on the board"
    tried: set[str] = set()
    k = 0
    while c.state == "doing":
        entry = step.line[c.k]
        game = board.game
        if entry[0] == "hint":
            acts = board.answer(c, c.board_event("button", "hint", now), now)
            nxt = first_move(game, step.line[c.k + 1])
            assert board.hints[-1] == nxt.text(), "HINT lights the move asked for"
            assert any("hint: %s" % nxt.text() in t for t in said(acts, "hint"))
            # Playing it goes on past the hint entry.
            acts = board.commit(c, nxt.text(), now)
        elif entry[0] == "takeback":
            game.pop()
            board.moves.pop()
            acts = board.answer(c, c.board_moves(board.game_id, list(board.moves), now), now)
            assert said(acts, "takeback"), "the take-back is acknowledged"
        elif entry[0] == "pass":
            acts = board.commit(c, "pass", now)
        elif is_reply(entry):
            assert board.host_moves[-1] == entry[0][1:], "the lesson's reply is shown as a host move"
            acts = board.commit(c, entry[0][1:], now)
        else:
            # A wrong attempt first, wherever the step names one not tried yet.
            wrong = next((w for w in step.wrong if w not in tried), None)
            if wrong is not None and k == 0:
                tried.add(wrong)
                legal = {m.text() for m in game.legal_moves()}
                if wrong in legal:
                    before = list(board.moves)
                    acts = board.commit(c, wrong, now)
                    explained = said(acts, "wrong")
                    assert explained and wrong in explained[0], explained
                    assert c.labels.fill(step.wrong[wrong]) in explained[0]
                    assert "take_back" in board.requests and board.moves == before, "a wrong legal move is taken back"
                    acts = board.placed(c, now)
                    assert said(acts, "task"), "the task is said again once the pieces are back"
                else:
                    acts = board.refuse(c, wrong, now)
                    explained = said(acts, "wrong")
                    assert explained[0].startswith("not legal: "), explained
                    assert c.labels.fill(step.wrong[wrong]) in " ".join(explained), explained
                wrongs += 1
                continue
            move = first_move(game, entry)
            acts = board.commit(c, move.text(), now)
            assert any(move.text() in t and "right" in t for t in said(acts, "move")), said(acts)
            k += 1
        now += 0.1
    assert c.state == "done", (step.id, c.state)
    assert said(acts, "done") or c.state == "done"
    return now, wrongs


@pytest.mark.parametrize("game", GAMES)
def test_every_step_walked_to_its_end(game: str) -> None:
    course = load_course(game)
    c = LessonController(course, hand=False)
    board = ScriptedBoard()
    now = 0.0
    acts = board.answer(c, c.start(now), now)
    intro = said(acts)
    assert "Culin" in " ".join(intro) and "1907" in " ".join(intro) and "Stevenson" in " ".join(intro)
    wrongs = 0
    for i, step in enumerate(course.steps):
        assert c.index == i and c.step.id == step.id
        now, n = walk_step(c, board, now)
        wrongs += n
        assert step.id in c.solved
        # The next step comes by itself after a pause.
        assert board.answer(c, c.tick(now + 0.5), now) == []
        now += 5.0
        acts = board.answer(c, c.tick(now), now)
        if i + 1 < len(course.steps):
            assert "Step %d of %d" % (i + 2, len(course.steps)) in said(acts)[0]
    assert c.state == "finished" and any(isinstance(a, Quit) for a in acts)
    assert c.solved == [s.id for s in course.steps]
    assert wrongs >= 3, "the walk tried wrong moves"


def test_courses_cover_every_rule() -> None:
    courses = [load_course(g) for g in GAMES]
    for game, tags in covered(courses).items():
        assert set(RULE_TAGS[game]) <= tags, sorted(set(RULE_TAGS[game]) - tags)


def test_names_from_zuni_life_and_neutral_labels() -> None:
    course = load_course("awithlaknakwe")
    zuni_text = " ".join(Labels("zuni").fill(t) for t in course.intro)
    neutral = " ".join(Labels("neutral").fill(t) for t in course.intro)
    assert "bow priest" in zuni_text and "religious life" in zuni_text
    assert "leader" in neutral
    kol = " ".join(Labels("neutral").fill(t) for t in load_course("kolowis").intro)
    assert "'the serpent's awithlaknannai'" in kol and "religious life" in kol
    for game in GAMES:
        for step in load_course(game).steps:
            for text in (step.say, step.task, step.title, step.done, *step.wrong.values()):
                plain = Labels("neutral").fill(text)
                assert "{" not in plain and "bow priest" not in plain and "kolowisi" not in plain.lower(), (
                    step.id,
                    text,
                )
    with pytest.raises(LessonError, match="names 'holy'"):
        Labels("holy")


def test_the_wrong_move_of_a_reply_is_explained_and_taken_back() -> None:
    course = load_course("mosona")
    c = LessonController(course, start_at=course.step_index("host-move"))
    board = ScriptedBoard()
    board.answer(c, c.start(0.0), 0.0)
    board.placed(c, 0.0)
    board.commit(c, "m6-m5", 0.1)
    assert board.host_moves == ["n4xm5-s5"]
    acts = board.commit(c, "n4xm5-m6", 0.2)
    assert "carry out that one" in said(acts, "wrong")[0]
    assert board.moves == ["m6-m5"]


def test_typed_lines() -> None:
    course = load_course("mosona")
    c = LessonController(course, hand=True, start_at=1)
    board = ScriptedBoard()
    board.answer(c, c.start(0.0), 0.0)
    assert said(c.line("m6-m5", 0.0)) == ["wait: the board is being set up"]
    board.placed(c, 0.0)
    acts = c.line("m6-m5", 0.0)
    assert [kind_of(a) for a in acts] == ["makemove"] and acts[0].move.text() == "m6-m5"
    assert "not legal" in said(c.line("m6-m4", 0.0))[0]
    assert "3 Capturing" in said(c.line("steps", 0.0))[0]
    acts = board.answer(c, c.line("skip", 0.0), 0.0)
    assert c.index == 2 and board.requests[-2:] == ["setup", "state"]
    board.answer(c, c.line("back", 0.0), 0.0)
    assert c.index == 1
    assert c.line("/q", 0.0) == [Quit()] and c.quit


def _course_data(game: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(Path(load_course.__globals__["course_path"](game)).read_text())
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["steps"][1].update(line=["m6-m4"]), "m6-m4"),
        (lambda d: d["steps"][1].update(position="mosona | south to move | south m6 m6"), "position"),
        (lambda d: d["steps"][1].update(rules=["flying"]), "unknown rule 'flying'"),
        (lambda d: d["steps"][1].update(colour="red"), "unknown key"),
        (lambda d: d["steps"][2].update(id="board"), "used twice"),
        (lambda d: d["steps"][1].update(line=[">m6-m5"]), "asks nothing of the player"),
        (lambda d: d["steps"][1].update(line=["m6-m5", "hint"]), "'hint' must come before"),
        (lambda d: d["steps"][1].update(wrong={"m6-m5": "no"}), "both asked for and called wrong"),
        (lambda d: d["steps"][1].update(show="m6-m2"), "show 'm6-m2'"),
    ],
)
def test_bad_courses_are_refused(change: Any, message: str, tmp_path: Path) -> None:
    data = _course_data("mosona")
    change(data)
    path = tmp_path / "mosona.json"
    path.write_text(json.dumps(data))
    with pytest.raises(LessonError, match=message):
        load_course("mosona", path)


def test_not_json_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "mosona.json"
    path.write_text("{steps")
    with pytest.raises(LessonError, match=r"mosona\.json"):
        load_course("mosona", path)
    with pytest.raises(LessonError, match="a course is an object"):
        parse_course([], "x")
    assert isinstance(load_course("kolowis"), Course)
    assert zuni.SIDE_NAMES[0] == "south"


def test_undo_typed_puts_the_pieces_back() -> None:
    course = load_course("mosona")
    c = LessonController(course, hand=True, start_at=course.step_index("takeback"))
    board = ScriptedBoard()
    board.answer(c, c.start(0.0), 0.0)
    board.placed(c, 0.0)
    assert said(c.line("undo", 0.0)) == ["nothing to take back"]
    board.commit(c, "m6-m5", 0.1)
    acts = c.line("/u", 0.2)
    assert [kind_of(a) for a in acts] == ["restore"] and not acts[0].game.move_stack, "the hand puts m5 back on m6"
    # The board sees the position before the move and takes it back.
    board.game.pop()
    board.moves.pop()
    acts = board.answer(c, c.board_moves(board.game_id, [], 0.3), 0.3)
    assert said(acts, "takeback") and c.k == 2
    board.commit(c, "m6-m7", 0.4)
    assert c.state == "done"
    c2 = LessonController(course, hand=False, start_at=course.step_index("takeback"))
    board2 = ScriptedBoard()
    board2.answer(c2, c2.start(0.0), 0.0)
    board2.placed(c2, 0.0)
    board2.commit(c2, "m6-m5", 0.1)
    assert "put the pieces back" in said(c2.line("undo", 0.2))[0]


@pytest.mark.parametrize("game", GAMES)
def test_the_start_is_set_up_as_a_new_game(game: str) -> None:
    """The rules' start goes to the board as a new game (a whole start is longer than the
    board's ``setup`` line allows on the 49-point board); other positions staged."""
    course = load_course(game)
    c = LessonController(course, start_at=course.step_index("start"))
    acts = c.start(0.0)
    setup = [a for a in acts if isinstance(a, Request) and a.name == "setup"]
    assert setup[0].args == (str(zuni.parse_ruleset(course.steps[c.index].ruleset)), "new")
    c = LessonController(course, start_at=0)
    setup = [a for a in c.start(0.0) if isinstance(a, Request) and a.name == "setup"]
    assert setup[0].args == (course.steps[0].position,)
