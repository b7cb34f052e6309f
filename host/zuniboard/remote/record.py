"""One remote game as the referee keeps it: ``RefereeGame``.

The rules engine (``zuni``) is the authority on legality and results, ``zuni.clock`` on
the clocks; this class adds the seats (names, secrets, counters), the offers and the
absences, and writes the state message every player resyncs from. Pure: every change
takes ``now_ms``; ``game_record``/``restore_game`` are what the referee saves and restores.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import zuni
from zuni.clock import ClockError, GameClock, clock_spec_text, parse_clock_spec
from zuniboard.records.record import sides_in_play
from zuniboard.remote import protocol

DEFAULT_GONE_S = 120  # a seat silent this long counts as gone: the others may claim


TAKEN_KEPT = 32  # messages a seat's record remembers (counter -> mac)


def remember(window: dict[int, str], n: int, mac: str) -> None:
    window[n] = mac
    for old in sorted(window)[:-TAKEN_KEPT]:
        del window[old]


class Refused(Exception):
    """A player's message the game refuses: ``why`` in words (the game is unchanged)."""


@dataclass
class SeatRecord:
    name: str = ""
    secret: str = ""
    joined: bool = False
    done: int = 0  # the last counter ``n`` taken from this seat
    done_mac: str = ""  # ... and its mac: the same message again is a duplicate, not a replay
    heard_ms: int = 0  # when the seat last sent an authenticated message
    refused: dict[str, Any] = field(default_factory=dict)  # the last refusal: n, why
    hello_h: int = 0  # the last hello's counter (hellos count apart from actions)
    hello_mac: str = ""
    # The last messages taken, counter -> mac: a copy of one of them coming late (the
    # broker delivering a resend queued behind newer ones) is a duplicate, not a replay.
    taken: dict[int, str] = field(default_factory=dict)
    hellos: dict[int, str] = field(default_factory=dict)


@dataclass
class Offer:
    what: str
    by: str
    yes: list[str] = field(default_factory=list)


