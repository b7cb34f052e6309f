"""Hand-made Awithlaknakwe positions: ``AwithGame.from_position`` and ``position``.

Apart from zuni.awith so that a board, which only plays from the start, never loads
this code and its messages (about 3 KB of heap). zuni.awith loads it, so it does not
import zuni.awith: what it needs comes with the game (its geometry, ``pieces_of``, the
class's ``letters`` and ``priest_states``).
"""

from micropython import const
from zuni.core import MAN, NORTH, PRIEST, SIDE_NAMES, SOUTH, piece_code, piece_kind, piece_side
from zuni.errors import ZuniError

# As in zuni.awith (a const named with _ is not a module attribute under MicroPython):
# an empty slot of a side's pieces, the bow priest's slot, and the priest states "none"
# and "board" (their indexes in ``priest_states``).
_GONE = const(255)
_PRIEST_SLOT = const(6)
_P_NONE = const(0)
_P_BOARD = const(2)


def from_position(cls, ruleset, pieces, turn, priests, quiet, taken):
    """A game in a hand-made position, with an empty history.

    - ``pieces``: dict square name -> piece letter: ``s w n e`` a warrior of South,
      West, North, East; ``S W N E`` that side's bow priest.
    - ``turn``: side name to move ("south"; with teams=combined the team's first
      player, "south" or "north").
    - ``priests``: dict side name -> "none", "hand" or "gone" for priests that are
      not on the board (default "none"; a priest on the board is "board").
    - ``quiet``: the quiet counter; ``taken``: captures made so far by each team.

    >>> g = AwithGame.from_position("awithlaknakwe", {"f5": "s", "g6": "n"}, "south",
    ...                             priests={"north": "hand"})

    ZuniError names the bad part; the position must be one the rules can reach in
    kind (at most 6 warriors and one priest per side, only the sides in play, a
    team priest owned by at most one partner)."""
    game = cls(ruleset)
    board = game.board
    letters = cls.letters
    for i in range(len(board)):
        board[i] = 0
    for s in range(4):
        pcs = game.pieces_of(s)
        for k in range(7):
            pcs[k] = _GONE
    _place(game, letters, pieces)
    _priests(game, cls.priest_states, priests)
    _counters(game, turn, quiet, taken)
    return game


def _place(game, letters, pieces):
    """``from_position``'s pieces (square name -> letter) on the cleared board."""
    board = game.board
    geometry = game.geometry
    counts = bytearray(4)
    for name in pieces:
        letter = pieces[name]
        if name not in geometry.index:
            raise ZuniError("unknown square %r in position (squares are a5..n10, b2..m13, e1..j14)" % (name,))
        sq = geometry.index[name]
        if not isinstance(letter, str) or len(letter) != 1 or letter.lower() not in letters:
            raise ZuniError("bad piece %r on %s (allowed: s w n e warriors, S W N E priests)" % (letter, name))
        side = letters.index(letter.lower())
        if side not in game.sides:
            raise ZuniError("piece %r on %s: %s does not play with 2 players" % (letter, name, SIDE_NAMES[side]))
        pcs = game.pieces_of(side)
        if letter.isupper():
            if pcs[_PRIEST_SLOT] != _GONE:
                names = geometry.names
                raise ZuniError("%s has two bow priests (%s and %s)" % (SIDE_NAMES[side], names[pcs[6]], name))
            pcs[_PRIEST_SLOT] = sq
            board[sq] = piece_code(side, PRIEST)
            game.prs[side] = _P_BOARD
        else:
            if counts[side] == 6:
                raise ZuniError("%s has more than 6 warriors (the 7th on %s)" % (SIDE_NAMES[side], name))
            pcs[counts[side]] = sq
            counts[side] += 1
            board[sq] = piece_code(side, MAN)


def _priests(game, priest_states, priests):
    """``from_position``'s priests off the board (side name -> "none", "hand" or "gone")
    and a team priest owned by at most one partner."""
    for side_name in priests or ():
        side = _side(side_name, game.sides)
        state = priests[side_name]
        if state not in ("none", "hand", "gone"):
            raise ZuniError("bad priest state %r for %s (allowed: none, hand, gone)" % (state, side_name))
        if game.prs[side] == _P_BOARD:
            raise ZuniError("%s's priest is on the board, so it cannot be %r" % (side_name, state))
        game.prs[side] = priest_states.index(state)
    if game.team_priest:
        for s in (SOUTH, NORTH):
            if game.prs[s] != _P_NONE and game.prs[3 - s] != _P_NONE:
                raise ZuniError(
                    "%s and %s share one bow priest: only one can own it" % (SIDE_NAMES[s], SIDE_NAMES[3 - s])
                )


def _counters(game, turn, quiet, taken):
    """``from_position``'s turn, quiet counter and captures by team."""
    turn_side = _side(turn, game.sides) if isinstance(turn, str) else turn
    if turn_side not in game.sides:
        raise ZuniError("bad turn %r" % (turn,))
    if game.combined and turn_side not in (SOUTH, NORTH):
        raise ZuniError("with teams=combined the turn is a team: 'south' (south+east) or 'north' (north+west)")
    game.turn = turn_side
    if not isinstance(quiet, int) or quiet < 0 or quiet > 0xFFFF:
        raise ZuniError("bad quiet counter %r (a count >= 0)" % (quiet,))
    game.quiet = quiet
    for t in (0, 1):
        if not isinstance(taken[t], int) or not 0 <= taken[t] <= 14:
            raise ZuniError("bad capture count %r for team %d (0..14)" % (taken[t], t))
        game.taken[t] = taken[t]


def position(game):
    """``(pieces, turn, priests)`` in the form ``from_position`` takes."""
    pieces = {}
    board = game.board
    names = game.geometry.names
    for sq in range(len(board)):
        code = board[sq]
        if code:
            letter = game.letters[piece_side(code)]
            pieces[names[sq]] = letter.upper() if piece_kind(code) == PRIEST else letter
    priests = {}
    for s in game.sides:
        if game.prs[s] != _P_BOARD:
            priests[SIDE_NAMES[s]] = game.priest_states[game.prs[s]]
    return pieces, SIDE_NAMES[game.turn], priests


def _side(name, sides):
    side = -1
    for s in sides:
        if SIDE_NAMES[s] == name:
            side = s
    if side < 0:
        allowed = ", ".join(SIDE_NAMES[s] for s in sides)
        raise ZuniError("bad side %r (allowed: %s)" % (name, allowed))
    return side
