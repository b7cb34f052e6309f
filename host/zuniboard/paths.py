"""Where the repository's parts are, for the host running from a source checkout."""

from __future__ import annotations

import os
from pathlib import Path

import zuni

# firmware/lib/zuni/__init__.py -> firmware/
FIRMWARE_DIR = Path(zuni.__file__).resolve().parent.parent.parent
FIRMWARE_LIB = FIRMWARE_DIR / "lib"
REPO_DIR = FIRMWARE_DIR.parent
HARDWARE_DIR = REPO_DIR / "hardware"
TOOLS_DIR = REPO_DIR / "tools"


def repo_path(*parts: str) -> Path:
    return REPO_DIR.joinpath(*parts)


def env_flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0", "false", "no")
