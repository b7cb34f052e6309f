"""The journal's flash log (zuni_board.flashlog) on a model of NOR flash: records without
erases, erases ahead of need, wear spread over the ring, and power cuts at every flash
operation of a game (torn programs, torn erases) losing no reported move."""

from board_helpers import remove_dir, temp_dir

from check import eq, raises
from zuni_board import flashlog
from zuni_board.flashboot import replay
from zuni_board.flashlog import BLOCK, FULL, PAGE, FlashLog, attach, idle
from zuni_board.journal import Journal


class PowerCut(Exception):
    """The power went: nothing after it happened."""


class NorFlash:
    """NOR flash as the Pico's: erase sets a 4 KB block to 0xFF, a program can only clear
    bits (new = old AND data). ``cut_at``: the operation (counted from 1) during which the
    power goes: a program writes only its first 16 bytes, an erase leaves the first half
    of the block erased and the rest as it was; then PowerCut."""

    def __init__(self, blocks):
        self.data = bytearray(b"\xff" * (BLOCK * blocks))
        self.count = blocks
        self.ops = 0
        self.cut_at = 0
        self.erases = [0] * blocks
        self.programs = 0

    def _op(self):
        self.ops += 1
        return self.cut_at and self.ops == self.cut_at

    def readblocks(self, block, buf, offset=0):
        at = block * BLOCK + offset
        buf[:] = self.data[at : at + len(buf)]

    def writeblocks(self, block, buf, offset=0):
        at = block * BLOCK + offset
        n = len(buf)
        cut = self._op()
        if cut:
            n = min(n, 16)
        for i in range(n):
            self.data[at + i] &= buf[i]
        self.programs += 1
        if cut:
            raise PowerCut()

    def ioctl(self, op, arg):
        if op == 4:
            return self.count
        if op == 5:
            return BLOCK
        if op == 6:
            cut = self._op()
            at = arg * BLOCK
            n = BLOCK // 2 if cut else BLOCK
            self.data[at : at + n] = b"\xff" * n
            self.erases[arg] += 1
            if cut:
                raise PowerCut()
        return 0


def test_records_are_programmed_without_erases_and_read_back():
    dev = NorFlash(8)
    log = FlashLog(dev, [2, 3, 4, 5])
    eq(log.load(), [], "a blank log")
    seqs = [log.append(7, 100 + 20 * i, "00007-3fa2", "M %d m4-m5*1c2b\n" % i) for i in range(5)]
    eq(seqs, [1, 2, 3, 4, 5])
    eq(sum(dev.erases), 0, "blank sectors: no erase at all")
    eq(dev.programs, 5, "one page program a record")
    again = FlashLog(dev, [2, 3, 4, 5])
    got = again.load()
    eq([r[0] for r in got], [1, 2, 3, 4, 5], "read back in order")
    eq(got[2], (3, 7, 140, "00007-3fa2", "M 2 m4-m5*1c2b\n"), "every field")
    eq(again.append(7, 200, "00007-3fa2", "M 5 x*0000\n"), 6, "goes on after the last")


def test_erases_only_ahead_of_need_and_only_released_sectors():
    dev = NorFlash(4)
    log = FlashLog(dev, [0, 1, 2])
    log.load()
    for i in range(flashlog.PAGES):  # block 0 full
        log.append(1, i, "g", "M %d a*0000\n" % i)
    eq(log.due(), 0, "block 1 is blank: nothing to do")
    for i in range(flashlog.PAGES):  # block 1 full
        log.append(1, i, "g", "M %d b*0000\n" % i)
    eq(sum(dev.erases), 0, "two blocks written, no erase")
    eq(log.due(), 0, "block 2 blank")
    for i in range(flashlog.PAGES):
        log.append(1, i, "g", "M %d c*0000\n" % i)
    eq(log.due(), 2, "block 0 next, its records not in their files: a sync first")
    eq(log.idle(), False, "never erases what is not in a file")
    log.release(log.seq - 1)
    eq(log.due(), 1, "released: erase ahead of need")
    eq(log.idle(), True)
    eq(dev.erases[0], 1, "block 0 erased in quiet time")
    log.append(1, 0, "g", "M 0 d*0000\n")
    eq((sum(dev.erases), log.forced), (1, 0), "the append itself erased nothing")


def test_a_full_log_refuses_rather_than_erasing_unsaved_records():
    dev = NorFlash(2)
    log = FlashLog(dev, [0, 1])
    log.load()
    for i in range(2 * flashlog.PAGES):
        log.append(1, i, "g", "M %d a*0000\n" % i)
    eq(log.append(1, 99, "g", "M 99 a*0000\n"), FULL, "full: nothing programmed, nothing erased")
    eq(sum(dev.erases), 0)
    log.release(log.seq - 1)
    log.append(1, 99, "g", "M 99 a*0000\n")
    eq(log.forced, 1, "no erase had been done ahead: the append did it")


def test_wear_is_spread_over_the_ring():
    dev = NorFlash(4)
    log = FlashLog(dev, [0, 1, 2, 3])
    log.load()
    for i in range(40 * flashlog.PAGES):
        log.append(1, i, "g", "M %d a*0000\n" % i)
        log.release(log.seq - 1)
        log.idle()
    eq(log.forced, 0, "every erase ahead of need")
    low = min(dev.erases)
    high = max(dev.erases)
    assert high - low <= 1, "erases per block %r" % (dev.erases,)
    assert low >= 9, "each block erased in turn: %r" % (dev.erases,)


