"""Channel routing of a generated PCB: the same few rules everywhere, no search.

Copper runs in two directions only. Every pad leaves its part on a short vertical
**stub** (bottom layer, B.Cu) towards the **channel** its part faces; a surface-mount
pad first gets a via beside it (``fanout``). In the channel each net has one horizontal
**trunk** (top layer, F.Cu) on a lane of its own, from its leftmost to its rightmost stub;
each stub ends on its net's lane in a via. A net that touches several channels also gets
a vertical **bridge** (B.Cu) in a **corridor** (a strip kept free of parts), from lane to
lane with a via in every channel it joins. Lanes are given out left-edge first (the
classic channel router: a lane is reused once the net before it has ended), ground takes
the bottom lane (the reed switches' ground pads come from below).

Horizontal copper is only on F.Cu and vertical copper only on B.Cu, so two nets can only
meet where a layout puts pads or vias too close: KiCad's DRC (``tests/test_kicad.py``)
checks every board this writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from zuniboard.hardware.kicad_lib import Library
from zuniboard.hardware.kicad_pcb import FAB, Placement, Track, Via, find_pads, rotate

POWER_NETS = ("GND", "+5V", "VBUS")
VIA_R = FAB.via_diameter / 2


class RoutingError(ValueError):
    """A layout the channel rules cannot route: names the net and the channel."""


@dataclass(frozen=True)
class Pad:
    ref: str
    number: str
    net: str
    x: float
    y: float
    w: float  # extent along x after rotation
    h: float
    tht: bool


@dataclass
class Stub:
    """A vertical B.Cu run from (x, y) to the net's lane in ``channel``, after the copper
    in ``tracks`` / ``vias`` that takes the pad there."""

    net: str
    x: float
    y: float
    channel: str
    tracks: list[Track] = field(default_factory=list)
    vias: list[Via] = field(default_factory=list)
    from_above: bool = True  # the stub enters its channel from above (runs down)


@dataclass(frozen=True)
class Channel:
    name: str
    y_top: float
    y_bottom: float


@dataclass(frozen=True)
class Corridor:
    """Bridge lanes between ``x0`` and ``x1`` (B.Cu, vertical)."""

    name: str
    x0: float
    x1: float


def width_of(net: str) -> float:
    return FAB.power_track if net in POWER_NETS else FAB.track


def pads(lib: Library, p: Placement, nets: dict[str, str]) -> list[Pad]:
    """The placed footprint's pads that carry a net, in board coordinates."""
    out = []
    for number, kind, x, y, angle, w, h in find_pads(lib.footprint(p.footprint)):
        if not number or number not in nets:
            continue
        dx, dy = rotate(x, y, p.rot)
        turn = (angle + p.rot) % 180
        if abs(turn - 90) < 1:
            w, h = h, w
        out.append(Pad(p.ref, number, nets[number], p.x + dx, p.y + dy, w, h, kind == "thru_hole"))
    return out


def fanout(
    pads_of_part: list[Pad], channel: str, down: bool, style: str = "", centre: float | None = None
) -> list[Stub]:
    stubs = _fanout(pads_of_part, channel, down, style, centre)
    for s in stubs:
        s.from_above = down
    return stubs


def _fanout(pads_of_part: list[Pad], channel: str, down: bool, style: str, centre: float | None) -> list[Stub]:
    """Stubs for one part's pads towards a channel below (``down``) or above it.

    ``style``: ``""`` through-hole pads and two-pad SMD parts (a via beyond the pad,
    towards the channel); ``"rows"`` an SMD part with two rows of pads across the stub
    direction (SOIC turned 90 degrees: the far row's vias beyond it, the near row's half
    a pitch aside, so that the far row's stubs pass between them); ``"sides"`` a part with
    two columns of pads (SOT-23-6): each pad out sideways to its own via; ``"jog"`` a row
    of through-hole pads closer than a stub and a switch pad allow (the 5 mm LED): the
    outer two pairs step 1.3 mm aside."""
    sign = 1.0 if down else -1.0
    if style == "sides":
        return _fanout_sides(pads_of_part, channel, sign)
    if style == "rows":
        return _fanout_rows(pads_of_part, channel, down, sign)
    if style == "pairs":
        return _fanout_pairs(pads_of_part, channel, down, sign)
    if style == "jog":
        return _fanout_jog(pads_of_part, channel, sign, centre)
    return _fanout_plain(pads_of_part, channel, down, sign)


