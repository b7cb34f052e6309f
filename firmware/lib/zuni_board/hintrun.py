"""The board's own hint as the board runs it: ``search_for`` makes the search of a
position (``zuni_board.linehint.LineSearch`` in the line games, ``zuni_board.hint.HintSearch``
in Awithlaknakwe: only the one the game needs is loaded), ``run`` gives it a slice a scan
until Play's deadlines say to show its move. Loaded at HINT with the search, unloaded once
the hint is shown."""

from micropython import const

# Bytes of the line games' search buffer (zuni.linefast.arena: its tables, then its move
# stack; a Kolowis position's 60 moves are some 190 bytes, a line of 12 plies and its
# captures stays below 1.5 KB in the games of tools/bench_hint.py). Full: the search
# ends with the best move it has (``full``).
ARENA = const(3072)


# -- the hint as it runs on the board ------------------------------------------------
def search_for(game, moves=None, buf=None):
    """The board's hint search of ``game``'s position: ``linehint.LineSearch`` in a line
    game (its own copy of the board, viper loops: depth 4 and more on the RP2040),
    ``HintSearch`` in Awithlaknakwe. ``moves``: the position's legal moves, if known;
    ``buf``: the line search's ARENA bytes if the caller made them (``play.Play`` does at
    HINT, before the search's code is loaded), None to make them here."""
    if buf is None and game.ruleset.game_id != "awithlaknakwe":
        # The line search's one large block first, while the heap still has a hole of
        # its size (before its code is loaded in pieces). A heap with the bytes but not
        # in one piece gets the general search, which needs only small blocks.
        try:
            buf = bytearray(ARENA)
        except MemoryError:
            pass
    if buf is not None:
        from zuni_board.linehint import LineSearch

        return LineSearch(game, moves, buf=buf)
    from zuni_board.hint import HintSearch

    return HintSearch(game, moves)


def run(search, now, think, host, budget):
    """The board's own hint as the board runs it (``play.Play``, which owns the search and
    the two deadlines, calls this every scan while it thinks): one slice of ``budget``
    work a scan until ``think`` is due (``play.HINT_THINK_MS`` after HINT), then held back
    while ``host`` is armed and not yet due (``play.HOST_HINT_MS`` after HINT, a host
    connected: it may send its own hint first). True once the search's ``best`` is to be
    shown. A function here, its constants and deadlines in the app's resident code: a
    runner object in a module of its own cost the hint's heap peak a KiB
    (docs/firmware-timing.md, "The split of BoardApp")."""
    if not search.done:
        if not think.due(now):
            search.step(budget)
            return False
        if search.slices == 0:
            search.step(budget)  # however late (a slow chip): the root's moves and a best
        search.stop()
    return not host.armed or host.due(now)
