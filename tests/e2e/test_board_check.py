"""`zuni board check`: its bookkeeping (BringUp: events in, live map and report out), and
the whole check end to end against the virtual board (the real firmware)."""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from play_helpers import sigint_default

from zuniboard.commands.board_check import FLICKER_CHANGES, BringUp, WalkClock
from zuniboard.games.layouts import board_geometry
from zuniboard.link.events import Disconnected
from zuniboard.virtual import board as sim
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_executable

ZUNI = Path(sys.executable).parent / "zuni"


def _all_tried(b: BringUp) -> None:
    for i, name in enumerate(b.geometry.names):
        b.raw("+" + name, now=i * 10.0)
        b.raw("-" + name, now=i * 10.0 + 1)


def test_a_good_board_reports_nothing() -> None:
    b = BringUp(board_geometry("mosona"))
    _all_tried(b)
    assert b.report(board_empty=True) == []
    assert "25 of 25 points tried" in b.render()


def test_untried_and_stuck_points_are_named() -> None:
    b = BringUp(board_geometry("mosona"))
    b.raw("+m5", now=0.0)
    report = b.report(board_empty=True)
    assert report[0].startswith("never changed") and "m1" in report[0] and " m5" not in report[0]
    assert report[1] == "occupied on the empty board (switch stuck closed, or a magnet nearby): m5"


def test_a_first_lift_means_the_point_was_occupied() -> None:
    b = BringUp(board_geometry("mosona"))
    b.raw("-s3", now=0.0)
    assert b.points["s3"].changes == 1 and not b.points["s3"].occupied


def test_flicker_and_coupled_points() -> None:
    b = BringUp(board_geometry("kolowis"))
    _all_tried(b)
    for k in range(FLICKER_CHANGES):
        b.raw(("+" if k % 2 == 0 else "-") + "m7", now=1000 + k * 0.1)
    b.raw("+n3 +n4", now=2000.0)
    b.raw("-n3 -n4", now=2001.0)
    report = b.report(board_empty=False)
    assert any(line.startswith("flickering") and line.endswith(": m7") for line in report), report
    assert any(line.endswith(": n3+n4") for line in report), report


def test_unknown_tokens_are_reported() -> None:
    b = BringUp(board_geometry("mosona"))
    _all_tried(b)
    b.raw("+z9 m3", now=5.0)
    assert b.report(board_empty=False) == ["events naming no point of this board: +z9 m3"]


def test_live_map_draws_the_square_board() -> None:
    b = BringUp(board_geometry("awithlaknakwe"))
    b.raw("+e1", now=0.0)
    b.raw("+b2 -e1", now=1.0)
    lines = b.render().splitlines()
    assert len(lines) == 14 + 1
    # South is the bottom row: e1 (tried, now empty) is the first of six squares.
    assert lines[13].split() == ["o", ".", ".", ".", ".", "."]
    assert lines[12].split()[0] == "#"
    assert lines[-1] == "2 of 168 points tried"


def test_a_snapshot_finds_a_stuck_switch_without_clearing_the_board() -> None:
    b = BringUp(board_geometry("mosona"), ("ok", "back", "hint"))
    bits = ["0"] * 25
    names = b.geometry.names
    bits[names.index("m5")] = bits[names.index("s3")] = "1"
    assert b.snapshot("".join(bits)) == sorted(["m5", "s3"], key=names.index)
    _all_tried(b)  # every point but ...
    b.points["m5"].changes = 0  # ... m5 never moved: its switch is stuck
    for button in ("ok", "hint"):
        b.button(button)
    report = b.report(board_empty=False)
    assert report[0].startswith("occupied from the start and never lifted") and report[0].endswith(": m5"), report
    assert report[1] == "buttons never pressed (not wired to GND, wrong pin, or not tried): back"
    assert len(report) == 2, "m5 is not also listed as never changed"


def test_a_snapshot_that_does_not_fit_is_reported() -> None:
    b = BringUp(board_geometry("mosona"))
    assert b.snapshot("0101") == [] and b.at_start is None
    assert any(line.startswith("events naming no point") for line in b.report(board_empty=False))


# -- end to end: `zuni board check` against the virtual board --------------------------


def _lines(proc: subprocess.Popen[str], out: queue.Queue[str]) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        out.put(line.rstrip("\n"))
    out.put("<EOF>")


