"""The physical stack of a board: plates, frame, the electronics boards under P2, the reed
switch and its channel, the LED, pieces and magnets, screws and buttons. Dimensions only,
each with the reason it has that value; every drawing and document reads them from here.
"""

from __future__ import annotations

import math

# -- the plate stack (top to bottom) --------------------------------------------------
# P1 play surface: 3 mm birch plywood. It carries the board drawing, the LED windows and
# the buttons. Thin, because every millimetre between the magnet and the reed switch
# costs field (magnets.md); stiff enough because it is screwed to P2 over its whole area.
P1_MM = 3.0
# P2 sensor plate: 6 mm birch plywood. Reed channels are routed into its top face so the
# switch lies right under P1 (the magnet is then 5.6 mm above the glass axis); the LED
# body passes through it; the wiring runs on its underside. 6 mm leaves 3.5 mm of wood
# under a 2.5 mm channel, and is the height a 5 mm through-hole LED needs below P1.
P2_MM = 6.0
# P3 back plate: 3 mm plywood or hardboard, closes the case; it carries no parts.
P3_MM = 3.0
# The frame between P2 and P3: softwood strip, 10 mm wide (under the plates' margin), 30 mm
# high: the cavity holds the LED leads under P2 (cut to 5 mm) and the electronics boards on
# 8 mm spacers, component side down, and the Pico's USB socket with the plug's overmould in
# the frame's slot: USB_CENTRE_BELOW_P2_MM (22.9 mm) + half the slot (4 mm) = 26.9 mm < 30.
FRAME_WIDTH_MM = 10.0
FRAME_HEIGHT_MM = 30.0

# -- electronics boards under P2 (perfboard.svg: the controller board and the sensor strips) --
# Each hangs from P2 on nylon spacers, its component side down (towards P3), its copper
# side with the wire links towards P2: the LED legs (cut to LED_LEG_BELOW_P2_MM) and the reed
# leads' solder joints stay clear of it.
SPACER_MM = 8.0
PERFBOARD_MM = 1.6
LED_LEG_BELOW_P2_MM = 5.0
BOARD_GAP_MM = 2.0  # between two boards, and between a board and the frame
# Mounting screws: DIN 7981 pan head self-tapping screws 2.9 x 13 mm through the board's
# corner hole (drilled out to 3.0 mm) and its spacer into a 2.0 mm pilot hole drilled
# through P2 from the template (P1 covers it): 13 - 8 - 1.6 = 3.4 mm of thread in the wood,
# the tip 2.6 mm under P2's top face.
MOUNT_SCREW = (2.9, 13.0)
MOUNT_PILOT_MM = 2.0
MOUNT_BITE_MM = MOUNT_SCREW[1] - SPACER_MM - PERFBOARD_MM
MOUNT_INSET_MM = 2.54  # the mounting hole: one hole in from the board's corner
# The Pico's USB socket below P2 (component side down): spacer, board, the usual 8.5 mm
# female header, the 2.5 mm plastic of the Pico's own male header, the Pico's 1 mm PCB
# (Raspberry Pi Pico datasheet: 1 mm board), and half the micro-B socket's height (about
# 2.6 mm for a micro-B receptacle; the slot's 8 mm leave 2.7 mm either way for other headers).
SOCKET_MM = 8.5
PICO_HEADER_MM = 2.5
PICO_PCB_MM = 1.0
USB_SOCKET_H_MM = 2.6
USB_CENTRE_BELOW_P2_MM = SPACER_MM + PERFBOARD_MM + SOCKET_MM + PICO_HEADER_MM + PICO_PCB_MM + USB_SOCKET_H_MM / 2
# The Pico's columns on the controller plan (perfboard.controller_plan: outline at holes 1-9
# of 27): its USB end is the plan's top edge, the centre of the socket 5.5 pitches in.
PICO_USB_X_PITCHES = 5.5

