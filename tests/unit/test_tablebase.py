"""Endgame tablebases of the line games (zuniboard.ai.tablebase), proved against a plain search.

Tiny tables (few pieces, a short quiet limit) keep the test fast; every position of
every table, at every quiet count, must have the value a plain minimax search of the
rules engine gives it.
"""

from __future__ import annotations

import itertools
import threading
from pathlib import Path

import pytest
from waiting import wait_until

import zuni
from zuni.line import LineGame
from zuniboard.ai import tablebase
from zuniboard.ai.tablebase import WIN_T, Tablebase

RULESETS = ["kolowis size=short quiet=3", "mosona quiet=3", "mosona board=open quiet=3 stall=draw"]


def plain_value(game: zuni.Game, memo: dict[bytes, int]) -> int:
    """Minimax on the rules engine: WIN_T - d for a win in d moves, -(WIN_T - d) for a loss."""
    key = game.key()
    if key in memo:
        return memo[key]
    outcome = game.outcome()
    if outcome is not None:
        if outcome.winner is None:
            value = 0
        else:
            value = WIN_T if outcome.winner == game.team_of(game.turn) else -WIN_T
    else:
        value = -(10**6)
        for move in game.legal_moves():
            game.push(move)
            child = plain_value(game, memo)
            game.pop()
            value = max(value, -child + (1 if child > 0 else -1 if child < 0 else 0))
    memo[key] = value
    return value


def _names(game: LineGame, points: tuple[int, ...]) -> str:
    return " ".join(game.geometry.names[p] for p in points)


@pytest.fixture(scope="module", params=RULESETS)
def built(request: pytest.FixtureRequest) -> Tablebase:
    return tablebase.build(request.param, 3)


def test_every_position_agrees_with_a_plain_search(built: Tablebase) -> None:
    empty = LineGame(built.ruleset)
    ruleset = empty.ruleset  # parsed once (a ruleset string is parsed at every from_position)
    points = range(len(empty.board))
    memo: dict[bytes, int] = {}
    checked = 0
    outcomes: set[str] = set()
    for (s, n), _table in built.tables.items():
        for south in itertools.combinations(points, s):
            for north in itertools.combinations([p for p in points if p not in south], n):
                pieces = "south %s north %s" % (_names(empty, south), _names(empty, north))
                for turn in ("south", "north"):
                    for quiet in range(built.quiet + 1):
                        game = LineGame.from_position(ruleset, pieces, turn, quiet)
                        expected = plain_value(game, memo)
                        got = built.value(game)
                        assert got == expected, (built.ruleset, pieces, turn, quiet, got, expected)
                        outcomes.add(tablebase.decode(expected)[0])
                        checked += 1
    assert checked > 10_000
    # The tables are not trivial: wins, losses and (by counting or stall=draw) draws.
    assert outcomes == {"win", "loss", "draw"}


def test_saved_tables_load_back_equal(built: Tablebase, tmp_path: Path) -> None:
    tablebase.save(built, tmp_path)
    loaded = tablebase.load(built.ruleset, tmp_path)
    assert loaded is not None and loaded.max_pieces == 3
    for balance, table in built.tables.items():
        assert (loaded.tables[balance].values == table.values).all()
    assert sum(p.stat().st_size for p in tmp_path.iterdir()) < 200_000


def test_probe_says_win_draw_or_loss_with_the_moves_that_keep_it() -> None:
    tb = tablebase.build("kolowis size=short", 2)
    # South m5 takes m6 at once: a win in 1.
    game = LineGame.from_position("kolowis size=short", "south m5 north m6", "south")
    verdict = tablebase.probe(game, tb)
    assert verdict is not None and verdict.text == "win in 1"
    assert [str(m) for m in verdict.best_moves] == ["m5xm6-m7"]
    # The same pieces, North to move: North takes back.
    game = LineGame.from_position("kolowis size=short", "south m5 north m6", "north")
    verdict = tablebase.probe(game, tb)
    assert verdict is not None and verdict.text == "win in 1"
    # One against one far apart with a single quiet move left: drawn by counting.
    game = LineGame.from_position("kolowis size=short", "south s1 north n8", "south", quiet=39)
    verdict = tablebase.probe(game, tb)
    assert verdict is not None and verdict.text == "drawn"
    # Not in the tables (three pieces): no verdict.
    game = LineGame.from_position("kolowis size=short", "south s1 s2 north n8", "south")
    assert tablebase.probe(game, tb) is None


