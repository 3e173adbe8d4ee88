"""The `Canonicalization` trait of TileFoundry ops: their canonicalization patterns, by op name.

The patterns fold op calls with the op library's semantics and its numpy reference, which sit
above the dialects; so the trait asks a registry that the package fills when it is imported
(`tilefoundry.context.context` adds `tilefoundry.transforms.canonicalization` as the source, lazily,
like the op library's loader). xDSL's `canonicalize` finds the patterns through the trait.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from xdsl.ir import Operation
from xdsl.traits import HasCanonicalizationPatternsTrait

if TYPE_CHECKING:  # the patterns are xDSL's rewrite patterns, imported where they are made
    from xdsl.pattern_rewriter import RewritePattern

__all__ = ["Canonicalization", "add_pattern_source", "canonicalization_patterns"]

PatternSource = Callable[[], Mapping[str, Sequence["RewritePattern"]]]

_SOURCES: list[PatternSource] = []
_PATTERNS: dict[str, tuple[RewritePattern, ...]] = {}


def add_pattern_source(source: PatternSource) -> None:
    """Add a lazy source of canonicalization patterns (op name -> patterns)."""
    _SOURCES.append(source)


def canonicalization_patterns(op_name: str) -> tuple[RewritePattern, ...]:
    """The canonicalization patterns of an op, from every source (loaded on first use)."""
    while _SOURCES:
        for name, patterns in _SOURCES.pop(0)().items():
            _PATTERNS[name] = (*_PATTERNS.get(name, ()), *patterns)
    return _PATTERNS.get(op_name, ())


class Canonicalization(HasCanonicalizationPatternsTrait):
    """The op's canonicalization patterns are the registry's for its name."""

    def get_patterns(self, op: type[Operation]) -> tuple[RewritePattern, ...]:
        return canonicalization_patterns(op.name)

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return ()
