"""A game resumed from the journal after a reset, replayed over the scans after the
boot hello (``BoardApp(..., resume_slice)``; firmware/main.py's ``RESUME_SLICE`` moves a
scan): loaded for it, unloaded once the game is whole, so that the board in play does
not keep this code. docs/firmware-timing.md, "Boot".

While ``app.replay`` holds the journal's move texts the host is answered from them
(``zuni_board.hostcmd``: ``moves=``, the digests, ``resuming=``), the pieces sensed
are kept and presses wait; nothing is written, so a power cut in it only means the
replay starts again.
"""

import zuni_board
from zuni_board import SETUP


def begin(app, now):
    """Read the journal's newest game; True if it is to be resumed (``app.replay``
    then holds its texts), False if there is none, it is finished or not this board's."""
    journal = app.journal
    try:
        found = journal.resume()
    except (OSError, ValueError):
        return False
    finally:
        zuni_board.unload(("zuni_board.journalread",))  # boot-time code: garbage from now on
    app.hv = journal.version  # a new game continues from it too
    if found is None:
        return False
    game_id, ruleset_text, texts, end = found
    if end is not None:
        return False  # resigned or agreed: finished
    position = journal.position
    try:
        if position is not None:
            from zuni_board.staged import position_game

            game = position_game(position, app.fits)
        else:
            game = app.game_for_board(ruleset_text)
    except ValueError:
        return False  # another board's game, or a journal the rules no longer accept
    app.start_occ = game.occupancy()
    app.game = game
    app.game_id = game_id
    app.position = position
    app.outbox.position = position
    app.play.reset()
    app.phase = SETUP  # dark until the replay is done (the renderer is blank)
    app.replay = texts
    app.replayed = 0
    return True


def scan(app, now, stable, buttons):
    """A scan while replaying: ``app.resume_slice`` more moves; the pieces sensed are
    kept for the setup that follows and presses wait (``app.hold``). True while the
    replay goes on (the scan is done), False once the game is whole."""
    moves(app, now, app.resume_slice)
    if app.replay is None:
        return False
    if stable is not None:
        mine = app.stable
        for i in range(app.n):
            mine[i] = 1 if stable[i] else 0
    app.hold(buttons)
    return True


def moves(app, now, count):
    """Replay ``count`` more moves (-1: all); after the last the game goes on (setup,
    then play) or, finished or unreadable, a new one starts; the host gets a ``state``."""
    texts = app.replay
    n = len(texts)
    game = app.game
    i = app.replayed
    end = n if count < 0 else min(n, i + count)
    try:
        while i < end:
            game.push_text(texts[i])
            i += 1
    except ValueError:
        end = -1  # a journal the rules no longer accept
    app.replayed = i
    if end >= 0 and i < n:
        return
    app.replay = None
    zuni_board.unload(("zuni_board.resume",))
    if end < 0 or game.is_game_over():
        app.new_game(app.ruleset_text, now)
    else:
        journal = app.journal
        clock = None
        if journal.clock is not None:
            from zuni_board import clocks

            try:
                clock = clocks.resume(journal.clock, game, journal)
            except (OSError, ValueError):
                pass  # clocks this firmware cannot read: the game goes on without them
        app.clock = clock
        app.outbox.clock = clock
        app.play.reset()
        # A set-up position not yet played from is set up again side by side.
        app.enter_setup(now, app.position is not None and n == 0)
    if app.resume_slice > 0 and n:
        app.outbox.state()  # the boot hello said "resuming": the host learns the end
