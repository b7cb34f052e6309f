"""The level ladder of tools/bench_ai.py (``--ladder``): one Elo-like scale per game.

Matches are played between neighbours only (random and level 1, level 1 and 2, ...
level 4 and 5, and plain UCT at fixed playouts against the levels nearest it), and one
rating per player is fitted to all of them at once (``fit``: the Bradley-Terry model of
Elo ratings, a draw half a win, by maximum likelihood). The random player is the zero of
each game's scale; a player 400 points above another scores about 91% against it.

Every pair's score is pulled a little towards 50% (``PRIOR_DRAWS`` draws added), so that
a clean sweep of a few games gives a finite, honest-sized difference rather than an
infinite one; the ``interval`` printed beside each rating comes from the curvature of
the fit (about 95%).

>>> round(elo_diff(0.75))
191
>>> r = fit([("a", "b", 3.0, 4)], anchor="a")   # a scored 3 of 4: b is below a
>>> -191 < r["b"] < 0                           # 191 below, less the prior's pull
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable

# The draws added to every pair's games (half to each side): keeps a sweep finite.
PRIOR_DRAWS = 1.0
SCALE = 400.0 / math.log(10.0)  # Elo points per natural-log unit of the odds
ITERATIONS = 5000
MAX_STEP = 100.0  # Elo points per player per iteration of the fit
# Plain UCT at these playouts per move is put on the scale (the issue's "plain UCT at
# fixed playouts"), each matched against the level named: its nearest neighbours.
UCT_RUNGS = ((100, 1), (1000, 3))


def elo_diff(score: float) -> float:
    """The rating difference at which the stronger side scores ``score`` (0 < score < 1)."""
    if not 0.0 < score < 1.0:
        raise ValueError("a score of %r has no finite rating difference (0 < score < 1)" % (score,))
    return SCALE * math.log(score / (1.0 - score))


def expected(diff: float) -> float:
    """The score of a player ``diff`` points above its opponent."""
    return 1.0 / (1.0 + math.exp(max(-50.0, min(50.0, -diff / SCALE))))


def fit(results: Iterable[tuple[str, str, float, int]], anchor: str) -> dict[str, float]:
    """Ratings of every player in ``results`` (player, opponent, player's points, games),
    ``anchor`` at 0. Raises ValueError naming a player no game links to the anchor."""
    pairs: list[tuple[str, str, float, float]] = []
    players: set[str] = set()
    for a, b, points, games in results:
        if games <= 0 or not 0.0 <= points <= games:
            raise ValueError("%s v %s: %r points in %r games" % (a, b, points, games))
        pairs.append((a, b, points + PRIOR_DRAWS / 2, games + PRIOR_DRAWS))
        players.update((a, b))
    if anchor not in players:
        raise ValueError("the anchor %r played no game" % (anchor,))
    linked = {anchor}
    grown = True
    while grown:
        grown = False
        for a, b, _, _ in pairs:
            if (a in linked) != (b in linked):
                linked.update((a, b))
                grown = True
    if linked != players:
        raise ValueError("no games link %s to %s" % (", ".join(sorted(players - linked)), anchor))
    rating = dict.fromkeys(players, 0.0)
    # Gradient ascent on the log-likelihood (concave: one maximum), scaled per player.
    for _ in range(ITERATIONS):
        grad = dict.fromkeys(players, 0.0)
        weight = dict.fromkeys(players, 0.0)
        for a, b, points, games in pairs:
            e = expected(rating[a] - rating[b])
            grad[a] += points - games * e
            grad[b] -= points - games * e
            weight[a] += games * e * (1 - e)
            weight[b] += games * e * (1 - e)
        step = 0.0
        for p in players:
            if p != anchor:
                # A Newton step per player, at most MAX_STEP: far from the answer
                # (a sweep) the curvature is tiny and a full step would overshoot.
                move = max(-MAX_STEP, min(MAX_STEP, SCALE * grad[p] / weight[p]))
                rating[p] += move
                step = max(step, abs(move))
        if step < 1e-6:
            break
    return rating


def interval(results: Iterable[tuple[str, str, float, int]], rating: dict[str, float], player: str) -> float:
    """About a 95% half-width of ``player``'s rating: from its games' information alone
    (its opponents' ratings taken as known), so it is a little narrow."""
    info = 0.0
    for a, b, _, games in results:
        if player in (a, b):
            e = expected(rating[a] - rating[b])
            info += (games + PRIOR_DRAWS) * e * (1 - e)
    return 1.96 * SCALE / math.sqrt(info) if info > 0 else math.inf
