"""`zuni board check`: bring-up of a real or virtual board (hardware/bringup.md).

It runs the board's LED test, turns on raw sensor events and draws a live map of the
points as pieces are placed and lifted, shows button presses, and at the end reports the
points that never changed, read as occupied on an empty board, flicker, or change
together with another point. The bookkeeping is ``BringUp`` (pure: events in, report
out), so it is tested without a board.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from zuniboard import layouts
from zuniboard.errors import UsageError
from zuniboard.layouts import BoardGeometry

FLICKER_CHANGES = 6  # this many changes of one point within FLICKER_WINDOW_S ...
FLICKER_WINDOW_S = 2.0  # ... is a flicker, not a player
TOGETHER_MIN = 2  # two points that appear or vanish in the same event this often are coupled


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

    def __init__(self, geometry: BoardGeometry) -> None:
        self.geometry = geometry
        self.points = {name: PointLog() for name in geometry.names}
        self.pairs: dict[tuple[str, str], int] = {}
        self.buttons: list[str] = []
        self.unknown: list[str] = []

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
        never = [n for n in names if self.points[n].changes == 0]
        if never:
            out.append("never changed (dead switch, broken wire, or not tried): %s" % " ".join(never))
        if board_empty:
            stuck = [n for n in names if self.points[n].occupied]
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
        help="bring-up: LED test, live sensor map, buttons, stuck points",
        description="Bring-up of a real or virtual board (hardware/bringup.md). Ctrl-C ends the live map.",
    )
    p.add_argument(
        "port", nargs="?", default="auto", help="serial port, socket:// URL or pty (default: find the board)"
    )
    p.add_argument("--layout", help="layout name (default: the one the board reports)")
    p.add_argument("--seconds", type=float, default=0.0, help="end the live map after this long (default: Ctrl-C)")
    p.add_argument("--no-ledtest", action="store_true", help="skip the LED test")
    p.set_defaults(func=run_check)


def run_check(args: argparse.Namespace) -> int:
    from zuniboard import link as linkmod

    try:
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


def _session(link: Any, args: argparse.Namespace) -> int:
    name = args.layout or link.hello.get("layout", "")
    if not name:
        raise UsageError("the board did not say its layout: pass --layout")
    try:
        layout = layouts.load_layout(name)
    except layouts.layout_error() as exc:
        raise UsageError(str(exc))
    geometry = layouts.board_geometry(layout.rulesets[0])
    print("board: layout %s (%s), firmware %s" % (layout.name, layout.title, link.hello.get("fw", "?")))
    if not args.no_ledtest:
        link.led_test()
        print("LED test: every LED turns red, then green, then blue, then white (0.5 s each).")
        print("  red and green swapped: leds.order is wrong; the chain stops at one LED: check that LED's DOUT.")
    bring = BringUp(geometry)
    link.raw(True)
    print("Live map: put a piece on every point and lift it again; press each button. Ctrl-C to finish.")
    print(bring.render())
    deadline = time.monotonic() + args.seconds if args.seconds > 0 else None
    try:
        while deadline is None or time.monotonic() < deadline:
            try:
                event = link.events.get(timeout=0.2)
            except Exception:
                continue
            if event.kind == "raw":
                bring.raw(event.text, time.monotonic())
                print("\n%s\n%s" % (event.text, bring.render()))
            elif event.kind == "button":
                bring.button(event.text)
                print("button: %s" % event.text)
            elif event.kind == "disconnected":
                print("board disconnected (%s); waiting for it to come back" % event.text, file=sys.stderr)
    except KeyboardInterrupt:
        pass
    link.raw(False)
    empty = input("\nIs the board empty now? [y/n] ").strip().lower().startswith("y") if sys.stdin.isatty() else False
    problems = bring.report(board_empty=empty)
    print("buttons seen: %s" % (" ".join(bring.buttons) or "none"))
    if not problems:
        print("all %d points changed, none stuck, none flickering, none coupled" % len(geometry.names))
        return 0
    for line in problems:
        print("PROBLEM: " + line)
    return 1
