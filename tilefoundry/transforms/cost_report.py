"""The table `tf-analyze` prints: one row per function instance, by its select path.

```
tf-analyze on h100 (NVIDIA H100 SXM5 80GB): 3.35e+12 B/s; fp32 6.69e+13 FLOP/s
function  self FLOPs   FLOPs  self bytes   bytes  FLOP/B  roofline time  bound
--------  ----------  ------  ----------  ------  ------  -------------  ------
mm            65,536  65,536      14,336  14,336    4.57        4.28 ns  memory
```

FLOPs and bytes are the function's own (`self`) and inclusive (its callees' added, once per
call); FLOP/B, the roofline time and the bound are those of the inclusive figures.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from io import StringIO
from typing import cast

from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Operation

from tilefoundry.builtin.target.devices import DeviceSpec
from tilefoundry.dialects.tf.module import ModuleOp, resolve_target
from tilefoundry.ir.algebra.callable import FunctionLike
from tilefoundry.ir.text.printer import TFPrinter
from tilefoundry.transforms.cost import Cost

__all__ = ["Row", "cost_table", "device_of", "function_paths", "path_text", "time_text"]


@dataclass(frozen=True)
class Row:
    """One function instance: its select path, its cost, the device it was measured on."""

    path: str
    cost: Cost
    device: DeviceSpec


def path_text(names: Sequence[str]) -> str:
    """A path as `select` spells it: dotted when that names it, else a symbol reference."""
    if all(name and "." not in name for name in names) and not names[0].startswith("@"):
        return ".".join(names)
    stream = StringIO()
    TFPrinter(stream=stream).print_attribute(SymbolRefAttr(names[0], list(names[1:])))
    return stream.getvalue()


def function_paths(root: ModuleOp) -> Iterator[tuple[str, Operation]]:
    """Every function of the tree (HIR and TIR) with its path from the root, in source order,
    parents before children (the order of `functions_of`)."""

    def visit(module: ModuleOp, prefix: list[str]) -> Iterator[tuple[str, Operation]]:
        for op in module.body.block.ops:
            if isinstance(op, FunctionLike):
                yield path_text([*prefix, op.function_name()]), cast(Operation, op)
        for op in module.body.block.ops:
            if isinstance(op, ModuleOp):
                yield from visit(op, [*prefix, op.sym_name.data])

    yield from visit(root, [])


def device_of(function: Operation) -> DeviceSpec:
    """The device a measured function resolved (tf-analyze refused it otherwise)."""
    module = function.parent_op()
    assert isinstance(module, ModuleOp)
    target = resolve_target(module)
    assert target is not None and target.device is not None
    return target.device


def time_text(seconds: float) -> str:
    """`4.28 ns`, `1.20 us`, `3.00 ms`, `2.00 s` (ASCII, for any terminal)."""
    for unit, scale in (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3)):
        if seconds < scale * 1000:
            return f"{seconds / scale:.2f} {unit}"
    return f"{seconds:.2f} s"


def _intensity_text(cost: Cost) -> str:
    value = cost.intensity
    return "inf" if math.isinf(value) else f"{value:.2f}"


def _device_line(devices: Sequence[DeviceSpec]) -> str:
    parts = []
    for device in devices:
        peaks = device.peak_flops_per_s
        vector = "fp32" if "fp32" in peaks else max(peaks, key=peaks.__getitem__)
        parts.append(
            f"{device.name} ({device.display_name}): {device.memory_bandwidth_bytes_per_s:.3g} "
            f"B/s; {vector} {peaks[vector]:.3g} FLOP/s"
        )
    return "; ".join(parts)


def cost_table(rows: Sequence[Row], title: str = "tf-analyze") -> str:
    """The rows as an aligned text table, a line naming the devices above it."""
    header = (
        "function",
        "self FLOPs",
        "FLOPs",
        "self bytes",
        "bytes",
        "FLOP/B",
        "roofline time",
        "bound",
    )
    cells = [header]
    for row in rows:
        cost = row.cost
        cells.append(
            (
                row.path,
                f"{cost.self_flops:,}",
                f"{cost.flops:,}",
                f"{cost.self_bytes:,}",
                f"{cost.bytes:,}",
                _intensity_text(cost),
                time_text(cost.time_s),
                cost.bound,
            )
        )
    widths = [max(len(line[i]) for line in cells) for i in range(len(header))]
    lines = []
    devices = list({row.device.name: row.device for row in rows}.values())
    lines.append(f"{title} on {_device_line(devices)}" if devices else f"{title}: no functions")
    for index, line in enumerate(cells):
        text = [line[0].ljust(widths[0])]
        text += [c.rjust(w) for c, w in zip(line[1:-1], widths[1:-1], strict=True)]
        text.append(line[-1].ljust(widths[-1]))
        lines.append("  ".join(text).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"
