"""tools/bench_ai.py --ladder: the levels' Elo-like ratings from neighbours' matches."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import ladder  # noqa: E402


def test_a_pair_alone_gets_the_elo_difference_of_its_score_with_the_prior() -> None:
    rating = ladder.fit([("strong", "weak", 7.0, 8)], anchor="weak")
    # 7 of 8, with one prior draw: 7.5 of 9.
    assert rating["weak"] == 0.0
    assert rating["strong"] == pytest.approx(ladder.elo_diff(7.5 / 9), abs=0.01)
    assert ladder.expected(rating["strong"]) == pytest.approx(7.5 / 9, abs=1e-4)


def test_a_sweep_stays_finite_and_a_chain_adds_up() -> None:
    results = [("l1", "random", 10.0, 10), ("l2", "l1", 5.0, 10), ("l3", "l2", 8.0, 10)]
    rating = ladder.fit(results, anchor="random")
    assert math.isfinite(rating["l1"]) and rating["l1"] > 300
    assert rating["l2"] == pytest.approx(rating["l1"], abs=0.5)  # an even match: equal ratings
    assert rating["l3"] - rating["l2"] == pytest.approx(ladder.elo_diff(8.5 / 11), abs=1.0)
    assert all(ladder.interval(results, rating, p) > 0 for p in ("l1", "l2", "l3"))


def test_players_no_game_links_to_the_anchor_are_refused() -> None:
    with pytest.raises(ValueError, match="no games link c, d to a"):
        ladder.fit([("a", "b", 1.0, 2), ("c", "d", 1.0, 2)], anchor="a")
    with pytest.raises(ValueError, match=r"3\.0 points in 2 games"):
        ladder.fit([("a", "b", 3.0, 2)], anchor="a")
    with pytest.raises(ValueError, match="no finite rating"):
        ladder.elo_diff(1.0)


def test_bench_prints_the_ladder(tmp_path: Path) -> None:
    command = [sys.executable, str(REPO / "tools" / "bench_ai.py"), "--ladder", "--only", "mosona"]
    command += ["--ladder-levels", "1,2", "--ladder-games", "2", "--workers", "2", "--quiet", "--json"]
    env = dict(os.environ, ZUNI_TABLEBASE_DIR=str(tmp_path))  # no tables: the search alone
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    (block,) = report["ladder"]
    assert block["game"] == "mosona"
    pairs = [(m["player"], m["opponent"]) for m in block["matches"]]
    assert pairs == [
        ("level1", "random"),
        ("level2", "level1"),
        ("level1", "uct@100p"),
    ]  # level 3, against UCT at 1000 playouts, is not in this ladder
    assert all(m["games"] == 2 and m["wins"] + m["draws"] + m["losses"] == 2 for m in block["matches"])
    for m in block["matches"]:  # the score and its Wilson interval, which holds it
        assert m["score"] == pytest.approx((m["wins"] + m["draws"] / 2) / 2, abs=1e-3)
        low, high = m["score_interval"]
        assert 0.0 <= low <= m["score"] <= high <= 1.0 and high - low > 0.3  # 2 games: wide
    ratings = {r["player"]: r for r in block["ratings"]}
    assert set(ratings) == {"random", "level1", "level2", "uct@100p"}
    assert ratings["random"]["rating"] == 0 and ratings["random"]["games"] == 2
    assert ratings["level1"]["games"] == 6 and ratings["level2"]["games"] == 2
    # The ratings printed are the fit of the matches printed.
    results = [(m["player"], m["opponent"], m["wins"] + m["draws"] / 2, m["games"]) for m in block["matches"]]
    fitted = ladder.fit(results, anchor="random")
    assert all(abs(ratings[p]["rating"] - fitted[p]) <= 0.5 for p in fitted)
    assert [r["rating"] for r in block["ratings"]] == sorted(r["rating"] for r in block["ratings"])


def test_bench_refuses_a_ladder_with_a_gap() -> None:
    command = [sys.executable, str(REPO / "tools" / "bench_ai.py"), "--ladder", "--ladder-levels", "1,3"]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "without gaps" in done.stderr
