"""The layout packed on the PC (``zuniboard.games.layouts.packed_source``), which the board
imports at boot instead of parsing and checking its JSON (``zuni_board.load_board(path,
"zuni_layout")``; issue 24): the same Board as the JSON's on every shipped layout, under
CPython and the MicroPython unix port; read only while the JSON is the file it was made
from, so that a layout edited on the board is read, and checked, as JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import zuni
import zuni_board
from zuni_board.packed import packed_layout
from zuniboard.games import layouts
from zuniboard.virtual.mpy import MicroPythonMissing, micropython_env, micropython_executable

MODULE = layouts.PACKED_MODULE
FIELDS = ("name", "title", "rulesets", "sensors", "leds", "buttons", "timing", "power")
FIELDS += ("sensor_count", "led_count", "point_count")


@pytest.fixture
def packed_dir(tmp_path: Path) -> Iterator[Path]:
    """A folder on sys.path for the packed module; the module is forgotten after."""
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(MODULE, None)


def pack(layout_path: Path, folder: Path) -> Path:
    out = folder / (MODULE + ".py")
    out.write_text(layouts.packed_source(layout_path))
    sys.modules.pop(MODULE, None)
    return out


@pytest.mark.parametrize("path", layouts.layout_paths(), ids=lambda p: p.stem)
def test_the_packed_board_is_the_jsons(path: Path, packed_dir: Path, tmp_path: Path) -> None:
    layout = tmp_path / path.name
    layout.write_bytes(path.read_bytes())
    pack(layout, packed_dir)
    assert packed_layout(str(layout), MODULE) is not None
    packed = zuni_board.load_board(str(layout), MODULE)
    plain = zuni_board.load_board(str(layout))
    for field in FIELDS:
        assert getattr(packed, field) == getattr(plain, field), field
    for ruleset in plain.rulesets:
        geometry = zuni.new_game(ruleset).geometry
        assert packed.maps(geometry) == plain.maps(geometry), ruleset
    assert MODULE not in sys.modules, "the module is garbage once the Board is made"


def test_the_board_is_read_from_the_module_while_the_file_is_the_same(packed_dir: Path, tmp_path: Path) -> None:
    layout = tmp_path / "board25.json"
    layout.write_bytes((layouts.LAYOUTS_DIR / "board25.json").read_bytes())
    module = pack(layout, packed_dir)
    # Proof that the module is what is read: a title of its own, the size and CRC the file's.
    module.write_text(module.read_text().replace("title = '", "title = 'packed: "))
    assert zuni_board.load_board(str(layout), MODULE).title.startswith("packed: ")


def test_a_layout_edited_after_packing_is_read_and_checked_as_json(packed_dir: Path, tmp_path: Path) -> None:
    layout = tmp_path / "board25.json"
    data = json.loads((layouts.LAYOUTS_DIR / "board25.json").read_text())
    layout.write_text(json.dumps(data))
    pack(layout, packed_dir)
    packed_size = len(layout.read_bytes())
    # Edited on the board by hand (mpremote): the module is no longer the file's.
    data["title"] = "edited"
    layout.write_text(json.dumps(data))
    assert packed_layout(str(layout), MODULE) is None
    assert zuni_board.load_board(str(layout), MODULE).title == "edited"
    # A mistake in the edit is named, as ever.
    data["leds"]["pin"] = data["sensors"]["pins"]["sck"]
    layout.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"leds\.pin: GP18 is already used by sensors\.pins\.sck"):
        zuni_board.load_board(str(layout), MODULE)
    # The same size as the packed file and another content: the CRC tells them apart.
    original = json.loads((layouts.LAYOUTS_DIR / "board25.json").read_text())
    original["title"] = original["title"].swapcase()
    layout.write_text(json.dumps(original))
    assert len(layout.read_bytes()) == packed_size
    assert packed_layout(str(layout), MODULE) is None
    assert zuni_board.load_board(str(layout), MODULE).title == original["title"]


def test_without_a_packed_module_the_json_is_read(packed_dir: Path) -> None:
    board = zuni_board.load_board(str(layouts.LAYOUTS_DIR / "board49.json"), MODULE)
    assert board.name == "board49"
    assert packed_layout(str(layouts.LAYOUTS_DIR / "board49.json"), MODULE) is None


def test_a_bad_layout_is_not_packed(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    data = json.loads((layouts.LAYOUTS_DIR / "board25.json").read_text())
    data["timing"]["scan_ms"] = 0
    bad.write_text(json.dumps(data))
    with pytest.raises(layouts.layout_error(), match=r"timing\.scan_ms"):
        layouts.packed_source(bad)


CHECK = """
import sys
sys.path.insert(0, %r)
import zuni, zuni_board, zuni_board.packed
for path in %r:
    packed = zuni_board.packed.packed_layout(path, "zuni_layout")
    assert packed is not None, path
    a = zuni_board.load_board(path, "zuni_layout")
    assert "zuni_layout" not in sys.modules
    b = zuni_board.load_board(path)
    for f in %r:
        assert getattr(a, f) == getattr(b, f), (path, f)
    for r in b.rulesets:
        g = zuni.new_game(r).geometry
        assert a.maps(g) == b.maps(g), (path, r)
    print("same", a.name)
"""


def test_the_packed_board_is_the_jsons_under_micropython(tmp_path: Path) -> None:
    try:
        executable = micropython_executable()
    except MicroPythonMissing as exc:  # pragma: no cover
        pytest.skip("MicroPython not available: %s" % exc)
    # One layout at a time is packed per folder (the module has one name): the firmware
    # is given one layout.
    for path in layouts.layout_paths():
        folder = tmp_path / path.stem
        folder.mkdir()
        layout = folder / path.name
        layout.write_bytes(path.read_bytes())
        (folder / (MODULE + ".py")).write_text(layouts.packed_source(layout))
        script = CHECK % (str(folder), [str(layout)], FIELDS)
        result = subprocess.run(
            [str(executable), "-c", script], env=micropython_env(), capture_output=True, text=True, timeout=60
        )
        assert result.stdout.strip() == "same " + path.stem, result.stdout + result.stderr
