"""The host's copy of the board's game: ``BoardMirror``, pure (no threads, no I/O, no clock).

As python-chess keeps ``Board`` apart from engine I/O, the mirror only takes what the
board said and answers what changed and what to ask next; ``zuniboard.link.client.BoardLink``
feeds it from its port thread and does the asking (docs/protocol.md, "The host's mirror").

>>> m = BoardMirror()
>>> m.report(Report("g1", 1, 0, digest_of("g1", []))).kinds()
['reset']
>>> m.move("g1", 1, 0, "s3xm4-m5", digest_of("g1", ["s3xm4-m5"])).kinds()
['move']
>>> m.moves
['s3xm4-m5']

Every report of the board (hello, state, ok, beat; and each move frame) carries its
**history version** ``hv``: the board's count of history cuts (take-backs, new games),
which only grows (it is kept in the board's journal). The rules:

- A report with a lower version than the one the mirror holds was made before a cut the
  mirror has seen: stale, ignored.
- At the same version the board's history only grows: a report of fewer moves than held
  (a heartbeat queued behind a move, a late reply) is stale too, never a take-back.
- Only a higher version with a count below ours and our digest at that count cuts the
  mirror ("undo"); a higher version with a history that is not ours (or another game)
  clears it ("reset") and everything is fetched again.
- A board that booted again (``new_boot``) may have lost its journal and restarted its
  version: its next report is taken as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import zuni
from zuni_link import codec

UNKNOWN = -1  # history version before the board's first word


class Report(NamedTuple):
    """The board's word on its game: id, history version, move count, digest."""

    game: str
    hv: int
    moves: int
    digest: int


@dataclass(frozen=True)
class Change:
    """What a report did to the mirror: "move" (text, index), "undo" (index = moves
    left), "reset" (text = game id: the mirror was cleared)."""

    kind: str
    text: str = ""
    index: int = -1


@dataclass
class Outcome:
    """What one report changed, and what the link should do about it."""

    changes: list[Change] = field(default_factory=list)
    fetch_from: int | None = None  # ask the board for its moves from this index
    ask_state: bool = False  # another game: ask its state (the ruleset)
    ack: bool = False  # acknowledge what the mirror holds
    stale: bool = False  # the report was older than what the mirror knows: ignored
    duplicate: bool = False

    def kinds(self) -> list[str]:
        return [c.kind for c in self.changes]


def digest_of(game: str, moves: list[str]) -> int:
    """The protocol's game digest of ``moves`` in game ``game``."""
    d = int(codec.digest_seed(game))
    for text in moves:
        d = int(codec.digest_step(d, text))
    return d


