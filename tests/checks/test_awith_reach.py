"""zuni.awith_reach (the Awithlaknakwe evaluation's tables, computed on the PC) is what
tools/gen_awith_reach.py makes from the rules' geometry today."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import gen_awith_reach  # noqa: E402


def test_the_shipped_tables_are_current() -> None:
    assert gen_awith_reach.main(["--check"]) == 0


def test_the_tables_say_where_warriors_arrive() -> None:
    from zuni.awith import HOMES, TARGET
    from zuni.awith_reach import SPREAD, TABLE

    assert [len(row) for row in TABLE] == [168] * 4
    for side in range(4):
        home = HOMES[TARGET[side]]
        reach, dist = gen_awith_reach.tables(side)
        entries = TABLE[side]
        assert [SPREAD[e & 15] for e in entries] == list(reach)
        assert [e >> 4 for e in entries] == list(dist)
        assert [reach[sq] for sq in home] == [1 << t for t in range(len(home))]
        assert all(dist[sq] == 0 for sq in home)
        # Some squares lead nowhere (off the board or the wrong colour), others are far.
        assert 0 in reach and max(dist) >= 10, side
