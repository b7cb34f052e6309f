"""Python side of the C line-game solver (``tools/linesolve/linesolve.c``).

The C program is compiled on first use with the system's gcc (``-O2``, no dependencies)
into the git-ignored ``build/linesolve/``, again whenever its source is newer. The rules
it plays are written for it from the rules engine's own tables (``zuni.line.adjacency``
and ``jump_table``), so its move generator reads the very edges and landings the Python
engine reads. Positions cross as bit sets (point p = bit p), the side to move (0 South,
1 North) and the quiet count.

>>> import zuni
>>> perft(zuni.new_game("mosona"), 3) == zuni.perft(zuni.new_game("mosona"), 3)
True
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent.parent
for _extra in (REPO / "host", REPO / "firmware" / "lib"):
    if str(_extra) not in sys.path:
        sys.path.insert(0, str(_extra))

import zuni  # noqa: E402
from zuni.line import LineGame, adjacency, board_size, jump_table  # noqa: E402

SOURCE = Path(__file__).resolve().parent / "linesolve.c"
BUILD = REPO / "build" / "linesolve"
CHAINS = {"none": 0, "optional": 1, "forced": 2}


class LinesolveError(Exception):
    """The C solver cannot be built or run (the message says why)."""


def binary() -> Path:
    """The compiled solver, compiled now if missing or older than its source."""
    exe = BUILD / "linesolve"
    if exe.exists() and exe.stat().st_mtime >= SOURCE.stat().st_mtime:
        return exe
    cc = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        raise LinesolveError("no C compiler found (gcc or cc on PATH, or $CC): the C solver needs one to build")
    BUILD.mkdir(parents=True, exist_ok=True)
    tmp = BUILD / ("linesolve.%d.tmp" % os.getpid())
    result = subprocess.run(
        [cc, "-O2", "-Wall", "-o", str(tmp), str(SOURCE)], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise LinesolveError("%s failed on %s:\n%s" % (cc, SOURCE, result.stderr))
    tmp.replace(exe)  # atomic: another process never runs half a binary
    return exe


def rules_file(ruleset: str) -> Path:
    """The rules of ``ruleset`` (a line game on at most 25 points) as the C program reads them."""
    game = zuni.new_game(ruleset)
    if not isinstance(game, LineGame):
        raise LinesolveError("the C solver plays the line games, not %r" % (ruleset,))
    rules = game.ruleset
    k, lined = board_size(rules)
    first, targets, _rows = adjacency(k, lined)
    width, landings = jump_table(k, lined, rules["jumps"])
    points = len(game.board)
    if points > 25:
        raise LinesolveError("%s has %d points: the C solver's positions hold at most 25" % (rules, points))
    header = [
        points,
        rules.get_int("quiet"),
        1 if rules["stall"] == "draw" else 0,
        CHAINS[rules["chain"]],
        1 if rules["capture"] == "forced" else 0,
        width,
    ]
    text = "%s\n%s\n%s\n%s\n" % (
        " ".join(str(x) for x in header),
        " ".join(str(x) for x in first[: points + 1]),
        " ".join(str(x) for x in targets[: first[points]]),
        " ".join(str(x) for x in landings[: width * first[points]]),
    )
    BUILD.mkdir(parents=True, exist_ok=True)
    path = BUILD / ("rules-%s.txt" % str(rules).replace(" ", "_").replace("=", "-"))
    if not path.exists() or path.read_text() != text:
        tmp = path.with_suffix(".%d.tmp" % os.getpid())
        tmp.write_text(text)
        tmp.replace(path)
    return path


def position(game: zuni.Game) -> tuple[int, int, int, int]:
    """(south mask, north mask, turn, quiet) of a line game's position."""
    assert isinstance(game, LineGame)
    south_code = zuni.piece_code(zuni.SOUTH, zuni.MAN)
    north_code = zuni.piece_code(zuni.NORTH, zuni.MAN)
    south = north = 0
    for p, code in enumerate(game.board):
        if code == south_code:
            south |= 1 << p
        elif code == north_code:
            north |= 1 << p
    return south, north, 1 if game.turn == zuni.NORTH else 0, game.quiet


def _run(args: list[str], timeout: float | None = None) -> str:
    result = subprocess.run([str(binary()), *args], capture_output=True, text=True, check=False, timeout=timeout)
    if result.returncode != 0:
        raise LinesolveError("linesolve %s failed: %s" % (" ".join(args[1:3]), result.stderr.strip()))
    return result.stdout


def perft(game: zuni.Game, depth: int) -> int:
    """docs/rules.md's perft of ``game``'s position, counted by the C move generator."""
    s, n, turn, quiet = position(game)
    out = _run([str(rules_file(str(game.ruleset))), "perft", str(s), str(n), str(turn), str(quiet), str(depth)])
    return int(out.strip())


