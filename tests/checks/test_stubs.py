"""The host's typed view of the rules engine (host/stubs/zuni/*.pyi, read by mypy --strict
in place of the unannotated firmware code) says what the code does: mypy's stubtest imports
zuni and checks that every name, class, method and signature the stubs declare is there
at run time with the same parameters (names the stubs leave out are allowed)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
STUBS = REPO / "host" / "stubs"


def stubtest(stubs: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "mypy.ini"
    # A cache of its own: two runs at once (xdist) must not share one.
    config.write_text("[mypy]\nmypy_path = %s\ncache_dir = %s\n" % (stubs, tmp_path / "cache"))
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy.stubtest",
            "zuni",
            "--ignore-missing-stub",
            "--allowlist",
            str(STUBS / "stubtest-allowlist.txt"),
            "--mypy-config-file",
            str(config),
        ],
        cwd=REPO,
        env=dict(os.environ, MYPYPATH=str(stubs)),
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_rules_engine_stubs_match_the_code(tmp_path: Path) -> None:
    result = stubtest(STUBS, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues found in" in result.stdout, result.stdout


def test_a_stub_that_says_otherwise_is_caught(tmp_path: Path) -> None:
    wrong = tmp_path / "stubs"
    shutil.copytree(STUBS, wrong)
    core = wrong / "zuni" / "core.pyi"
    text = core.read_text()
    assert "    def ply(self) -> int: ...\n" in text
    core.write_text(text.replace("    def ply(self) -> int: ...\n", "    def ply(self, moves: int) -> int: ...\n"))
    result = stubtest(wrong, tmp_path)
    assert result.returncode != 0 and "zuni.core.Game.ply" in result.stdout, result.stdout


def test_every_stub_has_its_module() -> None:
    runtime = REPO / "firmware" / "lib" / "zuni"
    stubs = sorted(p.stem for p in (STUBS / "zuni").glob("*.pyi"))
    assert stubs and all((runtime / (name + ".py")).exists() for name in stubs), stubs
