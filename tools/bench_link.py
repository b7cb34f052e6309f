"""Benchmark of the board link against the virtual board (the real firmware).

    .venv/bin/python tools/bench_link.py [--json] [--moves 200] [--pings 200] [--burst 500] [--hand 5]
        [--soak PLIES] [--seed N]

The board side is firmware/main.py (BoardApp + BoardSession, journal on a littlefs
image) under the MicroPython unix port, started by ``zuniboard.virtual.board.VirtualBoard`` with
the board25 layout and its real timing; the host side is ``zuniboard.link.client.BoardLink`` on
pyserial, on the board's pty (no relay).

The long game: ``--moves`` legal moves of ``mosona quiet=1000`` (the no-capture limit
raised so that a quiet game can last that long) are written into the flash image by the
firmware's own Journal code under MicroPython (tools/linkrig.write_journal), exactly
the records the board writes as it commits moves; at boot the firmware replays them
through the rules engine (a journal the rules reject is not resumed) and starts with
that game. Making them with the hand at real timing would take about a second each.

Figures (all wall-clock on this PC; an RP2040 runs the board side tens of times slower):

- ``boot_with_N_moves_s``: firmware start until its control channel answers (it has
  replayed the journal by then); ``boot_new_game_s`` the same with an empty journal.
- ``resync_N_moves_fresh_host_s``: a host that holds nothing opens the port until it
  holds every move and agrees on the digest (hello, ``moves 0`` stream, ack).
- ``resync_after_board_reset_s``: the board is power-cycled (SIGKILL, same flash) under an
  open link, until the host has heard the new boot and agrees again; ``boot_after_reset_s``
  is the part until the firmware's control channel answers (the host's link does its
  part meanwhile).
- ``rtt_median_ms`` / ``rtt_p95_ms`` / ``requests_per_s``: ``ping`` -> ``ok`` one at a time.
- ``pipelined_frames_per_s``: ``--burst`` pings with 8 in flight, a new one per reply
  (frames in both directions per second); ``pipelined_replies_lost`` should be 0.
- ``moves_streamed_per_s``: ``move`` frames per second of a ``moves 0`` reply.
- ``move_to_host_ms``: a move made by the hand (real timing: stable 150 ms, commit
  500 ms after the last change) until the host has it; median of ``--hand`` moves.
- ``scan_share_host_reading`` / ``scan_share_cable_pulled`` / ``scan_share_host_not_reading``:
  the board's scans a second while the player moves, as a share of its nominal rate
  (linkrig's fast clock, ``--scan-s`` seconds each): with the host there, with the cable
  pulled, and with the host holding the port open and reading nothing (600 pings
  unanswered). The board's loop never waits for the host: the three are alike (under a
  loaded machine all three fall together).

With ``--soak PLIES`` (docs/protocol.md, "What the link survives"): games against a
computer stand-in through the fault relay (tools/linkrig.py) at the worst line the
protocol claims to survive (every line delayed up to 2.5 s in order with probability
0.3, duplicates 3 %, drops 2 %, corruption 2 %, the cable pulled about every 150 lines
for 1.5 s), the board's layout with the fast clock, until PLIES moves were played (new
games as games end; a take-back by the host every 12 plies). The player carries out the
host's move as soon as the board shows it, while the host may still be resending it.

- ``soak_plies`` / ``soak_games`` / ``soak_takebacks``: what was played.
- ``soak_spurious_undos``: take-backs the host saw that nobody made (must be 0);
  ``soak_refusals``: host moves the board refused (must be 0); ``soak_request_timeouts``:
  host moves unanswered within the link's request timeout (must be 0); ``soak_takebacks_wrong``:
  host take-backs that did not take exactly one move back (must be 0);
  ``soak_mismatches``: games where the host's moves were not the board's journal (must be 0).
- ``soak_stale_reports``: reports the host ignored as older than its mirror (late replies,
  heartbeats queued behind moves: what protocol 1 read as take-backs).
- ``soak_request_max_s`` / ``soak_request_median_s``: a host move's round trip on that line.
- ``soak_lines_delayed`` / ``soak_unplugs`` / ``soak_resends``: the line's work.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import serial  # type: ignore[import-untyped, unused-ignore]

sys.path.insert(0, str(Path(__file__).resolve().parent))

from linkrig import (
    FAST_TIMING,
    Faults,
    FirmwareBoard,
    JournalReader,
    Relay,
    long_game,
    occupied_points,
    write_journal,
)

import zuni
from zuni_link import codec
from zuniboard.link.client import BoardError, BoardLink, LinkError, SerialPort
from zuniboard.link.events import Undone
from zuniboard.link.port import SocketURLPort, no_nagle
from zuniboard.virtual import board as sim

RULESET = "mosona quiet=1000"


Frames = list[tuple[str, str]]


def _read_frames(port: SerialPort, asm: codec.LineAssembler, until: Callable[[Frames], bool], timeout: float) -> Frames:
    """Frames (verb, body) read from ``port`` until ``until(frames)`` is true or ``timeout``."""
    frames: Frames = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not until(frames):
        data = port.read(max(1, port.in_waiting))
        pos = 0
        while pos < len(data):
            pos = asm.push(data, pos, len(data))
            if asm.ready == codec.LINE:
                line = bytes(asm.line())
                if line.startswith(b"~"):
                    _, verb, body, _ = codec.decode(line)
                    frames.append((verb, body))
    return frames


def run(moves: int, pings: int, burst: int, hand_moves: int) -> dict[str, float]:
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        flash = Path(tmp) / "flash.img"
        t0 = time.monotonic()
        texts = long_game(RULESET, moves)
        game_id = write_journal(flash, RULESET, texts)
        out["journal_written_s"] = time.monotonic() - t0
        game = zuni.new_game(RULESET)
        for text in texts:
            game.push_text(text)
        # The same board with nothing in its journal, for comparison.
        empty = sim.VirtualBoard("board25", RULESET, pieces="start", flash=Path(tmp) / "empty.img")
        t0 = time.monotonic()
        empty.start()
        out["boot_new_game_s"] = time.monotonic() - t0
        empty.close()
        vb = sim.VirtualBoard("board25", RULESET, pieces=occupied_points(game), flash=flash)
        t0 = time.monotonic()
        vb.start()
        out["boot_with_%d_moves_s" % moves] = time.monotonic() - t0
        reader = JournalReader()
        try:
            # A host that holds nothing: hello, the whole game streamed, ack.
            t0 = time.monotonic()
            link = BoardLink(vb.port_path)
            link.start()
            if not link.wait_moves(moves, 60) or not link.wait_synced(10):
                raise TimeoutError("resync incomplete: %d of %d moves" % (len(link.moves), moves))
            out["resync_%d_moves_fresh_host_s" % moves] = time.monotonic() - t0
            truth = reader.read(flash)
            if link.moves != texts or truth.moves != texts or link.game != game_id:
                raise AssertionError("the host's game is not the board's")

            _round_trips(link, pings, out)
            _hand_moves(vb, link, game, hand_moves, out)
            total = moves + hand_moves
            _board_reset(vb, link, total, out)
            _raw_frames(vb, burst, total, out)
        finally:
            reader.close()
            vb.close()
    return out


def _round_trips(link: BoardLink, pings: int, out: dict[str, float]) -> None:
    """Round trip of one request at a time."""
    link.ping()
    rtts = sorted(link.ping() for _ in range(pings))
    out["rtt_median_ms"] = statistics.median(rtts) * 1000
    out["rtt_p95_ms"] = rtts[max(0, int(len(rtts) * 0.95) - 1)] * 1000
    out["requests_per_s"] = pings / sum(rtts)


def _hand_moves(vb: sim.VirtualBoard, link: BoardLink, game: zuni.Game, hand_moves: int, out: dict[str, float]) -> None:
    """A move made by the hand, until the host has it (real timing)."""
    hand = sim.Hand(vb, seed=1)
    vb.wait_stable(occupied_points(game), 10)
    latencies = []
    for _ in range(hand_moves):
        move = game.legal_moves()[0]
        n = len(link.moves)
        hand.play(game, move.text())
        t0 = time.monotonic()
        game.push(move)
        if not link.wait_moves(n + 1, 10):
            raise TimeoutError("the hand's move did not reach the host")
        latencies.append(time.monotonic() - t0)
        vb.wait_stable(occupied_points(game), 10)
    if latencies:
        out["move_to_host_ms"] = statistics.median(latencies) * 1000


def _board_reset(vb: sim.VirtualBoard, link: BoardLink, total: int, out: dict[str, float]) -> None:
    """Board reset under an open link: boot, hello re=0, hello, digest check."""
    boot = link.hello.get("boot")
    t0 = time.monotonic()
    vb.restart()
    t_up = time.monotonic()
    deadline = t0 + 30
    while link.hello.get("boot") == boot or not link.synced():
        if time.monotonic() > deadline:
            raise TimeoutError("no resync after the board reset")
        time.sleep(0.001)
    out["resync_after_board_reset_s"] = time.monotonic() - t0
    out["boot_after_reset_s"] = t_up - t0
    if len(link.moves) != total:
        raise AssertionError("moves lost over the reset")
    link.close()


def _raw_frames(vb: sim.VirtualBoard, burst: int, total: int, out: dict[str, float]) -> None:
    """Raw frames on the port (no BoardLink): pipelined pings, a `moves 0` stream."""
    raw = serial.serial_for_url(vb.port_path, baudrate=115200, timeout=0.01)
    raw.reset_input_buffer()
    port: SerialPort = raw
    if vb.port_path.startswith("socket://"):  # as the link opens it (ZUNI_SIM_TRANSPORT=socket)
        no_nagle(raw)
        port = SocketURLPort(raw, raw._socket)
    try:
        asm = codec.LineAssembler()
        # Pipelined: `window` pings in flight, a new one sent per reply.
        window = 8
        sent = 0
        got = 0
        t0 = time.monotonic()
        deadline = t0 + 30
        while got < burst and time.monotonic() < deadline:
            while sent < burst and sent - got < window:
                sent += 1
                port.write(codec.encode(sent, "ping"))
            frames = _read_frames(port, asm, lambda f: bool(f), 0.5)
            got += sum(1 for v, _ in frames if v == "ok")
        elapsed = time.monotonic() - t0
        out["pipelined_frames_per_s"] = (sent + got) / elapsed
        out["pipelined_replies_lost"] = burst - got

        t0 = time.monotonic()
        port.write(codec.encode(9999, "moves", "0"))

        def streamed(frames: Frames) -> bool:
            return any(v == "ok" and b.startswith("9999 ") for v, b in frames)

        frames = _read_frames(port, asm, streamed, 30)
        elapsed = time.monotonic() - t0
        streamed_moves = [b for v, b in frames if v == "move"]
        if len(streamed_moves) != total:
            raise AssertionError("moves 0 streamed %d of %d moves" % (len(streamed_moves), total))
        out["moves_streamed_per_s"] = total / elapsed
    finally:
        port.close()


WORST_LINE = Faults(delay=0.3, max_delay_s=2.5, duplicate=0.03, drop=0.02, corrupt=0.02, unplug=1 / 150, unplug_s=1.5)


def _agrees(link: BoardLink, board: FirmwareBoard, timeout: float) -> bool:
    """The host's moves become the board's journal within ``timeout``."""
    truth = board.truth()
    deadline = time.monotonic() + timeout
    while link.moves != truth.moves or link.game != truth.game:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def scan_rates(seconds: float) -> dict[str, float]:
    """The board's scans a second, as a share of its nominal rate (linkrig's FAST_TIMING),
    with the host reading, with the cable pulled and with the host holding the port open
    and reading nothing: the board's loop never waits for the host (test_link_e2e checks
    the board's behaviour; the rates, wall-clock figures, are measured here)."""
    out: dict[str, float] = {}
    nominal = 1000.0 / FAST_TIMING["scan_ms"]
    with tempfile.TemporaryDirectory() as tmp, FirmwareBoard(Path(tmp), seed=7) as board:
        relay = board.link_relay

        link = _relay_link(relay)
        try:
            if not link.wait_connected(10):
                raise TimeoutError("no hello from the board")

            def rate(name: str, during: Callable[[], None]) -> None:
                s0 = board.stats()
                t0 = time.monotonic()
                during()
                s1 = board.stats()
                out["scan_share_%s" % name] = (s1["scans"] - s0["scans"]) / (time.monotonic() - t0) / nominal

            def moves(n: int) -> Callable[[], None]:
                return lambda: (board.play(n, wait=False), time.sleep(seconds))[-1]

            rate("host_reading", moves(2))
            relay.unplug(hard=True)
            rate("cable_pulled", moves(2))
            relay.replug()
            if not link.wait_synced(20):
                raise TimeoutError("no sync after the replug")
            relay.read_board = False
            for seq in range(40000, 40600):  # far more replies than the pty and the board's queue hold
                link.send_raw_line(codec.encode(seq, "ping"))
            rate("host_not_reading", moves(2))
            relay.read_board = True
        finally:
            link.close()
    return out


