"""The execution domain's hardware: `Target`, device documents, `Topology` levels."""

from __future__ import annotations

from tilefoundry.builtin.target.devices import BACKENDS, DeviceSpec, device_named, known_devices
from tilefoundry.builtin.target.target import Target, TargetAttr
from tilefoundry.builtin.target.topology import (
    Topology,
    TopologyAttr,
    check_distinct,
    check_levels,
)

__all__ = [
    "BACKENDS",
    "DeviceSpec",
    "Target",
    "TargetAttr",
    "Topology",
    "TopologyAttr",
    "check_distinct",
    "check_levels",
    "device_named",
    "known_devices",
]
