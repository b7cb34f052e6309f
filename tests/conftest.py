"""Shared fixtures. The shared tests in tests/shared/ import from firmware/lib and
tests/shared directly, under CPython here and under MicroPython through tools/mptest.py."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
for extra in (REPO / "tests" / "shared",):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))
