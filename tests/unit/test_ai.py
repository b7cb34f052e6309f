"""The computer player (host/zuniboard/ai): tactics in hand-made positions, team minimax
in four-player games, determinism, limits, the stop flag, analysis.

Hand-made positions come from the engines' ``from_position``; where a test claims a move
is the only good one, a brute-force search in the test checks that claim first, so a test
cannot pass because every move happened to be fine."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import zuni
from zuni.awith import AwithGame
from zuni.line import LineGame
from zuniboard.ai import (
    WIN_BOUND,
    GreedyPlayer,
    RandomPlayer,
    Searcher,
    SearchInfo,
    SearchPlayer,
    analyze,
    make_evaluator,
    make_player,
    score_text,
)
from zuniboard.ai.evaluate import arrival_distances
from zuniboard.ai.search import CHECK_EVERY

SHORT = "kolowis size=short"


def wins_within(game: zuni.Game, team: int, plies: int) -> bool:
    """Brute force: can ``team`` force a win within ``plies`` plies?"""
    outcome = game.outcome()
    if outcome is not None:
        return bool(outcome.winner == team)
    if plies == 0:
        return False
    mine = game.team_of(game.turn) == team
    for move in game.legal_moves():
        game.push(move)
        won = wins_within(game, team, plies - 1)
        game.pop()
        if mine and won:
            return True
        if not mine and not won:
            return False
    return not mine


def material_minimax(game: zuni.Game, plies: int) -> int:
    """Brute force: South's piece lead after ``plies`` plies of best play (line games)."""
    outcome = game.outcome()
    if outcome is not None:
        return 0 if outcome.winner is None else (100 if outcome.winner == 0 else -100)
    if plies == 0:
        return int(game.counts[0] - game.counts[1])
    values = []
    for move in game.legal_moves():
        game.push(move)
        values.append(material_minimax(game, plies - 1))
        game.pop()
    return max(values) if game.turn == zuni.SOUTH else min(values)


# -- forced wins ------------------------------------------------------------------


def test_takes_the_last_piece_when_capture_is_optional() -> None:
    game = LineGame.from_position(SHORT + " capture=free", "south m3 s6 n7 north m4", "south")
    winning = [m for m in game.legal_moves() if m.captures]
    assert winning and len(winning) < len(game.legal_moves())
    for seed in range(3):
        assert SearchPlayer(1, seed, deterministic=True).choose(game) in winning


@pytest.mark.parametrize(
    ("ruleset", "position"),
    [
        (SHORT, "south s7 s4 n5 north s8 m5"),
        (SHORT, "south n1 n3 m6 north s3 n2"),
        ("mosona", "south m8 m9 s8 north m6 s6"),
        ("mosona", "south m2 m6 m3 north m1 s1"),
    ],
)
def test_finds_a_win_in_two_moves(ruleset: str, position: str) -> None:
    game = LineGame.from_position(ruleset, position, "south")
    moves = game.legal_moves()
    winning = []
    for move in moves:
        game.push(move)
        if wins_within(game, 0, 2):
            winning.append(move)
        game.pop()
    # The position is a real test: a win exists, most moves miss it, none wins at once.
    assert winning and len(winning) * 2 < len(moves)
    assert not wins_within(game, 0, 1)
    result = Searcher().search(game, node_limit=3000)
    assert result.best_move in winning
    assert result.score >= WIN_BOUND
    assert score_text(result.score) == "win in 3"


# -- captures and recaptures --------------------------------------------------------


@pytest.mark.parametrize(
    "position",
    [
        "south m6 s7 s4 n5 north s6 m5 m1 n6",  # the double capture walks into a double recapture
        "south m6 m7 m5 s1 north n4 s2 m8 m1",  # s1xs2-s3 is recaptured twice
    ],
)
def test_avoids_a_capture_that_is_recaptured(position: str) -> None:
    game = LineGame.from_position(SHORT, position, "south")
    values = {}
    for move in game.legal_moves():
        game.push(move)
        values[move] = material_minimax(game, 3)
        game.pop()
    best = max(values.values())
    most = max(len(m.captures) for m in values)
    # A greedy player may pick a losing exchange here; the search must not.
    assert any(values[m] <= best - 2 for m in values if len(m.captures) == most)
    for level in (1, 3):
        move = SearchPlayer(level, seed=level, deterministic=True).choose(game)
        assert values[move] == best, (str(move), {str(m): v for m, v in values.items()})
    # Even one ply deep, the capture search at the horizon sees the recapture.
    shallow = Searcher().search(game, max_depth=1)
    assert values[shallow.best_move] == best, str(shallow.best_move)


