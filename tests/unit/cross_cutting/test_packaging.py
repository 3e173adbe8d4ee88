"""What `pip install .` ships: every folder of modules is a package `setuptools` finds, so a
non-editable install has every module its entry points name (a folder without `__init__.py` is
a namespace package `packages.find` leaves out: tf-opt's `tools/` was)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[3]


def module_folders(package: str) -> set[str]:
    base = ROOT / package
    return {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in base.rglob("*.py")
        if "__pycache__" not in path.parts
    }


def test_every_folder_of_modules_is_a_package_setuptools_finds() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    found = set(find_packages(str(ROOT), include=include))
    folders = module_folders("tilefoundry") | module_folders("tilefoundry_client")
    assert sorted(folders - found) == []


def test_every_entry_point_names_a_shipped_module() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    found = set(find_packages(str(ROOT), include=include))
    targets = [*config["project"]["scripts"].values()]
    for group in config["project"].get("entry-points", {}).values():
        targets.extend(group.values())
    for target in targets:
        module = target.split(":")[0]
        assert module in found or module.rpartition(".")[0] in found, target
