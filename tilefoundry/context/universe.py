"""The `xdsl.universe` entry point: stock `xdsl-opt` sees the `tf` / `hir` dialects and the
TileFoundry passes too (tf-opt remains the tool with TileFoundry's diagnostics and locations)."""

from __future__ import annotations

from xdsl.universe import Universe

from tilefoundry.context.context import DIALECT_LOADERS
from tilefoundry.transforms import PASSES

TILEFOUNDRY_UNIVERSE = Universe(
    all_dialects={name: loader for name, loader in DIALECT_LOADERS.items() if name != "builtin"},
    all_passes={name: loader for name, loader in PASSES.items() if name.startswith("tf-")},
)
