"""What `zuni play` and its page say to a player: moves in hands' words, the rule that
refuses a move, results, take-backs, the computer's word on a draw or a count, the
page's narration of the game from the board's state reports, missed wins in
`zuni analyze`, and a serial port that does not exist."""

from __future__ import annotations

from pathlib import Path

import pytest
from play_helpers import zuni as run_zuni

import zuni
from zuniboard.ai import Analysis, GreedyPlayer, RandomPlayer, Searcher
from zuniboard.ai.search import WIN
from zuniboard.games.words import (
    board_error_words,
    move_words,
    outcome_words,
    plays_words,
    refusal,
    restore_words,
)
from zuniboard.link.client import discover
from zuniboard.play import judge
from zuniboard.records.db import Database
from zuniboard.replay.mistakes import mistakes_text
from zuniboard.web.world import Narrator


def occupancy(game: zuni.Game) -> str:
    return "".join("1" if v else "0" for v in game.occupancy())


def test_moves_in_a_players_words() -> None:
    game = zuni.new_game("mosona")
    game.push_text("s3xm4-m5")
    assert plays_words(game, game.parse_move("n5xm5-m4")) == (
        "North plays n5xm5-m4: lift n5, jump m5 to m4, take m5 off"
    )
    step = zuni.new_game("awithlaknakwe").parse_move("e1-d2")
    assert move_words(zuni.new_game("awithlaknakwe"), step) == "lift e1, put it on d2"


def test_a_refused_move_names_the_rule() -> None:
    game = zuni.new_game("mosona")
    assert refusal(game, "m6-m5") == "m6-m5: a capture is compulsory: s3xm4-m5"
    assert refusal(game, "s3xm4-m5") == ""
    assert refusal(game, "n5-m5") == "n5-m5: the piece on n5 is North's; South is to move"
    assert "unknown point 'q9'" in refusal(game, "q9-m5")
    game.push_text("s3xm4-m5")
    assert refusal(game, "s4-s3").startswith("s4-s3: the piece on s4 is South's; North is to move")
    assert refusal(game, "n4-m4") == "n4-m4: a capture is compulsory: m2xs2-s3, n5xm5-m4"
    # The board's sensor difference, said as the rule and what to put right.
    start = zuni.new_game("mosona")
    assert board_error_words(start, "missing:_m6;_extra:_m5") == (
        "m6-m5: a capture is compulsory: s3xm4-m5 (put a piece back on m6; take the piece off m5)"
    )
    assert board_error_words(start, "m6 may not move") == (
        "m6 may not move: a capture is compulsory: s3xm4-m5 (put it back)"
    )
    after = zuni.new_game("mosona")
    after.push_text("s3xm4-m5")
    assert board_error_words(after, "expected_n5xm5-m4,_the_board_shows_another_position") == (
        "the board shows another position, not North's move n5xm5-m4 (lift n5, jump m5 to m4, take m5 off): "
        "put it right (the red points)"
    )
    assert restore_words({"m4", "s3"}, {"m5"}) == "put a piece back on m4 s3; take the piece off m5"


def test_results_in_a_players_words() -> None:
    game = zuni.new_game("mosona")
    assert outcome_words(game, game.copy().resign(zuni.SOUTH)) == "North wins: South resigned"
    assert outcome_words(game, game.copy().agree("draw")) == "A draw: both sides agreed"
    counted = outcome_words(game, game.copy().agree("count"))
    assert (
        counted.startswith("A draw: both sides agreed to end the game and count")
        and "(score South 12, North 12)" in counted
    )
    # A real end: play to it.
    player = GreedyPlayer(3)
    while not game.is_game_over():
        game.push(player.choose(game))
    outcome = game.outcome()
    assert outcome is not None and outcome.termination == "no-pieces"
    loser = "South" if outcome.result == "north" else "North"
    assert outcome_words(game, outcome) == "%s wins: %s has no pieces left" % (outcome.result.capitalize(), loser)


def test_the_computer_agrees_only_when_its_evaluation_says_so() -> None:
    start = zuni.new_game("mosona")
    assert "the game is still open" in judge.verdict(start, "draw", "north", deterministic=True)
    assert "the game is still open" in judge.verdict(start, "count", "north", deterministic=True)
    # North behind by pieces (a greedy South against a random North): a draw is welcome.
    game = zuni.new_game("mosona")
    south, north = GreedyPlayer(1), RandomPlayer(2)
    behind = None
    while not game.is_game_over():
        game.push((south if game.turn == zuni.SOUTH else north).choose(game))
        score = Searcher().search(game, time_limit=None, node_limit=judge.JUDGE_NODES).score
        for_north = score if game.turn == zuni.NORTH else -score
        if for_north < -3 * judge.MARGIN:
            behind = game.copy()
            break
    assert behind is not None, "the greedy side never got ahead"
    assert judge.verdict(behind, "draw", "north", deterministic=True) == ""
    assert "it stands better" in judge.verdict(behind, "draw", "south", deterministic=True)


def _analysis(score: int, best: int) -> Analysis:
    move = zuni.new_game("mosona").legal_moves()[0]
    return Analysis(0, move, 0, score, move, best, [(move, best)] if best > score else [], 3)


def test_analyze_says_a_missed_win_in_words_and_sums_only_ordinary_losses() -> None:
    games = [_analysis(0, 150), _analysis(-20, WIN - 2), _analysis(-(WIN - 3), 0), _analysis(10, 20)]
    text = mistakes_text(games)
    assert text == (
        "3 mistakes (1.50 lost in all in ordinary positions): missed a win in 2, walked into a forced loss (lost in 3)"
    )
    assert mistakes_text([_analysis(0, 0)]) == "0 mistakes"


