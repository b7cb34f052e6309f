"""Endgame tables on first use: the first `zuni play` of a line-game ruleset builds its
small tables (``tablebase.auto_pieces``: up to 4 pieces on the 25-point boards, 3 on
Kolowis long; seconds) in a background process, at low priority, and says so in one
line when it starts and when they are ready. The search, the hints and `zuni analyze`
use them from then on (``tablebase.for_ruleset`` sees new files). Bigger tables: `zuni
tablebase build`. ``$ZUNI_TABLEBASE_AUTO=0`` turns this off (the tests do, but for
their own tables).

The builder is `zuni tablebase build RULESET --pieces N --first-use`: a separate process
(the build is pure Python for seconds and would hold the interpreter lock against the
game's own threads), one per ruleset at a time across every zuni process
(``tablebase_store.BuildLock``); it writes each file atomically, and its output goes to
``build.log`` beside the tables.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

import zuni
from zuniboard.ai import tablebase

Say = Callable[[str, str], None]  # (kind, text), as PlayUI.message


@dataclass
class FirstUseBuild:
    """A builder process started by ``start_first_use_build``."""

    ruleset: str
    pieces: int
    proc: subprocess.Popen[bytes]
    watcher: threading.Thread

    def wait(self, timeout: float | None = None) -> int:
        code = self.proc.wait(timeout)
        self.watcher.join(timeout)
        return code


def start_first_use_build(ruleset: str, say: Say) -> FirstUseBuild | None:
    """Start building ``ruleset``'s small tables when they are not on disk (None when
    there is nothing to build: not a line game, built already, turned off)."""
    try:
        game = zuni.new_game(ruleset)
        if game.ruleset.game_id == "awithlaknakwe":
            return None
        canonical = str(game.ruleset)
        # Tables on disk start loading now, in a thread (Mosona's 5 pieces take seconds),
        # so that the first hint in an ending does not wait for them.
        tablebase.for_ruleset(canonical, wait=False)
        pieces = tablebase.auto_pieces(canonical)
        if pieces < 2 or not tablebase.missing(canonical, pieces):
            return None
        where = tablebase.ruleset_dir(canonical)
        where.mkdir(parents=True, exist_ok=True)
        log = open(where / "build.log", "ab")
    except (zuni.ZuniError, ValueError, OSError) as exc:
        say("info", "endgame tables for %s: not built (%s)" % (ruleset, exc))
        return None
    estimate = tablebase.estimate(canonical, pieces)
    command = [sys.executable, "-m", "zuniboard.cli", "tablebase", "build", canonical, "--pieces", str(pieces)]
    try:
        with log:
            proc = subprocess.Popen(
                [*command, "--first-use"], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
            )
    except OSError as exc:
        say("info", "endgame tables for %s: not built (%s)" % (canonical, exc))
        return None
    say(
        "info",
        "endgame tables for %s: building them up to %d pieces in the background (once; about %s, %s)"
        % (canonical, pieces, tablebase.duration_text(estimate.seconds), tablebase.bytes_text(estimate.disk_bytes)),
    )

    def watch() -> None:
        code = proc.wait()
        if code == 0:
            say(
                "info",
                'endgame tables for %s ready up to %d pieces: hints there say "win in N"; '
                "`zuni tablebase build` makes bigger ones" % (canonical, pieces),
            )
        elif code != tablebase.BUSY_EXIT:
            say("error", "endgame tables for %s: the builder failed (exit %d; see %s)" % (canonical, code, log.name))

    watcher = threading.Thread(target=watch, name="zuni-tablebase-build", daemon=True)
    watcher.start()
    return FirstUseBuild(canonical, pieces, proc, watcher)
