"""The board's own hint as it runs on the board: a ``hint.HintSearch`` given one slice a
scan, stopped at HINT_THINK_MS, and held back while a connected host may still send its
own (HOST_HINT_MS). ``play.Play`` makes one at HINT and drops it (with this module,
``hint`` and the evaluation: ``UNLOAD``) once the hint is shown or no longer wanted, so a
board whose players do not ask keeps that heap.
"""

from micropython import const
from zuni_board.hint import HintSearch
from zuni_board.ticks import Deadline

# Work per scan cycle, in the search's work units (hint.LEGAL = 4 a legal_moves() call,
# about 2.5-5.4 ms on an RP2040, MICROPYTHON-NOTES): with the loop's own 2.4-3.1 ms a
# scan stays within its 10 ms period while the board thinks (tools/bench_firmware.py's
# slice_us); and how long a connected host has to send its own hint before the board
# shows its own.
HINT_SLICE = const(6)
HOST_HINT_MS = const(1000)
# The hint is shown at the latest this long after HINT (BOARD.md: within 1.5 s; a slice
# and the showing scan come after it), with the best move the search has by then, on
# however slow a chip: on the RP2040 estimate most hints end here with depth 1 or 2
# done, the search's own work limit (hint.MAX_WORK) ends the others sooner
# (tools/bench_firmware.py, tools/bench_hint.py).
HINT_THINK_MS = const(1300)

# What a hint loads and its end drops again (zuni_board.unload): for Awithlaknakwe the
# evaluation's tables too.
UNLOAD = (
    "zuni_board.hint_runner",
    "zuni_board.hint",
    "zuni.evaluate",
    "zuni.evaluate_awith",
    "zuni.awith_reach",
)


class HintRunner:
    def __init__(self, game, moves, now, host_present):
        """Start thinking about ``game``'s position (``moves``: its legal moves, the
        position's own list) at ``now``; ``host_present``: a host is connected and may
        send its hint first. A MemoryError leaves nothing behind."""
        self.search = HintSearch(game, moves)
        self.think = Deadline()
        self.think.set(now, HINT_THINK_MS)
        self.host = Deadline()
        if host_present:
            self.host.set(now, HOST_HINT_MS)

    def step(self, now):
        """One slice of the search (a scan's worth); True once its ``best`` is to be
        shown (the search ended and the host's time is up)."""
        search = self.search
        if not search.done:
            if not self.think.due(now):
                search.step(HINT_SLICE)
                return False
            search.stop()
        return not self.host.armed or self.host.due(now)

    def best(self):
        return self.search.best
