"""The play phase: each stable board classified (``infer``) and acted on, a finished move
committed, a mistake shown, a take-back, and the hint (the host's, or the board's own).

``Play(app)`` owns what lasts between scans of a game in play: the position (``pos``: its
legal moves and footprints), the last classification (``result``), the finished move
waiting to be committed (``pending``) and the deadline that commits it or shows a
mistake (``due``; ``due_commit`` says which), the host's move to carry out (``host``), the
hint shown (``hint``) and the board's own search for one (``thinking``, a
``hintrun.search_for``'s search, run by ``hintrun.run`` until its deadlines ``think_until`` and
``host_until``), the points touched since the position was made
(``touched``), and a commit whose rest is still to be done (``fresh``). It reads the
app's public state (``game``, ``stable``, ``renderer``, ``outbox``, ``overlays``, ``clock``,
``link``) and calls the app back to change phase (``enter_over``, ``enter_setup``); the
app calls it in play only (``takeback`` also once the game is over).

A commit (docs/firmware-timing.md): in the outer loop's mode (``outbox.defer``) the
commit's own scan does only the commit and its LED frame; the next position is made by
the scan after it (``catch_up``), or at once by whatever needs it first (a press, a host
request).
"""

import gc

from micropython import const
from zuni.core import piece_side
from zuni_board import leds as L
from zuni_board import unload
from zuni_board.infer import ERROR, FINISHED, PROGRESS, SAME, Position, infer
from zuni_board.ticks import Deadline

# The board's own hint (zuni_board.hintrun: its search, run by hintrun.run): work per scan cycle, in the
# search's work units (hint.LEGAL = 4 a legal_moves() call, about 2.5-5.4 ms on an
# RP2040, MICROPYTHON-NOTES): with the loop's own 2.4-3.1 ms a scan stays within its 10 ms
# period while the board thinks (tools/bench_firmware.py's slice_us); and how long a
# connected host has to send its own hint before the board shows its own.
HINT_SLICE = const(6)
HOST_HINT_MS = const(1000)
# The hint is shown at the latest this long after HINT (docs/board.md: within 1.5 s; a slice
# and the showing scan come after it), with the best move the search has by then, on
# however slow a chip: on the RP2040 estimate most hints end here with depth 1 or 2
# done, the search's own work limit (hint.MAX_WORK) ends the others sooner
# (tools/bench_firmware.py, tools/bench_hint.py).
HINT_THINK_MS = const(1300)
# Bytes of the line search arena (zuni_board.hintrun.ARENA: the same figure).
_ARENA = const(3072)

# Ends of a game that are not a board position (the host said so): BACK undoes them.
_DECLARED = ("resign", "agreed-draw", "agreed-count")

# What a HINT loads, one module a scan after the press (``Play.think``: an import of
# the native line search took the HINT scan to 102-106 ms on the RP2040; one a scan, and
# the search made and its garbage collected in scans of their own, no scan while the board
# thinks does more than one of these or a slice, docs/firmware-timing.md): the line
# games' search (its arena made at the press), the general search of Awithlaknakwe with
# its evaluation's tables, the general search with the line evaluation (a line game
# whose heap has no hole for the arena).
_LINE_LOAD = ("zuni_board.hintrun", "zuni.linefast", "zuni_board.linehint")
_AWITH_LOAD = ("zuni_board.hintrun", "zuni.awith_reach", "zuni.evaluate_awith", "zuni_board.hint")
_GENERAL_LOAD = ("zuni_board.hintrun", "zuni.evaluate", "zuni_board.hint")
# What the hint's end drops again: all of the above.
HINT_CODE = (
    "zuni_board.hintrun",
    "zuni_board.hint",
    "zuni_board.linehint",
    "zuni.linefast",
    "zuni.evaluate",
    "zuni.evaluate_awith",
    "zuni.awith_reach",
)


