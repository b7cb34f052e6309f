"""Shared fixtures, and the markers of the tests by kind: each folder of tests/ marks its
tests with its name (`-m "not e2e and not browser"` is the fast lane, see README.md).

- shared/: code shared with the firmware; these modules import from firmware/lib and
  tests/shared directly, under CPython here and under MicroPython through tools/mptest.py
  (tests/checks/test_micropython.py runs them so).
- unit/: the host's logic in one process, and its command line without a board.
- e2e/: the firmware running (the virtual board, stand-in boards on ptys, deploy) with the
  host talking to it.
- browser/: the page in headless chromium.
- checks/: code checks (types, lint, packaging, firmware heap, the benchmarks' tools).

Helpers shared by several folders (play_helpers.py, the reference generators) live in
tests/ itself, which is on sys.path.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# firmware/lib too: zuni_hw is firmware-only (not installed for the host) but its
# drivers are tested here against fake pins.
for extra in (REPO / "tests", REPO / "tests" / "shared", REPO / "firmware" / "lib"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

# Endgame tablebases: the tests build their own (tiny) tables; tables a developer built
# into the user data dir must not change what the search plays in a test.
if not os.environ.get("ZUNI_TABLEBASE_DIR"):
    os.environ["ZUNI_TABLEBASE_DIR"] = tempfile.mkdtemp(prefix="zuni-tablebases-")
# ... and `zuni play` does not build tables on first use (seconds of CPU per ruleset and
# worker): the tests of that set it back (test_tablebase_files.py).
os.environ.setdefault("ZUNI_TABLEBASE_AUTO", "0")


KINDS = ("shared", "unit", "e2e", "browser", "checks")
TESTS = REPO / "tests"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        folder = Path(str(item.path)).resolve().relative_to(TESTS).parts[0]
        if folder not in KINDS:
            raise pytest.UsageError("%s: a test module belongs in one of tests/{%s}" % (item.path, ",".join(KINDS)))
        item.add_marker(getattr(pytest.mark, folder))
