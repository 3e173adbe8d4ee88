"""What the native backend's tests share: the toolchain (required where `TF_REQUIRE_NATIVE` is
set, as in CI; else its tests skip, saying which tool is missing) and a fresh artifact cache
per test session (tests never use the user's cache)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tilefoundry.backends.native.cache import ArtifactCache
from tilefoundry.backends.native.toolchain import ToolchainError, find_toolchain


@pytest.fixture(scope="session", autouse=True)
def native_toolchain() -> None:
    try:
        find_toolchain()
    except ToolchainError as err:
        if os.environ.get("TF_REQUIRE_NATIVE"):
            pytest.fail(f"TF_REQUIRE_NATIVE is set: {err}")
        pytest.skip(str(err))


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory: pytest.TempPathFactory) -> ArtifactCache:
    return ArtifactCache(Path(tmp_path_factory.mktemp("native-cache")))


@pytest.fixture(autouse=True)
def private_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """`TF_CACHE_DIR` pointed at a temporary directory: no test touches the user's cache."""
    monkeypatch.setenv("TF_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "tf-cache"))