class Play:
    def __init__(self, app, n, timing):
        self.app = app
        stable_ms = timing["stable_ms"]
        # The debouncer reports a position stable_ms after its last change; the
        # docs/board.md times count from that change, so the board waits the rest.
        self.commit_delay = max(0, timing["commit_ms"] - stable_ms)
        self.error_delay = max(0, timing["error_ms"] - stable_ms)
        self.settle_delay = max(0, timing["chain_settle_ms"] - stable_ms)
        self.touched = bytearray(n)
        self.due = Deadline()
        self.due_commit = False  # what ``due`` does: commit ``pending``, or show the mistake
        self.commits = 0
        self.gc_due = False  # a commit's garbage is to be collected (BoardApp.step)
        self.thinking = None  # type: ignore  # the board's own hint search while it thinks
        # Before it: the modules it needs, loaded one a scan (``_loaded`` of them so far),
        # then a scan to collect the loading's garbage, then one to make the search; None
        # when not loading. The line search's arena is made at the press (``_arena``).
        self._loads = None  # type: ignore
        self._loaded = 0
        self._arena = None  # type: bytearray | None
        # The hint found, shown in the scan after the one that ended the search.
        self._found = None  # type: ignore
        # Its deadlines (hintrun.run): the best move found is shown at ``think_until``, not
        # before ``host_until`` (armed while a connected host may send its own hint).
        self.think_until = Deadline()
        self.host_until = Deadline()
        self.reset()

    def reset(self):
        """A new game, a resume or a take-back: nothing of the last position is kept."""
        self.pos = None  # type: Position | None
        self.fresh = False  # a commit whose consequences are still to be drawn
        self.result = None  # type: ignore
        self.host = None  # type: ignore  # footprint of the host's move to carry out
        self.hint = None  # type: ignore
        self._hint_i = -1
        # The host's grade of the move just made (hostcmd.cmd_grade): (point, kind: 1
        # mistake, 2 blunder), shown while the game has ``graded_ply`` moves.
        self.graded = None  # type: ignore
        self.graded_ply = -1
        self.drop_search()
        self.pending = None  # type: ignore  # finished move waiting to be committed
        self.due.cancel()
        self.error_shown = False
        self._prev_occ = None  # type: bytearray | None
        self.last_error = ""

    def stop(self, over=False):
        """Play stops (setup, or ``over``): no move is waiting."""
        self.due.cancel()
        self.pending = None
        if over:
            self.host = None
            self.hint = None

    def start(self, now):
        """Play starts (or goes on after a setup) in the game's position."""
        app = self.app
        game = app.game
        self.pos = Position(game)
        touched = self.touched
        for i in range(len(touched)):
            touched[i] = 0
        self.pending = None
        if app.clock is not None:
            app.clock.begin(game, now)
        if self.pos.pass_move is not None:
            _commit_pass(self, now)
            return
        self.evaluate(now)

    def team_of_code(self, code):
        return self.app.game.team_of(piece_side(code))

    # -- the stable board -----------------------------------------------------------
    def evaluate(self, now):
        """Classify the stable board in the current position and act on it."""
        pos = self.pos
        if pos is None:
            return
        app = self.app
        r = infer(pos, app.stable, self.touched)
        pending = self.pending
        if r.kind == ERROR and pending is not None and _commit_if_next(self, now, pending):
            return
        if r.kind == ERROR and _is_previous_position(self):
            self.takeback(now)  # the player restored the position before the last move
            return
        self.result = r
        self.pending = None
        self.due.cancel()
        self.error_shown = False
        host = self.host
        game = app.game
        renderer = app.renderer
        team = game.team_of(game.turn)
        graded = self.graded if self.graded_ply == len(game.move_stack) else None
        if host is not None:
            if r.kind == FINISHED and host in r.finished:
                self.pending = host
                self._set_due(now, self.commit_delay, True)
                L.paint_progress(renderer, pos, r, team, host)
            elif r.kind == SAME:
                L.paint_idle(renderer, pos, team, None, host, graded)
            elif (r.kind == PROGRESS or r.kind == FINISHED) and host in r.candidates:
                L.paint_progress(renderer, pos, r, team, host)
            else:
                # Not the host's move: say so after error_ms (a half-made move of the
                # right one may pass through such a state only briefly).
                self._set_due(now, self.error_delay, False)
            return
        if r.kind == SAME:
            L.paint_idle(renderer, pos, team, self.hint, None, graded)
        elif r.kind == PROGRESS:
            L.paint_progress(renderer, pos, r, team)
        elif r.kind == FINISHED:
            self.pending = r.finished[0]
            self._set_due(now, self.settle_delay if r.extendable else self.commit_delay, True)
            L.paint_progress(renderer, pos, r, team)
        else:
            if r.stuck >= 0:
                L.paint_stuck(renderer, pos, r.stuck)
            self._set_due(now, self.error_delay, False)

    def _set_due(self, now, delay, commit):
        self.due.set(now, delay)
        self.due_commit = commit

    def fire(self, now):
        """``due`` expired: commit the pending move, or show the mistake."""
        self.due.cancel()
        if self.due_commit:
            if self.pending is not None:
                self.commit(now, self.pending)
        else:
            _show_error(self, now)

    # -- the commit -----------------------------------------------------------------
    def commit(self, now, foot, after=None):
        app = self.app
        game = app.game
        before = self.pos.occ if self.pos is not None else None
        mover = game.turn
        game.push(foot.move)
        if after is None:
            # The old position's footprints are garbage before the new ones are made:
            # two positions of many moves at once set the heap peak of a game.
            self.pos = None
            self.result = None
            self.hint = None
            # Deferred (the outer loop): the new position is made by the next scan
            # (catch_up), so that the commit's frame goes out at once.
            if not app.outbox.defer:
                try:
                    after = Position(game)
                except MemoryError:
                    # All or nothing: the move is not made; the position before it is back.
                    game.pop()
                    self.pos = Position(game)
                    raise
        index = len(game.move_stack) - 1
        text = foot.move.text()
        if app.clock is None:
            app.outbox.move(index, text)  # the journal's record first, then the host
        else:
            # The commit is the instant the mover's clock stops (docs/clocks.md).
            app.clock.committed(game, app.outbox, now, mover, index, text)
        self.commits += 1
        self.gc_due = True
        self.pos = after
        self._prev_occ = before
        self.pending = None
        self.due.cancel()
        self.host = None
        self.hint = None
        self._hint_i = -1
        self.drop_search()
        self.result = None
        self.fresh = True
        if after is None:
            # The commit's frame: the move's picture gone, the new one still to come
            # (what may move next needs the legal moves: the next scan's work).
            r = app.renderer
            r.begin()
            r.end()
            return
        self.catch_up(now)

    def catch_up(self, now):
        """The rest of a commit (``fresh``): the next position (its legal moves and
        footprints) if the commit left it, then the game's end, a forced pass or the
        new position's picture. By the scan after the commit, or at once by whatever
        needs the position first (a press, a host request)."""
        if not self.fresh:
            return
        app = self.app
        game = app.game
        after = self.pos
        if after is None:
            after = Position(game)  # a MemoryError: tried again by the next scan
            self.pos = after
        self.fresh = False
        # Points that differ from the new position were touched for the next move.
        touched = self.touched
        occ = after.occ
        stable = app.stable
        if occ == stable:
            touched[:] = app.renderer.zero  # the usual case: one C-level copy
        else:
            for i in range(len(touched)):
                touched[i] = 1 if occ[i] != stable[i] else 0
        if game.is_game_over():
            app.enter_over(now)
            return
        if after.pass_move is not None:
            _commit_pass(self, now)
            return
        self.evaluate(now)

    # -- take-back ------------------------------------------------------------------
    def takeback(self, now, over=False):
        """Take the last move back (BACK, the host's ``takeback``, the position before it
        restored), or the end the host declared once the game is ``over``; ValueError if
        there is nothing to take back."""
        app = self.app
        game = app.game
        outbox = app.outbox
        outcome = game.outcome() if over else None
        if outcome is not None and outcome.termination == "time":
            raise ValueError("a loss on time cannot be taken back: start a new game")
        if outcome is not None and outcome.termination in _DECLARED:
            game.clear_agreement()
            app.hv += 1  # (the journal's E clear record adds one too)
            outbox.end("clear", "")
            outbox.event("takeback", "end")
            app.enter_setup(now)
            outbox.state()
            return
        if not game.move_stack:
            raise ValueError("nothing to take back: no move has been played in this game")
        game.clear_agreement()
        game.pop()
        index = len(game.move_stack)
        app.hv += 1  # (the journal's U record adds one too)
        outbox.takeback(index)
        self.reset()
        outbox.event("takeback", str(index))
        app.enter_setup(now)
        outbox.state()

    # -- the host's move and hint ---------------------------------------------------
    def host_move(self, now, foot):
        """The host's move to carry out (its footprint, or None: not one of this
        position's)."""
        self.host = foot
        clock = self.app.clock
        if clock is not None and foot is not None:
            # The computer has decided: its clock stops, the player's runs while the
            # move is carried out (docs/clocks.md).
            clock.hostmove(self.app.game, foot.move, now)
        self.hint = None
        self.drop_search()
        self.evaluate(now)

    def host_hint(self, now, foot):
        """The host's hint (None: cleared); it wins over the board's own."""
        self.drop_search()
        self.hint = foot
        self.evaluate(now)

    # -- the board's own hint -------------------------------------------------------
    def hint_button(self, now):
        """HINT: the board starts thinking of its own hint (shown at once if no host
        is connected, else if the host sends none within HOST_HINT_MS); HINT while a
        hint is shown shows the next legal move (cycling). The host has been told of
        the press and may answer with its own hint."""
        pos = self.pos
        if pos is None or not pos.foot or self.host is not None:
            return
        if self.hint_busy():
            return  # already thinking
        if self.hint is None:
            _begin_thinking(self, now)
            return
        self._next_legal(now)

    def _next_legal(self, now):
        """The hint without a search: the next legal move (HINT again cycles)."""
        pos = self.pos
        if pos is None:
            return
        foot = pos.foot
        self._hint_i = (self._hint_i + 1) % len(foot)
        self.hint = foot[self._hint_i]
        self.evaluate(now)

    def hint_busy(self):
        """True from HINT until the board's own hint is shown (or dropped)."""
        return self.thinking is not None or self._loads is not None or self._found is not None

    def drop_search(self):
        """Forget the board's own hint search (its line of moves is not on the game)
        and unload its code."""
        if self.hint_busy():
            self.thinking = None
            self._loads = None
            self._arena = None
            self._found = None
            unload(HINT_CODE)
            self.gc_due = True  # its code and tables are garbage: collected in a quiet scan

    def think(self, now):
        """The board's own hint, one step a scan: a module of the search loaded, the
        loading's garbage collected, the search made, a slice of it (``hintrun.run``),
        the search dropped, the hint shown (unless a connected host still has time to
        send its own). No scan does two of these (docs/firmware-timing.md), except on a
        chip so slow that the deadline comes before the search's first slice: then the
        rest is done at once, the hint's time before the scan's."""
        pos = self.pos
        if pos is None:
            return
        search = self.thinking
        late = self.think_until.due(now) and (search is None or search.slices == 0)
        while _think_step(self, now, pos) and late:
            pass


