"""The drilling template as PDF: one page of the plates' size, and the same tiled onto A4
or Letter pages with alignment crosses, cut lines and scale checks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zuniboard.hardware.drawing import MM, PdfDoc
from zuniboard.hardware.fmt import num
from zuniboard.hardware.placement import Build, build
from zuniboard.hardware.template import BLACK, BLUE, GREY, Colour, Shape, drawing, legend

if TYPE_CHECKING:
    from zuni_board.layout import Layout

# -- PDF -------------------------------------------------------------------------------------

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
PAGE_MARGIN_MM = 10.0  # most printers cannot print the outer 4-6 mm
LABEL_BAND_MM = 22.0  # page label, scale bar and check at the foot of every page
OVERLAP_MM = 12.0  # neighbouring tiles share this band; the crosses in it coincide


class _Pen:
    """Draws template millimetres onto one PDF page: page (x, y) = (X - ox, Y - oy) + (px, py)."""

    def __init__(
        self, ops: list[str], page_h: float, ox: float = 0.0, oy: float = 0.0, px: float = 0.0, py: float = 0.0
    ) -> None:
        self.ops, self.page_h, self.ox, self.oy, self.px, self.py = ops, page_h, ox, oy, px, py

    def pt(self, x: float, y: float) -> str:
        return "%s %s" % (num((x - self.ox + self.px) * MM), num((self.page_h - (y - self.oy + self.py)) * MM))

    def style(self, colour: Colour, width: float, dash: float) -> None:
        self.ops.append(
            "%s %s %s RG %s w %s"
            % (
                num(colour[0]),
                num(colour[1]),
                num(colour[2]),
                num(width * MM),
                "[%s %s] 0 d" % (num(dash * MM), num(dash * MM)) if dash else "[] 0 d",
            )
        )

    def poly(self, pts: tuple[tuple[float, float], ...] | list[tuple[float, float]], closed: bool = False) -> None:
        self.ops.append(
            " ".join("%s %s" % (self.pt(*p), "m" if i == 0 else "l") for i, p in enumerate(pts))
            + (" s" if closed else " S")
        )

    def circle(self, x: float, y: float, r: float) -> None:
        k = 0.5523 * r
        p = self.pt
        self.ops.append(
            "%s m %s %s %s c %s %s %s c %s %s %s c %s %s %s c S"
            % (
                p(x + r, y),
                p(x + r, y - k),
                p(x + k, y - r),
                p(x, y - r),
                p(x - k, y - r),
                p(x - r, y - k),
                p(x - r, y),
                p(x - r, y + k),
                p(x - k, y + r),
                p(x, y + r),
                p(x + k, y + r),
                p(x + r, y + k),
                p(x + r, y),
            )
        )

    def text(self, x: float, y: float, size: float, s: str, colour: Colour = BLACK) -> None:
        s = s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        self.ops.append(
            "BT %s %s %s rg /F1 %s Tf %s Td (%s) Tj ET"
            % (num(colour[0]), num(colour[1]), num(colour[2]), num(size * MM), self.pt(x, y), s)
        )

    def shape(self, s: Shape) -> None:
        if s.kind == "text":
            self.text(s.points[0][0], s.points[0][1], s.size, s.text, s.colour)
            return
        self.style(s.colour, s.width, s.dash)
        if s.kind == "circle":
            self.circle(s.points[0][0], s.points[0][1], s.radius)
        else:
            self.poly(s.points, s.closed)

    def clip(self, x: float, y: float, w: float, h: float) -> None:
        self.ops.append("q %s %s %s re W n" % (self.pt(x, y + h), num(w * MM), num(h * MM)))


def template_pdf(layout: Layout, pitch: float | None = None) -> bytes:
    """The whole template on one page of the plates' size (for a plotter or a print shop)."""
    b = build(layout, pitch)
    w, h = b.place.width, b.place.height + 24
    pdf = PdfDoc()
    pen = _Pen(pdf.page(w, h), h)
    for s in drawing(layout, pitch):
        pen.shape(s)
    y0 = b.place.height + 6
    pen.style(BLACK, 0.4, 0)
    pen.poly([(10, y0), (110, y0)])
    pen.poly([(10, y0 - 2), (10, y0 + 2)])
    pen.poly([(110, y0 - 2), (110, y0 + 2)])
    pen.text(
        115,
        y0 + 1,
        3,
        "100 mm: check the print scale. %s, pitch %s mm, plates %s x %s mm."
        % (b.name, num(b.pitch), num(b.place.width), num(b.place.height)),
    )
    for i, line in enumerate(legend(b)):
        pen.text(10, y0 + 7 + 4 * i, 2.6, line)
    return pdf.bytes()