def test_awithlaknakwe_takes_a_custody_capture() -> None:
    game = AwithGame.from_position("awithlaknakwe", {"d3": "s", "g6": "s", "f5": "n", "k12": "n"}, "south")
    capture = game.parse_move("d3-e4")
    assert capture.captures and sum(1 for m in game.legal_moves() if m.captures) == 1
    result = Searcher().search(game, node_limit=2000)
    assert result.best_move == capture
    assert result.score > 50


# -- four players: the turn order does not alternate teams -----------------------------


def test_four_players_plan_with_the_partner_who_moves_next() -> None:
    # Order swne: West moves, then North (same team). e7-f6 gives North the anchor for
    # the custody capture i9-h8xg7; a search that alternated teams would avoid it.
    game = AwithGame.from_position("awithlaknakwe players=4", {"e7": "w", "i9": "n", "g7": "s", "b2": "e"}, "west")
    setup = game.parse_move("e7-f6")
    assert not any(m.captures for m in game.legal_moves())
    result = Searcher().search(game, node_limit=2000)
    assert result.best_move == setup
    assert result.score > 50  # West's team gains a piece


@pytest.mark.parametrize("ruleset", ["awithlaknakwe players=4", "awithlaknakwe players=4 teams=combined"])
def test_four_player_games_get_legal_moves(ruleset: str) -> None:
    game = zuni.new_game(ruleset)
    player = SearchPlayer(1, seed=3, deterministic=True, node_limit=300)
    for _ in range(12):
        move = player.choose(game)
        assert move in game.legal_moves()
        game.push(move)
    assert game.ply() == 12


# -- determinism, limits, stop, progress -------------------------------------------------


def _after(ruleset: str, texts: list[str]) -> zuni.Game:
    game = zuni.new_game(ruleset)
    for text in texts:
        game.push_text(text)
    return game


def _open_position(ruleset: str) -> zuni.Game:
    """A position past the forced opening, with a real choice of moves."""
    game = zuni.new_game(ruleset)
    player = RandomPlayer(4)
    while len(game.legal_moves()) < 4 or game.ply() < 4:
        game.push(player.choose(game))
    return game


def test_deterministic_with_a_seed() -> None:
    game = zuni.new_game(SHORT)
    rng = RandomPlayer(11)
    for _ in range(6):
        game.push(rng.choose(game))
    first = SearchPlayer(2, seed=5, deterministic=True)
    second = SearchPlayer(2, seed=5, deterministic=True)
    move = first.choose(game)
    # A second player, and the same player again after other searches, agree exactly.
    first.choose(zuni.new_game("mosona"))
    assert second.choose(game) == move
    assert first.choose(game) == move
    assert first.last is not None and second.last is not None
    assert first.last.nodes == second.last.nodes
    assert first.last.score == second.last.score


def test_same_position_by_another_history_gives_the_same_move() -> None:
    # Awithlaknakwe: the same two warriors moved in another order reach the same position.
    one = _after("awithlaknakwe", ["e1-d2", "e14-f13", "j1-k2", "j14-i13"])
    two = _after("awithlaknakwe", ["j1-k2", "e14-f13", "e1-d2", "j14-i13"])
    assert one.key() == two.key()
    a = SearchPlayer(1, seed=9, deterministic=True).choose(one)
    b = SearchPlayer(1, seed=9, deterministic=True).choose(two)
    assert a == b


def test_node_budget_is_respected() -> None:
    game = zuni.new_game("kolowis")
    result = Searcher().search(game, node_limit=1500)
    # The budget is checked every few nodes; a quiescence search may run a few past it.
    assert 0 < result.nodes <= 1500 + 64


class TickingClock:
    """Stands in for the search's ``time.monotonic``: every read moves it on by ``step``
    seconds, so the time limit falls after a known amount of work whatever the load."""

    def __init__(self, step: float) -> None:
        self.now = 1000.0
        self.step = step
        self.reads = 0

    def monotonic(self) -> float:
        self.now += self.step
        self.reads += 1
        return self.now