# -- the steps of Play that only it calls (module functions: a class of their own would
# cost heap, tests/checks/test_firmware_heap.py) --------------------------------------------


def _begin_thinking(play, now):
    """HINT pressed with no hint shown: the board starts thinking of its own."""
    # The search's code comes in the next scans (think), not in the press's: the
    # deadlines count from the press. A line game's arena first, while the heap
    # still has a hole of its size (its code comes in pieces); a heap with the
    # bytes but not in one piece gets the general search, which needs only small
    # blocks.
    game = play.app.game
    arena = None
    if game.ruleset.game_id == "awithlaknakwe":
        loads = _AWITH_LOAD  # type: tuple[str, ...]
    else:
        try:
            arena = bytearray(_ARENA)
            loads = _LINE_LOAD
        except MemoryError:
            loads = _GENERAL_LOAD
    play._arena = arena
    play._loads = loads
    play._loaded = 0
    play.think_until.set(now, HINT_THINK_MS)
    link = play.app.link
    if link is not None and hasattr(link, "host_present") and link.host_present(now):
        play.host_until.set(now, HOST_HINT_MS)
    else:
        play.host_until.cancel()


def _think_step(play, now, pos):
    """One step of ``think``; True if the next one could follow at once."""
    found = play._found
    if found is not None:
        play._found = None
        play.gc_due = True  # the search's code and heap, in a quiet scan after this
        foot = pos.find(found)
        if foot is None:
            return False
        play.hint = foot
        play._hint_i = pos.foot.index(foot)
        play.app.outbox.event("hint", foot.move.text())
        play.evaluate(now)
        return False
    loads = play._loads
    if loads is not None:
        return _load(play, now, loads, pos)
    search = play.thinking
    if search is None:
        return False
    from zuni_board.hintrun import run  # loaded while the board thinks

    if not run(search, now, play.think_until, play.host_until, HINT_SLICE):
        return False
    best = search.best
    play.drop_search()
    # Its garbage is collected in a quiet scan after the one that shows the hint.
    play.gc_due = best is None
    play._found = best
    return best is not None


