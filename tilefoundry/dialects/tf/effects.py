"""The memory effects of calls: what xDSL's `cse`, `dce` and `canonicalize` ask a `tf.call` or
a `tir.dispatch` through its `MemoryEffect` trait (`get_effects`), exactly (docs/ir.md,
"Buffers").

- A value-form call of a pure registered op: no effect.
- A call of an op that declares effects (`ParamDef(effect=...)`, `Op.allocates`): a
  `MemoryReadEffect` / `MemoryWriteEffect` on each buffer operand it reads / writes, and a
  `MemoryAllocEffect` on the buffer an alloc returns.
- A call of a function of the module tree: the effects of the callee's body on its parameters,
  on the call's operands (a prim function that writes its parameter `%out` writes the buffer
  passed for it); effects on buffers the callee allocates itself are invisible to the caller.
  The callee's body is summarised through the call graph, each function once per question
  (callees first, by an explicit walk: a deep chain of calls is no deep Python recursion).
- Anything else: None, which xDSL reads as every effect (an op without declared effects that is
  not pure, a callee that cannot be resolved, a call that recurses).

```mlir
// Write on %buf: cse keeps both loads, dce keeps the call
tir.evaluate tf.call @fill(%buf, %x) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
```
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from contextvars import ContextVar, Token
from types import TracebackType

from xdsl.dialects.builtin import ArrayAttr, SymbolRefAttr
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.traits import EffectInstance, IsTerminator, MemoryEffect, MemoryEffectKind, get_effects

from tilefoundry.builtin.types import BufferAttr
from tilefoundry.dialects.tf.module import lookup_symbol
from tilefoundry.ir.algebra.callable import FunctionLike
from tilefoundry.ir.algebra.op_registry import Op

__all__ = ["EffectSummaryScope", "function_call_effects", "op_call_effects"]

_KINDS = {"read": MemoryEffectKind.READ, "write": MemoryEffectKind.WRITE}

Summary = frozenset[tuple[MemoryEffectKind, int | None]]
"""A function's effects: each kind with the parameter it applies to (None: unknown memory)."""

Summaries = dict[Operation, Summary | None]
"""The summaries found so far (a function's entry is None while it is being summarised, so a
call back into it is unknown)."""

_SCOPE: ContextVar[Summaries | None] = ContextVar("tf_effect_summaries", default=None)
"""The memo of the innermost open scope (`EffectSummaryScope`, or one question's): xDSL asks
an op's effects through its trait (`get_effects(op)`), which carries no context of its own."""


def op_call_effects(target: Op, call: Operation) -> AbstractSet[EffectInstance] | None:
    """The effects of a call of a registered op (see the module docstring)."""
    params = type(target).input_params()
    if not target.declares_effects():
        return set() if target.pure and call.results else None
    effects: set[EffectInstance] = set()
    for param, value in zip(params, call.operands, strict=False):
        if param.effect is None:
            continue
        if not isinstance(value.type, BufferAttr):
            if param.effect == "write":
                return None  # invalid IR (a write needs a buffer): say nothing precise
            continue
        effects.add(EffectInstance(_KINDS[param.effect], value))
    if target.allocates:
        effects.update(EffectInstance(MemoryEffectKind.ALLOC, r) for r in call.results)
    return effects


def function_call_effects(
    call: Operation, callee: SymbolRefAttr, args: Sequence[SSAValue]
) -> AbstractSet[EffectInstance] | None:
    """The effects of a call of the function `callee` on `args` (see the module docstring)."""
    function = lookup_symbol(call, callee)
    if not isinstance(function, FunctionLike) or function is None:
        return None
    with _question() as summaries:
        summary = _summary(function, summaries)
    if summary is None:
        return None
    effects: set[EffectInstance] = set()
    for kind, index in summary:
        if index is None:
            effects.add(EffectInstance(kind))
        elif index < len(args):
            effects.add(EffectInstance(kind, args[index]))
        else:
            return None
    return effects


