"""Reading an op's structure in a hot loop (structural hashing and equality).

xDSL's public reads cost a Python call each: `op.operands` builds an `OpOperands` view per
call, `block.ops` an iterator whose every step and `op.next_op` are properties, `value.type`
a property. Walking every op of a model, those calls are most of the time of
`structural_hash` (benchmarks/build_hash_compare.py); these read the fields at once.
"""

from __future__ import annotations

from xdsl.ir import Attribute, Block, Operation, SSAValue

__all__ = ["block_ops", "operands_of", "pair_results", "result_types_of"]


def block_ops(block: Block) -> list[Operation]:
    """The ops of `block`, in order."""
    ops = []
    op = block._first_op  # private: the public iterator is a property call per op
    while op is not None:
        ops.append(op)
        op = op._next_op  # private: as above
    return ops


def operands_of(op: Operation) -> tuple[SSAValue, ...]:
    """The operands of `op` (its own tuple, not a view)."""
    return op._operands  # private: `op.operands` builds a view object per call


def result_types_of(op: Operation) -> tuple[Attribute, ...]:
    """The types of `op`'s results."""
    results = op.results
    if len(results) == 1:  # most ops; unpacked, as `SSAValues.__getitem__` is a Python call
        (result,) = results
        return (result._type,)  # private: `type` is a property
    return tuple([result._type for result in results])  # private: as above


def pair_results(a: Operation, b: Operation, pairs: dict[int, SSAValue]) -> bool:
    """Whether `a` and `b` have as many results, of equal types (identity checked first);
    if so, each result of `a` is recorded in `pairs` (by `id`) with `b`'s."""
    results_a, results_b = a.results, b.results
    count = len(results_a)
    if count != len(results_b):
        return False
    if count == 1:  # most ops; unpacked, as `SSAValues.__getitem__` is a Python call
        ((x,), (y,)) = results_a, results_b
        type_a, type_b = x._type, y._type  # private: `type` is a property
        if type_a is not type_b and type_a != type_b:
            return False
        pairs[id(x)] = y
        return True
    for x, y in zip(results_a, results_b, strict=True):
        type_a, type_b = x._type, y._type  # private: `type` is a property
        if type_a is not type_b and type_a != type_b:
            return False
    for x, y in zip(results_a, results_b, strict=True):
        pairs[id(x)] = y
    return True
