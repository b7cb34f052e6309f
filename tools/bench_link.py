"""Benchmark of the board link against the virtual board (the real firmware).

    .venv/bin/python tools/bench_link.py [--json] [--moves 200] [--pings 200] [--burst 500] [--hand 5]

The board side is firmware/main.py (BoardApp + BoardSession, journal on a littlefs
image) under the MicroPython unix port, started by ``zuniboard.sim.VirtualBoard`` with
the board25 layout and its real timing; the host side is ``zuniboard.link.BoardLink`` on
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
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import serial  # type: ignore[import-untyped, unused-ignore]

sys.path.insert(0, str(Path(__file__).resolve().parent))

from linkrig import JournalReader, long_game, occupied_points, write_journal

import zuni
from zuni_link import codec
from zuniboard import sim
from zuniboard.link import BoardLink

RULESET = "mosona quiet=1000"


Frames = list[tuple[str, str]]


def _read_frames(
    port: serial.Serial, asm: codec.LineAssembler, until: Callable[[Frames], bool], timeout: float
) -> Frames:
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

            # Round trip of one request at a time.
            link.ping()
            rtts = sorted(link.ping() for _ in range(pings))
            out["rtt_median_ms"] = statistics.median(rtts) * 1000
            out["rtt_p95_ms"] = rtts[max(0, int(len(rtts) * 0.95) - 1)] * 1000
            out["requests_per_s"] = pings / sum(rtts)

            # A move made by the hand, until the host has it (real timing).
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
            total = moves + hand_moves

            # Board reset under an open link: boot, hello re=0, hello, digest check.
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

            # Raw frames on the port (no BoardLink): pipelined pings, a `moves 0` stream.
            port = serial.serial_for_url(vb.port_path, baudrate=115200, timeout=0.01)
            try:
                asm = codec.LineAssembler()
                port.reset_input_buffer()
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
        finally:
            reader.close()
            vb.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--moves", type=int, default=200, help="length of the game to resync (default 200)")
    parser.add_argument("--pings", type=int, default=200, help="round trips to time (default 200)")
    parser.add_argument("--burst", type=int, default=500, help="pipelined pings (default 500)")
    parser.add_argument("--hand", type=int, default=5, help="moves made by the hand to time (default 5)")
    args = parser.parse_args(argv)
    for name in ("moves", "pings", "burst"):
        if getattr(args, name) < 1:
            parser.error("--%s must be at least 1, not %d" % (name, getattr(args, name)))
    if args.hand < 0:
        parser.error("--hand must be 0 or more, not %d" % args.hand)
    figures = run(args.moves, args.pings, args.burst, args.hand)
    if args.json:
        print(json.dumps(figures, indent=2, sort_keys=True))
    else:
        for key in sorted(figures):
            print("%-34s %10.3f" % (key, figures[key]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