@pytest.fixture(scope="module")
def short_built() -> Tablebase:
    return tablebase.build("kolowis size=short", 3)


@pytest.fixture
def short_tables(short_built: Tablebase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Tablebase:
    """Kolowis short tables up to 3 pieces, saved where the search and the hints look."""
    monkeypatch.setenv("ZUNI_TABLEBASE_DIR", str(tmp_path))
    monkeypatch.setattr(tablebase, "_LOADED", {})
    tb = short_built
    tablebase.save(tb)
    # A timed search does not wait for tables to load (it starts a thread): load now.
    assert tablebase.for_ruleset("kolowis size=short") is not None
    return tb


def test_a_search_does_not_wait_for_the_tables_to_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:

    monkeypatch.setenv("ZUNI_TABLEBASE_DIR", str(tmp_path))
    monkeypatch.setattr(tablebase, "_LOADED", {})
    monkeypatch.setattr(tablebase, "_LOADING", set())
    tablebase.save(tablebase.build("kolowis size=short", 2))
    assert tablebase.for_ruleset("kolowis size=short", wait=False) is None  # loading in a thread
    loaded = wait_until(
        lambda: tablebase.for_ruleset("kolowis size=short", wait=False), "the tables to load", 10, step=0.01
    )
    assert loaded is not None and loaded.max_pieces == 2


class SlowLoad:
    """Stands in for tablebase.load: a load that lasts until the test lets it end (as
    Mosona's 5-piece set takes seconds on a busy machine)."""

    def __init__(self) -> None:
        self.calls = 0
        self.started = threading.Event()
        self.release = threading.Event()

    def __call__(self, ruleset: str, directory: Path | None = None) -> Tablebase | None:
        self.calls += 1
        self.started.set()
        self.release.wait(120)
        return tablebase.build(ruleset, 2)


def test_asking_while_the_tables_load_returns_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZUNI_TABLEBASE_DIR", str(tmp_path))
    monkeypatch.setattr(tablebase, "_LOADED", {})
    monkeypatch.setattr(tablebase, "_LOADING", set())
    tablebase.save(tablebase.build("kolowis size=short", 2))
    slow = SlowLoad()
    monkeypatch.setattr(tablebase, "load", slow)
    answers: list[Tablebase | None] = []

    def search_asks() -> None:
        for _ in range(5):  # a timed search asks at every move
            answers.append(tablebase.for_ruleset("kolowis size=short", wait=False))

    try:
        # The load cannot end before the asks are answered: an ask that waited for it
        # would still be waiting (no stopwatch: the answer comes while the load is held).
        asker = threading.Thread(target=search_asks, daemon=True)
        asker.start()
        asker.join(60)
        assert not asker.is_alive(), "a search waited for the tables to load"
        assert answers == [None] * 5
        assert slow.started.wait(60), "the first ask started the load in the background"
    finally:
        slow.release.set()
    assert tablebase.for_ruleset("kolowis size=short") is not None  # wait=True waits for the thread
    assert slow.calls == 1


def test_search_plays_the_tables_move_and_says_win_in_n(short_tables: Tablebase) -> None:
    from zuniboard.ai import SearchPlayer, score_text

    # Two against one, far apart, 30 quiet moves left: a win the search alone cannot see.
    game = LineGame.from_position("kolowis size=short", "south s1 s2 north n8", "south", quiet=10)
    verdict = tablebase.probe(game)
    assert verdict is not None and verdict.result == "win" and verdict.moves > 8
    player = SearchPlayer(1, seed=1, node_limit=200)
    move = player.choose(game)
    assert move in verdict.best_moves
    assert player.last is not None and score_text(player.last.score) == verdict.text
    # Played out, the tables' moves win against any defence within the promised moves.
    plies = 0
    while not game.is_game_over():
        if game.turn == zuni.SOUTH:
            game.push(player.choose(game))
        else:
            game.push(sorted(game.legal_moves(), key=str)[0])
        plies += 1
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0 and plies <= verdict.moves


def test_search_probes_the_tables_below_the_root(short_tables: Tablebase) -> None:
    from zuniboard.ai import Searcher

    # Four pieces (not in the 3-piece tables); captures lead into them.
    game = LineGame.from_position("kolowis size=short", "south m4 s5 north m5 n1", "south")
    searcher = Searcher()
    searcher.search(game, node_limit=500)
    assert searcher.tb_hits > 0
    assert Searcher(use_tablebase=False).tb_hits == 0


def test_analyze_and_hints_give_the_tables_verdict(short_tables: Tablebase) -> None:
    from zuniboard.ai import analyze

    game = LineGame.from_position("kolowis size=short", "south s1 s2 north n8", "south", quiet=10)
    text = tablebase.verdict_text(game)
    assert text is not None and text.startswith("win in ")
    game.push_text("s1-m1")
    analysis = analyze(game, 0, node_limit=100)
    assert analysis.verdict is not None and analysis.verdict.startswith("win in ")
    assert "[tablebase: win in" in analysis.summary()
    assert tablebase.verdict_text(zuni.new_game("kolowis size=short")) is None


def test_proof_number_search_agrees_with_the_tables() -> None:
    from zuniboard.ai import solver

    small = tablebase.build("mosona quiet=3", 2)
    full = tablebase.build("mosona quiet=3", 3)
    empty = LineGame("mosona quiet=3")
    names = empty.geometry.names
    checked = {True: 0, False: 0}
    # Two against one, every tenth placement: the solver with the 2-piece tables only
    # must find what the 3-piece table says.
    for i, (a, b, c) in enumerate(itertools.permutations(range(len(names)), 3)):
        if i % 97 or a > b:
            continue
        pieces = "south %s %s north %s" % (names[a], names[b], names[c])
        game = LineGame.from_position("mosona quiet=3", pieces, "north", quiet=1)
        value = full.value(game)
        assert value is not None
        proof = solver.prove(game, 0, tb=small, node_limit=100_000)
        assert proof.result is not None, pieces
        assert proof.result == (value < 0), (pieces, value)
        df = solver.prove_dfpn(game, 0, tb=small, node_limit=100_000)
        assert df.result == proof.result, (pieces, value)
        plain = solver.prove(game, 0, tb=small, node_limit=100_000, mobility=False)
        assert plain.result == proof.result, (pieces, value)
        checked[proof.result] += 1
    assert checked[True] > 3 and checked[False] > 3, checked


def test_a_drawn_table_position_is_played_for_the_trap_a_short_search_misses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Among drawn moves, the one whose opponent replies lose to a quiet move counts
    first. It came from the drawn 3 v 3 endings against UCT at 1 s (docs/strength-vs-
    uct.jsonl, seed 1101, ply 35: `south s4 s5 s7 north n2 n4 s2`, quiet 4, South to
    move): s7-m8 was played (a quarter of North's replies lose, every one by leaving a
    piece to be taken, and UCT never played one of those in 120 moves); the 6-piece
    tables give s7-s6 three replies that lose to a quiet move. Here the same rule in a
    4-piece position (6-piece tables take minutes to build)."""
    from zuniboard.ai import Searcher
    from zuniboard.ai.search_tables import tb_traps

    ruleset = "kolowis size=short quiet=8"
    monkeypatch.setenv("ZUNI_TABLEBASE_DIR", str(tmp_path))
    monkeypatch.setattr(tablebase, "_LOADED", {})
    tb = tablebase.build(ruleset, 4)
    tablebase.save(tb)
    assert tablebase.for_ruleset(ruleset) is not None
    game = LineGame.from_position(ruleset, "south n4 m3 north s2 s3", "south")
    assert tb.value(game) == 0  # drawn
    drawn = [m for m, v in tablebase.move_values(game, tb) if v == 0]
    assert sorted(str(m) for m in drawn) == ["m3-m4", "m3-n2", "m3-n3"]
    traps = {str(m): tb_traps(game, tb, m) for m in drawn}
    # m3-n2 leaves more losing replies (half), but each loses a piece at once; after
    # m3-m4 one reply loses to a quiet move.
    assert traps["m3-n2"] == (0, 0.5)
    assert traps["m3-m4"] == (1, 0.4)
    result = Searcher().search(game, node_limit=1000)
    assert str(result.best_move) == "m3-m4"
    assert result.score == 0  # a draw with best play, as the table says