def _fanout_sides(pads_of_part: list[Pad], channel: str, sign: float) -> list[Stub]:
    out: list[Stub] = []
    cx = sum(p.x for p in pads_of_part) / len(pads_of_part)
    cy = sum(p.y for p in pads_of_part) / len(pads_of_part)
    for p in pads_of_part:
        side = -1.0 if p.x < cx else 1.0
        level = round((p.y - cy) / 0.95)  # -1, 0, 1
        reach = 3.3 - 0.9 * level * sign
        vx = cx + side * reach
        t = Track(p.x, p.y, vx, p.y, FAB.track, "F.Cu", p.net)
        out.append(Stub(p.net, vx, p.y, channel, [t], [Via(vx, p.y, p.net)]))
    return out


def _fanout_rows(pads_of_part: list[Pad], channel: str, down: bool, sign: float) -> list[Stub]:
    out: list[Stub] = []
    cy = sum(p.y for p in pads_of_part) / len(pads_of_part)
    for p in pads_of_part:
        near = (p.y > cy) == down
        edge = p.y + sign * p.h / 2
        if near:
            y1 = edge + sign * 0.45
            vx, vy = p.x + 0.635, y1 + sign * 0.635
            ts = [
                Track(p.x, p.y, p.x, y1, FAB.track, "F.Cu", p.net),
                Track(p.x, y1, vx, vy, FAB.track, "F.Cu", p.net),
            ]
        else:
            vx, vy = p.x, edge - sign * (VIA_R + 0.45)
            ts = [Track(p.x, p.y, vx, vy, FAB.track, "F.Cu", p.net)]
        out.append(Stub(p.net, vx, vy, channel, ts, [Via(vx, vy, p.net)]))
    return out


def _fanout_pairs(pads_of_part: list[Pad], channel: str, down: bool, sign: float) -> list[Stub]:
    out: list[Stub] = []
    # a 2 x N header (pitch 2.54 mm): the far row steps half a pitch aside, between
    # two pads of the near row
    cy = sum(p.y for p in pads_of_part) / len(pads_of_part)
    for p in pads_of_part:
        far = (p.y < cy) == down
        if not far:
            out.append(Stub(p.net, p.x, p.y, channel, [], []))
            continue
        x2, y2 = p.x + 1.27, p.y + sign * 1.27
        out.append(Stub(p.net, x2, y2, channel, [Track(p.x, p.y, x2, y2, FAB.track, "B.Cu", p.net)], []))
    return out


def _fanout_jog(pads_of_part: list[Pad], channel: str, sign: float, centre: float | None) -> list[Stub]:
    out: list[Stub] = []
    xs = sorted(p.x for p in pads_of_part)
    mid = (xs[0] + xs[-1]) / 2 if centre is None else centre
    for p in pads_of_part:
        step = -1.3 if p.x < mid else 1.3
        y1 = p.y + sign * 2.2
        y2 = y1 + sign * 1.3
        ts = [
            Track(p.x, p.y, p.x, y1, FAB.track, "B.Cu", p.net),
            Track(p.x, y1, p.x + step, y2, FAB.track, "B.Cu", p.net),
        ]
        out.append(Stub(p.net, p.x + step, y2, channel, ts, []))
    return out


def _fanout_plain(pads_of_part: list[Pad], channel: str, down: bool, sign: float) -> list[Stub]:
    """Through-hole pads straight out; pads of one number in one column are joined."""
    out: list[Stub] = []
    by_col: dict[tuple[str, float], list[Pad]] = {}
    for p in pads_of_part:
        by_col.setdefault((p.number, round(p.x, 3)), []).append(p)
    for group in by_col.values():
        group.sort(key=lambda p: p.y, reverse=down)
        lead = group[0]  # nearest the channel
        ts = [Track(a.x, a.y, lead.x, lead.y, width_of(a.net), "B.Cu", a.net) for a in group[1:]]
        if lead.tht:
            out.append(Stub(lead.net, lead.x, lead.y, channel, ts, []))
        else:
            vy = lead.y + sign * (lead.h / 2 + VIA_R + 0.35)
            ts.append(Track(lead.x, lead.y, lead.x, vy, FAB.track, "F.Cu", lead.net))
            out.append(Stub(lead.net, lead.x, vy, channel, ts, [Via(lead.x, vy, lead.net)]))
    return out


