"""The emitter: every prim function of a TIR module tree as upstream MLIR (docs/compile.md,
"Emission").

`emit_module(module_op, prefix="")` gives an `EmittedModule`: the text of one builtin
`module { ... }` and, for each function, the `EntryABI` a backend calls it through. For the
function at path `p` it writes an inner `func.func private` (tensors as tensors, buffers as
memrefs, a tuple as its leaves, the status buffer last) and an exported wrapper with
`llvm.emit_c_interface` (`entry.py`).

`emit_module(module_op, by_value=True)` is the variant for a backend that takes tensors only at
function boundaries (IREE): a buffer is a tensor value (`MlirBuilder.cell`), the status a
`tensor<8xi64>`; each function takes them and returns, after its results, the final tensor of
each buffer parameter leaf and the status; a call gives the caller's buffers the callee's final
tensors; the exported wrapper is `write_value_wrapper`'s. A call that passes one buffer twice is
refused by value (the two parameters alias).

A body is emitted statement by statement, in order: a `tir.let` body's expressions (the op's
emission rule, a `func.call` of a function of the tree, a `tir.dispatch` as an `scf.if` chain
on the DimVar sizes, a `tf.mesh` inline: the CPU has one of every level), a `tir.evaluate`'s
effect-form call, `tir.return`. Each emitted op has the location of the op it comes from.

```python
emitted = emit_module(parse_module(text).module_op)
print(emitted.text)
```
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import IsTerminator

from tilefoundry.builtin.types import (
    BufferType,
    DimVar,
    IRType,
    TensorType,
    TupleType,
    UnitType,
    from_attr,
)
from tilefoundry.codegen.entry import EntryABI, entry_abi, write_value_wrapper, write_wrapper
from tilefoundry.codegen.symbols import check_prefix, inner_symbol, location_text, mangle
from tilefoundry.dialects.function import dim_var_carrier
from tilefoundry.dialects.hir import FuncOp
from tilefoundry.dialects.tf.mesh import MeshOp
from tilefoundry.dialects.tf.module import ModuleOp, lookup_symbol
from tilefoundry.dialects.tf.op_attr import OpAttr, attr_to_op
from tilefoundry.dialects.tf.ops import CallOp, ConstantOp, TupleOp
from tilefoundry.dialects.tir import DispatchOp, EvaluateOp, LetOp, PrimFuncOp, ReturnOp
from tilefoundry.ir.symbols import SymbolTables
from tilefoundry.mlir_builder import (
    EmitError,
    Emitted,
    MlirBuilder,
    ModuleState,
    MValue,
)
from tilefoundry.mlir_builder.constants import tensor_constant
from tilefoundry.mlir_builder.structured import materialized, tensor_cast
from tilefoundry.mlir_builder.types import leaves, shaped_type, tensor_type
from tilefoundry.transforms.lowering import lower_module

__all__ = ["EmittedModule", "emit_module", "emit_tree", "prim_functions"]


@dataclass
class EmittedModule:
    """The emitted text, each function's entry point by dotted path (`c0.f`), and the run-time
    error sites (`ErrorSite`, by code - 1)."""

    text: str
    entries: dict[str, EntryABI] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)


def prim_functions(module_op: ModuleOp) -> Iterator[tuple[tuple[str, ...], Operation]]:
    """Every function of the tree with its path (child module names, then its name), parents'
    functions before their children's."""

    def visit(
        module: ModuleOp, path: tuple[str, ...]
    ) -> Iterator[tuple[tuple[str, ...], Operation]]:
        children = []
        for op in module.body.block.ops:
            if isinstance(op, PrimFuncOp | FuncOp):
                yield (*path, op.sym_name.data), op
            elif isinstance(op, ModuleOp):
                children.append(op)
        for child in children:
            yield from visit(child, (*path, child.sym_name.data))

    yield from visit(module_op, ())


