"""The installed package lists every Python package of the source tree."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parent.parent


def test_every_package_is_listed_in_pyproject() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = set()
    for root in (REPO / "host", REPO / "firmware" / "lib"):
        for init in root.rglob("__init__.py"):
            found.add(".".join(init.parent.relative_to(root).parts))
    shared = {"zuni", "zuni_link", "zuni_board"}
    found = {name for name in found if name.startswith("zuniboard") or name.split(".")[0] in shared}
    assert found - listed == set(), "packages missing from pyproject.toml [tool.setuptools] packages"
    # Data-only packages (the page's files): a folder with package data and no code.
    data = {
        name
        for name in config.get("package-data", {})
        if not (REPO / "host" / name.replace(".", "/")).joinpath("__init__.py").exists()
    }
    for name in data:
        assert (REPO / "host" / name.replace(".", "/")).is_dir(), name
    assert listed - found - data == set(), "pyproject.toml lists packages that do not exist"


def test_the_editable_install_of_make_setup_prints_no_setuptools_warning(tmp_path: Path) -> None:
    """`make setup`'s editable install (its command and environment from the Makefile)
    into a throwaway environment: pip says nothing, setuptools warns of nothing."""
    makefile = (REPO / "Makefile").read_text()
    quiet = re.search(r"^QUIET_BUILD := (\w+)=(\S+)$", makefile, re.M)
    assert quiet is not None and "$(QUIET_BUILD) $(BIN)/python -m pip install --quiet -e" in makefile
    target = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(target)], check=True)
    env = dict(os.environ, **{quiet.group(1): quiet.group(2)})
    out = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(target / "bin" / "python"), "install", "--quiet"]
        + ["--no-deps", "-e", str(REPO)],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    # (A pip configured with index folders that do not exist says so: the machine's, not ours.)
    said = [line for line in (out.stdout + out.stderr).splitlines() if not line.startswith("WARNING: Location ")]
    assert not any("setuptools" in line or "Warning" in line for line in said), "\n".join(said)