@dataclass
class Routed:
    tracks: list[Track]
    vias: list[Via]
    lanes: dict[str, int]  # channel -> lanes used (for the report)


def _spacing(a: str, b: str) -> float:
    """Centre distance of two neighbouring lanes: a via on one clears the other's track."""
    return max(width_of(a) / 2, VIA_R) + FAB.clearance + max(width_of(b) / 2, VIA_R) + 0.02


def route(channels: list[Channel], corridors: list[Corridor], stubs: list[Stub], bridge_order: list[str]) -> Routed:
    """Lanes, trunks, stubs and bridges for every net. ``bridge_order``: nets that need a
    bridge take corridor lanes in this order (power first)."""
    by_name = {c.name: c for c in channels}
    order = {c.name: i for i, c in enumerate(channels)}
    nets_in: dict[str, dict[str, list[float]]] = {}
    for s in stubs:
        if s.channel not in by_name:
            raise RoutingError("stub of %s goes to an unknown channel %s" % (s.net, s.channel))
        nets_in.setdefault(s.net, {}).setdefault(s.channel, []).append(s.x)
    bridges = _bridges(corridors, nets_in, bridge_order, order)
    tracks: list[Track] = []
    vias: list[Via] = []
    lanes_used: dict[str, int] = {}
    lane_y: dict[tuple[str, str], float] = {}
    for ch in channels:
        used = _lay_lanes(ch, nets_in, stubs, bridges, lane_y, tracks)
        if used:
            lanes_used[ch.name] = used
    for s in stubs:
        ly = lane_y[(s.channel, s.net)]
        tracks += s.tracks
        vias += s.vias
        if abs(ly - s.y) > 1e-6:
            tracks.append(Track(s.x, s.y, s.x, ly, FAB.track, "B.Cu", s.net))
        vias.append(Via(s.x, ly, s.net))
    for net, (x, chans) in sorted(bridges.items()):
        ys = [lane_y[(c, net)] for c in chans]
        tracks.append(Track(x, min(ys), x, max(ys), width_of(net), "B.Cu", net))
        vias += [Via(x, y, net) for y in ys]
    return Routed(tracks, _dedupe(vias), lanes_used)


def _bridges(
    corridors: list[Corridor],
    nets_in: dict[str, dict[str, list[float]]],
    bridge_order: list[str],
    order: dict[str, int],
) -> dict[str, tuple[float, list[str]]]:
    """Bridges: one per net that spans channels, in the corridor nearest its stubs; net ->
    (its x, the channels it joins in ``order``). Each bridge's x joins the net's x in
    ``nets_in`` of every channel it reaches."""
    bridges: dict[str, tuple[float, list[str]]] = {}
    cursor = {c.name: c.x0 for c in corridors}
    multi = [n for n in bridge_order if n in nets_in and len(nets_in[n]) > 1]
    multi += sorted(n for n in nets_in if len(nets_in[n]) > 1 and n not in multi)
    for net in multi:
        xs = [x for xs in nets_in[net].values() for x in xs]
        mean = sum(xs) / len(xs)
        corridor = min(corridors, key=lambda c: abs((c.x0 + c.x1) / 2 - mean))
        half = max(width_of(net) / 2, VIA_R)
        x = cursor[corridor.name] + half
        if x + half > corridor.x1:
            raise RoutingError("corridor %s is full at net %s" % (corridor.name, net))
        cursor[corridor.name] = x + half + FAB.clearance + 0.05
        chans = sorted(nets_in[net], key=lambda c: order[c])
        bridges[net] = (x, chans)
        for name in chans:
            nets_in[net][name].append(x)
    return bridges


