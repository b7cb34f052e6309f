"""One game record, independent of where it is stored, and its validation by the rules engine.

A record is the ruleset, who played each side, the moves in docs/rules.md's text form (each
with the side that played it and when), and how the game ended. ``replay`` plays it
through the rules engine: every move must be legal, and the result, termination and
score must be what the rules (or a resignation or agreement) give.

>>> record = GameRecord("mosona", moves=[MoveEntry("s3xm4-m5")])
>>> replay(record).ply()
1
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field

import zuni
from zuni.clock import clock_spec_text, parse_clock_spec
from zuni.position import parse_position

SIDES: tuple[str, ...] = ("south", "west", "north", "east")  # zuni.SIDE_NAMES, typed
UNFINISHED = "*"
RESULTS = ("south", "north", "south+east", "north+west", "draw", UNFINISHED)
# Ends that are not a position of the board: the record says so and replay applies them.
DECLARED_TERMINATIONS = ("resign", "agreed-draw", "agreed-count", "time")
# Terminations an unfinished game may carry.
OPEN_TERMINATIONS = ("abandoned", "unfinished")

_SCORE = re.compile(r"^(\d+)-(\d+)$")
# The help a person's seat had (``play.assist.ASSISTS``, docs/learn.md) and the grades of
# moves (``play.grades.GRADES``, docs/strength.md): the log's own lists, so that a record
# is checked without the player's code (play/ checks that the two agree).
HELP_LEVELS = ("none", "hints", "warn", "full")
GRADE_NAMES = ("best", "good", "inaccuracy", "mistake", "blunder")


class RecordError(ValueError):
    """A record that cannot be stored or imported; names the line of its source where known.

    >>> str(RecordError("move 3 'm6-m5': not legal", line=12))
    'line 12: move 3 \\'m6-m5\\': not legal'
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        return "line %d: %s" % (self.line, self.message)


@dataclass
class MoveEntry:
    """One move: its text, the side that played it ("" = not yet known) and its time
    (ISO 8601, UTC, or None). ``line`` is where it was read from, for error messages."""

    text: str
    side: str = ""
    time: str | None = None
    line: int | None = field(default=None, compare=False, repr=False)
    # On a clock: the time the move took and the mover's time left after it (ms).
    elapsed_ms: int | None = None
    clock_ms: int | None = None
    # The move's grade (``GRADE_NAMES``) and why ("missed a win in 1"), where the mover's
    # help graded it while the game was played (docs/learn.md); None: not graded.
    grade: str | None = None
    grade_words: str | None = None


@dataclass
class GameRecord:
    """A game: tags, moves and end. ``result`` is a result name of docs/rules.md ("south",
    "north", "south+east", "north+west", "draw") or "*" while unfinished; ``score`` is
    "team0-team1" (South's team first) where the game keeps one."""

    ruleset: str
    players: dict[str, str] = field(default_factory=dict)
    moves: list[MoveEntry] = field(default_factory=list)
    started: str | None = None
    ended: str | None = None
    result: str = UNFINISHED
    termination: str | None = None
    score: str | None = None
    board: str | None = None
    layout: str | None = None
    board_game_id: str | None = None
    # Any other tags (Event, Site, Round, Annotator...), kept as they are.
    tags: dict[str, str] = field(default_factory=dict)
    # The start position when it is not the ruleset's own (docs/rules.md "Positions as
    # text"), and the time control (zuni.clock's text, e.g. "5+3" or "south=5 north=3").
    position: str | None = None
    time_control: str | None = None
    # The help each person's seat had (side -> ``HELP_LEVELS``; empty: not recorded, as in
    # games logged before help levels) and the hints each side could ask per game (None:
    # no limit, or not recorded).
    help: dict[str, str] = field(default_factory=dict)
    hint_limit: int | None = None
    id: int | None = field(default=None, compare=False)
    # Source lines of the record and of its fields ("ruleset", "result", ...), for errors.
    line: int | None = field(default=None, compare=False, repr=False)
    lines: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def line_of(self, what: str) -> int | None:
        return self.lines.get(what, self.line)

    def move_texts(self) -> list[str]:
        return [move.text for move in self.moves]


def help_text(help: dict[str, str]) -> str:
    """The help levels as one line, seats in the rules' order: ``south=warn north=none``."""
    return " ".join("%s=%s" % (side, help[side]) for side in SIDES if side in help)


