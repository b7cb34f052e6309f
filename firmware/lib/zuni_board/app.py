"""The board controller: debounced occupancy and buttons in, moves, LEDs, journal and link out.

``BoardApp(layout, ruleset_text, journal_dir, link)``; the outer loop (firmware/main.py)
calls ``step(now_ms, stable_or_None, buttons, moving)`` every scan, then
``frame_dirty(now_ms)`` and ``frame(now_ms)``. Everything is pure: times are arguments,
tick arithmetic goes through ``ticks_diff``. A scan with no change costs two deadline
checks. Presses and sensor changes are one ordered stream (``step``); the journal and the
link are written through ``outbox.Outbox`` (in order; a failing flash never stops play;
with ``defer_writes()`` off the commit's own scan); LED tests, walks and notices are
``overlay.Overlays``. docs/firmware-timing.md says what happens when.

Phases (BOARD.md, "What a player sees and does"):

- ``setup``: the LEDs show where the pieces belong (a new game, a game resumed from the
  journal after a reset, a take-back); play starts when the board matches. A game set up
  from a position (``cmd_setup``, the host's ``setup POSITION``) goes one side at a time,
  since reed switches cannot tell the sides apart: the LEDs show where the first side's
  pieces go (priests included), the player places them (a missing or extra piece shown as
  in any setup), and once the board matches, OK (a button, or the host's ``button ok``)
  or the match held for ``SETUP_SETTLE_MS`` (a board without buttons) lights the next
  side's points, on top of those; after the last side, play starts.
- ``play``: each change of the stable occupancy is classified by ``infer``; a finished
  move is committed ``commit_ms`` after the last change (150 = ``stable_ms``: by the
  scan that sees it stable, with its frame within BOARD.md's 200 ms on the RP2040 too;
  the next position's legal moves follow in the scan after), a chain stopped early on OK,
  on the opponent's lift or after ``chain_settle_ms``; a mistake is shown after
  ``error_ms``; restoring the position before the last move takes it back.
- ``over``: the result is shown; setting up the start position again (or OK) starts a
  new game with the same rules.

The link (LINK's ``zuni_link.session.BoardSession``) is optional: ``link=None`` plays
standalone; ``attach(link)`` connects one later. The app calls only ``send_move``,
``send_event`` and ``send_state`` on it and answers ``hello_info``, ``state_info``,
``moves_from`` and ``command``.
"""

import gc

import zuni
from micropython import const
from zuni.core import SIDE_NAMES, piece_side, side_from_name
from zuni_board import leds as L
from zuni_board.infer import ERROR, FINISHED, PROGRESS, SAME, Position, infer
from zuni_board.outbox import Outbox
from zuni_board.overlay import Overlays

try:
    from time import ticks_add, ticks_diff
except ImportError:  # CPython: the one fallback (the Pico's 30-bit tick arithmetic)
    from zuni_board.ticks import ticks_add, ticks_diff

FIRMWARE_VERSION = "0.1.0"

# Buttons bitmask (pressed edges), as the button driver reports them.
OK = const(1)
BACK = const(2)
HINT = const(4)

SETUP = const(0)
PLAY = const(1)
OVER = const(2)
PHASE_NAMES = ("setup", "play", "over")

# What the play-phase deadline does when it expires.
_DUE_NONE = const(0)
_DUE_COMMIT = const(1)
_DUE_ERROR = const(2)

# A press waits at most this long for the change before it to settle.
HOLD_MS = const(1000)

# Ends of a game that are not a board position (the host said so): BACK undoes them.
_DECLARED = ("resign", "agreed-draw", "agreed-count")

# The board's own hint (zuni_board.hint): work per scan cycle, in the search's work
# units (hint.LEGAL = 4 a legal_moves() call, about 2.5-5.4 ms on an RP2040,
# MICROPYTHON-NOTES): with the loop's own 2.4-3.1 ms a scan stays within its 10 ms
# period while the board thinks (tools/bench_firmware.py's slice_us);
# and how long a connected host has to send its own hint before the board shows its own.
HINT_SLICE = const(6)
HOST_HINT_MS = const(1000)
# The hint is shown at the latest this long after HINT (BOARD.md: within 1.5 s; a slice
# and the showing scan come after it), with the best move the search has by then, on
# however slow a chip: on the RP2040 estimate most hints end here with depth 1 or 2
# done, the search's own work limit (hint.MAX_WORK) ends the others sooner
# (tools/bench_firmware.py, tools/bench_hint.py).
HINT_THINK_MS = const(1300)

# A side's pieces of a set-up position placed (the board matches) and left alone this
# long: the next side's go on (a board without buttons; OK goes on at once).
SETUP_SETTLE_MS = const(1500)


