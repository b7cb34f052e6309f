"""Helpers for the tests that run the virtual board (tests/e2e, tests/browser): its LED
pictures, a fast-timing copy of a layout, the setup's lit points."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from waiting import wait_until

import zuni
from zuniboard.paths import HARDWARE_DIR
from zuniboard.virtual.board import VirtualBoard

DIM = {0: "#403200", 1: "#003840"}  # leds.TEAM_DIM: dim yellow (South's side), dim cyan (North's)
# The board's times, shortened for the setup tests (layouts are data).
FAST = {"scan_ms": 5, "debounce_scans": 2, "stable_ms": 50, "commit_ms": 150, "error_ms": 400, "chain_settle_ms": 600}


def idle_picture(game: Any) -> dict[str, str]:
    """What the firmware shows when ``game``'s position stands on the board and nothing is
    touched: the pieces that may move, dim in their team's colour (docs/leds.md)."""
    names = game.geometry.names
    team = game.team_of(game.turn)
    return {names[m.origin]: DIM[team] for m in game.legal_moves() if m.origin >= 0}


def frame_hex(board: VirtualBoard) -> dict[str, str]:
    """The firmware's frame, asked on the control channel: point -> "#rrggbb" (lit only)."""
    return {p: "#%02x%02x%02x" % rgb for p, rgb in board.leds().items() if rgb != (0, 0, 0)}


def fast_layout(name: str, tmp: Path) -> Path:
    data = json.loads((HARDWARE_DIR / "layouts" / (name + ".json")).read_text())
    data["timing"] = FAST
    path = tmp / (name + "-fast.json")
    path.write_text(json.dumps(data))
    return path


def side_points(game: Any) -> dict[str, list[str]]:
    """Each side's occupied points (priests included), in seating order."""
    names = game.geometry.names
    out: dict[str, list[str]] = {}
    for side in range(4):
        points = [str(names[i]) for i in range(len(names)) if game.board[i] and zuni.piece_side(game.board[i]) == side]
        if points:
            out[zuni.SIDE_NAMES[side]] = points
    return out


def wait_lit(vb: VirtualBoard, points: list[str], side: str, allowed: set[str], timeout: float = 5.0) -> None:
    """Wait until the board's frames have lit every one of ``points`` (the points to fill
    blink), counting only frames that light nothing outside ``allowed`` (the sides placed
    so far and this one: a later side's points are never lit before their turn; a frame
    of the game before the setup may still be the latest for a moment)."""
    lit: set[str] = set()
    stale: set[str] = set()

    def all_lit() -> bool:
        nonlocal lit, stale
        now = {p for p, rgb in vb.leds().items() if any(rgb)}
        if now <= allowed:
            lit |= now
        else:
            stale = now - allowed
        return set(points) <= lit

    wait_until(
        all_lit, lambda: "%s's points lit: %s (outside its turn: %s)" % (side, sorted(lit), sorted(stale)), timeout
    )
