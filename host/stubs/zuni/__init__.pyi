from zuni.core import (
    DROP as DROP,
)
from zuni.core import (
    EAST as EAST,
)
from zuni.core import (
    JUMP as JUMP,
)
from zuni.core import (
    MAN as MAN,
)
from zuni.core import (
    NORTH as NORTH,
)
from zuni.core import (
    PASS as PASS,
)
from zuni.core import (
    PRIEST as PRIEST,
)
from zuni.core import (
    SIDE_NAMES as SIDE_NAMES,
)
from zuni.core import (
    SOUTH as SOUTH,
)
from zuni.core import (
    STEP as STEP,
)
from zuni.core import (
    WEST as WEST,
)
from zuni.core import (
    Game as Game,
)
from zuni.core import (
    Geometry as Geometry,
)
from zuni.core import (
    Move as Move,
)
from zuni.core import (
    Outcome as Outcome,
)
from zuni.core import (
    perft as perft,
)
from zuni.core import (
    piece_code as piece_code,
)
from zuni.core import (
    piece_kind as piece_kind,
)
from zuni.core import (
    piece_side as piece_side,
)
from zuni.errors import (
    GameOverError as GameOverError,
)
from zuni.errors import (
    IllegalMoveError as IllegalMoveError,
)
from zuni.errors import (
    MoveError as MoveError,
)
from zuni.errors import (
    MoveParseError as MoveParseError,
)
from zuni.errors import (
    RulesetError as RulesetError,
)
from zuni.errors import (
    ZuniError as ZuniError,
)
from zuni.ruleset import (
    _SPECS as _SPECS,
)
from zuni.ruleset import (
    GAME_OPTIONS as GAME_OPTIONS,
)
from zuni.ruleset import (
    GAME_TITLES as GAME_TITLES,
)
from zuni.ruleset import (
    Ruleset as Ruleset,
)
from zuni.ruleset import (
    options_of as options_of,
)
from zuni.ruleset import (
    parse_ruleset as parse_ruleset,
)

GAMES: tuple[str, ...]

def new_game(ruleset: Ruleset | str) -> Game: ...
def geometry_for(ruleset: Ruleset | str) -> Geometry: ...
