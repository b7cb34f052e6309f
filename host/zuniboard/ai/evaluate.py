"""Static evaluation of a position, per game, in hundredths of a piece from team 0's side.

Team 0 is South (+East), team 1 North (+West). The terms are the board's own
(``zuni.evaluate`` and ``zuni.evaluate_awith``, shared with the firmware so that the board's search and the host's
judge alike); ``make_evaluator(game)`` returns them from team 0's side, for the search:

>>> import zuni
>>> game = zuni.new_game("mosona")
>>> evaluate = make_evaluator(game)
>>> evaluate(game)  # the start is symmetric
0

Line games (Mosona, Kolowis) are decided by material (the last piece, or the count when
the quiet rule ends the game), so the evaluation is material plus a small mobility term.
Awithlaknakwe is decided by score (captures, plus by default the pieces standing on the
opposing home row at the end), so the evaluation estimates the final score difference:
captures made so far, pieces already arrived, partial credit for warriors still on a
path that can reach a free square of the target row, and the bow priest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import zuni
from zuni.evaluate import LINE_MOBILITY, PIECE
from zuni.evaluate_awith import ARRIVAL, ARRIVAL_PATH, awith_team0
from zuniboard.ai.lanes import LineLanes

__all__ = [
    "ARRIVAL",
    "ARRIVAL_PATH",
    "LINE_MOBILITY",
    "PIECE",
    "Evaluator",
    "arrival_distances",
    "awith_contacts",
    "awith_threats",
    "make_evaluator",
]

Evaluator = Callable[[Any], int]


def make_evaluator(game: zuni.Game) -> Evaluator:
    """The evaluation function for ``game``'s ruleset, from team 0's side."""
    if game.ruleset.game_id == "awithlaknakwe":
        return awith_team0  # type: ignore[no-any-return]
    # line_team0's value, computed board-wide (lanes.py: the same number, faster).
    return LineLanes(game).evaluate_team0


# Forward direction (dc, dr) per side: South +r, West +c, North -r, East -c (RULES.md).
_FORWARD = ((0, 1), (1, 0), (0, -1), (-1, 0))
_OPPOSITE = (2, 3, 0, 1)


def _warrior_steps(side: int, c: int, r: int) -> tuple[tuple[int, int], tuple[int, int]]:
    fc, fr = _FORWARD[side]
    if fc == 0:
        return ((c - 1, r + fr), (c + 1, r + fr))
    return ((c + fc, r - 1), (c + fc, r + 1))


def arrival_distances(game: zuni.Game, side: int) -> list[int]:
    """Warrior moves from each square to ``side``'s target home row, -1 where none can reach.

    Warriors only move diagonally forward, so a warrior off the target's colour or
    outside the cone that leads to it can never arrive (RULES.md, Awithlaknakwe)."""
    geometry = game.geometry
    at: dict[tuple[int, int], int] = {}
    for point in range(len(geometry.names)):
        x, y = geometry.coords[point]
        at[(int(x), int(y))] = point
    target = set(geometry.homes[_OPPOSITE[side]])
    n = len(geometry.names)
    dist = [-1] * n
    for point in target:
        dist[point] = 0
    # Moves always advance, so as many sweeps as the board is deep settle every distance.
    for _ in range(16):
        changed = False
        for point in range(n):
            if point in target:
                continue
            x, y = geometry.coords[point]
            best = -1
            for square in _warrior_steps(side, int(x), int(y)):
                nxt = at.get(square)
                if nxt is not None and dist[nxt] >= 0 and (best < 0 or dist[nxt] + 1 < best):
                    best = dist[nxt] + 1
            if best != dist[point]:
                dist[point] = best
                changed = True
        if not changed:
            break
    return dist


def awith_contacts(game: Any) -> int:
    """Awithlaknakwe: pairs of enemy pieces on one diagonal, next to each other or one
    empty square apart (where custody captures happen: a piece arriving next to an
    enemy with a friend behind it); along each diagonal only the nearest enemy counts.
    A count for both teams alike: the search adds it for the root's team as a liking
    for contact (``Searcher(contact=)``), since without contact the race ends with both
    sides' warriors home and the game drawn."""
    from zuni.awith import DIAG_NB, ENEMY

    board = game.board
    enemy = ENEMY[0]
    count = 0
    for side in game.sides:
        if game.team_of(side):
            continue
        for sq in game.pieces_of(side):
            if sq == 255:
                continue
            for nb in DIAG_NB:
                near = nb[sq]
                if near < 0:
                    continue
                there = board[near]
                if enemy[there]:
                    count += 1
                elif not there:
                    far = nb[near]
                    if far >= 0 and enemy[board[far]]:
                        count += 1
    return count


def awith_threats(game: Any, team: int) -> int:
    """Awithlaknakwe: the enemy pieces that ``team`` could capture with one warrior
    step if it were to move (custody on the diagonals: an enemy next to an empty square
    a warrior can step to, with a friend behind the enemy), each counted once. UCT
    loses its pieces to such threats (its random playouts rarely see them): the search
    adds them for the root's team as a liking (``Searcher(threat=)``)."""
    from zuni.awith import DIAG_NB, ENEMY, FRIEND, WARRIOR_NB

    board = game.board
    enemy = ENEMY[team]
    friend = FRIEND[team]
    hit = 0
    for side in game.sides:
        if game.team_of(side) != team:
            continue
        pcs = game.pieces_of(side)
        for k in range(6):
            sq = pcs[k]
            if sq == 255:
                continue
            for step in WARRIOR_NB[side]:
                to = step[sq]
                if to < 0 or board[to]:
                    continue
                for nb in DIAG_NB:
                    e = nb[to]
                    if e >= 0 and enemy[board[e]]:
                        f = nb[e]
                        if f >= 0 and friend[board[f]]:
                            hit |= 1 << e
    return bin(hit).count("1")
