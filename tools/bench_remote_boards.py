"""Board to board in a remote game (docs/remote.md): from a move's commit on virtual
board A to board B's LEDs showing it, every part real. Run by tools/bench_remote.py
(``--board-moves``), or alone:

    .venv/bin/python tools/bench_remote_boards.py [--moves 60] [--ruleset kolowis] [--json]

Two virtual boards run the firmware under MicroPython (the unix port), each with its own
`zuni play --remote` (south makes the game, north joins with the invite code) on a
loopback Mosquitto with `zuni referee` beside it, each program in its own process. A
hand (``virtual.board.Hand``) makes each move on the mover's board; the other board's
hand carries it out once shown, as a person does.

Two figures a move, from the moment board A's application commits the move (its
``state`` event with one move more, pushed on the virtual board's control socket):

- ``to_board_b_ms``: to board B's application taking it as the move to carry out (its
  ``state`` event with the ``hostmove``; its LEDs mark the move from that loop iteration
  on). This is A's commit -> its link frame -> host A -> the broker -> the referee ->
  the broker -> host B -> its ``hostmove`` request -> board B.
- ``to_first_flash_ms``: to the first LED frame on board B with the move's origin lit
  blue. A suggestion is a double flash whose phase is the board's clock's (every point
  with the pattern blinks together: docs/leds.md), dark 750 ms of each 1.2 s, so this
  adds up to 0.9 s of waiting for the flash to the figure above.

Both events are stamped by this process's clock as they arrive (a loopback socket each,
well under a millisecond). Not in them: the board's own settle and commit delay before
the commit (the layout's timing, the same for any opponent).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import zuni
from zuniboard.ai import GreedyPlayer
from zuniboard.games import layouts
from zuniboard.virtual.board import Hand, VirtualBoard, parse_frame

ZUNI = Path(sys.executable).parent / "zuni"
WAIT_S = 60.0


class Player:
    """One `zuni play --remote` at a virtual board, its output read line by line."""

    def __init__(self, home: Path, board: VirtualBoard, url: str, name: str, seat: str, remote: list[str]) -> None:
        env = dict(os.environ, ZUNI_REMOTE_DIR=str(home / "remote"), NO_COLOR="1", PYTHONUNBUFFERED="1")
        command = [str(ZUNI), "play", "--db", str(home / "games.sqlite3"), "--color", "never", "--port"]
        command += [board.port_path, "--broker", url, "--name", name, "--seat", seat, *remote]
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            start_new_session=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def expect(self, pattern: str) -> re.Match[str]:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                continue
            match = re.search(pattern, line)
            if match:
                return match
        raise RuntimeError("zuni play said no %r within %.0f s" % (pattern, WAIT_S))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(20)


def blue(rgb: Any) -> bool:
    r, g, b = rgb
    return bool(b > 128 and b > 2 * r and b > g)


def move_taken_at(board: VirtualBoard, since: int, text: str) -> tuple[float, int]:
    """When board B's application took the host move ``text`` (its ``state`` event: its
    LEDs mark the move from that loop iteration on), and that event's index."""
    event = board.wait_for(lambda e: e.get("event") == "state" and e.get("hostmove") == text, WAIT_S, since)
    index = next(i for i in range(since, len(board.events)) if board.events[i] is event)
    return float(event["time"]), index


def move_lit_at(board: VirtualBoard, since: int, origin: str) -> float:
    """The arrival time of the first LED frame from event ``since`` on with ``origin``
    blue: the double flash's first flash (docs/leds.md)."""
    names = board.names

    def lit(event: dict[str, Any]) -> bool:
        return event.get("event") == "leds" and blue(parse_frame(event["frame"], names).get(origin, (0, 0, 0)))

    return float(board.wait_for(lit, WAIT_S, since)["time"])


def committed_at(board: VirtualBoard, since: int, count: int) -> float:
    event = board.wait_for(lambda e: e.get("event") == "state" and e.get("moves") == count, WAIT_S, since)
    return float(event["time"])


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))] if ordered else float("nan")


