"""Benchmark of the board link: round trip, messages per second, resync of a long game.

    .venv/bin/python tools/bench_link.py [--json] [--moves 200] [--pings 200]

The board side is the real ``BoardSession`` under the MicroPython unix port
(tools/link_testboard.py, scanning every 5 ms or at once on input) behind a pty relay
(tools/linkrig.py, no faults); the host side is ``zuniboard.link.BoardLink`` on pyserial.
The figures are for this PC; an RP2040 runs the board side tens of times slower.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from linkrig import Relay, TestBoard

from zuniboard.link import BoardLink


def _wait(predicate: object, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise TimeoutError("benchmark step did not finish in %.0f s" % timeout)
        time.sleep(0.001)


def run(moves: int, pings: int) -> dict[str, float]:
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, Relay() as relay:
        with TestBoard(relay.board_path, Path(tmp) / "journal", ruleset="fake") as board:
            # A long game played while no host listens.
            board.play(moves)
            board.wait_idle(60)
            # Resync after (re)connect: from opening the port to holding every move.
            start = time.monotonic()
            link = BoardLink(relay.host_path)
            link.start()
            try:
                if not link.wait_moves(moves, 60) or not link.wait_synced(10):
                    raise TimeoutError("resync incomplete")
                out["resync_%d_moves_s" % moves] = time.monotonic() - start
                assert link.moves == board.dump()[3]

                # Round trip of a request (ping -> ok).
                link.ping()
                rtts = sorted(link.ping() for _ in range(pings))
                out["rtt_median_ms"] = statistics.median(rtts) * 1000
                out["rtt_p95_ms"] = rtts[int(len(rtts) * 0.95) - 1] * 1000
                out["requests_per_s"] = pings / sum(rtts)

                # Board -> host: moves committed one per scan, each acknowledged.
                n0 = len(link.moves)
                start = time.monotonic()
                board.play(moves)
                _wait(lambda: len(link.moves) >= n0 + moves, 60)
                out["moves_per_s"] = moves / (time.monotonic() - start)

                # Board -> host diagnostics: a burst of raw events through the bounded queue.
                while not link.events.empty():
                    link.events.get()
                burst = 400
                start = time.monotonic()
                board.send("flood %d" % burst)
                got = 0
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:
                    try:
                        event = link.events.get(timeout=0.3)
                    except Exception:
                        break
                    if event.kind == "raw":
                        got += 1
                out["raw_events_burst"] = burst
                out["raw_events_delivered"] = got
                stats = board.stats()
                out["board_dropped_frames"] = stats["dropped"]

                # Reconnect of a fresh host to the same long game.
                link.close()
                start = time.monotonic()
                link = BoardLink(relay.host_path)
                link.start()
                if not link.wait_moves(2 * moves, 60) or not link.wait_synced(10):
                    raise TimeoutError("second resync incomplete")
                out["resync_%d_moves_s" % (2 * moves)] = time.monotonic() - start
            finally:
                link.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--pings", type=int, default=200)
    args = parser.parse_args(argv)
    figures = run(args.moves, args.pings)
    if args.json:
        print(json.dumps(figures, indent=2, sort_keys=True))
    else:
        for key in sorted(figures):
            print("%-28s %10.3f" % (key, figures[key]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
