"""End to end: whole games on the virtual board (the real firmware, firmware/main.py, under
the MicroPython unix port), made only with lifts, places and OK through its control
channel, the moves read from the link on a pseudo-terminal.

Each gesture waits for the firmware's own "stable" event (the debounced position it gave
the app), each move for its `move` frame on the link: no fixed sleeps. The 25-point
games run with the layout's real timing; the long games (49 and 168 points) with the
same layout and a faster clock (shorter debounce and commit times) to stay within the
suite's time budget.
"""

from __future__ import annotations

import json
import os
import queue
import random
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import zuni
from zuniboard.mpy import MicroPythonMissing, micropython_executable

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "firmware" / "lib"))
from zuni_link import codec  # noqa: E402

LAYOUTS = REPO / "hardware" / "layouts"
FAST = {"scan_ms": 5, "debounce_scans": 2, "stable_ms": 40, "commit_ms": 80, "error_ms": 300, "chain_settle_ms": 400}


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port: int = s.getsockname()[1]
    s.close()
    return port


class VirtualBoard:
    """The firmware under the unix port with a control client and the link's pty."""

    def __init__(self, layout: Path, ruleset: str, tmp: Path, occupied: list[str] | None = None) -> None:
        try:
            exe = micropython_executable()
        except MicroPythonMissing as exc:
            pytest.skip(str(exc))
        self.master, slave = os.openpty()
        self.slave = slave
        port = _free_port()
        env = dict(os.environ, MICROPYPATH=os.pathsep.join([str(REPO / ".frozen"), str(REPO / "firmware" / "lib")]))
        command = [str(exe), str(REPO / "firmware" / "main.py"), "--layout", str(layout), "--ruleset", ruleset]
        command += ["--control", str(port), "--link", os.ttyname(slave), "--flash", str(tmp / "flash.img")]
        if occupied:
            command += ["--occupied", ",".join(occupied)]
        self.proc = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
                break
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("virtual board did not start: %s" % self._stderr()) from None
                time.sleep(0.02)
        self.control = self.sock.makefile("rw")
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.replies: queue.Queue[dict[str, Any]] = queue.Queue()
        self.link: queue.Queue[tuple[str, str]] = queue.Queue()
        self.hello = self._read_control()
        self.points: list[str] = self.hello["points"]
        self.occupied: set[str] = set(self.hello["occupied"])
        self._stop = False
        threading.Thread(target=self._control_reader, daemon=True).start()
        threading.Thread(target=self._link_reader, daemon=True).start()
        # The firmware reports its first stable position (even an empty board) once
        # stable_ms have passed: act only after the app has seen the start.
        self.wait_stable()

    def _stderr(self) -> str:
        if self.proc.poll() is None:
            self.proc.kill()
        _, err = self.proc.communicate(timeout=5)
        return err.decode(errors="replace")[-3000:]

    def _read_control(self) -> dict[str, Any]:
        line = self.control.readline()
        if not line:
            raise RuntimeError("control channel closed")
        data: dict[str, Any] = json.loads(line)
        return data

    def _control_reader(self) -> None:
        while not self._stop:
            try:
                obj = self._read_control()
            except (OSError, ValueError, RuntimeError):
                return
            if "reply" in obj:
                self.replies.put(obj)
            elif obj.get("event") in ("stable", "leds"):
                self.events.put(obj)

    def _link_reader(self) -> None:
        buf = b""
        while not self._stop:
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if not ready:
                continue
            try:
                data = os.read(self.master, 4096)
            except OSError:
                return
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                line = line.strip()
                if not line.startswith(b"~"):
                    continue
                try:
                    _seq, verb, body, _checked = codec.decode(line)
                except codec.FrameError:
                    continue
                self.link.put((verb, body))

    def close(self, power_cut: bool = False) -> None:
        self._stop = True
        self.sock.close()
        if self.proc.poll() is None:
            if power_cut:
                self.proc.kill()  # no clean shutdown: as a power cut
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()  # type: ignore[union-attr]
        self.proc.stderr.close()  # type: ignore[union-attr]
        os.close(self.master)
        os.close(self.slave)

    # -- the hand ---------------------------------------------------------------------
    def command(self, text: str) -> dict[str, Any]:
        self.control.write(text + "\n")
        self.control.flush()
        reply = self.replies.get(timeout=10)
        assert reply.get("ok"), (text, reply)
        return reply

    def gesture(self, lift: list[str] = (), place: list[str] = ()) -> None:  # type: ignore[assignment]
        """Lift and place pieces at once, then wait until the firmware reports the
        position stable."""
        if lift:
            self.command("lift " + " ".join(lift))
            self.occupied -= set(lift)
        if place:
            self.command("place " + " ".join(place))
            self.occupied |= set(place)
        self.wait_stable()

    def wait_stable(self, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("the board never reported %s stable" % sorted(self.occupied))
            event = self.events.get(timeout=left)
            if event.get("event") == "stable" and set(event["occupied"]) == self.occupied:
                return

    def wait_link(self, verb: str, contains: str = "", timeout: float = 10) -> str:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no %s %r frame on the link" % (verb, contains))
            got, body = self.link.get(timeout=left)
            if got == verb and contains in body:
                return body

    def set_up(self, game: Any) -> None:
        names = game.geometry.names
        occ = game.occupancy()
        want = [names[i] for i in range(len(names)) if occ[i]]
        self.command("set " + " ".join(want))
        self.occupied = set(want)
        self.wait_stable()


def _layout(board: str, tmp: Path, fast: bool) -> Path:
    path = LAYOUTS / (board + ".json")
    if not fast:
        return path
    data = json.loads(path.read_text())
    data["timing"] = FAST
    out = tmp / (board + "-fast.json")
    out.write_text(json.dumps(data))
    return out


def _random_game(ruleset: str, seed: int, limit: int = 300) -> list[str]:
    rnd = random.Random(seed)
    game = zuni.new_game(ruleset)
    texts: list[str] = []
    while len(texts) < limit:
        moves = game.legal_moves()
        if not moves:
            break
        captures = [m for m in moves if m.captures]
        move = rnd.choice(captures) if captures and rnd.random() < 0.8 else rnd.choice(moves)
        texts.append(move.text())
        game.push(move)
    return texts


def _gestures(game: Any, move: Any, style: int) -> Iterator[tuple[list[str], list[str]]]:
    """The lifts and places of one move, in one of several orders a player uses."""
    names = game.geometry.names
    origin, dest = move.origin, move.dest
    caps = [names[c] for c in move.captures if c != dest]
    if dest == origin or dest < 0:
        landing: list[str] = []
    else:
        landing = [names[dest]]
    lifted_dest = [names[dest]] if dest in move.captures and dest != origin else []
    if origin < 0:  # a drop
        yield ([], landing)
        if caps:
            yield (caps, [])
        return
    src = [names[origin]]
    if dest == origin:  # a chain back to its origin: the mover is lifted and put back
        if style == 0:
            yield (src, [])
            yield ([], src)
        if caps:
            yield (caps, [])
        return
    if style == 0:  # mover first, then the captured pieces one by one
        yield (src + lifted_dest, [])
        if landing:
            yield ([], landing)
        for c in caps:
            yield ([c], [])
    elif style == 1:  # captured pieces first, then the mover
        if caps:
            yield (caps + lifted_dest, [])
            yield (src, landing)
        else:
            yield (src + lifted_dest, landing)
    else:  # both hands: everything in one gesture
        yield (src + caps + lifted_dest, landing)


def _extendable(game: Any, move: Any) -> bool:
    """True when another legal move continues this one's path (an optional chain)."""
    path = move.path
    return any(len(m.path) > len(path) and m.path[: len(path)] == path for m in game.legal_moves())


def _play(board: VirtualBoard, ruleset: str, texts: list[str]) -> None:
    game = zuni.new_game(ruleset)
    board.set_up(game)
    for index, text in enumerate(texts):
        move = game.parse_move(text)
        if move.kind == zuni.PASS:
            board.wait_link("move", " %d pass " % index)
            game.push(move)
            continue
        for lift, place in _gestures(game, move, index % 3):
            board.gesture(lift, place)
        if _extendable(game, move):
            board.command("press ok")
        body = board.wait_link("move", " %d " % index)
        committed = game.parse_move(body.split()[2])
        if committed != move:
            # Two paths with the same effect and the same landings: either is right
            # (BOARD.md), the position after them is the same.
            twin = game.copy()
            twin.push(committed)
            game.push(move)
            assert twin.key() == game.key(), "committed %s for %s" % (committed, text)
        else:
            game.push(move)


# (ruleset, board, faster clock, seed): seeds picked for games that end by the rules
# (no pieces, no moves, blocked) in few moves; the 4-player game has priest drops and
# forced passes.
GAMES = [
    ("mosona", "board25", False, 23),
    ("kolowis size=short", "board25", False, 38),
    ("mosona board=open", "board25", True, 16),
    ("kolowis size=short chain=forced", "board25", True, 34),
    ("kolowis", "board49", True, 25),
    ("awithlaknakwe", "board168", True, 7),
    ("awithlaknakwe players=4 teams=combined", "board168", True, 15),
]


@pytest.fixture
def tmp(tmp_path: Path) -> Path:
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize("ruleset,board_name,fast,seed", GAMES, ids=[g[0] for g in GAMES])
def test_full_game_with_lifts_and_places(ruleset: str, board_name: str, fast: bool, seed: int, tmp: Path) -> None:
    texts = _random_game(ruleset, seed, 400)
    game = zuni.new_game(ruleset)
    for t in texts:
        game.push_text(t)
    assert game.is_game_over(), "the scripted game must be a whole game"
    board = VirtualBoard(_layout(board_name, tmp, fast), ruleset, tmp)
    try:
        _play(board, ruleset, texts)
        body = board.wait_link("event", "over")
        outcome = game.outcome()
        assert outcome is not None
        assert body.split()[:3] == ["over", outcome.result, outcome.termination], body
    finally:
        board.close()


def test_mistake_is_shown_and_restoring_recovers(tmp: Path) -> None:
    board = VirtualBoard(LAYOUTS / "board25.json", "mosona", tmp)
    try:
        game = zuni.new_game("mosona")
        board.set_up(game)
        # A piece that may not move goes to a wrong point: an error after error_ms.
        board.gesture(["s1"], ["m5"])
        body = board.wait_link("event", "error", timeout=5)
        assert "s1" in body and "m5" in body, body
        board.gesture(["m5"], ["s1"])
        # The right move is then taken normally.
        board.gesture(["s3"], [])
        board.gesture(["m4"], ["m5"])
        board.wait_link("move", " 0 s3xm4-m5 ")
        # Take-back by putting the pieces back as they were.
        board.gesture(["m5"], ["s3", "m4"])
        board.wait_link("event", "takeback")
        board.gesture(["s3", "m4"], ["m5"])
        board.wait_link("move", " 0 s3xm4-m5 ")
    finally:
        board.close()


def test_sliding_across_points_is_not_seen(tmp: Path) -> None:
    board = VirtualBoard(LAYOUTS / "board25.json", "mosona", tmp)
    try:
        board.set_up(zuni.new_game("mosona"))
        board.command("lift s3")
        board.occupied.discard("s3")
        board.wait_stable()
        # The piece brushes over m4's neighbour m5 and away again faster than stable_ms,
        # then lands: only the landing is ever reported.
        board.command("place m5")
        board.command("lift m5")
        board.command("place m5")
        board.occupied.add("m5")
        board.wait_stable()
        board.gesture(["m4"], [])
        board.wait_link("move", " 0 s3xm4-m5 ")
    finally:
        board.close()


def test_power_cut_then_the_game_resumes_from_the_journal(tmp: Path) -> None:
    texts = ["s3xm4-m5", "n5xm5-m4", "m7xn6-n5"]
    board = VirtualBoard(LAYOUTS / "board25.json", "mosona", tmp)
    try:
        _play(board, "mosona", texts)
        occupied = sorted(board.occupied)
    finally:
        board.close(power_cut=True)
    # Power comes back with the pieces where they were: the journal's game goes on.
    board = VirtualBoard(LAYOUTS / "board25.json", "mosona", tmp, occupied)
    try:
        hello = board.wait_link("hello")
        assert "moves=3" in hello, hello
        game = zuni.new_game("mosona")
        for t in texts:
            game.push_text(t)
        move = game.legal_moves()[0]
        for lift, place in _gestures(game, move, 2):
            board.gesture(lift, place)
        if _extendable(game, move):
            board.command("press ok")
        board.wait_link("move", " 3 ")
    finally:
        board.close()