class RefereeGame:
    """A game: its rules, seats, moves, clocks, offer and result."""

    def __init__(self, game_id: str, code: str, ruleset: str, clock: str, gone_s: int, key: str, now_ms: int) -> None:
        try:
            rules = zuni.parse_ruleset(ruleset)
        except zuni.ZuniError as exc:
            raise Refused("ruleset %r: %s" % (ruleset, exc))
        self.id = game_id
        self.code = code
        self.ruleset = str(rules)
        self.key = key
        self.sides = sides_in_play(rules)
        self.seats = {side: SeatRecord() for side in self.sides}
        self.game: Any = zuni.new_game(rules)
        self.moves: list[str] = []
        self.clock_text = ""
        self.clock: GameClock | None = None
        if clock:
            try:
                indexes = tuple(zuni.SIDE_NAMES.index(s) for s in self.sides)
                self.clock = GameClock(parse_clock_spec(clock, indexes))
                self.clock_text = clock_spec_text(self.clock.controls)
            except ClockError as exc:
                raise Refused("clock %r: %s" % (clock, exc))
        if not 10 <= gone_s <= 86400:
            raise Refused("gone_s %d: between 10 s and a day" % gone_s)
        self.gone_s = gone_s
        self.offer: Offer | None = None
        self.result = ""
        self.termination = ""
        self.note = ""  # the last thing that happened, in words (declined offers, claims)
        self.seq = 0
        self.said_ms = now_ms  # when its state was last published
        self.saved_ms = now_ms  # when its record was last saved
        # The macs of its states on their way back to it (it reads its own state topic):
        # any other state there is forged.
        self.state_macs: list[str] = []
        self.known_macs: list[str] = []  # the macs of its latest states, the last one last
        self.created_ms = now_ms
        self.gone: list[str] = []

    # -- what it is ----------------------------------------------------------------
    def started(self) -> bool:
        return all(seat.joined for seat in self.seats.values())

    def over(self) -> bool:
        return bool(self.result)

    def turn(self) -> str:
        return "" if self.over() or not self.started() else str(zuni.SIDE_NAMES[self.game.turn])

    def team(self, side: str) -> int:
        return int(self.game.team_of(zuni.SIDE_NAMES.index(side)))

    # -- seats -----------------------------------------------------------------------
    def take_seat(self, want: str, name: str, secret: str, now_ms: int) -> str:
        """Seat ``want`` (or the first free one, ``want`` ''), for ``name``."""
        free = [s for s in self.sides if not self.seats[s].joined]
        if want and want not in self.seats:
            raise Refused("no seat %r in %s (seats: %s)" % (want, self.ruleset, ", ".join(self.sides)))
        if want and want not in free:
            raise Refused("seat %s is taken" % want)
        if not free:
            raise Refused("every seat is taken")
        side = want or free[0]
        self.seats[side] = SeatRecord(protocol.clean_name(name), secret, True, 0, "", now_ms)
        if self.started() and self.clock is not None:
            self.clock.start(now_ms, self.game.turn)
        self.note = "%s (%s) joined" % (self.seats[side].name, side)
        return side

    def heard(self, side: str, n: int, mac: str, now_ms: int) -> None:
        seat = self.seats[side]
        seat.done, seat.done_mac, seat.heard_ms = n, mac, now_ms
        remember(seat.taken, n, mac)

    # -- a player's actions (each raises Refused, changing nothing) --------------------
    def act(self, side: str, body: dict[str, object], now_ms: int) -> bool:
        """Does ``body`` for ``side``; True when the game changed."""
        what = body.get("do")
        if what == "hello":
            return False
        if self.over():
            raise Refused("the game is over (%s, %s)" % (self.result, self.termination))
        if not self.started():
            raise Refused("the game waits for every seat to join")
        handler = {"move": self._move, "offer": self._offer, "answer": self._answer}.get(str(what))
        if handler is not None:
            handler(side, body, now_ms)
        elif what == "resign":
            self._end(self.game.resign(zuni.SIDE_NAMES.index(side)), now_ms)
            self.note = "%s resigned" % side
        elif what == "claim":
            self._claim(side, protocol.field(body, "what", str), now_ms)
        else:
            raise Refused("unknown action %r (actions: %s)" % (what, ", ".join(protocol.ACTIONS)))
        return True

    def _move(self, side: str, body: dict[str, object], now_ms: int) -> None:
        ply = protocol.field(body, "ply", int)
        text = protocol.field(body, "move", str)
        if ply != len(self.moves):
            raise Refused("move %s for ply %d: the game is at ply %d" % (text, ply, len(self.moves)))
        if self.turn() != side:
            raise Refused("%s: it is %s's turn" % (text, self.turn()))
        try:
            move = self.game.parse_move(text)
        except zuni.MoveError as exc:
            raise Refused(str(exc))
        self.game.push(move)
        self.moves.append(move.text())
        self.offer = None
        self.note = ""
        outcome = self.game.outcome()
        if outcome is not None:
            self._end(outcome, now_ms)
        elif self.clock is not None:
            self.clock.switch(now_ms, self.game.turn)

    def _offer(self, side: str, body: dict[str, object], now_ms: int) -> None:
        what = protocol.field(body, "what", str)
        if what not in protocol.OFFERS:
            raise Refused("offer %r: one of %s" % (what, ", ".join(protocol.OFFERS)))
        if what == "takeback" and self._takeback_count(side) == 0:
            raise Refused("takeback: %s has made no move to take back" % side)
        self.offer = Offer(what, side)
        self.note = "%s offers %s" % (side, what)

    def _answer(self, side: str, body: dict[str, object], now_ms: int) -> None:
        what = protocol.field(body, "what", str)
        yes = protocol.field(body, "yes", bool)
        offer = self.offer
        if offer is None or offer.what != what:
            raise Refused("answer to %s: no such offer is open" % what)
        if side == offer.by:
            raise Refused("answer to %s: %s made the offer" % (what, side))
        if not yes:
            self.offer = None
            self.note = "%s declined %s's %s offer" % (side, offer.by, what)
            return
        if side not in offer.yes:
            offer.yes.append(side)
        if any(s not in offer.yes and s != offer.by for s in self.sides):
            return  # another seat has still to agree
        self.offer = None
        if what == "takeback":
            count = self._takeback_count(offer.by)
            for _ in range(count):
                self.game.pop()
                self.moves.pop()
            if self.clock is not None:
                self.clock.stop(now_ms)  # a take-back gives no time back (docs/clocks.md)
                self.clock.start(now_ms, self.game.turn)
            self.note = "%s's take-back agreed: %d move%s taken back" % (offer.by, count, "" if count == 1 else "s")
        else:
            self._end(self.game.agree(what), now_ms)
            self.note = "%s agreed" % ("the draw" if what == "draw" else "the count")

    def _takeback_count(self, side: str) -> int:
        """Moves to take back so that ``side`` is to move again, before its last move."""
        game = self.game.copy()
        count = 0
        while game.move_stack:
            game.pop()
            count += 1
            if zuni.SIDE_NAMES[game.turn] == side:
                return count
        return 0

    def _claim(self, side: str, what: str, now_ms: int) -> None:
        if what not in protocol.CLAIMS:
            raise Refused("claim %r: one of %s" % (what, ", ".join(protocol.CLAIMS)))
        away = [s for s in self.gone if self.team(s) != self.team(side)]
        if not away:
            raise Refused("claim %s: no opponent has been gone %d s" % (what, self.gone_s))
        if what == "win":
            self.result = str(self.game.team_names()[self.team(side)])
            self.termination = "abandoned"
        else:
            self.result, self.termination = "draw", "abandoned-draw"
        self.offer = None
        if self.clock is not None:
            self.clock.stop(now_ms)
        self.note = "%s claimed %s: %s gone" % (side, "the win" if what == "win" else "a draw", "/".join(away))

    def _end(self, outcome: Any, now_ms: int) -> None:
        self.result = str(outcome.result)
        self.termination = str(outcome.termination)
        self.offer = None
        if self.clock is not None:
            self.clock.stop(now_ms)

    # -- the time --------------------------------------------------------------------
    def tick(self, now_ms: int) -> bool:
        """A flag fell, or a seat went or came back: True when the state changed."""
        if self.over() or not self.started():
            return False
        changed = False
        if self.clock is not None:
            flagged = self.clock.flagged(now_ms)
            if flagged >= 0:
                self._end(self.game.lose_on_time(flagged), now_ms)
                self.note = "%s's time ran out" % zuni.SIDE_NAMES[flagged]
                return True
        gone = [s for s in self.sides if now_ms - self.seats[s].heard_ms > self.gone_s * 1000]
        if gone != self.gone:
            self.gone = gone
            changed = True
        return changed

    # -- the state message ---------------------------------------------------------------
    def state(self, now_ms: int) -> tuple[str, bytes]:
        """The state message (docs/remote.md), signed with the game's key: (mac, bytes)."""
        return protocol.signed_bytes(self.state_body(now_ms), self.key)

    def state_body(self, now_ms: int) -> dict[str, Any]:
        left: dict[str, int] = {}
        running = ""
        if self.clock is not None:
            for s in self.sides:
                left[s] = int(self.clock.remaining_ms(now_ms, zuni.SIDE_NAMES.index(s)))
            if self.clock.running >= 0:
                running = str(zuni.SIDE_NAMES[self.clock.running])
        offer = None if self.offer is None else {"what": self.offer.what, "by": self.offer.by, "yes": self.offer.yes}
        body = {
            "v": protocol.VERSION,
            "do": "state",
            "game": self.id,
            "seq": self.seq,
            "ruleset": self.ruleset,
            "clock": self.clock_text,
            "gone_s": self.gone_s,
            "seats": {s: {"name": r.name, "joined": r.joined} for s, r in self.seats.items()},
            "moves": list(self.moves),
            "turn": self.turn(),
            "result": self.result,
            "termination": self.termination,
            "offer": offer,
            "left": left,
            "running": running,
            "gone": list(self.gone),
            "done": {s: r.done for s, r in self.seats.items()},
            "refused": {s: r.refused for s, r in self.seats.items() if r.refused},
            "note": self.note,
        }
        return body


