"""Static evaluation of a position, per game, in hundredths of a piece from team 0's side.

Team 0 is South (+East), team 1 North (+West). ``make_evaluator(game)`` builds the tables
for a ruleset once; the evaluator is then called at every leaf of the search:

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
path that can reach the target, and the bow priest (in hand, on the board, or lost).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import zuni

# One piece, one point of score: the unit every term is measured in.
PIECE = 100
# Line games: per empty point next to a piece (a cheap count of step moves).
LINE_MOBILITY = 3
# Awithlaknakwe: an arrival is one point of score; a warrior on its way earns up to
# ARRIVAL_PATH of it, falling with the number of moves left.
ARRIVAL = 100
ARRIVAL_PATH = 55
# A priest waiting in hand: worth something (it can enter when needed), less than on the board.
PRIEST_IN_HAND = 30
PRIEST_ON_BOARD = 45
# A warrior on the board, besides its path credit: a partner for custody captures.
WARRIOR = 10
_P_HAND = 1

Evaluator = Callable[[Any], int]

# Per piece code (0..8): (side, kind); code 0 is empty.
_CODE_SIDE = [-1] + [(code - 1) >> 1 for code in range(1, 9)]
_CODE_KIND = [-1] + [(code - 1) & 1 for code in range(1, 9)]


def make_evaluator(game: zuni.Game) -> Evaluator:
    """The evaluation function for ``game``'s ruleset (tables built once)."""
    if game.ruleset.game_id == "awithlaknakwe":
        return _AwithEvaluator(game)
    return _LineEvaluator(game)


def team_table(game: zuni.Game) -> list[int]:
    """Team index per piece code (index 0, empty, maps to -1)."""
    return [-1] + [game.team_of(_CODE_SIDE[code]) for code in range(1, 9)]


class _LineEvaluator:
    """Material and mobility for Mosona and Kolowis."""

    def __init__(self, game: zuni.Game) -> None:
        self.neighbors: tuple[tuple[int, ...], ...] = tuple(tuple(n) for n in game.geometry.neighbors)
        self.team = team_table(game)

    def __call__(self, game: zuni.Game) -> int:
        board = game.board
        team = self.team
        neighbors = self.neighbors
        score = 0
        for point in range(len(board)):
            code = board[point]
            if not code:
                continue
            value = PIECE
            for other in neighbors[point]:
                if not board[other]:
                    value += LINE_MOBILITY
            if team[code]:
                score -= value
            else:
                score += value
        return score


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


class _AwithEvaluator:
    """Estimated final score difference for Awithlaknakwe (2 or 4 players)."""

    def __init__(self, game: zuni.Game) -> None:
        self.team = team_table(game)
        self.arrivals = game.ruleset["scoring"] == "captures+arrivals"
        self.sides = (zuni.SOUTH, zuni.NORTH) if game.ruleset["players"] == "2" else (0, 1, 2, 3)
        # Path credit per side and square, precomputed: ARRIVAL for an arrived piece,
        # a share of ARRIVAL_PATH for a warrior that can still get there, 0 otherwise.
        n = len(game.geometry.names)
        self.warrior_credit: list[list[int]] = [[0] * n for _ in range(4)]
        self.priest_credit: list[list[int]] = [[0] * n for _ in range(4)]
        for side in self.sides:
            dist = arrival_distances(game, side)
            home = set(game.geometry.homes[_OPPOSITE[side]])
            for point in range(n):
                d = dist[point]
                if d == 0:
                    credit = ARRIVAL
                elif d > 0:
                    credit = ARRIVAL_PATH * (14 - d) // 14
                else:
                    credit = 0
                self.warrior_credit[side][point] = credit if self.arrivals else 0
                # A priest moves sideways too, so it can reach from anywhere ahead.
                self.priest_credit[side][point] = (ARRIVAL if point in home else 0) if self.arrivals else 0
        self.side_team = [game.team_of(side) for side in range(4)]

    def __call__(self, game: zuni.Game) -> int:
        board = game.board
        team = self.team
        wcredit = self.warrior_credit
        pcredit = self.priest_credit
        # Captures so far are score already (AwithGame.taken, per team).
        taken = game.taken
        value: list[int] = [PIECE * taken[0], PIECE * taken[1]]
        for point in range(len(board)):
            code = board[point]
            if not code:
                continue
            side = _CODE_SIDE[code]
            if _CODE_KIND[code] == zuni.MAN:
                value[team[code]] += WARRIOR + wcredit[side][point]
            else:
                value[team[code]] += PRIEST_ON_BOARD + pcredit[side][point]
        # A priest earned but not entered yet (AwithGame.prs: 1 = in hand).
        prs = game.prs
        for side in self.sides:
            if prs[side] == _P_HAND:
                value[self.side_team[side]] += PRIEST_IN_HAND
        return value[0] - value[1]