def _load(play, now, loads, pos):
    """One loading step of the board's own hint (``think``); False if out of heap."""
    i = play._loaded
    play._loaded = i + 1
    try:
        if i < len(loads):
            __import__(loads[i])
        elif i == len(loads):
            gc.collect()  # the imports' garbage, not in a slice's scan
        else:
            from zuni_board.hintrun import search_for

            play.thinking = search_for(play.app.game, pos.moves, play._arena)
            play._loads = None
            play._arena = None
    except MemoryError:
        play.drop_search()
        play._next_legal(now)  # no room to think: the legal moves, as it always could
        return False
    return True


def _show_error(play, now):
    r = play.result
    pos = play.pos
    if r is None or pos is None:
        return
    play.error_shown = True
    app = play.app
    names = app.game.geometry.names
    missing = " ".join([names[p] for p in r.gone])
    extra = " ".join([names[p] for p in r.added])
    if play.host is not None:
        seen = r.move.text() if r.kind == FINISHED else "another position"
        play.last_error = "expected %s, the board shows %s" % (play.host.move.text(), seen)
        app.outbox.event("wrong", play.last_error)
        L.paint_error(app.renderer, pos, r, play.host)
        return
    if r.stuck >= 0:
        play.last_error = "%s may not move" % names[r.stuck]
        app.outbox.event("error", play.last_error)
        return  # the stuck picture stays: it says what may move instead
    play.last_error = "missing: %s; extra: %s" % (missing or "-", extra or "-")
    app.outbox.event("error", play.last_error)
    L.paint_error(app.renderer, pos, r)


