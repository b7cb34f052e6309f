"""SVG diagrams of a position, drawn from the rules geometry (``zuni log diagram``).

The drawing has one element of class ``point`` per point of the geometry (a circle on a
line board, a square on a square board) and one group of class ``piece`` per piece,
classed by side and kind (``piece north man``, ``piece south priest``; a priest carries
a diamond mark). Home points are tinted, the last move is drawn as a path with its
origin and destination ringed and its captures crossed, and point names are optional.

>>> svg = render_svg(zuni.new_game("mosona"), names=True)
>>> svg.startswith("<svg")
True
"""

from __future__ import annotations

from collections.abc import Callable
from xml.sax.saxutils import escape, quoteattr

import zuni

UNIT = 56.0  # pixels per board unit
MARGIN = 36.0
FILL = {zuni.SOUTH: "#f6f1e3", zuni.WEST: "#b8362f", zuni.NORTH: "#262626", zuni.EAST: "#2f6fb3"}
STROKE = {zuni.SOUTH: "#3a3a3a", zuni.WEST: "#5c1511", zuni.NORTH: "#000000", zuni.EAST: "#153a63"}
MARK = {zuni.SOUTH: "#b8860b", zuni.WEST: "#ffd766", zuni.NORTH: "#ffd766", zuni.EAST: "#ffd766"}
HOME = {zuni.SOUTH: "#efe2c4", zuni.WEST: "#efd0cc", zuni.NORTH: "#d3d3d3", zuni.EAST: "#cfe0f2"}
HIGHLIGHT = "#e8a317"

# Pixel position of a point.
_At = Callable[[int], tuple[float, float]]

_STYLE = (
    ".line{stroke:#5b4a3a;stroke-width:2.5;fill:none;stroke-linecap:round;stroke-linejoin:round}"
    ".point{fill:#fffdf7;stroke:#5b4a3a;stroke-width:1.5}"
    "rect.point{stroke-width:1}"
    ".dark{fill:#e9dfca}"
    ".last-move{stroke:%s;stroke-width:5;fill:none;opacity:0.75;stroke-linecap:round;stroke-linejoin:round}"
    ".ring{stroke:%s;stroke-width:4;fill:none}"
    ".captured{stroke:#c0392b;stroke-width:4;stroke-linecap:round}"
    ".name{font:11px sans-serif;fill:#6b5b4b;text-anchor:middle}"
) % (HIGHLIGHT, HIGHLIGHT)


def _f(value: float) -> str:
    text = "%.1f" % value
    return text[:-2] if text.endswith(".0") else text


def render_svg(game: zuni.Game, *, last: zuni.Move | None = None, names: bool = False, title: str | None = None) -> str:
    """The position of ``game`` as an SVG document; ``last`` defaults to the last move played."""
    geometry = game.geometry
    squares = geometry.shape == "squares"
    if last is None and game.move_stack:
        last = game.move_stack[-1]
    xs = [float(x) for x, _ in geometry.coords]
    ys = [float(y) for _, y in geometry.coords]
    pad = 0.5 if squares else 0.0
    xmin, xmax = min(xs) - pad, max(xs) + pad
    ymin, ymax = min(ys) - pad, max(ys) + pad
    width = (xmax - xmin) * UNIT + 2 * MARGIN
    height = (ymax - ymin) * UNIT + 2 * MARGIN + (0 if squares or not names else 8)

    def at(point: int) -> tuple[float, float]:
        x, y = geometry.coords[point]
        return MARGIN + (float(x) - xmin) * UNIT, MARGIN + (ymax - float(y)) * UNIT

    radius = UNIT * (0.36 if squares else 0.3)
    if title is None:
        title = "%s, %s" % (game.ruleset, _status(game))
    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s">'
        % (_f(width), _f(height), _f(width), _f(height)),
        "<title>%s</title>" % escape(title),
        "<style>%s</style>" % _STYLE,
        '<rect class="background" x="0" y="0" width="%s" height="%s" fill="#f3e9d2"/>' % (_f(width), _f(height)),
    ]
    if not squares:
        out.append(_lines(geometry, at))
    out += _points(geometry, at, squares)
    if names:
        out += _names(geometry, at, squares, radius)
    if last is not None and last.path:
        out.append(_last_move(last, at, radius))
    out += _pieces(game, at, radius)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _points(geometry: zuni.Geometry, at: _At, squares: bool) -> list[str]:
    """The board's points (squares, or dots on the lines), homes in their side's colour."""
    home_of: dict[int, int] = {}
    for side, points in geometry.homes.items():
        for point in points:
            home_of[point] = side
    out = ['<g class="points">']
    for point in range(len(geometry)):
        x, y = at(point)
        home = home_of.get(point)
        fill = ' style="fill:%s"' % HOME[home] if home is not None else ""
        name = quoteattr(geometry.names[point])
        if squares:
            c, r = geometry.coords[point]
            dark = " dark" if (int(c) + int(r)) % 2 == 0 and home is None else ""
            out.append(
                '<rect class="point%s" data-name=%s x="%s" y="%s" width="%s" height="%s"%s/>'
                % (dark, name, _f(x - UNIT / 2), _f(y - UNIT / 2), _f(UNIT), _f(UNIT), fill)
            )
        else:
            out.append(
                '<circle class="point" data-name=%s cx="%s" cy="%s" r="%s"%s/>'
                % (name, _f(x), _f(y), _f(UNIT * 0.12), fill)
            )
    out.append("</g>")
    return out


