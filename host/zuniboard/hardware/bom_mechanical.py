"""The mechanical bill of materials (magnets, pieces, plates, frame, screws, wire,
headers, sockets): rows of the electrical BOM's columns, with sources and estimated
prices, and the pieces a game set needs.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

from zuniboard.hardware import pcb_stack, power
from zuniboard.hardware.board_spots import board_spots
from zuniboard.hardware.bom import COLUMNS
from zuniboard.hardware.fmt import csv_cell, num
from zuniboard.hardware.placement import Build, build, piece_diameter
from zuniboard.hardware.plates import screw_positions
from zuniboard.hardware.stack import (
    FRAME_HEIGHT_MM,
    FRAME_WIDTH_MM,
    MAGNET_POCKET_DIA_MM,
    MAGNET_THICK_MM,
    MAGNET_TO_REED_AXIS_MM,
    MOUNT_BITE_MM,
    MOUNT_SCREW,
    P1_MM,
    P2_MM,
    P3_MM,
    PIECE_HEIGHT_MM,
    SPACER_MM,
    USB_SLOT_MM,
)
from zuniboard.hardware.wiring import CHAIN_PINS, WIRE_AWG, chain_pin_text, wire_totals_m

if TYPE_CHECKING:
    from zuni_board.layout import Layout

# -- pieces per game set ---------------------------------------------------------------------


def pieces_per_set(layout: Layout) -> tuple[int, str]:
    """The most pieces any of the layout's rulesets needs (docs/rules.md): the start position
    counted by the rules engine, plus the bow priests that start off the board
    (Awithlaknakwe: one per player, four with 4 players and ``priests=each``)."""
    import zuni

    best, why = 0, ""
    for text in layout.rulesets:
        game = zuni.new_game(zuni.parse_ruleset(text))
        on_board = sum(1 for i in range(len(game.geometry.names)) if game.piece_at(i) is not None)
        priests = 4 if game.geometry.shape == "squares" else 0
        if on_board + priests > best:
            best = on_board + priests
            why = "%s: %d on the board at the start%s" % (
                text,
                on_board,
                " + %d bow priests (4 players, priests=each)" % priests if priests else "",
            )
    return best, why


# -- mechanical BOM rows --------------------------------------------------------------------

# The electrical BOM's columns, so that the two lists merge row for row (cost.md).
BOM_COLUMNS = COLUMNS


class BomRow(NamedTuple):
    """One row of the mechanical BOM; ``cells`` writes it in ``BOM_COLUMNS`` order, the
    electrical BOM's columns, so that cost.md adds the two lists row for row."""

    refs: str
    qty: float  # pieces, or metres where the part says so
    part: str
    value: str
    unit_price_usd: float  # per piece or per metre; an estimate (USD, 2026, hobby quantities)
    notes: str = ""
    package: str = ""
    manufacturer: str = ""
    mpn: str = ""
    supplier_1: str = ""
    supplier_2: str = ""
    group: str = "mechanical"

    def cells(self) -> tuple[str, ...]:
        return (
            self.group,
            self.refs,
            num(self.qty),
            num(self.qty),  # order_qty: no spares rule here; the wire and frame rows carry their own margins
            self.part,
            self.value,
            self.package,
            self.manufacturer,
            self.mpn,
            self.supplier_1,
            self.supplier_2,
            "%.2f" % self.unit_price_usd,
            self.notes,
        )


def _area_m2(b: Build) -> float:
    return b.place.width * b.place.height / 1e6


def bom_rows(layout: Layout) -> list[BomRow]:
    """The mechanical rows. Prices are estimates (USD, 2026,
    hobby quantities); generic parts name their specification instead of a part number."""
    b = build(layout)
    sensor_boards = layout.sensor_count // 8 if layout.sensors["type"] == "hc165" else 0
    rows = _piece_rows(b, *pieces_per_set(layout))
    rows += _plate_rows(b)
    rows.append(_frame_row(b))
    rows += _fastener_rows(b)
    rows += _adhesive_rows()
    rows += _wire_rows(layout)
    rows += _pico_header_rows()
    rows += _chain_rows(sensor_boards)
    rows.append(_usb_cable_row())
    rows.append(_shifter_socket_row())
    return _pcb_rows(rows) if pcb_stack.is_pcb_build(b) else rows