class BoardMirror:
    """The board's game as the host knows it: ``game``, ``hv``, ``moves``; and ``word``,
    the board's freshest report (``synced()``: the mirror is that)."""

    def __init__(self) -> None:
        self.game = ""
        self.hv = UNKNOWN
        self.moves: list[str] = []
        self._digests: list[int] = [codec.digest_seed("")]
        self.word: Report | None = None

    # --- what it holds ---------------------------------------------------------------

    def digest(self, n: int | None = None) -> int:
        """Digest after the first ``n`` moves held (all of them by default)."""
        return self._digests[len(self.moves) if n is None else n]

    def held(self) -> Report:
        """What the mirror holds, as a report (for acks and take-back requests)."""
        return Report(self.game, self.hv, len(self.moves), self.digest())

    def synced(self) -> bool:
        """True when the mirror is the board's freshest word on its game."""
        w = self.word
        return w is not None and (w.game, w.moves, w.digest) == (self.game, len(self.moves), self.digest())

    # --- what the board said --------------------------------------------------------------

    def new_boot(self) -> None:
        """The board booted again: its version may have restarted (a lost journal), so
        its next report counts whatever its version. Called before that report."""
        self.hv = UNKNOWN
        self.word = None

    def report(self, r: Report) -> Outcome:
        """A hello, state, ok or beat: the board has ``r.moves`` moves in ``r.game`` at
        version ``r.hv`` with digest ``r.digest``."""
        out = Outcome()
        if r.hv < self.hv or (r.hv == self.hv and r.game == self.game and r.moves < len(self.moves)):
            if self._digests[min(r.moves, len(self.moves))] == r.digest or r.hv < self.hv:
                out.stale = True
                return out
        self._hear(r)
        if r.game != self.game:
            self._reset(r.game, r.hv, out)
            out.ask_state = True
            if r.moves > 0:
                out.fetch_from = 0
            return out
        have = len(self.moves)
        if r.moves <= have and self._digests[r.moves] == r.digest:
            if r.moves < have:  # (a higher version: see above)
                self._cut(r.moves, out)
            self.hv = max(self.hv, r.hv)
            out.ack = True
        elif r.moves > have:
            out.fetch_from = have  # whether our moves are its prefix, its moves will say
        else:
            # The histories differ at or before our move count: start again from its first.
            self._reset(r.game, r.hv, out)
            out.fetch_from = 0
        return out

    def move(self, game: str, hv: int, index: int, text: str, digest: int) -> Outcome:
        """A ``move`` frame: move ``index`` of ``game`` at version ``hv`` is ``text``,
        and the digest after it is ``digest``."""
        out = Outcome()
        if hv < self.hv:
            out.stale = True  # made before a cut we have seen
            return out
        if game != self.game:
            self._reset(game, hv, out)
        have = len(self.moves)
        if index > have:
            out.fetch_from = have  # a gap: something was lost
            return out
        if index < have and self._digests[index + 1] == digest:
            out.duplicate = True
            out.ack = True
            if index + 1 == have:
                self.hv = max(self.hv, hv)
            return out
        if codec.digest_step(self._digests[index], text) == digest and (index == have or hv > self.hv):
            if index < have:
                self._cut(index, out)  # the board took moves back and played another
            self.moves.append(text)
            self._digests.append(digest)
            self.hv = max(self.hv, hv)
            out.changes.append(Change("move", text, index))
            out.ack = True
            self._hear(Report(game, hv, index + 1, digest))
            return out
        # Our earlier moves are not the board's: start again from its first.
        self._reset(game, hv, out)
        out.fetch_from = 0
        return out

    # --- inside -----------------------------------------------------------------------

    def _hear(self, r: Report) -> None:
        """Keep the board's freshest word: a higher version, or more moves at the same."""
        w = self.word
        if w is None or r.hv > w.hv or (r.hv == w.hv and (r.game != w.game or r.moves >= w.moves)):
            self.word = r

    def _reset(self, game: str, hv: int, out: Outcome) -> None:
        self.game = game
        self.hv = hv
        self.moves = []
        self._digests = [codec.digest_seed(game)]
        out.changes.append(Change("reset", game))

    def _cut(self, n: int, out: Outcome) -> None:
        del self.moves[n:]
        del self._digests[n + 1 :]
        out.changes.append(Change("undo", "", n))


KIND_NAMES = ("man", "priest")


def disks_of(game: zuni.Game) -> dict[str, list[str]]:
    """point name -> [side, kind] of every piece on ``game``'s board: whose disk stands
    where in the game's real position (a set-up one, after moves and take-backs), which
    the page draws rather than the start position's sides."""
    names = game.geometry.names
    return {
        str(names[point]): [str(zuni.SIDE_NAMES[zuni.piece_side(code)]), KIND_NAMES[zuni.piece_kind(code)]]
        for point, code in enumerate(game.board)
        if code
    }


def start_game(ruleset: str, position: str = "") -> Any:
    """The rules game the board's game starts from: ``position`` (the board's
    ``position=``, a position text) when it was set up from one, else ``ruleset``'s start."""
    if position:
        from zuni.position import parse_position

        return parse_position(position)
    return zuni.new_game(ruleset)
