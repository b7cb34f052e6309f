"""Terminal drawings of a position, from the rules geometry (``zuni log show``, ``zuni play``).

Pieces are the side's initial: upper case for a man or warrior (``S``, ``N``, ``W``,
``E``), lower case for a bow priest (``s``...); ``.`` is an empty point. The last move's
origin and destination are bracketed (``[S]``) and the points it captured show ``x``.
With ``color=True`` pieces are coloured by side and the last move is in reverse video.

    >>> print(render(zuni.new_game("mosona"), footer=False))  # doctest: +SKIP
         1   2   3   4   5   6   7   8
    n    N - N - N - N - N - N - N - N
        / \\ / \\ / \\ / \\ / \\ / \\ / \\ / \\
    m  N - N - N - N - . - S - S - S - S
    ...
"""

from __future__ import annotations

import re
from collections.abc import Callable

import zuni

PIECE_CHARS = {zuni.SOUTH: "S", zuni.WEST: "W", zuni.NORTH: "N", zuni.EAST: "E"}
EMPTY = "."
CAPTURED = "x"
_COLORS = {zuni.SOUTH: "1;97", zuni.WEST: "1;33", zuni.NORTH: "1;31", zuni.EAST: "1;36"}
_NUMBER = re.compile(r"^([A-Za-z]+)(\d+)$")


def piece_char(game: zuni.Game, point: int) -> str:
    piece = game.piece_at(point)
    if piece is None:
        return EMPTY
    side, kind = piece
    char = PIECE_CHARS[side]
    return char.lower() if kind == zuni.PRIEST else char


def _paint(text: str, code: str, color: bool) -> str:
    return "\x1b[%sm%s\x1b[0m" % (code, text) if color else text


def _last(game: zuni.Game, last: zuni.Move | None) -> zuni.Move | None:
    if last is None and game.move_stack:
        move: zuni.Move = game.move_stack[-1]
        return move
    return last


def render(game: zuni.Game, *, last: zuni.Move | None = None, color: bool = False, footer: bool = True) -> str:
    """The position of ``game`` as lines of text; ``last`` defaults to the last move played."""
    move = _last(game, last)
    if game.geometry.shape == "squares":
        lines = _render_squares(game, move, color)
    else:
        lines = _render_lines(game, move, color)
    if footer:
        lines.append(status_line(game, move))
    return "\n".join(line.rstrip() for line in lines) + "\n"


def status_head(game: zuni.Game, move: zuni.Move | None = None) -> str:
    """``after 12 moves (last n4xm5-s4)`` or ``start position``."""
    plies = game.ply()
    head = "start position" if plies == 0 else "after %d move%s" % (plies, "" if plies == 1 else "s")
    if move is not None:
        head += " (last %s)" % move
    return head


def status_line(game: zuni.Game, move: zuni.Move | None = None) -> str:
    """``after 12 moves (last n4xm5-s4): south to move``, or the result once over."""
    head = status_head(game, move)
    outcome = game.outcome()
    if outcome is not None:
        tail = "game over: %s (%s)" % (outcome.result, outcome.termination)
        if outcome.scores is not None:
            tail += ", score %d-%d" % outcome.scores
        return "%s: %s" % (head, tail)
    return "%s: %s to move" % (head, zuni.SIDE_NAMES[game.turn])


def _cell(game: zuni.Game, point: int, move: zuni.Move | None, color: bool) -> tuple[str, bool]:
    """The glyph of a point (coloured if asked) and whether the last move marks it."""
    char = piece_char(game, point)
    marked = move is not None and point in (move.origin, move.dest)
    if char == EMPTY and move is not None and point in move.captures:
        char = CAPTURED
    piece = game.piece_at(point)
    if color and piece is not None:
        char = _paint(char, _COLORS[piece[0]] + (";7" if marked else ""), True)
    elif color and marked:
        char = _paint(char, "7", True)
    return char, marked


def _split_name(name: str) -> tuple[str, str]:
    match = _NUMBER.match(name)
    if match is None:
        return name, ""
    return match.group(1), match.group(2)