def test_respects_the_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from zuniboard.ai import search as search_module
    from zuniboard.ai import search_tree

    clock = TickingClock(0.001)
    monkeypatch.setattr(search_module, "time", clock)
    monkeypatch.setattr(search_tree, "time", clock)  # the tree's own time checks
    game = _open_position("kolowis")
    player = SearchPlayer(3, seed=1, time_limit=0.3)
    move = player.choose(game)
    assert move in game.legal_moves()
    result = player.last
    assert result is not None and result.nodes > 0 and result.completed_depth >= 1
    # It stopped on its clock: within the limit by its own reckoning, and no more than one
    # check's worth of nodes past the last read of the clock.
    assert clock.reads > 100 and result.elapsed <= 0.3
    assert result.nodes <= (clock.reads + 1) * search_module.CHECK_EVERY


def test_level_times_are_used() -> None:
    player = SearchPlayer(1, seed=1)
    assert player.time_limit == 0.05 and player.node_limit is None
    player = SearchPlayer(5, seed=1, deterministic=True)
    assert player.node_limit == 40_000 and player.time_limit is None


def test_stop_flag_set_before_search_still_gives_a_legal_move() -> None:
    game = zuni.new_game("awithlaknakwe")
    stop = threading.Event()
    stop.set()
    player = SearchPlayer(5, seed=1, stop=stop)
    move = player.choose(game)
    assert move in game.legal_moves()
    # Stopped at its first look at the flag, not after a level-5 search (hundreds of
    # thousands of nodes): counted in nodes, not seconds.
    assert player.last is not None and player.last.stopped
    assert player.last.nodes <= 4 * CHECK_EVERY, player.last.nodes


def test_stop_flag_from_another_thread_ends_the_search() -> None:
    game = _open_position("kolowis")
    stop = threading.Event()
    seen: list[SearchInfo] = []

    def progress(info: SearchInfo) -> None:
        seen.append(info)
        if info.depth == 2:
            # As Ctrl-C would, from outside the search loop.
            threading.Thread(target=stop.set).start()

    player = SearchPlayer(5, seed=1, time_limit=30.0, progress=progress, stop=stop)
    move = player.choose(game)
    assert move in game.legal_moves()
    assert player.last is not None and player.last.stopped
    assert [info.depth for info in seen][:2] == [1, 2]
    assert all(info.best_move in game.legal_moves() and info.nodes > 0 for info in seen)
    assert seen[0].pv and seen[0].pv[0] == seen[0].best_move


def test_search_does_not_change_the_game() -> None:
    game = _after(SHORT, ["m6-m5"])
    key, ply = game.key(), game.ply()
    Searcher().search(game, node_limit=500)
    assert game.key() == key and game.ply() == ply


# -- bad input ------------------------------------------------------------------------


def test_bad_level_is_named() -> None:
    with pytest.raises(ValueError, match="level 9"):
        SearchPlayer(9)
    with pytest.raises(ValueError, match="'wizard'"):
        make_player("wizard")


def test_finished_game_has_no_move_to_search() -> None:
    game = LineGame.from_position(SHORT, "south m3 north n1", "south", quiet=0)
    game.resign(zuni.NORTH)
    with pytest.raises(zuni.GameOverError, match="over"):
        Searcher().search(game, node_limit=100)
    with pytest.raises(zuni.GameOverError):
        GreedyPlayer(1).choose(game)


def test_bad_limits_are_named() -> None:
    with pytest.raises(ValueError, match="time_limit"):
        Searcher().search(zuni.new_game("mosona"), time_limit=0)
    with pytest.raises(ValueError, match="node_limit"):
        Searcher().search(zuni.new_game("mosona"), node_limit=-5)


# -- simple players, evaluation ------------------------------------------------------------


def test_greedy_takes_the_most_pieces() -> None:
    game = LineGame.from_position(SHORT, "south m6 s7 s4 n5 north s6 m5 m1 n6", "south")
    for seed in range(5):
        assert GreedyPlayer(seed).choose(game) == game.parse_move("s7xs6-s5xm5-n4")


def test_random_player_plays_legal_moves_to_the_end() -> None:
    game = zuni.new_game("mosona")
    player = RandomPlayer(2)
    while not game.is_game_over():
        move = player.choose(game)
        assert move in game.legal_moves()
        game.push(move)
    assert game.outcome() is not None


