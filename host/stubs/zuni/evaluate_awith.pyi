from zuni.core import Game

ARRIVAL: int
ARRIVAL_PATH: int
PRIEST_ON_BOARD: int
WARRIOR: int

def awith_team0(game: Game) -> int: ...