def parse_help(text: str, line: int | None = None) -> dict[str, str]:
    """``help_text``'s form read back (RecordError naming a bad part)."""
    out: dict[str, str] = {}
    for part in text.split():
        side, eq, level = part.partition("=")
        if not eq or side not in SIDES or level not in HELP_LEVELS:
            raise RecordError(
                "help %r: write SIDE=LEVEL for each person's seat (levels: %s), e.g. south=warn north=none"
                % (part, ", ".join(HELP_LEVELS)),
                line,
            )
        out[side] = level
    return out


def now_iso() -> str:
    """The current time as stored in records: ``2024-05-01T12:00:03.250Z``."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def check_time(value: str, what: str, line: int | None = None) -> str:
    """``value`` if it is an ISO 8601 date or time, else RecordError naming ``what``."""
    try:
        # Python 3.10 reads no "Z" suffix.
        datetime.datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith("Z") else value)
    except ValueError:
        raise RecordError("%s %r is not an ISO 8601 time (e.g. 2024-05-01T12:00:03.250Z)" % (what, value), line)
    return value


def sides_in_play(ruleset: zuni.Ruleset) -> tuple[str, ...]:
    """The seats of a ruleset: ("south", "north"), or all four with ``players=4``."""
    if ruleset.game_id == "awithlaknakwe" and ruleset["players"] == "4":
        return SIDES
    return ("south", "north")


def parse_ruleset(text: str, line: int | None = None) -> zuni.Ruleset:
    try:
        return zuni.parse_ruleset(text)
    except zuni.RulesetError as exc:
        raise RecordError("ruleset %r: %s" % (text, exc), line)


def check_players(record: GameRecord, ruleset: zuni.Ruleset) -> None:
    seats = sides_in_play(ruleset)
    for side, player in record.players.items():
        if side not in seats:
            raise RecordError(
                "player for side %r, which %s does not have (sides: %s)" % (side, ruleset, ", ".join(seats)),
                record.line_of("player:" + side),
            )
        if not player or player != player.strip() or any(c in player for c in '"\n\r\t'):
            raise RecordError(
                "player %r for %s: give a word such as human, ai:3, board" % (player, side),
                record.line_of("player:" + side),
            )


def _score_text(scores: tuple[int, int] | None) -> str | None:
    if scores is None:
        return None
    return "%d-%d" % (scores[0], scores[1])


def start_game(record: GameRecord, ruleset: zuni.Ruleset) -> zuni.Game:
    """The game at the record's start: its ``position``, or the ruleset's start."""
    if record.position is None:
        return zuni.new_game(ruleset)
    try:
        game = parse_position(record.position)
    except zuni.ZuniError as exc:
        raise RecordError(str(exc), record.line_of("position"))
    if game.ruleset != ruleset:
        raise RecordError(
            "position is of %r but the record's ruleset is %r" % (str(game.ruleset), str(ruleset)),
            record.line_of("position"),
        )
    return game


def check_help(record: GameRecord, ruleset: zuni.Ruleset) -> None:
    """The help levels name seats of the game and known levels; the hint limit is a count."""
    seats = sides_in_play(ruleset)
    for side, level in record.help.items():
        if side not in seats or level not in HELP_LEVELS:
            raise RecordError(
                "help %s=%s: a seat of %s (%s) and a help level (%s)"
                % (side, level, ruleset, ", ".join(seats), ", ".join(HELP_LEVELS)),
                record.line_of("help"),
            )
    limit = record.hint_limit
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        raise RecordError(
            "hint limit %r: a number of hints per game, 0 or more" % (limit,), record.line_of("hint_limit")
        )


def check_time_control(record: GameRecord, ruleset: zuni.Ruleset) -> None:
    if record.time_control is None:
        return
    seats = [SIDES.index(side) for side in sides_in_play(ruleset)]
    try:
        record.time_control = clock_spec_text(parse_clock_spec(record.time_control, seats))
    except zuni.ZuniError as exc:
        raise RecordError(str(exc), record.line_of("time_control"))


def replay(record: GameRecord, *, complete: bool = True) -> zuni.Game:
    """Play ``record`` through the rules engine and return the game at its end.

    Checks the ruleset, the players, the times, every move (filling in ``side`` and
    putting the ruleset into canonical form), and, with ``complete``, the end: a game
    the rules have ended must carry that result (a "*" is filled in), a finished game
    that the rules have not ended must say why (resign, agreed-draw, agreed-count).
    Raises RecordError naming the line, the move and the position; ``record`` is then
    left partly filled and must not be stored."""
    ruleset = parse_ruleset(record.ruleset, record.line_of("ruleset"))
    record.ruleset = str(ruleset)
    check_players(record, ruleset)
    check_help(record, ruleset)
    check_time_control(record, ruleset)
    for what in ("started", "ended"):
        value = getattr(record, what)
        if value is not None:
            check_time(value, what, record.line_of(what))
    game = start_game(record, ruleset)
    for index, entry in enumerate(record.moves):
        if entry.time is not None:
            check_time(entry.time, "time of move %d" % (index + 1), entry.line)
        for what, value in (("time used", entry.elapsed_ms), ("clock", entry.clock_ms)):
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < -3600000):
                raise RecordError("move %d: bad %s %r (milliseconds)" % (index + 1, what, value), entry.line)
        if entry.grade is not None and entry.grade not in GRADE_NAMES:
            raise RecordError(
                "move %d: unknown grade %r (grades: %s)" % (index + 1, entry.grade, ", ".join(GRADE_NAMES)), entry.line
            )
        side = SIDES[game.turn]
        if entry.side and entry.side != side:
            raise RecordError(
                "move %d %r is marked as played by %s, but %s is to move (%s)"
                % (index + 1, entry.text, entry.side, side, game.describe()),
                entry.line,
            )
        try:
            game.push_text(entry.text)
        except zuni.MoveError as exc:
            raise RecordError("move %d %r: %s" % (index + 1, entry.text, exc), entry.line)
        entry.side = side
    if complete:
        _check_end(record, game)
    return game


def _check_end(record: GameRecord, game: zuni.Game) -> None:
    if record.result not in RESULTS:
        raise RecordError(
            "unknown result %r (allowed: %s)" % (record.result, ", ".join(RESULTS)), record.line_of("result")
        )
    if record.score is not None and not _SCORE.match(record.score):
        raise RecordError(
            "score %r: write South's team then North's team, e.g. 3-2" % (record.score,), record.line_of("score")
        )
    natural = game.outcome()
    if natural is not None:
        _check_outcome(record, natural, "the rules end the game after %d moves" % game.ply())
        return
    termination = record.termination
    if record.result == UNFINISHED:
        if termination is not None and termination not in OPEN_TERMINATIONS:
            raise RecordError(
                "termination %r for an unfinished game (allowed: %s, or none)"
                % (termination, ", ".join(OPEN_TERMINATIONS)),
                record.line_of("termination"),
            )
        return
    if termination not in DECLARED_TERMINATIONS:
        raise RecordError(
            "result %r, but the game is not over in %s, and termination %r does not say why (allowed: %s)"
            % (record.result, game.describe(), termination, ", ".join(DECLARED_TERMINATIONS)),
            record.line_of("result"),
        )
    if termination == "time" and not record.time_control:
        raise RecordError(
            "termination time (a loss on time) in a game without a time control (TimeControl)",
            record.line_of("termination"),
        )
    if termination in ("resign", "time"):
        teams = game.team_names()
        if record.result not in teams:
            raise RecordError(
                "result %r with termination %s: name the winning team (%s)"
                % (record.result, termination, ", ".join(teams)),
                record.line_of("result"),
            )
        winner = teams.index(record.result)
        seats = sides_in_play(game.ruleset)
        loser = next(SIDES.index(side) for side in seats if game.team_of(SIDES.index(side)) == 1 - winner)
        outcome = game.resign(loser) if termination == "resign" else game.lose_on_time(loser)
    elif termination == "agreed-draw":
        outcome = game.agree("draw")
    else:
        outcome = game.agree("count")
    _check_outcome(record, outcome, "%s in %s" % (termination, game.describe()))


def _check_outcome(record: GameRecord, outcome: zuni.Outcome, why: str) -> None:
    score = _score_text(outcome.scores)
    if record.result == UNFINISHED:
        record.result = outcome.result
        record.termination = outcome.termination if record.termination in (None, "unfinished") else record.termination
    if record.result != outcome.result:
        raise RecordError(
            "result %r, but %s with result %r (%s)" % (record.result, why, outcome.result, outcome.termination),
            record.line_of("result"),
        )
    if record.termination is None:
        record.termination = outcome.termination
    if record.termination != outcome.termination:
        raise RecordError(
            "termination %r, but %s by %r" % (record.termination, why, outcome.termination),
            record.line_of("termination"),
        )
    if record.score is None:
        record.score = score
    elif score is not None and record.score != score:
        raise RecordError("score %r, but %s with score %s" % (record.score, why, score), record.line_of("score"))
