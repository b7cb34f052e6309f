"""The board's hint in the line games (zuni_board.linehint): at every fixed depth its
score is the exact alpha-beta value of a plain recursive search on LineGame (the same
terms: evaluation, quiescence of the longest captures, stand pat, wins by plies) and its
move is one that reaches that value; it never touches the game, gives the same answer
however it is sliced, keeps each slice to its budget, and finds the winning captures.
Runs under CPython and MicroPython (the viper code the board runs)."""

import zuni
from check import eq
from zuni.evaluate import evaluate
from zuni.line import LineGame
from zuni_board.hint import HintSearch
from zuni_board.hintrun import search_for
from zuni_board.linehint import MAX_WORK, PER_UNIT, LineSearch

INF = 1 << 29
WIN = 1 << 24
MAX_QPLY = 4


def reference(game, depth, alpha, beta, ply, qply):
    """The value for the side to move: negamax alpha-beta on LineGame itself."""
    outcome = game.outcome()
    if outcome is not None:
        winner = outcome.winner
        if winner is None:
            return 0
        return WIN - ply if winner == game.team_of(game.turn) else ply - WIN
    if depth > 0:
        moves = game.legal_moves()
        best = -INF
    else:
        moves = game.legal_captures()
        if not moves or qply >= MAX_QPLY:
            return evaluate(game)
        most = 0
        for move in moves:
            most = max(most, len(move.captures))
        moves = [m for m in moves if len(m.captures) == most]
        best = -INF
        # The mover may stand pat unless every move of it captures.
        if game.ruleset["capture"] != "forced" and game.count_moves() > len(game.legal_captures()):
            best = evaluate(game)
            if best >= beta:
                return best
            alpha = max(alpha, best)
        qply += 1
    for move in moves:
        game.push(move)
        value = -reference(game, depth - 1, -beta, -alpha, ply + 1, qply if depth <= 0 else 0)
        game.pop()
        best = max(best, value)
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    return best


class Lcg:
    def __init__(self, seed):
        self.x = (seed * 2654435761 + 1) & 0x3FFFFFFF

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x3FFFFFFF
        return (self.x >> 7) % n


def _positions(ruleset, every, plies, seed=3):
    """Every ``every``-th position of a seeded random game with a choice to make."""
    rng = Lcg(seed)
    game = zuni.new_game(ruleset)
    for ply in range(plies):
        if game.is_game_over():
            return
        moves = game.legal_moves()
        if ply % every == every - 1 and len(moves) > 1:
            yield game
        game.push(moves[rng.below(len(moves))])


def _run(search, budget=6):
    while not search.step(budget):
        pass
    return search


def _check_against_reference(ruleset, depth, every, plies, seed=3):
    checked = 0
    for game in _positions(ruleset, every, plies, seed):
        key = game.key()
        search = _run(LineSearch(game, None, max_depth=depth, max_work=1 << 20))
        eq(game.key(), key, "the game after the search")
        value = reference(game, search.depth, -INF, INF, 0, 0)
        where = "%s %s depth %d" % (ruleset, game.position_text(), search.depth)
        eq(search.score, value, where)
        if search.depth < depth:
            assert abs(value) >= WIN - 1000, "stopped at depth %d without a forced result: %s" % (search.depth, where)
        game.push(search.best)
        eq(-reference(game, search.depth - 1, -INF, INF, 1, 0), value, "the value of its move, " + where)
        game.pop()
        checked += 1
    assert checked >= 3, checked


def test_mosona_depth_4_is_the_reference_value():
    _check_against_reference("mosona", 4, 9, 60)


def test_mosona_options_depth_3():
    _check_against_reference("mosona board=open capture=free chain=optional", 3, 7, 50)
    _check_against_reference("mosona jumps=straight stall=draw quiet=6", 3, 5, 40)


def test_kolowis_short_depth_3():
    _check_against_reference("kolowis size=short", 3, 3, 30)


def test_kolowis_depth_2_and_3():
    _check_against_reference("kolowis", 2, 11, 70, seed=5)
    _check_against_reference("kolowis", 3, 7, 70, seed=5)


def test_the_same_answer_however_sliced():
    for game in _positions("kolowis size=short", 4, 30):
        whole = _run(LineSearch(game, None, max_work=300), 1 << 20)
        for budget in (1, 6):
            sliced = _run(LineSearch(game, None, max_work=300), budget)
            eq(
                (sliced.best, sliced.score, sliced.depth, sliced.nodes),
                (whole.best, whole.score, whole.depth, whole.nodes),
            )
            assert sliced.slices > whole.slices, (sliced.slices, whole.slices)


def test_a_slice_keeps_to_its_budget():
    game = zuni.new_game("kolowis")
    search = LineSearch(game, None)
    while True:
        nodes = search.nodes
        done = search.step(2)
        spent = search.nodes - nodes
        assert spent <= 2 * PER_UNIT, spent
        assert spent > 0 or done, "a slice that does nothing"
        if done:
            break
    assert search.work <= MAX_WORK, search.work
    assert search.depth >= 4, search.depth


def test_best_is_one_of_the_callers_moves():
    game = zuni.new_game("kolowis size=short")
    game.push_text(game.legal_moves()[0].text())
    moves = game.legal_moves()
    search = _run(LineSearch(game, moves, max_work=100))
    assert any(search.best is m for m in moves), search.best


def test_it_takes_the_winning_captures():
    # Mosona (captures forced): North's double capture over the single one.
    game = LineGame.from_position("mosona", "south s3 m6 m4 north n4 n5 m3", "north")
    search = _run(search_for(game))
    assert isinstance(search, LineSearch)
    eq(len(search.best.captures), 2, "captures of " + search.best.text())
    # The last piece taken (captures are free here): a win at once, found as one.
    game = LineGame.from_position("mosona capture=free", "south s3 s8 north m4", "south")
    search = _run(search_for(game))
    assert search.best.text().startswith("s3xm4-"), search.best
    eq(search.score, WIN - 1)
    eq(search.depth, 1)


def test_stale_after_the_game_moved_on():
    game = zuni.new_game("kolowis")
    search = LineSearch(game, None)
    eq(search.step(1), False)
    game.push(game.legal_moves()[0])
    eq(search.step(6), True)
    eq(search.best, None)


def test_awithlaknakwe_keeps_the_general_search():
    assert isinstance(search_for(zuni.new_game("awithlaknakwe")), HintSearch)