def test_a_torn_page_is_skipped_and_never_programmed_over():
    dev = NorFlash(2)
    log = FlashLog(dev, [0, 1])
    log.load()
    log.append(3, 10, "g3", "M 0 a*0000\n")
    dev.cut_at = dev.ops + 1
    with raises(PowerCut):
        log.append(3, 22, "g3", "M 1 bb*0000\n")
    dev.cut_at = 0
    again = FlashLog(dev, [0, 1])
    eq([r[4] for r in again.load()], ["M 0 a*0000\n"], "the torn record is not read")
    again.append(3, 22, "g3", "M 1 bb*0000\n")
    third = FlashLog(dev, [0, 1])
    eq([r[4] for r in third.load()], ["M 0 a*0000\n", "M 1 bb*0000\n"], "written on the next blank page")
    eq(dev.data[PAGE : PAGE + 2] != b"\xff\xff", True, "the torn page kept its bytes")


def _game(j, log, moves, dev, reported):
    """Play ``moves`` through the journal as the board does: each record appended, the
    move 'reported' (its frame would go out) once the append returned, quiet-time jobs
    between moves."""
    for i in range(len(moves)):
        j.move(i, moves[i])
        reported.append(moves[i])
        if i % 3 == 2:
            # Quiet time now and then (a long pause now and then): the waiting lines into
            # their file, or an erase ahead of need.
            idle(j, i % 9 == 8)
            idle(j)


def test_power_cut_at_every_flash_operation_loses_no_reported_move():
    moves = ["m%d-n%d" % (i % 9 + 1, i % 7 + 1) for i in range(40)]
    # How many flash operations a whole game takes, with no cut.
    d = temp_dir()
    dev = NorFlash(4)
    log = FlashLog(dev, [0, 1])
    log.load()
    j = Journal(d)
    gid = j.start("mosona")
    attach(j, log)
    _game(j, log, moves, dev, [])
    total = dev.ops
    remove_dir(d)
    assert total > 40, "the game used the flash (%d operations)" % total
    for cut in range(1, total + 1):
        d = temp_dir()
        dev = NorFlash(4)
        log = FlashLog(dev, [0, 1])
        log.load()
        j = Journal(d)
        gid = j.start("mosona")
        attach(j, log)
        reported = []
        dev.cut_at = cut
        try:
            _game(j, log, moves, dev, reported)
        except PowerCut:
            pass
        dev.cut_at = 0
        # The reset: the log's records into their file, then the journal resumes.
        log2 = FlashLog(dev, [0, 1])
        replay(d, log2)
        found = Journal(d).resume()
        assert found is not None, "cut at %d: the game is gone" % cut
        eq(found[0], gid, "cut at %d: the game" % cut)
        got = list(found[2])
        eq(got[: len(reported)], reported, "cut at %d: every reported move kept, in order" % cut)
        assert len(got) <= len(reported) + 1, "cut at %d: no move made up" % cut
        # And the game goes on after the reset, with the log.
        j2 = Journal(d)
        j2.resume()
        attach(j2, log2)
        j2.move(len(got), "s1-s2")
        j2.sync()
        eq(Journal(d).resume()[2], got + ["s1-s2"], "cut at %d: play goes on" % cut)
        remove_dir(d)


def test_replay_never_appends_twice_nor_to_another_game():
    d = temp_dir()
    dev = NorFlash(2)
    log = FlashLog(dev, [0, 1])
    log.load()
    j = Journal(d)
    gid = j.start("mosona")
    attach(j, log)
    j.move(0, "s3xm4-m5")
    j.move(1, "n5xm5-m4")
    eq(j.log.pending(), 2, "waiting in the log")
    j.sync()
    eq(replay(d, FlashLog(dev, [0, 1])), 0, "already in the file: nothing appended")
    eq(replay(d, FlashLog(dev, [0, 1])), 0, "nor the second time")
    eq(Journal(d).resume(), (gid, "mosona", ["s3xm4-m5", "n5xm5-m4"], None))
    # Another game under the same file number (the journal wiped): the old records stay out.
    remove_dir(d)
    d = temp_dir()
    j = Journal(d)
    other = j.start("mosona")
    eq(replay(d, FlashLog(dev, [0, 1])), 0, "another game's id: nothing appended")
    eq(Journal(d).resume(), (other, "mosona", [], None))
    remove_dir(d)


def test_journal_reads_include_what_waits_in_the_log():
    d = temp_dir()
    dev = NorFlash(2)
    log = FlashLog(dev, [0, 1])
    log.load()
    j = Journal(d)
    gid = j.start("mosona")
    attach(j, log)
    j.move(0, "s3xm4-m5")
    got = j.read(1)
    eq(got[2], ["s3xm4-m5"], "read() writes what waits first")
    eq(j.log.pending(), 0)
    j.move(1, "n5xm5-m4")
    j.start("mosona")  # a new game: the old one's waiting line goes to the old file
    eq(Journal(d).read(1)[2], ["s3xm4-m5", "n5xm5-m4"], "the old game whole")
    eq(gid[:5], "00001")
    remove_dir(d)
