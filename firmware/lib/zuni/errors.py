"""Exceptions of the rules engine.

Kept small and specific; every message names the bad input (and, for moves, the
position) so that a user reading it on a terminal or in a log can act on it.
Single inheritance only: MicroPython's support for multiple exception bases is partial.
"""


class ZuniError(ValueError):
    """Base class of every error the rules engine raises on bad input."""


class RulesetError(ZuniError):
    """A ruleset string names an unknown game, option or value."""


class MoveError(ZuniError):
    """Base class for errors about a move."""


class MoveParseError(MoveError):
    """A move's text is not well formed or names unknown points."""


class IllegalMoveError(MoveError):
    """A well formed move that is not legal in the position."""


class GameOverError(ZuniError):
    """An action that needs a game in progress was tried on a finished game."""
