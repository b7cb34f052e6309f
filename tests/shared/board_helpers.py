"""Helpers for the board application's tests (CPython and MicroPython alike).

- ``board_layout(ruleset)``: a real ``Layout`` (through the loader) whose points are the
  ruleset's, sensor and LED index = point index.
- ``RecordingLink``: stands in for LINK's session where only what the app sends matters.
- ``Table``: the physical board in a test: lift and place pieces by name; ``settle()``
  delivers the stable occupancy as the debouncer would (``stable_ms`` after the last
  change); ``wait(ms)`` lets time pass in scan-sized steps.
"""

import sys

import zuni

try:
    import zuni_board.app  # noqa: F401
except ImportError:
    # CPython: firmware/lib is not on the path (MicroPython's MICROPYPATH has it).
    _HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    sys.path.append(_HERE + "/../../firmware/lib")

from zuni_board.app import PLAY, BoardApp  # noqa: E402
from zuni_board.layout import Layout  # noqa: E402


def board_layout(ruleset, timing=None):
    game = zuni.new_game(ruleset)
    names = game.geometry.names
    n = len(names)
    points = {}
    for i in range(n):
        points[names[i]] = [i, i]
    d = {
        "format": 1,
        "name": "test%d" % n,
        "rulesets": [ruleset],
        "points": points,
        "sensors": {"type": "hc165", "count": (n + 7) // 8 * 8, "spi": 0, "pins": {"sck": 18, "data": 16, "latch": 17}},
        "leds": {"type": "ws2812", "pin": 22, "count": n, "max_level": 8},
    }
    if timing:
        d["timing"] = timing
    return Layout.from_dict(d)


class RecordingLink:
    def __init__(self):
        self.moves = []
        self.events = []
        self.states = 0
        self.times = {}  # move index -> (ms it took, the mover's ms left, side): on a clock

    def send_move(self, index, text, times=None):
        self.moves.append((index, text))
        if times is not None:
            self.times[index] = times

    def send_event(self, kind, text=""):
        self.events.append((kind, text))

    def send_state(self):
        self.states += 1

    def texts(self):
        return [t for _, t in self.moves]

    def kinds(self):
        return [k for k, _ in self.events]


class Table:
    def __init__(self, ruleset, journal_dir=None, link=None, timing=None, app_ruleset=None):
        self.layout = board_layout(ruleset, timing)
        self.link = link if link is not None else RecordingLink()
        self.app = BoardApp(self.layout, app_ruleset or ruleset, journal_dir, self.link)
        self.names = self.app.game.geometry.names
        self.n = len(self.names)
        self.occ = bytearray(self.n)
        self.now = 1000
        self.stable_ms = self.layout.timing["stable_ms"]

    def p(self, name):
        return self.app.game.geometry.index[name]

    def lift(self, *names):
        for name in names:
            i = self.p(name)
            assert self.occ[i], "lift %s: no piece there" % name
            self.occ[i] = 0

    def place(self, *names):
        for name in names:
            i = self.p(name)
            assert not self.occ[i], "place %s: already covered" % name
            self.occ[i] = 1

    def settle(self):
        """The debouncer reports the board stable_ms after the last change."""
        self.now += self.stable_ms
        self.app.step(self.now, bytearray(self.occ), 0)

    def act(self, *words):
        """``act("-s3", "+m5", "-m4")``: each word a gesture followed by settle()."""
        for w in words:
            if w[0] == "-":
                self.lift(w[1:])
            else:
                self.place(w[1:])
            self.settle()

    def wait(self, ms, step=20):
        end = self.now + ms
        while self.now < end:
            self.now = min(end, self.now + step)
            self.app.step(self.now, None, 0)

    def press(self, buttons):
        self.now += 10
        self.app.step(self.now, None, buttons)

    def setup(self):
        """Put every piece of the expected position on the board."""
        target = self.app.target
        for i in range(self.n):
            self.occ[i] = target[i]
        self.settle()
        assert self.app.phase == PLAY, "setup did not start play: %s" % self.app.describe()

    def do(self, text, ok=False):
        """Carry out a move the plain way (origin up, landings, captures off), then let
        it commit (OK for a chain that could go on)."""
        game = self.app.game
        move = game.parse_move(text)
        n_before = len(game.move_stack)
        names = self.names
        if move.origin >= 0:
            self.lift(names[move.origin])
            self.settle()
        if move.dest >= 0 and move.dest != move.origin:
            # the mover may pass over points it captured (emptied) on the way
            for c in move.captures:
                if self.occ[c] and c == move.dest:
                    self.lift(names[c])
            self.place(names[move.dest])
            self.settle()
        elif move.dest >= 0:
            self.occ[move.dest] = 1
        for c in move.captures:
            if self.occ[c] and c != move.dest:
                self.lift(names[c])
                self.settle()
        if ok:
            self.press(1)
        self.wait(self.layout.timing["commit_ms"])
        if len(game.move_stack) == n_before:
            self.press(1)  # a chain that could go on: OK ends it
        assert len(game.move_stack) > n_before, "%s was not committed: %s" % (text, self.app.describe())

    def play(self, texts):
        for t in texts:
            self.do(t)


def temp_dir():
    """A fresh empty directory under /tmp (both interpreters)."""
    import os

    raw = os.urandom(4)
    path = "/tmp/zuni-test-%02x%02x%02x%02x" % (raw[0], raw[1], raw[2], raw[3])
    os.mkdir(path)
    return path


def remove_dir(path):
    import os

    for name in os.listdir(path):
        os.remove(path + "/" + name)
    os.rmdir(path)


def journal_with(directory, ruleset, texts):
    """A journal whose newest game is ``ruleset`` after ``texts``: the app resumes it."""
    from zuni_board.journal import Journal

    j = Journal(directory)
    j.start(ruleset)
    for i in range(len(texts)):
        j.move(i, texts[i])
    return j


class MemoryPort:
    """In-memory serial port for LINK's BoardSession: ``inbox`` is what the host sent,
    ``outbox`` what the board wrote."""

    def __init__(self):
        self.inbox = bytearray()
        self.outbox = bytearray()

    def read_into(self, buf):
        n = min(len(buf), len(self.inbox))
        buf[:n] = self.inbox[:n]
        self.inbox = self.inbox[n:]
        return n

    def write(self, data):
        self.outbox += bytes(data)
        return len(data)

    def send(self, seq, verb, body=""):
        from zuni_link.codec import encode

        self.inbox += encode(seq, verb, body)

    def frames(self):
        """Decoded frames (seq, verb, body, checked) written so far; forgets them."""
        from zuni_link.codec import decode

        out = []
        lines = bytes(self.outbox).split(b"\n")
        for line in lines[:-1]:
            out.append(decode(line))
        self.outbox = bytearray(lines[-1])
        return out