# -- saved and restored ----------------------------------------------------------------
def game_record(game: RefereeGame, now_ms: int) -> dict[str, Any]:
    """What the referee saves of ``game`` (``restore_game`` reads it back)."""
    clock = None
    if game.clock is not None:
        left, running = game.clock.state() if game.clock.running < 0 else _clock_now(game.clock, now_ms)
        clock = {"left": left, "running": running}
    return {
        "id": game.id,
        "code": game.code,
        "ruleset": game.ruleset,
        "clock": game.clock_text,
        "clock_state": clock,
        "gone_s": game.gone_s,
        "key": game.key,
        "seats": {
            s: [r.name, r.secret, r.joined, r.done, r.done_mac, r.hello_h, sorted(r.taken.items())]
            for s, r in game.seats.items()
        },
        "moves": game.moves,
        "offer": None if game.offer is None else [game.offer.what, game.offer.by, game.offer.yes],
        "result": game.result,
        "termination": game.termination,
        "note": game.note,
        "seq": game.seq,
        "state_mac": game.known_macs[-1] if game.known_macs else "",
    }


def _clock_now(clock: GameClock, now_ms: int) -> tuple[list[int], int]:
    left = [clock.remaining_ms(now_ms, s) for s in range(4)]
    return left, clock.running


def restore_game(data: dict[str, Any], now_ms: int) -> RefereeGame:
    """A saved game; the referee's time away is charged to nobody (as the board's)."""
    game = RefereeGame(data["id"], data["code"], data["ruleset"], data["clock"], data["gone_s"], data["key"], now_ms)
    for text in data["moves"]:
        game.game.push_text(text)
        game.moves.append(text)
    for side, (name, secret, joined, done, done_mac, hello_h, taken) in data["seats"].items():
        seat = SeatRecord(name, secret, joined, done, done_mac, now_ms, hello_h=hello_h)
        seat.taken = {int(n): str(mac) for n, mac in taken}
        game.seats[side] = seat
    if data["offer"]:
        game.offer = Offer(*data["offer"])
    game.result, game.termination = data["result"], data["termination"]
    game.note, game.seq = data["note"], data["seq"]
    if data.get("state_mac"):
        game.known_macs = [data["state_mac"]]  # the retained state it will be sent back
    if game.clock is not None and data["clock_state"]:
        state = data["clock_state"]
        game.clock.restore(state["left"], state["running"] if not game.result else -1, now_ms)
    return game
