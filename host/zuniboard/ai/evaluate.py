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
from zuni.line import LineGame
from zuniboard.ai.lanes import LineLanes

__all__ = [
    "ARRIVAL",
    "ARRIVAL_PATH",
    "LINE_MOBILITY",
    "PIECE",
    "Evaluator",
    "arrival_distances",
    "awith_contacts",
    "awith_contacts_threats",
    "awith_threats",
    "make_evaluator",
]

Evaluator = Callable[[Any], int]

# Awithlaknakwe's tables for awith_threats: the diagonals as (one way, the opposite
# way) pairs; per side its warriors' code and their two backward diagonals (a warrior
# steps to a square from there); team 0's enemies, and each side's team.
from zuni.awith import DIAG_NB as _DIAGONALS  # noqa: E402
from zuni.awith import ENEMY as _ENEMY  # noqa: E402
from zuni.awith import NB as _NB  # noqa: E402
from zuni.awith import TEAM as _TEAM  # noqa: E402
from zuni.awith import AwithGame  # noqa: E402

_ENEMY0 = _ENEMY[0]
_PAIRS = tuple((_DIAGONALS[i], _DIAGONALS[(i + 2) % 4]) for i in range(4))
_BACK = tuple((_NB[(2 * side + 3) % 8], _NB[(2 * side + 5) % 8]) for side in range(4))
_MAN_CODE = tuple(zuni.piece_code(side, zuni.MAN) for side in range(4))


def make_evaluator(game: zuni.Game) -> Evaluator:
    """The evaluation function for ``game``'s ruleset, from team 0's side."""
    if game.ruleset.game_id == "awithlaknakwe":
        return awith_team0
    # line_team0's value, computed board-wide (lanes.py: the same number, faster).
    assert isinstance(game, LineGame), game
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


def awith_contacts(game: AwithGame) -> int:
    """Awithlaknakwe: pairs of enemy pieces on one diagonal, next to each other or one
    empty square apart (where custody captures happen: a piece arriving next to an
    enemy with a friend behind it); along each diagonal only the nearest enemy counts.
    A count for both teams alike: the search adds it for the root's team as a liking
    for contact (``Searcher(contact=)``), since without contact the race ends with both
    sides' warriors home and the game drawn."""
    return awith_contacts_threats(game, 0)[0]


def awith_threats(game: AwithGame, team: int) -> int:
    """Awithlaknakwe: the enemy pieces that ``team`` could capture with one warrior
    step if it were to move (custody on the diagonals: an enemy next to an empty square
    a warrior can step to, with a friend behind the enemy), each counted once. UCT
    loses its pieces to such threats (its random playouts rarely see them): the search
    adds them for the root's team as a liking (``Searcher(threat=)``)."""
    return awith_contacts_threats(game, team)[1]


def awith_contacts_threats(game: AwithGame, team: int) -> tuple[int, int]:
    """``awith_contacts(game)`` and ``awith_threats(game, team)`` in one pass over
    team 0's pieces (the search's leaves ask both): a threat needs an enemy piece next
    to a friend on a diagonal, which is a contact."""
    board = game.board
    enemy = _ENEMY0
    sides = game.sides
    mine = [side for side in sides if _TEAM[side] == team]
    count = 0
    hit = 0
    for side in sides:
        if _TEAM[side]:
            continue
        for sq in game.pieces_of(side):
            if sq == 255:
                continue
            for ahead, behind in _PAIRS:
                near = ahead[sq]
                if near < 0:
                    continue
                there = board[near]
                if enemy[there]:
                    count += 1
                    # sq and near: a team-0 piece next to a team-1 one. Team 0 takes
                    # near from the square beyond it, team 1 takes sq from the square
                    # behind sq, when a warrior of the team can step there.
                    if team:
                        to, victim = behind[sq], sq
                    else:
                        to, victim = ahead[near], near
                    if to >= 0 and not board[to] and _warrior_behind(board, to, mine):
                        hit |= 1 << victim
                elif not there:
                    far = ahead[near]
                    if far >= 0 and enemy[board[far]]:
                        count += 1
    return count, bin(hit).count("1")


def _warrior_behind(board: Any, square: int, sides: list[int]) -> bool:
    """Whether a warrior of one of ``sides`` can step to ``square`` (empty)."""
    for side in sides:
        man = _MAN_CODE[side]
        for back in _BACK[side]:
            q = back[square]
            if q >= 0 and board[q] == man:
                return True
    return False
