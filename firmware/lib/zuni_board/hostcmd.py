"""What a connected host asks of the board: its commands (``new``, ``setup``, ``hostmove``,
``hint``, ``grade``, ``takeback``, ``resign``, ``agree``, ``ledtest``, ``raw``, ``button``) and its
queries (``hello``, ``state``, the moves from an index).

``HostCommands(app)`` is made by ``BoardApp`` on the host's first frame (a board that
plays without a host never loads this module, nor ``zuni_link.commands``); the link
session calls the app, the app this. Every request first completes a commit still in
progress (``Play.catch_up``) and flushes the outbox before the reply: whatever the host
reads, the journal holds first, so a reset can never take back a move the host already
has.
"""

from zuni.core import SIDE_NAMES, side_from_name
from zuni_board import OVER, PHASE_NAMES, PLAY, SETUP


def _clocks():
    from zuni_board import clocks

    return clocks


class HostCommands:
    def __init__(self, app):
        self.app = app

    def command(self, name, arg, now):
        """A host request ``name`` with its text ``arg``: checked and dispatched by the
        one command table (``zuni_link.commands``); raises ValueError (a FrameError for
        bad arguments) naming the input to refuse it. Its journal records and messages
        go out before the session's reply."""
        # Imported here: the link session has it loaded already.
        from zuni_link import commands

        app = self.app
        try:
            if name != "new" and name != "setup":
                app.finish_resume(now)  # it needs the resumed game's position: the rest at once
            app.play.catch_up(now)  # a request in a commit's own scan sees the whole position
            handler = getattr(self, commands.method(name))
            handler(now, commands.parse(name, arg))
        finally:
            app.outbox.flush()

    def cmd_new(self, now, text):
        """``new [clock=CONTROL] RULESET``: a new game, on a clock with ``clock=``."""
        spec = None
        if text.startswith("clock="):
            spec, text = _clocks().split(text)
        app = self.app
        game = app.game_for_board(text)
        clock = _clocks().for_game(spec, game) if spec is not None else None
        app.new_game(text, now, game, None, clock)
        app.outbox.state()

    def cmd_setup(self, now, text):
        """``setup [clock=CONTROL] POSITION``: a new game from the position ``text``
        (docs/rules.md, "Positions as text"), set up one side at a time
        (``zuni_board.staged``)."""
        from zuni_board.staged import position_game

        spec = None
        if text.startswith("clock="):
            spec, text = _clocks().split(text)
        app = self.app
        game = position_game(text, app.fits)
        clock = _clocks().for_game(spec, game) if spec is not None else None
        app.new_game(str(game.ruleset), now, game, text, clock)
        app.outbox.state()

    def cmd_takeback(self, now, history):
        """``history``: None, or the (hv, moves) the host takes the last move of: a
        request for a history the board no longer has (done already before a reset, or
        the board changed since) is refused, so a take-back is never done twice."""
        app = self.app
        if history is not None:
            hv, n = history
            have = len(app.game.move_stack)
            if hv != app.hv or n != have:
                from zuni_link.codec import E_STALE, FrameError

                raise FrameError(
                    E_STALE,
                    "takeback from history %d with %d moves: the board's is %d with %d moves" % (hv, n, app.hv, have),
                )
        app.takeback(now)

    def cmd_hostmove(self, now, text):
        pos = self._require_play("hostmove " + text)
        self.app.play.host_move(now, pos.find(self.app.game.parse_move(text)))

    def cmd_hint(self, now, text):
        pos = self._require_play("hint " + text)
        play = self.app.play
        play.drop_search()  # the host's hint (or its clearing) wins over the board's
        play.host_hint(now, pos.find(self.app.game.parse_move(text)) if text else None)

    def cmd_grade(self, now, text):
        """``grade mistake|blunder POINT``: the host graded the move just made a mistake
        or a blunder; the moved piece's point shows it until the next move. ``grade
        off``: no more."""
        words = text.split()
        self._require_play("grade " + text)
        app = self.app
        play = app.play
        if words == ["off"]:
            play.graded = None
        elif len(words) != 2 or words[0] not in ("mistake", "blunder"):
            raise ValueError("grade takes mistake|blunder POINT or off, got %r" % (text,))
        else:
            play.graded = (app.game.geometry.point(words[1]), 2 if words[0] == "blunder" else 1)
        play.graded_ply = len(app.game.move_stack)
        play.evaluate(now)

    def cmd_ledtest(self, now, walk_ms):
        self.app.overlays.ledtest(now, walk_ms)

    def cmd_raw(self, now, on_off):
        app = self.app
        app.raw = on_off == "on"
        if app.raw:
            # What the switches show now, before any change: bring-up sees a switch
            # stuck closed at once. One 0/1 per point in point order (as the state's
            # occupancy), so that it fits one line on the 168-square board too.
            app.outbox.event("sensed", "".join(["1" if v else "0" for v in app.stable]))

    def cmd_resign(self, now, side_name):
        app = self.app
        side = side_from_name(side_name)
        if side >= len(SIDE_NAMES) or not self._plays(side):
            raise ValueError("%s does not play in %s" % (side_name, app.game.ruleset))
        self._require_not_over("resign " + side_name)
        app.game.resign(side)
        app.outbox.end("resign", side_name)
        app.enter_over(now)

    def cmd_agree(self, now, what):
        app = self.app
        self._require_not_over("agree " + what)
        app.game.agree(what)
        app.outbox.end("agree", what)
        app.enter_over(now)

    def cmd_button(self, now, button):
        self.app.ok(now)  # `button ok`: as if OK were pressed

    def _plays(self, side):
        names = self.app.game.team_names()
        if len(names) and "+" in names[0]:
            return True  # four players: every side plays
        return side == 0 or side == 2

    def _require_play(self, what):
        app = self.app
        pos = app.play.pos
        if app.phase != PLAY or pos is None:
            raise ValueError("%s: no game in play (the board is in %s)" % (what, PHASE_NAMES[app.phase]))
        return pos

    def _require_not_over(self, what):
        app = self.app
        if app.phase == OVER or app.game.is_game_over():
            raise ValueError("%s: the game is already over" % (what,))

    # -- what the link asks ---------------------------------------------------------
    def hello_info(self, now):
        app = self.app
        app.play.catch_up(now)
        app.outbox.flush()
        info = {
            "fw": app.version,
            "layout": app.layout_name,
            "ruleset": str(app.game.ruleset),
            "phase": PHASE_NAMES[app.phase],
        }
        if app.position is not None:
            info["position"] = app.position
        if app.board_id:
            info["id"] = app.board_id
        if app.replay is not None:
            info["resuming"] = len(app.replay) - app.replayed
        return info

    def state_info(self, now):
        app = self.app
        play = app.play
        play.catch_up(now)
        app.outbox.flush()
        game = app.game
        info = {
            "game": app.game_id,
            "moves": self._move_count(),
            "hv": app.hv,
            "ruleset": str(game.ruleset),
            "phase": PHASE_NAMES[app.phase],
            # The sensed (debounced) occupancy, one 0/1 per point in point order; the
            # link writes a bytearray as such a string.
            "occupancy": bytes(app.stable),
        }
        if app.replay is not None:
            # The journal's game is still replayed (setup follows): no turn to tell yet.
            info["resuming"] = len(app.replay) - app.replayed
        else:
            info["turn"] = SIDE_NAMES[game.turn]
        if app.position is not None:
            info["position"] = app.position
        if app.staged is not None and app.phase == SETUP:
            info["setup"] = app.setup_side()
        if app.phase == OVER:
            outcome = game.outcome()
            if outcome is not None:
                info["result"] = outcome.result
                info["termination"] = outcome.termination
        if play.host is not None:
            info["hostmove"] = play.host.move.text()
        if app.clock is not None:
            app.clock.report(info, now)
        if play.error_shown and play.last_error:
            info["error"] = play.last_error.replace(" ", "_")
        if app.outbox.failing:
            info["journal"] = "failing"
        if app.fault:
            info["fault"] = app.fault
        supply = app.supply
        if supply is not None:
            info["faultline"] = supply.level  # the ~FAULT line's last read: 1 high (fine), 0 low
        return info

    def moves_from(self, index, count=-1):
        """The texts of the moves from ``index``: all of them, or at most ``count`` (the
        link's ``moves`` reply asks a few at a time)."""
        self.app.outbox.flush()
        app = self.app
        replay = app.replay  # a game resumed and still replayed: the journal's texts
        end = self._move_count() if count < 0 else min(self._move_count(), index + count)
        if replay is not None:
            return replay.texts(index, end)
        stack = app.game.move_stack
        return [stack[i].text() for i in range(index, end)]

    def _move_count(self):
        app = self.app
        replay = app.replay
        return len(app.game.move_stack) if replay is None else len(replay)