# -- reed switch ----------------------------------------------------------------------
# Glass body up to 14 mm x 2 mm (a typical 10-20 AT switch; magnets.md): the channel is
# drawn for this envelope (and the nearest-glass figures use its length: the conservative
# side); the switch the BOM orders (REED_PART_*) is a little smaller.
REED_GLASS_MM = 14.0
REED_GLASS_DIA_MM = 2.0
# The glass channel: 0.5 mm longer than the glass at each end (length tolerance), 2.5 mm
# wide (a 2.5 mm end mill; 0.25 mm clearance each side), 2.5 mm deep: the glass lies on the
# bottom, its top 0.5 mm below P2's face, so P1 never presses on it.
CHANNEL_LEN_MM = REED_GLASS_MM + 1.0
CHANNEL_WIDTH_MM = 2.5
CHANNEL_DEPTH_MM = 2.5
# Lead slots continue the channel straight on both ends, as deep as the channel: the leads
# leave the glass on its axis, 1.0 mm above the channel floor, so any floor at or below
# 0.7 mm under the lead keeps it straight. A lead is bent down into its through hole only
# LEAD_RUN_MM from the end of the channel (6.5 mm from the glass seal: more than the 3 mm
# that reed switch makers ask between a bend and the seal, and the lead is held flat in
# its slot while it is bent).
LEAD_RUN_MM = 6.0
LEAD_SLOT_WIDTH_MM = 1.5
LEAD_HOLE_MM = 1.5
SLOT_LEN_MM = CHANNEL_LEN_MM + 2 * LEAD_RUN_MM
# The reed switch the BOM orders (Littelfuse MDSR-7 datasheet): glass 12.7 x 1.8 mm max,
# 40.38 mm nominal over the leads, 0.47 mm leads. It lies on the floor of the channel drawn
# for the 14 x 2 mm envelope above.
REED_PART_GLASS_MM = 12.7
REED_PART_DIA_MM = 1.8
REED_PART_OVERALL_MM = 40.38
# Vertical distance from a magnet's bottom face to the glass axis of that switch: felt pad
# under the piece, P1, the channel above the glass, the glass radius (1 + 3 + 0.7 + 0.9).
FELT_MM = 1.0
MAGNET_TO_REED_AXIS_MM = FELT_MM + P1_MM + (CHANNEL_DEPTH_MM - REED_PART_DIA_MM) + REED_PART_DIA_MM / 2

# -- LED --------------------------------------------------------------------------------
# A 5 mm through-hole addressable LED (WS2812D-F5 or PL9823-F5 class, diffused): dome 5 mm,
# flange 5.8 mm, body 8.6 mm from the flange to the dome's top. Mounted from below: the dome
# fills a 5.0 mm window in P1 and ends flush with the play surface (a piece slides over it),
# the body sits in a 6.0 mm hole through P2, held by a drop of hot glue on P2's underside.
LED_WINDOW_MM = 5.0
LED_BODY_HOLE_MM = 6.0
LED_BODY_MM = 8.6
# The light is beside the piece, never under it: the window lies outside the piece's
# footprint plus a placement slop (a piece set down up to 2 mm off its point), towards
# the direction with no neighbour (North on line boards: between the two diagonal
# neighbours; the North-West corner of the square on the square board, the reed switch
# takes the North-East corner).
PLACEMENT_SLOP_MM = 2.0
LED_EDGE_GAP_MM = 0.5
LED_ANGLE_DEG = {"lines": 90.0, "squares": 135.0}

# -- pieces and magnets ------------------------------------------------------------------
# Wooden discs (beech or birch), opaque: the light is beside them. Craft discs come in 5 mm
# steps; a piece is the largest one at most 0.72 x the nearest-neighbour distance, so two
# pieces on neighbouring points leave a finger's gap.
PIECE_SIZES_MM = (15.0, 20.0, 25.0, 30.0)
PIECE_FRACTION_MAX = 0.72
PIECE_HEIGHT_MM = 8.0
MAGNET_DIA_MM = 6.0
MAGNET_THICK_MM = 3.0
MAGNET_BR_T = 1.2  # N35 remanence (N42, Br 1.3 T, scales every field by 1.08: ratios stay)
MAGNET_POCKET_DIA_MM = 6.2
# Reed switch sensitivity (magnets.md): 10-20 AT pull-in; drop-out about half of pull-in.
PULL_IN_AT = (10.0, 20.0)