def test_evaluation_is_symmetric_at_the_start_and_counts_material() -> None:
    for ruleset in ("mosona", "kolowis", "awithlaknakwe", "awithlaknakwe players=4"):
        game = zuni.new_game(ruleset)
        assert make_evaluator(game)(game) == 0, ruleset
    ahead = LineGame.from_position(SHORT, "south m3 m6 north n1", "south")
    assert make_evaluator(ahead)(ahead) >= 100
    arrived = AwithGame.from_position("awithlaknakwe", {"f14": "s", "g6": "n"}, "south")
    assert make_evaluator(arrived)(arrived) > 50  # a South warrior on North's home row scores


def test_arrival_distances_follow_the_warriors_diagonal_moves() -> None:
    game = zuni.new_game("awithlaknakwe players=4")
    at = game.geometry.index
    south = arrival_distances(game, zuni.SOUTH)
    # 13 diagonal moves from the home row to North's home; none from a corner that the
    # target row cannot be reached from (b13 would need a square off the board).
    assert south[at["e1"]] == 13 and south[at["f14"]] == 0 and south[at["e12"]] == 2
    assert south[at["b13"]] == -1
    assert arrival_distances(game, zuni.NORTH)[at["e14"]] == 13
    assert arrival_distances(game, zuni.WEST)[at["a5"]] == 13
    assert arrival_distances(game, zuni.WEST)[at["n5"]] == 0


# -- analysis -------------------------------------------------------------------------------


def test_analyze_names_better_moves_for_a_blunder() -> None:
    game = LineGame.from_position(SHORT, "south m6 m7 m5 s1 north n4 s2 m8 m1", "south")
    game.push_text("s1xs2-s3")
    analysis = analyze(game, 0, node_limit=4000)
    assert analysis.move == game.move_stack[0] and analysis.side == zuni.SOUTH
    assert not analysis.is_best
    assert "m7xm8-m9" in [str(m) for m, _ in analysis.alternatives]
    assert all(score > analysis.score for _, score in analysis.alternatives)
    assert analysis.loss >= 150
    assert "better" in analysis.summary() and "s1xs2-s3" in analysis.summary()


def test_analyze_accepts_the_best_move() -> None:
    game = LineGame.from_position(SHORT, "south m6 m7 m5 s1 north n4 s2 m8 m1", "south")
    game.push_text("m7xm8-m9")
    analysis = analyze(game, 0, node_limit=4000)
    assert analysis.is_best and analysis.loss == 0
    assert analysis.summary().endswith("best move")
    assert game.ply() == 1  # the game is unchanged


def test_analyze_bad_index_is_named() -> None:
    game = _after("mosona", ["s3xm4-m5"])
    with pytest.raises(IndexError, match="no move 4"):
        analyze(game, 4)


# -- the benchmark tool -----------------------------------------------------------------------


def test_bench_quick_json_runs() -> None:
    import json
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    command = [sys.executable, str(repo / "tools" / "bench_ai.py"), "--quick", "--only", "mosona", "--json"]
    done = subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [(row["player"], row["opponent"]) for row in report["table"]] == [("level1", "random"), ("level1", "greedy")]
    assert all(row["games"] == 2 and row["wins"] + row["draws"] + row["losses"] == 2 for row in report["table"])
    (top,) = report["requirements"]
    assert top["game"] == "mosona" and top["required"] == 0.95 and top["player"] == "level5@0.05s"


def test_bench_times_moves_against_their_budget(tmp_path: Path) -> None:
    import json
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    command = [sys.executable, str(repo / "tools" / "bench_ai.py"), "--timing", "--only", "mosona"]
    command += ["--uct-times", "0.01,0.02", "--json", "--quiet"]
    env = dict(os.environ, ZUNI_TABLEBASE_DIR=str(tmp_path))  # no tables: none built either
    done = subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=120, env=env)
    report = json.loads(done.stdout)
    rows = report["timing"]
    assert [(r["game"], r["movetime"]) for r in rows] == [("mosona", 0.01), ("mosona", 0.02)]
    # The cold moves are timed at the first budget only; every row has a first move.
    assert "cold" in rows[0]["worst_by_kind"] and "cold" not in rows[1]["worst_by_kind"]
    assert all({"first", "middle"} <= set(r["worst_by_kind"]) and r["moves"] >= 5 for r in rows)
    assert all(0 < r["median"] <= r["worst"] and r["ok"] == (r["worst"] <= 1.1) for r in rows)
    # Timing depends on the machine's load: the exit status says whether every move kept it.
    assert done.returncode == (0 if all(r["ok"] for r in rows) else 1), done.stderr


