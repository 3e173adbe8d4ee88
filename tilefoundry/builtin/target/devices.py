"""Device documents: one JSON file per device in `devices/`, shipped as package data.

Each document gives a device's vendor, backend, architecture, SM / CU count, warp size, CTA and
cluster limits, shared memory, registers, caches, memory, bandwidth and peak throughput from the
vendor's public figures (with the sources and conventions in `sources` / `notes`), and the
parallel-resource levels the device has (`topology.levels`, outermost first) with how many units
of a level fit in one unit of its parent (`topology.max_extent_within_parent`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import cache
from typing import Any

__all__ = ["BACKENDS", "DeviceSpec", "device_named", "known_devices"]

BACKENDS = ("cuda", "rocm", "cpu")
"""Backend kinds a target may name without a device (no architecture)."""


@dataclass(frozen=True)
class DeviceSpec:
    """A device document (see the module docstring); `raw` holds every field of the file."""

    name: str
    aliases: tuple[str, ...]
    display_name: str
    vendor: str
    backend: str
    arch: str
    sm_count: int
    warp_size: int
    max_threads_per_cta: int
    max_ctas_per_cluster: int
    shared_memory_per_sm_bytes: int
    max_shared_memory_per_cta_bytes: int
    l2_cache_bytes: int
    memory_bytes: int
    memory_bandwidth_bytes_per_s: float
    peak_flops_per_s: dict[str, float]
    topology_levels: tuple[str, ...]
    max_extent_within_parent: dict[str, int]
    raw: dict[str, Any]

    @staticmethod
    def from_json(document: dict[str, Any]) -> DeviceSpec:
        """The spec of a document: each field is the document's entry of its name, but for the
        containers (copied: lists become tuples), the `topology` entries and `raw`."""
        topology = document["topology"]
        read: dict[str, Callable[[], Any]] = {
            "aliases": lambda: tuple(document["aliases"]),
            "peak_flops_per_s": lambda: dict(document["peak_flops_per_s"]),
            "topology_levels": lambda: tuple(topology["levels"]),
            "max_extent_within_parent": lambda: dict(topology["max_extent_within_parent"]),
            "raw": lambda: document,
        }
        values = {
            f.name: read[f.name]() if f.name in read else document[f.name]
            for f in fields(DeviceSpec)
        }
        return DeviceSpec(**values)


@cache
def _documents() -> dict[str, DeviceSpec]:
    from importlib import resources  # read on the first target, not at import

    found: dict[str, DeviceSpec] = {}
    for entry in sorted(
        resources.files("tilefoundry.builtin.target").joinpath("devices").iterdir(), key=str
    ):
        if entry.name.endswith(".json"):
            spec = DeviceSpec.from_json(_load_json(entry.read_text(encoding="utf-8")))
            for name in (spec.name, *spec.aliases):
                found[name] = spec
    return found


def known_devices() -> list[str]:
    """The device names (without aliases), sorted."""
    return sorted({spec.name for spec in _documents().values()})


def device_named(name: str) -> DeviceSpec | None:
    """The document of a device, by name or alias (case-insensitive)."""
    return _documents().get(name.lower())


def _load_json(text: str) -> Any:
    import json  # on first use: the documents are read only when a target needs them

    return json.loads(text)