def _piece_rows(b: Build, pieces: int, why: str) -> list[BomRow]:
    """The game pieces: discs, their magnets and felt pads; ``why`` says what sets the count."""
    d = piece_diameter(b)
    colours = 4 if b.geometry.shape == "squares" else 2
    return [
        BomRow(
            refs="MAG",
            qty=pieces,
            part="Magnet",
            value="disc 6 x 3 mm N35 (or N42), axially magnetised",
            package="disc",
            manufacturer="generic",
            supplier_1="supermagnete.de disc 6 x 3 mm",
            supplier_2="K&J Magnetics D42 (6.35 x 3.18 mm, N42)",
            unit_price_usd=0.2,
            notes="one per piece, all the same way up; %s" % why,
        ),
        BomRow(
            refs="PC",
            qty=pieces,
            part="Piece",
            value="wooden disc %s x %s mm, opaque, %d colours" % (num(d), num(PIECE_HEIGHT_MM), colours),
            package="beech or birch",
            manufacturer="generic",
            supplier_1="craft shop: wooden discs %s mm" % num(d),
            supplier_2="wood turning supplier",
            unit_price_usd=0.15,
            notes="pocket %s x %s mm deep in the base for the magnet; opaque: the LED shines beside it"
            % (num(MAGNET_POCKET_DIA_MM), num(MAGNET_THICK_MM)),
        ),
        BomRow(
            refs="FELT",
            qty=pieces,
            part="Felt pad",
            value="self-adhesive, %s mm round, 1 mm" % num(d - 2),
            manufacturer="generic",
            supplier_1="hardware store (furniture glides)",
            unit_price_usd=0.03,
            notes="covers the magnet; part of the %s mm magnet-to-reed distance" % num(MAGNET_TO_REED_AXIS_MM),
        ),
    ]


def _plate_rows(b: Build) -> list[BomRow]:
    """The case's three plates, priced by area."""
    area = _area_m2(b)
    return [
        BomRow(
            refs="P1",
            qty=1,
            part="Plate P1 (play surface)",
            value="birch plywood %s mm, %s x %s mm" % (num(P1_MM), num(b.place.width), num(b.place.height)),
            package="sheet",
            manufacturer="generic",
            supplier_1="timber merchant / laser-cut plywood",
            supplier_2="hobby plywood sheets",
            unit_price_usd=max(2.0, 25.0 * area),
            notes="board drawing on top; LED windows, buttons",
        ),
        BomRow(
            refs="P2",
            qty=1,
            part="Plate P2 (sensor plate)",
            value="birch plywood %s mm, %s x %s mm" % (num(P2_MM), num(b.place.width), num(b.place.height)),
            package="sheet",
            manufacturer="generic",
            supplier_1="timber merchant",
            supplier_2="hobby plywood sheets",
            unit_price_usd=max(3.0, 35.0 * area),
            notes="reed channels in the top face, LED bodies, wiring underneath",
        ),
        BomRow(
            refs="P3",
            qty=1,
            part="Plate P3 (back)",
            value="plywood or hardboard %s mm, %s x %s mm" % (num(P3_MM), num(b.place.width), num(b.place.height)),
            package="sheet",
            manufacturer="generic",
            supplier_1="timber merchant",
            unit_price_usd=max(2.0, 15.0 * area),
            notes="closes the case",
        ),
    ]


def _frame_row(b: Build) -> BomRow:
    """The frame round the plates, in metres with a 10 % margin."""
    perimeter_m = 2 * (b.place.width + b.place.height) / 1000
    return BomRow(
        refs="FR",
        qty=math.ceil(perimeter_m * 1.1 * 10) / 10,
        part="Frame strip (metres)",
        value="softwood %s x %s mm" % (num(FRAME_WIDTH_MM), num(FRAME_HEIGHT_MM)),
        package="strip",
        manufacturer="generic",
        supplier_1="DIY store",
        unit_price_usd=2.0,
        notes="qty and price in metres; four sides glued at the corners; USB slot %s x %s mm"
        % (num(USB_SLOT_MM[0]), num(USB_SLOT_MM[1])),
    )


def _fastener_rows(b: Build) -> list[BomRow]:
    """The screws that close the case, the spacers and screws under the electronics
    boards, and the feet."""
    screws = len(screw_positions(b))
    spacers = sum(len(spot.mounts) for spot in board_spots(b))
    feet = 4 if max(b.place.width, b.place.height) <= 300 else 6
    return [
        *_case_screw_rows(screws),
        *_board_mount_rows(spacers),
        BomRow(
            refs="FT",
            qty=feet,
            part="Rubber foot",
            value="self-adhesive, 12 mm",
            manufacturer="generic",
            supplier_1="DIY store",
            unit_price_usd=0.1,
            notes="under P3",
        ),
    ]


