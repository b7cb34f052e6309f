"""`zuni tablebase`: the line games' endgame tables (perfect play, "win in N" hints).

    zuni tablebase status                  what is built, where, how big
    zuni tablebase build mosona            Mosona up to 5 pieces (minutes; says how long first)
    zuni tablebase build kolowis --pieces 3
    zuni tablebase build                   the default rules of every line game

`zuni play` builds the small tables (up to 4 pieces on the 25-point boards, 3 on
Kolowis long: seconds) by itself the first time a ruleset is played; this command
builds the bigger ones. Tables live in the user data directory ($ZUNI_TABLEBASE_DIR to
put them elsewhere); one builder at a time per ruleset, damaged files are built again.
"""

from __future__ import annotations

import argparse
import os
import time

import zuni
from zuniboard.ai import tablebase
from zuniboard.errors import UsageError
from zuniboard.paths import FolderError, cannot_write, check_writable


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "tablebase",
        help="the line games' endgame tables: status, build",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="tablebase_command", metavar="ACTION")
    status = sub.add_parser("status", help="what is built, where, how big")
    status.add_argument("ruleset", nargs="?", default=None, help="one ruleset (default: every one on disk)")
    status.set_defaults(func=run_status)
    build = sub.add_parser("build", help="build the tables of a ruleset (says the time and space first)")
    build.add_argument("ruleset", nargs="?", default=None, help="a line-game ruleset (default: each game's defaults)")
    build.add_argument("--pieces", type=int, default=None, help="pieces in all, at most (default 5; Kolowis long 4)")
    build.add_argument("--force", action="store_true", help="build even when it needs more memory than there is")
    build.add_argument(
        "--first-use",
        action="store_true",
        help=argparse.SUPPRESS,  # zuni play's background builder: low priority, gives way to another builder
    )
    build.set_defaults(func=run_build)

    def usage(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(func=usage)


def _ruleset(text: str) -> str:
    try:
        game = zuni.new_game(text)
    except zuni.RulesetError as exc:
        raise UsageError("ruleset %r: %s" % (text, exc))
    if game.ruleset.game_id == "awithlaknakwe":
        raise UsageError("ruleset %r: endgame tables are for the line games (mosona, kolowis)" % text)
    return str(game.ruleset)


def run_build(args: argparse.Namespace) -> int:
    if args.ruleset is not None:
        ruleset = _ruleset(args.ruleset)
        jobs = [(ruleset, args.pieces or tablebase.default_pieces(ruleset))]
    else:
        jobs = [(r, args.pieces or p) for r, p in tablebase.DEFAULT_SET]
    for _, pieces in jobs:
        if not 2 <= pieces <= 8:
            raise UsageError("--pieces %d: give 2..8 (pieces of both sides in all)" % pieces)
    if args.first_use and hasattr(os, "nice"):
        os.nice(10)  # behind the game being played
    for ruleset, pieces in jobs:
        where = tablebase.ruleset_dir(ruleset)
        try:
            check_writable(where, "the endgame tables", TABLES_SETTING)
            status = _build_one(ruleset, pieces, args.first_use, args.force)
        except FolderError as exc:
            raise UsageError(str(exc)) from None
        except OSError as exc:  # a disk that fills up while building: the tables built so far stay
            raise UsageError(cannot_write(where, "the endgame tables", exc, TABLES_SETTING)) from None
        if status:
            return status
    return 0


TABLES_SETTING = "$ZUNI_TABLEBASE_DIR (or $XDG_DATA_HOME) to another folder"


def physical_memory() -> int:
    """The computer's memory in bytes (0 where the system does not say)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return 0


def _build_one(ruleset: str, pieces: int, first_use: bool, force: bool) -> int:
    est = tablebase.estimate(ruleset, pieces)
    where = tablebase.ruleset_dir(ruleset)
    gaps = tablebase.missing(ruleset, pieces)
    if not gaps:
        print("%s: the tables up to %d pieces are built (%s)" % (ruleset, pieces, where), flush=True)
        return 0
    print(est.text, flush=True)
    if not force and not _fits_memory(ruleset, pieces, est.memory_bytes):
        return 1
    kept = len(tablebase.balances(pieces)) - len(gaps)
    if kept:
        print("  %d of the %d tables are built already: kept" % (kept, len(tablebase.balances(pieces))), flush=True)
    start = time.monotonic()
    cpu = time.process_time()
    done = [0]

    def progress(text: str) -> None:
        if " positions in " in text:  # a table built (not "built again: ...", "writing ...")
            done[0] += 1
            text = "[%d/%d] %s" % (done[0], len(gaps), text)
        print("  %s (%.0f s)" % (text, time.monotonic() - start), flush=True)

    try:
        try:
            tablebase.ensure(ruleset, pieces, progress, wait=False)
        except tablebase.BuildBusy as exc:
            if first_use:
                print("%s: %s; it will finish them" % (ruleset, exc), flush=True)
                return tablebase.BUSY_EXIT
            print("  %s: waiting for it" % exc, flush=True)
            tablebase.ensure(ruleset, pieces, progress, wait=True)
    except MemoryError:
        print("%s: out of memory building up to %d pieces: try --pieces %d" % (ruleset, pieces, pieces - 1))
        return 1
    print(_built_words(ruleset, pieces, time.monotonic() - start, time.process_time() - cpu, where), flush=True)
    return 0


def _fits_memory(ruleset: str, pieces: int, memory_bytes: int) -> bool:
    """Whether the tables up to ``pieces`` fit this computer's memory; says so when not."""
    memory = physical_memory()
    if not memory or memory_bytes <= 0.8 * memory:
        return True
    fits = [p for p in range(2, pieces) if tablebase.estimate(ruleset, p).memory_bytes <= 0.8 * memory]
    print(
        "%s: not built: it needs about %s of memory and this computer has %s (%s; --force tries anyway)"
        % (
            ruleset,
            tablebase.bytes_text(memory_bytes),
            tablebase.bytes_text(memory),
            "--pieces %d fits" % fits[-1] if fits else "no tables fit",
        ),
        flush=True,
    )
    return False


def _built_words(ruleset: str, pieces: int, seconds: float, cpu_seconds: float, where: object) -> str:
    info = tablebase.describe(ruleset)
    mapped = ""
    if info["mapped_bytes"]:
        mapped = " (%s of tables and %s of their values uncompressed, read in play)" % (
            tablebase.bytes_text(info["bytes"]),
            tablebase.bytes_text(info["mapped_bytes"]),
        )
    return "%s: up to %d pieces built in %.0f s (%.0f s of CPU); %s on disk in all%s in %s" % (
        ruleset,
        pieces,
        seconds,
        cpu_seconds,
        tablebase.bytes_text(tablebase.folder_bytes(ruleset)),
        mapped,
        where,
    )


def run_status(args: argparse.Namespace) -> int:
    root = tablebase.data_dir()
    if args.ruleset is not None:
        rulesets = [_ruleset(args.ruleset)]
    else:
        rulesets = sorted(_rulesets_on_disk())
    print("endgame tables in %s" % root)
    if not rulesets:
        print("  none yet: `zuni play` builds the small ones of a ruleset when it is first played;")
        print("  `zuni tablebase build RULESET` builds up to 5 pieces")
        return 0
    for ruleset in rulesets:
        info = tablebase.describe(ruleset)
        complete = 0
        for p in range(2, 9):
            if tablebase.missing(ruleset, p):
                break
            complete = p
        line = "  %-28s " % ruleset
        usable = {"%dv%d" % b for b in tablebase.balances(complete)}
        tables = [t for t in info["tables"] if t["table"] in usable]
        if complete:
            line += "up to %d pieces, %s positions, %s" % (
                complete,
                "{:,}".format(sum(int(t["positions"]) for t in tables)),
                tablebase.bytes_text(sum(int(t["bytes"]) for t in tables)),
            )
            mapped = sum(int(t["mapped_bytes"]) for t in tables)
            if mapped:
                line += " (and %s uncompressed, read in play)" % tablebase.bytes_text(mapped)
        else:
            line += "none usable"
        print(line)
        # Everything in the folder, not only the usable tables: a stopped build's half
        # written files and tables of a bigger set not finished take room too.
        held = tablebase.folder_bytes(ruleset)
        counted = sum(int(t["bytes"]) + int(t["mapped_bytes"]) for t in tables)
        left = tablebase.leftovers(ruleset)
        if held > counted:
            print(
                "    the folder holds %s in all%s"
                % (
                    tablebase.bytes_text(held),
                    ": %s of it half-written files a stopped build left (the next build removes them)"
                    % tablebase.bytes_text(sum(p.stat().st_size for p in left if p.exists()))
                    if left
                    else "",
                )
            )
        for gap in tablebase.missing(ruleset, max(complete + 1, 2)):
            if "not built" not in gap:
                print("    %s" % gap)
    return 0


def _rulesets_on_disk() -> list[str]:
    """The rulesets with a table directory (their names are the rulesets, spaces as _)."""
    root = tablebase.data_dir()
    out: list[str] = []
    if not root.is_dir():
        return out
    for entry in sorted(root.iterdir()):
        if not entry.is_dir():
            continue
        text = entry.name.replace("_", " ").replace("-", "=")
        try:
            ruleset = str(zuni.parse_ruleset(text))
        except zuni.RulesetError:
            continue
        if tablebase.ruleset_dir(ruleset) == entry:
            out.append(ruleset)
    return out