class _Output:
    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self._q: queue.Queue[str] = queue.Queue()
        threading.Thread(target=_lines, args=(proc, self._q), daemon=True).start()

    def wait(self, predicate: Callable[[str], bool], timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        for line in self.lines:
            if predicate(line):
                return line
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no such line within %.0f s; output:\n%s" % (timeout, "\n".join(self.lines)))
            try:
                line = self._q.get(timeout=left)
            except queue.Empty:
                continue
            if line == "<EOF>":
                raise AssertionError("the check ended; output:\n%s" % "\n".join(self.lines))
            self.lines.append(line)
            if predicate(line):
                return line

    def drain(self, timeout: float = 10.0) -> str:
        """Everything up to the end of the output (the process has ended)."""
        while True:
            line = self._q.get(timeout=timeout)
            if line == "<EOF>":
                return "\n".join(self.lines)
            self.lines.append(line)


def test_board_check_on_the_virtual_board(tmp_path: Path) -> None:
    """The whole bring-up on the real firmware: the LED walk arrives in chain order (and
    the LEDs show it: one white point at a time), all three buttons are seen, and a switch
    closed at power-on is reported as stuck without clearing the board."""
    try:
        micropython_executable()
    except MicroPythonMissing as exc:
        pytest.skip(str(exc))
    with sim.VirtualBoard("board25", pieces={"m5"}, flash=tmp_path / "flash.img") as vb:
        vb.wait_until(lambda b: b.stable == {"m5"})  # the firmware sensed it (the snapshot will say so)
        start = vb.mark()
        proc = subprocess.Popen(
            [str(ZUNI), "board", "check", vb.port_path, "--walk-ms", "40", "--seconds", "60"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            preexec_fn=sigint_default,  # the maker's Ctrl-C, whatever the test worker ignores
        )
        try:
            out = _Output(proc)
            out.wait(lambda line: line.startswith("board: layout board25"))
            out.wait(lambda line: line.startswith("LED walk: 25 LEDs reported in chain order"))
            out.wait(lambda line: line.startswith("occupied now: m5"))
            for button in ("ok", "back", "hint"):
                vb.press(button)
                out.wait(lambda line, b=button: line == "button: " + b)
            vb.place("s1")
            out.wait(lambda line: line == "+s1")
            vb.lift("s1")
            out.wait(lambda line: line == "-s1")
            proc.send_signal(signal.SIGINT)  # the maker's Ctrl-C ends the live map
            proc.wait(timeout=60)  # generous: under load a clean stop has taken over 20 s
            text = out.drain()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        walked = [ln.split(":")[1].strip() for ln in out.lines if ln.startswith("  LED ")]
        chain = sorted(vb.layout.points, key=lambda name: vb.layout.points[name][1])
        assert walked == chain, walked
        assert next(line for line in out.lines if line.startswith("  LED ")) == "  LED   0: " + chain[0]
        # The LEDs themselves: each frame with one lit point, white, in chain order.
        lit = []
        for event in vb.events[start:]:
            if event.get("event") == "leds":
                frame = sim.parse_frame(event["frame"], vb.names)
                on = [name for name, rgb in frame.items() if any(rgb)]
                if len(on) == 1 and frame[on[0]] == (255, 255, 255):
                    lit.append(on[0])
        assert lit == chain, lit
        assert "buttons seen: ok back hint" in text, text
        assert (
            "PROBLEM: occupied from the start and never lifted (switch stuck closed, a short to GND, or a piece"
            " or magnet left there): m5" in text
        ), text
        never = next(line for line in out.lines if line.startswith("PROBLEM: never changed"))
        assert " s1" not in never and "m5" not in never, never
        assert "PROBLEM: buttons never pressed" not in text
        assert proc.returncode == 1, "problems found: exit status 1"
        assert ", id virtual-" in out.lines[0], out.lines[0]


def test_the_virtual_board_keeps_its_id_on_its_flash(tmp_path: Path) -> None:
    """The id the check prints (and zuni play logs games under): made at the first boot
    of a flash image, the same after a restart, another for another flash image."""
    try:
        micropython_executable()
    except MicroPythonMissing as exc:
        pytest.skip(str(exc))
    from zuniboard.link.client import BoardLink

    ids = []
    with sim.VirtualBoard("board25", flash=tmp_path / "a.img") as vb:
        for _ in range(2):
            with BoardLink.open(vb.port_path, timeout=10.0) as link:
                ids.append(link.board_id)
            if len(ids) == 1:
                vb.restart()  # a power cut: same flash
    with sim.VirtualBoard("board25", flash=tmp_path / "b.img") as vb, BoardLink.open(vb.port_path, 10.0) as link:
        ids.append(link.board_id)
    assert ids[0].startswith("virtual-") and len(ids[0]) == len("virtual-") + 16, ids
    assert ids[1] == ids[0], "the same flash: the same board"
    assert ids[2] != ids[0], "another flash image: another board"


# -- margins for a slow or busy board: the walk's deadline, the link's silence limit ------


def test_the_walk_waits_for_a_board_slower_than_its_pace() -> None:
    """board168 at 250 ms a step on an RP2040: each step lasts about 285 ms (rounded up to
    the 10 ms scan, plus leds.show's 23.5 ms for 168 LEDs). The walk takes 47.9 s, more
    than the old fixed deadline (168 x 0.25 + 5 = 47 s), and it is a working board."""
    from zuniboard.link.client import SILENCE_S

    leds, step_ms, real_step = 168, 250, 0.285
    clock = WalkClock(leds, step_ms, SILENCE_S, now=0.0)
    assert leds * real_step > leds * step_ms / 1000 + 5.0  # the old deadline gave up on it
    for i in range(leds + 2):  # start, every LED, end
        now = i * real_step
        assert not clock.expired(now), i
        clock.progress(now)
    # A busy moment: one step 7 s late (the link waits that long too) is still a walk.
    clock = WalkClock(25, 40, SILENCE_S, now=0.0)
    clock.progress(0.04)
    assert not clock.expired(7.04)
    clock.progress(7.04)
    assert not clock.expired(7.08)


def test_the_walk_gives_up_on_a_board_that_stops() -> None:
    from zuniboard.link.client import SILENCE_S

    clock = WalkClock(25, 250, SILENCE_S, now=100.0)
    clock.progress(101.0)  # a few steps, then nothing
    assert not clock.expired(101.0 + 0.25 + SILENCE_S)
    assert clock.expired(101.0 + 0.25 + SILENCE_S + 0.01)
    # A board that reports steps without end (more than its LEDs) is cut off too.
    clock = WalkClock(25, 20, 8.0, now=0.0)
    now = 0.0
    while not clock.expired(now):
        clock.progress(now)
        now += 0.5
        assert now < 1000
    assert now > 26 * (0.02 + 8.0) - 1


class LateBoard:
    """A board on a port (what BoardLink reads and writes) that answers hello and then
    beats late: gaps of ``gaps`` seconds between its frames, as a busy board's or a
    starved virtual board's. Real frames of the link's codec; time is real."""

    def __init__(self, gaps: list[float]) -> None:
        from zuni_link import codec

        self.codec = codec
        self.out = bytearray()
        self.lock = threading.Lock()
        self.gaps = list(gaps)
        self.next_beat: float | None = None

    @property
    def in_waiting(self) -> int:
        self._tick()
        return len(self.out)

    def _frame(self, verb: str, body: str) -> None:
        self.out += self.codec.encode(1, verb, body)

    def _tick(self) -> None:
        with self.lock:
            if self.next_beat is not None and time.monotonic() >= self.next_beat:
                self._frame("beat", " 0 %s" % self.codec.hex8(self.codec.digest_seed("")))
                self.next_beat = time.monotonic() + self.gaps.pop(0) if self.gaps else None

    def read(self, size: int = 1) -> bytes:
        self._tick()
        with self.lock:
            if not self.out:
                time.sleep(0.02)
                return b""
            data = bytes(self.out[:size])
            del self.out[:size]
            return data

    def write(self, data: bytes) -> int:
        for line in bytes(data).splitlines():
            seq, verb, _body, _ = self.codec.decode(line)
            if verb == "hello":
                kv = [
                    ("re", str(seq)), ("proto", str(self.codec.PROTO)), ("fw", "0.1.0"), ("layout", "board25"),
                    ("game", ""), ("moves", "0"), ("digest", self.codec.hex8(self.codec.digest_seed(""))),
                    ("boot", "late-1"),
                ]  # fmt: skip
                with self.lock:
                    self._frame("hello", self.codec.kv_encode(kv))
                    if self.next_beat is None and self.gaps:
                        self.next_beat = time.monotonic() + self.gaps.pop(0)
        return len(data)

    def close(self) -> None:
        pass


def test_the_link_keeps_a_board_that_beats_late() -> None:
    """Two beats lost (6 s without a frame, where the board beats every 2 s) is a busy
    board, not a gone one: the link stays connected (the old 5 s limit reopened it)."""
    from zuniboard.link.client import BoardLink

    board = LateBoard([0.5, 6.0, 0.5])
    link = BoardLink("late://board", opener=lambda url: board)
    link.start()
    try:
        assert link.wait_connected(5.0)
        deadline = time.monotonic() + 7.2
        while time.monotonic() < deadline:
            assert link.connected, "the link dropped the board: %s" % list(link.console)
            time.sleep(0.05)
        assert link.stats.reconnects == 0
        assert not [e for e in list(link.events.queue) if isinstance(e, Disconnected)]
    finally:
        link.close()


def test_the_silence_limit_leaves_three_of_the_firmwares_beats() -> None:
    from zuni_link.session import BEAT_MS
    from zuniboard.link.client import SILENCE_S

    assert SILENCE_S >= 4 * BEAT_MS / 1000, "a board may miss three beats before the host reopens its port"
