"""Plain UCT: Monte Carlo tree search with UCB1 and random playouts, as an outside yardstick.

This is the standard agent of general game playing (Ludii's "UCT"), written from its
textbook definition (Kocsis and Szepesvari 2006; Browne et al. 2012) and nothing of
this project's search, so that beating it says something:

- **selection**: from the root, while every move of a node has been tried, go to the
  child maximising UCB1 = mean + C * sqrt(ln N / n), C = sqrt 2, where mean is the
  child's average reward for the team that moved into it, N the parent's visits, n the
  child's;
- **expansion**: one untried move (in random order) becomes a new child;
- **simulation**: uniformly random legal moves until the game ends (``max_playout``
  plies at most, then scored as a draw);
- **backpropagation**: reward 1 for the winning team, 0.5 each for a draw, 0 for the
  loser, added along the path;
- the move played is the root's most visited child (the "robust child").

No domain knowledge, no transpositions, no tree reuse between moves. Thinks for
``time_limit`` seconds or ``iterations`` playouts. Works for four players too (teams).

>>> import zuni
>>> move = UCTPlayer(seed=1, iterations=50).choose(zuni.new_game("mosona"))
>>> str(move)
's3xm4-m5'
"""

from __future__ import annotations

import math
import random
import time

import zuni

EXPLORATION = math.sqrt(2.0)


class _Node:
    __slots__ = ("children", "move", "reward", "team", "untried", "visits")

    def __init__(self, move: zuni.Move | None, team: int, untried: list[zuni.Move]) -> None:
        self.move = move
        # The team that played ``move`` (whose reward ``reward`` is).
        self.team = team
        self.untried = untried
        self.children: list[_Node] = []
        self.visits = 0
        self.reward = 0.0


class UCTPlayer:
    """Plain UCT (module doc). ``time_limit`` seconds per move, or ``iterations`` playouts."""

    def __init__(
        self,
        seed: int | None = None,
        *,
        time_limit: float | None = None,
        iterations: int | None = None,
        exploration: float = EXPLORATION,
        max_playout: int = 1000,
    ) -> None:
        if time_limit is None and iterations is None:
            time_limit = 1.0
        if time_limit is not None and time_limit <= 0:
            raise ValueError("time_limit must be positive, not %r" % (time_limit,))
        if iterations is not None and iterations <= 0:
            raise ValueError("iterations must be positive, not %r" % (iterations,))
        self.rng = random.Random(seed)
        self.time_limit = time_limit
        self.iterations = iterations
        self.exploration = exploration
        self.max_playout = max_playout
        self.name = "uct"
        # The last move's playouts and thinking time.
        self.last_iterations = 0
        self.last_elapsed = 0.0

    def choose(self, game: zuni.Game) -> zuni.Move:
        moves = list(game.legal_moves())
        if not moves:
            raise zuni.GameOverError("no move to choose: the game is over (%s)" % (game.describe(),))
        start = time.monotonic()
        if len(moves) == 1:
            self.last_iterations, self.last_elapsed = 0, time.monotonic() - start
            return moves[0]
        deadline = start + self.time_limit if self.time_limit is not None else 0.0
        work = game.copy()
        rng = self.rng
        rng.shuffle(moves)
        # The root's "team" is the one that moved into it: the other team (unused).
        root = _Node(None, 1 - work.team_of(work.turn), moves)
        count = 0
        while True:
            self._iterate(work, root, rng)
            count += 1
            if self.iterations is not None and count >= self.iterations:
                break
            if deadline and time.monotonic() >= deadline:
                break
        self.last_iterations, self.last_elapsed = count, time.monotonic() - start
        best = max(root.children, key=lambda child: child.visits)
        assert best.move is not None
        return best.move

    def _iterate(self, game: zuni.Game, root: _Node, rng: random.Random) -> None:
        node = root
        path = [root]
        depth = 0
        # Selection.
        while not node.untried and node.children:
            node = self._select(node)
            assert node.move is not None
            game.push(node.move)
            path.append(node)
            depth += 1
        # Expansion.
        if node.untried:
            move = node.untried.pop()
            team = game.team_of(game.turn)
            game.push(move)
            depth += 1
            untried = list(game.legal_moves())
            rng.shuffle(untried)
            child = _Node(move, team, untried)
            node.children.append(child)
            path.append(child)
        # Simulation.
        plies = 0
        while plies < self.max_playout:
            moves = game.legal_moves()
            if not moves:
                break
            game.push(moves[rng.randrange(len(moves))])
            plies += 1
        outcome = game.outcome()
        winner = None if outcome is None else outcome.winner
        for _ in range(depth + plies):
            game.pop()
        # Backpropagation.
        for visited in path:
            visited.visits += 1
            if winner is None:
                visited.reward += 0.5
            elif winner == visited.team:
                visited.reward += 1.0
        return

    def _select(self, node: _Node) -> _Node:
        log_n = math.log(node.visits)
        c = self.exploration
        best = node.children[0]
        best_value = -1.0
        for child in node.children:
            value = child.reward / child.visits + c * math.sqrt(log_n / child.visits)
            if value > best_value:
                best, best_value = child, value
        return best