def test_bench_rejects_unknown_game() -> None:
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    command = [sys.executable, str(repo / "tools" / "bench_ai.py"), "--only", "chess"]
    done = subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "'chess'" in done.stderr


# -- plain UCT (the outside yardstick of tools/bench_ai.py) --------------------------------


def test_uct_plays_legal_moves_and_respects_its_iterations() -> None:
    from zuniboard.ai.uct import UCTPlayer

    game = zuni.new_game("kolowis size=short")
    player = UCTPlayer(seed=3, iterations=30)
    for _ in range(6):
        move = player.choose(game)
        assert move in game.legal_moves()
        assert player.last_iterations in (0, 30)  # 0: a forced move is played at once
        game.push(move)


def test_uct_takes_the_last_piece() -> None:
    from zuniboard.ai.uct import UCTPlayer

    # South's m5xm6-m7 takes North's last piece; with capture=free, 9 steps let the game go on.
    game = LineGame.from_position(SHORT + " capture=free", "south m5 s1 north m6", "south", quiet=0)
    assert len(game.legal_moves()) > 5
    move = UCTPlayer(seed=1, iterations=300).choose(game)
    assert str(move) == "m5xm6-m7"


def test_uct_time_limit_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    from zuniboard.ai import uct
    from zuniboard.ai.uct import UCTPlayer

    # On a ticking clock (1 ms a read): the playouts stop once it passes the limit.
    clock = TickingClock(0.001)
    monkeypatch.setattr(uct, "time", clock)
    game = zuni.new_game("awithlaknakwe")
    player = UCTPlayer(seed=1, time_limit=0.1)
    assert player.choose(game) in game.legal_moves()
    assert 0 < player.last_iterations and player.last_elapsed <= 0.1 + 3 * clock.step


@pytest.mark.parametrize(
    "ruleset", ["mosona", "mosona board=open jumps=pattern", "kolowis chain=none", "kolowis size=short capture=free"]
)
def test_capture_check_agrees_with_the_move_generator(ruleset: str) -> None:
    import random

    from zuniboard.ai.search import line_capture_check

    game = zuni.new_game(ruleset)
    check = line_capture_check(game)
    assert check is not None
    rng = random.Random(5)
    seen = set()
    for _ in range(6):
        while not game.is_game_over() and len(game.move_stack) < 120:
            moves = game.legal_moves()
            expected = any(m.captures for m in moves)
            assert check(game) == expected, (game.position_text(), game.turn)
            seen.add(expected)
            game.push(rng.choice(moves))
        while game.move_stack:
            game.pop()
    assert seen == {True, False}
    assert line_capture_check(zuni.new_game("awithlaknakwe")) is None


def test_contempt_makes_a_draw_cost_the_player_and_not_the_analysis() -> None:
    # One against one far apart, one quiet move left: every move ends the game drawn.
    game = LineGame.from_position(SHORT, "south s1 north n8", "south", quiet=39)
    assert Searcher(use_tablebase=False).search(game, node_limit=500).score == 0
    assert Searcher(use_tablebase=False, contempt=25).search(game, node_limit=500).score == -25
    # Seen from the other team, the draw is the opponent's loss of contempt.
    game = LineGame.from_position(SHORT, "south s1 north n8", "north", quiet=39)
    assert Searcher(use_tablebase=False, contempt=25).search(game, node_limit=500).score == -25
    assert SearchPlayer(1).searcher.scores.contempt > 0


def test_line_evaluation_follows_the_quiet_count() -> None:
    # A level 3 v 3 of Kolowis short against UCT (bench_ai, seed 2022), drawn by the
    # quiet rule after 40 quiet moves: the nearer the end, the more a level position
    # is worth what the draw is worth to the root's team (below even: contempt).
    def static(pieces: str, quiet: int, contempt: int = 25, aware: bool = True) -> int:
        game = LineGame.from_position(SHORT, pieces, "north", quiet=quiet)
        searcher = Searcher(contempt=contempt, quiet_aware=aware)
        searcher.search(game, node_limit=50)  # sets the searcher up for this ruleset and root
        return searcher.scores.static_for_mover(game)

    level = "south m1 s5 s7 north n2 n5 n7"
    fresh, late, last = static(level, 0), static(level, 30), static(level, 39)
    assert fresh != -25 and abs(late + 25) < abs(fresh + 25) and abs(last + 25) <= 3
    assert static(level, 30, aware=False) == fresh  # without it, the count does not matter
    # A lead (South's game of seed 21, 3 v 4, lost on the count): the side ahead gains
    # as the end nears, so the side behind looks for exchanges early.
    behind = "south m8 s4 s6 north n1 n2 n5 s2"
    assert static(behind, 30) > static(behind, 8) > static(behind, 0)
    # stall=draw: the count decides nothing, a lead fades into the draw too.
    game = LineGame.from_position(SHORT + " stall=draw", behind, "north", quiet=39)
    searcher = Searcher(contempt=0)
    searcher.search(game, node_limit=50)
    assert abs(searcher.scores.static_for_mover(game)) <= 3