def _relay_link(relay: Relay) -> BoardLink:
    """A started host link on the relay's host side."""

    def opener(url: str) -> SerialPort:
        port: SerialPort = serial.serial_for_url(relay.host_path, baudrate=115200, timeout=0.05)
        return port

    link = BoardLink(relay.host_path, opener=opener)
    link.start()
    return link


def _take_back_goes_wrong(link: BoardLink, board: FirmwareBoard) -> bool:
    """The host takes the last move back; True if the board's journal did not lose it."""
    n = len(link.moves)
    link.take_back(timeout=20)
    board.take_back_applied()
    truth = board.truth()
    return len(truth.moves) != n - 1


def _undone_events(link: BoardLink) -> int:
    """The Undone events in the link's queue (emptied)."""
    events = []
    while not link.events.empty():
        events.append(link.events.get())
    return sum(1 for e in events if isinstance(e, Undone))


def _host_move_refused(
    link: BoardLink, board: FirmwareBoard, text: str, rtts: list[float], timeouts: list[str]
) -> bool:
    """The host asks the board for its move ``text`` (from a thread, while the board shows
    it); its round trip into ``rtts``, or ``text`` into ``timeouts``; True if the board refused."""
    result: list[BaseException | None] = []

    def ask(move: str = text, box: list[BaseException | None] = result) -> None:
        t0 = time.monotonic()
        try:
            link.host_move(move, timeout=20)
            rtts.append(time.monotonic() - t0)
            box.append(None)
        except BoardError as exc:
            box.append(exc)
        except LinkError:
            timeouts.append(move)
            box.append(None)

    asker = threading.Thread(target=ask)
    asker.start()
    deadline = time.monotonic() + 30
    while dict(board.vb.command("state?")).get("hostmove") != text:
        if time.monotonic() > deadline or (result and result[0] is not None):
            break
        time.sleep(0.01)
    asker.join(30)
    return bool(result and result[0] is not None)


