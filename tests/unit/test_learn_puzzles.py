"""Puzzles: every shipped puzzle proved again (the "win in N" ones against endgame tables
built here, 4 pieces on the 25-point boards and 3 on Kolowis long, the same the shipped
ones were made from; the proof-book ones against the book and the proof search; the
custody ones by the search), checked a second way where the proof and the generator share
code (each player's move the only one whose position the table calls won, by probing
every child); fresh puzzles generated and proved; a tampered puzzle refused; a puzzle
played through the lesson controller with a wrong move explained; progress kept in the
game log database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_learn_lessons import ScriptedBoard, said

import zuni
from zuni.line import LineGame
from zuni.position import parse_position
from zuniboard.ai import tablebase as tbm
from zuniboard.ai.tablebase import Tablebase
from zuniboard.commands.puzzle import select
from zuniboard.learn import puzzles as P
from zuniboard.learn.controller import LessonController
from zuniboard.learn.progress import Progress
from zuniboard.records.db import Database

PIECES = {"mosona": 4, "mosona board=open": 4, "kolowis size=short": 4, "kolowis": 3}


@pytest.fixture(scope="module")
def tables() -> dict[str, Tablebase]:
    return {str(zuni.parse_ruleset(rs)): tbm.build(rs, k) for rs, k in PIECES.items()}


def shipped() -> list[P.Puzzle]:
    return [p for game in ("mosona", "kolowis", "awithlaknakwe") for p in P.load_puzzles(game)]


def _child_value(game: Any, move: Any, tb: Tablebase) -> int:
    """The value of ``move`` for its mover, from the table's value of the position after it
    (or the rules, when it ends the game): > 0 a win."""
    mover = game.team_of(game.turn)
    game.push(move)
    try:
        outcome = game.outcome()
        if outcome is not None:
            return 1 if outcome.winner == mover else 0 if outcome.winner is None else -1
        value = tb.value(game)
        assert value is not None
        return -value
    finally:
        game.pop()


def check_by_probing(p: P.Puzzle, tb: Tablebase) -> None:
    """The puzzle's claims by probing each child position: the player's move is the only
    winning one, the defence loses slowest, the player wins at the end in ``p.n`` moves."""
    game = parse_position(p.position)
    player = game.turn
    for i, entry in enumerate(p.line):
        values = {m.text(): _child_value(game, m, tb) for m in game.legal_moves()}
        if game.turn == player:
            assert [t for t, v in values.items() if v > 0] == [entry[0]], (p.id, i, values)
        else:
            assert values[entry[0]] == max(values.values()), (p.id, i)
        game.push(game.parse_move(entry[0]))
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == game.team_of(player)
    assert len(p.line) == p.n


def test_shipped_puzzles_are_proved(tables: dict[str, Tablebase]) -> None:
    puzzles = shipped()
    kinds = {p.kind for p in puzzles}
    # Book puzzles only where the proof has a position with one winning reply the search
    # settles (none among its positions of up to nine pieces: docs/learn.md).
    assert {"table", "custody"} <= kinds <= {"table", "book", "custody"}, kinds
    rulesets = {str(zuni.parse_ruleset(p.ruleset)) for p in puzzles if p.kind == "table"}
    assert rulesets == set(tables), "win-in-N puzzles of every line ruleset"
    ids = [p.id for p in puzzles]
    assert len(ids) == len(set(ids))
    for p in puzzles:
        P.prove(p, tables)
        if p.kind == "table":
            check_by_probing(p, tables[str(zuni.parse_ruleset(p.ruleset))])
        assert 1 <= p.grade <= 5


def winning_replies(position: str, tb: Tablebase) -> list[str]:
    """North's moves after which North still wins by force, each settled by the
    proof-number search on its own (the game's end, the tables, or the search)."""
    from zuniboard.ai import solver

    game = parse_position(position)
    north = game.team_of(zuni.NORTH)
    wins = []
    for move in game.legal_moves():
        work = game.copy()
        work.push(move)
        outcome = work.outcome()
        if outcome is not None:
            won = outcome.winner == north
        else:
            won = solver.prove(work, north, node_limit=P.BOOK_NODES, tb=tb).result
        assert won is not None, (position, move.text(), "unsettled")
        if won:
            wins.append(move.text())
    return wins


# Not a position of the proof, but one with a single winning North move (a table puzzle's
# start), made a book entry of its own: what the builder and the check accept.
ONLY = "mosona | north to move | south n7 n8 | north s5 s8 | quiet 0"


def test_book_puzzles_have_exactly_one_winning_reply(tables: dict[str, Tablebase]) -> None:
    """Every book puzzle solved by the search move by move: North wins by force after the
    puzzle's answer and after no other move."""
    from zuniboard.ai import book

    tb = tables["mosona"]
    shipped_book = [p for p in P.load_puzzles("mosona") if p.kind == "book"]
    for p in shipped_book:
        assert winning_replies(p.position, tb) == [p.line[0][0]], p.id
        assert "only winning reply" in P.as_step(p, 1).task
    game = parse_position(ONLY)
    assert isinstance(game, LineGame)
    key = book.position_key(game)
    entries = {key: "s5-m6"}
    made = P.book_puzzle(key, tb, entries=entries)
    assert made is not None and made.line == (("s5-m6",),) and len(made.wrong) == len(game.legal_moves()) - 1
    assert winning_replies(made.position, tb) == ["s5-m6"]
    P.prove_book(made, tb, entries=entries)
    # The same position with another move as the book's: not the winning one, refused.
    assert P.book_puzzle(key, tb, entries={key: "s5-m5"}) is None


def test_the_builder_rejects_a_reply_that_is_not_the_only_win(tables: dict[str, Tablebase]) -> None:
    tb = tables["mosona"]
    # Positions of the proof shipped before as "North's only winning reply": North (7
    # pieces against 1) takes South's last piece with either capture; North (8 against 1,
    # the quiet count at 39) wins at the count whatever it plays.
    for key, wins in (
        ("100000:c0253:1:1", 2),
        ("100000:c0263:1:1", 2),
        ("100000:d0213:1:1", 2),
        ("10000:244722:1:39", 23),
    ):
        game = P.book_game(key)
        assert len(winning_replies(P.position_text(game), tb)) == wins, key
        assert P.book_puzzle(key, tb) is None, key
    game = P.book_game("100000:c0253:1:1")
    other = next(m.text() for m in game.legal_moves() if m.text() != "s3xs4-m5")
    claimed = P.Puzzle("x", "book", P.position_text(game), (("s3xs4-m5",),), 1, 0, {"0:" + other: "it loses"})
    with pytest.raises(P.PuzzleError, match="wins too: not North's only winning reply"):
        P.prove_book(claimed, tb)


def test_custody_puzzles_win_a_warrior_whatever_the_reply() -> None:
    for p in P.load_puzzles("awithlaknakwe"):
        game = parse_position(p.position)
        team = game.team_of(game.turn)
        assert not any(P._captures_now(game, m) for m in game.legal_moves()), "no capture at once"
        game.push(game.parse_move(p.line[0][0]))
        for reply in game.legal_moves():
            game.push(reply)
            before = P._gain(game, team)
            gains = []
            for m in game.legal_moves():
                game.push(m)
                gains.append(P._gain(game, team) - before)
                game.pop()
            assert max(gains) >= 1 or P._gain(game, team) >= 1, (p.id, reply.text())
            game.pop()


def test_fresh_puzzles_generated_and_proved(tables: dict[str, Tablebase]) -> None:
    tb = tables["mosona"]
    made = P.table_puzzles("mosona", tb, 3, seed=5, tries=30000)
    assert made, "the generator finds puzzles"
    for p in made:
        P.prove_table(p, tb)
        check_by_probing(p, tb)
        assert p.grade == P.grade(p.n, p.tempting)
    custody = P.custody_puzzles(1, seed=3, tries=600)
    for p in custody:
        P.prove_custody(p)


def test_tampered_puzzles_are_refused(tables: dict[str, Tablebase]) -> None:
    p = next(p for p in shipped() if p.kind == "table" and p.n >= 3)
    tb = tables[str(zuni.parse_ruleset(p.ruleset))]
    game = parse_position(p.position)
    other = next(m.text() for m in game.legal_moves() if m.text() != p.line[0][0])
    bad = [
        P.Puzzle(p.id, p.kind, p.position, ((other,),) + p.line[1:], p.n, p.tempting, p.wrong),
        P.Puzzle(p.id, p.kind, p.position, p.line, p.n + 2, p.tempting, p.wrong),
        P.Puzzle(p.id, p.kind, p.position, p.line, p.n, p.tempting + 1, p.wrong),
    ]
    for q in bad:
        with pytest.raises(P.PuzzleError, match=p.id):
            P.prove_table(q, tb)
    from zuniboard.ai import book

    game = parse_position(ONLY)
    entries = {book.position_key(game): "s5-m6"}
    made = P.book_puzzle(book.position_key(game), tables["mosona"], entries=entries)
    assert made is not None
    other = next(m.text() for m in game.legal_moves() if m.text() != "s5-m6")
    with pytest.raises(P.PuzzleError, match="the proof's move"):
        P.prove_book(P.Puzzle(made.id, "book", ONLY, ((other,),), 1, 0, made.wrong), tables["mosona"], entries=entries)
    with pytest.raises(P.PuzzleError, match="the other moves are"):
        P.prove_book(P.Puzzle(made.id, "book", ONLY, made.line, 1, 0, {}), tables["mosona"], entries=entries)
    with pytest.raises(P.PuzzleError, match="unknown kind"):
        P.prove(P.Puzzle("x", "riddle", p.position, p.line, 1, 0, {}), tables)


def test_a_puzzle_through_the_lesson_controller(tables: dict[str, Tablebase]) -> None:
    puzzles = [p for p in P.load_puzzles("mosona") if p.kind == "table" and p.n >= 3]
    p = puzzles[0]
    course = P.as_course([p], "mosona")
    c = LessonController(course)
    board = ScriptedBoard()
    board.answer(c, c.start(0.0), 0.0)
    board.placed(c, 0.0)
    wrong_key = next(iter(p.wrong))
    wrong = wrong_key.split(":", 1)[1]
    acts = board.commit(c, wrong, 0.1)
    explained = said(acts, "wrong")[0]
    assert p.wrong[wrong_key] in explained and ("drawn" in explained or "wins in" in explained)
    board.placed(c, 0.2)
    for i, entry in enumerate(p.line):
        if i % 2 == 0:
            acts = board.commit(c, entry[0], 1.0 + i)
        else:
            assert board.host_moves[-1] == entry[0], "the board plays the table's defence"
            acts = board.commit(c, entry[0], 1.0 + i)
    assert c.state == "done" and p.id in c.solved
    assert said(acts, "over"), "the game's end is said"


def test_select_by_board_kind_and_grade() -> None:
    mosona = P.load_puzzles("mosona")
    both = select(mosona, "mosona", None, None)
    assert {str(zuni.parse_ruleset(p.ruleset)) for p in both} == {"mosona", "mosona board=open"}
    assert {p.ruleset for p in select(mosona, "mosona board=open", None, None)} == {"mosona board=open"}
    assert all(p.kind == "book" for p in select(mosona, "mosona", ["book"], None))
    kolowis = P.load_puzzles("kolowis")
    assert all("size=short" not in p.ruleset for p in select(kolowis, "kolowis", None, None))
    assert all("size=short" in p.ruleset for p in select(kolowis, "kolowis size=short", None, None))
    g = mosona[0].grade
    assert all(p.grade == g for p in select(mosona, "mosona", None, g))


def test_progress_and_settings_in_the_log(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with Database(path) as db:
        progress = Progress(db)
        progress.record("puzzle", "p1", False)
        progress.record("puzzle", "p1", True)
        progress.record("puzzle", "p2", False)
        progress.set_setting("names", "neutral")
    with Database(path) as db:
        progress = Progress(db)
        assert progress.tries("puzzle") == {"p1": (2, True), "p2": (1, False)}
        assert progress.solved("puzzle") == {"p1"}
        assert progress.setting("names") == "neutral" and progress.setting("other", "x") == "x"


def test_bad_puzzle_files(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text('{"puzzles": [{"id": "a"}]}')
    with pytest.raises(P.PuzzleError, match="puzzle 'a'"):
        P.load_puzzles("mosona", path)
    path.write_text("[]")
    with pytest.raises(P.PuzzleError, match="expected"):
        P.load_puzzles("mosona", path)
    path.write_text(
        '{"puzzles": [{"id": "a", "kind": "table", "position": "mosona | south to move | south q9", '
        '"line": [["s1-s2"]], "n": 1, "tempting": 0}]}'
    )
    with pytest.raises(P.PuzzleError, match="puzzle a"):
        P.load_puzzles("mosona", path)


def test_move_grades() -> None:
    from zuniboard.ai.search import WIN
    from zuniboard.play.grades import grade_of

    assert grade_of(50, 50).name == "best"
    assert grade_of(50, 25).name == "good"
    assert grade_of(50, -20, "m6-m5").name == "inaccuracy" and "than m6-m5" in grade_of(50, -20, "m6-m5").words
    assert grade_of(50, -100).name == "mistake"
    assert grade_of(50, -151).name == "blunder"
    assert grade_of(WIN - 5, 0).words.startswith("missed a win in 5") and grade_of(WIN - 5, 0).colour == "red"
    assert grade_of(0, -(WIN - 4)).name == "blunder"
    assert grade_of(WIN - 5, WIN - 7).name == "good" and grade_of(WIN - 5, WIN - 15).name == "inaccuracy"
    assert grade_of(-(WIN - 9), -(WIN - 9)).name == "best" and grade_of(-(WIN - 9), -(WIN - 3)).name == "inaccuracy"


def test_review_keeps_the_grades_given_in_play_unless_asked_to_regrade(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    db_path = tmp_path / "games.sqlite3"
    start = "mosona | south to move | south m6 s2 | north m7 n2 n6 | quiet 0"
    with Database(db_path) as db:
        gid = db.new_game("mosona", position=start)
        db.add_move(gid, 0, "m6xm7-m8")
        # Graded in play more kindly than the search would (which calls it a mistake at least).
        assert db.set_grade(gid, 0, "m6xm7-m8", "inaccuracy", "the words said in play")
    env = dict(os.environ, ZUNI_TABLEBASE_DIR=str(tmp_path / "no-tables"))
    zuni_cmd = Path(sys.executable).parent / "zuni"

    def review(*extra: str) -> str:
        out = subprocess.run(
            [str(zuni_cmd), "review", "last", "--db", str(db_path), "--nodes", "4000", "--no-stop", *extra],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert out.returncode == 0, out.stderr
        return out.stdout

    kept = review()
    assert "1. south m6xm7-m8: inaccuracy (the words said in play) (in play)" in kept, kept
    assert "better:" not in kept and "south: 1 inaccuracy" in kept, kept
    fresh = review("--regrade")
    line = next(s for s in fresh.splitlines() if s.startswith("1. south"))
    assert ("mistake" in line or "blunder" in line) and "(in play)" not in line, fresh
    assert "better: " in fresh, fresh
    # A mistake kept from play is said as it was, with the search's better moves.
    with Database(db_path) as db:
        assert db.set_grade(gid, 0, "m6xm7-m8", "blunder", "missed two pieces")
    kept = review()
    assert "1. south m6xm7-m8: blunder (missed two pieces) (in play)" in kept, kept
    assert "m6x" in kept.split("better: ")[1], kept


def test_review_grades_a_game_and_replays_its_mistake(tmp_path: Path, tables: dict[str, Tablebase]) -> None:
    import os
    import subprocess
    import sys

    from zuniboard.commands.review import mistake_step
    from zuniboard.learn.lessons import Course
    from zuniboard.play.grades import grade_of

    db_path = tmp_path / "games.sqlite3"
    start = "mosona | south to move | south m6 s2 | north m7 n2 n6 | quiet 0"
    with Database(db_path) as db:
        gid = db.new_game("mosona", position=start)
        db.add_move(gid, 0, "m6xm7-m8")
    env = dict(os.environ, ZUNI_TABLEBASE_DIR=str(tmp_path / "no-tables"))
    zuni_cmd = Path(sys.executable).parent / "zuni"
    out = subprocess.run(
        [str(zuni_cmd), "review", "last", "--db", str(db_path), "--nodes", "4000", "--no-stop"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    # m6xm7-m8 takes one piece; the chains take two: a mistake at least, by the search.
    assert "1. south m6xm7-m8: " in out.stdout
    line = next(s for s in out.stdout.splitlines() if s.startswith("1. south"))
    assert "mistake" in line or "blunder" in line, out.stdout
    assert "better: " in out.stdout and "m6x" in out.stdout.split("better: ")[1]
    # The mistake as a lesson step: the played move explained and taken back, a better one accepted.
    game = parse_position(start)
    game.push(game.parse_move("m6xm7-m8"))
    step = mistake_step(game, 0, grade_of(200, -10, "m6xn6-n7xm7-m6"), ["m6xn6-n7xm7-m6"], "m6xm7-m8")
    c = LessonController(Course("mosona", "Review", ("r",), (step,)))
    board = ScriptedBoard()
    board.answer(c, c.start(0.0), 0.0)
    board.placed(c, 0.0)
    acts = board.commit(c, "m6xm7-m8", 0.1)
    assert "was played in the game: blunder" in said(acts, "wrong")[0]
    board.placed(c, 0.2)
    board.commit(c, "m6xn6-n7xm7-m6", 0.3)
    assert c.state == "done"