def test_awith_contacts_counts_enemy_pairs_on_a_diagonal() -> None:
    from zuni.position import parse_position
    from zuniboard.ai.evaluate import awith_contacts

    def contacts(pieces: str) -> int:
        return awith_contacts(parse_position("awithlaknakwe | south to move | " + pieces))

    assert contacts("south f6 | north k11") == 0
    assert contacts("south f6 | north g7") == 1  # next to each other on a diagonal
    assert contacts("south f6 | north h8") == 1  # one square apart: custody's reach
    assert contacts("south f6 | north i9") == 0
    assert contacts("south f6 | north f7") == 0  # orthogonal: custody=diagonal ignores it
    assert contacts("south f6 h6 | north g7 h8") == 2  # f6-g7 and h6-g7: h8 hides behind g7
    assert contacts("south f6 g7 | north h8") == 1  # g7-h8; f6 sees its own g7 first


def test_contact_turns_a_race_into_a_fight() -> None:
    # Against UCT at 0.2 s (bench_ai, seed 2021), South raced past North's warriors and
    # the game ended 6-6 with no capture; that engine played f2-e3 here, away from
    # North's i5. Liking contact, it plays towards it, where captures are made.
    from zuni.position import parse_position
    from zuniboard.ai.evaluate import awith_contacts

    text = "awithlaknakwe | south to move | south f2 i4 c5 h5 m7 k8 | north i5 f9 d10 h11 i11 f13 | quiet 0"

    def contacts_after(contact: int) -> int:
        game = parse_position(text)
        move = Searcher(contempt=25, contact=contact).search(game, node_limit=3000, seed=1).best_move
        game.push(move)
        return awith_contacts(game)

    assert contacts_after(4) > contacts_after(0)
    assert SearchPlayer(1).searcher.scores.contact > 0


def test_awith_threats_counts_the_pieces_one_step_can_take() -> None:
    from zuni.position import parse_position
    from zuniboard.ai.evaluate import awith_threats

    # Against UCT at 0.2 s (bench_ai, seed 1021), North to move: South's g6-f7 would
    # take e6 (d5 behind it); UCT played i7-j6 and lost e6. North threatens nothing.
    text = "awithlaknakwe | north to move | south d2 d5 j5 g6 i9 k9 | north e6 i7 g10 h10 g11 h11 | quiet 0"
    game = parse_position(text)
    assert awith_threats(game, 0) == 1 and awith_threats(game, 1) == 0
    # Two steps that both take e6 (g6-f7 with d5 behind it, c6-d7 with f5) count it
    # once; a step that takes two pieces counts both.
    both = parse_position(text.replace("south d2 d5 j5", "south f5 d5 c6").replace("north to", "south to"))
    assert len(both.legal_captures()) == 2 and awith_threats(both, 0) == 1
    assert awith_threats(parse_position("awithlaknakwe | south to move | south e5 d8 h8 | north e7 g7"), 0) == 2
    assert awith_threats(parse_position("awithlaknakwe | south to move | south e5 | north e7 g7"), 0) == 0


@pytest.mark.parametrize("ruleset", ["awithlaknakwe", "awithlaknakwe players=4 teams=combined"])
def test_awith_threats_are_the_rules_warrior_captures(ruleset: str) -> None:
    # The team to move: the pieces its warrior steps capture, by the rules' own custody
    # (with teams=combined a team moves both partners' warriors: the team's threats).
    import random

    from zuniboard.ai.evaluate import awith_threats

    rng = random.Random(5)
    seen = 0
    for _ in range(3):
        game = zuni.new_game(ruleset)
        while not game.is_game_over():
            team = game.team_of(game.turn)
            taken = set()
            for move in game.legal_captures():
                if game.board[move.path[0]] in (1, 3, 5, 7):  # a warrior's step (core piece codes)
                    taken.update(move.captures)
            assert awith_threats(game, team) == len(taken), game.position()
            seen += len(taken)
            game.push(rng.choice(list(game.legal_moves())))
    assert seen > 0


