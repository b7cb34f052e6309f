"""Runs every shared test module under the real MicroPython unix port.

The same modules also run under CPython (pytest collects tests/shared/ directly), so
one `make test` covers both interpreters. A failure here shows MicroPython's output,
tracebacks included."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from zuniboard.virtual.mpy import MicroPythonMissing, micropython_command, micropython_env

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO / "tests" / "shared"
MODULES = sorted(p.name for p in SHARED.glob("test_*.py"))


def _command_or_skip(path: Path) -> list[str]:
    try:
        return micropython_command(REPO / "tools" / "mptest.py", str(path), heap="2M")
    except MicroPythonMissing as exc:
        pytest.skip("MicroPython half of the suite not run: %s" % exc)


def test_there_are_shared_tests() -> None:
    assert MODULES, "tests/shared/ has no test modules: the MicroPython half would test nothing"


@pytest.mark.parametrize("module", MODULES)
def test_shared_module_under_micropython(module: str) -> None:
    command = _command_or_skip(SHARED / module)
    result = subprocess.run(
        command,
        cwd=REPO,
        env=micropython_env([SHARED]),
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, "under MicroPython:\n" + output
    assert " passed, 0 failed" in output, output
