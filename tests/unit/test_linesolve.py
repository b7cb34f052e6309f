"""The C line-game solver (tools/linesolve) against the Python engine, tables and solver.

The C program is compiled here with the system's gcc; without a C compiler these tests
fail (the solver is part of the project, not an optional extra).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest

import zuni
from zuni.line import LineGame
from zuniboard.ai import solver, tablebase

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import linesolve  # noqa: E402

RULESETS = [
    "mosona",
    "mosona board=open",
    "kolowis size=short",
    "mosona chain=optional jumps=pattern",
    "mosona capture=free chain=none quiet=5",
    "mosona jumps=straight stall=draw",
]


def test_the_c_solver_compiles() -> None:
    try:
        exe = linesolve.binary()
    except linesolve.LinesolveError as exc:
        pytest.fail("the C solver does not build here: %s" % exc)
    assert exe.exists()


def test_perft_of_the_start_equals_the_python_engine() -> None:
    game = zuni.new_game("mosona")
    for depth in (1, 4, 7, 10):
        assert linesolve.perft(game, depth) == zuni.perft(game, depth), depth


@pytest.mark.parametrize("ruleset", RULESETS)
def test_perft_of_random_positions_equals_the_python_engine(ruleset: str) -> None:
    rng = random.Random(ruleset)
    names = list(LineGame(ruleset).geometry.names)
    counts = set()
    for _ in range(12):
        points = rng.sample(names, rng.randint(2, 12))
        k = rng.randint(1, len(points) - 1)
        text = "south %s north %s" % (" ".join(points[:k]), " ".join(points[k:]))
        quiet = rng.choice([0, 0, 3, 37, 39])
        game = LineGame.from_position(ruleset, text, rng.choice(["south", "north"]), quiet=quiet)
        expected = zuni.perft(game, 3)
        assert linesolve.perft(game, 3) == expected, (ruleset, text, quiet)
        counts.add(expected)
    assert len(counts) > 3  # the positions differ: the check is not of one trivial case


def _python_values(tb: tablebase.Tablebase, rec: np.ndarray) -> np.ndarray:
    """The Python tables' value of every record of the C dump (vectorised lookup)."""
    out = np.zeros(len(rec), dtype=np.int16)
    south = rec["south"].astype(np.int64)
    north = rec["north"].astype(np.int64)
    pop_s = np.array([bin(int(x)).count("1") for x in south])
    pop_n = np.array([bin(int(x)).count("1") for x in north])
    for (s, n), table in tb.tables.items():
        pick = (pop_s == s) & (pop_n == n)
        # Colex order of k-sets is the numeric order of their bit masks.
        ms = np.array(tb.combos(s).masks, dtype=np.int64)
        mn = np.array(tb.combos(n).masks, dtype=np.int64)
        rs = np.searchsorted(ms, south[pick])
        rn = np.searchsorted(mn, north[pick])
        assert (ms[rs] == south[pick]).all() and (mn[rn] == north[pick]).all()
        index = (rec["turn"][pick].astype(np.int64) * len(ms) + rs) * len(mn) + rn
        out[pick] = table.values[rec["left"][pick].astype(np.int64), index]
    return out


@pytest.mark.parametrize(
    "ruleset", ["mosona", "mosona quiet=3", "mosona board=open stall=draw quiet=4", "kolowis size=short quiet=5"]
)
def test_c_tables_equal_the_python_tables_everywhere(ruleset: str) -> None:
    """Every position up to 3 pieces, both sides to move, every quiet count: the same
    value (win or loss in the same number of moves, or draw)."""
    tb = tablebase.build(ruleset, 3)
    rec = linesolve.table_values(ruleset, 3)
    quiet = zuni.parse_ruleset(ruleset).get_int("quiet")
    assert len(rec) == sum(t.positions for t in tb.tables.values()) * (quiet + 1)
    python = _python_values(tb, rec)
    assert (python == rec["value"]).all(), int((python != rec["value"]).sum())
    # Wins, losses and draws all occur: the comparison covers every kind of value.
    assert (python > 0).any() and (python < 0).any() and (python == 0).any()