def clocks():
    """The game clocks (``zuni_board.clocks``), loaded only for a game on a clock."""
    from zuni_board import clocks as module

    return module


def staged():
    """The staged setup of a position, loaded only when a game is set up from one (a
    board that plays from the start never holds it, nor zuni.position)."""
    from zuni_board import staged as module

    return module


def _unload_hint():
    """Drop the hint's code (zuni_board.hint, zuni.evaluate, and for Awithlaknakwe
    zuni.evaluate_awith and its tables) from sys.modules and their packages: it is garbage until the next HINT loads
    it again (a few ms on an RP2040, in the HINT scan: tools/bench_firmware.py's
    press_us). MicroPython only: CPython keeps its classes the same for the tests."""
    import sys

    if sys.implementation.name != "micropython":
        return
    import zuni_board

    for package, name in ((zuni_board, "hint"), (zuni, "evaluate"), (zuni, "evaluate_awith"), (zuni, "awith_reach")):
        sys.modules.pop(package.__name__ + "." + name, None)
        if name in package.__dict__:
            delattr(package, name)


class BoardApp:
    def __init__(self, layout, ruleset_text=None, journal_dir=None, link=None, board_id=""):
        # board_id: this physical board's unique id (hex of machine.unique_id() on the
        # Pico, read by main.py: the app imports no machine), sent in hello as ``id``.
        self.board_id = board_id
        # Only what the app needs of the layout is kept, so that the caller may drop the
        # layout (its point table is a few KB of heap on the 168-square board).
        self.layout_name = layout.name
        self.rulesets = list(layout.rulesets)
        timing = layout.timing
        stable_ms = timing["stable_ms"]
        # The debouncer reports a position stable_ms after its last change; the
        # BOARD.md times count from that change, so the app waits the rest.
        self.commit_delay = max(0, timing["commit_ms"] - stable_ms)
        self.error_delay = max(0, timing["error_ms"] - stable_ms)
        self.settle_delay = max(0, timing["chain_settle_ms"] - stable_ms)
        self.link = link
        self.journal = None
        if journal_dir is not None:
            from zuni_board.journal import Journal

            self.journal = Journal(journal_dir)
        # Journal records and link messages, in order; a failing flash never stops play.
        self.outbox = Outbox(self.journal, self._game_and_id, self._journal_failing)
        self.outbox.attach(link)
        self.raw = False
        # A layout.Layout or a zuni_board.Board (what main.py keeps of one).
        n = layout.point_count if hasattr(layout, "point_count") else len(layout.points)
        self.n = n
        self.stable = bytearray(n)
        self.touched = bytearray(n)
        self.renderer = L.Renderer(n)
        self.game_id = ""
        # History version (docs/protocol.md): +1 at every take-back and new game, kept
        # in the journal; the host cuts its copy of the history only on a higher one.
        self.hv = 0
        self.phase = SETUP
        self.target = bytearray(n)
        # A game set up from a position: its text (None: the rules' start), and the
        # staged setup's stage (index in ``_stage_sides``; -1: not staged).
        self.position = None  # type: str | None
        self._stage = -1
        self._stage_sides = ()  # type: tuple
        self._stage_due = False
        self.pos = None  # type: Position | None
        # The game's clocks (zuni_board.clocks.BoardClock), None for a game without.
        self.clock = None  # type: ignore
        self.result = None  # type: ignore
        self.host = None  # type: ignore  # footprint of the host's move to carry out
        self.hint = None  # type: ignore
        self._hint_i = -1
        self._search = None  # type: ignore  # the board's own hint (zuni_board.hint) while it thinks
        self._search_at = 0
        self._search_host = False
        self._pending = None  # type: ignore  # finished move waiting to be committed
        self._due = 0
        self._due_what = _DUE_NONE
        self.error_shown = False
        self._prev_occ = None  # type: bytearray | None
        self._start_occ = bytearray(n)
        self.last_error = ""
        self.commits = 0
        self._now = 0
        self._gc_due = False  # a commit's garbage is to be collected (see step)
        # A commit whose rest is still to be done: in the outer loop's mode
        # (defer_writes) the scan after it makes the next position (_catch_up).
        self._fresh = False  # a commit whose consequences are still to be drawn
        self._held = 0  # presses waiting for the change before them to be stable
        self._held_since = 0
        if ruleset_text is None:
            ruleset_text = layout.rulesets[0]
        game = zuni.new_game(ruleset_text)  # a bad ruleset fails here, not later
        names = game.geometry.names
        self.names = ()  # type: tuple
        if len(names) != n:
            self._refuse(game)
        try:
            # Kept here so that main.py need not build them again (168 points: a few KB).
            self.sensor_of, self.led_of = layout.maps(game.geometry)
        except ValueError:
            self._refuse(game)
        self.names = names
        self.overlays = Overlays(n, names, self.led_of, self._send_event)
        self.game = game
        if not self._resume(0):
            self._new_game(ruleset_text, 0, game)

    # -- the link -------------------------------------------------------------------
    def attach(self, link):
        """Connect the link session (created after the app, since it needs the app)."""
        self.link = link
        self.outbox.attach(link)

    def _send_move(self, index, text):
        self.outbox.move(index, text)

    def _send_event(self, kind, text=""):
        self.outbox.event(kind, text)

    def _send_state(self):
        self.outbox.state()

    def defer_writes(self):
        """The outer loop's mode: a commit's scan does only the commit and its LED frame;
        the next position's legal moves, the journal record and the messages wait for the
        scans after it (see ``step``, docs/firmware-timing.md)."""
        self.outbox.defer = True

    def _game_and_id(self):
        return self.game, self.game_id

    def _journal_failing(self, reason):
        self.overlays.notice(self._now, L.paint_journal_failing)

    # -- games ----------------------------------------------------------------------
    def _ruleset_for_board(self, ruleset_text):
        """The rules game for ``ruleset_text`` if this board can play it; ValueError otherwise."""
        game = zuni.new_game(ruleset_text)
        if game.geometry.names != self.names:
            self._refuse(game)
        return game

    def _refuse(self, game):
        raise ValueError(
            "ruleset %r needs a %d-point board; this board (%s) has %d points and plays: %s"
            % (str(game.ruleset), len(game.geometry.names), self.layout_name, self.n, ", ".join(self.rulesets))
        )

    def _new_game(self, ruleset_text, now, game=None, position=None, clock=None):
        """``clock``: a ``clocks.BoardClock`` for the game (None: no clock)."""
        if game is None:
            if position is not None:
                game = staged().position_game(self, position)
            else:
                game = self._ruleset_for_board(ruleset_text)
        self.game = game
        self.position = position
        self.clock = clock
        self.game_id = self.outbox.start(str(game.ruleset), self._fallback_id(), position, clock)
        # A new game is a cut of the history; the journal's header keeps the version.
        self.hv += 1
        if self.journal is not None:
            self.hv = max(self.hv, self.journal.version)
        self._start_occ = game.occupancy()
        self._reset_game_state()
        self._enter_setup(now, position is not None)

    def _fallback_id(self):
        """The game id without a journal (or while it fails): a new one per game, so the
        host never takes two games for one."""
        if self.journal is None:
            return "nojournal"
        from zuni_board.journal import random_hex

        return "nojournal-" + random_hex()

    def _resume(self, now):
        """Continue the journal's newest game if it is unfinished and fits this board."""
        if self.journal is None:
            return False
        try:
            found = self.journal.resume()
        except (OSError, ValueError):
            return False
        self.hv = self.journal.version  # a new game continues from it too
        if found is None:
            return False
        game_id, ruleset_text, moves, end = found
        position = self.journal.position
        spec = self.journal.clock
        try:
            if position is not None:
                game = staged().position_game(self, position)
            else:
                game = self._ruleset_for_board(ruleset_text)
            self._start_occ = game.occupancy()
            for text in moves:
                game.push_text(text)
        except ValueError:
            return False  # another board's game, or a journal the rules no longer accept
        if end is not None or game.is_game_over():
            return False
        clock = None
        if spec is not None:
            try:
                clock = clocks().resume(spec, game, self.journal)
            except (OSError, ValueError):
                pass  # clocks this firmware cannot read: the game goes on without them
        self.clock = clock
        self.outbox.clock = clock
        self.game = game
        self.game_id = game_id
        self.position = position
        self.outbox.position = position
        self._reset_game_state()
        # A set-up position not yet played from is set up again side by side.
        self._enter_setup(now, position is not None and not moves)
        return True

    def _reset_game_state(self):
        self.pos = None
        self._fresh = False
        self.result = None
        self.host = None
        self.hint = None
        self._hint_i = -1
        self._drop_search()
        self._pending = None
        self._due_what = _DUE_NONE
        self.error_shown = False
        self._prev_occ = None
        self.last_error = ""

    # -- phases ---------------------------------------------------------------------
    def _enter_setup(self, now, by_side=False):
        """Wait until the board shows ``self.game``'s position (new game, resume, take-back);
        ``by_side``: one side at a time (a game set up from a position: ``zuni_board.staged``)."""
        self.phase = SETUP
        if self.clock is not None:
            self.clock.pause(self, now)
        self._due_what = _DUE_NONE
        self._pending = None
        self._stage = -1
        self._stage_due = False
        if by_side and staged().begin(self):
            self._check_setup(now)
            return
        self.target = self.game.occupancy()
        self._check_setup(now)

    def setup_side(self):
        """The side whose pieces the staged setup asks for now, or "" (not staged)."""
        if self.phase != SETUP or self._stage < 0:
            return ""
        return SIDE_NAMES[self._stage_sides[self._stage]]

    def _check_setup(self, now):
        """Play starts once the board matches the target; returns True if it did.
        In a staged setup a stage that matches goes on at OK or after SETUP_SETTLE_MS."""
        if self.stable == self.target:
            if self._stage < 0 or self._stage == len(self._stage_sides) - 1:
                self._stage = -1
                self._stage_due = False
                self._enter_play(now)
                return True
            self._stage_due = True
            self._due = ticks_add(now, SETUP_SETTLE_MS)
        else:
            self._stage_due = False
        L.paint_sync(self.renderer, self.target, self.stable)
        return False

    def _enter_play(self, now):
        self.phase = PLAY
        game = self.game
        if game.is_game_over():
            self._enter_over(now)
            return
        self.pos = Position(game)
        touched = self.touched
        for i in range(self.n):
            touched[i] = 0
        self._pending = None
        if self.clock is not None:
            self.clock.begin(self, now)
        if self.pos.pass_move is not None:
            self._commit_pass(now)
            return
        self._evaluate(now)

    def _enter_over(self, now):
        self.phase = OVER
        if self.clock is not None:
            self.clock.pause(self, now)
            self.clock.show_low(self, now)
        self._due_what = _DUE_NONE
        self._pending = None
        self.host = None
        self.hint = None
        outcome = self.game.outcome()
        game = self.game
        L.paint_over(self.renderer, game.board, self._team_of_code, outcome.winner if outcome else None)
        if outcome is not None:
            self._send_event("over", "%s %s" % (outcome.result, outcome.termination))
        self._send_state()

    def _team_of_code(self, code):
        return self.game.team_of(piece_side(code))

    # -- the scan step --------------------------------------------------------------
    def step(self, now, stable=None, buttons=0, moving=False):
        """One scan: ``stable`` is the debounced occupancy per point when it changed,
        else None; ``buttons`` the pressed edges (OK=1, BACK=2, HINT=4); ``moving``: the
        debouncer has seen a change that is not yet stable (``Debouncer.in_motion()``).

        Sensor changes and presses are one ordered stream: a press made after a change
        acts on the position that change makes, so while one is being debounced the press
        waits for it (at most HOLD_MS, so a board that never settles still has buttons)."""
        self._now = now
        # The rest of a commit's work, one piece per scan, never in the commit's own (its
        # LED frame goes out first): the next position's legal moves and its picture,
        # then the journal record and the messages queued before (``defer_writes``),
        # then a garbage collection in a quiet scan, so that the next commit finds the
        # heap free and does not collect itself.
        outbox = self.outbox
        if self._fresh:
            self._catch_up(now)
        elif outbox.queue:
            outbox.flush()
        elif self._gc_due and stable is None and not buttons:
            self._gc_due = False
            gc.collect()
        if self.clock is not None and self.phase == PLAY:
            # First: a move the player finishes in the scan the flag falls is too late.
            self.clock.tick(self, now)
        if stable is not None:
            self._sensed(now, stable)
            if self._due_what == _DUE_COMMIT and ticks_diff(now, self._due) >= 0:
                # A move committed at once (commit_ms = stable_ms): before this scan's
                # presses, which act on the position the change made.
                self._fire(now)
        if buttons or self._held:
            if moving and (not self._held or ticks_diff(now, self._held_since) < HOLD_MS):
                if not self._held:
                    self._held_since = now
                self._held |= buttons
            else:
                buttons |= self._held
                self._held = 0
                self._buttons(now, buttons)
        if self._due_what != _DUE_NONE and ticks_diff(now, self._due) >= 0:
            self._fire(now)
        elif self._stage_due and ticks_diff(now, self._due) >= 0:
            staged().next_stage(self, now)
        if self.overlays.on and self.overlays.step(now):
            self.renderer.invalidate()  # the game picture must be drawn again
        if self._search is not None and stable is None and not buttons:
            if moving:
                self._drop_search()  # a hand on the board: the hint is not wanted now
            else:
                self._think(now)

    def _picture(self):
        overlays = self.overlays
        return overlays.renderer if overlays.on else self.renderer

    def frame_dirty(self, now):
        if self.clock is not None and not self.overlays.on and self.clock.dirty(now):
            return True  # a low time's tick (zuni_board.clocks)
        return self._picture().dirty(now)

    def frame(self, now):
        """bytearray, 3 bytes (r, g, b) per point, at full scale (the driver caps it)."""
        buf = self._picture().frame(now)
        if self.clock is not None and not self.overlays.on:
            self.clock.paint(self.renderer, buf, now)
        return buf

    def _sensed(self, now, stable):
        self._drop_search()  # any change: the player acts, the hint is not wanted now
        mine = self.stable
        touched = self.touched
        changes = None  # type: list[str] | None
        if self.raw:
            changes = []
        for i in range(self.n):
            v = 1 if stable[i] else 0
            if mine[i] != v:
                mine[i] = v
                touched[i] = 1
                if changes is not None:
                    changes.append(("+" if v else "-") + self.game.geometry.names[i])
        if changes:
            self._send_event("raw", " ".join(changes))
        if self.overlays.player_acted(now):
            self.renderer.invalidate()  # the player acts: show the game again at once
        phase = self.phase
        if phase == PLAY:
            self._evaluate(now)
        elif phase == SETUP:
            if self._check_setup(now) and self.phase == PLAY:
                # The host learns at once that the board is set up (no polling); a
                # game that ended or passed at once has sent its own state or move.
                self._send_state()
        elif self.stable == self._start_occ:
            # Game over and the pieces set up again: a new game with the same rules (from
            # the same position, for a game set up from one) and the same time control.
            self._new_game(
                str(self.game.ruleset), now, None, self.position, None if self.clock is None else self.clock.again()
            )
            self._send_state()

    def _buttons(self, now, buttons):
        # Every press is told to the host (bring-up sees each button; the host asks its
        # engine on HINT), whatever it does on the board. Best effort.
        if buttons & OK:
            self._send_event("button", "ok")
        if buttons & BACK:
            self._send_event("button", "back")
        if buttons & HINT:
            self._send_event("button", "hint")
        if buttons & BACK:
            try:
                self._takeback(now)
            except ValueError:
                pass  # nothing to take back: the button does nothing
        if buttons & OK:
            self._ok(now)
        if buttons & HINT:
            self._hint_button(now)

    def _fire(self, now):
        what = self._due_what
        self._due_what = _DUE_NONE
        if self.phase != PLAY:
            return
        if what == _DUE_COMMIT and self._pending is not None:
            self._commit(now, self._pending)
        elif what == _DUE_ERROR:
            self._show_error(now)

    def _set_due(self, now, delay, what):
        self._due = ticks_add(now, delay)
        self._due_what = what

    # -- play -----------------------------------------------------------------------
    def _evaluate(self, now):
        """Classify the stable board in the current position and act on it."""
        pos = self.pos
        if pos is None:
            return
        r = infer(pos, self.stable, self.touched)
        pending = self._pending
        if r.kind == ERROR and pending is not None and self._commit_if_next(now, pending):
            return
        if r.kind == ERROR and self._is_previous_position():
            self._auto_takeback(now)
            return
        self.result = r
        self._pending = None
        self._due_what = _DUE_NONE
        self.error_shown = False
        host = self.host
        team = self.game.team_of(self.game.turn)
        if host is not None:
            if r.kind == FINISHED and host in r.finished:
                self._pending = host
                self._set_due(now, self.commit_delay, _DUE_COMMIT)
                L.paint_progress(self.renderer, pos, r, team, host)
            elif r.kind == SAME:
                L.paint_idle(self.renderer, pos, team, None, host)
            elif (r.kind == PROGRESS or r.kind == FINISHED) and host in r.candidates:
                L.paint_progress(self.renderer, pos, r, team, host)
            else:
                # Not the host's move: say so after error_ms (a half-made move of the
                # right one may pass through such a state only briefly).
                self._set_due(now, self.error_delay, _DUE_ERROR)
            return
        if r.kind == SAME:
            L.paint_idle(self.renderer, pos, team, self.hint)
        elif r.kind == PROGRESS:
            L.paint_progress(self.renderer, pos, r, team)
        elif r.kind == FINISHED:
            self._pending = r.finished[0]
            self._set_due(now, self.settle_delay if r.extendable else self.commit_delay, _DUE_COMMIT)
            L.paint_progress(self.renderer, pos, r, team)
        else:
            if r.stuck >= 0:
                L.paint_stuck(self.renderer, pos, r.stuck)
            self._set_due(now, self.error_delay, _DUE_ERROR)

    def _commit_if_next(self, now, pending):
        """The board moved on before ``pending`` was committed (a quick reply, or the
        opponent's lift after a chain stopped early): if the board makes sense after
        ``pending``, commit it and go on from there. Returns True if it did."""
        game = self.game
        game.push(pending.move)
        after = Position(game)
        r = infer(after, self.stable, None)
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
        self._commit(now, pending, after)
        return True

    def _is_previous_position(self):
        game = self.game
        if not game.move_stack:
            return False
        prev = self._prev_occ
        if prev is None:
            move = game.pop()
            prev = game.occupancy()
            game.push(move)
            self._prev_occ = prev
        return self.stable == prev

    def _commit(self, now, foot, after=None):
        game = self.game
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
            # (_catch_up), so that the commit's frame goes out at once.
            if not self.outbox.defer:
                try:
                    after = Position(game)
                except MemoryError:
                    # All or nothing: the move is not made; the position before it is back.
                    game.pop()
                    self.pos = Position(game)
                    raise
        index = len(game.move_stack) - 1
        text = foot.move.text()
        if self.clock is None:
            self._send_move(index, text)  # the journal's record first, then the host
        else:
            # The commit is the instant the mover's clock stops (docs/clocks.md).
            self.clock.committed(self, now, mover, index, text)
        self.commits += 1
        self._gc_due = True
        self.pos = after
        self._prev_occ = before
        self._pending = None
        self._due_what = _DUE_NONE
        self.host = None
        self.hint = None
        self._hint_i = -1
        self._drop_search()
        self.result = None
        self._fresh = True
        if after is None:
            # The commit's frame: the move's picture gone, the new one still to come
            # (what may move next needs the legal moves: the next scan's work).
            r = self.renderer
            r.begin()
            r.end()
            return
        self._catch_up(now)

    def _catch_up(self, now):
        """The rest of a commit (``_fresh``): the next position (its legal moves and
        footprints) if the commit left it, then the game's end, a forced pass or the
        new position's picture. By the scan after the commit, or at once by whatever
        needs the position first (a press, a host request)."""
        if not self._fresh:
            return
        game = self.game
        after = self.pos
        if after is None:
            after = Position(game)  # a MemoryError: tried again by the next scan
            self.pos = after
        self._fresh = False
        # Points that differ from the new position were touched for the next move.
        touched = self.touched
        occ = after.occ
        stable = self.stable
        if occ == stable:
            touched[:] = self.renderer.zero  # the usual case: one C-level copy
        else:
            for i in range(self.n):
                touched[i] = 1 if occ[i] != stable[i] else 0
        if game.is_game_over():
            self._enter_over(now)
            return
        if after.pass_move is not None:
            self._commit_pass(now)
            return
        self._evaluate(now)

    def _commit_pass(self, now):
        """A forced pass needs no action: commit it and show it for a moment."""
        game = self.game
        team = game.team_of(game.turn)
        self.overlays.notice(now, L.paint_pass, game.board, self._team_of_code, team)
        pos = self.pos
        if pos is None or pos.pass_move is None:
            pos = Position(game)
        self.pos = pos
        self._commit(now, pos.foot[0])
        # The position after it and its picture in this same scan: a forced pass is
        # found by the scan after a commit, and is not left for another one.
        self._catch_up(now)

    def _show_error(self, now):
        r = self.result
        pos = self.pos
        if r is None or pos is None:
            return
        self.error_shown = True
        names = self.game.geometry.names
        missing = " ".join([names[p] for p in r.gone])
        extra = " ".join([names[p] for p in r.added])
        if self.host is not None:
            seen = r.move.text() if r.kind == FINISHED else "another position"
            self.last_error = "expected %s, the board shows %s" % (self.host.move.text(), seen)
            self._send_event("wrong", self.last_error)
            L.paint_error(self.renderer, pos, r, self.host)
            return
        if r.stuck >= 0:
            self.last_error = "%s may not move" % names[r.stuck]
            self._send_event("error", self.last_error)
            return  # the stuck picture stays: it says what may move instead
        self.last_error = "missing: %s; extra: %s" % (missing or "-", extra or "-")
        self._send_event("error", self.last_error)
        L.paint_error(self.renderer, pos, r)

    # -- take-back ------------------------------------------------------------------
    def _auto_takeback(self, now):
        """The player restored the position before the last move: take it back."""
        self._takeback(now)

    def _takeback(self, now):
        game = self.game
        outcome = game.outcome() if self.phase == OVER else None
        if outcome is not None and outcome.termination == "time":
            raise ValueError("a loss on time cannot be taken back: start a new game")
        if outcome is not None and outcome.termination in _DECLARED:
            game.clear_agreement()
            self.hv += 1  # (the journal's E clear record adds one too)
            self.outbox.end("clear", "")
            self._send_event("takeback", "end")
            self._enter_setup(now)
            self._send_state()
            return
        if not game.move_stack:
            raise ValueError("nothing to take back: no move has been played in this game")
        game.clear_agreement()
        game.pop()
        index = len(game.move_stack)
        self.hv += 1  # (the journal's U record adds one too)
        self.outbox.takeback(index)
        self._reset_game_state()
        self._send_event("takeback", str(index))
        self._enter_setup(now)
        self._send_state()

    # -- buttons --------------------------------------------------------------------
    def _ok(self, now):
        if self.phase == PLAY and self._pending is not None:
            self._commit(now, self._pending)
        elif self.phase == SETUP and self._stage_due:
            staged().next_stage(self, now)
        elif self.phase == OVER:
            # The same rules again; a game set up from a position starts from it again.
            self._new_game(
                str(self.game.ruleset), now, None, self.position, None if self.clock is None else self.clock.again()
            )
            self._send_state()

    def _hint_button(self, now):
        """HINT: the board starts thinking of its own hint (shown at once if no host
        is connected, else if the host sends none within HOST_HINT_MS); HINT while a
        hint is shown shows the next legal move (cycling). The host has been told of
        the press (``_buttons``) and may answer with its own hint."""
        self._catch_up(now)  # pressed with OK that committed a move in this very scan
        pos = self.pos
        if self.phase != PLAY or pos is None or not pos.foot or self.host is not None:
            return
        if self._search is not None:
            return  # already thinking
        if self.hint is None:
            try:
                # Loaded at each HINT and unloaded once the hint is shown (_drop_search):
                # a board whose players do not ask keeps that heap.
                from zuni_board.hint import HintSearch

                self._search = HintSearch(self.game, pos.moves)
            except MemoryError:
                pass  # no room to think: HINT shows the legal moves, as it always could
            else:
                self._search_at = now
                link = self.link
                self._search_host = link is not None and hasattr(link, "host_present") and link.host_present(now)
                return
        foot = pos.foot
        self._hint_i = (self._hint_i + 1) % len(foot)
        self.hint = foot[self._hint_i]
        self._evaluate(now)

    def _drop_search(self):
        """Forget the board's own hint search (its line of moves is not on the game)
        and unload its code."""
        if self._search is not None:
            self._search = None
            _unload_hint()

    def _think(self, now):
        """One slice of the board's own hint per scan; the hint is shown in the scan
        after the search ends, unless a connected host still has time to send its own."""
        search = self._search
        pos = self.pos
        if search is None or pos is None:
            return
        if not search.done:
            if ticks_diff(now, self._search_at) < HINT_THINK_MS:
                search.step(HINT_SLICE)
                return
            search.stop()
        if self._search_host and ticks_diff(now, self._search_at) < HOST_HINT_MS:
            return
        best = search.best
        self._drop_search()
        foot = pos.find(best) if best is not None else None
        if foot is None:
            return
        self.hint = foot
        self._hint_i = pos.foot.index(foot)
        self._send_event("hint", foot.move.text())
        self._evaluate(now)

    # -- host commands (zuni_link.session calls these) -------------------------------
    def command(self, name, arg, now=None):
        """A host request ``name`` with its text ``arg``: checked and dispatched by the
        one command table (``zuni_link.commands``); raises ValueError (a FrameError for
        bad arguments) naming the input to refuse it. Its journal records and messages
        go out before the session's reply."""
        # Imported here: the link session has it loaded already (a board without a host
        # never needs it, and a game's heap is measured without the link).
        from zuni_link import commands

        if now is None:
            # The session calls this from poll(now), in the same scan as step(now).
            now = self._now
        try:
            self._catch_up(now)  # a request in a commit's own scan sees the whole position
            handler = getattr(self, commands.method(name))
            handler(now, commands.parse(name, arg))
        finally:
            self.outbox.flush()

    def cmd_new(self, now, text):
        """``new [clock=CONTROL] RULESET``: a new game, on a clock with ``clock=``."""
        spec = None
        if text.startswith("clock="):
            spec, text = clocks().split(text)
        game = self._ruleset_for_board(text)
        clock = clocks().for_game(spec, game) if spec is not None else None
        self._new_game(text, now, game, None, clock)
        self._send_state()

    def cmd_setup(self, now, text):
        """``setup [clock=CONTROL] POSITION``: a new game from the position ``text``
        (docs/rules.md, "Positions as text"), set up one side at a time
        (``zuni_board.staged``)."""
        spec = None
        if text.startswith("clock="):
            spec, text = clocks().split(text)
        game = staged().position_game(self, text)
        clock = clocks().for_game(spec, game) if spec is not None else None
        self._new_game(str(game.ruleset), now, game, text, clock)
        self._send_state()

    def cmd_takeback(self, now, history):
        """``history``: None, or the (hv, moves) the host takes the last move of: a
        request for a history the board no longer has (done already before a reset, or
        the board changed since) is refused, so a take-back is never done twice."""
        if history is not None:
            hv, n = history
            have = len(self.game.move_stack)
            if hv != self.hv or n != have:
                from zuni_link.codec import E_STALE, FrameError

                raise FrameError(
                    E_STALE,
                    "takeback from history %d with %d moves: the board's is %d with %d moves" % (hv, n, self.hv, have),
                )
        self._takeback(now)

    def cmd_hostmove(self, now, text):
        pos = self._require_play("hostmove " + text)
        self.host = pos.find(self.game.parse_move(text))
        if self.clock is not None and self.host is not None:
            # The computer has decided: its clock stops, the player's runs while the
            # move is carried out (docs/clocks.md).
            self.clock.hostmove(self, now)
        self.hint = None
        self._drop_search()
        self._evaluate(now)

    def cmd_hint(self, now, text):
        pos = self._require_play("hint " + text)
        self._drop_search()  # the host's hint (or its clearing) wins over the board's
        if text:
            self.hint = pos.find(self.game.parse_move(text))
        else:
            self.hint = None
        self._evaluate(now)

    def cmd_ledtest(self, now, walk_ms):
        self.overlays.ledtest(now, walk_ms)

    def cmd_raw(self, now, on_off):
        self.raw = on_off == "on"
        if self.raw:
            # What the switches show now, before any change: bring-up sees a switch
            # stuck closed at once. One 0/1 per point in point order (as the state's
            # occupancy), so that it fits one line on the 168-square board too.
            self._send_event("sensed", self._occupancy_text())

    def cmd_resign(self, now, side_name):
        side = side_from_name(side_name)
        if side >= len(SIDE_NAMES) or not self._plays(side):
            raise ValueError("%s does not play in %s" % (side_name, self.game.ruleset))
        self._require_not_over("resign " + side_name)
        self.game.resign(side)
        self.outbox.end("resign", side_name)
        self._enter_over(now)

    def cmd_agree(self, now, what):
        self._require_not_over("agree " + what)
        self.game.agree(what)
        self.outbox.end("agree", what)
        self._enter_over(now)

    def cmd_button(self, now, button):
        self._ok(now)  # `button ok`: as if OK were pressed

    def _plays(self, side):
        names = self.game.team_names()
        if len(names) and "+" in names[0]:
            return True  # four players: every side plays
        return side == 0 or side == 2

    def _require_play(self, what):
        pos = self.pos
        if self.phase != PLAY or pos is None:
            raise ValueError("%s: no game in play (the board is in %s)" % (what, PHASE_NAMES[self.phase]))
        return pos

    def _require_not_over(self, what):
        if self.phase == OVER or self.game.is_game_over():
            raise ValueError("%s: the game is already over" % (what,))

    # -- what the link asks ---------------------------------------------------------
    # Whatever the host reads, the journal holds first: a move the link reports has its
    # record on the flash, so a reset can never take back a move the host already has.
    def hello_info(self):
        self._catch_up(self._now)
        self.outbox.flush()
        info = {
            "fw": FIRMWARE_VERSION,
            "layout": self.layout_name,
            "ruleset": str(self.game.ruleset),
            "phase": PHASE_NAMES[self.phase],
        }
        if self.position is not None:
            info["position"] = self.position
        if self.board_id:
            info["id"] = self.board_id
        return info

    def state_info(self):
        self._catch_up(self._now)
        self.outbox.flush()
        game = self.game
        info = {
            "game": self.game_id,
            "moves": len(game.move_stack),
            "hv": self.hv,
            "ruleset": str(game.ruleset),
            "phase": PHASE_NAMES[self.phase],
            "turn": SIDE_NAMES[game.turn],
            # The sensed (debounced) occupancy, one 0/1 per point in point order; the
            # link writes a bytearray as such a string.
            "occupancy": bytes(self.stable),
        }
        if self.position is not None:
            info["position"] = self.position
        if self._stage >= 0 and self.phase == SETUP:
            info["setup"] = self.setup_side()
        if self.phase == OVER:
            outcome = game.outcome()
            if outcome is not None:
                info["result"] = outcome.result
                info["termination"] = outcome.termination
        if self.host is not None:
            info["hostmove"] = self.host.move.text()
        if self.clock is not None:
            self.clock.report(self, info)
        if self.error_shown and self.last_error:
            info["error"] = self.last_error.replace(" ", "_")
        if self.outbox.failing:
            info["journal"] = "failing"
        return info

    def _occupancy_text(self):
        return "".join(["1" if v else "0" for v in self.stable])

    def moves_from(self, index, count=-1):
        """The texts of the moves from ``index``: all of them, or at most ``count``."""
        self.outbox.flush()
        stack = self.game.move_stack
        end = len(stack) if count < 0 else min(len(stack), index + count)
        return [stack[i].text() for i in range(index, end)]

    # -- for tests and tools --------------------------------------------------------
    def describe(self):
        """The LED picture as text (point:colour/pattern)."""
        return self._picture().describe(self.game.geometry.names)
