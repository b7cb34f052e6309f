"""Timing runs of tools/bench_firmware_runner.py: the per-scan log, commit latencies and
flash operations. Imported only in timing runs (as .mpy, like the runner), so that the
runs whose heap is bisected do not carry this code.

Every scan's time in us is kept (2 bytes a scan) with what the scan did (bits: 1 a new
stable position, 2 the journal and messages of the scan before, 4 a commit); the PC takes
each scan's best over several runs, so that another process taking the core does not
pass for the firmware's own work.
"""

import time

_TIMES = None  # type: ignore
_KINDS = None  # type: ignore


def allocate(n):
    global _TIMES, _KINDS
    from array import array

    _TIMES = array("H", bytes(2 * n))
    _KINDS = bytearray(n)


class Timer:
    def __init__(self, spec):
        self.times = _TIMES
        self.kinds = _KINDS
        self.latency_sum = 0
        self.commits = 0
        self.worst_latency_ms = 0
        self.worst_us = 0
        self.worst_commit_us = 0
        self.total_us = 0
        self.flash_max = [0, 0]  # most programs, erases littlefs did for one move
        self.flash_seen = (0, 0)
        self.hints = []  # (depth_slices, work) of each hint (zuni_board.hint)

    def scan(self, bench, dt, stable, queued, committed):
        i = bench.cycles
        if i < len(self.times):
            self.times[i] = min(dt, 65535)
            self.kinds[i] = (1 if stable else 0) | (2 if queued else 0) | (4 if committed else 0)
        self.total_us += dt
        if dt > self.worst_us:
            self.worst_us = dt
        if committed:
            if dt > self.worst_commit_us:
                self.worst_commit_us = dt
            # Simulated ms from the last sensor change to this scan, plus the real time
            # the scan took to commit and draw; an extendable move waits for the OK.
            if not bench.extendable:
                latency = time.ticks_diff(bench.now, bench.last_change) + (dt + 999) // 1000
                self.latency_sum += latency
                self.commits += 1
                if latency > self.worst_latency_ms:
                    self.worst_latency_ms = latency

    def moved(self, bench):
        flash = bench.flash
        if flash is None:
            return
        programs = flash.writes - self.flash_seen[0]
        erases = flash.erases - self.flash_seen[1]
        self.flash_seen = (flash.writes, flash.erases)
        if programs > self.flash_max[0]:
            self.flash_max[0] = programs
        if erases > self.flash_max[1]:
            self.flash_max[1] = erases

    def report(self, bench, out):
        out["mean_us"] = self.total_us // max(1, bench.cycles)
        out["worst_us"] = self.worst_us
        out["worst_commit_us"] = self.worst_commit_us
        out["worst_latency_ms"] = self.worst_latency_ms
        if self.commits:
            out["mean_latency_ms"] = self.latency_sum // self.commits
        if self.hints:
            out["hint_log"] = self.hints
        flash = bench.flash
        if flash is not None:
            out["flash_programs"] = flash.writes
            out["flash_erases"] = flash.erases
            out["flash_programs_max"] = self.flash_max[0]
            out["flash_erases_max"] = self.flash_max[1]
        times = self.times
        kinds = self.kinds
        # Every scan's time, 4 hex digits each, in lines of 256 scans (a small heap).
        n = min(bench.cycles, len(times))
        for start in range(0, n, 256):
            end = min(n, start + 256)
            print("TIMES " + "".join(["%04x" % times[i] for i in range(start, end)]))
            print("KINDS " + "".join(["%x" % kinds[i] for i in range(start, end)]))
