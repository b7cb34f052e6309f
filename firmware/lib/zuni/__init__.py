"""The rules engine of the three Zuni games, shared by the firmware and the host.

>>> import zuni
>>> game = zuni.new_game("mosona")
>>> [str(m) for m in game.legal_moves()]
['s3xm4-m5'] ... (see docs/rules.md)
>>> game.push_text("s3xm4-m5")

Game modules are imported on demand so that the board only loads the one it plays.
"""

from zuni.core import (  # noqa: F401  (re-exported API)
    DROP,
    EAST,
    JUMP,
    MAN,
    NORTH,
    PASS,
    PRIEST,
    SIDE_NAMES,
    SOUTH,
    STEP,
    WEST,
    Game,
    Geometry,
    Move,
    Outcome,
    perft,
    piece_code,
    piece_kind,
    piece_side,
)
from zuni.errors import (  # noqa: F401
    GameOverError,
    IllegalMoveError,
    MoveError,
    MoveParseError,
    RulesetError,
    ZuniError,
)
from zuni.ruleset import _SPECS, GAME_TITLES, Ruleset, options_of, parse_ruleset  # noqa: F401

GAMES = tuple(sorted(_SPECS))


def __getattr__(name):
    # GAME_OPTIONS is made only when asked for (see zuni.ruleset): it is not needed to play.
    if name == "GAME_OPTIONS":
        from zuni import ruleset

        return ruleset.GAME_OPTIONS
    raise AttributeError("module 'zuni' has no attribute %r" % (name,))


def new_game(ruleset):
    """A game at its start position; ``ruleset`` is a Ruleset or its text."""
    if not isinstance(ruleset, Ruleset):
        ruleset = parse_ruleset(ruleset)
    if ruleset.game_id == "awithlaknakwe":
        from zuni.awith import AwithGame

        return AwithGame(ruleset)
    from zuni.line import LineGame

    return LineGame(ruleset)


def geometry_for(ruleset):
    """The board geometry a ruleset plays on, without building a game."""
    return new_game(ruleset).geometry
