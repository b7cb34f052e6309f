"""The requests the host makes by name: ``Calls``.

A call (``state``, ``host_move``, ``take_back``, ``new_game``, ...) becomes a request
frame (``zuniboard.link.requests.Requests`` sends it until answered), with, for the
requests that must be done once across a board reset, how the board's state shows them
done; its end becomes a ``RequestResult`` (``Answered``, ``Refused``, ``Failed``) for the
caller's ``then``. Nothing here blocks or reads a clock.
"""

from __future__ import annotations

from collections.abc import Callable

from zuni_link import codec
from zuniboard.link.events import Answered, Failed, Refused, RequestResult
from zuniboard.link.keeper import BoardKeeper
from zuniboard.link.requests import Done, NoReply, Refusal, Requests, Result, reply_seq

# The requests ``begin`` knows (the names the play, lesson and replay controllers ask for).
CALLS = (
    "ping",
    "state",
    "host_move",
    "hint",
    "grade",
    "led_test",
    "raw",
    "resign",
    "agree",
    "press_ok",
    "take_back",
    "new_game",
)

Plan = tuple[str, str, Done | None]  # verb, body, how the board's state shows it done


def _ended_by(termination: str) -> Done:
    """For a resend check: the game is over, ended this way."""

    def done(state: dict[str, str]) -> bool:
        return state.get("phase") == "over" and state.get("termination") == termination

    return done


def plain_plan(call: str, args: tuple[str, ...]) -> Plan:
    """The frame of a call that names no history (all but ``take_back`` and ``new_game``)."""
    arg = args[0] if args else ""
    plans: dict[str, Plan] = {
        "ping": ("ping", "", None),
        "state": ("state", "", None),
        "host_move": ("hostmove", arg, None),
        "hint": ("hint", arg, None),
        "grade": ("grade", " ".join(args), None),
        "led_test": ("ledtest", "walk %s" % arg if arg else "", None),
        "raw": ("raw", arg, None),
        "resign": ("resign", arg, _ended_by("resign")),
        "agree": ("agree", arg, _ended_by("agreed-" + arg)),
        "press_ok": ("button", "ok", None),
    }
    return plans[call]


def result_of(call: str, args: tuple[str, ...], result: Result) -> RequestResult:
    """What request ``call`` came to: the reply's fields, the board's refusal, or none."""
    if isinstance(result, Refusal):
        return Refused(call, args, result.code, result.message)
    if isinstance(result, NoReply):
        return Failed(call, args, result.why)
    if result.verb == "ok":
        _, rest = reply_seq(result.body)
        return Answered(call, args, codec.kv_decode(rest))
    return Answered(call, args, codec.kv_decode(result.body))


class Calls:
    """Starts named calls on ``requests``; ``keeper`` gives the mirror's history (a
    take-back names it; a new game is done when the board's game id changed)."""

    def __init__(self, requests: Requests, keeper: BoardKeeper) -> None:
        self.requests = requests
        self.keeper = keeper

    def begin(
        self, call: str, args: tuple[str, ...], now: float, then: Callable[[RequestResult], None], timeout: float
    ) -> None:
        """Starts ``call`` (one of ``CALLS``) and returns at once (``BoardLink.begin``)."""
        if call not in CALLS:
            raise ValueError("no link request %r (known: %s)" % (call, ", ".join(CALLS)))

        def finish(result: Result, at: float) -> None:
            then(result_of(call, args, result))

        if call == "new_game":
            self._begin_new_game(args, now, then, timeout)
            return
        verb, body, done = self._plan_take_back() if call == "take_back" else plain_plan(call, args)
        self.requests.submit(verb, body, now, timeout, finish, done)

    def _plan_take_back(self) -> Plan:
        """The request names the history it takes the last move from (``takeback <hv>
        <moves>``): the board refuses it once that history is gone, so a resend after a
        board reset never takes a second move back."""
        mirror = self.keeper.mirror
        with self.keeper.cond:
            held = mirror.held()
            before = codec.hex8(mirror.digest(held.moves - 1)) if held.moves > 0 else ""
        if held.moves == 0:
            # Nothing held: maybe the board's end of game (a declared end) is taken back.
            return "takeback", "", None

        def done(state: dict[str, str]) -> bool:
            return (state.get("game"), state.get("moves"), state.get("digest")) == (
                held.game,
                str(held.moves - 1),
                before,
            )

        return "takeback", "%d %d" % (held.hv, held.moves), done

    def _begin_new_game(
        self, args: tuple[str, ...], now: float, then: Callable[[RequestResult], None], timeout: float
    ) -> None:
        """``new`` (or ``setup`` from a position), then ``state``: the new game's ruleset,
        position and phase, before ``then`` hears that it is done."""
        ruleset, position, clock = (tuple(args) + ("", "", ""))[:3]
        prefix = "clock=%s " % codec.esc(clock) if clock else ""
        with self.keeper.cond:
            game = self.keeper.mirror.game

        def done(state: dict[str, str]) -> bool:
            return state.get("game", game) != game and state.get("moves") == "0"

        def started(result: Result, at: float) -> None:
            first = result_of("new_game", args, result)
            if isinstance(first, Refused) and position and first.code == codec.E_UNKNOWN:
                first = Refused(
                    "new_game",
                    args,
                    first.code,
                    "this board's firmware is too old to set up a position (it does not know 'setup'): "
                    "deploy the new firmware (zuni deploy)",
                )
            if not isinstance(first, Answered):
                then(first)
                return
            if position:
                self.keeper.set_position(position)

            def stated(state: Result, at2: float) -> None:
                second = result_of("new_game", args, state)
                then(first if isinstance(second, Answered) else second)

            self.requests.submit("state", "", at, timeout, stated)

        if position:
            self.requests.submit("setup", prefix + position, now, timeout, started, done)
        else:
            self.requests.submit("new", prefix + ruleset, now, timeout, started, done)