def _names(geometry: zuni.Geometry, at: _At, squares: bool, radius: float) -> list[str]:
    """The points' names, clear of the pieces."""
    out = ['<g class="names">']
    for point in range(len(geometry)):
        x, y = at(point)
        if squares:  # top left corner of the square, under the piece
            x, y = x - UNIT / 2 + 3, y - UNIT / 2 + 11
            anchor = ' style="text-anchor:start"'
        else:  # below the point, clear of the piece
            y += radius + 12
            anchor = ""
        out.append(
            '<text class="name" x="%s" y="%s"%s>%s</text>' % (_f(x), _f(y), anchor, escape(geometry.names[point]))
        )
    out.append("</g>")
    return out


def _pieces(game: zuni.Game, at: _At, radius: float) -> list[str]:
    """Each piece: a disk in its side's colours, a priest marked with a diamond."""
    geometry = game.geometry
    out = ['<g class="pieces">']
    for point in range(len(geometry)):
        piece = game.piece_at(point)
        if piece is None:
            continue
        side, kind = piece
        x, y = at(point)
        kind_name = "priest" if kind == zuni.PRIEST else "man"
        parts = [
            '<g class="piece %s %s" data-point=%s>'
            % (zuni.SIDE_NAMES[side], kind_name, quoteattr(geometry.names[point])),
            '<circle cx="%s" cy="%s" r="%s" fill="%s" stroke="%s" stroke-width="2"/>'
            % (_f(x), _f(y), _f(radius), FILL[side], STROKE[side]),
        ]
        if kind == zuni.PRIEST:
            d = radius * 0.55
            parts.append(
                '<polygon points="%s,%s %s,%s %s,%s %s,%s" fill="%s"/>'
                % (_f(x), _f(y - d), _f(x + d), _f(y), _f(x), _f(y + d), _f(x - d), _f(y), MARK[side])
            )
        parts.append("</g>")
        out.append("".join(parts))
    out.append("</g>")
    return out


def _status(game: zuni.Game) -> str:
    outcome = game.outcome()
    if outcome is not None:
        return "after %d move%s, game over: %s (%s)" % (
            game.ply(),
            "" if game.ply() == 1 else "s",
            outcome.result,
            outcome.termination,
        )
    return "after %d move%s, %s to move" % (game.ply(), "" if game.ply() == 1 else "s", zuni.SIDE_NAMES[game.turn])


def _lines(geometry: zuni.Geometry, at: _At) -> str:
    parts = ['<g class="lines">']
    for line in geometry.lines:
        points = " ".join("%s,%s" % tuple(_f(v) for v in at(p)) for p in line)
        parts.append('<polyline class="line" points="%s"/>' % points)
    parts.append("</g>")
    return "\n".join(parts)


def _last_move(move: zuni.Move, at: _At, radius: float) -> str:
    parts = ['<g class="last">']
    path = list(move.path)
    if len(path) > 1:
        points = " ".join("%s,%s" % tuple(_f(v) for v in at(p)) for p in path)
        parts.append('<polyline class="last-move" points="%s"/>' % points)
    for point in {move.origin, move.dest} - {-1}:
        x, y = at(point)
        parts.append('<circle class="ring" cx="%s" cy="%s" r="%s"/>' % (_f(x), _f(y), _f(radius + 4)))
    for point in move.captures:
        x, y = at(point)
        d = radius * 0.6
        parts.append(
            '<path class="captured" d="M%s %sL%s %sM%s %sL%s %s"/>'
            % (_f(x - d), _f(y - d), _f(x + d), _f(y + d), _f(x - d), _f(y + d), _f(x + d), _f(y - d))
        )
    parts.append("</g>")
    return "\n".join(parts)