@dataclass(frozen=True)
class Tiling:
    paper: str
    landscape: bool
    page_w: float
    page_h: float
    cols: int
    rows: int
    step_x: float  # template mm from one tile's origin to the next
    step_y: float
    tile_w: float  # template mm on one page (step + overlap)
    tile_h: float

    @property
    def pages(self) -> int:
        return self.cols * self.rows

    def origin(self, col: int, row: int) -> tuple[float, float]:
        return (col * self.step_x - OVERLAP_MM / 2, row * self.step_y - OVERLAP_MM / 2)

    def crosses(self) -> list[tuple[float, float]]:
        """Alignment crosses, in template mm: the middle of every overlap band's crossing
        and of the plate's outer margin, so every page shows the ones it shares."""
        xs = [c * self.step_x for c in range(self.cols + 1)]
        ys = [r * self.step_y for r in range(self.rows + 1)]
        return [(x, y) for y in ys for x in xs]


def tiling(layout: Layout, paper: str, pitch: float | None = None) -> Tiling:
    """The orientation (portrait or landscape) that needs fewer pages, portrait on a tie."""
    b = build(layout, pitch)
    w, h = b.place.width, b.place.height
    best: Tiling | None = None
    pw0, ph0 = PAPERS[paper]
    for landscape in (False, True):
        pw, ph = (ph0, pw0) if landscape else (pw0, ph0)
        tw, th = pw - 2 * PAGE_MARGIN_MM, ph - 2 * PAGE_MARGIN_MM - LABEL_BAND_MM
        sx, sy = tw - OVERLAP_MM, th - OVERLAP_MM
        cols, rows = math.ceil(w / sx), math.ceil(h / sy)
        # Spread the plates evenly over the tiles (crosses at round positions are not needed).
        t = Tiling(
            paper, landscape, pw, ph, cols, rows, w / cols, h / rows, w / cols + OVERLAP_MM, h / rows + OVERLAP_MM
        )
        if best is None or t.pages < best.pages:
            best = t
    assert best is not None
    return best


def _tile_name(col: int, row: int) -> str:
    return "%s%d" % (chr(ord("A") + col), row + 1)


def tiled_pdf(layout: Layout, paper: str, pitch: float | None = None) -> bytes:
    """The template on A4 or Letter pages: a cover page (page map, legend, scale checks),
    then one page per tile with its content, the shared alignment crosses, cut lines,
    a label and a 100 mm bar."""
    b = build(layout, pitch)
    t = tiling(layout, paper, pitch)
    shapes = drawing(layout, pitch)
    pdf = PdfDoc()
    total = t.pages + 1
    # cover
    ops = pdf.page(t.page_w, t.page_h)
    pen = _Pen(ops, t.page_h)
    m = PAGE_MARGIN_MM
    pen.text(m, m + 6, 6, "zuniboard %s: drilling template, %s pages" % (b.name, paper.upper()))
    lines = [
        "Page 1 of %d. Print every page at 100 %% / 'actual size' (no 'fit to page'), then check the scale below."
        % total,
        "Plates %s x %s mm, pitch %s mm: %d columns (A-%s) x %d rows (1-%d) of tiles; overlap %s mm."
        % (
            num(b.place.width),
            num(b.place.height),
            num(b.pitch),
            t.cols,
            chr(ord("A") + t.cols - 1),
            t.rows,
            t.rows,
            num(OVERLAP_MM),
        ),
        "Join: trim each page along its dotted cut lines (left and top), lay it on its neighbours so that",
        "the + crosses coincide, tape. Every cross is drawn on all the pages that share it.",
        "Print it twice: copy A goes onto P1 (top plate), copy B onto P2; assembly.md, stage 3.",
    ]
    for i, line in enumerate(lines):
        pen.text(m, m + 14 + 5 * i, 3.2, line)
    # page map
    y_map = m + 44
    scale = min((t.page_w - 2 * m) / b.place.width, 90 / b.place.height)
    _page_map(_Pen(ops, t.page_h), b, t, shapes, y_map, scale)
    y_leg = y_map + b.place.height * scale + 8
    for i, line in enumerate(legend(b)):
        for j, part in enumerate(_wrap(line, 110)):
            pen.text(m, y_leg + 9 * i + 4 * j, 2.8, part)
    y_chk = y_leg + 9 * len(legend(b)) + 4
    _scale_checks(pen, m, y_chk, card=True)
    for row in range(t.rows):
        for col in range(t.cols):
            _tile_page(pdf, b, t, shapes, col, row, total)
    return pdf.bytes()


def _page_map(mp: _Pen, b: Build, t: Tiling, shapes: list[Shape], y_map: float, scale: float) -> None:
    """The cover's map of the tiles over the plate's outline and points, each tile named
    with its page."""
    m = PAGE_MARGIN_MM
    mp.style(BLACK, 0.3, 0)
    mp.poly(
        [
            (m, y_map),
            (m + b.place.width * scale, y_map),
            (m + b.place.width * scale, y_map + b.place.height * scale),
            (m, y_map + b.place.height * scale),
        ],
        closed=True,
    )
    for s in shapes:
        if s.ident.startswith("point-"):
            x, y = s.points[0]
            mp.style(GREY, 0.2, 0)
            mp.circle(m + x * scale, y_map + y * scale, 0.6)
    for col in range(t.cols):
        for row in range(t.rows):
            x0, y0 = col * t.step_x * scale + m, row * t.step_y * scale + y_map
            mp.style(BLUE, 0.3, 0)
            mp.poly(
                [
                    (x0, y0),
                    (x0 + t.step_x * scale, y0),
                    (x0 + t.step_x * scale, y0 + t.step_y * scale),
                    (x0, y0 + t.step_y * scale),
                ],
                closed=True,
            )
            mp.text(x0 + 1.5, y0 + 4.5, 3.5, "%s p%d" % (_tile_name(col, row), 2 + row * t.cols + col), BLUE)