def _render_lines(game: zuni.Game, move: zuni.Move | None, color: bool) -> list[str]:
    """Line boards: 4 columns per unit of x, 2 rows per unit of y; edges as - / \\ |."""
    geometry = game.geometry
    xs = [x for x, _ in geometry.coords]
    ys = [y for _, y in geometry.coords]
    xmin, ymax = min(xs), max(ys)
    margin = 4  # row label and room for a bracket
    width = round((max(xs) - xmin) * 4) + margin + 3
    height = round((ymax - min(ys)) * 2) + 1

    def place(point: int) -> tuple[int, int]:
        x, y = geometry.coords[point]
        return round((ymax - y) * 2), margin + round((x - xmin) * 4)

    grid = [[" "] * width for _ in range(height)]
    _draw_edges(grid, geometry, place)
    rows: dict[int, list[int]] = {}
    for point in range(len(geometry)):
        row, col = place(point)
        rows.setdefault(row, []).append(point)
        char, marked = _cell(game, point, move, color)
        grid[row][col] = char
        if marked:
            grid[row][col - 1] = "["
            grid[row][col + 1] = "]"
    lines = ["".join(cells) for cells in grid]
    for row, points in rows.items():
        prefix = {_split_name(geometry.names[p])[0] for p in points}
        if len(prefix) == 1:
            label = prefix.pop()
            lines[row] = label.ljust(margin - 1)[: margin - 1] + lines[row][margin - 1 :]
    order = sorted(rows)

    def scale(row: int, label: str) -> str:
        cells = [" "] * (width + 2)
        for label_char_index, char in enumerate(label):
            cells[label_char_index] = char
        for point in rows[row]:
            number = _split_name(geometry.names[point])[1]
            col = place(point)[1]
            for i, char in enumerate(number):
                cells[col + i] = char
        return "".join(cells)

    above = [scale(order[0], "")]
    below = [scale(order[-1], "")] if len(order) > 1 else []
    for row in order[1:-1]:
        below.append(scale(row, _split_name(geometry.names[rows[row][0]])[0]))
    return above + lines + below


def _draw_edges(grid: list[list[str]], geometry: zuni.Geometry, place: Callable[[int], tuple[int, int]]) -> None:
    """The board's lines into ``grid`` (``place``: a point's row and column), as - / \\ |."""
    for a, b in geometry.edges:
        (ra, ca), (rb, cb) = place(a), place(b)
        dr, dc = rb - ra, cb - ca
        steps = max(abs(dr), abs(dc))
        if dr == 0:
            char = "-"
        elif dc == 0:
            char = "|"
        else:
            char = "\\" if (dr > 0) == (dc > 0) else "/"
        for t in range(1, steps):
            if (dr * t) % steps == 0 and (dc * t) % steps == 0:
                grid[ra + dr * t // steps][ca + dc * t // steps] = char


def _render_squares(game: zuni.Game, move: zuni.Move | None, color: bool) -> list[str]:
    """Square boards: 3 columns per square, rank numbers on the left, file letters below."""
    geometry = game.geometry
    at: dict[tuple[int, int], int] = {}
    for point, (c, r) in enumerate(geometry.coords):
        at[(int(c), int(r))] = point
    cs = [c for c, _ in at]
    rs = [r for _, r in at]
    files: dict[int, str] = {}
    ranks: dict[int, str] = {}
    for (c, r), point in at.items():
        letter, number = _split_name(geometry.names[point])
        files[c] = letter
        ranks[r] = number
    width = max(len(n) for n in ranks.values())
    lines = []
    for r in range(max(rs), min(rs) - 1, -1):
        cells = [ranks.get(r, "").rjust(width), " "]
        for c in range(min(cs), max(cs) + 1):
            point = at.get((c, r), -1)
            if point < 0:
                cells.append("   ")
                continue
            char, marked = _cell(game, point, move, color)
            cells.append("[%s]" % char if marked else " %s " % char)
        lines.append("".join(cells))
    lines.append(" " * (width + 1) + "".join(" %s " % files.get(c, " ") for c in range(min(cs), max(cs) + 1)))
    return lines
