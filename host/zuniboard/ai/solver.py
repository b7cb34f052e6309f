"""Proof-number search: does a team win a line-game position by force?

``prove(game, team)`` answers "can ``team`` force a win from here?" with True (proved),
False (disproved: the other team can force at least a draw) or None (not settled within
the limits), by proof-number search (Allis 1994) on the rules engine:

- OR nodes (``team`` to move) need one winning move, AND nodes every reply to lose;
- leaves are settled by the rules (game over) or, with few pieces, by the endgame
  tables (``tablebase``), which treat the quiet rule exactly;
- the proof and disproof numbers of a new node start from its number of moves
  (mobility initialisation) or at 1; either way a result rests on the rules and the
  tables only, the numbers only steer the search;
- positions settled once are remembered by ``game.key()`` (board, mover and quiet
  count), so a transposition is not proved twice.

>>> import zuni
>>> from zuni.line import LineGame
>>> game = LineGame.from_position("kolowis size=short", "south m5 s1 north m6", "south")
>>> prove(game, 0, node_limit=1000).result
True
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import zuni
from zuniboard.ai import tablebase
from zuniboard.ai.tablebase import Tablebase

INF = 1 << 60


class _Node:
    __slots__ = ("children", "dn", "is_or", "key", "move", "pn")

    def __init__(self, move: zuni.Move | None, is_or: bool, key: bytes) -> None:
        self.move = move
        self.is_or = is_or
        self.key = key
        self.pn = 1
        self.dn = 1
        self.children: list[_Node] | None = None


@dataclass
class Proof:
    """The answer: ``result`` True (``team`` wins by force), False (it does not), None
    (unsettled); the root's proof and disproof numbers; work done; and, when proved,
    the first moves of a winning line (the winner's moves against the replies that
    resist longest in the proof tree)."""

    result: bool | None
    team: int
    proof_number: int
    disproof_number: int
    nodes: int
    seconds: float
    line: list[str]


def prove(
    game: zuni.Game,
    team: int,
    *,
    node_limit: int = 1_000_000,
    time_limit: float | None = None,
    tb: Tablebase | None = None,
    progress_every: float = 0.0,
    mobility: bool = True,
) -> Proof:
    """Proof-number search of ``game``'s position (``game`` itself is not changed).
    ``mobility``: new nodes start from their move counts instead of 1/1."""
    start = time.monotonic()
    work = game.copy()
    if tb is None and game.ruleset.game_id != "awithlaknakwe":
        tb = tablebase.for_ruleset(str(game.ruleset))
    solved: dict[bytes, bool] = {}
    root = _Node(None, work.team_of(work.turn) == team, work.key())
    _settle(root, work, team, tb, solved, mobility)
    nodes = 1
    next_report = start + progress_every if progress_every else 0.0
    while root.pn and root.dn and nodes < node_limit:
        if time_limit is not None and time.monotonic() - start > time_limit:
            break
        # Select the most proving node, playing its moves on ``work``.
        path = [root]
        node = root
        while node.children is not None:
            children = node.children
            node = min(children, key=_pn) if node.is_or else min(children, key=_dn)
            assert node.move is not None
            work.push(node.move)
            path.append(node)
        nodes += _expand(node, work, team, tb, solved, mobility)
        # Back up the numbers along the path, and take the moves back.
        for i in range(len(path) - 1, -1, -1):
            n = path[i]
            _update(n)
            if n.pn == 0 or n.dn == 0:
                solved[n.key] = n.pn == 0
                n.children = None if i else n.children  # a settled subtree is not needed again
            if i:
                work.pop()
        if next_report and time.monotonic() >= next_report:
            print(
                "  %d nodes, %.0f s: proof %d, disproof %d, %d settled"
                % (nodes, time.monotonic() - start, root.pn, root.dn, len(solved)),
                flush=True,
            )
            next_report = time.monotonic() + progress_every
    result = True if root.pn == 0 else False if root.dn == 0 else None
    line = _line(root, work) if result else []
    return Proof(result, team, min(root.pn, INF), min(root.dn, INF), nodes, time.monotonic() - start, line)


def _pn(node: _Node) -> int:
    return node.pn


def _dn(node: _Node) -> int:
    return node.dn


def _settle(
    node: _Node, game: zuni.Game, team: int, tb: Tablebase | None, solved: dict[bytes, bool], mobility: bool
) -> None:
    """Give a new node its numbers: settled by the rules, the tables or the cache, else 1/1."""
    known = solved.get(node.key)
    if known is None:
        outcome = game.outcome()
        if outcome is not None:
            known = outcome.winner == team
        elif tb is not None:
            value = tb.value(game)
            if value is not None:
                mover_wins = value > 0
                known = mover_wins if game.team_of(game.turn) == team else value < 0
                if value == 0:
                    known = False
        if known is not None:
            solved[node.key] = known
    if known is True:
        node.pn, node.dn = 0, INF
    elif known is False:
        node.pn, node.dn = INF, 0
    elif mobility:
        # Mobility initialisation (Allis): the more moves the side to move has, the
        # harder it is to refute at an OR node and to prove at an AND node.
        count = _count_moves(game)
        if node.is_or:
            node.dn = max(1, count)
        else:
            node.pn = max(1, count)


def _count_moves(game: zuni.Game) -> int:
    count = getattr(game, "count_moves", None)
    if count is not None:
        return int(count())
    return len(game.legal_moves())


def _expand(
    node: _Node, game: zuni.Game, team: int, tb: Tablebase | None, solved: dict[bytes, bool], mobility: bool
) -> int:
    children = []
    for move in game.legal_moves():
        game.push(move)
        child = _Node(move, game.team_of(game.turn) == team, game.key())
        _settle(child, game, team, tb, solved, mobility)
        game.pop()
        children.append(child)
        # One winning move settles an OR node, one escape an AND node.
        if (node.is_or and child.pn == 0) or (not node.is_or and child.dn == 0):
            break
    node.children = children
    return len(children)


def _update(node: _Node) -> None:
    children = node.children
    if children is None:
        return
    if node.is_or:
        node.pn = min(c.pn for c in children)
        node.dn = min(INF, sum(c.dn for c in children))
    else:
        node.pn = min(INF, sum(c.pn for c in children))
        node.dn = min(c.dn for c in children)


def _line(root: _Node, game: zuni.Game, limit: int = 24) -> list[str]:
    """A line of the proof tree, as far as it was kept (settled subtrees are dropped)."""
    out: list[str] = []
    node = root
    while node.children and len(out) < limit:
        children = node.children
        if node.is_or:
            node = min(children, key=_pn)
        else:
            node = max(children, key=lambda c: c.pn if c.pn < INF else -1)
        out.append(str(node.move))
    return out


# -- depth-first proof-number search (df-pn) ---------------------------------------------

_DF_INF = 10**12


class _Stop(Exception):
    """The node or time budget of ``prove_dfpn`` is spent."""


class _DfPn:
    def __init__(
        self, game: zuni.Game, team: int, tb: Tablebase | None, node_limit: int, deadline: float | None
    ) -> None:
        self.game = game
        self.team = team
        self.tb = tb
        self.node_limit = node_limit
        self.deadline = deadline
        self.nodes = 0
        # key -> (proof number, disproof number); settled entries have a 0 in them.
        self.table: dict[bytes, tuple[int, int]] = {}
        self.root = (1, 1)

    def leaf(self, game: zuni.Game) -> tuple[int, int] | None:
        """Numbers of a position the rules or the tables settle, else None."""
        outcome = game.outcome()
        known: bool | None = None
        if outcome is not None:
            known = outcome.winner == self.team
        elif self.tb is not None:
            value = self.tb.value(game)
            if value is not None:
                known = value > 0 if game.team_of(game.turn) == self.team else value < 0
        if known is None:
            return None
        return (0, _DF_INF) if known else (_DF_INF, 0)

    def _child_keys(self, moves: list[zuni.Move]) -> list[bytes]:
        """The table keys of the children of the position, each one the rules or the
        tables settle entered as settled."""
        game = self.game
        table = self.table
        keys: list[bytes] = []
        for move in moves:
            game.push(move)
            child = game.key()
            if child not in table:
                settled = self.leaf(game)
                if settled is not None:
                    table[child] = settled
            game.pop()
            keys.append(child)
        return keys

    def mid(self, thpn: int, thdn: int, is_root: bool = False) -> None:
        game = self.game
        self.nodes += 1
        if self.nodes >= self.node_limit or (
            self.deadline is not None and self.nodes % 256 == 0 and time.monotonic() > self.deadline
        ):
            raise _Stop
        key = game.key()
        is_or = game.team_of(game.turn) == self.team
        moves = game.legal_moves()
        keys = self._child_keys(moves)
        table = self.table
        while True:
            numbers = [table.get(k, (1, 1)) for k in keys]
            if is_or:
                pn = min(n[0] for n in numbers)
                dn = sum(n[1] for n in numbers)
            else:
                pn = sum(n[0] for n in numbers)
                dn = min(n[1] for n in numbers)
            pn, dn = min(pn, _DF_INF), min(dn, _DF_INF)
            if is_root:
                self.root = (pn, dn)
            if pn >= thpn or dn >= thdn or pn == 0 or dn == 0:
                break
            # The most proving child, and the second best of its kind (thresholds).
            index = 0
            best = second = _DF_INF
            which = 0 if is_or else 1
            for i, n in enumerate(numbers):
                v = n[which]
                if v < best:
                    second = best
                    best = v
                    index = i
                elif v < second:
                    second = v
            c_pn, c_dn = numbers[index]
            if is_or:
                child_thpn = min(thpn, second + 1)
                child_thdn = thdn - dn + c_dn
            else:
                child_thpn = thpn - pn + c_pn
                child_thdn = min(thdn, second + 1)
            game.push(moves[index])
            try:
                self.mid(child_thpn, child_thdn)
            finally:
                game.pop()
        table[key] = (pn, dn)
        if len(table) > 6_000_000:
            # Keep what is settled; the unsettled numbers are found again when needed.
            self.table = {k: v for k, v in table.items() if v[0] == 0 or v[1] == 0}


def prove_dfpn(
    game: zuni.Game,
    team: int,
    *,
    node_limit: int = 10_000_000,
    time_limit: float | None = None,
    tb: Tablebase | None = None,
) -> Proof:
    """Depth-first proof-number search (Nagai 2002) of the same question as ``prove``:
    memory in a table of positions instead of a tree, no walk back from the root."""
    import sys

    start = time.monotonic()
    work = game.copy()
    if tb is None and game.ruleset.game_id != "awithlaknakwe":
        tb = tablebase.for_ruleset(str(game.ruleset))
    search = _DfPn(work, team, tb, node_limit, start + time_limit if time_limit is not None else None)
    settled = search.leaf(work)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        if settled is None:
            search.mid(_DF_INF, _DF_INF, is_root=True)
    except _Stop:
        pass
    finally:
        sys.setrecursionlimit(limit)
    pn, dn = settled if settled is not None else search.root
    result = True if pn == 0 else False if dn == 0 else None
    return Proof(result, team, pn, dn, search.nodes, time.monotonic() - start, [])
