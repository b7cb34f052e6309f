"""`zuni board check`: bring-up of a real or virtual board (hardware/bringup.md).

It runs the board's LED test (every LED red, green, blue, white), then the LED walk (one
LED at a time in chain order, each step reported by the board, so a break in the chain
shows as the first LED that stays dark), turns on raw sensor events (the board first
sends what its switches show now) and draws a live map of the points as pieces are
placed and lifted, shows every button press, and at the end reports the points that
never changed, were occupied at the start and never lifted (a switch stuck closed),
read as occupied on an empty board, flicker, or change together with another point, and
buttons never pressed. The bookkeeping is ``BringUp`` (pure: events in, report out), so
it is tested without a board.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from zuniboard.errors import UsageError
from zuniboard.games import layouts
from zuniboard.games.layouts import BoardGeometry
from zuniboard.link.events import BoardEvent, Disconnected
from zuniboard.play.controller import SUPPLY_FAULT_WORDS

if TYPE_CHECKING:
    from zuni_board.layout import Layout
    from zuniboard.link.client import BoardLink

FLICKER_CHANGES = 6  # this many changes of one point within FLICKER_WINDOW_S ...
FLICKER_WINDOW_S = 2.0  # ... is a flicker, not a player
TOGETHER_MIN = 2  # two points that appear or vanish in the same event this often are coupled
WALK_MS = 250  # LED walk: each LED lit this long (the board accepts 20..5000)
COLOURS_S = 2.0  # the colour test: four colours of 0.5 s
BUTTONS = ("ok", "back", "hint")


class WalkClock:
    """How long the LED walk waits for the board (pure: times are arguments).

    A chip does not keep the walk's pace exactly: each step lasts its ``step_ms`` rounded
    up to the scan, plus the loop's own work (``leds.show`` alone takes 23.5 ms for 168
    LEDs on an RP2040, MICROPYTHON-NOTES.md), and a busy board or a loaded PC delays
    events further. So the deadline is not a fixed total: the next step is due within
    ``step_ms`` + ``stall_s`` of the last one reported (``stall_s``: the link's silence
    limit; a board silent longer is reopened and the walk's events are lost anyway),
    and the whole walk may take at most that per LED."""

    def __init__(self, leds: int, step_ms: int, stall_s: float, now: float) -> None:
        self.step_s = step_ms / 1000
        self.stall_s = stall_s
        self.total_s = (leds + 1) * (self.step_s + stall_s)
        self.cap = now + self.total_s
        self.due = now + self.step_s + stall_s

    def progress(self, now: float) -> None:
        """The board reported a step (or the start) at ``now``."""
        self.due = now + self.step_s + self.stall_s

    def expired(self, now: float) -> bool:
        return now > min(self.due, self.cap)


@dataclass
class PointLog:
    occupied: bool = False
    known: bool = False  # seen in an event, so `occupied` is the real reading
    changes: int = 0
    times: list[float] = field(default_factory=list)
    flickers: int = 0


class BringUp:
    """Sensor bookkeeping from the board's raw events (``"+m5 -s3"``: debounced point
    changes, names from the layout's geometry).

    >>> b = BringUp(geometry)
    >>> b.raw("+m5", now=0.0)
    >>> b.report(board_empty=True)
    ['never changed: m1 m2 ...', 'occupied on the empty board: m5']
    """

    def __init__(self, geometry: BoardGeometry, buttons: tuple[str, ...] = ()) -> None:
        self.geometry = geometry
        self.points = {name: PointLog() for name in geometry.names}
        self.pairs: dict[tuple[str, str], int] = {}
        self.buttons: list[str] = []
        self.wired_buttons = buttons  # the layout's buttons: each should be pressed once
        self.unknown: list[str] = []
        self.at_start: list[str] | None = None  # occupied in the board's snapshot; None: no snapshot

    def snapshot(self, bits: str) -> list[str]:
        """The board's ``sensed`` event: one 0/1 per point in point order, what its
        switches showed when raw events began. Returns the occupied points."""
        names = self.geometry.names
        if len(bits) != len(names) or set(bits) - {"0", "1"}:
            self.unknown.append("sensed:" + bits[:40])
            return []
        occupied = []
        for name, bit in zip(names, bits, strict=True):
            log = self.points[name]
            log.occupied = bit == "1"
            log.known = True
            if log.occupied:
                occupied.append(name)
        self.at_start = occupied
        return occupied

    def stuck(self) -> list[str]:
        """Points occupied when raw events began that have not changed since: a switch
        stuck closed (or a piece left there) found without clearing the board."""
        if self.at_start is None:
            return []
        return [n for n in self.at_start if self.points[n].changes == 0]

    def raw(self, text: str, now: float) -> None:
        """Apply one raw event; tokens naming no point are kept for the report."""
        arrived: list[str] = []
        left: list[str] = []
        for token in text.split():
            sign, name = token[:1], token[1:]
            log = self.points.get(name)
            if sign not in "+-" or log is None:
                self.unknown.append(token)
                continue
            occupied = sign == "+"
            if not log.known and not occupied:
                # Its first event is a lift: it was occupied before raw events began.
                log.occupied = True
            log.known = True
            if log.occupied != occupied:
                log.changes += 1
                log.times.append(now)
                log.times = [t for t in log.times if now - t <= FLICKER_WINDOW_S]
                if len(log.times) >= FLICKER_CHANGES:
                    log.flickers += 1
                    log.times = []
            log.occupied = occupied
            (arrived if occupied else left).append(name)
        for group in (arrived, left):
            group.sort()
            for i, a in enumerate(group):
                for b in group[i + 1 :]:
                    self.pairs[(a, b)] = self.pairs.get((a, b), 0) + 1

    def button(self, text: str) -> None:
        self.buttons.append(text)

    def tested(self) -> list[str]:
        return [n for n in self.geometry.names if self.points[n].changes > 0]

    def report(self, board_empty: bool) -> list[str]:
        """Problems found, one line each (empty: every point worked)."""
        names = self.geometry.names
        out = []
        stuck_at_start = self.stuck()
        never = [n for n in names if self.points[n].changes == 0 and n not in stuck_at_start]
        if never:
            out.append("never changed (dead switch, broken wire, or not tried): %s" % " ".join(never))
        if stuck_at_start:
            out.append(
                "occupied from the start and never lifted (switch stuck closed, a short to GND, or a piece or"
                " magnet left there): %s" % " ".join(stuck_at_start)
            )
        if board_empty:
            stuck = [n for n in names if self.points[n].occupied and n not in stuck_at_start]
            if stuck:
                out.append(
                    "occupied on the empty board (switch stuck closed, or a magnet nearby): %s" % " ".join(stuck)
                )
        flicker = [n for n in names if self.points[n].flickers]
        if flicker:
            out.append("flickering (raise timing.debounce_scans, or move the switch): %s" % " ".join(flicker))
        coupled = sorted(pair for pair, count in self.pairs.items() if count >= TOGETHER_MIN)
        if coupled:
            out.append(
                "change together (a magnet closes the other's switch, or a short): %s"
                % " ".join("%s+%s" % pair for pair in coupled)
            )
        unpressed = [b for b in self.wired_buttons if b not in self.buttons]
        if unpressed:
            out.append("buttons never pressed (not wired to GND, wrong pin, or not tried): %s" % " ".join(unpressed))
        if self.unknown:
            out.append("events naming no point of this board: %s" % " ".join(sorted(set(self.unknown))))
        return out

    def render(self) -> str:
        """A text map: ``#`` occupied, ``o`` tried (changed at least once), ``.`` not yet."""
        g = self.geometry
        step = 2.0 if g.shape == "lines" else 1.0  # line boards have half-unit columns
        cols = {n: round(c[0] * step) for n, c in zip(g.names, g.coords, strict=True)}
        rows = {n: round(c[1]) for n, c in zip(g.names, g.coords, strict=True)}
        x0, x1 = min(cols.values()), max(cols.values())
        width = 2 if g.shape == "lines" else 3
        lines = []
        for y in range(max(rows.values()), min(rows.values()) - 1, -1):
            cells = [" " * width] * (x1 - x0 + 1)
            for name in g.names:
                if rows[name] == y:
                    log = self.points[name]
                    mark = "#" if log.occupied else ("o" if log.changes else ".")
                    cells[cols[name] - x0] = mark.ljust(width)
            lines.append("".join(cells).rstrip())
        done = len(self.tested())
        lines.append("%d of %d points tried" % (done, len(g.names)))
        return "\n".join(lines)


# -- the command ----------------------------------------------------------------------


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "check",
        help="bring-up: LED test and walk, live sensor map, buttons, stuck points",
        description="Bring-up of a real or virtual board (hardware/bringup.md). Ctrl-C ends the live map.",
    )
    p.add_argument("port", nargs="?", default=None, help="serial port, socket:// URL or pty (default: find the board)")
    # As `zuni play --port`: either way of naming it works.
    p.add_argument("--port", dest="port_option", metavar="PORT", default=None, help="the same as PORT")
    p.add_argument("--layout", help="layout name (default: the one the board reports)")
    p.add_argument("--seconds", type=float, default=0.0, help="end the live map after this long (default: Ctrl-C)")
    p.add_argument("--no-ledtest", action="store_true", help="skip the LED tests (colours and walk)")
    p.add_argument(
        "--walk-ms",
        type=int,
        default=WALK_MS,
        help="LED walk: ms per LED, 20..5000 (default %d; 0 skips the walk)" % WALK_MS,
    )
    p.set_defaults(func=run_check)


