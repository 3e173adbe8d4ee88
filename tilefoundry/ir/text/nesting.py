"""The nesting limit: how deep the IR may nest, and how deep the text that spells it may.

Parsing, printing, verifying and rewriting IR recurse once or more per level of nesting, and
Python's recursion limit (1000 frames by default) is shared with whoever calls them. So the IR
nests at most `MAX_NESTING` levels, counted on the IR itself, the same for every text that spells
it (custom or generic form, aliases expanded):

- an operation is one level deeper than the operation whose region holds it (top level: 1);
- an attribute, type or location is one level deeper than the deepest of its parameters (an
  attribute without parameters: 1), and a dense literal at least its rank plus two deep (its
  brackets nest, around its elements);
- an operation's nesting is its level plus the deepest attribute it uses: its properties,
  attributes, location, result and operand types, and the types and locations of the arguments of
  its regions' blocks.

`TFParser` checks each operation once it is read, and also counts, as it reads, the constructs
open around the current token (operations, attributes, types, locations, the brackets of a dense
literal): each is at least one level of the IR it spells, so more than `MAX_NESTING` of them is
refused right there, at the token that opens one too many, before the recursion gets deep.
Aliases are where the text nests less than the IR (`!t1 = tuple<!t0>`): the check after reading
catches those.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FunctionType,
    IntAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, ParametrizedAttribute

__all__ = [
    "MAX_NESTING",
    "AttributeDepths",
    "nesting_message",
    "operation_attributes",
]

MAX_NESTING = 64
"""The deepest nesting of IR that TileFoundry reads (see the module docstring)."""


def nesting_message() -> str:
    return f"nesting deeper than {MAX_NESTING} levels (tf-opt's limit)"


_LEAF, _PARAMETRIZED, _ARRAY, _DICTIONARY = range(4)
_KINDS: dict[type, int] = {}


def _kind(attr: Attribute) -> int:
    kind = _KINDS.get(type(attr))
    if kind is None:
        kind = (
            _PARAMETRIZED
            if isinstance(attr, ParametrizedAttribute)
            else _ARRAY
            if isinstance(attr, ArrayAttr)
            else _DICTIONARY
            if isinstance(attr, DictionaryAttr)
            else _LEAF
        )
        _KINDS[type(attr)] = kind
    return kind


def _children(attr: Attribute, kind: int) -> Iterable[Attribute]:
    if kind == _PARAMETRIZED:
        return cast(ParametrizedAttribute, attr).parameters
    if kind == _ARRAY:
        return cast(ArrayAttr[Attribute], attr).data
    if kind == _DICTIONARY:
        return cast(DictionaryAttr, attr).data.values()
    return ()


class AttributeDepths:
    """The depth of attributes (see the module docstring), remembered per attribute object.

    Attributes are shared and immutable, so each is measured once; the walk keeps its own stack,
    so measuring a deep attribute takes no recursion."""

    def __init__(self) -> None:
        self._depths: dict[int, int] = {}
        self._keep: list[Attribute] = []  # ids stay unique while the attributes are alive

    def depth(self, attr: Attribute) -> int:
        kind = _kind(attr)
        if kind == _LEAF:
            return 1
        depths = self._depths
        known = depths.get(id(attr))
        if known is not None:
            return known
        if type(attr) is TensorType or type(attr) is FunctionType:
            return self._shallow(attr)
        stack: list[tuple[Attribute, int, bool]] = [(attr, kind, False)]
        while stack:
            node, kind, expanded = stack.pop()
            if id(node) in depths:
                continue
            children = [(c, _kind(c)) for c in _children(node, kind)]
            pending = [(c, k) for c, k in children if k != _LEAF and id(c) not in depths]
            if pending and not expanded:
                stack.append((node, kind, True))
                stack.extend((c, k, False) for c, k in pending)
                continue
            depth = 1 + max((1 if k == _LEAF else depths[id(c)] for c, k in children), default=0)
            if isinstance(node, DenseIntOrFPElementsAttr):
                depth = max(depth, len(node.get_shape()) + 2)
            depths[id(node)] = depth
            self._keep.append(node)
        return depths[id(attr)]

    def _shallow(self, attr: TensorType[Attribute] | FunctionType) -> int:
        """The depth of a tensor or function type, worked out from its parts' without the
        walk: a model of distinct shapes has a new one on nearly every line."""
        depths = self._depths
        if type(attr) is FunctionType:
            inputs = outputs = 0
            for part in attr.inputs.data:
                known = depths.get(id(part)) or self.depth(part)
                inputs = known if known > inputs else inputs
            for part in attr.outputs.data:
                known = depths.get(id(part)) or self.depth(part)
                outputs = known if known > outputs else outputs
            depth = 2 + max(inputs, outputs)
        else:
            tensor = cast(TensorType[Attribute], attr)
            dimensions = tensor.shape.data
            if all(type(d) is IntAttr for d in dimensions):  # leaves
                shape = 2 if dimensions else 1
            else:
                shape = self.depth(tensor.shape)
            element, encoding = tensor.element_type, tensor.encoding
            element_depth = depths.get(id(element)) or self.depth(element)
            encoding_depth = depths.get(id(encoding)) or self.depth(encoding)
            depth = 1 + max(shape, element_depth, encoding_depth)
        depths[id(attr)] = depth
        self._keep.append(attr)
        return depth

    def record(self, attr: Attribute, depth: int) -> None:
        """Record the depth of a new attribute its maker knows (a tensor type of a plain
        element type and no encoding: its shape's depth plus one)."""
        self._depths[id(attr)] = depth
        self._keep.append(attr)

    def deepest(self, attrs: Iterable[Attribute]) -> int:
        depths, best = self._depths, 0
        for attr in attrs:
            known = depths.get(id(attr)) or self.depth(attr)
            best = known if known > best else best
        return best


def operation_attributes(op: Operation) -> Iterator[Attribute]:
    """Every attribute an operation uses directly (not those of the operations it holds)."""
    yield from op.properties.values()
    yield from op.attributes.values()
    yield op.location
    for value in (*op.results, *op.operands):
        yield value.type
    for region in op.regions:
        for block in region.blocks:
            for arg in block.args:
                yield arg.type
                yield arg.location
