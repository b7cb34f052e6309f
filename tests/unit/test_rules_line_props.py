"""Property tests of zuni.line (CPython only: hypothesis) and a cross-check against the
independent reference generator tests/refgen_line.py for every combination of options."""

from __future__ import annotations

import itertools
import random

import pytest
import refgen_line as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zuni
from zuni.line import LineGame


def _all_rulesets() -> list[str]:
    """Every combination of the options that change the moves (quiet/stall aside)."""
    out = []
    common = itertools.product(
        ("beyond", "straight", "pattern"), ("forced", "optional", "none"), ("forced", "free"), ("south", "north")
    )
    for jumps, chain, capture, first in common:
        tail = "jumps=%s chain=%s capture=%s first=%s" % (jumps, chain, capture, first)
        for board in ("lined", "open"):
            out.append("mosona board=%s %s" % (board, tail))
        for size in ("long", "short"):
            out.append("kolowis size=%s %s" % (size, tail))
    return out


ALL_RULESETS = _all_rulesets()
# Small quiet limits so that random games reach the quiet ending too.
END_RULESETS = [
    "mosona quiet=6",
    "mosona jumps=pattern quiet=6 stall=draw",
    "mosona board=open capture=free quiet=8",
    "kolowis size=short quiet=5 stall=draw",
    "kolowis chain=none quiet=6",
    "kolowis jumps=beyond capture=free quiet=7",
    "mosona",
    "kolowis",
]


def _ref_moves(game: ref.RefGame) -> list[str]:
    return sorted(game.legal())


def _engine_moves(game: zuni.Game) -> list[str]:
    return sorted(str(m) for m in game.legal_moves())


def _same_tree(engine: zuni.Game, model: ref.RefGame, depth: int, budget: list[int]) -> int:
    """Compare the move lists at every node down to ``depth``; returns perft(depth)."""
    moves = _ref_moves(model)
    assert _engine_moves(engine) == moves, "%s after %s" % (engine.ruleset, [str(m) for m in engine.move_stack])
    budget[0] -= 1
    if depth == 1:
        return len(moves)
    total = 0
    for text in moves:
        engine.push_text(text)
        total += _same_tree(engine, model.play(text), depth - 1, budget)
        engine.pop()
    return total


@pytest.mark.parametrize("ruleset", ALL_RULESETS)
def test_perft_and_move_lists_match_reference(ruleset: str) -> None:
    engine = zuni.new_game(ruleset)
    model = ref.RefGame(ruleset)
    # The deepest depth (2 to 8) whose tree has at most 2000 leaves and 200 inner
    # positions, chosen with the fast engine's counts; the reference then compares the
    # move list of every inner position. (Pattern leaps with optional chains branch
    # ~100 ways, narrow rulesets go to depth 8.)
    depth = 2
    inner = 1 + zuni.perft(engine, 1)
    while depth < 8:
        leaves = zuni.perft(engine, depth + 1)
        more = inner + zuni.perft(engine, depth)
        if leaves > 2000 or more > 200:
            break
        inner = more
        depth += 1
    budget = [0]
    count = _same_tree(engine, model, depth, budget)
    assert -budget[0] == inner
    assert count == zuni.perft(engine, depth) == ref.perft(model, depth)


@pytest.mark.parametrize("ruleset", ALL_RULESETS)
def test_random_games_match_reference(ruleset: str) -> None:
    """Whole games with random moves: same moves and same ending at every ply."""
    rng = random.Random(ruleset)
    for _ in range(1):
        engine = zuni.new_game(ruleset + " quiet=12")
        model = ref.RefGame(ruleset + " quiet=12")
        while True:
            moves = _engine_moves(engine)
            assert moves == _ref_moves(model), "%s after %s" % (ruleset, [str(m) for m in engine.move_stack])
            outcome = engine.outcome()
            over = model.over()
            if not moves:
                assert outcome is not None and over is not None
                assert (outcome.result, outcome.termination) == over
                break
            assert outcome is None and over is None
            text = rng.choice(moves)
            engine.push_text(text)
            model = model.play(text)


