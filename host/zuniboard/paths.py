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


def cannot_write(folder: Path, what: str, reason: object, setting: str) -> str:
    """One line for a folder that cannot be written: which, why, and what to do
    (``setting``: the option or variable that names another folder)."""
    why = reason.strerror if isinstance(reason, OSError) and reason.strerror else reason
    return "cannot write %s in %s (%s): make that folder writable or free some space there, or set %s" % (
        what,
        folder,
        why,
        setting,
    )


def check_writable(folder: Path, what: str, setting: str) -> None:
    """Raises ``FolderError`` (one line: ``cannot_write``) unless a file can be made in
    ``folder`` (made if missing)."""
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise FolderError(cannot_write(folder, what, exc, setting)) from None


class FolderError(Exception):
    """A folder the command must write to cannot be written."""
