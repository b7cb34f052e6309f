"""The mechanical bill of materials (magnets, pieces, plates, frame, screws, wire,
headers, sockets): rows of the electrical BOM's columns, with sources and estimated
prices, and the pieces a game set needs.
"""

from __future__ import annotations

import math
from typing import Any

from zuniboard.hardware import power
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

# -- pieces per game set ---------------------------------------------------------------------


def pieces_per_set(layout: Any) -> tuple[int, str]:
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


def _area_m2(b: Build) -> float:
    return b.place.width * b.place.height / 1e6


def bom_rows(layout: Any) -> list[tuple[str, ...]]:
    """Mechanical rows in BOM_COLUMNS order (strings). Prices are estimates (USD, 2026,
    hobby quantities); generic parts name their specification instead of a part number."""
    b = build(layout)
    pieces, why = pieces_per_set(layout)
    d = piece_diameter(b)
    area = _area_m2(b)
    perimeter_m = 2 * (b.place.width + b.place.height) / 1000
    screws = len(screw_positions(b))
    sensor_boards = layout.sensor_count // 8 if layout.sensors["type"] == "hc165" else 0
    spacers = sum(len(spot.mounts) for spot in board_spots(b))
    feet = 4 if max(b.place.width, b.place.height) <= 300 else 6
    colours = 4 if b.geometry.shape == "squares" else 2
    rows: list[tuple[str, ...]] = [
        (
            "mechanical",
            "MAG",
            str(pieces),
            "Magnet",
            "disc 6 x 3 mm N35 (or N42), axially magnetised",
            "disc",
            "generic",
            "",
            "supermagnete.de disc 6 x 3 mm",
            "K&J Magnetics D42 (6.35 x 3.18 mm, N42)",
            "0.20",
            "one per piece, all the same way up; %s" % why,
        ),
        (
            "mechanical",
            "PC",
            str(pieces),
            "Piece",
            "wooden disc %s x %s mm, opaque, %d colours" % (num(d), num(PIECE_HEIGHT_MM), colours),
            "beech or birch",
            "generic",
            "",
            "craft shop: wooden discs %s mm" % num(d),
            "wood turning supplier",
            "0.15",
            "pocket %s x %s mm deep in the base for the magnet; opaque: the LED shines beside it"
            % (num(MAGNET_POCKET_DIA_MM), num(MAGNET_THICK_MM)),
        ),
        (
            "mechanical",
            "FELT",
            str(pieces),
            "Felt pad",
            "self-adhesive, %s mm round, 1 mm" % num(d - 2),
            "",
            "generic",
            "",
            "hardware store (furniture glides)",
            "",
            "0.03",
            "covers the magnet; part of the %s mm magnet-to-reed distance" % num(MAGNET_TO_REED_AXIS_MM),
        ),
        (
            "mechanical",
            "P1",
            "1",
            "Plate P1 (play surface)",
            "birch plywood %s mm, %s x %s mm" % (num(P1_MM), num(b.place.width), num(b.place.height)),
            "sheet",
            "generic",
            "",
            "timber merchant / laser-cut plywood",
            "hobby plywood sheets",
            num(max(2.0, 25.0 * area)),
            "board drawing on top; LED windows, buttons",
        ),
        (
            "mechanical",
            "P2",
            "1",
            "Plate P2 (sensor plate)",
            "birch plywood %s mm, %s x %s mm" % (num(P2_MM), num(b.place.width), num(b.place.height)),
            "sheet",
            "generic",
            "",
            "timber merchant",
            "hobby plywood sheets",
            num(max(3.0, 35.0 * area)),
            "reed channels in the top face, LED bodies, wiring underneath",
        ),
        (
            "mechanical",
            "P3",
            "1",
            "Plate P3 (back)",
            "plywood or hardboard %s mm, %s x %s mm" % (num(P3_MM), num(b.place.width), num(b.place.height)),
            "sheet",
            "generic",
            "",
            "timber merchant",
            "",
            num(max(2.0, 15.0 * area)),
            "closes the case",
        ),
        (
            "mechanical",
            "FR",
            num(math.ceil(perimeter_m * 1.1 * 10) / 10),
            "Frame strip (metres)",
            "softwood %s x %s mm" % (num(FRAME_WIDTH_MM), num(FRAME_HEIGHT_MM)),
            "strip",
            "generic",
            "",
            "DIY store",
            "",
            "2.00",
            "qty and price in metres; four sides glued at the corners; USB slot %s x %s mm"
            % (num(USB_SLOT_MM[0]), num(USB_SLOT_MM[1])),
        ),
        (
            "mechanical",
            "SCT",
            str(screws),
            "Wood screw",
            "3.0 x 20 mm countersunk",
            "",
            "generic",
            "",
            "DIY store",
            "",
            "0.03",
            "P1 and P2 into the frame",
        ),
        (
            "mechanical",
            "SCB",
            str(screws),
            "Wood screw",
            "3.0 x 12 mm pan head",
            "",
            "generic",
            "",
            "DIY store",
            "",
            "0.03",
            "P3 into the frame",
        ),
        (
            "mechanical",
            "SP",
            str(spacers),
            "Spacer",
            "nylon, %s mm long, 3.2 mm bore (unthreaded)" % num(SPACER_MM),
            "",
            "generic",
            "",
            "electronics distributor (nylon spacers M3 x %s, round)" % num(SPACER_MM),
            "",
            "0.05",
            "electronics boards under P2 (2 per sensor strip, 3 or 4 for the controller), at the pilot holes "
            "MT-* of drill.csv",
        ),
        (
            "mechanical",
            "SCS",
            str(spacers),
            "Self-tapping screw",
            "%s x %s mm pan head, DIN 7981 / ISO 7049" % (num(MOUNT_SCREW[0]), num(MOUNT_SCREW[1])),
            "",
            "generic",
            "",
            "DIY store / electronics distributor",
            "",
            "0.03",
            "through the board (corner hole drilled out to 3.0 mm) and its spacer into P2: %s mm of thread "
            "in the wood, "
            "its tip %s mm under P2's top face; never longer (it would reach the reed channels)"
            % (num(MOUNT_BITE_MM), num(P2_MM - MOUNT_BITE_MM)),
        ),
        (
            "mechanical",
            "FT",
            str(feet),
            "Rubber foot",
            "self-adhesive, 12 mm",
            "",
            "generic",
            "",
            "DIY store",
            "",
            "0.10",
            "under P3",
        ),
        (
            "mechanical",
            "GLUE",
            "1",
            "Glue",
            "PVA wood glue; hot glue sticks",
            "",
            "generic",
            "",
            "DIY store",
            "",
            "6.00",
            "frame corners; LED bodies on P2's underside",
        ),
        (
            "mechanical",
            "EPX",
            "1",
            "Adhesive",
            "2-part epoxy or CA, 5 g",
            "",
            "generic",
            "",
            "DIY store",
            "",
            "5.00",
            "magnets into the pieces",
        ),
    ]
    for awg, metres in wire_totals_m(layout).items():
        use = ", ".join(k.replace("_", " ") for k, v in WIRE_AWG.items() if v == awg)
        rows.append(
            (
                "mechanical",
                "W%d" % awg,
                num(metres),
                "Hook-up wire (metres)",
                "%d AWG stranded, PVC" % awg,
                "",
                "generic",
                "",
                "electronics distributor",
                "",
                "0.20",
                "qty and price in metres; %s; length from wiring.csv + 20 %%, in two colours (red/black for power)"
                % use,
            )
        )
    rows += [
        (
            "mechanical",
            "HS",
            "2",
            "Socket strip",
            "1 x 20 female header, 2.54 mm",
            "THT",
            "generic",
            "",
            "electronics distributor",
            "",
            "0.60",
            "Pico on sockets (replaceable)",
        ),
        (
            "mechanical",
            "HP",
            "2",
            "Pin header",
            "1 x 20 male, 2.54 mm",
            "THT",
            "generic",
            "",
            "electronics distributor",
            "",
            "0.30",
            "soldered to the Pico",
        ),
    ]
    if sensor_boards:
        rows += [
            (
                "mechanical",
                "IC-S",
                str(sensor_boards),
                "IC socket",
                "DIP-16, 2.54 mm",
                "THT",
                "generic",
                "",
                "electronics distributor",
                "",
                "0.15",
                "one per 74HC165",
            ),
            (
                "mechanical",
                "JC",
                str(2 * sensor_boards),
                "Pin header",
                "1 x %d male, 2.54 mm" % len(CHAIN_PINS),
                "THT",
                "generic",
                "",
                "electronics distributor",
                "",
                "0.10",
                "the chain: one on the controller, IN on every sensor strip, OUT on every strip but the last; "
                "pin order %s (assembly.md)" % chain_pin_text(),
            ),
            (
                "mechanical",
                "JCH",
                str(2 * sensor_boards),
                "Connector housing",
                "1 x %d Dupont housing with crimp pins" % len(CHAIN_PINS),
                "",
                "generic",
                "",
                "electronics distributor",
                "",
                "0.15",
                "both ends of each chain link",
            ),
        ]
    rows.append(
        (
            "mechanical",
            "USB",
            "1",
            "USB cable",
            "USB 2.0 A (or C) to micro-B, data and power, at most %s m" % num(power.CABLE_M),
            "",
            "generic",
            "",
            "electronics distributor",
            "",
            "3.00",
            "a data cable (not charge-only); micro-B overmould at most %s x %s mm to pass the frame's slot; "
            "longer than %s m only with a thicker power pair (power.md)"
            % (num(USB_SLOT_MM[0] - 1), num(USB_SLOT_MM[1] - 0.5), num(power.CABLE_M)),
        )
    )
    rows.append(
        (
            "mechanical",
            "IC-L",
            "1",
            "IC socket",
            "DIP-14, 2.54 mm",
            "THT",
            "generic",
            "",
            "electronics distributor",
            "",
            "0.15",
            "level shifter",
        )
    )
    return rows


def bom_mechanical_csv(layout: Any) -> str:
    out = [",".join(BOM_COLUMNS)]
    for row in bom_rows(layout):
        out.append(",".join(csv_cell(v) for v in row))
    return "\n".join(out) + "\n"


def mechanical_cost_usd(layout: Any) -> float:
    total = 0.0
    for row in bom_rows(layout):
        total += float(row[2]) * float(row[10])
    return total