def test_the_page_narrates_the_game_from_the_boards_reports() -> None:
    narrator = Narrator()
    game = zuni.new_game("mosona")

    def report(**extra: object) -> dict[str, object]:
        status: dict[str, object] = {"game": "g1", "ruleset": "mosona", "moves": len(game.move_stack)}
        status.update({"phase": "play", "turn": zuni.SIDE_NAMES[game.turn], "occupancy": occupancy(game)})
        status.update(extra)
        return narrator.follow(status)

    assert report()["turn"] == "South"
    said = report(error="missing:_m6;_extra:_m5")
    assert said["refusal"].startswith("m6-m5: a capture is compulsory: s3xm4-m5")
    game.push_text("s3xm4-m5")  # found from the occupancy
    said = report(hostmove="n5xm5-m4")
    assert said["moves"] == ["s3xm4-m5"]
    assert said["showing"] == "North plays n5xm5-m4: lift n5, jump m5 to m4, take m5 off"
    game.push_text("n5xm5-m4")  # the host move the board showed
    said = report()
    assert said["numbered"] == "1. s3xm4-m5 n5xm5-m4" and said["showing"] == ""
    assert said["last"]["words"] == "North played n5xm5-m4: lift n5, jump m5 to m4, take m5 off"
    assert (said["last"]["from"], said["last"]["to"], said["last"]["took"]) == ("n5", "m4", ["m5"])
    shown = occupancy(game)
    game.pop()  # a take-back: the board asks for the position before the move
    said = report(phase="setup", occupancy=shown)
    assert said["moves"] == ["s3xm4-m5"]
    assert said["setup"] == "put a piece back on m5 n5; take the piece off m4"
    over = game.copy()
    over.resign(zuni.NORTH)
    said = narrator.follow(
        {"game": "g1", "ruleset": "mosona", "moves": 1, "phase": "over", "result": "south", "termination": "resign"}
    )
    assert said["result"] == "South wins (resign)"  # the board's own word when the copy cannot know who resigned
    assert narrator.follow({"game": "g2", "ruleset": "kolowis", "moves": 0, "phase": "setup"})["moves"] == []


def test_a_serial_port_that_does_not_exist_is_an_error_at_once(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    with Database(db) as d:  # an unfinished game: no word about resuming it before the error
        d.add_move(d.new_game("mosona", players={"south": "human", "north": "ai:3"}), 0, "s3xm4-m5")
    # At once: the port is checked before anything opens or waits (no stopwatch here: the
    # order shows in what is said, nothing about the log or a board comes first).
    out = run_zuni("play", "--port", "/dev/nonexistent", "--db", str(db))
    assert out.returncode == 2 and "no serial port /dev/nonexistent on this computer; ports found: " in out.stderr
    assert "unfinished" not in out.stdout + out.stderr, out.stdout
    out = run_zuni("board", "check", "/dev/nonexistent")
    assert out.returncode == 2 and "no serial port /dev/nonexistent" in out.stderr, out.stderr
    if discover():
        pytest.skip("a board is plugged in: `zuni board check` would find it")
    out = run_zuni("board", "check")
    assert out.returncode == 2 and "no board plugged in" in out.stderr and "ports found: " in out.stderr, out.stderr


def test_zuni_moves_without_arguments_says_how() -> None:
    out = run_zuni("moves")
    assert out.returncode == 2
    assert "give the ruleset (the moves are optional)" in out.stderr and "zuni moves mosona" in out.stderr
    assert "required" not in out.stderr
    assert run_zuni("moves", "mosona").stdout.split() == ["s3xm4-m5"]


def test_table_words_count_the_moves_of_both_sides() -> None:
    from zuniboard.games.words import hint_words, table_words

    assert table_words("win", 5) == "win in 5 moves (3 of them yours)"
    assert table_words("win", 1) == "win in 1 move (this one)"
    assert table_words("loss", 4) == "lost in 4 moves (2 of them yours)"
    assert table_words("draw", 0) == "drawn with best play"
    assert (
        hint_words("south", "m4-s4", "lift m4, put it on s4", table_words("win", 23), True)
        == "hint for south: m4-s4 (lift m4, put it on s4), shown on the board;"
        " endgame table: win in 23 moves (12 of them yours)"
    )
    assert hint_words("north", "n3-n4", "", "", False) == "hint for north: n3-n4"


def test_the_terminal_example_move_is_a_legal_move_of_the_game() -> None:
    """The connect line's example is a move of the ruleset played (Awithlaknakwe has no
    s3xm4-m5), and a ruleset the engine refuses still gets a line, not an error."""
    from zuniboard.play.connect import example_move

    for ruleset in ("mosona", "kolowis", "kolowis size=short", "awithlaknakwe", "awithlaknakwe players=4"):
        game = zuni.new_game(ruleset)
        assert example_move(ruleset) in [m.text() for m in game.legal_moves()], ruleset
    assert example_move("no such game") == "s3xm4-m5"


def test_the_log_says_one_move_in_the_singular(tmp_path: Path) -> None:
    """'(1 move)', never '(1 moves)': the board's unfinished game given up by a new one."""
    from zuniboard.play.gamelog import BoardGameLog
    from zuniboard.records.db import Database

    said: list[str] = []
    with Database(tmp_path / "games.sqlite3") as db:
        gid = db.new_game("mosona", players={"south": "human", "north": "ai:3"})
        db.add_move(gid, 0, "s3xm4-m5")
        BoardGameLog(db, lambda tone, text: said.append(text)).abandon(gid)
        assert db.get(gid).termination == "abandoned"
    assert said and "game #%d (1 move) is logged as abandoned" % gid in said[0], said