def soak(plies: int, seed: int) -> dict[str, float]:
    """Games through the worst line (see the module's doc); the integrity figures."""
    out: dict[str, float] = {}
    spurious = refusals = takebacks = wrong_takebacks = mismatches = games = played = 0
    rtts: list[float] = []
    timeouts: list[str] = []
    with tempfile.TemporaryDirectory() as tmp, FirmwareBoard(Path(tmp), seed=seed, relay_seed=seed) as board:
        relay = board.link_relay

        link = _relay_link(relay)
        if not link.wait_connected(10):
            raise TimeoutError("no hello from the board")
        relay.set_faults(WORST_LINE, Faults(**vars(WORST_LINE)))
        expected_undos = 0
        try:
            link.new_game("mosona", timeout=20)
            board.new_game("mosona")
            while played < plies:
                game = board.game
                ply = len(game.move_stack)
                if game.is_game_over() or ply >= 60:
                    mismatches += not _agrees(link, board, 30)
                    games += 1
                    link.new_game("mosona", timeout=20)
                    board.new_game("mosona")
                    continue
                text = board.choose(keep_going=False)
                if game.turn == zuni.NORTH and _host_move_refused(link, board, text, rtts, timeouts):
                    refusals += 1
                    continue
                board.carry_out(text, timeout=30)
                played += 1
                if played % 12 == 0 and link.wait_moves(ply + 1, 20):
                    expected_undos += 1
                    takebacks += 1
                    wrong_takebacks += _take_back_goes_wrong(link, board)
            relay.set_faults(Faults(), Faults())
            mismatches += not _agrees(link, board, 30)
            spurious = max(0, _undone_events(link) - expected_undos)
            stats = link.stats
        finally:
            link.close()
        up, down = relay.stats_up, relay.stats_down
    out["soak_plies"] = played
    out["soak_games"] = games + 1
    out["soak_takebacks"] = takebacks
    out["soak_spurious_undos"] = spurious
    out["soak_refusals"] = refusals
    out["soak_request_timeouts"] = len(timeouts)
    out["soak_takebacks_wrong"] = wrong_takebacks
    out["soak_mismatches"] = mismatches
    out["soak_stale_reports"] = stats.stale
    out["soak_resends"] = stats.resends
    out["soak_request_max_s"] = max(rtts) if rtts else 0.0
    out["soak_request_median_s"] = statistics.median(rtts) if rtts else 0.0
    out["soak_lines_delayed"] = up.delayed + down.delayed
    out["soak_unplugs"] = up.unplugs + down.unplugs
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--moves", type=int, default=200, help="length of the game to resync (default 200)")
    parser.add_argument("--pings", type=int, default=200, help="round trips to time (default 200)")
    parser.add_argument("--burst", type=int, default=500, help="pipelined pings (default 500)")
    parser.add_argument("--hand", type=int, default=5, help="moves made by the hand to time (default 5)")
    parser.add_argument("--scan-s", type=float, default=2.0, help="seconds per scan-rate figure (default 2)")
    parser.add_argument("--soak", type=int, default=0, help="also play this many plies through the worst line")
    parser.add_argument("--soak-only", action="store_true", help="only the soak (with --soak)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the soak's line and player (default 7)")
    args = parser.parse_args(argv)
    for name in ("moves", "pings", "burst"):
        if getattr(args, name) < 1:
            parser.error("--%s must be at least 1, not %d" % (name, getattr(args, name)))
    if args.hand < 0:
        parser.error("--hand must be 0 or more, not %d" % args.hand)
    if args.soak < 0:
        parser.error("--soak must be 0 or more, not %d" % args.soak)
    figures = {} if args.soak_only else run(args.moves, args.pings, args.burst, args.hand)
    if not args.soak_only:
        figures.update(scan_rates(args.scan_s))
    if args.soak:
        figures.update(soak(args.soak, args.seed))
    if args.json:
        print(json.dumps(figures, indent=2, sort_keys=True))
    else:
        for key in sorted(figures):
            print("%-34s %10.3f" % (key, figures[key]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