def _case_screw_rows(screws: int) -> list[BomRow]:
    """The screws that close the case: P1 and P2 from above, P3 from below."""
    return [
        BomRow(
            refs="SCT",
            qty=screws,
            part="Wood screw",
            value="3.0 x 20 mm countersunk",
            manufacturer="generic",
            supplier_1="DIY store",
            unit_price_usd=0.03,
            notes="P1 and P2 into the frame",
        ),
        BomRow(
            refs="SCB",
            qty=screws,
            part="Wood screw",
            value="3.0 x 12 mm pan head",
            manufacturer="generic",
            supplier_1="DIY store",
            unit_price_usd=0.03,
            notes="P3 into the frame",
        ),
    ]


def _board_mount_rows(spacers: int) -> list[BomRow]:
    """A spacer and a screw at every mounting hole of the electronics boards under P2."""
    return [
        BomRow(
            refs="SP",
            qty=spacers,
            part="Spacer",
            value="nylon, %s mm long, 3.2 mm bore (unthreaded)" % num(SPACER_MM),
            manufacturer="generic",
            supplier_1="electronics distributor (nylon spacers M3 x %s, round)" % num(SPACER_MM),
            unit_price_usd=0.05,
            notes="electronics boards under P2 (2 per sensor strip, 3 or 4 for the controller), "
            "at the pilot holes MT-* of drill.csv",
        ),
        BomRow(
            refs="SCS",
            qty=spacers,
            part="Self-tapping screw",
            value="%s x %s mm pan head, DIN 7981 / ISO 7049" % (num(MOUNT_SCREW[0]), num(MOUNT_SCREW[1])),
            manufacturer="generic",
            supplier_1="DIY store / electronics distributor",
            unit_price_usd=0.03,
            notes="through the board (corner hole drilled out to 3.0 mm) and its spacer into P2: %s mm of thread "
            "in the wood, its tip %s mm under P2's top face; never longer (it would reach the reed channels)"
            % (num(MOUNT_BITE_MM), num(P2_MM - MOUNT_BITE_MM)),
        ),
    ]


def _adhesive_rows() -> list[BomRow]:
    """The glue for the frame and the LEDs, and the adhesive for the magnets."""
    return [
        BomRow(
            refs="GLUE",
            qty=1,
            part="Glue",
            value="PVA wood glue; hot glue sticks",
            manufacturer="generic",
            supplier_1="DIY store",
            unit_price_usd=6.0,
            notes="frame corners; LED bodies on P2's underside",
        ),
        BomRow(
            refs="EPX",
            qty=1,
            part="Adhesive",
            value="2-part epoxy or CA, 5 g",
            manufacturer="generic",
            supplier_1="DIY store",
            unit_price_usd=5.0,
            notes="magnets into the pieces",
        ),
    ]


def _wire_rows(layout: Layout) -> list[BomRow]:
    """The hook-up wire, one row per gauge, in metres (wiring.csv)."""
    rows: list[BomRow] = []
    for awg, metres in wire_totals_m(layout).items():
        use = ", ".join(k.replace("_", " ") for k, v in WIRE_AWG.items() if v == awg)
        rows.append(
            BomRow(
                refs="W%d" % awg,
                qty=metres,
                part="Hook-up wire (metres)",
                value="%d AWG stranded, PVC" % awg,
                manufacturer="generic",
                supplier_1="electronics distributor",
                unit_price_usd=0.2,
                notes="qty and price in metres; %s; length from wiring.csv + 20 %%, "
                "in two colours (red/black for power)" % use,
            )
        )
    return rows


def _pico_header_rows() -> list[BomRow]:
    """The hand-wired build's sockets for the Pico and the headers soldered to it."""
    return [
        BomRow(
            refs="HS",
            qty=2,
            part="Socket strip",
            value="1 x 20 female header, 2.54 mm",
            package="THT",
            manufacturer="generic",
            supplier_1="electronics distributor",
            unit_price_usd=0.6,
            notes="Pico on sockets (replaceable)",
        ),
        BomRow(
            refs="HP",
            qty=2,
            part="Pin header",
            value="1 x 20 male, 2.54 mm",
            package="THT",
            manufacturer="generic",
            supplier_1="electronics distributor",
            unit_price_usd=0.3,
            notes="soldered to the Pico",
        ),
    ]