def _wrap(text: str, width: int) -> list[str]:
    out, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            out.append(line)
            line = word
        else:
            line = (line + " " + word).strip()
    return out + ([line] if line else [])


def _scale_checks(pen: _Pen, x: float, y: float, card: bool) -> None:
    """A 100 mm bar with 10 mm ticks; on the cover also a box a bank card (ISO/IEC 7810 ID-1,
    85.60 x 53.98 mm) must fit exactly, a check without a ruler."""
    pen.style(BLACK, 0.35, 0)
    pen.poly([(x, y), (x + 100, y)])
    for k in range(11):
        pen.poly([(x + 10 * k, y - (2.5 if k % 5 == 0 else 1.2)), (x + 10 * k, y)])
    pen.text(x + 102, y + 1, 2.8, "100 mm: measure it; 99.5-100.5 mm is fine, else the print was scaled")
    if card:
        pen.style(BLACK, 0.25, 0)
        pen.poly([(x, y + 6), (x + 85.6, y + 6), (x + 85.6, y + 6 + 53.98), (x, y + 6 + 53.98)], closed=True)
        pen.text(x + 3, y + 14, 3, "A bank card (85.60 x 53.98 mm)")
        pen.text(x + 3, y + 19, 3, "covers this box exactly.")


def _tile_page(pdf: PdfDoc, b: Build, t: Tiling, shapes: list[Shape], col: int, row: int, total: int) -> None:
    ops = pdf.page(t.page_w, t.page_h)
    ox, oy = t.origin(col, row)
    m = PAGE_MARGIN_MM
    pen = _Pen(ops, t.page_h, ox, oy, m, m)
    pen.clip(ox, oy, t.tile_w, t.tile_h)
    for s in shapes:
        pen.shape(s)
    # alignment crosses (10 mm, with a 2 mm circle): every one inside this tile
    for cx, cy in t.crosses():
        if ox - 1e-6 <= cx <= ox + t.tile_w + 1e-6 and oy - 1e-6 <= cy <= oy + t.tile_h + 1e-6:
            pen.style(BLACK, 0.2, 0)
            pen.poly([(cx - 5, cy), (cx + 5, cy)])
            pen.poly([(cx, cy - 5), (cx, cy + 5)])
            pen.circle(cx, cy, 1.0)
    # cut lines (dotted) in the middle of the left and top overlap bands
    pen.style(GREY, 0.2, 0.8)
    if col > 0:
        pen.poly([(ox + OVERLAP_MM / 2, oy), (ox + OVERLAP_MM / 2, oy + t.tile_h)])
    if row > 0:
        pen.poly([(ox, oy + OVERLAP_MM / 2), (ox + t.tile_w, oy + OVERLAP_MM / 2)])
    ops.append("Q")
    # the tile's border, on the page
    page = _Pen(ops, t.page_h)
    page.style(GREY, 0.15, 0)
    page.poly([(m, m), (m + t.tile_w, m), (m + t.tile_w, m + t.tile_h), (m, m + t.tile_h)], closed=True)
    y = m + t.tile_h + 6
    _tile_label(page, b, t, col, row, total, y)
    _scale_checks(page, m, y + 12, card=False)


def _tile_label(page: _Pen, b: Build, t: Tiling, col: int, row: int, total: int, y: float) -> None:
    """Under a tile: its name, page and neighbours, and a distance to check between two of
    its crosses."""
    m = PAGE_MARGIN_MM
    ox, oy = t.origin(col, row)
    number = 2 + row * t.cols + col
    near = []
    for dc, dr, word in ((-1, 0, "left"), (1, 0, "right"), (0, -1, "above"), (0, 1, "below")):
        c, r = col + dc, row + dr
        if 0 <= c < t.cols and 0 <= r < t.rows:
            near.append("%s %s" % (word, _tile_name(c, r)))
    page.text(
        m,
        y,
        3.5,
        "%s %s: tile %s, page %d of %d (column %d of %d, row %d of %d). Joins: %s."
        % (
            b.name,
            t.paper.upper(),
            _tile_name(col, row),
            number,
            total,
            col + 1,
            t.cols,
            row + 1,
            t.rows,
            ", ".join(near) or "none",
        ),
    )
    # a distance a builder measures on this page: between two crosses on it
    inside = [(cx, cy) for cx, cy in t.crosses() if ox <= cx <= ox + t.tile_w and oy <= cy <= oy + t.tile_h]
    if len(inside) >= 2:
        (ax, ay), (bx, by) = inside[0], inside[-1]
        page.text(
            m,
            y + 5,
            2.8,
            "Check: the centres of the crosses at the two far corners of this tile are %s mm apart."
            % num(math.dist((ax, ay), (bx, by))),
        )
