"""What the board application writes and says, in order: journal records and link messages.

``Outbox(journal, game_of, on_failing)``: ``journal`` a ``journal.Journal`` or None,
``game_of()`` the game now in play (for a rewrite), ``on_failing(reason)`` called when the
journal starts failing (the app shows it on the LEDs). ``attach(link)`` connects LINK's
session (``send_move``, ``send_event``, ``send_state``).

Two promises:

- **A failing flash never stops the game.** Every journal write is tried (a full flash
  first deletes the oldest other game and tries again); if it still fails the board goes
  on in a degraded mode: ``failing`` names the error, the host is told (event ``error
  journal failing: ...``, and ``journal failing`` in every state), no more records are
  appended (the file would have a hole), and at each later change the whole game is
  written again (``Journal.rewrite``), which ends the degraded mode once the flash takes
  writes again. The host is told every move as always, so its log loses nothing.
- **Order, and nothing on the flash at the moment of a commit** (``defer``, set by the
  outer loop): records and messages queue up in order and ``flush()`` writes them once the
  LED frame of the commit is out. A move goes to the host only after its record is
  written, so a host never holds a move that the board's journal would lose in a reset.

Without ``defer`` (the tests' tables) everything happens at once, in the same order.
"""

from micropython import const

_MOVE = const(0)  # journal record then send_move
_UNDO = const(1)  # journal record only
_END = const(2)  # journal record only
_CLOCK = const(3)  # journal record only: a side's time left (K)
_EVENT = const(4)
_STATE = const(5)

ENOSPC = const(28)


class Outbox:
    def __init__(self, journal, game_of, on_failing=None):
        self.journal = journal
        self.link = None
        self.game_of = game_of
        self.on_failing = on_failing
        self.defer = False
        self.failing = ""  # why the journal fails ("" while it works)
        self._flushing = False
        self.queue = []  # type: list  # (op, a, b) waiting for flush(); read, never changed, by the app
        self.writes = 0  # journal writes attempted (records and rewrites)
        self.position = None  # type: str | None  # the game's start position (set up from one), for a rewrite
        self.clock = None  # type: ignore  # the game's zuni_board.clocks.BoardClock (None: no clock), for a rewrite

    def attach(self, link):
        self.link = link

    # -- what the app says --------------------------------------------------------------
    def move(self, index, text, times=None):
        """``times``: on a clock, (ms the move took, the mover's ms left, the mover's side)."""
        self._put(_MOVE, index, text if times is None else (text, times))

    def clock_left(self, side, left_ms):
        self._put(_CLOCK, side, left_ms)

    def takeback(self, index):
        self._put(_UNDO, index, "")

    def end(self, how, arg):
        self._put(_END, how, arg)

    def event(self, kind, text=""):
        self._put(_EVENT, kind, text)

    def state(self):
        self._put(_STATE, None, None)

    def pending(self):
        return len(self.queue) > 0

    def start(self, ruleset_text, fallback_id, position=None, clock=None):
        """A new game file; its id, or ``fallback_id`` if the journal fails (the game is
        then written whole at the next change that finds the flash writable).
        ``position``: the start position's text of a game set up from one; ``clock``:
        the game's ``zuni_board.clocks.BoardClock`` or None."""
        self.position = position
        self.clock = clock
        journal = self.journal
        if journal is None:
            return fallback_id
        self.flush()  # the old game's records belong to the old file
        try:
            self.writes += 1
            try:
                return self._start(ruleset_text, position)
            except OSError as e:
                if not self._room(e):
                    raise
                return self._start(ruleset_text, position)
        except OSError as e:
            self._failed(e)
            return fallback_id

    # -- inside ----------------------------------------------------------------------------
    def _start(self, ruleset_text, position):
        clock = self.clock
        if position is None and clock is None:
            return self.journal.start(ruleset_text)
        return self.journal.start(ruleset_text, None, position, None if clock is None else clock.spec)

    def _put(self, op, a, b):
        if self.defer:
            self.queue.append((op, a, b))
        else:
            self._do(op, a, b)

    def flush(self):
        """Write what is queued to the journal, then send its messages, in order (the app
        calls it in the scan after the commit, and before the host reads anything)."""
        queue = self.queue
        if not queue or self._flushing:
            return  # (a message sent below may make the link read the app's state)
        self._flushing = True
        try:
            # Every record of the batch first: a message never reports a change whose
            # record a reset could still lose. The same list throughout (cleared, not
            # replaced): a fresh list after every commit would be a long-lived block in
            # the middle of the heap.
            synced = False
            for i in range(len(queue)):
                op, a, b = queue[i]
                if op <= _CLOCK and not synced:
                    synced = self._record(op, a, b)
            for i in range(len(queue)):
                op, a, b = queue[i]
                self._send(op, a, b)
        finally:
            queue.clear()
            self._flushing = False

    def _do(self, op, a, b):
        """One record and its message, at once (without ``defer``)."""
        if op <= _CLOCK:
            self._record(op, a, b)
        self._send(op, a, b)

    def _send(self, op, a, b):
        link = self.link
        if link is None or _UNDO <= op <= _CLOCK:  # journal records only
            return
        if op == _MOVE:
            if isinstance(b, tuple):
                link.send_move(a, b[0], b[1])
            else:
                link.send_move(a, b)
        elif op == _EVENT:
            link.send_event(a, b)
        else:
            link.send_state()

    def _record(self, op, a, b):
        journal = self.journal
        if journal is None:
            return False
        if self.failing:
            return self._rewrite()
        self.writes += 1
        try:
            try:
                self._append(op, a, b)
            except OSError as e:
                if not self._room(e):
                    raise
                self._append(op, a, b)
        except OSError as e:
            self._failed(e)
        return False

    def _append(self, op, a, b):
        journal = self.journal
        if op == _MOVE:
            if isinstance(b, tuple):
                journal.move(a, b[0], b[1])
            else:
                journal.move(a, b)
        elif op == _CLOCK:
            journal.clock_left(a, b)
        elif op == _UNDO:
            journal.takeback(a)
        else:
            journal.end(a, b)

    def _room(self, e):
        """A full flash: delete the oldest other game; True if there is room to try again."""
        if not e.args or e.args[0] != ENOSPC:
            return False
        try:
            return self.journal.make_room()
        except OSError:
            return False

    def _rewrite(self):
        """Degraded mode: write the game now in play whole; True if that worked."""
        from zuni_board import repair

        self.writes += 1
        if not repair.resync(self):
            return False
        self.failing = ""
        if self.link is not None:
            self.link.send_event("journal", "ok: the game is kept on the board again")
        return True

    def _failed(self, e):
        if self.failing:
            return
        self.failing = "%s %s" % (type(e).__name__, e.args[0] if e.args else "")
        if self.link is not None:
            self.link.send_event(
                "error", "journal failing (%s): the game goes on, kept only by the host until it works" % self.failing
            )
        if self.on_failing is not None:
            self.on_failing(self.failing)
