from typing import Any

from zuni.core import Game, Geometry
from zuni.ruleset import Ruleset

P_NONE: int
P_HAND: int
P_BOARD: int
P_GONE: int
PRIEST_STATES: tuple[str, str, str, str]
N_SQUARES: int
SIDE_LETTERS: str
TEAM: bytes
NB: tuple[Any, ...]
DIAG_NB: tuple[Any, ...]
ENEMY: tuple[Any, Any]
HOMES: dict[int, tuple[int, ...]]
TARGET: tuple[int, int, int, int]

def on_board(c: int, r: int) -> bool: ...
def square_name(c: int, r: int) -> str: ...

class SquaresGeometry(Geometry): ...

class AwithGame(Game):
    sides: tuple[int, ...]
    def __init__(self, ruleset: Ruleset | str) -> None: ...
    @classmethod
    def from_position(
        cls,
        ruleset: Ruleset | str,
        pieces: Any,
        turn: str | int,
        priests: Any = None,
        quiet: int = 0,
        taken: tuple[int, int] = (0, 0),
    ) -> AwithGame: ...
    def position(self) -> Any: ...
    def pieces_of(self, side: int) -> list[int]: ...
    def scores(self) -> tuple[int, int]: ...
    def copy(self) -> AwithGame: ...
