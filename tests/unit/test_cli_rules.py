"""`zuni perft` and `zuni moves` for the line games, run as the user runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ZUNI = Path(sys.executable).parent / "zuni"


def zuni(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ZUNI), *args], capture_output=True, text=True, timeout=120)


def test_perft_last_line_is_the_count() -> None:
    for ruleset, depth, count in (
        ("mosona", "6", "285"),
        ("mosona board=open", "5", "32"),
        ("kolowis", "5", "76"),
        ("kolowis size=short chain=forced", "7", "636"),
        ("mosona", "0", "1"),
    ):
        result = zuni("perft", ruleset, depth)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines()[-1] == count, (ruleset, depth, result.stdout)


def test_perft_divide_sums_to_the_count() -> None:
    result = zuni("perft", "kolowis size=short", "3", "--divide")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:-1] == ["m6-m5 1", "s4-m5 3", "s5-m5 5"]
    assert lines[-1] == "9"


def test_moves_are_sorted() -> None:
    result = zuni("moves", "mosona")
    assert (result.returncode, result.stdout) == (0, "s3xm4-m5\n")
    result = zuni("moves", "mosona", "s3xm4-m5")
    assert result.stdout.splitlines() == ["m2xs2-s3", "n5xm5-m4"]
    result = zuni("moves", "kolowis size=short", "s5-m5")
    assert result.stdout.splitlines() == ["n4xm5-s5", "n6xm6-s5"]


def test_moves_reports_the_end() -> None:
    # A capture, then a quiet move by North: quiet=1 ends the game, 12 pieces to 11.
    result = zuni("moves", "mosona quiet=1 capture=free", "s3xm4-m5", "m3-m4")
    assert (result.returncode, result.stdout) == (0, "over south\n")
    result = zuni("moves", "kolowis size=short quiet=1", "m6-m5")
    assert (result.returncode, result.stdout) == (0, "over draw\n")


def test_bad_move_exits_2_naming_move_and_position() -> None:
    result = zuni("moves", "mosona", "s3xm4-m5", "m6-m5")
    assert result.returncode == 2
    assert result.stdout == ""
    assert "move 2: m6-m5 is not legal in mosona after 1 move, north to move" in result.stderr
    result = zuni("moves", "mosona", "q1-m5")
    assert result.returncode == 2
    assert "q1-m5" in result.stderr and "unknown point 'q1'" in result.stderr
    assert "mosona after 0 moves, south to move" in result.stderr
    result = zuni("moves", "mosona quiet=1 capture=free", "s3xm4-m5", "m3-m4", "m6-m5")
    assert result.returncode == 2
    assert "m6-m5: the game is over" in result.stderr


def test_bad_ruleset_exits_2() -> None:
    result = zuni("perft", "mosona jumps=sideways", "2")
    assert result.returncode == 2
    assert "'sideways'" in result.stderr and "beyond, straight, pattern" in result.stderr
    result = zuni("moves", "kolowis board=open")
    assert result.returncode == 2
    assert "'board'" in result.stderr
