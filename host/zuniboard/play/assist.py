"""Help per seat, the hint limit, and handicaps, as data (docs/learn.md, "Help and
handicaps in `zuni play`").

``ASSISTS``: the help a person's seat gets, from none to every move graded. ``parse_assist``
reads ``--assist`` (``full``: every person's seat; ``south=full,north=none``: per seat).
``HANDICAPS``: what the stronger side gives up (a piece, the first move, half its time),
applied to the start position or the clocks by ``handicap_position`` and
``handicap_clock``.

>>> parse_assist("south=full", ["south", "north"])["south"].grades
'all'
>>> handicap_position("mosona", "piece", "north").split(" | ")[3]
'north n1 n2 n3 n4 n5 n6 n7 m1 m2 m3 m4'
"""

from __future__ import annotations

from dataclasses import dataclass

import zuni
from zuni.clock import ClockError, TimeControl, clock_spec_text, parse_clock_spec
from zuni.position import parse_position, position_text
from zuniboard.records.record import HELP_LEVELS


class AssistError(ValueError):
    """A bad --assist, --hint-limit or --handicap (the message names it)."""


@dataclass(frozen=True)
class Assist:
    """One level of help: ``hints`` answered (HINT, ``hint``), ``grades`` said after the
    seat's own moves: "" none, "mistakes" (mistakes and blunders, with the moved
    piece's LED), "all" (every move's grade; the LED still only for mistakes)."""

    name: str
    hints: bool
    grades: str
    words: str


ASSISTS = {
    a.name: a
    for a in (
        Assist("none", False, "", "no help: no hints, no grades (a lifted piece still shows where it may go)"),
        Assist("hints", True, "", "hints on request (HINT on the board, hint at the terminal or on the page)"),
        Assist("warn", True, "mistakes", "hints, and a warning after a mistake or a blunder (words and LED)"),
        Assist("full", True, "all", "hints, and every move graded (best ... blunder)"),
    )
}
# The log checks a game's help levels against its own list of their names.
assert tuple(ASSISTS) == HELP_LEVELS, "play.assist.ASSISTS and records.record.HELP_LEVELS differ"
DEFAULT_ASSIST = "hints"  # what `zuni play` gave before there were levels

# What the stronger side gives up. The piece: one at the back of its camp, far from the
# first fights (per game and side, a point name of docs/rules.md).
HANDICAPS = {
    "piece": "the stronger side starts with one piece fewer",
    "move": "the weaker side moves first",
    "time": "the stronger side has half the time on its clock (needs --clock)",
}
HANDICAP_PIECE = {
    "mosona": {"south": "s8", "north": "n8"},
    "kolowis": {"south": "s16", "north": "n16"},
    "kolowis size=short": {"south": "s8", "north": "n8"},
    "awithlaknakwe": {"south": "j1", "north": "j14"},
}


def parse_assist(text: str, sides: list[str]) -> dict[str, Assist]:
    """``--assist``: a level for every seat (``warn``) or per seat (``south=full,north=none``);
    seats not named keep ``DEFAULT_ASSIST``."""
    out = {side: ASSISTS[DEFAULT_ASSIST] for side in sides}
    for part in text.replace(" ", ",").split(","):
        if not part:
            continue
        side, eq, level = part.partition("=")
        if not eq:
            side, level = "", side
        if level not in ASSISTS:
            raise AssistError("--assist %r: no help level %r (levels: %s)" % (text, level, ", ".join(ASSISTS)))
        if side and side not in sides:
            raise AssistError("--assist %r: no seat %r in this game (seats: %s)" % (text, side, ", ".join(sides)))
        for s in [side] if side else sides:
            out[s] = ASSISTS[level]
    return out


def check_hint_limit(limit: int | None) -> int | None:
    if limit is not None and limit < 0:
        raise AssistError("--hint-limit %d: a number of hints per game, 0 or more" % limit)
    return limit


def _check(kind: str, ruleset: str, stronger: str) -> zuni.Game:
    if kind not in HANDICAPS:
        raise AssistError("--handicap %r: none such (handicaps: %s)" % (kind, ", ".join(HANDICAPS)))
    try:
        game = zuni.new_game(ruleset)
    except zuni.RulesetError as exc:
        raise AssistError("--handicap: ruleset %r: %s" % (ruleset, exc))
    names = [str(n) for n in zuni.SIDE_NAMES]
    if stronger not in ("south", "north") or len(getattr(game, "sides", (0, 2))) != 2:
        raise AssistError(
            "--handicap %s: for two players, the stronger side south or north (not %r%s)"
            % (kind, stronger, ", four players" if len(getattr(game, "sides", (0, 2))) != 2 else "")
        )
    assert stronger in names
    return game


def handicap_position(ruleset: str, kind: str, stronger: str) -> str:
    """The start position of ``ruleset`` with handicap ``kind`` (piece, move) given by the
    ``stronger`` side, as a position text (for ``zuni play --from``)."""
    game = _check(kind, ruleset, stronger)
    text = str(position_text(game))
    parts = text.split(" | ")
    weaker = "north" if stronger == "south" else "south"
    if kind == "piece":
        short = " size=short" if "size=short" in str(game.ruleset) else ""
        point = HANDICAP_PIECE[game.ruleset.game_id + short][stronger]
        for i, part in enumerate(parts):
            words = part.split()
            if i >= 2 and words and words[0] == stronger:
                if point not in words[1:]:
                    raise AssistError("--handicap piece: %s has no piece on %s at the start" % (stronger, point))
                parts[i] = " ".join(w for w in words if w != point)
    elif kind == "move":
        parts[1] = "%s to move" % weaker
    else:
        raise AssistError("--handicap %s changes the clocks, not the position" % kind)
    out = " | ".join(parts)
    parse_position(out)  # a handicap position the rules refuse is a bug here, said at once
    return out


def handicap_clock(ruleset: str, clock: str, stronger: str) -> str:
    """``clock`` (a --clock spec) with the ``stronger`` side's base time halved."""
    game = _check("time", ruleset, stronger)
    if not clock:
        raise AssistError("--handicap time: give the clocks with --clock (e.g. --clock 10)")
    sides = tuple(getattr(game, "sides", (0, 2)))
    try:
        controls = parse_clock_spec(clock, sides)
    except ClockError as exc:
        raise AssistError("--clock %r: %s" % (clock, exc))
    side = [str(n) for n in zuni.SIDE_NAMES].index(stronger)
    control = controls[side]
    if control is None:
        raise AssistError("--handicap time: %s plays without a clock in %r" % (stronger, clock))
    controls[side] = TimeControl(max(1000, control.base_ms // 2), control.mode, control.extra_ms)
    return str(clock_spec_text(controls))
