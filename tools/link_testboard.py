"""A stand-in board for link tests and the link benchmark (MicroPython unix port).

    micropython tools/link_testboard.py TTY_PATH JOURNAL_FILE [RULESET]

Runs the real ``zuni_link.session.BoardSession`` on the pseudo-terminal ``TTY_PATH`` with a
small app that plays by the real rules engine (or, for ruleset ``fake``, with made-up
move texts, to make long games quickly). The game is kept in ``JOURNAL_FILE`` so that a
restarted process (a board reset) resumes it, as the real board does from flash.

A control channel on stdin stands in for the player (one command a line; replies on
stdout, one line each):

    play N        commit N moves, one per scan (a pending host move is played first)
    back          take back the last move, as the BACK button does
    event K TEXT  send_event(K, TEXT)
    flood N       N raw-sensor events at once (diagnostics under load)
    dump          print "moves <game> <count> <digest> <move> <move> ..."
    stats         print scans, queued bytes and the session's counters
    quit          exit

The main loop scans every 5 ms (or sooner when input arrives), like firmware/main.py.
"""

import select
import sys
import termios
import time

import zuni
from zuni_link import codec, commands
from zuni_link.session import BoardSession


class TtyPort:
    """Non-blocking port on a tty: raw mode, VMIN=0/VTIME=0 reads, poll before writes."""

    def __init__(self, path):
        self.f = open(path, "rb+")
        fd = self.f.fileno()
        termios.setraw(fd)
        attrs = termios.tcgetattr(fd)
        attrs[6][6] = 0  # VMIN: a read returns at once, with what is there
        attrs[6][5] = 0  # VTIME
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
        self.poller = select.poll()
        self.poller.register(self.f, select.POLLOUT)

    def read_into(self, buf):
        return self.f.readinto(buf) or 0

    def write(self, data):
        if not self.poller.poll(0):
            return 0  # the pty is full: the host is not reading
        return self.f.write(data[:256]) or 0


class TestApp:
    """The app's side of the session contract, on the rules engine."""

    def __init__(self, journal, ruleset):
        self.journal = journal
        self.session = None
        self.hostmove = None
        self.hint = ""
        self.raw = False
        self.over = ""
        self.counter = 0
        self.hv = 0  # history version: +1 per take-back and new game, kept in the journal file
        if not self._load():
            self._new(ruleset)

    # --- persistence (a board reset resumes the game) ----------------------------------

    def _load(self):
        try:
            with open(self.journal) as f:
                lines = [x.strip() for x in f.readlines()]
        except OSError:
            return False
        self.game_id = lines[0]
        self.counter = int(lines[1])
        self.hv = int(lines[2])
        self._start(lines[3])
        for text in lines[4:]:
            if text:
                self._push(text)
        return True

    def _save(self):
        with open(self.journal, "w") as f:
            f.write("%s\n%d\n%d\n%s\n" % (self.game_id, self.counter, self.hv, self.ruleset))
            for text in self.moves:
                f.write(text + "\n")

    def _start(self, ruleset):
        self.ruleset = ruleset
        self.moves = []
        self.game = None if ruleset == "fake" else zuni.new_game(ruleset)
        self.hostmove = None
        self.over = ""

    def _new(self, ruleset):
        if ruleset != "fake":
            zuni.new_game(ruleset)  # a bad ruleset raises here, before anything changes
        self.counter += 1
        self.hv += 1
        self.game_id = "t%d" % self.counter
        self._start(ruleset)
        self._save()

    def _push(self, text):
        if self.game is not None:
            self.game.push_text(text)
        self.moves.append(text)

    # --- the player ---------------------------------------------------------------------

    def play_one(self):
        if self.game is None:
            text = "m%d-m%d" % (len(self.moves) % 97 + 1, len(self.moves) % 89 + 2)
        else:
            if self.game.is_game_over():
                return False
            if self.hostmove is not None:
                text = self.hostmove
            else:
                legal = self.game.legal_moves()
                text = legal[(len(self.moves) * 7) % len(legal)].text()
        self.hostmove = None
        self._push(text)
        self._save()
        self.session.send_move(len(self.moves) - 1, text)
        if self.game is not None and self.game.is_game_over():
            self.over = str(self.game.outcome().result)
            self.session.send_event("over", self.over)
        return True

    def back(self):
        if not self.moves:
            return
        self.moves.pop()
        if self.game is not None:
            self.game.pop()
        self.hv += 1
        self._save()
        self.session.send_event("button", "back")
        self.session.send_state()

    # --- the contract -------------------------------------------------------------------

    def hello_info(self):
        return {"fw": "linktest-1", "layout": "testboard", "ruleset": self.ruleset}

    def state_info(self):
        info = {"game": self.game_id, "ruleset": self.ruleset, "moves": len(self.moves), "hv": self.hv}
        if self.game is not None:
            info["turn"] = zuni.SIDE_NAMES[self.game.turn]
        info["phase"] = "over" if self.over else "play"
        if self.hostmove:
            info["hostmove"] = self.hostmove
        return info

    def moves_from(self, index: int, count: int = -1) -> list[str]:
        return self.moves[index:] if count < 0 else self.moves[index : index + count]

    def command(self, name, body):
        arg = commands.parse(name, body)  # the one check of the arguments (zuni_link.commands)
        if name == "new":
            self._new(arg)
        elif name == "takeback":
            if arg is not None and arg != (self.hv, len(self.moves)):
                raise codec.FrameError(
                    codec.E_STALE, "takeback from %r: the board's is %r" % (arg, (self.hv, len(self.moves)))
                )
            if not self.moves:
                raise ValueError("no move to take back")
            self.moves.pop()
            if self.game is not None:
                self.game.pop()
            self.hv += 1
            self._save()
        elif name in ("hostmove", "hint"):
            if self.game is None:
                raise ValueError("%s: the fake game has no rules" % name)
            if name == "hint" and not arg:
                self.hint = ""
                return
            move = self.game.parse_move(arg)  # ValueError (MoveError) naming the move
            if name == "hostmove":
                self.hostmove = move.text()
            else:
                self.hint = move.text()
        elif name == "raw":
            self.raw = arg == "on"
        elif name in ("ledtest", "button"):
            pass
        elif name in ("resign", "agree"):
            if self.over:
                raise ValueError("%s %s: the game is already over" % (name, arg))
            self.over = name + " " + arg
            self.session.send_event("over", self.over)
        else:
            raise ValueError("unknown command %s" % name)