def emit_module(module_op: ModuleOp, prefix: str = "", by_value: bool = False) -> EmittedModule:
    """The MLIR of every prim function of a TIR tree (see the module docstring)."""
    check_prefix(prefix)
    state = ModuleState(prefix, by_value=by_value)
    functions = list(prim_functions(module_op))
    symbols: dict[Operation, str] = {}
    for path, op in functions:
        if isinstance(op, FuncOp):
            raise EmitError(
                f"function '@{'::@'.join(path)}' is an hir.func: lower the module to TIR first "
                "(tilefoundry.lower, or emit_tree)"
            )
        symbols[op] = inner_symbol(path, prefix)
    lines: list[str] = []
    entries: dict[str, EntryABI] = {}
    with SymbolTables().scope():  # emitting does not change the IR: each table indexed once
        for path, op in functions:
            assert isinstance(op, PrimFuncOp)
            _FunctionEmitter(state, symbols, op, path).emit(lines)
            abi = entry_abi(op, path, mangle(path, prefix))
            (write_value_wrapper if by_value else write_wrapper)(lines, abi, symbols[op])
            entries[".".join(path)] = abi
    for helper in state.helpers.values():
        lines += helper
    text = "module {\n" + "\n".join(lines) + "\n}\n"
    return EmittedModule(text, entries, [site.message for site in state.sites])


def _flat(value: Emitted | None) -> list[MValue]:
    if value is None:
        return []
    if isinstance(value, MValue):
        return [value]
    return [leaf for item in value for leaf in _flat(item)]


def _shaped(type: IRType, values: Iterator[MValue]) -> Emitted:
    """The `Emitted` of a type from its leaf values, in order."""
    if isinstance(type, TupleType):
        return tuple(_shaped(field, values) for field in type.fields)
    return next(values)


def _result_type(op: Operation) -> IRType:
    return from_attr(op.results[0].type) if op.results else UnitType()