# (position, side to move, quiet count) of Mosona that the Python solver settles
# quickly with 3-piece tables: 4-6 pieces, the count near its limit.
SOLVER_CASES = [
    ("south m5 s3 north m6 n5", "south", 30),
    ("south m2 m3 north m9 n8 s8", "north", 34),
    ("south s1 s2 m4 north n6 n7", "south", 33),
    ("south m5 north m6 n5 n6", "north", 20),
    ("south m4 m6 s4 north n4 m5 n5", "south", 35),
    ("south n1 n2 m1 north m9 s5", "north", 36),
]


def test_c_solver_agrees_with_the_python_solver() -> None:
    ruleset = "mosona"
    tb = tablebase.build(ruleset, 3)
    settled = 0
    results = set()
    for text, turn, quiet in SOLVER_CASES:
        game = LineGame.from_position(ruleset, text, turn, quiet=quiet)
        for team in (0, 1):
            expected = solver.prove(game, team, node_limit=20_000, tb=tb).result
            got = linesolve.solve(game, team, pieces=3, nodes=2_000_000, tt_mb=16)
            assert got.result is not None, (text, team)
            if expected is not None:
                assert got.result == expected, (text, turn, quiet, team)
                settled += 1
                results.add(expected)
    assert settled >= 8 and results == {True, False}


def test_c_solver_proves_the_17_move_position_of_the_main_line() -> None:
    """docs/rules.md: after 17 moves of the main line North wins by force (the Python
    solver: 0.66 million nodes with 5-piece tables). The C solver with its 5-piece tables:
    proved, South's win disproved, and the winning line it prints is legal and won."""
    game = LineGame.from_position("mosona", "south m9 s5 north n1 n2 m1 m3 s2", "north")
    north = linesolve.solve(game, 1, pieces=5, nodes=2_000_000, tt_mb=64)
    south = linesolve.solve(game, 0, pieces=5, nodes=2_000_000, tt_mb=64)
    assert north.result is True and south.result is False
    assert north.line and north.line[0] in [str(m) for m in game.legal_moves()]


# The computer's main line of docs/rules.md's solver run, its first 24 moves: South's 2
# pieces against North's 5, North to move.
MAIN_LINE_24 = (
    "s3xm4-m5 n5xm5-m4 m7xn6-n5 n8xm8-m7xm6-m5xs4-s3 s2xs3-s4 n4xn5-n6 s4xm4-n4 n3xn4-n5 s5-s4 m1xs1-s2"
    " s6-s5 m2-s1 s4-m5 n5xm5-s4xs5-m6 s7-m8 n7xm8-s7 s8xs7-m7xn6-n5xm6-s5 m3-m4 m9-m8 s2-s3 s5-m6 n2-m3"
    " m8-s7 m4-n4"
)


def test_solve_mosona_with_the_c_engine_proves_verifies_and_writes_a_book(tmp_path: Path) -> None:
    """tools/solve_mosona.py --engine c end to end: North's win proved with the 5-piece C
    tables, the proof walked again with the Python engine, its book written; South's
    win disproved."""
    import json
    import subprocess

    book = tmp_path / "book.txt"
    command = [sys.executable, str(REPO / "tools" / "solve_mosona.py"), "--engine", "c", "--pieces", "5"]
    command += ["--moves", MAIN_LINE_24, "--verify", "--book-out", str(book), "--tt-mb", "64", "--json"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    north, south = report["questions"]
    assert (north["team"], north["result"]) == ("north", "proved")
    assert north["verified"].startswith("ok: ") and north["book_positions"] > 100
    assert (south["team"], south["result"]) == ("south", "disproved")
    lines = [x for x in book.read_text().splitlines() if not x.startswith("#")]
    assert len(lines) == north["book_positions"]
    key, move = lines[0].split()
    assert key.count(":") == 3 and "-" in move
