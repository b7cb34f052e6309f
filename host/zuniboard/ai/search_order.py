"""The search's move order: the table's move, then captures by size, then the killer
moves of the ply, then the history of quiet moves that cut the search off."""

from __future__ import annotations

from collections.abc import Sequence

import zuni

_NO_KILLERS: list[tuple[int, ...] | None] = [None, None]


class MoveOrdering:
    """Killer moves per ply and the history of cut-offs, fresh for each search."""

    def __init__(self) -> None:
        self._killers: list[list[tuple[int, ...] | None]] = []
        self._history: dict[tuple[int, tuple[int, ...]], int] = {}

    def reset(self, plies: int) -> None:
        self._killers = [[None, None] for _ in range(plies)]
        self._history = {}

    def order(self, moves: Sequence[zuni.Move], tt_move: zuni.Move | None, ply: int, turn: int) -> list[zuni.Move]:
        # Paths identify moves within a position (docs/rules.md) and compare faster than Moves.
        killers = self._killers[ply] if ply < len(self._killers) else _NO_KILLERS
        killer0, killer1 = killers[0], killers[1]
        tt_path = tt_move.path if tt_move is not None else None
        history = self._history

        def rank(move: zuni.Move) -> int:
            path = move.path
            if path == tt_path:
                return 1 << 40
            n = len(move.captures)
            if n:
                return (1 << 30) + (n << 20)
            if path == killer0 or path == killer1:
                return 1 << 19
            return history.get((turn, path), 0)

        return sorted(moves, key=rank, reverse=True)

    def remember_cutoff(self, move: zuni.Move, ply: int, depth: int, turn: int) -> None:
        killers = self._killers[ply]
        if killers[0] != move.path:
            killers[1] = killers[0]
            killers[0] = move.path
        key = (turn, move.path)
        self._history[key] = min(self._history.get(key, 0) + depth * depth, 1 << 18)
