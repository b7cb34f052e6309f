"""The board controller: debounced occupancy and buttons in, moves, LEDs, journal and link out.

``BoardApp(layout, ruleset_text, journal_dir, link)``; the outer loop (firmware/main.py)
calls ``step(now_ms, stable_or_None, buttons, moving)`` every scan, then
``frame_dirty(now_ms)`` and ``frame(now_ms)``. Everything is pure: times are arguments,
tick arithmetic goes through ``ticks_diff``. A scan with no change costs two deadline
checks. Presses and sensor changes are one ordered stream (``step``); the journal and the
link are written through ``outbox.Outbox`` (in order; a failing flash never stops play;
with ``defer_writes()`` off the commit's own scan); LED tests, walks and notices are
``overlay.Overlays``. docs/firmware-timing.md says what happens when.

The app keeps construction, the game's lifecycle, the phases, the scan step, the
buttons and the LED frame; each other concern is an object that owns its state:

- ``play.Play`` (``self.play``): the play phase's pipeline (classify, commit, mistakes),
  take-back and the hint, the board's own search run by ``hintrun.run`` (loaded at HINT);
- ``hostcmd.HostCommands``: the host's commands and queries, loaded at the host's first
  frame (a board without a host keeps that heap);
- ``staged.StagedSetup`` (``self.staged``): a position set up one side at a time;
- ``clocks.BoardClock`` (``self.clock``): a game's clocks, hooks given the game, the
  outbox and the time (``tick`` says when a flag fell);
- ``ticks.Deadline``: every timer (the commit, the settle, held presses, the hint).

Phases (docs/board.md, "What a player sees and does"):

- ``setup``: the LEDs show where the pieces belong (a new game, a game resumed from the
  journal after a reset, a take-back); play starts when the board matches. A game set up
  from a position (the host's ``setup POSITION``) goes one side at a time,
  since reed switches cannot tell the sides apart: the LEDs show where the first side's
  pieces go (priests included), the player places them (a missing or extra piece shown as
  in any setup), and once the board matches, OK (a button, or the host's ``button ok``)
  or the match held for ``staged.SETUP_SETTLE_MS`` (a board without buttons) lights the next
  side's points, on top of those; after the last side, play starts.
- ``play``: each change of the stable occupancy is classified by ``infer``; a finished
  move is committed ``commit_ms`` after the last change (150 = ``stable_ms``: by the
  scan that sees it stable, with its frame within docs/board.md's 200 ms on the RP2040 too;
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
from zuni_board import OVER, PLAY, SETUP, unload
from zuni_board import leds as L
from zuni_board.outbox import Outbox
from zuni_board.overlay import Overlays
from zuni_board.play import Play
from zuni_board.ticks import Deadline

FIRMWARE_VERSION = "0.1.0"

# Buttons bitmask (pressed edges), as the button driver reports them (underscored: a
# const() of a private name costs no global; nothing outside this module names them).
_OK = const(1)
_BACK = const(2)
_HINT = const(4)

# A press waits at most this long for the change before it to settle.
HOLD_MS = const(1000)


def staged():
    """The staged setup of a position, loaded only when a game is set up from one (a
    board that plays from the start never holds it, nor zuni.position)."""
    from zuni_board import staged as module

    return module


class BoardApp:
    version = FIRMWARE_VERSION

    def __init__(self, layout, ruleset_text=None, journal_dir=None, link=None, board_id="", resume_slice=0):
        # board_id: this physical board's unique id (hex of machine.unique_id() on the
        # Pico, read by main.py: the app imports no machine), sent in hello as ``id``.
        self.board_id = board_id
        # A game resumed from the journal is replayed ``resume_slice`` moves a scan (0: at
        # once, in this constructor; the boot hello goes out first): meanwhile ``replay`` holds
        # its move texts (a ``journalread.Texts``) and ``replayed`` counts; None once whole.
        self.resume_slice = resume_slice
        self.replay = None  # type: ignore
        self.replayed = 0
        # Only what the app needs of the layout is kept, so that the caller may drop the
        # layout (its point table is a few KB of heap on the 168-square board).
        self.layout_name = layout.name
        self.rulesets = list(layout.rulesets)
        self.link = link
        self.journal = None
        if journal_dir is not None:
            from zuni_board.journal import Journal

            self.journal = Journal(journal_dir)
        # Journal records and link messages, in order; a failing flash never stops play.
        self.outbox = Outbox(self.journal, self._game_and_id, self._journal_failing)
        self.outbox.attach(link)
        self.raw = False
        # The LED supply's fault line (zuni_hw.fault.SupplyFault, main.py sets it; None: the
        # board reads none) and, once it has tripped, the fault's name ("": none).
        self.supply = None  # type: ignore
        self.fault = ""
        # A layout.Layout or a zuni_board.Board (what main.py keeps of one).
        n = layout.point_count if hasattr(layout, "point_count") else len(layout.points)
        self.n = n
        self.stable = bytearray(n)
        self.renderer = L.Renderer(n)
        self.game_id = ""
        self.hv = 0  # history version (docs/protocol.md): +1 a take-back and a new game
        self.phase = SETUP
        self.target = bytearray(n)
        # A game set up from a position: its text (None: the rules' start), and while
        # it is set up side by side its ``staged.StagedSetup`` (None: not staged).
        self.position = None  # type: str | None
        self.staged = None  # type: ignore
        self.clock = None  # type: ignore  # the game's clocks (zuni_board.clocks.BoardClock)
        # The host's commands and queries (zuni_board.hostcmd), made at its first frame.
        self._host = None  # type: ignore
        self.start_occ = bytearray(n)
        self.now = 0  # the time of the last step (a host request comes in the same scan)
        self._held = 0  # presses waiting for the change before them to be stable
        self._held_until = Deadline()
        ruleset_text = layout.rulesets[0] if ruleset_text is None else ruleset_text
        game = zuni.new_game(ruleset_text)  # a bad ruleset fails here, not later
        self.names = game.geometry.names  # type: tuple
        # Kept here so that main.py need not build them again (168 points: a few KB).
        self.sensor_of, self.led_of = _maps(self, layout, game)
        self.overlays = Overlays(n, self.names, self.led_of, self.outbox.event)
        self.game = game
        # The play phase: position, commit, take-back, hint (zuni_board.play).
        self.play = Play(self, n, layout.timing)
        self.ruleset_text = ruleset_text  # a new game's rules when the journal has none to resume
        _first_game(self, ruleset_text, game)

    # -- the link -------------------------------------------------------------------
    def attach(self, link):
        """Connect the link session (created after the app, since it needs the app)."""
        self.link = link
        self.outbox.attach(link)

    def defer_writes(self):
        """The outer loop's mode: a commit's scan does only the commit and its LED frame;
        the next position's legal moves, the journal record and the messages wait for the
        scans after it (see ``step``, docs/firmware-timing.md)."""
        self.outbox.defer = True

    def _game_and_id(self):
        return self.game, self.game_id

    def _journal_failing(self, reason):
        self.overlays.notice(self.now, L.paint_journal_failing)

    def _hostcmd(self):
        """The host's commands and queries, loaded at the host's first frame (a board
        without a host keeps that heap)."""
        host = self._host
        if host is None:
            from zuni_board.hostcmd import HostCommands

            host = self._host = HostCommands(self)
        return host

    # The link session's calls (zuni_link.session), answered by zuni_board.hostcmd.
    def command(self, name, arg, now=None):
        """A host request ``name`` with its text ``arg`` (``HostCommands.command``); ``now``
        None: the time of the last step (the session calls this from poll(now), in the
        same scan as step(now))."""
        self._hostcmd().command(name, arg, self.now if now is None else now)

    def hello_info(self):
        return self._hostcmd().hello_info(self.now)

    def state_info(self):
        return self._hostcmd().state_info(self.now)

    def moves_from(self, index, count=-1):
        return self._hostcmd().moves_from(index, count)

    # -- games ----------------------------------------------------------------------
    def game_for_board(self, ruleset_text):
        """The rules game for ``ruleset_text`` if this board can play it; ValueError otherwise."""
        game = zuni.new_game(ruleset_text)
        self.fits(game)
        return game

    def fits(self, game):
        """ValueError unless this board can play ``game`` (its points are the board's)."""
        if game.geometry.names != self.names:
            _refuse(self, game)

    def new_game(self, ruleset_text, now, game=None, position=None, clock=None):
        """``clock``: a ``clocks.BoardClock`` for the game (None: no clock)."""
        if game is None:
            if position is not None:
                game = staged().position_game(position, self.fits)
            else:
                game = self.game_for_board(ruleset_text)
        self.replay = None  # a new game replaces a resume still replayed
        self.game = game
        self.position = position
        self.clock = clock
        self.game_id = self.outbox.start(str(game.ruleset), _fallback_id(self), position, clock)
        # A new game is a cut of the history; the journal's header keeps the version.
        self.hv += 1
        if self.journal is not None:
            self.hv = max(self.hv, self.journal.version)
        self.start_occ = game.occupancy()
        self.play.reset()
        self.enter_setup(now, position is not None)

    def hold(self, buttons):
        """Presses that wait (for a change before them to settle, or a replay)."""
        self._held |= buttons

    def finish_resume(self, now):
        """Whatever needs the position has it now: the rest of a replay at once."""
        if self.replay is not None:
            from zuni_board import resume

            resume.moves(self, now, -1)

    # -- phases ---------------------------------------------------------------------
    def enter_setup(self, now, by_side=False):
        """Wait until the board shows ``self.game``'s position (new game, resume, take-back);
        ``by_side``: one side at a time (a game set up from a position: ``zuni_board.staged``)."""
        self.phase = SETUP
        if self.clock is not None:
            self.clock.pause(self.outbox, now)
        self.play.stop()
        self.staged = staged().begin(self.game) if by_side else None
        if self.staged is not None:
            self.target = self.staged.target()
        else:
            self.target = self.game.occupancy()
        _check_setup(self, now)

    def setup_side(self):
        """The side whose pieces the staged setup asks for now, or "" (not staged)."""
        if self.phase != SETUP or self.staged is None:
            return ""
        return self.staged.side()

    def enter_over(self, now):
        self.phase = OVER
        clock = self.clock
        if clock is not None:
            clock.pause(self.outbox, now)
            clock.show_low(self.game, now, True)
        self.play.stop(True)
        game = self.game
        outcome = game.outcome()
        L.paint_over(self.renderer, game.board, self.play.team_of_code, outcome.winner if outcome else None)
        if outcome is not None:
            self.outbox.event("over", "%s %s" % (outcome.result, outcome.termination))
        self.outbox.state()

    # -- the scan step --------------------------------------------------------------
    def step(self, now, stable=None, buttons=0, moving=False):
        """One scan: ``stable`` is the debounced occupancy per point when it changed,
        else None; ``buttons`` the pressed edges (OK=1, BACK=2, HINT=4); ``moving``: the
        debouncer has seen a change that is not yet stable (``Debouncer.in_motion()``).

        Sensor changes and presses are one ordered stream: a press made after a change
        acts on the position that change makes, so while one is being debounced the press
        waits for it (at most HOLD_MS, so a board that never settles still has buttons)."""
        self.now = now
        if self.replay is not None:
            from zuni_board import resume

            if resume.scan(self, now, stable, buttons):
                return  # still replaying
        play = self.play
        # The rest of a commit's work, one piece per scan, never in the commit's own (its
        # LED frame goes out first): the next position's legal moves and its picture,
        # then the journal record and the messages queued before (``defer_writes``),
        # then a garbage collection in a quiet scan, so that the next commit finds the
        # heap free and does not collect itself.
        outbox = self.outbox
        collected = False
        if play.fresh:
            play.catch_up(now)
        elif outbox.queue:
            outbox.flush()
        elif play.gc_due and stable is None and not buttons:
            play.gc_due = False
            gc.collect()
            collected = True
        if self.clock is not None and self.phase == PLAY:
            # First: a move the player finishes in the scan the flag falls is too late.
            if self.clock.tick(self.game, outbox, now):
                self.enter_over(now)
        if stable is not None:
            _sensed(self, now, stable)
            if play.due_commit and play.due.due(now):
                # A move committed at once (commit_ms = stable_ms): before this scan's
                # presses, which act on the position the change made.
                self._fire(now)
        if buttons or self._held:
            if moving and (not self._held or not self._held_until.due(now)):
                if not self._held:
                    self._held_until.set(now, HOLD_MS)
                self._held |= buttons
            else:
                buttons |= self._held
                self._held = 0
                _buttons(self, now, buttons)
        if play.due.due(now):
            self._fire(now)
        elif self.staged is not None and self.staged.settle.due(now):
            _next_stage(self, now)
        if self.overlays.on and self.overlays.step(now):
            self.renderer.invalidate()  # the game picture must be drawn again
        if play.hint_busy() and stable is None and not buttons:
            if moving:
                play.drop_search()  # a hand on the board: the hint is not wanted now
            elif not collected:  # a collection is a scan's work: the hint's step waits
                play.think(now)

    def _fire(self, now):
        if self.phase == PLAY:
            self.play.fire(now)
        else:
            self.play.due.cancel()

    def _picture(self):
        overlays = self.overlays
        return overlays.renderer if overlays.on else self.renderer

    def frame_dirty(self, now):
        if self.clock is not None and not self.overlays.on and self.clock.dirty(now):
            return True  # a low time's tick (zuni_board.clocks)
        return self._picture().dirty(now)

    def supply_fault(self, now):
        """The LED supply switch cut the rail (a short or overload on the LED line): the
        LEDs stay dark from here on (the rail is off; main.py turned it off), the host is
        told by an event and in every state. The game goes on: the sensors do not need it."""
        if self.fault:
            return
        self.fault = "led-supply"
        self.outbox.event("fault", self.fault)
        self.outbox.state()

    def frame(self, now):
        """bytearray, 3 bytes (r, g, b) per point, at full scale (the driver caps it);
        all dark while the LED supply is faulted."""
        buf = self._picture().frame(now)
        if self.fault:
            for i in range(len(buf)):
                buf[i] = 0
            return buf
        if self.clock is not None and not self.overlays.on:
            self.clock.paint(self.renderer, buf, now)
        return buf

    # -- buttons --------------------------------------------------------------------
    def ok(self, now):
        """OK (or the host's ``button ok``): commit the move waiting (a chain stopped
        early), go on to the staged setup's next side, or after the end a new game."""
        play = self.play
        if self.phase == PLAY and play.pending is not None:
            play.commit(now, play.pending)
        elif self.phase == SETUP and self.staged is not None and self.staged.ready():
            _next_stage(self, now)
        elif self.phase == OVER:
            _again(self, now)

    def takeback(self, now):
        """BACK or the host's ``takeback``: ValueError if there is nothing to take back."""
        self.play.takeback(now, self.phase == OVER)

    # -- for tests and tools --------------------------------------------------------
    def describe(self):
        """The LED picture as text (point:colour/pattern)."""
        return self._picture().describe(self.game.geometry.names)


# -- the steps of BoardApp that only it calls (module functions: a class of their own
# would cost heap, tests/checks/test_firmware_heap.py) ------------------------------------


def _sensed(app, now, stable):
    play = app.play
    play.drop_search()  # any change: the player acts, the hint is not wanted now
    mine = app.stable
    touched = play.touched
    changes = None  # type: list[str] | None
    if app.raw:
        changes = []
    for i in range(app.n):
        v = 1 if stable[i] else 0
        if mine[i] != v:
            mine[i] = v
            touched[i] = 1
            if changes is not None:
                changes.append(("+" if v else "-") + app.names[i])
    if changes:
        app.outbox.event("raw", " ".join(changes))
    if app.overlays.player_acted(now):
        app.renderer.invalidate()  # the player acts: show the game again at once
    phase = app.phase
    if phase == PLAY:
        play.evaluate(now)
    elif phase == SETUP:
        if _check_setup(app, now) and app.phase == PLAY:
            # The host learns at once that the board is set up (no polling); a
            # game that ended or passed at once has sent its own state or move.
            app.outbox.state()
    elif app.stable == app.start_occ:
        # Game over and the pieces set up again: a new game.
        _again(app, now)


def _buttons(app, now, buttons):
    # Every press is told to the host (bring-up sees each button; the host asks its
    # engine on HINT), whatever it does on the board. Best effort.
    outbox = app.outbox
    if buttons & _OK:
        outbox.event("button", "ok")
    if buttons & _BACK:
        outbox.event("button", "back")
    if buttons & _HINT:
        outbox.event("button", "hint")
    if buttons & _BACK:
        try:
            app.takeback(now)
        except ValueError:
            pass  # nothing to take back: the button does nothing
    if buttons & _OK:
        app.ok(now)
    if buttons & _HINT:
        app.play.catch_up(now)  # pressed with OK that committed a move in this very scan
        if app.phase == PLAY:
            app.play.hint_button(now)


def _check_setup(app, now):
    """Play starts once the board matches the target; returns True if it did.
    In a staged setup a stage that matches goes on at OK or after its settle time."""
    staged = app.staged
    if app.stable == app.target:
        if staged is None or staged.matched(now):
            app.staged = None
            _enter_play(app, now)
            return True
    elif staged is not None:
        staged.unmatched()
    L.paint_sync(app.renderer, app.target, app.stable)
    return False


def _next_stage(app, now):
    """The staged setup's current side is placed (OK, or settled): light the next."""
    staged = app.staged
    if staged is None:
        return
    staged.next()
    app.target = staged.target()
    app.outbox.event("setup", staged.side())
    if _check_setup(app, now) and app.phase == PLAY:
        app.outbox.state()


def _resume(app, now):
    """Start to continue the journal's newest game (``zuni_board.resume``, loaded
    for it and unloaded once the game is whole)."""
    journal = app.journal
    if journal is None:
        return False
    if not journal.numbers():
        app.hv = journal.version
        return False  # no game at all: its reading code is never loaded
    from zuni_board import resume

    if resume.begin(app, now):
        return True
    unload(("zuni_board.resume",))  # nothing to resume: its code is garbage
    return False


def _fallback_id(app):
    """The game id without a journal (or while it fails): a new one per game, so the
    host never takes two games for one."""
    if app.journal is None:
        return "nojournal"
    from zuni_board.journal import random_hex

    return "nojournal-" + random_hex()


def _enter_play(app, now):
    app.phase = PLAY
    if app.game.is_game_over():
        app.enter_over(now)
        return
    app.play.start(now)


def _maps(app, layout, game):
    """The layout's (sensor_of, led_of) for ``game``'s points; ValueError (the refusal)
    if the board cannot play it."""
    if len(game.geometry.names) != app.n:
        _refuse(app, game)
    try:
        return layout.maps(game.geometry)
    except ValueError:
        _refuse(app, game)


def _first_game(app, ruleset_text, game):
    """The constructor's game: the journal's newest resumed, else ``game`` anew."""
    if not _resume(app, 0):
        app.new_game(ruleset_text, 0, game)
    elif app.resume_slice <= 0 or not len(app.replay):  # type: ignore
        # A game with no move yet (every boot after a new game) is whole at once: the
        # boot hello says so, and no scan nor state after it has a replay to end.
        app.finish_resume(0)


def _again(app, now):
    """A new game after the end: the same rules (from the same position, for a game
    set up from one) and the same time control."""
    clock = None if app.clock is None else app.clock.again()
    app.new_game(str(app.game.ruleset), now, None, app.position, clock)
    app.outbox.state()


def _refuse(app, game):
    raise ValueError(
        "ruleset %r needs a %d-point board; this board (%s) has %d points and plays: %s"
        % (str(game.ruleset), len(game.geometry.names), app.layout_name, app.n, ", ".join(app.rulesets))
    )