def test_hand_derived_perft() -> None:
    # Derived by hand (see also tests/shared/test_rules_line.py):
    # mosona: 1 (s3xm4-m5), then 2 (n5xm5-m4, m2xs2-s3).
    # mosona board=open: 1, then 1 (n5xm5-m4: no south line to leap along).
    # kolowis size=short: 3 steps into m5; each is answered by a capture: m6-m5 by
    #   m4xm5-m6, s4-m5 by n5xm5-s4, s5-m5 by n4xm5-s5 or n6xm6-s5: 4.
    # kolowis (long) is the same with m9 as the centre: 3, 4.
    # mosona capture=free: the jump and the three steps into m5: 4.
    for ruleset, counts in (
        ("mosona", (1, 2)),
        ("mosona board=open", (1, 1)),
        ("kolowis size=short", (3, 4)),
        ("kolowis", (3, 4)),
        ("mosona capture=free", (4,)),
    ):
        for depth, count in enumerate(counts, 1):
            assert zuni.perft(zuni.new_game(ruleset), depth) == count
            assert ref.perft(ref.RefGame(ruleset), depth) == count


# -- hypothesis ---------------------------------------------------------------------

PROPERTY_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
choices = st.lists(st.integers(min_value=0, max_value=10_000), min_size=0, max_size=120)


@PROPERTY_SETTINGS
@given(ruleset=st.sampled_from(ALL_RULESETS), picks=choices)
def test_push_pop_restores_everything(ruleset: str, picks: list[int]) -> None:
    game = zuni.new_game(ruleset)
    assert isinstance(game, LineGame)
    seen = []
    for pick in picks:
        moves = game.legal_moves()
        if not moves:
            break
        assert game.count_moves() == len(moves)
        assert game.legal_captures() == [m for m in moves if m.captures]
        seen.append((game.key(), bytes(game.board), game.turn, game.quiet, list(game.counts)))
        game.push(moves[pick % len(moves)])
    while game.move_stack:
        game.pop()
        assert (game.key(), bytes(game.board), game.turn, game.quiet, list(game.counts)) == seen.pop()
    assert game.key() == zuni.new_game(ruleset).key()


@PROPERTY_SETTINGS
@given(ruleset=st.sampled_from(ALL_RULESETS), picks=choices)
def test_every_move_text_parses_back(ruleset: str, picks: list[int]) -> None:
    game = zuni.new_game(ruleset)
    for pick in picks:
        moves = game.legal_moves()
        if not moves:
            break
        texts = [str(m) for m in moves]
        assert len(set(texts)) == len(texts), "two moves print the same"
        for move in moves:
            parsed = game.parse_move(str(move))
            assert parsed == move and str(parsed) == str(move)
        game.push(moves[pick % len(moves)])
    copy = game.copy()
    assert copy.key() == game.key() and copy.move_stack == game.move_stack


@PROPERTY_SETTINGS
@given(ruleset=st.sampled_from(END_RULESETS), seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_random_games_always_end(ruleset: str, seed: int) -> None:
    rng = random.Random(seed)
    game = zuni.new_game(ruleset)
    quiet = game.ruleset.get_int("quiet")
    pieces = sum(game.counts)
    # Each capture takes a piece, and at most quiet - 1 moves pass between captures.
    bound = (pieces + 1) * quiet
    while True:
        moves = game.legal_moves()
        if not moves:
            break
        game.push(rng.choice(moves))
        assert game.ply() <= bound
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.termination in ("no-pieces", "no-moves", "quiet")
    counts = game.counts
    if outcome.termination == "no-pieces":
        assert min(counts) == 0
    if outcome.termination == "quiet":
        assert game.quiet == quiet
        if "stall=draw" in ruleset or counts[0] == counts[1]:
            assert outcome.result == "draw"
        else:
            assert outcome.result == ("south" if counts[0] > counts[1] else "north")
