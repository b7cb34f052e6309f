"""Repairs for a failing flash, loaded only when the journal meets one (a full flash or
a littlefs error): the heap of every game does not pay for them.

``make_room(journal)``: delete the oldest other game. ``rewrite(journal, moves, left,
seal)``: write the current game again, whole. ``resync(outbox)``: the degraded mode's
attempt to get the journal complete again (see ``outbox.Outbox``). The journal loads this
module; this module does not import the journal.
"""

import os

# Ends of a game that are not a board position: the journal keeps them as records.
_JOURNAL_END = {"resign": "resign", "agreed-draw": "agree", "agreed-count": "agree", "time": "time"}


def make_room(journal):
    for number in journal.numbers():
        path = journal.path_of(number)
        if path != journal.path:
            os.remove(path)
            return True
    return False


def rewrite(journal, moves, left, seal):
    """``Journal.rewrite`` (which has checked that a game is started), its records sealed
    by ``seal`` (journal.seal: passed in, so that this module does not import the journal,
    which loads it)."""
    path = journal.path
    tmp = path + ".tmp"
    try:
        f = open(tmp, "w")
        try:
            f.write(seal(journal.header(journal.game_id, journal.version, journal.ruleset, journal.position)))
            if journal.clock is not None:
                f.write(seal("T " + journal.clock.replace(" ", "%20")))
            for i in range(len(moves)):
                f.write(seal("M %d %s" % (i, moves[i])))
            if journal.clock is not None and left is not None:
                # The clocks as they stand (the moves' own times are not kept in RAM).
                for side in range(4):
                    if left[side] >= 0:
                        f.write(seal("K %d %d" % (side, left[side])))
        finally:
            f.close()
        os.rename(tmp, path)
    except OSError:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


def resync(outbox):
    """Write the game now in play whole; True if that worked (the degraded mode ends)."""
    journal = outbox.journal
    game, game_id = outbox.game_of()
    try:
        if journal.game_id != game_id:
            clock = outbox.clock
            if outbox.position is None and clock is None:
                journal.start(str(game.ruleset), game_id)
            else:
                journal.start(str(game.ruleset), game_id, outbox.position, None if clock is None else clock.spec)
        left = None if outbox.clock is None else outbox.clock.times_left()
        if left is None:
            journal.rewrite([m.text() for m in game.move_stack])
        else:
            journal.rewrite([m.text() for m in game.move_stack], left)
        outcome = game.outcome()
        if outcome is not None and outcome.termination in _JOURNAL_END:
            # The record only has to say that the game ended off the board.
            journal.end(_JOURNAL_END[outcome.termination], outcome.termination)
    except OSError:
        return False
    return True