class _FunctionEmitter:
    """Writes one prim function's inner `func.func`."""

    def __init__(
        self,
        state: ModuleState,
        symbols: dict[Operation, str],
        op: PrimFuncOp,
        path: tuple[str, ...],
    ) -> None:
        self.state = state
        self.symbols = symbols
        self.op = op
        self.where = f"function '@{op.sym_name.data}'"
        self.b = MlirBuilder(state)
        self.env: dict[SSAValue, Emitted | None] = {}
        self.buffers: list[MValue] = []  # by value: the parameters' buffer leaves, in order

    def _type(self, type: IRType) -> str:
        """A leaf's MLIR type here: a buffer is a tensor by value."""
        if self.b.by_value and isinstance(type, BufferType):
            return tensor_type(type.tensor)
        return shaped_type(type)

    def emit(self, lines: list[str]) -> None:
        b = self.b
        op = self.op
        params: list[str] = []
        for index, (arg, type) in enumerate(zip(op.body.block.args, op.param_types(), strict=True)):
            leaf_values = []
            for j, leaf in enumerate(leaves(type)):
                value = MValue(f"%p{index}_{j}", self._type(leaf))
                params.append(f"{value.name}: {value.type}")
                if b.by_value and isinstance(leaf, BufferType):
                    value = b.cell(value)
                    self.buffers.append(value)
                leaf_values.append(value)
            self.env[arg] = _shaped(type, iter(leaf_values))
        b.dims = self._read_dims(op.param_types(), [self.env[a] for a in op.body.block.args])
        status = MValue("%status", b.status_type)
        params.append(f"{status.name}: {status.type}")
        b.status = status
        results = [self._type(t) for t in leaves(op.result_type())]
        if b.by_value:
            results += [*(v.type for v in self.buffers), b.status_type]
        header = f"func.func private @{self.symbols[op]}({', '.join(params)})"
        if results:
            header += f" -> ({', '.join(results)})"
        for statement in op.body.block.ops:
            b.location = location_text(statement.location)
            try:
                self._statement(statement)
            except EmitError as err:
                err.op = err.op or statement
                raise
        lines.append(f"  {header} {{")
        lines.extend(b.lines)
        lines.append("  }")

    def _read_dims(
        self, types: Sequence[IRType], args: Sequence[Emitted | None]
    ) -> dict[str, MValue]:
        """The size of each DimVar of `types` (in order), read where `dim_var_carrier` says
        (the first parameter and axis that carries it), from the emitted `args`."""
        b = self.b
        sizes: dict[str, MValue] = {}
        for type in types:
            for leaf in leaves(type):
                for dim in leaf.shape:
                    if not isinstance(dim, DimVar) or dim.name in sizes:
                        continue
                    carrier = dim_var_carrier(types, dim.name)
                    assert carrier is not None
                    value = args[carrier.param]
                    for index in carrier.fields:
                        assert isinstance(value, tuple)
                        value = value[index]
                    assert isinstance(value, MValue)
                    value = b.read(value)
                    kind = "memref" if value.type.startswith("memref") else "tensor"
                    sizes[dim.name] = b.op(
                        f"{kind}.dim {value}, {b.index(carrier.axis)} : {value.type}", "index"
                    )
        return sizes

    # -- statements -----------------------------------------------------------------------

    def _statement(self, op: Operation) -> None:
        if isinstance(op, LetOp | EvaluateOp):
            yielded = self._block(op.body.block)
            if isinstance(op, LetOp):
                self.env[op.binding] = yielded[0]
            return
        if isinstance(op, ReturnOp):
            b = self.b
            returned = [leaf for v in op.operands for leaf in _flat(self.env[v])]
            expected = [self._type(t) for t in leaves(self.op.result_type())]
            if b.by_value:
                assert not any(v in b.cells for v in returned), "a buffer does not escape"
                assert b.status is not None
                returned += [*(b.read(v) for v in self.buffers), b.status]
                expected += [*(v.type for v in self.buffers), b.status_type]
            cast = [tensor_cast(b, v, t) for v, t in zip(returned, expected, strict=True)]
            if cast:
                self.b.line(
                    f"func.return {', '.join(v.name for v in cast)} : {', '.join(expected)}"
                )
            else:
                self.b.line("func.return")
            return
        raise EmitError(f"'{op.name}' is not a statement of {self.where}")

    def _block(self, block: Block) -> list[Emitted | None]:
        """Emit a body's expressions; the values its terminator yields."""
        for inner in block.ops:
            if inner.has_trait(IsTerminator):
                return [self.env[v] for v in inner.operands]
            outer = self.b.location
            here = location_text(inner.location)
            self.b.location = here or outer
            try:
                value = self._expression(inner)
            except EmitError as err:
                err.op = err.op or inner
                raise
            self.b.location = outer
            if inner.results:
                self.env[inner.results[0]] = value
        return []

    # -- expressions ----------------------------------------------------------------------

    def _expression(self, op: Operation) -> Emitted | None:
        if isinstance(op, ConstantOp):
            type = _result_type(op)
            assert isinstance(type, TensorType)
            return tensor_constant(self.b, op.value, type)
        if isinstance(op, TupleOp):
            return tuple(self._value(v) for v in op.operands)
        if isinstance(op, MeshOp):
            yielded = self._block(op.body.block)
            return yielded[0] if yielded else None
        if isinstance(op, DispatchOp):
            return self._dispatch(op)
        if isinstance(op, CallOp):
            if isinstance(op.callee, OpAttr):
                return self._op_call(op, op.callee)
            return self._function_call(op, op.callee)
        raise EmitError(f"'{op.name}' cannot be emitted in {self.where}")

    def _value(self, value: SSAValue) -> Emitted:
        found = self.env[value]
        assert found is not None
        return found

    def _op_call(self, op: CallOp, callee: OpAttr) -> Emitted | None:
        target = attr_to_op(callee)
        rule = getattr(target, "emit", None)
        if rule is None:
            raise EmitError(
                f"{target.op_name} has no emission rule (in {self.where}): declare an `emit` "
                "method on its op class (docs/compile.md)",
                op,
            )
        args = [self.env[v] for v in op.operands]
        arg_types = [from_attr(v.type) for v in op.operands]
        result: Emitted | None = rule(self.b, args, arg_types, _result_type(op))
        return result

    def _callee(self, op: Operation, ref: SymbolRefAttr) -> PrimFuncOp:
        callee = lookup_symbol(op, ref)
        if not isinstance(callee, PrimFuncOp) or callee not in self.symbols:
            raise EmitError(f"'{ref}' (called in {self.where}) is no prim function of the tree", op)
        return callee

    def _call(
        self, callee: PrimFuncOp, args: Sequence[Emitted | None], result: IRType
    ) -> Emitted | None:
        """`func.call` of a function of the tree: the leaves cast to its parameter types (a view
        copied first: `materialized`), the results to the call's."""
        b = self.b
        param_leaves = [t for p in callee.param_types() for t in leaves(p)]
        params = [self._type(t) for t in param_leaves]
        given = [leaf for arg in args for leaf in _flat(arg)]
        written = [v for v, t in zip(given, param_leaves, strict=True) if isinstance(t, BufferType)]
        if b.by_value and len(set(written)) < len(written):
            raise EmitError(
                f"a call in {self.where} passes one buffer as two parameters of "
                f"'@{callee.sym_name.data}': buffers are passed by value here (the iree backend)"
            )
        operands = [
            tensor_cast(b, materialized(b, b.read(v)), t)
            for v, t in zip(given, params, strict=True)
        ]
        operands.append(b.status) if b.status is not None else None
        returns = [self._type(t) for t in leaves(callee.result_type())]
        count = len(returns)
        if b.by_value:
            returns += [*(self._type(t) for t in param_leaves if isinstance(t, BufferType))]
            returns.append(b.status_type)
        signature = f"({', '.join([*params, b.status_type])}) -> ({', '.join(returns)})"
        text = f"func.call @{self.symbols[callee]}({', '.join(v.name for v in operands)}) : {signature}"
        values = b.ops(text, returns)
        if b.by_value:
            for buffer, final in zip(written, values[count:-1], strict=True):
                b.write(buffer, final)
            b.status = values[-1]
            values = values[:count]
        wanted = [self._type(t) for t in leaves(result)]
        cast = [tensor_cast(b, v, t) for v, t in zip(values, wanted, strict=True)]
        return None if isinstance(result, UnitType) else _shaped(result, iter(cast))

    def _function_call(self, op: CallOp, ref: SymbolRefAttr) -> Emitted | None:
        callee = self._callee(op, ref)
        return self._call(callee, [self.env[v] for v in op.operands], _result_type(op))

    def _dispatch(self, op: DispatchOp) -> Emitted | None:
        """An `scf.if` chain: the first case whose ranges hold the argument sizes; none is an
        error recorded in the status buffer (the interpreter's message), with empty results."""
        b = self.b
        args = [self.env[v] for v in op.operands]
        sizes = self._read_dims([from_attr(v.type) for v in op.operands], args)
        result = _result_type(op)
        types = [self._type(t) for t in leaves(result)]
        cases = list(zip(op.callees, op.case_patterns, strict=True))

        def chain(index: int) -> list[MValue]:
            if index == len(cases):
                shown = ", ".join(f"{name} = {{{i}}}" for i, name in enumerate(sizes))
                recorded = [
                    b.op(f"arith.index_cast {v} : index to i64", "i64") for v in sizes.values()
                ]
                b.fail_if(
                    b.int_constant(1, "i1"),
                    f"no dispatch case holds the argument sizes ({shown})",
                    recorded,
                )
                return [_placeholder(b, t) for t in leaves(result)]
            ref, patterns = cases[index]
            holds = b.int_constant(1, "i1")
            for pattern in patterns:
                size = sizes.get(pattern.dim_var)
                if size is None:
                    holds = b.int_constant(0, "i1")
                    break
                above = b.op(f"arith.cmpi uge, {size}, {b.index(pattern.lo)} : index", "i1")
                below = b.op(f"arith.cmpi ult, {size}, {b.index(pattern.hi)} : index", "i1")
                both = b.op(f"arith.andi {above}, {below} : i1", "i1")
                holds = b.op(f"arith.andi {holds}, {both} : i1", "i1")
            callee = self._callee(op, ref)

            def taken() -> list[MValue]:
                return _flat(self._call(callee, args, result))

            return b.if_(holds, types, taken, lambda: chain(index + 1), state=True)

        values = chain(0)
        return None if isinstance(result, UnitType) else _shaped(result, iter(values))


def _placeholder(b: MlirBuilder, type: TensorType | BufferType) -> MValue:
    assert isinstance(type, TensorType)
    return b.empty(type)


def emit_tree(module_op: ModuleOp, prefix: str = "", by_value: bool = False) -> EmittedModule:
    """`emit_module` of a tree, lowered to TIR first when it holds HIR (`tilefoundry.lower`:
    from the entry, only what it reaches)."""
    if any(isinstance(op, FuncOp) for op in module_op.walk()):
        module_op = lower_module(module_op)
    return emit_module(module_op, prefix, by_value)
