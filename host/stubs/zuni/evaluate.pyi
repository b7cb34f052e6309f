from zuni.core import Game

PIECE: int
WIN: int
LINE_MOBILITY: int

def evaluate(game: Game) -> int: ...
def line_team0(game: Game) -> int: ...