class EffectSummaryScope:
    """Keeps the functions' summaries from one question to the next while it is open: the
    pass manager opens one for the duration of each pass (the `EffectSummaries`
    instrumentation); without it a pass asks about every call anew, and a chain of N calls
    costs N² summaries. Within a pass a summary may only grow stale by losing effects (the
    passes erase dead reads and fold pure calls; none adds a write or a read), which keeps the
    answer safe; the next pass starts afresh. A scope opened inside another shares its memo."""

    def __init__(self) -> None:
        self._token: Token[Summaries | None] | None = None

    def open(self) -> None:
        if _SCOPE.get() is None:
            self._token = _SCOPE.set({})

    def close(self) -> None:
        if self._token is not None:
            _SCOPE.reset(self._token)
            self._token = None

    def __enter__(self) -> EffectSummaryScope:
        self.open()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


@contextmanager
def _question() -> Iterator[Summaries]:
    """One memo of summaries for a question and the questions it asks in turn: the open
    scope's, else one of its own."""
    with EffectSummaryScope():
        memo = _SCOPE.get()
        assert memo is not None
        yield memo


def _summary(function: Operation, summaries: Summaries) -> Summary | None:
    """The function's summary, its callees' found first, in post-order of an explicit walk of
    the call graph (a chain of calls thousands deep is no deeper a recursion in Python)."""
    if function in summaries:
        return summaries[function]
    summaries[function] = None  # a call back into it while it is summarised: unknown
    stack = [(function, _callees(function))]
    while stack:
        node, pending = stack[-1]
        callee = next(pending, None)
        if callee is None:
            stack.pop()
            summaries[node] = _body_summary(node)
        elif callee not in summaries:
            summaries[callee] = None
            stack.append((callee, _callees(callee)))
    return summaries[function]


def _callees(function: Operation) -> Iterator[Operation]:
    """The functions that `function`'s calls and dispatches name (those that resolve)."""
    for op in function.walk():
        refs = []
        callee = op.properties.get("callee")
        if isinstance(callee, SymbolRefAttr):
            refs.append(callee)
        callees = op.properties.get("callees")
        if isinstance(callees, ArrayAttr):
            refs.extend(r for r in callees if isinstance(r, SymbolRefAttr))
        for ref in refs:
            found = lookup_symbol(op, ref)
            if isinstance(found, FunctionLike) and found is not None:
                yield found


def _body_summary(function: Operation) -> Summary | None:
    """The effects of a function's body on its parameters (its callees already summarised)."""
    effects = _regions_effects(function)
    if effects is None:
        return None
    found: set[tuple[MemoryEffectKind, int | None]] = set()
    entry = function.regions[0].blocks.first if function.regions else None
    for effect in effects:
        value = effect.value
        if isinstance(value, BlockArgument) and value.block is entry:
            found.add((effect.kind, value.index))
        elif isinstance(value, SSAValue) and not isinstance(value, BlockArgument):
            continue  # the callee's own buffer (an alloc): not the caller's memory
        else:
            found.add((effect.kind, None))
    return frozenset(found)


def _effects_of(op: Operation) -> AbstractSet[EffectInstance] | None:
    """An op's effects: a terminator has none; an op with regions and no effect trait of its
    own (`hir.variant`) has its regions'."""
    if op.has_trait(IsTerminator):
        return set()
    if any(isinstance(trait, MemoryEffect) for trait in op.traits):
        return get_effects(op)
    if not op.regions:
        return None
    return _regions_effects(op)


def _regions_effects(op: Operation) -> set[EffectInstance] | None:
    """The effects of the ops in `op`'s regions (None when one of them has unknown effects)."""
    effects: set[EffectInstance] = set()
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                found = _effects_of(inner)
                if found is None:
                    return None
                effects.update(found)
    return effects
