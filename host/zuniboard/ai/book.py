"""The proven strategy of Mosona: the winner's move at every position of the proof.

North (the second player) wins the default Mosona (``mosona``) by force (docs/rules.md,
"Who wins Mosona?"). ``mosona_book.txt``, written by ``tools/solve_mosona.py --engine c
--book-out``, holds North's move at each North position of the proof tree: from the
start, whatever South plays, North's book move keeps the win, until the game reaches
a position of at most 7 pieces (the C solver's endgame tables), where the book ends and
the search (with its own tables) takes over. About 1 500 positions, 42 kB.

>>> import zuni
>>> game = zuni.new_game("mosona")
>>> _ = game.push_text("s3xm4-m5")
>>> str(book_move(game))
'n5xm5-m4'
"""

from __future__ import annotations

import functools
from pathlib import Path

import zuni
from zuni.line import LineGame

BOOK_FILE = Path(__file__).with_name("mosona_book.txt")
# The rules the proof is of: the defaults of Mosona (canonical text).
RULESET = "mosona"
_SOUTH = zuni.piece_code(zuni.SOUTH, zuni.MAN)
_NORTH = zuni.piece_code(zuni.NORTH, zuni.MAN)


class BookError(Exception):
    """The book file is damaged (the message names the line)."""


def position_key(game: LineGame) -> str:
    """The book's key of a position: South's and North's points as bit sets (point p is
    bit p), in hex, the side to move (0 South, 1 North) and the quiet count."""
    south = north = 0
    for p, code in enumerate(game.board):
        if code == _SOUTH:
            south |= 1 << p
        elif code == _NORTH:
            north |= 1 << p
    return "%x:%x:%d:%d" % (south, north, 1 if game.turn == zuni.NORTH else 0, game.quiet)


@functools.cache
def entries() -> dict[str, str]:
    """Position key -> the winner's move (text), read once."""
    out: dict[str, str] = {}
    with open(BOOK_FILE, encoding="ascii") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split()
            if len(parts) != 2 or parts[0].count(":") != 3:
                raise BookError(
                    "%s line %d: expected 'SOUTH:NORTH:TURN:QUIET MOVE', got %r" % (BOOK_FILE, number, line)
                )
            out[parts[0]] = parts[1]
    return out


def book_move(game: zuni.Game) -> zuni.Move | None:
    """The proven winner's move in ``game``'s position, or None when the position is not
    in the book (other rules, the loser to move, off the proof, or the game over)."""
    if not isinstance(game, LineGame) or str(game.ruleset) != RULESET or game.is_game_over():
        return None
    text = entries().get(position_key(game))
    if text is None:
        return None
    for move in game.legal_moves():
        if str(move) == text:
            return move
    raise BookError("%s: book move %s is not legal at %s" % (BOOK_FILE, text, game.describe()))