def run_check(args: argparse.Namespace) -> int:
    from zuniboard.link import client as linkmod
    from zuniboard.play.connect import need_board

    if args.port is not None and args.port_option is not None and args.port != args.port_option:
        raise UsageError("two ports: %s and --port %s; give one" % (args.port, args.port_option))
    args.port = args.port or args.port_option or "auto"
    if args.walk_ms and not 20 <= args.walk_ms <= 5000:
        raise UsageError("--walk-ms %d: expected 20..5000 ms per LED (or 0: no walk)" % args.walk_ms)
    try:
        need_board(args.port)  # no board, no such port: said at once, not after a timeout
        link: Any = linkmod.BoardLink.open(args.port, timeout=5.0)
    except linkmod.LinkError as exc:
        raise UsageError(str(exc))
    try:
        return _session(link, args)
    finally:
        try:
            link.raw(False)
        except Exception:
            pass  # the board may be gone; nothing left to switch off
        link.close()


def _led_walk(link: Any, layout: Layout, bring: BringUp, step_ms: int) -> list[str]:
    """Lights the LEDs one at a time in chain order and prints each step as the board
    reports it; returns problems (steps missing or out of order: events lost, or a board
    whose chain order differs from the layout)."""
    expected = sorted(layout.points, key=lambda name: layout.points[name][1])
    print("LED walk: one LED at a time in chain order (LED 0 is nearest the Pico), %d ms each." % step_ms)
    print("  The first LED that stays dark (and all after it): check its DIN and the DOUT before it.")
    from zuniboard.link.client import SILENCE_S

    link.led_test(walk_ms=step_ms)
    seen: list[tuple[int, str]] = []
    clock = WalkClock(len(expected), step_ms, SILENCE_S, time.monotonic())
    while not clock.expired(time.monotonic()):
        try:
            event = link.events.get(timeout=0.2)
        except Exception:
            continue
        if not isinstance(event, BoardEvent):
            continue
        if event.name == "button":
            bring.button(event.text)
            print("button: %s" % event.text)
        if event.name != "ledwalk":
            continue
        clock.progress(time.monotonic())
        words = event.text.split()
        if words[:1] == ["end"]:
            break
        if len(words) == 2 and words[0].isdigit():
            seen.append((int(words[0]), words[1]))
            print("  LED %3d: %s" % (int(words[0]), words[1]))
    else:
        return [
            "LED walk: the board did not finish the walk (no step reported for %.0f s, or over %.0f s in all)"
            % (clock.step_s + clock.stall_s, clock.total_s)
        ]
    want = [(i, name) for i, name in enumerate(expected)]
    if seen == want:
        print("LED walk: %d LEDs reported in chain order" % len(seen))
        return []
    missing = [name for i, name in want if (i, name) not in seen]
    out = []
    if missing:
        out.append("LED walk: steps not reported (events lost on the link?): %s" % " ".join(missing))
    if [x for x in seen if x in want] != [x for x in want if x in seen] or any(x not in want for x in seen):
        out.append("LED walk: the board's chain order is not the layout's (is it running another layout?)")
    return out