def _lay_lanes(
    ch: Channel,
    nets_in: dict[str, dict[str, list[float]]],
    stubs: list[Stub],
    bridges: dict[str, tuple[float, list[str]]],
    lane_y: dict[tuple[str, str], float],
    tracks: list[Track],
) -> int:
    """The lanes of one channel: each net's lane y into ``lane_y``, its trunk into
    ``tracks``; the number of lanes (0: no net in the channel)."""
    intervals = []
    for net, per in nets_in.items():
        if ch.name in per:
            xs = per[ch.name]
            intervals.append((min(xs), max(xs), net))
    if not intervals:
        return 0
    for lo, hi, net in intervals:
        if lo == hi and len([s for s in stubs if s.net == net]) < 2 and net not in bridges:
            raise RoutingError("net %s has a single pad" % net)
    above = _must_be_above([st for st in stubs if st.channel == ch.name])
    lanes = _left_edge(intervals, above, ch.name)
    # y of each lane: packed from the top; lanes of wide nets get more room.
    y = ch.y_top
    ys = []
    for i, lane in enumerate(lanes):
        widest = max(lane, key=lambda iv: width_of(iv[2]))[2]
        if i == 0:
            y += max(width_of(widest) / 2, VIA_R)
        else:
            before = max(lanes[i - 1], key=lambda iv: width_of(iv[2]))[2]
            y += _spacing(before, widest)
        ys.append(y)
    if ys and ys[-1] + VIA_R > ch.y_bottom:
        raise RoutingError(
            "channel %s needs %d lanes (%.2f mm), it has %.2f mm"
            % (ch.name, len(lanes), ys[-1] + VIA_R - ch.y_top, ch.y_bottom - ch.y_top)
        )
    for lane, ly in zip(lanes, ys, strict=True):
        for lo, hi, net in lane:
            lane_y[(ch.name, net)] = ly
            if hi > lo:
                tracks.append(Track(lo, ly, hi, ly, width_of(net), "F.Cu", net))
    return len(lanes)


def _must_be_above(stubs: list[Stub]) -> set[tuple[str, str]]:
    """(a, b): net a's lane must lie above net b's, because a stub of a comes down and a
    stub of b comes up at (nearly) the same x."""
    near = 2 * VIA_R + FAB.clearance + 0.05
    downs = [s for s in stubs if s.from_above]
    ups = sorted((s for s in stubs if not s.from_above), key=lambda s: s.x)
    out = set()
    for d in downs:
        for u in ups:
            if u.x > d.x + near:
                break
            if abs(u.x - d.x) < near and u.net != d.net:
                out.add((d.net, u.net))
    return out


def _left_edge(
    intervals: list[tuple[float, float, str]], above: set[tuple[str, str]], channel: str
) -> list[list[tuple[float, float, str]]]:
    """Lanes top to bottom: each takes, left to right, every net that fits after the
    previous one and whose "must be above" nets already have lanes higher up."""
    todo = sorted(intervals, key=lambda iv: (iv[0], iv[1], iv[2]))
    placed: set[str] = set()
    lanes: list[list[tuple[float, float, str]]] = []
    while todo:
        lane: list[tuple[float, float, str]] = []
        rest = []
        for lo, hi, net in todo:
            ready = all(a in placed for a, b in above if b == net)
            fits = True
            if lane:
                last = lane[-1]
                gap = max(width_of(last[2]) / 2, VIA_R) + FAB.clearance + max(width_of(net) / 2, VIA_R) + 0.05
                fits = last[1] + gap <= lo
            if ready and fits:
                lane.append((lo, hi, net))
            else:
                rest.append((lo, hi, net))
        if not lane:
            raise RoutingError(
                "channel %s: the nets %s must each lie above another" % (channel, [iv[2] for iv in rest])
            )
        placed |= {iv[2] for iv in lane}
        lanes.append(lane)
        todo = rest
    return lanes


def _dedupe(vias: list[Via]) -> list[Via]:
    """One via where two of one net would overlap (a stub that lands beside another
    stub's via joins it through the copper)."""
    out: list[Via] = []
    for v in vias:
        if not any(o.net == v.net and abs(o.x - v.x) < 0.4 and abs(o.y - v.y) < 0.4 for o in out):
            out.append(v)
    return out
