"""The game clocks as the host sees them (docs/clocks.md): the board owns the clocks; the
host shows them, counts the running one down between the board's reports, gives the
computer its thinking time from its clock, and logs each move's time.

``ClockView`` is pure: every call takes the host's monotonic time ``now`` (seconds). It
learns the clocks from the board's ``state`` (``tc=``, ``clock=``: ms left per side,
``running=``) and from each ``move`` frame (the mover's ms left after it).

>>> view = ClockView()
>>> view.report({"tc": "5+3", "clock": "300000,-,300000,-", "running": "south"}, now=10.0)
>>> view.remaining_ms("south", now=14.5)
295500
>>> view.text(now=14.5)
'South 4:55 *  North 5:00'
"""

from __future__ import annotations

import zuni
from zuni.clock import FISCHER, ClockError, TimeControl, parse_clock_spec

SIDES = tuple(str(s) for s in zuni.SIDE_NAMES)
# Time management of the computer on a clock: this share of its time left per move, plus
# most of its increment, never more than the level's own time, never below a floor.
MOVES_TO_GO = 30
INCREMENT_SHARE = 0.8
MIN_THINK_S = 0.02
# Tenths of a second are shown below this.
TENTHS_BELOW_MS = 20_000


def clock_text(ms: int) -> str:
    """``4:53`` (minutes:seconds), ``0:07.2`` under 20 s, ``1:02:03`` over an hour; a
    fallen flag shows ``0:00``."""
    if ms <= 0:
        return "0:00"
    if ms < TENTHS_BELOW_MS:
        tenths = ms // 100
        return "0:%02d.%d" % (tenths // 10, tenths % 10)
    seconds = ms // 1000
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    if h:
        return "%d:%02d:%02d" % (h, m, s)
    return "%d:%02d" % (m, s)


def check_clock(spec: str, ruleset: str) -> str:
    """The canonical text of ``spec`` for ``ruleset``'s sides; ValueError naming it."""
    game = zuni.new_game(ruleset)
    sides = tuple(getattr(game, "sides", (0, 2)))
    try:
        controls = parse_clock_spec(spec, sides)
    except ClockError as exc:
        raise ValueError("--clock %r: %s" % (spec, exc))
    from zuni.clock import clock_spec_text

    return str(clock_spec_text(controls))


def loser_side(game: zuni.Game, result: str) -> int:
    """A side of the team that lost with ``result`` (the winners' name)."""
    names = [str(n) for n in game.team_names()]
    winner = names.index(result)
    for side in getattr(game, "sides", (0, 2)):
        if game.team_of(side) != winner:
            return int(side)
    raise ValueError("no losing side for result %r" % result)


def side_after(game: zuni.Game, move_text: str) -> str | None:
    """The side to move after ``move_text`` in ``game`` (None: the game would be over)."""
    try:
        move = game.parse_move(move_text)
    except zuni.MoveError:
        return None
    game.push(move)
    try:
        return None if game.is_game_over() else str(zuni.SIDE_NAMES[game.turn])
    finally:
        game.pop()


def apply_time_loss(game: zuni.Game, result: str) -> bool:
    """The board says ``result`` won on time: the mirror game ends so; True if it did."""
    if game.is_game_over():
        return False
    try:
        game.lose_on_time(loser_side(game, result))
    except ValueError:
        return False
    return True


def _controls(control: str) -> list[TimeControl | None]:
    """Each side's control of a time control's text (all four for a single control)."""
    out: list[TimeControl | None] = [None, None, None, None]
    try:
        for word in control.split():
            name, _, value = word.rpartition("=")
            if name in SIDES:
                out[SIDES.index(name)] = TimeControl.parse(value)
            else:
                out = [TimeControl.parse(value)] * 4
    except ClockError:
        pass
    return out


class ClockView:
    def __init__(self) -> None:
        self.control = ""  # the time control's text; "" for a game without clocks
        self.left: dict[str, int] = {}  # ms left per side, as of ``at`` for the running one
        self.running = ""
        self.at = 0.0
        self.controls: list[TimeControl | None] = [None, None, None, None]

    @property
    def on(self) -> bool:
        return bool(self.control)

    def clear(self) -> None:
        self.__init__()  # type: ignore[misc]

    def report(self, state: dict[str, str], now: float) -> None:
        """The board's state: its clocks (or none) at ``now``."""
        control = state.get("tc", "")
        if not control:
            self.clear()
            return
        if control != self.control:
            self.controls = _controls(control)
        self.control = control
        left: dict[str, int] = {}
        for i, word in enumerate(state.get("clock", "").split(",")[:4]):
            if word.lstrip("-").isdigit():
                left[SIDES[i]] = int(word)
        self.left = left
        running = state.get("running", "")
        self.running = running if running in left else ""
        self.at = now

    def moved(self, side: str, clock_ms: int | None, next_side: str | None, now: float) -> None:
        """``side`` moved, with ``clock_ms`` left (the move frame's); ``next_side`` runs."""
        if not self.on:
            return
        self._charge(now)
        if clock_ms is not None and side in self.left:
            self.left[side] = clock_ms
        self.running = next_side if next_side in self.left else ""

    def switched(self, side: str, next_side: str | None, now: float) -> None:
        """The computer's move was shown on the board: its clock stopped there."""
        if self.on and self.running == side:
            self._charge(now)
            self.running = next_side if next_side in self.left else ""

    def _charge(self, now: float) -> None:
        if self.running in self.left:
            self.left[self.running] -= int((now - self.at) * 1000)
        self.at = now

    def remaining_ms(self, side: str, now: float) -> int:
        left = self.left.get(side, 0)
        if side == self.running:
            left -= int((now - self.at) * 1000)
        return left

    def text(self, now: float) -> str:
        """``South 4:55.5 *  North 5:00`` (``*``: the clock that runs); "" without clocks."""
        if not self.on:
            return ""
        parts = []
        for side in SIDES:
            if side in self.left:
                mark = " *" if side == self.running else ""
                parts.append("%s %s%s" % (side.title(), clock_text(self.remaining_ms(side, now)), mark))
        return "  ".join(parts)

    def think_s(self, side: str, level_s: float, now: float) -> float:
        """The computer's thinking time for its move: its share of the time left plus
        most of its increment, at most ``level_s`` (the level's own time)."""
        if not self.on or side not in self.left:
            return level_s
        left_s = max(0, self.remaining_ms(side, now)) / 1000.0
        control = self.controls[SIDES.index(side)]
        extra_s = control.extra_ms / 1000.0 if control is not None and control.mode == FISCHER else 0.0
        budget = left_s / MOVES_TO_GO + INCREMENT_SHARE * extra_s
        budget = min(budget, level_s, left_s / 2)
        return max(MIN_THINK_S, budget)
