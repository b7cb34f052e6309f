"""firmware/main.py's scan (``Loop.scan``) with the journal's flash log, in simulated time:
the pieces moved by hand through the sensors, scan by scan, the flash's every erase and
program logged with its time. No move has a flash erase between its last sensor change
and its move reaching the link; the erases happen in quiet time; a reset then finds
every move. Under MicroPython the journal is on littlefs over the same model flash as
the log (littlefs's own erases counted too); under CPython on the PC's files (the log's
erases only)."""

import sys

from board_helpers import board_layout, remove_dir, temp_dir
from test_flashlog import NorFlash

from check import eq
from zuni_board.app import BoardApp
from zuni_board.flashboot import replay, reserve
from zuni_board.flashlog import FlashLog
from zuni_board.journal import Journal
from zuni_board.scan import Debouncer

try:
    import main
except ImportError:  # firmware/ (main.py's folder) beside firmware/lib
    _HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    sys.path.append(_HERE + "/../../firmware")
    import main


class TimedFlash(NorFlash):
    """NorFlash that logs (kind, ms) of every program and erase at the test's ``now``."""

    def __init__(self, blocks):
        NorFlash.__init__(self, blocks)
        self.now = 0
        self.log = []

    def writeblocks(self, block, buf, offset=0):
        self.log.append(("program", self.now))
        NorFlash.writeblocks(self, block, buf, offset)

    def ioctl(self, op, arg):
        if op == 6:
            self.log.append(("erase", self.now))
        return NorFlash.ioctl(self, op, arg)


class Sensors:
    def __init__(self, n):
        self.state = bytearray(n)

    def read(self):
        return self.state


class NoButtons:
    def read(self, now_ms=0):
        return 0


class Leds:
    def show(self, frame):
        pass


class TimedLink:
    def __init__(self, clock):
        self.clock = clock
        self.moves = []  # (index, text, ms sent)

    def send_move(self, index, text, times=None):
        self.moves.append((index, text, self.clock.now))

    def send_event(self, kind, text=""):
        pass

    def send_state(self):
        pass


def _flash_and_dir():
    """(model flash, journal directory, log blocks, cleanup)."""
    try:
        import vfs
    except ImportError:
        d = temp_dir()
        return TimedFlash(8), d, [4, 5, 6, 7], lambda: remove_dir(d)
    dev = TimedFlash(64)
    vfs.VfsLfs2.mkfs(dev, progsize=256)
    mount = "/zt_loop"
    vfs.mount(vfs.VfsLfs2(dev, progsize=256), mount)
    return dev, mount, reserve(dev, mount, 4), lambda: vfs.umount(mount)


class Board:
    def __init__(self, ruleset, dev, directory, blocks):
        self.dev = dev
        self.now = 1000
        self.layout = board_layout(ruleset)
        self.log = FlashLog(dev, blocks)
        replay(directory, self.log)
        self.app = BoardApp(self.layout, ruleset, directory, None)
        self.app.defer_writes()
        self.link = TimedLink(self)
        self.app.attach(self.link)
        journal = main.use_flash_log(self.app, self.log)
        n = self.app.n
        self.sensors = Sensors(n)
        timing = self.layout.timing
        debouncer = Debouncer(n, list(range(n)), timing["debounce_scans"], timing["stable_ms"])
        self.loop = main.Loop(
            self.layout, self.sensors, debouncer, self.app, None, Leds(), NoButtons(), None, journal=journal
        )
        self.last_change = 0

    def run(self, ms):
        end = self.now + ms
        while self.now < end:
            self.now += 10
            self.dev.now = self.now
            self.loop.scan(self.now)

    def set(self, point, value):
        self.sensors.state[point] = value
        self.last_change = self.now + 10  # the next scan sees it

    def setup(self):
        target = self.app.target
        for i in range(self.app.n):
            self.sensors.state[i] = target[i]
        self.run(400)

    def move(self, move):
        """The move by hand: origin up, landing down, captures off, 200 ms apart."""
        state = self.sensors.state
        if move.origin >= 0:
            self.set(move.origin, 0)
            self.run(200)
        if move.dest >= 0:
            self.set(move.dest, 1)
            self.run(200)
        for c in move.captures:
            if state[c] and c != move.dest:
                self.set(c, 0)
                self.run(200)


def test_no_erase_between_a_moves_last_change_and_its_frame():
    dev, directory, blocks, cleanup = _flash_and_dir()
    try:
        b = Board("kolowis size=short", dev, directory, blocks)
        b.setup()
        game = b.app.game
        windows = []
        for _ in range(24):
            if game.is_game_over():
                break
            n = len(b.link.moves)
            b.move(game.legal_moves()[0])
            b.run(2500)  # the commit (a chain that could go on: chain_settle_ms), then quiet
            eq(len(b.link.moves), n + 1, "the move reached the link")
            windows.append((b.last_change, b.link.moves[-1][2]))
        assert len(windows) >= 10, "a game of %d moves" % len(windows)
        erases = [t for kind, t in dev.log if kind == "erase"]
        for last, sent in windows:
            inside = [t for t in erases if last <= t <= sent]
            eq(inside, [], "erases between the last change at %d and the frame at %d" % (last, sent))
            if sent - last < 1000:  # not a chain that waited to be settled
                assert sent - last <= 170, "frame %d ms after the last change" % (sent - last)
        assert b.app.journal.log.syncs > 0, "the lines went into the game file, in quiet time"
        if directory.startswith("/zt_"):
            assert erases, "littlefs's erases happened, in quiet time"
        texts = [t for _, t, _ in b.link.moves]
        # A reset: the log into the file, the journal resumes the whole game.
        again = FlashLog(dev, blocks)
        replay(directory, again)
        eq(Journal(directory).resume()[2], texts, "every move kept")
    finally:
        cleanup()
