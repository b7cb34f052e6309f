"""The setup of a position, one side at a time (the host's ``setup POSITION``): reed
switches cannot tell the sides apart, so the board lights where one side's pieces go
(seating order South, West, North, East: side by side with four players; a side's bow
priest on the board with it), the player places them, and once the board matches, OK or
SETUP_SETTLE_MS without a change lights the next side's points on top of them; after the
last side, play starts.

``StagedSetup`` owns the stage, its sides and the settle deadline; the app asks it what
to light (``target()``) and tells it when the board matches (``matched(now)``). Loaded
only when a game is set up from a position (``zuni.position`` with it), so that a board
playing from the start never holds this code.
"""

from micropython import const
from zuni.core import SIDE_NAMES, piece_side
from zuni_board.ticks import Deadline

# The longest start position a board takes: its text, escaped, goes in the hello and
# state frames (a state too long for the link's 512-byte line with the 168-point board's
# occupancy sends it as "position=+": docs/protocol.md).
POSITION_MAX = 280

# A side's pieces placed (the board matches) and left alone this long: the next side's
# go on (a board without buttons; OK goes on at once).
SETUP_SETTLE_MS = const(1500)


def position_game(text, fits):
    """The game of the position ``text``; ValueError if it is too long, over, or if
    ``fits(game)`` (the board's check that it can play the game) refuses it."""
    from zuni.position import parse_position
    from zuni_board import unload
    from zuni_link.codec import esc

    size = len(esc(text))
    if size > POSITION_MAX:
        raise ValueError("setup: a position of %d characters escaped (this board takes %d)" % (size, POSITION_MAX))
    game = parse_position(text)
    # The position reader is dropped once the game is built (a few KB of code the game
    # does not need again until the next setup or reset).
    unload(("zuni.position", "zuni.awith_pos"))
    fits(game)
    if game.is_game_over():
        raise ValueError("position %r: the game is already over there" % (text,))
    return game


def begin(game):
    """The staged setup of ``game``'s position at its first side, or None if there is
    only one side on the board (nothing to tell apart: the usual setup)."""
    present = [0, 0, 0, 0]
    for code in game.board:
        if code:
            present[piece_side(code)] = 1
    sides = tuple([s for s in range(4) if present[s]])
    if len(sides) < 2:
        return None
    return StagedSetup(game, sides)


class StagedSetup:
    def __init__(self, game, sides):
        self.game = game
        self.sides = sides
        self.stage = 0  # index in ``sides`` of the side whose pieces go on now
        # Armed while the board matches a stage before the last: its end (or OK) goes on.
        self.settle = Deadline()

    def side(self):
        """The name of the side whose pieces go on now."""
        return SIDE_NAMES[self.sides[self.stage]]

    def target(self):
        """The points of the pieces of the sides of stages 0..``stage``."""
        sides = self.sides[: self.stage + 1]
        board = self.game.board
        out = bytearray(len(board))
        for i in range(len(board)):
            code = board[i]
            if code and piece_side(code) in sides:
                out[i] = 1
        return out

    def matched(self, now):
        """The board shows ``target()``: True if that was the last side (play starts),
        else the next side waits for OK or SETUP_SETTLE_MS."""
        if self.stage == len(self.sides) - 1:
            return True
        self.settle.set(now, SETUP_SETTLE_MS)
        return False

    def unmatched(self):
        self.settle.cancel()

    def ready(self):
        """The board matches a stage before the last: OK goes on."""
        return self.settle.armed

    def next(self):
        """The current side's pieces are placed (OK, or settled): the next side's."""
        self.settle.cancel()
        self.stage += 1
