"""The endgame tables' first builder (zuniboard/ai/tablebase.py before the 6-piece
work), kept unchanged as the reference the optimized builder must equal byte for byte
(tests/unit/test_tablebase.py, tools/build_tablebase.py --check-identical).

It holds every table's layers and its move graph as 8-byte edges in memory: 783 MB at
5 pieces, about 6 GB at 6 (docs/tablebases.md)."""

from __future__ import annotations

import time
from array import array
from collections.abc import Iterator
from typing import Any

import zuni
from zuni.line import LineGame
from zuniboard.ai import tablebase
from zuniboard.ai.tablebase import _NONE, WIN_T, Table, Tablebase, _Combos

_SOUTH_MAN = zuni.piece_code(zuni.SOUTH, zuni.MAN)
_NORTH_MAN = zuni.piece_code(zuni.NORTH, zuni.MAN)


def _positions(points: int, cs: _Combos, cn: _Combos) -> Iterator[tuple[int, int, int, int]]:
    for turn in (0, 1):
        for rs, sm in enumerate(cs.masks):
            base = (turn * len(cs) + rs) * len(cn)
            for rn, nm in enumerate(cn.masks):
                if sm & nm:
                    continue
                yield base + rn, turn, sm, nm


def _flip(values: Any) -> Any:
    import numpy as np

    v = values.astype(np.int32)
    return (-v + np.sign(v)).astype(np.int16)


def _count_value(mine: int, theirs: int, stall_draw: bool) -> int:
    if stall_draw or mine == theirs:
        return 0
    return WIN_T if mine > theirs else -WIN_T


def build_table(tb: Tablebase, s: int, n: int, game: LineGame, stall_draw: bool) -> Table:
    import numpy as np

    start = time.monotonic()
    points = tb.points
    cs = tb.combos(s)
    cn = tb.combos(n)
    size = 2 * len(cs) * len(cn)
    board = game.board
    quiet_par = array("q")
    quiet_child = array("q")
    capture_best = np.full(size, _NONE, dtype=np.int16)
    no_move = np.zeros(size, dtype=bool)
    valid = np.zeros(size, dtype=bool)
    count0 = np.zeros(size, dtype=np.int16)
    positions = 0
    for index, turn, sm, nm in _positions(points, cs, cn):
        positions += 1
        valid[index] = True
        for p in range(points):
            bit = 1 << p
            board[p] = _SOUTH_MAN if sm & bit else (_NORTH_MAN if nm & bit else 0)
        game.turn = zuni.NORTH if turn else zuni.SOUTH
        game.counts[0] = s
        game.counts[1] = n
        moves = game.legal_moves()
        if not moves:
            no_move[index] = True
            continue
        count0[index] = _count_value(n if turn else s, s if turn else n, stall_draw)
        mine, theirs = (nm, sm) if turn else (sm, nm)
        best = _NONE
        for move in moves:
            path = move.path
            moved = (mine & ~(1 << path[0])) | (1 << path[-1])
            captures = move.captures
            if not captures:
                cs2, cn2 = (theirs, moved) if turn else (moved, theirs)
                quiet_par.append(index)
                quiet_child.append(((1 - turn) * len(cs) + cs.rank[cs2]) * len(cn) + cn.rank[cn2])
                continue
            left = theirs
            for c in captures:
                left &= ~(1 << c)
            if not left:
                value = WIN_T - 1
            else:
                south2, north2 = (left, moved) if turn else (moved, left)
                found = tb.index(south2, north2, not turn)
                assert found is not None, "smaller tables are built first"
                table, i = found
                child_value = int(table.values[tb.quiet, i])
                value = -child_value + (1 if child_value > 0 else -1 if child_value < 0 else 0)
            if value > best:
                best = value
        capture_best[index] = best
    par = np.frombuffer(quiet_par, dtype=np.int64) if len(quiet_par) else np.zeros(0, dtype=np.int64)
    children = np.frombuffer(quiet_child, dtype=np.int64) if len(quiet_child) else np.zeros(0, dtype=np.int64)
    if len(par):
        starts = np.flatnonzero(np.r_[True, par[1:] != par[:-1]])
        parents = par[starts]
    values = np.zeros((tb.quiet + 1, size), dtype=np.int16)
    layer = np.where(no_move, -WIN_T, count0).astype(np.int16)
    layer[~valid] = 0
    values[0] = layer
    for left in range(1, tb.quiet + 1):
        layer = capture_best.copy()
        if len(par):
            quiet_best = np.maximum.reduceat(_flip(values[left - 1][children]), starts)
            layer[parents] = np.maximum(layer[parents], quiet_best)
        layer[no_move] = -WIN_T
        layer[~valid] = 0
        values[left] = layer
    return Table(s, n, values, time.monotonic() - start, positions)


def build(ruleset: str, max_pieces: int) -> Tablebase:
    """Every table of ``ruleset`` up to ``max_pieces`` pieces, by the first builder."""
    game = zuni.new_game(ruleset)
    assert isinstance(game, LineGame)
    stall_draw = game.ruleset["stall"] == "draw"
    tb = Tablebase(str(game.ruleset), len(game.board), game.ruleset.get_int("quiet"), max_pieces)
    for s, n in tablebase.balances(max_pieces):
        tb.tables[(s, n)] = build_table(tb, s, n, game, stall_draw)
    return tb
