"""The proven strategy of Mosona (zuniboard.ai.book) and the computer playing it."""

from __future__ import annotations

import random

import zuni
from zuniboard.ai import book
from zuniboard.ai.players import BOOK_LEVEL, RandomPlayer, SearchPlayer

# The C solver's endgame tables end the proof's lines at this many pieces.
TABLE_PIECES = 7
NORTH = 1


def test_the_book_is_small_and_every_move_in_it_is_north_s_and_legal() -> None:
    assert book.BOOK_FILE.stat().st_size < 1_000_000
    entries = book.entries()
    assert len(entries) > 1000
    assert all(key.split(":")[2] == "1" for key in entries)


def test_the_book_answers_every_south_reply_until_the_tables_or_the_end() -> None:
    """The proof tree walked with the Python engine: every South move at every South
    position of it, North's book move (legal) at every North position, until a game
    North has won or a position of the endgame tables (tools/solve_mosona.py --verify
    also checks those against the C tables)."""
    stack = [zuni.new_game("mosona")]
    seen: set[str] = set()
    won = table = north_moves = 0
    while stack:
        game = stack.pop()
        key = book.position_key(game)
        if key in seen:
            continue
        seen.add(key)
        outcome = game.outcome()
        if outcome is not None:
            assert outcome.winner == NORTH, game.describe()
            won += 1
            continue
        if sum(game.counts) <= TABLE_PIECES:
            table += 1
            continue
        if game.team_of(game.turn) == NORTH:
            move = book.book_move(game)
            assert move is not None, "no book move at %s" % game.describe()
            moves = [move]
            north_moves += 1
        else:
            assert book.book_move(game) is None
            moves = list(game.legal_moves())
        for m in moves:
            child = game.copy()
            child.push(m)
            stack.append(child)
    assert won > 0 and table > 0 and north_moves == len(book.entries())


def test_the_computer_as_north_plays_the_book_against_any_south() -> None:
    rng = random.Random(3)
    for game_number in range(4):
        game = zuni.new_game("mosona")
        north = SearchPlayer(BOOK_LEVEL, seed=game_number, deterministic=True, node_limit=200)
        south = RandomPlayer(seed=rng.randrange(1000))
        while not game.is_game_over() and sum(game.counts) > TABLE_PIECES:
            if game.team_of(game.turn) == NORTH:
                move = north.choose(game)
                assert north.last is not None and north.last.from_book
                assert str(move) == book.entries()[book.position_key(game)]
            else:
                move = south.choose(game)
            game.push(move)
        outcome = game.outcome()
        assert outcome is None or outcome.winner == NORTH
        assert sum(game.counts) <= TABLE_PIECES or outcome is not None


def test_no_book_for_beginners_other_rules_or_south() -> None:
    game = zuni.new_game("mosona")
    game.push_text("s3xm4-m5")
    assert book.book_move(game) is not None
    beginner = SearchPlayer(1, seed=1, deterministic=True)
    beginner.choose(game)
    assert beginner.last is not None and not beginner.last.from_book
    other = zuni.new_game("mosona quiet=39")
    other.push_text("s3xm4-m5")
    assert book.book_move(other) is None
    assert book.book_move(zuni.new_game("mosona")) is None  # South to move: the loser has no book
