"""`Topology`: one level of an execution domain's ordered parallel-resource hierarchy.

A module declares its hierarchy outermost first, e.g. `(Topology("cluster", 2),
Topology("cta", 4), Topology("warp", 4))`: `extent` is how many units of the level run in one
unit of the level above it (of the device, for the outermost), or None when unstated. In IR:
`topologies [#tf.topology<"cluster", 2>, #tf.topology<"cta", 4>, #tf.topology<"warp", 4>]`.

`check_levels` holds a hierarchy to what a device can have: its level names, in its order, and
within its per-parent limits (at most 16 CTAs in a cluster on sm_90, no clusters before sm_90).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import IntAttr, NoneAttr, StringAttr
from xdsl.irdl import irdl_attr_definition
from xdsl.printer import Printer

from tilefoundry.builtin.target.target import Target
from tilefoundry.support.arguments import shown
from tilefoundry.support.diagnostics import VerifyError
from tilefoundry.support.irdl_syntax import IRDLFormAttribute

__all__ = ["Topology", "TopologyAttr", "check_distinct", "check_levels"]

_LEVEL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Topology:
    """A parallel-resource level by name, with an optional extent (a positive int)."""

    name: str
    extent: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _LEVEL.fullmatch(self.name):
            raise ValueError(f"Topology name must be an identifier, got {shown(self.name)}")
        if self.extent is not None and (
            not isinstance(self.extent, int) or isinstance(self.extent, bool) or self.extent < 1
        ):
            raise ValueError(
                f"Topology '{self.name}' extent must be a positive int, got {shown(self.extent)}"
            )

    def __str__(self) -> str:
        return self.name if self.extent is None else f"{self.name}[{self.extent}]"


@irdl_attr_definition
class TopologyAttr(IRDLFormAttribute):
    """One level of a declared hierarchy.

    ```mlir
    #tf.topology<"cta", 132>      // with an extent
    #tf.topology<"warp">          // without
    ```
    """

    name = "tf.topology"

    level: StringAttr
    extent: IntAttr | NoneAttr

    IRDL_DEFAULTS = (NoneAttr(),)  # `#tf.topology<"warp">` has no extent

    @staticmethod
    def of(topology: Topology) -> TopologyAttr:
        extent = NoneAttr() if topology.extent is None else IntAttr(topology.extent)
        return TopologyAttr(StringAttr(topology.name), extent)

    @property
    def topology(self) -> Topology:
        extent = None if isinstance(self.extent, NoneAttr) else self.extent.data
        return Topology(self.level.data, extent)

    def verify(self) -> None:
        try:
            Topology(
                self.level.data, None if isinstance(self.extent, NoneAttr) else self.extent.data
            )
        except ValueError as err:
            raise VerifyError(str(err)) from None

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.level.data)
            if not isinstance(self.extent, NoneAttr):
                printer.print_string(f", {self.extent.data}")


def check_distinct(topologies: Sequence[Topology]) -> None:
    """A declared hierarchy names each level once."""
    seen: set[str] = set()
    for level in topologies:
        if level.name in seen:
            raise VerifyError(f"topology level '{level.name}' is declared twice")
        seen.add(level.name)


def check_levels(target: Target, topologies: Sequence[Topology]) -> None:
    """Refuse a hierarchy the target's device cannot have (nothing to check for a bare backend)."""
    device = target.device
    if device is None:
        return
    order = device.topology_levels
    previous: int | None = None
    for level in topologies:
        if level.name not in order:
            raise VerifyError(
                f"{target.name} ({device.arch}) has no '{level.name}' level; "
                f"its levels are {', '.join(order)}"
            )
        index = order.index(level.name)
        if previous is not None and index <= previous:
            raise VerifyError(
                f"topology level '{level.name}' cannot be inside '{order[previous]}' on "
                f"{target.name}; the levels nest as {' > '.join(order)}"
            )
        limit = device.max_extent_within_parent.get(level.name)
        if (
            limit is not None
            and previous == index - 1
            and level.extent is not None
            and level.extent > limit
        ):
            raise VerifyError(
                f"{target.name} fits at most {limit} '{level.name}' in one '{order[index - 1]}', "
                f"got {level.extent}"
            )
        previous = index