def _commit_if_next(play, now, pending):
    """The board moved on before ``pending`` was committed (a quick reply, or the
    opponent's lift after a chain stopped early): if the board makes sense after
    ``pending``, commit it and go on from there. Returns True if it did."""
    game = play.app.game
    game.push(pending.move)
    after = Position(game)
    r = infer(after, play.app.stable, None)
    ok = r.kind != ERROR
    if not ok and r.gone and not r.added:
        # Only pieces of the side now to move are off the board: the opponent
        # lifted one (even one that may not move), so the turn is over.
        team = game.team_of(game.turn)
        board = game.board
        ok = True
        for p in r.gone:
            if not board[p] or game.team_of(piece_side(board[p])) != team:
                ok = False
    game.pop()
    if not ok:
        return False
    play.commit(now, pending, after)
    return True


def _is_previous_position(play):
    game = play.app.game
    if not game.move_stack:
        return False
    prev = play._prev_occ
    if prev is None:
        move = game.pop()
        prev = game.occupancy()
        game.push(move)
        play._prev_occ = prev
    return play.app.stable == prev


def _commit_pass(play, now):
    """A forced pass needs no action: commit it and show it for a moment."""
    game = play.app.game
    team = game.team_of(game.turn)
    play.app.overlays.notice(now, L.paint_pass, game.board, play.team_of_code, team)
    pos = play.pos
    if pos is None or pos.pass_move is None:
        pos = Position(game)
    play.pos = pos
    play.commit(now, pos.foot[0])
    # The position after it and its picture in this same scan: a forced pass is
    # found by the scan after a commit, and is not left for another one.
    play.catch_up(now)
