"""A layout at boot: the module packed on the PC while it is the layout file's, else the
file, read and checked (``zuni_board.load_board`` makes the Board; boot.py asks
``packed_layout``). Loaded at boot only, then unloaded: its code is not kept in the heap."""

import sys
from array import array


def board(path, name=None):
    """(what a ``zuni_board.Board`` keeps of the layout file ``path``, its point table):
    from the module ``name`` if it is this file's (``packed_layout``), else from the
    JSON (``layout.Layout.load``: LayoutError names the file and the field)."""
    module = None if name is None else packed_layout(path, name)
    if module is not None:
        sys.modules.pop(name, None)  # garbage once the Board is made
        return module, (module.names, array("H", module.sensor), array("H", module.led))
    from zuni_board import layout

    checked = layout.Layout.load(path)
    points = checked.points
    names = list(points)
    sensor = array("H", [points[n][0] for n in names])
    return checked, (" ".join(names), sensor, array("H", [points[n][1] for n in names]))


def packed_layout(path, name):
    """The module ``name`` (the layout packed by the host: ``zuniboard.games.layouts.
    packed_source``) if it was made from the file ``path`` as it is now (its size and
    CRC-32), else None: no such module, no file, or a file edited since (on the board,
    by hand: the JSON is the truth, and is then read and checked as ever)."""
    try:
        module = __import__(name)
    except ImportError:
        return None
    from binascii import crc32

    crc = 0
    size = 0
    buf = bytearray(512)
    view = memoryview(buf)
    try:
        with open(path, "rb") as f:
            while True:
                got = f.readinto(buf)
                if not got:
                    break
                size += got
                crc = crc32(view[:got], crc)
    except OSError:
        size = -1  # no file: the JSON's reading says so
    if size != module.source_size or crc != module.source_crc:
        sys.modules.pop(name, None)
        return None
    return module
