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
when read (``tablebase_store``). Small tables are built on first use (``auto_pieces``:
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
from typing import Any

import zuni
from zuni.line import LineGame
from zuniboard.ai import tablebase_store as store

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
    values: Any  # np.ndarray, shape (quiet + 1, 2 * C(P, south) * C(P, north)), int16
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


def _positions(points: int, cs: _Combos, cn: _Combos) -> Iterator[tuple[int, int, int, int]]:
    """(index, turn bit, south mask, north mask) of every legal position of a table."""
    for turn in (0, 1):
        for rs, sm in enumerate(cs.masks):
            base = (turn * len(cs) + rs) * len(cn)
            for rn, nm in enumerate(cn.masks):
                if sm & nm:
                    continue
                yield base + rn, turn, sm, nm


def _flip(values: Any) -> Any:
    """A child's value seen from the parent: negated, one move further away."""
    import numpy as np

    v = values.astype(np.int32)
    return (-v + np.sign(v)).astype(np.int16)


def _count_value(mine: int, theirs: int, stall_draw: bool) -> int:
    if stall_draw or mine == theirs:
        return 0
    return WIN_T if mine > theirs else -WIN_T


def build_table(tb: Tablebase, s: int, n: int, game: LineGame, stall_draw: bool) -> Table:
    """The table of ``s`` South against ``n`` North pieces (smaller tables already in ``tb``)."""
    import numpy as np  # only to build, save and load: playing without tables needs none

    start = time.monotonic()
    points = tb.points
    cs = tb.combos(s)
    cn = tb.combos(n)
    size = 2 * len(cs) * len(cn)
    board = game.board
    # Machine ints (8 bytes an edge, a Python list of ints takes about 36).
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
                value = WIN_T - 1  # the last piece: won with this move
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
    # Quiet moves, grouped by parent (they were made in parent order).
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
# per position, to build (12-20 us over the rulesets) and write (LZMA: 8 us at 4
# pieces, 14 at 5), a little more, so that estimates err long; bytes on disk per
# position (0.3-0.8 up to 4 pieces, 1.2-2.0 at 5: the most, so that estimates err
# large); memory: the process (57 MB), the values of every table (layers x slots x 2
# bytes) and, for the biggest table, its move graph (~400 bytes a position at the
# peak, with the layer pass's temporaries).
SECONDS_PER_POSITION = 30e-6
DISK_BYTES_PER_POSITION = (0.8, 2.0)  # up to 4 pieces, 5 and more
BASE_MEMORY = 80_000_000
GRAPH_BYTES_PER_POSITION = 400
# Built on first use (in the background, at the first `zuni play` of a ruleset) up to
# this many positions: about 10 s of CPU. Bigger tables: `zuni tablebase build`.
AUTO_POSITIONS = 500_000
AUTO_ENV = "ZUNI_TABLEBASE_AUTO"  # "0": never build on first use; N: at most N pieces


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

    @property
    def text(self) -> str:
        return "%s up to %d pieces: %s positions, about %s, %s on disk, %s of memory while building" % (
            self.ruleset,
            self.pieces,
            "{:,}".format(self.positions),
            duration_text(self.seconds),
            bytes_text(self.disk_bytes),
            bytes_text(self.memory_bytes),
        )


def estimate(ruleset: str, pieces: int) -> Estimate:
    """Positions (exact), build time, disk and memory (from measured rates) of the
    tables of ``ruleset`` up to ``pieces`` pieces."""
    canonical, points, quiet = _points(ruleset)
    positions = 0
    slots = 0
    biggest = 0
    for s, n in balances(pieces):
        table = 2 * math.comb(points, s) * math.comb(points - s, n)
        positions += table
        biggest = max(biggest, table)
        slots += 2 * math.comb(points, s) * math.comb(points, n)
    return Estimate(
        canonical,
        pieces,
        positions,
        positions * SECONDS_PER_POSITION,
        int(positions * DISK_BYTES_PER_POSITION[0 if pieces <= 4 else 1]),
        BASE_MEMORY + slots * (quiet + 1) * 2 + biggest * GRAPH_BYTES_PER_POSITION,
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
    return _read_all(ruleset, directory)[0]


def describe(ruleset: str) -> dict[str, Any]:
    """What is on disk for ``ruleset`` without reading the tables: tables, positions, bytes."""
    where = ruleset_dir(ruleset)
    tables: list[dict[str, Any]] = []
    for path in sorted(where.glob("*v*" + store.SUFFIX)) if where.is_dir() else []:
        try:
            header = store.read_header(path)
        except (store.TableFileError, OSError):
            continue
        tables.append(
            {
                "table": path.name[: -len(store.SUFFIX)],
                "positions": int(header.get("positions", 0)),
                "bytes": path.stat().st_size,
            }
        )
    pieces = [sum(int(x) for x in str(t["table"]).split("v")) for t in tables]
    return {
        "ruleset": str(zuni.parse_ruleset(ruleset)),
        "directory": str(where),
        "max_pieces": max(pieces) if pieces else 0,
        "positions": sum(int(t["positions"]) for t in tables),
        "bytes": sum(int(t["bytes"]) for t in tables),
        "tables": tables,
    }


def ensure(ruleset: str, max_pieces: int, progress: Progress | None = None, *, wait: bool = True) -> Tablebase:
    """The tables of ``ruleset`` up to ``max_pieces``: loaded, or built and saved (the
    missing or damaged ones only). One builder per ruleset across processes: with
    ``wait=False``, raises ``BuildBusy`` when another process is building them."""
    canonical = _points(ruleset)[0]
    where = ruleset_dir(canonical)
    with store.BuildLock(where, wait=wait):
        have, problems, every = _read_all(canonical, where)
        for problem in problems:
            if progress is not None:
                progress("built again: %s" % problem)
        if have is not None and have.max_pieces >= max_pieces:
            return have
        tb = build(canonical, max_pieces, progress, every)
        new = {b for b in tb.tables if b not in every.tables}
        if progress is not None:
            progress("writing %d table%s to disk (compressed)" % (len(new), "" if len(new) == 1 else "s"))
        save(tb, where, only=new)
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

    Loading Mosona's 5-piece tables takes seconds and 370 MB: a timed search asks with
    ``wait=False``, which starts the loading in a thread and returns what is in memory
    meanwhile (None at first)."""
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
    25-point boards (minutes, ~400 MB while building), 4 on Kolowis long's 49 points."""
    return 5 if _points(ruleset)[1] <= 25 else 4