def _chain_rows(sensor_boards: int) -> list[BomRow]:
    """The hand-wired build's sensor strips: chip sockets and the chain's connectors
    (none without a shift-register chain)."""
    if not sensor_boards:
        return []
    return [
        BomRow(
            refs="IC-S",
            qty=sensor_boards,
            part="IC socket",
            value="DIP-16, 2.54 mm",
            package="THT",
            manufacturer="generic",
            supplier_1="electronics distributor",
            unit_price_usd=0.15,
            notes="one per 74HC165",
        ),
        BomRow(
            refs="JC",
            qty=2 * sensor_boards,
            part="Pin header",
            value="1 x %d male, 2.54 mm" % len(CHAIN_PINS),
            package="THT",
            manufacturer="generic",
            supplier_1="electronics distributor",
            unit_price_usd=0.1,
            notes="the chain: one on the controller, IN on every sensor strip, OUT on every strip but the last; "
            "pin order %s (assembly.md)" % chain_pin_text(),
        ),
        BomRow(
            refs="JCH",
            qty=2 * sensor_boards,
            part="Connector housing",
            value="1 x %d Dupont housing with crimp pins" % len(CHAIN_PINS),
            manufacturer="generic",
            supplier_1="electronics distributor",
            unit_price_usd=0.15,
            notes="both ends of each chain link",
        ),
    ]


def _usb_cable_row() -> BomRow:
    """The USB cable, short and thin enough for the power path and the frame's slot (power.md)."""
    return BomRow(
        refs="USB",
        qty=1,
        part="USB cable",
        value="USB 2.0 A (or C) to micro-B, data and power, at most %s m" % num(power.CABLE_M),
        manufacturer="generic",
        supplier_1="electronics distributor",
        unit_price_usd=3.0,
        notes="a data cable (not charge-only); micro-B overmould at most %s x %s mm to pass the frame's slot; "
        "longer than %s m only with a thicker power pair (power.md)"
        % (num(USB_SLOT_MM[0] - 1), num(USB_SLOT_MM[1] - 0.5), num(power.CABLE_M)),
    )


def _shifter_socket_row() -> BomRow:
    """The hand-wired build's socket for the level shifter."""
    return BomRow(
        refs="IC-L",
        qty=1,
        part="IC socket",
        value="DIP-14, 2.54 mm",
        package="THT",
        manufacturer="generic",
        supplier_1="electronics distributor",
        unit_price_usd=0.15,
        notes="level shifter",
    )


def bom_mechanical_csv(layout: Layout) -> str:
    out = [",".join(BOM_COLUMNS)]
    for row in bom_rows(layout):
        out.append(",".join(csv_cell(v) for v in row.cells()))
    return "\n".join(out) + "\n"


def mechanical_cost_usd(layout: Layout) -> float:
    return sum(row.qty * row.unit_price_usd for row in bom_rows(layout))


# The hand-wired build's board hardware, which the PCB build does not use: the Pico and
# the chips are soldered to the PCBs (fab-assembled), the chain is copper.
_HAND_WIRED_ONLY = ("HS", "HP", "IC-S", "JC", "JCH", "IC-L")


def _pcb_rows(rows: list[BomRow]) -> list[BomRow]:
    """The PCB build's mechanical rows (``pcb_stack``): P2 is the spacer, the controller
    module stands on P3 on spacers held by M3 screws and nuts."""
    out = []
    for row in rows:
        if row.refs in _HAND_WIRED_ONLY:
            continue
        if row.refs == "P2":
            row = row._replace(
                part="Plate P2 (spacer)", notes="every cut through (laser): LED bodies, reed slots, openings"
            )
        elif row.refs == "SCT":
            row = row._replace(notes="P1, P2 and the main PCB into the frame")
        elif row.refs == "SP":
            row = row._replace(notes="the controller module on P3, at the holes MT-controller-* of drill.csv")
        elif row.refs == "SCS":
            row = row._replace(
                part="Machine screw and nut",
                value="M3 x 16 mm pan head, with an M3 nut",
                unit_price_usd=0.08,
                notes="from under P3 through the spacer and the controller module's hole, the nut on top",
            )
        out.append(row)
    return out
