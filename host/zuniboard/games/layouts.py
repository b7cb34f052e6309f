"""Board layouts on the host: find them, load them with the firmware's own loader,
pick the one for a ruleset, and the rules geometry they are drawn from.

>>> layout_for_ruleset("kolowis size=short").name
'board25'
>>> [p.stem for p in layout_paths()]
['board168', 'board25', 'board25-matrix', 'board49']

The loader is ``firmware/lib/zuni_board/layout.py`` (the board runs the same code), so
the host and the firmware can never read a layout differently.
"""

from __future__ import annotations

import functools
import importlib
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import zuni
from zuniboard.paths import HARDWARE_DIR

if TYPE_CHECKING:
    from zuni_board.layout import Layout

LAYOUTS_DIR = HARDWARE_DIR / "layouts"

# Of several layouts for the same ruleset (board25 and its diode-matrix variant), the
# one listed first here is the default.
PREFERRED = ("board25", "board49", "board168")


def _loader() -> ModuleType:
    return importlib.import_module("zuni_board.layout")


def layout_error() -> type[ValueError]:
    """The loader's LayoutError class (for ``except``)."""
    cls: type[ValueError] = _loader().LayoutError
    return cls


def layout_paths(directory: Path = LAYOUTS_DIR) -> list[Path]:
    """The layout files, sorted by name."""
    return sorted(directory.glob("*.json"))


def load_layout(name_or_path: str | Path) -> Layout:
    """A checked ``zuni_board.layout.Layout`` by name (``board25``) or by file path.

    Raises the loader's LayoutError naming the file and field, or naming the layouts
    that exist when no such layout is found."""
    text = str(name_or_path)
    path = Path(text)
    if not text.endswith(".json"):
        path = LAYOUTS_DIR / (text + ".json")
        if not path.exists():
            known = ", ".join(p.stem for p in layout_paths())
            raise layout_error()("no layout named %r (known: %s)" % (text, known))
    return _load(path)


def _load(path: Path) -> Layout:
    layout: Layout = _loader().Layout.load(str(path))
    return layout


# The module the firmware imports for its layout at boot instead of the JSON
# (``zuni_board.load_board(path, PACKED_MODULE)``): tools/deploy.py compiles it to
# lib/zuni_layout.mpy, the virtual board imports it from its own folder.
PACKED_MODULE = "zuni_layout"
# What ``zuni_board.Board`` keeps of a Layout, as the module's names (the same attributes).
_PACKED_FIELDS = ("name", "title", "rulesets", "sensors", "leds", "buttons", "timing", "power")


def packed_source(path: str | Path) -> str:
    """The layout file ``path``, checked by the firmware's loader (LayoutError as
    ``load_layout``), as the source of the module ``PACKED_MODULE``: what the board keeps
    of it as literals, the point table packed as the ``Board`` holds it (names in one
    string, sensor and LED indexes as little-endian 16-bit bytes), and the file's size
    and CRC-32, by which the board knows whether the module is still the file's
    (``zuni_board.packed``). Importing it costs the chip no JSON parse, no checks
    and no loader code (docs/firmware-timing.md, "Boot"); the JSON stays the source."""
    raw = Path(path).read_bytes()
    layout = _load(Path(path))
    names = list(layout.points)
    lines = [
        "# The layout %s, packed by zuniboard.games.layouts.packed_source from %s:" % (layout.name, Path(path).name),
        "# made anew at every deploy, never edited (the JSON is the source).",
        "source_size = %d" % len(raw),
        "source_crc = %d" % zlib.crc32(raw),
    ]
    lines += ["%s = %r" % (field, getattr(layout, field)) for field in _PACKED_FIELDS]
    lines += [
        "sensor_count = %d" % layout.sensor_count,
        "led_count = %d" % layout.led_count,
        "names = %r" % " ".join(names),
        "sensor = %r" % struct.pack("<%dH" % len(names), *(layout.points[n][0] for n in names)),
        "led = %r" % struct.pack("<%dH" % len(names), *(layout.points[n][1] for n in names)),
    ]
    return "\n".join(lines) + "\n"


def load_all(directory: Path = LAYOUTS_DIR) -> list[Layout]:
    return [_load(p) for p in layout_paths(directory)]


def canonical_ruleset(text: str) -> str:
    """The ruleset's canonical text: ``canonical_ruleset("kolowis  size=short") == "kolowis size=short"``."""
    return str(zuni.parse_ruleset(text))


def layouts_for_ruleset(text: str, directory: Path = LAYOUTS_DIR) -> list[Layout]:
    """Every layout whose points are exactly the ruleset's geometry, preferred first."""
    names = set(board_geometry(text).names)
    found = [layout for layout in load_all(directory) if set(layout.points) == names]

    def rank(layout: Layout) -> tuple[int, str]:
        order = PREFERRED.index(layout.name) if layout.name in PREFERRED else len(PREFERRED)
        return (order, layout.name)

    return sorted(found, key=rank)


def layout_for_ruleset(text: str, directory: Path = LAYOUTS_DIR) -> Layout:
    """The default layout for a ruleset; LayoutError when no board fits it."""
    found = layouts_for_ruleset(text, directory)
    if not found:
        raise layout_error()("no layout in %s fits the ruleset %r" % (directory, text))
    return found[0]


# -- rules geometry ----------------------------------------------------------------


@dataclass(frozen=True)
class BoardGeometry:
    """What drawings need from ``zuni.Geometry``: names, coordinates (docs/rules.md units),
    lines to draw (tuples of point indices), homes (side -> points) and shape."""

    shape: str
    names: tuple[str, ...]
    coords: tuple[tuple[float, float], ...]
    lines: tuple[tuple[int, ...], ...]
    homes: dict[int, tuple[int, ...]]

    @functools.cached_property
    def index(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.names)}


def board_geometry(text: str) -> BoardGeometry:
    """The geometry of a ruleset, from the rules engine (tests cross-check it with docs/rules.md)."""
    geometry = zuni.new_game(zuni.parse_ruleset(text)).geometry
    return BoardGeometry(
        shape=str(geometry.shape),
        names=tuple(str(n) for n in geometry.names),
        coords=tuple((float(x), float(y)) for x, y in geometry.coords),
        lines=tuple(tuple(int(p) for p in line) for line in geometry.lines),
        homes={int(side): tuple(int(p) for p in points) for side, points in dict(geometry.homes).items()},
    )