def supply_report(layout: Layout, state: dict[str, str]) -> tuple[str, str | None]:
    """(the line to print about the LED supply switch's ~FAULT, a problem or None) from
    the board's ``state`` reply (``faultline=1/0``, ``fault=led-supply``; docs/protocol.md)."""
    gpio = layout.power.get("fault")
    if gpio is None:
        return "LED supply ~FAULT: not read by this layout (no power.fault); measure TP_FAULT: 3.3 V", None
    level = state.get("faultline", "")
    if level not in ("0", "1"):
        return (
            "LED supply ~FAULT (GP%d): the firmware does not report it (no faultline= in its state)" % gpio,
            "the firmware reports no ~FAULT line: update it (tools/deploy.py)",
        )
    where = "LED supply ~FAULT (GP%d, TP_FAULT): %s" % (gpio, "high (fine)" if level == "1" else "LOW")
    if state.get("fault", ""):
        return where + "; the board cut the LED rail", (
            "%s; find the short on +5V/GND of the LED line, then unplug and plug in the board" % SUPPLY_FAULT_WORDS
        )
    if level == "0":
        return where, "the ~FAULT line reads low: an overload on the LED line, or R3 (10k to 3.3 V) missing"
    return where, None


def _led_test(link: BoardLink, layout: Layout, bring: BringUp, walk_ms: int) -> list[str]:
    """The board's LED test, then (``walk_ms``) the walk along the chain: its problems."""
    link.led_test()
    print("LED test: every LED turns red, then green, then blue, then white (0.5 s each).")
    print("  red and green swapped: leds.order is wrong; the chain stops at one LED: check that LED's DOUT.")
    time.sleep(COLOURS_S)  # let the maker see the four colours before the walk replaces them
    return _led_walk(link, layout, bring, walk_ms) if walk_ms else []


