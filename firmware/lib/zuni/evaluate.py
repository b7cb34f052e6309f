"""Static evaluation of a position, shared by the host's search and the board's own.

``evaluate(game)`` is the score, in hundredths of a piece, for the *team of the side to
move* (positive: good for it). Terms, per game:

- line games (Mosona, Kolowis): material (``PIECE`` a piece), plus ``LINE_MOBILITY`` per
  empty point next to a piece (a cheap count of step moves). Both games are decided by
  material: the last piece, or the count when the quiet rule ends the game.
- Awithlaknakwe: the estimated final score difference: captures so far, arrived pieces
  (``ARRIVAL``), and for a warrior on its way a share of ``ARRIVAL_PATH`` that falls with
  the moves left, counted only while a square of its target row that it can reach is
  not held by its own side (an arrived warrior never leaves: it blocks that square for
  good), and for no more warriors than such free squares; priests in hand or on the board.

Awithlaknakwe's terms are in ``zuni.evaluate_awith``, loaded at the first
Awithlaknakwe evaluation (a board playing a line game never holds them), with its
tables computed on the PC (``zuni.awith_reach``). Written in the MicroPython/CPython
common subset: small ints, no allocation per call on the line games and only small ints
on Awithlaknakwe.

>>> import zuni
>>> evaluate(zuni.new_game("mosona"))
0
"""

from micropython import const

# One piece, one point of score: the unit every term is measured in.
PIECE = const(100)
# A won game. Search scores above WIN - MAX_PLY read "win in (WIN - score) plies".
WIN = const(1000000)
# Line games: per empty point next to a piece.
LINE_MOBILITY = const(3)

# The line board last evaluated and its neighbour rows (zuni.line.adjacency).
_LINE_ROWS = [None, None]  # type: list
# zuni.evaluate_awith.awith_team0 once loaded.
_AWITH = [None]  # type: list


def evaluate(game):
    """Score for the team of the side to move, in hundredths of a piece."""
    if game.ruleset.game_id == "awithlaknakwe":
        team0 = _AWITH[0]
        if team0 is None:
            from zuni.evaluate_awith import awith_team0 as team0

            _AWITH[0] = team0
        score = team0(game)
    else:
        score = line_team0(game)
    return -score if game.team_of(game.turn) else score


def line_team0(game):
    """Material and mobility of a line game, for team 0 (South)."""
    geometry = game.geometry
    cache = _LINE_ROWS
    if cache[0] is not geometry:
        from zuni.line import adjacency

        cache[1] = adjacency(geometry.k, geometry.lined)[2]
        cache[0] = geometry
    rows = cache[1]
    board = game.board
    score = PIECE * (game.counts[0] - game.counts[1])
    for p in range(len(board)):
        code = board[p]
        if code:
            free = 0
            for q in rows[p]:
                if not board[q]:
                    free += 1
            # South's man is code 1, North's code 5 (core.piece_code).
            if code == 1:
                score += LINE_MOBILITY * free
            else:
                score -= LINE_MOBILITY * free
    return score
