"""Endgame tablebases of the line games (Mosona, Kolowis): perfect play with few pieces.

A table holds, for every position with ``s`` South and ``n`` North pieces, both sides to
move, and **every quiet count** (moves since the last capture, 0 .. ``quiet``), the value
for the side to move: win in d moves, loss in d moves, or a draw. The quiet rule is
treated exactly: a position's value depends on how many quiet moves are left (like a
distance-to-zeroing table), because at the limit the game ends by counting (``stall``).

Built by retrograde analysis in layers (``build``): with q quiet moves left, a quiet move
leads to the same table with q - 1 left, a capture to a smaller table with the count
reset. So the layers are computed from "no quiet move left" (the count decides) upwards,
each one pass over the table's move graph; the graph is made once from the rules
engine's own ``legal_moves()``, so the tables follow every rule option exactly.

Values (``int16``): ``WIN_T - d`` for a win in d moves, ``-(WIN_T - d)`` for a loss in
d, 0 for a draw; d counts the moves of both sides (a move is one player's turn), the
next move included. Files: ``<data dir>/tablebases/<ruleset>/<s>v<n>.ztb``, checked
when read (``tablebase_store``; a big table is read from an uncompressed file beside,
mapped, not held in memory). ``ensure`` builds a table a layer at a time straight to
its file (``build_table_file``: the 6-piece tables in ~540 MB); ``build`` keeps all the
layers in memory (the tests, small tables). Small tables are built on first use (``auto_pieces``:
`zuni play` starts a builder process), bigger ones by `zuni tablebase build`; figures
in docs/tablebases.md.

>>> import zuni
>>> from zuni.line import LineGame
>>> tb = build("kolowis size=short", 2)
>>> game = LineGame.from_position("kolowis size=short", "south m5 north m6", "south")
>>> probe(game, tb).text
'win in 1'
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import threading
import time
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import zuni
from zuni.line import LineGame
from zuniboard.ai import tablebase_store as store

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

# A win in d moves is WIN_T - d; WIN_T leaves room for the longest game (each capture
# resets at most ``quiet`` moves, and there are few pieces).
WIN_T = 32000
# Marks "no move of this kind" while a layer is computed.
_NONE = -32767
_SOUTH_MAN = zuni.piece_code(zuni.SOUTH, zuni.MAN)
_NORTH_MAN = zuni.piece_code(zuni.NORTH, zuni.MAN)

Progress = Callable[[str], None]


def data_dir() -> Path:
    """Where tables are kept: ``$ZUNI_TABLEBASE_DIR``, else the user data dir's ``tablebases``."""
    env = os.environ.get("ZUNI_TABLEBASE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir("zuniboard")) / "tablebases"


def ruleset_dir(ruleset: str) -> Path:
    canonical = str(zuni.parse_ruleset(ruleset))
    return data_dir() / canonical.replace(" ", "_").replace("=", "-")


class _Combos:
    """k-subsets of the board's points as bitmasks, numbered (colex rank) 0..C(P, k) - 1."""

    def __init__(self, points: int, k: int) -> None:
        self.masks: list[int] = []
        self.rank: dict[int, int] = {}
        for combo in itertools.combinations(range(points), k):
            mask = 0
            for p in combo:
                mask |= 1 << p
            self.masks.append(mask)
        # Colex order: by the highest point first (any fixed order works; this one is
        # cheap to state).
        self.masks.sort(key=lambda m: tuple(reversed([p for p in range(points) if m >> p & 1])))
        for i, mask in enumerate(self.masks):
            self.rank[mask] = i

    def __len__(self) -> int:
        return len(self.masks)


@dataclass
class Table:
    """One material balance: ``values[q_left, index]`` for the side to move."""

    south: int
    north: int
    values: NDArray[np.int16]  # np.ndarray, shape (quiet + 1, 2 * C(P, south) * C(P, north)), int16
    seconds: float = 0.0
    positions: int = 0  # legal positions (the index also has slots where pieces overlap)


@dataclass
class Tablebase:
    """The tables of one ruleset, up to ``max_pieces`` pieces in all."""

    ruleset: str
    points: int
    quiet: int
    max_pieces: int
    tables: dict[tuple[int, int], Table] = field(default_factory=dict)
    _combos: dict[int, _Combos] = field(default_factory=dict)

    def combos(self, k: int) -> _Combos:
        c = self._combos.get(k)
        if c is None:
            c = self._combos[k] = _Combos(self.points, k)
        return c

    def index(self, south_mask: int, north_mask: int, north_to_move: bool) -> tuple[Table, int] | None:
        s = bin(south_mask).count("1")
        n = bin(north_mask).count("1")
        table = self.tables.get((s, n))
        if table is None:
            return None
        cs = self.combos(s)
        cn = self.combos(n)
        i = ((1 if north_to_move else 0) * len(cs) + cs.rank[south_mask]) * len(cn) + cn.rank[north_mask]
        return table, i

    def covers(self, game: zuni.Game) -> bool:
        """True when ``game``'s position is in a table (and the game is not over)."""
        if not isinstance(game, LineGame) or str(game.ruleset) != self.ruleset:
            return False
        counts = game.counts
        return (counts[0], counts[1]) in self.tables and not game.is_game_over()

    def value(self, game: zuni.Game) -> int | None:
        """The encoded value for the side to move (``WIN_T - d`` ...), None if not covered."""
        if not isinstance(game, LineGame):
            return None
        counts = game.counts
        if (counts[0], counts[1]) not in self.tables:
            return None
        left = self.quiet - game.quiet
        if left < 0:
            return None
        south, north = masks(game)
        found = self.index(south, north, game.turn == zuni.NORTH)
        if found is None:
            return None
        table, i = found
        return int(table.values[left, i])


def masks(game: zuni.Game) -> tuple[int, int]:
    """The points of South's and North's pieces as bitmasks."""
    south = 0
    north = 0
    board = game.board
    for p in range(len(board)):
        code = board[p]
        if code == _SOUTH_MAN:
            south |= 1 << p
        elif code == _NORTH_MAN:
            north |= 1 << p
    return south, north


def _flip(values: NDArray[np.int16]) -> NDArray[np.int16]:
    """A child's value seen from the parent: negated, one move further away."""
    import numpy as np

    v = values.astype(np.int32)
    return (-v + np.sign(v)).astype(np.int16)


def _count_value(mine: int, theirs: int, stall_draw: bool) -> int:
    if stall_draw or mine == theirs:
        return 0
    return WIN_T if mine > theirs else -WIN_T


@dataclass
class _Graph:
    """A table's moves, made once: the best capture of each position (from the smaller
    tables), and its quiet moves as the children's indexes, grouped by parent."""

    size: int
    positions: int
    capture_best: NDArray[np.int16]  # int16 per slot, _NONE: no capture
    no_move: NDArray[np.bool_]  # bool per slot
    valid: NDArray[np.bool_]  # bool per slot
    count0: NDArray[np.int16]  # int16 per slot: the count's value when no quiet move is left
    parents: NDArray[np.int32]  # int32: the slots with a quiet move, in order
    starts: NDArray[np.int64]  # int64: where each parent's children begin in ``children``
    children: NDArray[np.int32]  # int32: the quiet moves' child slots


def _top_layers(tb: Tablebase, s: int, n: int) -> dict[tuple[int, int], array[int]]:
    """The values, with every quiet move left, of the smaller tables a capture from
    ``s`` v ``n`` leads to, as machine-int arrays (fast to index one at a time, 2 bytes
    a slot)."""
    out = {}
    for balance, table in tb.tables.items():
        if balance[0] > s or balance[1] > n or sum(balance) >= s + n:
            continue
        top = array("h")
        top.frombytes(table.values[tb.quiet].astype("=i2").tobytes())
        out[balance] = top
    return out


def _graph(
    tb: Tablebase, s: int, n: int, game: LineGame, stall_draw: bool, tops: dict[tuple[int, int], array[int]]
) -> _Graph:
    import numpy as np

    points = tb.points
    cs = tb.combos(s)
    cn = tb.combos(n)
    ls = len(cs)
    ln = len(cn)
    size = 2 * ls * ln
    board = game.board
    counts = game.counts
    srank = cs.rank
    nrank = cn.rank
    # The smaller tables' combos and values, by piece counts (captures lead there).
    combos = {k: tb.combos(k) for k in range(1, max(s, n) + 1)}
    # Machine ints, 4 bytes an edge (a Python list of ints takes about 36).
    children = array("i")
    parents = array("i")
    per_parent = array("i")
    capture_best = np.full(size, _NONE, dtype=np.int16)
    no_move = np.zeros(size, dtype=bool)
    valid = np.zeros(size, dtype=bool)
    count0 = np.zeros(size, dtype=np.int16)
    positions = 0
    south_points = [[p for p in range(points) if m >> p & 1] for m in cs.masks]
    north_points = [[p for p in range(points) if m >> p & 1] for m in cn.masks]
    for p in range(points):
        board[p] = 0
    counts[0] = s
    counts[1] = n
    for turn in (0, 1):
        game.turn = zuni.NORTH if turn else zuni.SOUTH
        count_value = _count_value(n if turn else s, s if turn else n, stall_draw)
        child_turn_base = (1 - turn) * ls
        for rs, sm in enumerate(cs.masks):
            base = (turn * ls + rs) * ln
            for p in south_points[rs]:
                board[p] = _SOUTH_MAN
            for rn, nm in enumerate(cn.masks):
                if sm & nm:
                    continue
                index = base + rn
                positions += 1
                valid[index] = True
                north_here = north_points[rn]
                for p in north_here:
                    board[p] = _NORTH_MAN
                moves = game.legal_moves()
                for p in north_here:
                    board[p] = 0
                if not moves:
                    no_move[index] = True
                    continue
                count0[index] = count_value
                mine, theirs = (nm, sm) if turn else (sm, nm)
                best = _NONE
                quiet_moves = 0
                for move in moves:
                    path = move.path
                    moved = (mine & ~(1 << path[0])) | (1 << path[-1])
                    captures = move.captures
                    if not captures:
                        if turn:
                            children.append((child_turn_base + srank[theirs]) * ln + nrank[moved])
                        else:
                            children.append((child_turn_base + srank[moved]) * ln + nrank[theirs])
                        quiet_moves += 1
                        continue
                    left = theirs
                    for c in captures:
                        left &= ~(1 << c)
                    if not left:
                        value = WIN_T - 1  # the last piece: won with this move
                    else:
                        south2, north2 = (left, moved) if turn else (moved, left)
                        k2s = s if not turn else s - len(captures)
                        k2n = n - len(captures) if not turn else n
                        c2s = combos[k2s]
                        c2n = combos[k2n]
                        # The child: the other side (not turn) to move.
                        i = ((0 if turn else 1) * len(c2s) + c2s.rank[south2]) * len(c2n) + c2n.rank[north2]
                        child_value = tops[(k2s, k2n)][i]
                        value = -child_value + (1 if child_value > 0 else -1 if child_value < 0 else 0)
                    if value > best:
                        best = value
                capture_best[index] = best
                if quiet_moves:
                    parents.append(index)
                    per_parent.append(quiet_moves)
            for p in south_points[rs]:
                board[p] = 0
    kids = np.frombuffer(children, dtype=np.int32) if len(children) else np.zeros(0, dtype=np.int32)
    par = np.frombuffer(parents, dtype=np.int32) if len(parents) else np.zeros(0, dtype=np.int32)
    per = np.frombuffer(per_parent, dtype=np.int32) if len(per_parent) else np.zeros(0, dtype=np.int32)
    starts = np.zeros(len(per), dtype=np.int64)
    if len(per) > 1:
        np.cumsum(per[:-1], out=starts[1:])
    return _Graph(size, positions, capture_best, no_move, valid, count0, par, starts, kids)


def _layers(graph: _Graph, quiet: int) -> Iterator[NDArray[np.int16]]:
    """The table's layers, 0 (no quiet move left: the count decides) to ``quiet``, each
    from the one before (only two are held at a time)."""
    import numpy as np

    layer = np.where(graph.no_move, -WIN_T, graph.count0).astype(np.int16)
    layer[~graph.valid] = 0
    yield layer
    parents = graph.parents
    for _ in range(1, quiet + 1):
        previous = layer
        layer = graph.capture_best.copy()
        if len(parents):
            # _flip is per value: flipping the layer, then gathering the children, is
            # the same as flipping the gathered children, and costs a slot, not an edge.
            quiet_best = np.maximum.reduceat(_flip(previous)[graph.children], graph.starts)
            layer[parents] = np.maximum(layer[parents], quiet_best)
        layer[graph.no_move] = -WIN_T
        layer[~graph.valid] = 0
        yield layer


def build_table(tb: Tablebase, s: int, n: int, game: LineGame, stall_draw: bool) -> Table:
    """The table of ``s`` South against ``n`` North pieces (smaller tables already in
    ``tb``), all its layers in memory."""
    import numpy as np  # only to build, save and load: playing without tables needs none

    start = time.monotonic()
    graph = _graph(tb, s, n, game, stall_draw, _top_layers(tb, s, n))
    values = np.zeros((tb.quiet + 1, graph.size), dtype=np.int16)
    for left, layer in enumerate(_layers(graph, tb.quiet)):
        values[left] = layer
    return Table(s, n, values, time.monotonic() - start, graph.positions)


def build_table_file(tb: Tablebase, s: int, n: int, game: LineGame, stall_draw: bool, path: Path) -> Table:
    """The table of ``s`` South against ``n`` North, built and written to ``path`` a
    layer at a time (the same file ``save`` writes); a big table's values come back
    mapped from its uncompressed file (``tablebase_store``), not held in memory."""
    start = time.monotonic()
    graph = _graph(tb, s, n, game, stall_draw, _top_layers(tb, s, n))
    writer = store.TableWriter(path, tb.quiet + 1, graph.size, raw=(tb.quiet + 1) * graph.size * 2 >= store.MAP_BYTES)
    try:
        for layer in _layers(graph, tb.quiet):
            writer.add(layer)
        positions = graph.positions
        del graph
        header = {"ruleset": tb.ruleset, "south": s, "north": n, "quiet": tb.quiet, "positions": positions}
        writer.finish(header)
    except BaseException:
        writer.abort()
        raise
    assert writer.values is not None, "finish() holds the values written"
    return Table(s, n, writer.values, time.monotonic() - start, positions)


def balances(max_pieces: int) -> list[tuple[int, int]]:
    """The tables up to ``max_pieces`` pieces, in build order (fewer pieces first)."""
    out = []
    for total in range(2, max_pieces + 1):
        for s in range(1, total):
            out.append((s, total - s))
    return out


def build(ruleset: str, max_pieces: int, progress: Progress | None = None, have: Tablebase | None = None) -> Tablebase:
    """Build every table of ``ruleset`` (a line game) up to ``max_pieces`` pieces, in
    memory; the tables of ``have`` (the same rules) are kept instead of built again."""
    game = zuni.new_game(ruleset)
    if not isinstance(game, LineGame):
        raise ValueError("tablebases are for the line games (mosona, kolowis), not %r" % (ruleset,))
    stall_draw = game.ruleset["stall"] == "draw"
    tb = Tablebase(str(game.ruleset), len(game.board), game.ruleset.get_int("quiet"), max_pieces)
    for s, n in balances(max_pieces):
        if have is not None and have.ruleset == tb.ruleset and (s, n) in have.tables:
            tb.tables[(s, n)] = have.tables[(s, n)]
            continue
        table = build_table(tb, s, n, game, stall_draw)
        tb.tables[(s, n)] = table
        if progress is not None:
            progress("%s %dv%d: %d positions in %.1f s" % (tb.ruleset, s, n, table.positions, table.seconds))
    return tb


# -- sizes and times ------------------------------------------------------------------

# Measured with tools/build_tablebase.py --measure (docs/tablebases.md): CPU seconds
# per position to build and write (LZMA) a table, a little more than measured (32 us
# at 5 pieces), so that estimates err long; bytes on disk per position (0.3-0.8 up to
# 4 pieces, 1.2-2.0 at 5: the most, so that estimates err large); memory: the process
# (80 MB), the biggest table's move graph and layers (``ensure`` builds a table a layer
# at a time to disk: ~170 bytes a position at the peak, with the moves made) and the
# smaller tables' top layers it reads (2 bytes a slot).
SECONDS_PER_POSITION = 35e-6
DISK_BYTES_PER_POSITION = (0.8, 2.0)  # up to 4 pieces, 5 and more
BASE_MEMORY = 80_000_000
GRAPH_BYTES_PER_POSITION = 170
# Built on first use (in the background, at the first `zuni play` of a ruleset) up to
# this many positions: about 10 s of CPU. Bigger tables: `zuni tablebase build`.
AUTO_POSITIONS = 500_000
AUTO_ENV = "ZUNI_TABLEBASE_AUTO"  # "0": never build on first use; N: at most N pieces
# `zuni tablebase build --first-use` exits with this when another process is building
# the same tables now (the first-use builder of `zuni play` then stays quiet).
BUSY_EXIT = 3


def _points(ruleset: str) -> tuple[str, int, int]:
    game = zuni.new_game(ruleset)
    if not isinstance(game, LineGame):
        raise ValueError("tablebases are for the line games (mosona, kolowis), not %r" % (ruleset,))
    return str(game.ruleset), len(game.board), game.ruleset.get_int("quiet")


@dataclass
class Estimate:
    """What building ``ruleset``'s tables up to ``pieces`` takes, before building."""

    ruleset: str
    pieces: int
    positions: int
    seconds: float
    disk_bytes: int
    memory_bytes: int
    mapped_bytes: int = 0  # the big tables' values uncompressed, mapped for play

    @property
    def text(self) -> str:
        # The whole room taken on disk first: the big tables' uncompressed values beside
        # the compressed files are most of it (Mosona's 5 pieces: 4 MB and 330 MB).
        if self.mapped_bytes:
            disk = "%s on disk in all (%s of tables and %s of their values uncompressed beside, read in play)" % (
                bytes_text(self.disk_bytes + self.mapped_bytes),
                bytes_text(self.disk_bytes),
                bytes_text(self.mapped_bytes),
            )
        else:
            disk = "%s on disk" % bytes_text(self.disk_bytes)
        return (
            "%s up to %d pieces: %s positions, about %s of CPU (longer on a busy computer), %s, %s of memory "
            "while building"
            % (
                self.ruleset,
                self.pieces,
                "{:,}".format(self.positions),
                duration_text(self.seconds),
                disk,
                bytes_text(self.memory_bytes),
            )
        )


def estimate(ruleset: str, pieces: int) -> Estimate:
    """Positions (exact), build time, disk and memory (from measured rates) of the
    tables of ``ruleset`` up to ``pieces`` pieces."""
    canonical, points, quiet = _points(ruleset)
    positions = 0
    peak = 0
    mapped = 0
    for s, n in balances(pieces):
        table = 2 * math.comb(points, s) * math.comb(points - s, n)
        positions += table
        slots = 2 * math.comb(points, s) * math.comb(points, n)
        if (quiet + 1) * slots * 2 >= store.MAP_BYTES:
            mapped += (quiet + 1) * slots * 2
        smaller = sum(
            2 * math.comb(points, a) * math.comb(points, b) for a, b in balances(s + n - 1) if a <= s and b <= n
        )
        peak = max(peak, table * GRAPH_BYTES_PER_POSITION + smaller * 2)
    return Estimate(
        canonical,
        pieces,
        positions,
        positions * SECONDS_PER_POSITION,
        int(positions * DISK_BYTES_PER_POSITION[0 if pieces <= 4 else 1]),
        BASE_MEMORY + peak,
        mapped,
    )


def auto_pieces(ruleset: str) -> int:
    """How many pieces ``zuni play`` builds on first use: the most whose tables have at
    most ``AUTO_POSITIONS`` positions (4 on the 25-point boards, 3 on Kolowis long),
    capped by ``$ZUNI_TABLEBASE_AUTO`` (0: none)."""
    cap = 64
    env = os.environ.get(AUTO_ENV, "").strip()
    if env:
        try:
            cap = int(env)
        except ValueError:
            cap = 0 if env.lower() in ("off", "no", "never", "false") else 64
    pieces = 0
    for p in range(2, min(cap, 64) + 1):
        if estimate(ruleset, p).positions > AUTO_POSITIONS:
            break
        pieces = p
    return pieces


def duration_text(seconds: float) -> str:
    if seconds < 90:
        return "%d s" % max(1, round(seconds))
    if seconds < 5400:
        return "%d min" % round(seconds / 60)
    return "%.1f h" % (seconds / 3600)


def bytes_text(n: float) -> str:
    if n < 1e6:
        return "%d kB" % max(1, round(n / 1e3))
    if n < 1e9:
        return "%d MB" % round(n / 1e6)
    if n < 1e12:
        return "%.1f GB" % (n / 1e9)
    return "%.1f TB" % (n / 1e12)


# -- files --------------------------------------------------------------------------


def save(tb: Tablebase, directory: Path | None = None, only: set[tuple[int, int]] | None = None) -> list[Path]:
    """Write the tables of ``tb`` (those of ``only`` if given; ``tablebase_store``'s
    checked format); returns the files written. Files of the old format go."""
    where = directory or ruleset_dir(tb.ruleset)
    where.mkdir(parents=True, exist_ok=True)
    written = []
    for (s, n), table in tb.tables.items():
        if only is not None and (s, n) not in only:
            continue
        path = where / store.table_name(s, n)
        header = {"ruleset": tb.ruleset, "south": s, "north": n, "quiet": tb.quiet, "positions": table.positions}
        store.write_table(path, table.values, header)
        written.append(path)
    for old in where.glob("*v*.npz"):  # format 1: no header, no checksum
        with contextlib.suppress(OSError):
            old.unlink()
    return written


def _expect(ruleset: str, points: int, quiet: int, s: int, n: int) -> dict[str, Any]:
    """The header fields a table file of these rules and pieces must have."""
    slots = 2 * math.comb(points, s) * math.comb(points, n)
    return {"ruleset": ruleset, "south": s, "north": n, "quiet": quiet, "shape": [quiet + 1, slots]}


def missing(ruleset: str, pieces: int) -> list[str]:
    """The tables of ``ruleset`` up to ``pieces`` not usable on disk, with why (cheap:
    headers and lengths only; the checksum is checked when a table is loaded)."""
    canonical, points, quiet = _points(ruleset)
    where = ruleset_dir(canonical)
    out = []
    for s, n in balances(pieces):
        path = where / store.table_name(s, n)
        try:
            store.check_file(path, _expect(canonical, points, quiet, s, n))
        except FileNotFoundError:
            out.append("%dv%d: not built" % (s, n))
        except (store.TableFileError, OSError) as exc:
            out.append("%dv%d: %s" % (s, n, exc))
    return out


def _read_all(ruleset: str, directory: Path | None = None) -> tuple[Tablebase | None, list[str], Tablebase]:
    """The complete tables of ``ruleset`` on disk (all balances up to the largest total
    present in full; None when none), what was wrong with the files refused, and every
    table read (complete or not: a builder keeps them)."""
    canonical, points, quiet = _points(ruleset)
    where = directory or ruleset_dir(canonical)
    problems: list[str] = []
    tb = Tablebase(canonical, points, quiet, 0)
    if not where.is_dir():
        return None, problems, tb
    for path in sorted(where.glob("*v*" + store.SUFFIX)):
        try:
            s, n = (int(x) for x in path.name[: -len(store.SUFFIX)].split("v"))
        except ValueError:
            continue  # not a table of ours
        try:
            values, header = store.read_table(path, _expect(canonical, points, quiet, s, n))
        except store.TableFileError as exc:
            problems.append(str(exc))
            if exc.why.startswith(("damaged", "cut short")):
                # Never right again: gone, so that the next first use builds it anew.
                with contextlib.suppress(OSError):
                    path.unlink()
            continue
        except OSError as exc:
            problems.append("%s: %s" % (path, exc))
            continue
        tb.tables[(s, n)] = Table(s, n, values, 0.0, int(header.get("positions", 0)))
    for old in sorted(where.glob("*v*.npz")):
        problems.append("%s: table format 1 (no checksum), this program writes %d" % (old, store.FORMAT))
    total = 1
    while total < 64 and all(b in tb.tables for b in balances(total + 1)):
        total += 1
    every = Tablebase(canonical, points, quiet, total, dict(tb.tables))
    if total < 2:
        return None, problems, every
    tb.max_pieces = total
    tb.tables = {b: t for b, t in tb.tables.items() if sum(b) <= total}
    return tb, problems, every


def load(ruleset: str, directory: Path | None = None) -> Tablebase | None:
    """The tables of ``ruleset`` found on disk (None when there are none). Files that
    fail their checks are left out (``ensure`` builds them again)."""
    if not isinstance(zuni.new_game(ruleset), LineGame):
        return None
    tb = _read_all(ruleset, directory)[0]
    if tb is not None:
        # The position index of each side's piece count, made now (some 80 ms each on
        # the 25-point boards): made at a search's first probe, it overran that move's time.
        for k in range(1, tb.max_pieces):
            tb.combos(k)
    return tb


def describe(ruleset: str) -> dict[str, Any]:
    """What is on disk for ``ruleset`` without reading the tables: tables, positions,
    bytes (the table files) and mapped bytes (the uncompressed files beside)."""
    where = ruleset_dir(ruleset)
    tables: list[dict[str, Any]] = []
    for path in sorted(where.glob("*v*" + store.SUFFIX)) if where.is_dir() else []:
        try:
            header = store.read_header(path)
        except (store.TableFileError, OSError):
            continue
        mapped = 0
        with contextlib.suppress(OSError, KeyError):
            mapped = store.raw_path(path, str(header["sha256"])).stat().st_size
        tables.append(
            {
                "table": path.name[: -len(store.SUFFIX)],
                "positions": int(header.get("positions", 0)),
                "bytes": path.stat().st_size,
                "mapped_bytes": mapped,
            }
        )
    pieces = [sum(int(x) for x in str(t["table"]).split("v")) for t in tables]
    return {
        "ruleset": str(zuni.parse_ruleset(ruleset)),
        "directory": str(where),
        "max_pieces": max(pieces) if pieces else 0,
        "positions": sum(int(t["positions"]) for t in tables),
        "bytes": sum(int(t["bytes"]) for t in tables),
        "mapped_bytes": sum(int(t["mapped_bytes"]) for t in tables),  # uncompressed, beside
        "tables": tables,
    }


def leftovers(ruleset: str) -> list[Path]:
    """Files a stopped build left in ``ruleset``'s folder: tables half written (``*.tmp``)."""
    where = ruleset_dir(ruleset)
    return sorted(where.glob("*.tmp")) if where.is_dir() else []


def folder_bytes(ruleset: str) -> int:
    """All that ``ruleset``'s folder holds, in bytes (tables, their uncompressed values,
    what a stopped build left)."""
    where = ruleset_dir(ruleset)
    total = 0
    for path in where.iterdir() if where.is_dir() else []:
        with contextlib.suppress(OSError):
            if path.is_file():
                total += path.stat().st_size
    return total


def ensure(ruleset: str, max_pieces: int, progress: Progress | None = None, *, wait: bool = True) -> Tablebase:
    """The tables of ``ruleset`` up to ``max_pieces``: loaded, or built and saved (the
    missing or damaged ones only), each written a layer at a time as it is built
    (``build_table_file``: a big table is never all in memory). One builder per
    ruleset across processes: with ``wait=False``, raises ``BuildBusy`` when another
    process is building them."""
    canonical = _points(ruleset)[0]
    where = ruleset_dir(canonical)
    with store.BuildLock(where, wait=wait):
        # A build that was stopped (Ctrl-C, a full disk, a power cut) left its files half
        # written; holding the lock, no other builder is writing them now.
        for left in leftovers(canonical):
            with contextlib.suppress(OSError):
                left.unlink()
        have, problems, every = _read_all(canonical, where)
        for problem in problems:
            if progress is not None:
                progress("built again: %s" % problem)
        if have is not None and have.max_pieces >= max_pieces:
            return have
        game = zuni.new_game(canonical)
        assert isinstance(game, LineGame)
        stall_draw = game.ruleset["stall"] == "draw"
        tb = Tablebase(canonical, every.points, every.quiet, max_pieces)
        todo = [b for b in balances(max_pieces) if b not in every.tables]
        if progress is not None and todo:
            progress(
                "building %d table%s, each written to disk (compressed) as it is done"
                % (len(todo), "" if len(todo) == 1 else "s")
            )
        for s, n in balances(max_pieces):
            if (s, n) in every.tables:
                tb.tables[(s, n)] = every.tables[(s, n)]
                continue
            table = build_table_file(tb, s, n, game, stall_draw, where / store.table_name(s, n))
            tb.tables[(s, n)] = table
            if progress is not None:
                progress("%s %dv%d: %d positions in %.1f s" % (tb.ruleset, s, n, table.positions, table.seconds))
        for old in where.glob("*v*.npz"):  # format 1: no header, no checksum
            with contextlib.suppress(OSError):
                old.unlink()
    return tb


BuildBusy = store.BuildBusy

# The tables in memory per ruleset, with the stamp (the directory's change time) they
# were read at: a table another process adds is seen at the next ask.
_LOADED: dict[str, tuple[int | None, Tablebase | None]] = {}
_LOADING: set[str] = set()
_LOCK = threading.Lock()
_START = threading.Lock()


def _stamp(where: Path) -> int | None:
    try:
        return os.stat(where).st_mtime_ns
    except OSError:
        return None


def for_ruleset(ruleset: str, *, wait: bool = True) -> Tablebase | None:
    """The tables on disk for ``ruleset``, loaded once per process and again when the
    files change (None when there are none).

    Loading checks every file's checksum and maps the big tables (Kolowis short's 6
    pieces: 0.7 s, 68 MB of the process's own memory); a slow disk or the first load
    after a build (the uncompressed files made) takes longer, so a timed search asks
    with ``wait=False``, which starts the loading in a thread and returns what is in
    memory meanwhile (None at first)."""
    key = str(zuni.parse_ruleset(ruleset))
    stamp = _stamp(ruleset_dir(key))
    cached = _LOADED.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    if stamp is None:
        _LOADED[key] = (None, None)
        return None
    if not wait:
        # Never wait here: _LOCK is held for the whole load (seconds), _START only
        # while a loading thread is started.
        if key not in _LOADING:
            with _START:
                if key not in _LOADING:
                    _LOADING.add(key)
                    threading.Thread(target=_load_into_cache, args=(key,), name="zuni-tablebase", daemon=True).start()
        return cached[1] if cached is not None else None
    with _LOCK:
        cached = _LOADED.get(key)
        if cached is None or cached[0] != stamp:
            _LOADED[key] = (stamp, load(key))
        return _LOADED[key][1]


def _load_into_cache(key: str) -> None:
    try:
        with _LOCK:
            stamp = _stamp(ruleset_dir(key))
            cached = _LOADED.get(key)
            if cached is None or cached[0] != stamp:
                _LOADED[key] = (stamp, load(key))
    finally:
        _LOADING.discard(key)


# -- verdicts -----------------------------------------------------------------------


@dataclass
class Verdict:
    """A tablebase's answer for the side to move: ``result`` "win", "draw" or "loss",
    ``moves`` to the end of the game with best play on both sides (0 for a draw), and
    the moves that keep that result (best first)."""

    result: str
    moves: int
    best_moves: list[zuni.Move]

    @property
    def text(self) -> str:
        if self.result == "win":
            return "win in %d" % self.moves
        if self.result == "loss":
            return "lost in %d" % self.moves
        return "drawn"


def decode(value: int) -> tuple[str, int]:
    if value > 0:
        return "win", WIN_T - value
    if value < 0:
        return "loss", WIN_T + value
    return "draw", 0


def move_values(game: zuni.Game, tb: Tablebase) -> list[tuple[zuni.Move, int]]:
    """Every legal move with its encoded value for the mover, best first."""
    out = []
    for move in game.legal_moves():
        game.push(move)
        outcome = game.outcome()
        if outcome is not None:
            if outcome.winner is None:
                value = 0
            elif outcome.winner == game.team_of(game.turn):
                value = -(WIN_T - 1)
            else:
                value = WIN_T - 1
        else:
            child = tb.value(game)
            game.pop()
            if child is None:
                raise ValueError("position after %s is not in the tables" % (move,))
            out.append((move, -child + (1 if child > 0 else -1 if child < 0 else 0)))
            continue
        game.pop()
        out.append((move, value))
    out.sort(key=lambda item: -item[1])
    return out


def probe(game: zuni.Game, tb: Tablebase | None = None) -> Verdict | None:
    """The tablebase verdict on ``game``'s position ("win in 5", "drawn", "lost in 3"),
    or None when no table on disk (or ``tb``) covers it or the game is over."""
    if not isinstance(game, LineGame) or game.is_game_over():
        return None
    if tb is None:
        tb = for_ruleset(str(game.ruleset))
    if tb is None:
        return None
    value = tb.value(game)
    if value is None:
        return None
    result, moves = decode(value)
    scored = move_values(game, tb)
    best = [m for m, v in scored if v == value]
    return Verdict(result, moves, best)


def verdict_text(game: zuni.Game) -> str | None:
    """``probe(game).text`` ("win in 5", "drawn", "lost in 3") for hints, or None when
    no table on disk covers the position (never raises on a game it does not cover)."""
    try:
        verdict = probe(game)
    except (ValueError, OSError):
        return None
    return verdict.text if verdict is not None else None


# -- what `zuni tablebase build` builds --------------------------------------------------

# The line games' default rules, with the most pieces that build here in minutes and
# fit in memory (docs/tablebases.md): 5 on the 25-point boards, 4 on Kolowis long.
DEFAULT_SET = (("mosona", 5), ("mosona board=open", 5), ("kolowis size=short", 5), ("kolowis", 4))


def default_pieces(ruleset: str) -> int:
    """The most pieces `zuni tablebase build RULESET` builds unless told: 5 on the
    25-point boards (2 CPU minutes, ~260 MB while building), 4 on Kolowis long's 49
    points; 6 on the 25-point boards when asked (~8 CPU minutes, 3 GB of disk)."""
    return 5 if _points(ruleset)[1] <= 25 else 4