def board_to_board(url: str, home: Path, moves: int, ruleset: str = "kolowis") -> dict[str, Any]:
    """``moves`` samples (games played one after the other until there are enough)."""
    samples: list[tuple[float, float]] = []
    game_no = 0
    while len(samples) < moves:
        game_no += 1
        samples += one_game(url, home / ("game%d" % game_no), ruleset, moves - len(samples), seed=game_no)
    taken = [t for t, _ in samples]
    lit = [t for _, t in samples]
    return {
        "to_board_b_ms": {"p50": round(percentile(taken, 50), 1), "p99": round(percentile(taken, 99), 1)},
        "to_first_flash_ms": {"p50": round(percentile(lit, 50), 1), "p99": round(percentile(lit, 99), 1)},
        "n": len(samples),
        "games": game_no,
    }


def one_game(url: str, home: Path, ruleset: str, wanted: int, seed: int) -> list[tuple[float, float]]:
    sides = ("south", "north")
    boards: dict[str, VirtualBoard] = {}
    players: dict[str, Player] = {}
    hands: dict[str, Hand] = {}
    samples: list[tuple[float, float]] = []
    try:
        for side in sides:
            (home / side).mkdir(parents=True)
            layout = layouts.layout_for_ruleset(ruleset).path  # its own timing: a board as shipped
            board = VirtualBoard(layout, ruleset=ruleset, pieces="start", flash=home / side / "flash.img")
            board.start()
            boards[side] = board
            hands[side] = Hand(board, seed=seed, speed=4.0)
        players["south"] = Player(
            home / "south", boards["south"], url, "Ann", "south", ["--remote", "new", "--ruleset", ruleset]
        )
        code = players["south"].expect(r"invite code: (\S+)").group(1)
        players["north"] = Player(home / "north", boards["north"], url, "Bea", "north", ["--remote", code])
        for player in players.values():
            player.expect(r"^new game #\d+")
        game = zuni.new_game(ruleset)
        chooser = GreedyPlayer(seed)
        while not game.is_game_over() and len(samples) < wanted:
            side = str(zuni.SIDE_NAMES[game.turn])
            other = sides[1 - sides.index(side)]
            mover, shown = boards[side], boards[other]
            legal = game.legal_moves()
            if len(legal) == 1 and legal[0].kind == zuni.PASS:
                return samples  # a forced pass is no move to carry: a new game instead
            move = chooser.choose(game)
            text = str(move.text())
            count = len(game.move_stack) + 1
            mark_a, mark_b = mover.mark(), shown.mark()
            hands[side].play(game, text)
            if move.kind == zuni.JUMP and any(
                m.kind == zuni.JUMP
                and len(m.path) > len(move.path)
                and list(m.path)[: len(move.path)] == list(move.path)
                for m in legal
            ):
                mover.wait_until(lambda vb: vb.stable is not None and vb.stable == vb.occupied, WAIT_S)
                mover.press("ok")  # a chain that could go on: OK ends it here
            t0 = committed_at(mover, mark_a, count)
            t1, index = move_taken_at(shown, mark_b, text)
            t2 = move_lit_at(shown, max(mark_b, index - 1), game.geometry.names[move.origin])
            samples.append(((t1 - t0) * 1000, (max(t1, t2) - t0) * 1000))
            mark_b = shown.mark()
            hands[other].play(game, text)
            committed_at(shown, mark_b, count)
            game.push(move)
        return samples
    finally:
        for player in players.values():
            player.stop()
        for board in boards.values():
            board.close()


def main() -> int:
    from bench_remote import start_mosquitto  # the same loopback Mosquitto as the rest of the benchmark

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--ruleset", default="kolowis")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-remote-boards-") as tmp:
        home = Path(tmp)
        broker, port = start_mosquitto(home)
        url = "mqtt://127.0.0.1:%d" % port
        referee = subprocess.Popen(
            [str(ZUNI), "referee", url, "--data", str(home / "games")], stderr=subprocess.DEVNULL
        )
        try:
            figure = board_to_board(url, home, args.moves, args.ruleset)
        finally:
            referee.send_signal(signal.SIGTERM)
            referee.wait(30)
            broker.terminate()
            broker.wait(30)
    figure["load_average"] = round(os.getloadavg()[0], 1)
    print(json.dumps(figure) if args.json else "commit on board A to LEDs on board B (ms): %s" % figure)
    return 0


if __name__ == "__main__":
    sys.exit(main())
