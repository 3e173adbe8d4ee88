"""A user-defined metadata class, for the tests: `tf-opt --plugin custom_metadata`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tilefoundry.builtin.metadata import IRMetadata


@dataclass(frozen=True)
class FusionGroup(IRMetadata):
    metadata_name: ClassVar[str] = "fusion_group"
    group: int

    def format_comment(self) -> str | None:
        return f"fusion group {self.group}"
