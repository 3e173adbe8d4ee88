"""The artifact cache of the backends: compiled artifacts by the key of what made them (the
native backend's shared libraries, `<key>.so`; the IREE backend's modules, `<key>.vmfb`).

The key is a SHA-256 of the emitted MLIR, the tools' versions (`Toolchain.versions`: paths and
`--version` texts) and the pipeline's passes and flags (`NativePipeline.fingerprint`), so a
library is reused only for the same inputs (the IREE backend: its versions and flags) and a stale one is never run. It lives in
`$TF_CACHE_DIR` (default `$XDG_CACHE_HOME/tilefoundry/<backend>`, `~/.cache/tilefoundry/<backend>`),
one `<key><suffix>` per artifact, written aside and renamed into place (two processes may fill it at
once). It is bounded: past `$TF_CACHE_MAX_BYTES` (default 256 MiB) the least recently used
artifacts of that suffix are deleted (a hit refreshes its time). `TF_CACHE_DIR=` (empty) turns it off.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["ArtifactCache", "cache_key", "default_cache"]

DEFAULT_MAX_BYTES = 256 * 1024 * 1024


def cache_key(text: str, versions: str, fingerprint: str, backend: str = "native") -> str:
    digest = hashlib.sha256()
    for part in (f"tilefoundry-{backend}-1", text, versions, fingerprint):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


class ArtifactCache:
    """Libraries by key in one directory, at most `max_bytes` of them (see the module
    docstring)."""

    def __init__(
        self, directory: Path, max_bytes: int = DEFAULT_MAX_BYTES, suffix: str = ".so"
    ) -> None:
        self.directory = directory
        self.max_bytes = max_bytes
        self.suffix = suffix

    def path(self, key: str) -> Path:
        return self.directory / f"{key}{self.suffix}"

    def lookup(self, key: str) -> Path | None:
        path = self.path(key)
        if not path.is_file():
            return None
        os.utime(path)  # recently used
        return path

    def store(self, key: str, library: Path) -> Path:
        """Put a built library under its key (a copy written aside, then renamed); evict the
        least recently used past the bound."""
        self.directory.mkdir(parents=True, exist_ok=True)
        target = self.path(key)
        aside = self.directory / f".{key}.{os.getpid()}.tmp"
        aside.write_bytes(library.read_bytes())
        os.replace(aside, target)
        self.evict(keep=target)
        return target

    def evict(self, keep: Path | None = None) -> None:
        entries = []
        for path in self.directory.glob(f"*{self.suffix}"):
            try:
                stat = path.stat()
            except FileNotFoundError:
                continue
            entries.append((stat.st_mtime_ns, stat.st_size, path))
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= self.max_bytes:
                break
            if path == keep:
                continue
            path.unlink(missing_ok=True)
            total -= size


def default_cache(backend: str = "native", suffix: str = ".so") -> ArtifactCache | None:
    """The cache the environment names (see the module docstring), or None when turned off."""
    configured = os.environ.get("TF_CACHE_DIR")
    if configured == "":
        return None
    if configured is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        configured = os.path.join(base, "tilefoundry", backend)
    limit = os.environ.get("TF_CACHE_MAX_BYTES")
    return ArtifactCache(Path(configured), int(limit) if limit else DEFAULT_MAX_BYTES, suffix)
