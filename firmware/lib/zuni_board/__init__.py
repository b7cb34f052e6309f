"""The board application: layout, debounce, move inference, LED language, journal, controller.

``load_board(path)`` is how the firmware reads its layout: the loader (``layout.py``, ~16
KB of code) and the decoded JSON (up to ~20 KB on the 168-square board) are dropped as
soon as the few things the firmware keeps are copied into a ``Board``.
"""

from array import array

from micropython import const

# The board's phases (BoardApp.phase; docs/architecture.md): pieces being set up, a game
# in play, a game over.
SETUP = const(0)
PLAY = const(1)
OVER = const(2)
PHASE_NAMES = ("setup", "play", "over")


class Board:
    """What the firmware keeps of a ``layout.Layout``: ``name``, ``title``, ``rulesets``,
    ``sensors``, ``leds``, ``buttons``, ``timing``, ``power`` (the same dicts), ``sensor_count``,
    ``led_count``, ``point_count`` and ``maps(geometry)``; the point table is packed
    (names in one string, sensor and LED indexes in two ``array('H')``)."""

    def __init__(self, layout, table):
        # ``layout``: a ``layout.Layout``, or the module packed from one on the PC (the
        # same attribute names); ``table``: its points as (names in one string, sensor
        # and LED indexes as two ``array('H')``).
        self.name = layout.name
        self.title = layout.title
        self.rulesets = list(layout.rulesets)
        self.sensors = layout.sensors
        self.leds = layout.leds
        self.buttons = layout.buttons
        self.timing = layout.timing
        self.power = layout.power
        self.sensor_count = layout.sensor_count
        self.led_count = layout.led_count
        self._names, self._sensor, self._led = table
        self.point_count = len(self._sensor)

    def maps(self, geometry):
        """``(sensor_of, led_of)`` as ``Layout.maps``, indexed by the geometry's point
        index (as ``array('h')``: a quarter of a list's heap on a 64-bit port);
        ValueError names a point the layout lacks or has in excess."""
        # A linear search of the names rather than geometry.index: that dict (2 KB on
        # the 168-square board) would be made at start-up, the heap's tightest moment.
        names = geometry.names
        n = len(names)
        sensor_of = array("h", bytes(2 * n))
        led_of = array("h", bytes(2 * n))
        text = self._names
        start = 0
        for i in range(self.point_count):
            end = text.find(" ", start)
            if end < 0:
                end = len(text)
            name = text[start:end]
            start = end + 1
            try:
                p = names.index(name)
            except ValueError:
                raise ValueError("points.%s: not a point of this game (layout %s)" % (name, self.name))
            sensor_of[p] = self._sensor[i]
            led_of[p] = self._led[i]
        if self.point_count != n:
            # Every name of the layout is a point (above), and they are distinct: some
            # point of the game has none.
            mine = " " + text + " "
            for name in names:
                if (" " + name + " ") not in mine:
                    raise ValueError("points: %s has no entry for point %s of this game" % (self.name, name))
        return sensor_of, led_of

    def __repr__(self):
        return "Board(%r)" % (self.name,)


def unload(names, everywhere=False):
    """Forget the lazily imported modules ``names`` (full names, ``"zuni_board.hint"``):
    out of ``sys.modules`` and off their package, so that their code is garbage until the
    next import loads it again. Only on MicroPython unless ``everywhere``: CPython keeps
    its classes the same for the tests (an exception class of a module imported twice is
    two classes). The one copy of this for every module the board loads only while it
    needs it (the hint, the position reader, the LED checks, the layout loader)."""
    import sys

    if not everywhere and sys.implementation.name != "micropython":
        return
    for name in names:
        sys.modules.pop(name, None)
        dot = name.rfind(".")
        package = sys.modules.get(name[:dot])
        if package is not None:
            package.__dict__.pop(name[dot + 1 :], None)


def load_board(path, packed=None):
    """Read and check the layout file ``path`` (``layout.LayoutError``, a ValueError,
    names the file and the field) and return its ``Board``; the loading code
    (``zuni_board.packed``, the loader ``layout.py`` when the JSON is read) is
    unloaded again, so that its code and the JSON are garbage once this returns.

    ``packed``: the name of the module made from that file on the PC (tools/deploy.py,
    the virtual board's host): when it is there and was made from this very file, the
    Board comes from it, with no JSON to parse nor loader to import at boot
    (docs/firmware-timing.md, "Boot")."""
    try:
        from zuni_board import packed as module

        return Board(*module.board(path, packed))
    finally:
        unload(("zuni_board.packed", "zuni_board.layout"), True)
