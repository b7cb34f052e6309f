"""A tiny vector drawing (mm, origin top-left, y down) with pages, written as SVG (pages
stacked) or as a multi-page PDF (Helvetica). Used by the schematic and the stripboard
plans; output is deterministic (fixed decimals, no dates)."""

from __future__ import annotations

from dataclasses import dataclass, field

from zuniboard.hardware.fmt import num, xml_text

MM = 72 / 25.4  # PDF points per millimetre


@dataclass
class Op:
    kind: str  # line, rect, circle, text
    args: tuple[float, ...]
    text: str = ""
    colour: str = "#000"
    width: float = 0.25
    fill: str = "none"
    anchor: str = "start"
    attrs: tuple[tuple[str, str], ...] = ()


@dataclass
class Page:
    title: str
    width: float = 297.0
    height: float = 210.0
    ops: list[Op] = field(default_factory=list)

    def line(self, x1: float, y1: float, x2: float, y2: float, colour: str = "#000", width: float = 0.25) -> None:
        self.ops.append(Op("line", (x1, y1, x2, y2), colour=colour, width=width))

    def rect(
        self, x: float, y: float, w: float, h: float, colour: str = "#000", width: float = 0.25, fill: str = "none"
    ) -> None:
        self.ops.append(Op("rect", (x, y, w, h), colour=colour, width=width, fill=fill))

    def circle(
        self, x: float, y: float, r: float, colour: str = "#000", width: float = 0.25, fill: str = "none"
    ) -> None:
        self.ops.append(Op("circle", (x, y, r), colour=colour, width=width, fill=fill))

    def text(
        self, x: float, y: float, size: float, text: str, colour: str = "#000", anchor: str = "start", **attrs: str
    ) -> None:
        self.ops.append(
            Op("text", (x, y, size), text=text, colour=colour, anchor=anchor, attrs=tuple(sorted(attrs.items())))
        )


def svg(pages: list[Page], title: str) -> str:
    gap = 10.0
    width = max(p.width for p in pages)
    height = sum(p.height for p in pages) + gap * (len(pages) - 1)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<svg xmlns="http://www.w3.org/2000/svg" width="%smm" height="%smm" viewBox="0 0 %s %s" '
        'font-family="sans-serif">' % (num(width), num(height), num(width), num(height)),
        "<title>%s</title>" % xml_text(title),
        '<rect x="0" y="0" width="%s" height="%s" fill="#fff"/>' % (num(width), num(height)),
    ]
    y0 = 0.0
    for number, page in enumerate(pages, 1):
        out.append('<g id="sheet-%d" transform="translate(0 %s)">' % (number, num(y0)))
        out.append("<title>%s</title>" % xml_text(page.title))
        for op in page.ops:
            out.append(_svg_op(op))
        out.append("</g>")
        y0 += page.height + gap
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _svg_op(op: Op) -> str:
    a = op.args
    stroke = 'stroke="%s" stroke-width="%s"' % (op.colour, num(op.width))
    if op.kind == "line":
        return '<line x1="%s" y1="%s" x2="%s" y2="%s" %s/>' % (num(a[0]), num(a[1]), num(a[2]), num(a[3]), stroke)
    if op.kind == "rect":
        return '<rect x="%s" y="%s" width="%s" height="%s" fill="%s" %s/>' % (
            num(a[0]),
            num(a[1]),
            num(a[2]),
            num(a[3]),
            op.fill,
            stroke,
        )
    if op.kind == "circle":
        return '<circle cx="%s" cy="%s" r="%s" fill="%s" %s/>' % (num(a[0]), num(a[1]), num(a[2]), op.fill, stroke)
    extra = "".join(' %s="%s"' % (k.replace("_", "-"), xml_text(v)) for k, v in op.attrs)
    anchor = "" if op.anchor == "start" else ' text-anchor="%s"' % op.anchor
    return '<text x="%s" y="%s" font-size="%s" fill="%s"%s%s>%s</text>' % (
        num(a[0]),
        num(a[1]),
        num(a[2]),
        op.colour,
        anchor,
        extra,
        xml_text(op.text),
    )


