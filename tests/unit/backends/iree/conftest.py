"""What the IREE backend's tests share: IREE (the `[iree]` extra: required where
`TF_REQUIRE_IREE` is set, as in CI; else its tests skip, saying what to install) and a fresh
artifact cache per test session (tests never use the user's cache)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tilefoundry.backends.iree.toolchain import iree_modules
from tilefoundry.backends.native.cache import ArtifactCache
from tilefoundry.backends.native.toolchain import ToolchainError


@pytest.fixture(scope="session", autouse=True)
def iree_installed() -> None:
    try:
        iree_modules()
    except ToolchainError as err:
        if os.environ.get("TF_REQUIRE_IREE"):
            pytest.fail(f"TF_REQUIRE_IREE is set: {err}")
        pytest.skip(str(err))


@pytest.fixture(scope="session")
def iree_cache(tmp_path_factory: pytest.TempPathFactory) -> ArtifactCache:
    return ArtifactCache(Path(tmp_path_factory.mktemp("iree-cache")), suffix=".vmfb")


@pytest.fixture(autouse=True)
def private_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """`TF_CACHE_DIR` pointed at a temporary directory: no test touches the user's cache."""
    monkeypatch.setenv("TF_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "tf-cache"))
