"""The board's own hint search (zuni_board.hint): it finds winning captures, leaves the
game as it was between slices, keeps each slice and the whole search to their budgets,
and gives the same answer however it is sliced. Runs under CPython and MicroPython."""

import zuni
from check import eq
from zuni.awith import AwithGame
from zuni.evaluate import evaluate
from zuni.line import LineGame
from zuni_board.hint import LEGAL, MAX_WORK, HintSearch


def _search(game, budget=LEGAL, **kw):
    """Run a search to its end in slices of ``budget``, checking between slices that the
    game is back in its own position; returns the search."""
    key = game.key()
    moves = len(game.move_stack)
    search = HintSearch(game, None, **kw)
    slices = 0
    while True:
        work = search.work
        done = search.step(budget)
        slices += 1
        spent = search.work - work
        assert spent <= max(budget, LEGAL), "a slice of %d spent %d" % (budget, spent)
        eq(game.key(), key, "position between slices")
        eq(len(game.move_stack), moves, "history between slices")
        if done:
            break
        assert spent > 0, "a slice that does nothing"
    eq(search.slices, slices)
    return search


def _played(ruleset, texts):
    game = zuni.new_game(ruleset)
    for t in texts:
        game.push_text(t)
    return game


def test_mosona_takes_the_double_capture():
    # North may take one piece (n3xm4-s3, the engine's first move) or two.
    game = _played("mosona", ["s3xm4-m5", "m2xs2-s3", "s4xs3-s2xm3-m4"])
    eq(game.legal_moves()[0].text(), "n3xm4-s3")
    search = _search(game)
    eq(search.best.text(), "n4xm5-s4xm4-m3")
    assert search.score >= 100, search.score


def test_kolowis_takes_the_whole_chain():
    game = _played("kolowis", ["s9-m9", "n10xm10-s9", "m11-m10", "s9xm10-n10", "s11-m11"])
    search = _search(game)
    eq(search.best.text(), "n12xm12-s11xs10-s9")
    assert search.score >= 200, search.score


def test_a_capture_that_wins_the_game_at_once():
    # South's last piece can be taken (captures are not compulsory here, so North has
    # other moves): that ends the game.
    game = LineGame.from_position("mosona capture=free", "south s4 north m4 n1 n8", "north")
    assert len(game.legal_moves()) > 3
    search = _search(game)
    eq(search.best.text(), "m4xs4-s5")
    assert search.score > 10**6, "a win: %d" % search.score


def test_awithlaknakwe_takes_the_custody_capture():
    # South's warrior on e5 moving to f6 closes g7 between f6 and h8: North's piece goes.
    game = AwithGame.from_position("awithlaknakwe", {"e5": "s", "h8": "s", "g7": "n", "j10": "n", "c9": "n"}, "south")
    moves = [m.text() for m in game.legal_moves()]
    capture = [m for m in game.legal_moves() if m.captures]
    assert capture, "the position has a custody capture: %s" % moves
    search = _search(game)
    eq(search.best, capture[0])
    eq(search.best.captures, capture[0].captures)


def test_slicing_does_not_change_the_answer():
    game = _played("kolowis", ["s9-m9", "n10xm10-s9", "s10-m10"])
    one = _search(game, 1)
    many = _search(game, 4000)
    eq(
        (one.best, one.score, one.depth, one.nodes, one.work),
        (many.best, many.score, many.depth, many.nodes, many.work),
    )
    assert one.slices > 10 * many.slices, (one.slices, many.slices)


def test_the_whole_search_keeps_to_its_work_limit():
    game = zuni.new_game("awithlaknakwe players=4")
    evaluate(game)  # its tables loaded before the search
    search = _search(game)
    assert search.work <= MAX_WORK, search.work
    eq(search.eval_cost, LEGAL, "the four-player evaluation costs about a legal_moves()")
    eq(search.captures_cost, 2, "Awithlaknakwe tests each move for its captures")
    assert search.best in game.legal_moves()
    small = _search(game, max_work=80)
    assert small.work <= 80 and small.best in game.legal_moves(), small.work


def test_one_legal_move_needs_no_search():
    game = zuni.new_game("mosona")  # the first move must go into the centre
    moves = game.legal_moves()
    if len(moves) == 1:
        search = _search(game)
        eq(search.best, moves[0])
        eq(search.nodes, 1)


def test_a_game_that_moved_on_stops_the_search():
    game = _played("mosona", ["s3xm4-m5", "n5xm5-m4", "m7xn6-n5"])
    search = HintSearch(game)
    search.step(LEGAL)
    game.push(game.legal_moves()[0])
    eq(search.step(LEGAL), True)
    eq(search.best, None, "no hint for a position that is gone")


def test_stop_keeps_the_best_so_far():
    game = _played("mosona", ["s3xm4-m5", "m2xs2-s3", "s4xs3-s2xm3-m4"])
    search = HintSearch(game)
    for _ in range(30):
        search.step(LEGAL)
    search.stop()
    eq(search.done, True)
    eq(search.step(LEGAL), True)
    assert search.best in game.legal_moves()


def test_the_evaluation_is_the_shared_one():
    # The search's leaf score is zuni.evaluate's (the host's search uses it too): in a
    # quiet position with no captures, depth 1 scores the best child by it.
    game = _played("mosona", ["s3xm4-m5", "n5xm5-m4", "m7xn6-n5"])
    search = _search(game, 4000, max_depth=1)
    best = None
    for move in game.legal_moves():
        game.push(move)
        if not [m for m in game.legal_moves() if m.captures]:
            score = -evaluate(game)
            if best is None or score > best:
                best = score
        game.pop()
    if best is not None:
        assert search.score >= best, (search.score, best)
