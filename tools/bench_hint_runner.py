"""The games of tools/bench_hint.py, in the subset MicroPython and CPython share, so that
the same hint module (zuni_board.hint) plays under either interpreter.

``play(ruleset, opponent, games, seed)`` plays ``games`` games of the board's hint
(every move the one HINT would show, the search stepped one slice at a time as the
board does) against ``opponent`` ("random": any legal move; "greedy": a move that
captures the most, at random among equals), the hint taking the first team in even
games and the second in odd ones (with four players it moves for both partners).
Returns a dict of counts and figures; ``main(spec_json)`` prints it as ``BENCH {...}``.

Randomness is a small linear congruential generator seeded per game, the same on both
interpreters, so a run is repeatable anywhere.
"""

import json
import sys

import zuni
from zuni.evaluate import evaluate
from zuni_board.hintrun import search_for
from zuni_board.play import HINT_SLICE, HINT_THINK_MS

try:
    from time import ticks_diff, ticks_us
except ImportError:  # CPython
    import time as _time

    def ticks_us():  # type: ignore
        return int(_time.perf_counter() * 1000000)

    def ticks_diff(a, b):  # type: ignore
        return a - b


# A game that has not ended by the rules after this many plies counts as a draw.
MAX_PLIES = 1000
# The RP2040 estimate of a hint, under MicroPython only (tools/bench_firmware.py's model):
# each slice on the chip takes max(a 10 ms scan, its unix time x 190 + the chip loop's
# own 3.1 ms); the depth reached on the chip is the deepest one whose slice starts
# before the app's HINT_THINK_MS cut.
CHIP_FACTOR = 190
CHIP_LOOP_US = 3100
SCAN_US = 10000
TIMED = sys.implementation.name == "micropython"
# Runs of each search for its slice times (the best of them counts).
CHIP_RUNS = 3


class Lcg:
    def __init__(self, seed):
        self.x = (seed * 2654435761 + 1) & 0x3FFFFFFF

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x3FFFFFFF
        return (self.x >> 7) % n


def random_move(game, rng):
    moves = game.legal_moves()
    return moves[rng.below(len(moves))]


def greedy_move(game, rng):
    moves = game.legal_moves()
    most = 0
    for m in moves:
        if len(m.captures) > most:
            most = len(m.captures)
    best = [m for m in moves if len(m.captures) == most]
    return best[rng.below(len(best))]


class HintPlayer:
    """Every move the board's own hint (``hint.search_for``: the line games' own search,
    or the general one), sliced as on the board (HINT_SLICE a slice).
    ``depths[d]``: hints whose search completed depth d (``chip_depths``: by the app's
    cut on the RP2040 estimate, MicroPython only); positions with one legal move count
    in ``forced`` (the board shows that move at once)."""

    def __init__(self):
        self.searches = 0
        self.nodes = 0
        self.work = 0
        self.slices = 0
        self.max_slices = 0
        self.us = 0
        self.depth_sum = 0
        self.forced = 0
        # Hints by the depth they completed (the line games' search goes to 12).
        self.depths = [0] * 13
        self.chip_depths = [0] * 13
        self.chip_max_ms = 0

    def move(self, game):
        forced = game.count_moves() == 1
        t0 = ticks_us()
        search = search_for(game)
        times = []  # us per slice (MicroPython only)
        done = False
        while not done:
            t = ticks_us()
            done = search.step(HINT_SLICE)
            if TIMED:
                times.append(ticks_diff(ticks_us(), t))
        self.us += ticks_diff(ticks_us(), t0)
        reached = 0
        chip = 0  # us on the RP2040 estimate since the search began
        if TIMED and not forced:
            # The same search again (it is deterministic): each slice's best time, so
            # that other processes on this machine do not pass for the search's work.
            for _ in range(CHIP_RUNS - 1):
                again = search_for(game)
                i = 0
                while True:
                    t = ticks_us()
                    end = again.step(HINT_SLICE)
                    dt = ticks_diff(ticks_us(), t)
                    if dt < times[i]:
                        times[i] = dt
                    i += 1
                    if end:
                        break
            depth_slices = search.depth_slices
            for i in range(len(times)):
                if chip < HINT_THINK_MS * 1000:
                    # This slice starts before the app's cut: the depths it completes count.
                    for d in range(len(depth_slices)):
                        if depth_slices[d] == i + 1:
                            reached = d + 1
                dt = times[i] * CHIP_FACTOR + CHIP_LOOP_US
                chip += dt if dt > SCAN_US else SCAN_US
        self.searches += 1
        self.nodes += search.nodes
        self.work += search.work
        self.slices += search.slices
        if search.slices > self.max_slices:
            self.max_slices = search.slices
        self.depth_sum += search.depth
        if forced:
            self.forced += 1
        else:
            self.depths[search.depth] += 1
            self.chip_depths[reached] += 1
            if chip > self.chip_max_ms * 1000:
                self.chip_max_ms = chip // 1000
        return search.best


def play_one(ruleset, opponent, hint_team, seed, hint):
    rng = Lcg(seed)
    game = zuni.new_game(ruleset)
    evaluate(game)  # the evaluation's tables loaded before the first hint
    other = greedy_move if opponent == "greedy" else random_move
    plies = 0
    while plies < MAX_PLIES and not game.is_game_over():
        if game.team_of(game.turn) == hint_team:
            move = hint.move(game)
        else:
            move = other(game, rng)
        game.push(move)
        plies += 1
    outcome = game.outcome()
    if outcome is None or outcome.winner is None:
        return 0, plies
    return (1 if outcome.winner == hint_team else -1), plies


def play(ruleset, opponent, games, seed=1):
    hint = HintPlayer()
    wins = draws = losses = 0
    plies = 0
    for g in range(games):
        result, n = play_one(ruleset, opponent, g % 2, seed * 1000 + g, hint)
        plies += n
        if result > 0:
            wins += 1
        elif result < 0:
            losses += 1
        else:
            draws += 1
    searches = hint.searches or 1
    out = {
        "ruleset": ruleset,
        "opponent": opponent,
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "mean_plies": plies // games if games else 0,
        "hints": hint.searches,
        "mean_nodes": hint.nodes // searches,
        "mean_work": hint.work // searches,
        "mean_slices": hint.slices // searches,
        "max_slices": hint.max_slices,
        "mean_depth_x10": hint.depth_sum * 10 // searches,
        "mean_hint_us": hint.us // searches,
        "forced": hint.forced,
        "depths": hint.depths,
    }
    if TIMED:
        out["chip_depths"] = hint.chip_depths
        out["chip_max_ms"] = hint.chip_max_ms
    return out


def main(spec_text):
    spec = json.loads(spec_text)
    out = play(spec["ruleset"], spec["opponent"], spec["games"], spec.get("seed", 1))
    print("BENCH " + json.dumps(out))