def control(words, app, session, now, scans, to_play):
    """One command of the test's on stdin; the plies still to play (-1: quit)."""
    cmd = words[0]
    if cmd == "play":
        return to_play + int(words[1])
    if cmd == "back":
        app.back()
    elif cmd == "event":
        session.send_event(words[1], " ".join(words[2:]))
    elif cmd == "flood":
        for _ in range(int(words[1])):
            session.send_event("raw", "0" * 25)
    elif cmd == "dump":
        session.poll(now)  # the digest chain up to date
        d = codec.digest_seed(app.game_id)
        for text in app.moves:
            d = codec.digest_step(d, text)
        print("moves", app.game_id, len(app.moves), codec.hex8(d), " ".join(app.moves))
    elif cmd == "stats":
        print(
            "stats scans=%d queued=%d rx=%d rxerr=%d tx=%d dropped=%d resent=%d pending=%d playing=%d"
            % (
                scans,
                session.queued_bytes(),
                session.rx_frames,
                session.rx_errors,
                session.out.tx_frames,
                session.out.dropped,
                session.resent,
                len(session.history.pending),
                to_play,
            )
        )
    elif cmd == "quit":
        return -1
    else:
        print("error unknown control command", cmd)
    return to_play


def main(argv):
    path = argv[0]
    journal = argv[1]
    ruleset = argv[2] if len(argv) > 2 else "mosona"
    port = TtyPort(path)
    app = TestApp(journal, ruleset)
    session = BoardSession(port, app)
    app.session = session
    waiter = select.poll()
    waiter.register(port.f, select.POLLIN)
    waiter.register(sys.stdin, select.POLLIN)
    scans = 0
    to_play = 0
    print("ready", session.boot)
    while True:
        now = time.ticks_ms()
        session.poll(now)
        scans += 1
        if to_play:
            to_play -= 1
            if not app.play_one():
                to_play = 0
        ready = waiter.poll(0 if to_play else 5)
        for obj, _ in ready:
            if obj is port.f:
                continue
            line = sys.stdin.readline()
            if not line:
                return
            words = line.split()
            if not words:
                continue
            to_play = control(words, app, session, now, scans, to_play)
            if to_play < 0:
                return


main(sys.argv[1:])
