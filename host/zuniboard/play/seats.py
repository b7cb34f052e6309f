"""Who plays each side: ``human``, ``ai:LEVEL``, or ``remote:NAME`` (a person at another
board, in a remote game: docs/remote.md).

>>> parse_player("ai:2")
Seat(kind='ai', level=2)
>>> str(parse_player("human"))
'human'
>>> seats_for("mosona", {"north": "ai:3"})["south"].text
'human'
>>> seats_for("mosona", {})["north"].text      # Mosona is a win for North: yours
'human'
"""

from __future__ import annotations

from dataclasses import dataclass

import zuni
from zuniboard.ai import DEFAULT_LEVEL, LEVELS
from zuniboard.records.record import sides_in_play


@dataclass(frozen=True)
class Seat:
    kind: str  # "human", "ai" or "remote"
    level: int = 0
    name: str = ""  # a remote player's name

    @property
    def is_ai(self) -> bool:
        return self.kind == "ai"

    @property
    def is_remote(self) -> bool:
        return self.kind == "remote"

    @property
    def is_away(self) -> bool:
        """Nobody at this board plays the side: its moves are shown for a person to carry out."""
        return self.kind != "human"

    @property
    def text(self) -> str:
        if self.is_remote:
            return "remote:%s" % self.name
        return "ai:%d" % self.level if self.is_ai else "human"

    def __str__(self) -> str:
        return self.text


HUMAN = Seat("human")
WON_BY_NORTH = "mosona"  # the ruleset North wins by force (docs/rules.md): a person plays North


def parse_player(text: str) -> Seat:
    """``human``, ``ai`` (the default level) or ``ai:LEVEL``; ValueError naming the text."""
    word = text.strip().lower()
    if word == "human":
        return HUMAN
    if word == "ai":
        return Seat("ai", DEFAULT_LEVEL)
    if word.startswith("remote:"):
        return Seat("remote", name=text.strip()[7:])
    if word.startswith("ai:"):
        level = word[3:]
        if level.isdigit() and int(level) in LEVELS:
            return Seat("ai", int(level))
        raise ValueError(
            "player %r: the computer's level must be one of %s (e.g. ai:3)" % (text, ", ".join(map(str, LEVELS)))
        )
    raise ValueError("player %r: say human, ai or ai:LEVEL (levels %s)" % (text, ", ".join(map(str, LEVELS))))


def seats_for(ruleset: str | zuni.Ruleset, given: dict[str, str | None]) -> dict[str, Seat]:
    """Every seat of the ruleset -> Seat. ``given`` maps side names to player texts
    (None: not given). Defaults: South human, every other seat the computer at the
    middle level; but in Mosona as the rules have it, which North wins by force
    (docs/rules.md, "Who wins Mosona?"), a person who names no seat plays North, so
    that a first game can be won. A side the ruleset does not have is an error naming it."""
    if not isinstance(ruleset, zuni.Ruleset):
        ruleset = zuni.parse_ruleset(ruleset)
    sides = sides_in_play(ruleset)
    for side, text in given.items():
        if text is not None and side not in sides:
            raise ValueError("--%s %s: %s has no %s seat (seats: %s)" % (side, text, ruleset, side, ", ".join(sides)))
    person = "south"
    if str(ruleset) == WON_BY_NORTH and all(given.get(side) is None for side in sides):
        person = "north"
    seats = {}
    for side in sides:
        text = given.get(side)
        if text is None:
            seats[side] = HUMAN if side == person else Seat("ai", DEFAULT_LEVEL)
        else:
            seats[side] = parse_player(text)
    return seats


def seats_from_record(players: dict[str, str], ruleset: str) -> dict[str, Seat]:
    """The seats of a logged game (``players`` as stored); unknown words play as humans."""
    seats = {}
    for side in sides_in_play(zuni.parse_ruleset(ruleset)):
        try:
            seats[side] = parse_player(players.get(side, "human"))
        except ValueError:
            seats[side] = HUMAN  # e.g. "board": moves come from the board
    return seats
