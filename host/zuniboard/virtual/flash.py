"""Where the virtual board keeps its flash image: one file per layout, kept between runs as
a real board's flash keeps its journal."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def default_flash(layout_name: str) -> Path:
    """``virtual-<layout>.img`` in the user's data directory (``$ZUNI_SIM_DIR`` overrides)."""
    base = os.environ.get("ZUNI_SIM_DIR") or platformdirs.user_data_dir("zuniboard")
    return Path(base) / ("virtual-%s.img" % layout_name)