def _rgb(colour: str) -> str:
    c = colour.lstrip("#")
    if len(c) == 3:
        c = "".join(ch * 2 for ch in c)
    return " ".join(num(int(c[i : i + 2], 16) / 255) for i in (0, 2, 4))


def pdf(pages: list[Page]) -> bytes:
    """One PDF page per Page, at its real size (A4 landscape for the schematic)."""
    mm = MM
    doc = PdfDoc()
    for page in pages:
        h = page.height
        ops = doc.page(page.width, page.height)

        def pt(x: float, y: float, h: float = h) -> str:
            return "%s %s" % (num(x * mm), num((h - y) * mm))

        for op in page.ops:
            a = op.args
            ops.append("%s RG %s w" % (_rgb(op.colour), num(op.width * mm)))
            if op.kind == "line":
                ops.append("%s m %s l S" % (pt(a[0], a[1]), pt(a[2], a[3])))
            elif op.kind == "rect":
                paint = "S" if op.fill == "none" else "B"
                if op.fill != "none":
                    ops.append("%s rg" % _rgb(op.fill))
                ops.append("%s %s %s re %s" % (pt(a[0], a[1] + a[3]), num(a[2] * mm), num(a[3] * mm), paint))
            elif op.kind == "circle":
                x, y, r = a
                k = 0.5523 * r
                if op.fill != "none":
                    ops.append("%s rg" % _rgb(op.fill))
                ops.append("%s m" % pt(x + r, y))
                ops.append("%s %s %s c" % (pt(x + r, y - k), pt(x + k, y - r), pt(x, y - r)))
                ops.append("%s %s %s c" % (pt(x - k, y - r), pt(x - r, y - k), pt(x - r, y)))
                ops.append("%s %s %s c" % (pt(x - r, y + k), pt(x - k, y + r), pt(x, y + r)))
                ops.append(
                    "%s %s %s c %s"
                    % (pt(x + k, y + r), pt(x + r, y + k), pt(x + r, y), "S" if op.fill == "none" else "B")
                )
            else:
                x, y, size = a
                s = op.text.encode("latin-1", "replace").decode("latin-1")
                s = s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
                # Helvetica's average advance is about 0.5 em: good enough to centre labels.
                shift = {"start": 0.0, "middle": 0.5, "end": 1.0}[op.anchor] * 0.5 * size * len(op.text)
                ops.append(
                    "%s rg BT /F1 %s Tf %s Td (%s) Tj ET" % (_rgb(op.colour), num(size * mm), pt(x - shift, y), s)
                )
    return doc.bytes()


def pdf_file(objects: list[bytes]) -> bytes:
    """A PDF file of numbered ``objects`` (object 1 the catalogue), with its xref table."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


class PdfDoc:
    """The one PDF writer of the hardware drawings (the schematic, the plans, the templates):
    pages of PDF operators (lines, Bezier circles, Helvetica text in Latin-1); object 1 the
    catalogue, 2 the page tree, 3 the font, then a (page, content) pair per page."""

    def __init__(self) -> None:
        self.pages: list[tuple[float, float, list[str]]] = []

    def page(self, w_mm: float, h_mm: float) -> list[str]:
        ops: list[str] = []
        self.pages.append((w_mm, h_mm, ops))
        return ops

    def bytes(self) -> bytes:
        n = len(self.pages)
        objects: list[bytes] = [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            (
                "<< /Type /Pages /Kids [%s] /Count %d >>" % (" ".join("%d 0 R" % (4 + 2 * i) for i in range(n)), n)
            ).encode(),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ]
        for w, h, ops in self.pages:
            content = "\n".join(ops).encode("latin-1")
            objects.append(
                (
                    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %s %s] /Contents %d 0 R "
                    "/Resources << /Font << /F1 3 0 R >> >> >>" % (num(w * MM), num(h * MM), len(objects) + 2)
                ).encode()
            )
            objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        return pdf_file(objects)