def _live_map(link: BoardLink, layout_name: str, bring: BringUp, seconds: float) -> bool:
    """The live map of the sensors and buttons, until Ctrl-C (or ``seconds``); whether
    the board sent its sensors' snapshot."""
    deadline = time.monotonic() + seconds if seconds > 0 else None
    snapshot = False
    try:
        while deadline is None or time.monotonic() < deadline:
            try:
                event = link.events.get(timeout=0.2)
            except Exception:
                continue
            if isinstance(event, Disconnected):
                print("board disconnected (%s); waiting for it to come back" % event.why, file=sys.stderr)
            if not isinstance(event, BoardEvent):
                continue
            if event.name == "sensed" and not snapshot:
                snapshot = True
                occupied = bring.snapshot(event.text.strip())
                if bring.at_start is None:
                    print("the board's sensor snapshot does not fit layout %s: %s" % (layout_name, event.text[:60]))
                elif occupied:
                    print("occupied now: %s" % " ".join(occupied))
                    print("  clear these points; one that stays occupied has a switch stuck closed.")
                else:
                    print("occupied now: none (a clear board)")
                print(bring.render())
            elif event.name == "raw":
                bring.raw(event.text, time.monotonic())
                print("\n%s\n%s" % (event.text, bring.render()))
            elif event.name == "button":
                bring.button(event.text)
                print("button: %s" % event.text)
    except KeyboardInterrupt:
        pass
    return snapshot


def _session(link: Any, args: argparse.Namespace) -> int:
    name = args.layout or link.hello.get("layout", "")
    if not name:
        raise UsageError("the board did not say its layout: pass --layout")
    try:
        layout = layouts.load_layout(name)
    except layouts.layout_error() as exc:
        raise UsageError(str(exc))
    geometry = layouts.board_geometry(layout.rulesets[0])
    board_id = link.hello.get("id", "")
    print(
        "board: layout %s (%s), firmware %s%s"
        % (layout.name, layout.title, link.hello.get("fw", "?"), ", id %s" % board_id if board_id else "")
    )
    bring = BringUp(geometry, tuple(b for b in BUTTONS if b in layout.buttons))
    problems: list[str] = []
    line, problem = supply_report(layout, link.state())
    print(line)
    if problem is not None:
        problems.append(problem)
    if not args.no_ledtest:
        problems += _led_test(link, layout, bring, args.walk_ms)
    link.raw(True)
    print("Live map: put a piece on every point and lift it again; press each button. Ctrl-C to finish.")
    snapshot = _live_map(link, layout.name, bring, args.seconds)
    link.raw(False)
    if not snapshot:
        print("the board sent no snapshot of its sensors: points stuck closed show only on an empty board")
    empty = input("\nIs the board empty now? [y/n] ").strip().lower().startswith("y") if sys.stdin.isatty() else False
    problems += bring.report(board_empty=empty)
    seen = sorted(set(bring.buttons), key=BUTTONS.index) if set(bring.buttons) <= set(BUTTONS) else bring.buttons
    print("buttons seen: %s" % (" ".join(seen) or "none"))
    if not problems:
        print("all %d points changed, none stuck, none flickering, none coupled" % len(geometry.names))
        return 0
    for line in problems:
        print("PROBLEM: " + line)
    return 1