# -- screws, buttons, USB --------------------------------------------------------------------
SCREW_HOLE_MM = 3.5  # 3.0 mm wood screws: clearance through P1 and P2
SCREW_HEAD_MM = 6.5  # countersink on P1's top face
SCREW_INSET_MM = FRAME_WIDTH_MM / 2
SCREW_SPACING_MM = 150.0
BUTTON_HOLE_MM = 7.0  # panel-mount momentary push button, 7 mm bushing (PBS-110 class)
BUTTON_NUT_MM = 14.0  # pocket through P2 for the nut and the solder tags
# A board cut into strip PCBs (strips.needs_strips) has no room for its buttons in the plates'
# margin: the South row's strips reach down past the reed switches' far pads (board49: to
# 108.9 mm of 120), and the buttons' own PCB is 29.5 mm tall (pcb_layout.buttons_plan). Such
# a line board gets this band added below its South margin (board49: 540 x 160 mm, as deep
# as board25), the buttons one pitch South of the South row, their PCB clear of the strips
# and of the frame (pcb_fit checks it).
BUTTON_BAND_MM = 40.0
# A play surface larger than this in either direction is cut into strips (strips.py says why).
MAIN_MAX_MM = 400.0
# The buttons' own PCB reaches this far below the buttons' centres (its channel, the
# protection parts and J4 under them: pcb_layout.buttons_plan); the buttons sit high
# enough that it stays BOARD_GAP_MM inside the frame.
BUTTONS_PCB_BELOW_MM = 23.5
USB_SLOT_MM = (12.0, 8.0)  # through the frame: a micro-B plug's overmould reaches the Pico


# -- the PCB build (pcb_stack) ---------------------------------------------------------------
# The main PCB takes the wiring's place under P2, which becomes a spacer of plain
# through-cuts. The reed switch's footprint has its pads 20.32 mm apart (pcb_layout): its
# leads bend down 3.8 mm from the glass seals (more than the 3 mm makers ask), and the
# slot through the spacer spans both bends and the pads' holes.
PCB_MM = 1.6
PCB_SWITCH_PITCH_MM = 20.32
PCB_SWITCH_SLOT_MM = PCB_SWITCH_PITCH_MM + 2.5
# The glass is held on its soldered leads with its top GLASS_TOP_BELOW_P2_MM below the
# spacer's top face (a 0.7 mm shim laid over the slot while soldering), the same height as
# on the hand-wired build's channel floor: so MAGNET_TO_REED_AXIS_MM holds for both, and
# with it every pull-in figure. Its axis is then this far above the PCB:
GLASS_TOP_BELOW_P2_MM = CHANNEL_DEPTH_MM - REED_PART_DIA_MM
GLASS_AXIS_ABOVE_PCB_MM = P2_MM - GLASS_TOP_BELOW_P2_MM - REED_PART_DIA_MM / 2
MAGNET_TO_REED_AXIS_PCB_MM = FELT_MM + P1_MM + GLASS_TOP_BELOW_P2_MM + REED_PART_DIA_MM / 2


def unit_vector(angle_deg: float) -> tuple[float, float]:
    a = math.radians(angle_deg)
    return (round(math.cos(a), 9), round(-math.sin(a), 9))


def reed_lead_below_p2_mm() -> float:
    """How much of each lead of the BOM's switch comes out under P2: its length from the
    glass seal, less the straight run in the slot to the lead hole, less the way down
    from the glass axis (the glass on the channel floor) to P2's underside."""
    lead = (REED_PART_OVERALL_MM - REED_PART_GLASS_MM) / 2
    run = SLOT_LEN_MM / 2 - LEAD_HOLE_MM / 2 - REED_PART_GLASS_MM / 2
    down = P2_MM - (CHANNEL_DEPTH_MM - REED_PART_DIA_MM / 2)
    return lead - run - down
