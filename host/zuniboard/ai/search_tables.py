"""The search's move where the endgame tables cover the root: the tables' best move,
and among equally good ones the move that sets the opponent the most traps."""

from __future__ import annotations

import random
import time

import zuni
from zuniboard.ai import tablebase
from zuniboard.ai.search_leaf import WIN
from zuniboard.ai.tablebase import Tablebase


def tablebase_score(value: int, ply: int) -> int:
    """A tablebase value (win in d: ``WIN_T - d``) as a search score at ``ply``."""
    if value > 0:
        return WIN - (ply + tablebase.WIN_T - value)
    if value < 0:
        return -(WIN - (ply + tablebase.WIN_T + value))
    return 0


def tablebase_move(
    game: zuni.Game, tb: Tablebase, rng: random.Random, soft_deadline: float
) -> tuple[zuni.Move, int, int]:
    """The tables' best move: the fastest win, else a draw, else the longest loss;
    among equals (a draw or a loss), the one that sets the opponent the most traps
    (``tb_traps``), while the time allows (``soft_deadline``, 0: no limit). Returns
    (move, its search score, the moves looked up)."""
    scored = tablebase.move_values(game, tb)
    best_value = scored[0][1]
    best = [m for m, v in scored if v == best_value]
    rng.shuffle(best)
    if len(best) > 1 and best_value <= 0:
        # The traps cost a table look-up per reply: only while the time allows.
        traps: dict[tuple[int, ...], tuple[int, float]] = {}
        for m in best:
            if soft_deadline and time.monotonic() >= soft_deadline:
                break
            traps[m.path] = tb_traps(game, tb, m)
        best.sort(key=lambda m: traps.get(m.path, (-1, -1.0)), reverse=True)
    return best[0], tablebase_score(best_value, 0), len(scored)


def tb_traps(game: zuni.Game, tb: Tablebase, move: zuni.Move) -> tuple[int, float]:
    """The traps ``move`` sets the opponent: how many of its replies lose it the game
    although the punishment starts with a quiet move (no piece hangs: a short
    search does not see the loss), then the share of its replies that lose.

    Against UCT at 1 s in Kolowis short (docs/strength-vs-uct.jsonl) a third of the
    replies in the drawn 3 v 3 endings lost, and UCT never played one in 120 moves:
    nearly all left a piece to be taken at once. The quiet-punished ones are the
    chances, so they count first."""
    game.push(move)
    try:
        if game.is_game_over():
            return 0, 0.0
        replies = tablebase.move_values(game, tb)
        losing = [m for m, v in replies if v < 0]
        quiet = 0
        for reply in losing:
            game.push(reply)
            try:
                if game.is_game_over():
                    continue
                answers = tablebase.move_values(game, tb)
                top = answers[0][1]
                if not any(m.captures for m, v in answers if v == top):
                    quiet += 1
            finally:
                game.pop()
        return quiet, len(losing) / len(replies)
    finally:
        game.pop()
