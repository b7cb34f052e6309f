"""Shared fixtures. The shared tests in tests/shared/ import from firmware/lib and
tests/shared directly, under CPython here and under MicroPython through tools/mptest.py."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# firmware/lib too: zuni_hw is firmware-only (not installed for the host) but its
# drivers are tested here against fake pins.
for extra in (REPO / "tests" / "shared", REPO / "firmware" / "lib"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

# Endgame tablebases: the tests build their own (tiny) tables; tables a developer built
# into the user data dir must not change what the search plays in a test.
if not os.environ.get("ZUNI_TABLEBASE_DIR"):
    os.environ["ZUNI_TABLEBASE_DIR"] = tempfile.mkdtemp(prefix="zuni-tablebases-")
# ... and `zuni play` does not build tables on first use (seconds of CPU per ruleset and
# worker): the tests of that set it back (test_tablebase_files.py).
os.environ.setdefault("ZUNI_TABLEBASE_AUTO", "0")
