"""The setup of a position, one side at a time (``BoardApp.cmd_setup``, the host's
``setup POSITION``): reed switches cannot tell the sides apart, so the board lights where
one side's pieces go (seating order South, West, North, East: side by side with four
players; a side's bow priest on the board with it), the player places them, and once the
board matches, OK or SETUP_SETTLE_MS without a change (``BoardApp._check_setup``) lights
the next side's points on top of them; after the last side, play starts.

Loaded only when a game is set up from a position (``zuni.position`` with it), so that a
board playing from the start never holds this code.
"""

from zuni.core import piece_side

# The longest start position a board takes: its text, escaped, goes in the hello and
# state frames (a state too long for the link's 512-byte line with the 168-point board's
# occupancy sends it as "position=+": docs/protocol.md).
POSITION_MAX = 280


def position_game(app, text):
    """The game of the position ``text`` if ``app``'s board can play it; ValueError otherwise."""
    from zuni.position import parse_position
    from zuni_link.codec import esc

    size = len(esc(text))
    if size > POSITION_MAX:
        raise ValueError("setup: a position of %d characters escaped (this board takes %d)" % (size, POSITION_MAX))
    game = parse_position(text)
    _unload()
    if game.geometry.names != app.names:
        app._refuse(game)
    if game.is_game_over():
        raise ValueError("position %r: the game is already over there" % (text,))
    return game


def _unload():
    """Drop the position reader once the game is built (a few KB of code the game does
    not need again until the next setup or reset)."""
    import sys

    import zuni

    if sys.implementation.name != "micropython":
        return  # the host keeps its classes (PositionError) the same
    for name in ("zuni.position", "zuni.awith_pos"):
        if name in sys.modules:
            del sys.modules[name]
        short = name[5:]
        if short in zuni.__dict__:
            delattr(zuni, short)


def begin(app):
    """Start ``app``'s staged setup at its first side; False if there is only one side
    on the board (nothing to tell apart: the usual setup)."""
    present = [0, 0, 0, 0]
    for code in app.game.board:
        if code:
            present[piece_side(code)] = 1
    sides = tuple([s for s in range(4) if present[s]])
    if len(sides) < 2:
        return False
    app._stage_sides = sides
    app._stage = 0
    app.target = target(app, 0)
    return True


def target(app, stage):
    """The points of the pieces of the sides of stages 0..``stage``."""
    sides = app._stage_sides[: stage + 1]
    out = bytearray(app.n)
    board = app.game.board
    for i in range(app.n):
        code = board[i]
        if code and piece_side(code) in sides:
            out[i] = 1
    return out


def next_stage(app, now):
    """The current side's pieces are placed (OK, or settled): light the next side's."""
    app._stage_due = False
    app._stage += 1
    app.target = target(app, app._stage)
    app._send_event("setup", app.setup_side())
    if app._check_setup(now) and app.phase == 1:  # PLAY
        app._send_state()
