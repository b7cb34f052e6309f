"""The installed package lists every Python package of the source tree."""

from __future__ import annotations

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