def test_threats_are_liked_by_the_root_team_only() -> None:
    from zuni.position import parse_position

    text = "awithlaknakwe | north to move | south d2 d5 j5 g6 i9 k9 | north e6 i7 g10 h10 g11 h11 | quiet 0"

    def static(threat: int, turn: str = "north") -> int:
        game = parse_position(text.replace("north to move", turn + " to move"))
        searcher = Searcher(contempt=25, contact=4, threat=threat)
        searcher.search(game, node_limit=50)  # sets the searcher up for this root
        return searcher.scores.static_for_mover(game)

    # South's root: its threat on e6 is worth 12 to it (North to move: -12 for North).
    assert static(12, "south") - static(0, "south") == 12
    # North's root: South's threat is not North's liking.
    assert static(12) == static(0)


def test_threat_liking_leaves_the_race() -> None:
    # Against UCT at 0.2 s (a bench_ai trial, seed 1117), South raced (i7-h8 here) and
    # the game ended 6-6 after 156 plies with no capture: the player had made a threat
    # in 2 plies of the game (in the games it won, 6-28). Liking threats, it brings
    # i3 towards North's g7 and e4 instead.
    from zuni.position import parse_position

    text = "awithlaknakwe | south to move | south f3 i3 i4 i7 e10 h14 | north e4 g7 f8 j9 f10 f11 | quiet 0"

    def move(threat: int) -> str:
        return str(
            Searcher(contempt=25, contact=4, threat=threat)
            .search(parse_position(text), node_limit=6000, seed=1)
            .best_move
        )

    assert move(0) == "i7-h8"
    assert move(12) == "i3-h4"
    assert SearchPlayer(1).searcher.scores.threat > 0


@pytest.mark.parametrize(
    "ruleset", ["mosona", "mosona board=open jumps=pattern", "kolowis", "kolowis size=short jumps=beyond"]
)
def test_board_wide_evaluation_equals_the_shared_one(ruleset: str) -> None:
    import random

    from zuni.evaluate import line_team0
    from zuniboard.ai.lanes import LineLanes

    game = zuni.new_game(ruleset)
    lanes = LineLanes(game)
    evaluate = make_evaluator(game)
    rng = random.Random(11)
    values = set()
    for _ in range(4):
        while not game.is_game_over() and len(game.move_stack) < 150:
            expected = line_team0(game)
            assert lanes.evaluate_team0(game) == expected == evaluate(game), game.position_text()
            values.add(expected)
            game.push(rng.choice(game.legal_moves()))
        while game.move_stack:
            game.pop()
    assert len(values) > 20  # many different positions, not one value over and over


def test_bench_against_uct_resumes_and_tables_a_results_file(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    results = tmp_path / "vs_uct.jsonl"
    cell = ["--vs-uct", "--only", "kolowis-short", "--sides", "north", "--uct-times", "0.02", "--uct-games", "1"]
    command = [sys.executable, str(repo / "tools" / "bench_ai.py"), *cell, "--results", str(results), "--json"]
    first = subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    (game,) = [json.loads(line) for line in results.read_text().splitlines()]
    assert game["game"] == "kolowis-short" and game["side"] == "north" and game["result"] in ("win", "draw", "loss")
    assert len(game["moves"]) == game["plies"] and game["engine"] == json.loads(first.stdout)["engine"]
    # Run again: the cell has its game, so none is played and the report still counts it.
    again = subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and "1 games of engine" in again.stderr and "0 to play" in again.stderr
    assert len(results.read_text().splitlines()) == 1
    assert [row["games"] for row in json.loads(again.stdout)["vs_uct"]] == [1]
    table = [sys.executable, str(repo / "tools" / "bench_ai.py"), "--vs-uct", "--results", str(results), "--table"]
    shown = subprocess.run(table, cwd=repo, capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and "kolowis-short" in shown.stdout and " north " in shown.stdout
    # A line that is not a game is refused, naming the file and the line.
    results.write_text(results.read_text() + "not json\n")
    bad = subprocess.run(table, cwd=repo, capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "vs_uct.jsonl line 2" in bad.stderr
