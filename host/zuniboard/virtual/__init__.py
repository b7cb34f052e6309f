"""The virtual board: the real firmware run on the PC (``board.VirtualBoard``) under the
MicroPython unix port (``mpy``), or under CPython where that port has no wheel
(``fw_cpython``), with its flash image kept in the user's data directory (``flash``).
See docs/simulator.md."""