def table_values(ruleset: str, pieces: int) -> Any:
    """Every value of the C tables up to ``pieces`` pieces, as a numpy record array with
    fields south, north, turn, left (quiet moves left) and value (tablebase.WIN_T - d ...)."""
    import numpy as np

    BUILD.mkdir(parents=True, exist_ok=True)
    out = BUILD / ("dump.%d.bin" % os.getpid())
    try:
        _run([str(rules_file(ruleset)), "tbdump", str(pieces), str(out)])
        dtype = np.dtype(
            [("south", "<u4"), ("north", "<u4"), ("turn", "<u4"), ("left", "<u4"), ("value", "<i2")], align=False
        )
        return np.fromfile(out, dtype=dtype)
    finally:
        out.unlink(missing_ok=True)


# In the tables' file names: change it whenever the C builder's values or layout change.
TABLES_VERSION = 1


def tables_path(ruleset: str, pieces: int) -> Path:
    name = str(zuni.parse_ruleset(ruleset)).replace(" ", "_").replace("=", "-")
    return BUILD / ("tables-%s-%d.lstb%d" % (name, pieces, TABLES_VERSION))


def build_tables(ruleset: str, pieces: int, *, progress: bool = False) -> tuple[Path, str]:
    """The win/draw/loss tables up to ``pieces`` for ``solve``, built unless on disk;
    returns the file and the builder's report (empty when it was on disk)."""
    path = tables_path(ruleset, pieces)
    if path.exists():
        return path, ""
    tmp = path.with_suffix(".%d.tmp" % os.getpid())
    result = subprocess.run(
        [str(binary()), str(rules_file(ruleset)), "tbbuild", str(pieces), str(tmp)],
        stdout=subprocess.PIPE,
        stderr=None if progress else subprocess.PIPE,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise LinesolveError("linesolve tbbuild failed: %s" % (result.stderr or "").strip())
    tmp.replace(path)
    return path, result.stdout


@dataclass
class Solution:
    """The C solver's answer to "does ``team`` win by force?": ``result`` True, False
    (the other side holds at least a draw) or None (unsettled within the limits)."""

    result: bool | None
    team: int
    proof_number: int
    disproof_number: int
    nodes: int
    seconds: float
    figures: dict[str, str] = field(default_factory=dict)
    line: list[str] = field(default_factory=list)
    book: Path | None = None


def solve(
    game: zuni.Game,
    team: int,
    *,
    pieces: int = 0,
    nodes: int = 0,
    seconds: float = 0.0,
    tt_mb: int = 1024,
    progress: float = 0.0,
    book: Path | None = None,
    book_plies: int = 0,
    eps: float = 0.25,
    init: int = 1,
    nice: int = 0,
) -> Solution:
    """df-pn of ``game``'s position in C, with the C tables up to ``pieces`` as leaves.
    ``init``: the numbers of new nodes: 0 all 1, 1 mobility (default), 2 material and
    the quiet count, 3 both (they steer the search only; a result rests on the rules
    and the tables)."""
    rules = str(game.ruleset)
    s, n, turn, quiet = position(game)
    args = [str(rules_file(rules)), "solve", str(team), str(s), str(n), str(turn), str(quiet)]
    if pieces >= 2:
        args += ["--tb", str(build_tables(rules, pieces)[0])]
    args += ["--nodes", str(nodes), "--seconds", str(seconds), "--tt-mb", str(tt_mb), "--eps", str(eps)]
    args += ["--init", str(init)]
    if progress:
        args += ["--progress", str(progress)]
    if book is not None and book_plies:
        args += ["--book", str(book), "--book-plies", str(book_plies)]
    command = [str(binary()), *args]
    if nice:
        command = ["nice", "-n", str(nice), *command]
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=None if progress else subprocess.PIPE, text=True)
    if result.returncode != 0:
        raise LinesolveError("linesolve solve failed: %s" % (result.stderr or "").strip())
    figures: dict[str, str] = {}
    raw_line: list[str] = []
    for text in result.stdout.splitlines():
        word, _, rest = text.partition(" ")
        if word == "line":
            raw_line = rest.split()
        else:
            figures[word] = rest
    verdict = {"proved": True, "disproved": False}.get(figures["result"])
    return Solution(
        verdict,
        team,
        int(figures["proof"]),
        int(figures["disproof"]),
        int(figures["nodes"]),
        float(figures["seconds"]),
        figures,
        _line_moves(game, raw_line),
        book if book is not None and "book" in figures else None,
    )


def move_to(game: zuni.Game, south: int, north: int) -> zuni.Move:
    """The first legal move of ``game`` that leaves the pieces on ``south`` and ``north``."""
    for move in game.legal_moves():
        game.push(move)
        s, n, _turn, _quiet = position(game)
        game.pop()
        if (s, n) == (south, north):
            return move
    raise LinesolveError("no move of %s leads to south %#x north %#x" % (game.describe(), south, north))


def _line_moves(game: zuni.Game, raw: list[str]) -> list[str]:
    work = game.copy()
    out = []
    for item in raw:
        s, _, n = item.partition(":")
        move = move_to(work, int(s), int(n))
        out.append(str(move))
        work.push(move)
    return out
