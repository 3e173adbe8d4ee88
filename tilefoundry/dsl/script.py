"""`print_script(module)`: a Module as DSL source that parses back to a structurally equal
Module (TVMScript's round trip).

Each module of the tree is a class (children first; modules that print the same share one
class, as the layers of a model do), assigned in its parent's `__init__` under its attachment
name (a layer list, children `layers.0`, `layers.1`, ..., as `self.layers = [...]`, a
comprehension when they share a class; a call of each layer in turn on the previous one's value
as `for layer in self.layers:`); the script
ends with `module = <Root>()`. A function's parameters keep their names (`.named(...)` when a
name is not a Python identifier) and types; an HIR body prints one op per assignment, in block
order (the DSL keeps the order its statements build the ops, unused values included), named
after their bindings (`loc=` when the Python name differs, always after a call's arguments:
`ops.add(a, b, loc="h")`); a function that returns nothing ends with `return None`; a TIR
statement prints its expression nested, as one `LetStmt` or `Evaluate`, or, when one nested
expression cannot say its ops (an unused op, a value used twice, another order), each op named
with `:=` in a list whose item is the statement's value. Calls of registered ops print as the
Python operators and aliases the DSL maps them to, else as `OpClass(attrs...)(args)`.

A module's methods are Python functions, not IR: the script does not hold them (as the text
does not). What the DSL cannot say is refused with a `ScriptError` (a `DSLError` and a
`ValueError`) naming it: a copy that records its owner's context (`within #tf.context<...>`),
a function whose name the constructors refuse (`café`), ops that are not TileFoundry's (a mesh inside a
TIR statement), a discardable attribute, a bf16 constant holding NaN payloads, a constant larger
than the script prints.
"""

from __future__ import annotations

import ast
import enum
import keyword
import linecache
import math
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.ir import Block, Operation, SSAValue

from tilefoundry import ops
from tilefoundry.api.module import Module
from tilefoundry.builtin.metadata import (
    BindingMetadata,
    SourceSpanMetadata,
    location_to_metadata,
)
from tilefoundry.builtin.types import (
    BufferType,
    DimVar,
    IRType,
    TensorType,
    TupleType,
    UnitType,
    from_attr,
)
from tilefoundry.dialects.hir import FuncOp
from tilefoundry.dialects.hir import ReturnOp as HirReturn
from tilefoundry.dialects.tf.mesh import MeshOp, YieldOp
from tilefoundry.dialects.tf.module import ModuleOp
from tilefoundry.dialects.tf.ops import CallOp, ConstantOp, TupleOp
from tilefoundry.dialects.tir import DispatchOp, EvaluateOp, LetOp, PrimFuncOp
from tilefoundry.dialects.tir import ReturnOp as TirReturn
from tilefoundry.dialects.tir import YieldOp as TirYield
from tilefoundry.dsl.errors import DSLError
from tilefoundry.dsl.expressions import BINARY_OPERATORS
from tilefoundry.ir.algebra.expr import Var, check_var_name
from tilefoundry.ir.algebra.op_registry import Op
from tilefoundry.ir.algebra.patterns import DimVarRangePat

__all__ = ["ScriptError", "print_script"]


def _written(node: type[ast.AST]) -> str:
    """How Python writes a binary operator or a comparison (`ast.Add`: `+`)."""
    a, b = ast.Name("a"), ast.Name("b")
    operator = node()
    expression = (
        ast.Compare(a, [operator], [b])
        if isinstance(operator, ast.cmpop)
        else ast.BinOp(a, cast(ast.operator, operator), b)
    )
    return ast.unparse(expression).split(" ")[1]


_INFIX = {name: _written(node) for node, name in BINARY_OPERATORS.items()}
"""The builder each binary Python operator of the DSL calls, and the operator (`add`: `+`)."""
_PREFIX = {"neg": "-"}
"""The builder the DSL's unary minus calls."""

_CONSTANT_LIMIT = 1 << 16
"""The largest constant (in elements) the script writes out as a Python list."""

_HEADER = """\
from __future__ import annotations

import ast

import tilefoundry as tf
from tilefoundry import ops
from tilefoundry.dsl import Buffer, ConstTensor, Tensor, TupleOf
from tilefoundry.api.tir import DispatchCall
"""


class ScriptError(DSLError, ValueError):
    """What `print_script` refuses (a `DSLError` naming the construct, at the source span of
    the op it concerns when that op records one, else at `<module 'name'>:1:1`); a
    `ValueError` too."""


def print_script(module: Module) -> str:
    """The module as DSL source (see the module docstring)."""
    if not isinstance(module, Module):
        raise TypeError(f"print_script takes a Module, got {type(module).__name__}")
    printer = _Script()
    try:
        root = printer.module_class(module.module_op, "")
    except ScriptError:
        raise
    except ValueError as err:
        raise _refusal(f"print_script: {err}", printer.where, module.name) from None
    imports = sorted(printer.imports)
    lines = [_HEADER.rstrip("\n"), *imports, "", "", *printer.lines, f"module = {root}()", ""]
    return "\n".join(lines)


def _identifier(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name) and name != "self"


class _Script:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.imports: set[str] = set()
        self.classes: set[str] = set()
        self.bodies: dict[str, str] = {}
        self.lists: dict[ModuleOp, set[str]] = {}
        self.where: Operation | None = None
        """The op being printed (where a refusal points)."""

    # -- modules --------------------------------------------------------------------------

    def module_class(self, op: ModuleOp, path: str) -> str:
        self.where = op
        if op.owner_context is not None:
            raise ValueError(
                f"module '{op.own_name}' is a copy that records its owner's context; the DSL "
                "has no spelling for it (print the module it was copied from)"
            )
        children = [o for o in op.body.block.ops if isinstance(o, ModuleOp)]
        child_classes = [
            (c.sym_name.data, self.module_class(c, f"{path}{c.sym_name.data}_")) for c in children
        ]
        wanted = f"{path}{op.own_name}"
        declared = [f"name={op.own_name!r}"]
        if not path and op.sym_name.data != op.own_name:
            declared.append(f"symbol={op.sym_name.data!r}")
        if op.entry is not None:
            declared.append(f"entry={op.entry.root_reference.data!r}")
        if op.declared_target is not None:
            declared.append(f"target={op.declared_target.name!r}")
        levels = op.declared_topologies
        if levels is not None:
            items = "".join(f"tf.Topology({t.name!r}, {t.extent!r}), " for t in levels)
            declared.append(f"topologies=({items.rstrip(', ')}{',' if len(levels) == 1 else ''})")
        metadata = Module.of(op).metadata
        if metadata:
            declared.append(f"metadata={metadata!r}")
        out = [f"(tf.Module, {', '.join(declared)}):"]
        if child_classes:
            out.append("    def __init__(self) -> None:")
            lists = self.layer_lists(op)
            for attr, cls in child_classes:
                head, _, index = attr.rpartition(".")
                if head in lists and index == "0":  # a layer list, at its first layer
                    classes = [c for a, c in child_classes if a.rpartition(".")[0] == head]
                    if len(set(classes)) == 1:
                        out.append(
                            f"        self.{head} = [{cls}() for _ in range({len(classes)})]"
                        )
                    else:
                        out.append(
                            f"        self.{head} = [{', '.join(f'{c}()' for c in classes)}]"
                        )
                elif head in lists:
                    continue
                elif _identifier(attr):
                    out.append(f"        self.{attr} = {cls}()")
                else:
                    out.append(f"        setattr(self, {attr!r}, {cls}())")
            out.append("")
        symbols = {
            o.sym_name.data if isinstance(o, ModuleOp) else cast(Any, o).properties["sym_name"].data
            for o in op.body.block.ops
            if isinstance(o, ModuleOp | FuncOp | PrimFuncOp)
        }
        for function in op.body.block.ops:
            if isinstance(function, FuncOp | PrimFuncOp):
                out += _Function(self, function, symbols).lines()
            elif not isinstance(function, ModuleOp):
                raise ValueError(f"'{function.name}' is not part of the DSL")
        if len(out) == 1:
            out.append("    pass")
        body = "\n".join(out)
        known = self.bodies.get(body)
        if known is not None:  # the same module again (a layer of many): one class
            return known
        name = self.class_name(op.own_name if op.own_name not in self.classes else wanted)
        self.bodies[body] = name
        self.lines += [f"class {name}{out[0]}", *out[1:], "", ""]
        return name

    def layer_lists(self, op: ModuleOp) -> set[str]:
        """The layer lists of a module the script writes as lists: children `head.0`, ...,
        `head.<n-1>`, one after another, `head` an identifier that names no member."""
        known = self.lists.get(op)
        if known is not None:
            return known
        members = [
            o.sym_name.data if isinstance(o, ModuleOp) else cast(Any, o).properties["sym_name"].data
            for o in op.body.block.ops
            if isinstance(o, ModuleOp | FuncOp | PrimFuncOp)
        ]
        children = [o.sym_name.data for o in op.body.block.ops if isinstance(o, ModuleOp)]
        found: set[str] = set()
        for position, name in enumerate(children):
            head, dot, index = name.rpartition(".")
            if not dot or index != "0" or not _identifier(head) or head in members:
                continue
            count = 0
            while position + count < len(children) and children[position + count] == (
                f"{head}.{count}"
            ):
                count += 1
            if sum(1 for c in children if c.rpartition(".")[0] == head) == count:
                found.add(head)
        self.lists[op] = found
        return found

    def class_name(self, wanted: str) -> str:
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in wanted) or "M"
        if base[0].isdigit():
            base = f"M_{base}"
        name, count = base, 1
        while name in self.classes or keyword.iskeyword(name):
            count += 1
            name = f"{base}_{count}"
        self.classes.add(name)
        return name

    # -- Python values --------------------------------------------------------------------

    def value(self, value: object) -> str:
        if isinstance(value, enum.Enum):
            cls = type(value)
            if getattr(ops, cls.__name__, None) is cls:  # `ops.conv` is a builder, not its module
                return f"ops.{cls.__name__}.{value.name}"
            self.imports.add(f"import {cls.__module__}")
            return f"{cls.__module__}.{cls.__qualname__}.{value.name}"
        if isinstance(value, float):
            if math.isnan(value):
                return 'float("nan")'
            if math.isinf(value):
                return 'float("inf")' if value > 0 else 'float("-inf")'
            return repr(value)
        if isinstance(value, tuple):
            inner = ", ".join(self.value(v) for v in value)
            return f"({inner}{',' if len(value) == 1 else ''})"
        if isinstance(value, list):
            return f"[{', '.join(self.value(v) for v in value)}]"
        if value is None or isinstance(value, bool | int | str):
            return repr(value)
        raise ValueError(f"the DSL cannot spell the value {value!r}")

    def op(self, op: Op) -> str:
        cls = type(op)
        attrs = ", ".join(f"{k}={self.value(v)}" for k, v in op.attrs.items())
        if getattr(ops, cls.__name__, None) is cls:
            return f"ops.{cls.__name__}({attrs})"
        self.imports.add(f"import {cls.__module__}")
        return f"{cls.__module__}.{cls.__qualname__}({attrs})"

    def type(self, type: IRType, is_const: bool) -> str:
        if isinstance(type, TupleType) and not is_const:
            items = ", ".join(self.type(t, False) for t in type.fields)
            return f"TupleOf[{items}{',' if len(type.fields) == 1 else ''}]"
        if not isinstance(type, TensorType | BufferType):
            raise ValueError(f"the DSL annotates tensor and buffer parameters; got {type}")
        dims = ", ".join(
            f"tf.DimVar({d.name!r}, {d.lo}, {d.hi})" if isinstance(d, DimVar) else str(d)
            for d in type.shape
        )
        shape = f"({dims}{',' if type.rank == 1 else ''})"
        kind = "Buffer" if isinstance(type, BufferType) else "ConstTensor" if is_const else "Tensor"
        return f"{kind}[{shape}, {type.dtype!r}]"


class _Function:
    """One function (with its variants) as the lines of a class-body def."""

    def __init__(self, script: _Script, op: FuncOp | PrimFuncOp, symbols: set[str]) -> None:
        self.script = script
        self.op = op
        self.symbols = symbols
        self.names: dict[SSAValue, str] = {}
        self.used = self.reserved()

    def reserved(self) -> set[str]:
        """Names a value may not take: the module's symbols and the script's imports."""
        fixed = {"self", "tf", "ops", "Tensor", "ConstTensor", "Buffer", "TupleOf", "DispatchCall"}
        fixed.add("np")
        fixed.add("tilefoundry")
        return fixed | self.symbols

    def fresh(self, wanted: str | None) -> str:
        if wanted is not None and not _identifier(wanted):
            wanted = "".join(c if c.isalnum() or c == "_" else "_" for c in wanted)
        base = wanted if wanted is not None and _identifier(wanted) else "v"
        name, count = base, 0
        while name in self.used or (base == "v" and count == 0):
            count += 1
            name = f"{base}{count}" if base == "v" else f"{base}_{count}"
        self.used.add(name)
        return name

    def lines(self) -> list[str]:
        op = self.op
        self.script.where = op
        name = cast(StringAttr, op.properties["sym_name"]).data
        decorator = "@tf.func" if isinstance(op, FuncOp) else "@tf.prim_func"
        if op.attributes:
            raise ValueError(
                f"function '{name}' carries discardable attributes, which the DSL cannot say"
            )
        try:
            check_var_name(name)
        except (TypeError, ValueError) as err:
            raise ValueError(
                f"function '{name}' has a name the constructors the DSL calls refuse ({err})"
            ) from None
        python = name
        if not _identifier(name):  # the def under another name, `name=` the IR's
            python = self.script.class_name(name).lstrip("_") or "f"
            while python in self.symbols or not _identifier(python):
                python = f"{python}_"
            decorator += f"(name={name!r})"
        out = [f"    {decorator}"]
        out += self.signature(python, op.body.block, op, op.result_type())
        if isinstance(op, FuncOp):
            _check_hir_body(name, op.body.block)
        out += self.body(op.body.block)
        out.append("")
        if isinstance(op, FuncOp):
            for index, variant in enumerate(op.variant_ops()):
                self.names = {}
                self.used = self.reserved()
                ranges = ", ".join(f"{p.dim_var}=({p.lo}, {p.hi})" for p in variant.patterns())
                if not all(_identifier(p.dim_var) for p in variant.patterns()):
                    raise ValueError(
                        f"a variant of '{name}' ranges over a DimVar that is no identifier"
                    )
                out.append(f"    @{python}.variant({ranges})")
                out += self.signature(f"_{python}_variant{index}", variant.body.block, op)
                _check_hir_body(f"a variant of {name}", variant.body.block)
                out += self.body(variant.body.block)
                out.append("")
        return out

    def signature(
        self, name: str, block: Block, op: FuncOp | PrimFuncOp, result: IRType | None = None
    ) -> list[str]:
        params: list[str] = ["self"]
        for arg in block.args:
            var = Var.view(arg)
            var_name = op.var_name(arg)
            is_const = op.var_is_const(arg)
            python = self.fresh(var_name)
            self.names[arg] = python
            annotation = self.script.type(var.type, is_const)
            if python != var_name:
                annotation += f".named({var_name!r})"
            params.append(f"{python}: {annotation}")
        returns = ""
        if isinstance(result, TensorType | BufferType):
            returns = f" -> {self.script.type(result, False)}"
        elif isinstance(result, UnitType):
            returns = " -> None"
        return [f"    def {name}({', '.join(params)}){returns}:"]

    # -- bodies ------------------------------------------------------------------------------

    def body(self, block: Block, indent: str = "        ") -> list[str]:
        out: list[str] = []
        ops = list(block.ops)
        skip = 0
        for index, op in enumerate(ops):
            if skip:
                skip -= 1
                continue
            loop = self.layer_loop(ops, index, indent)
            if loop is not None:
                lines, skip = loop
                out += lines
                skip -= 1
                continue
            if isinstance(op, HirReturn | TirReturn):
                values = list(op.operands)
                if values:
                    out.append(f"{indent}return {self.names[values[0]]}")
                elif op.prev_op is None or op.prev_op.results:  # no value, not an effect body
                    out.append(f"{indent}return None")
                elif isinstance(op, TirReturn):
                    out.append(f"{indent}return")
            elif isinstance(op, LetOp):
                out.append(f"{indent}{self.let(op)}")
            elif isinstance(op, EvaluateOp):
                out.append(f"{indent}{self.statement(op)}")
            elif isinstance(op, MeshOp):
                out += self.mesh(op, indent)
            elif isinstance(op, YieldOp | TirYield):
                continue
            else:
                out.append(f"{indent}{self.assignment(op)}")
        if not out:
            out.append(f"{indent}pass")
        return out

    def layer_loop(
        self, ops: list[Operation], start: int, indent: str
    ) -> tuple[list[str], int] | None:
        """A call of each layer of a layer list in turn, each on the previous one's value
        (its other arguments the same, the values between used by the next call only), as a
        static loop over the list: the lines and the number of ops they say; else None."""
        first = ops[start]
        module = self.op.parent_op()
        if not isinstance(first, CallOp) or not isinstance(module, ModuleOp):
            return None
        callee = first.callee
        if not isinstance(callee, SymbolRefAttr) or len(callee.nested_references) != 1:
            return None
        head, _, index = callee.root_reference.data.rpartition(".")
        if index != "0" or head not in self.script.layer_lists(module):
            return None
        count = sum(
            1
            for o in module.body.block.ops
            if isinstance(o, ModuleOp) and o.sym_name.data.rpartition(".")[0] == head
        )
        function = callee.nested_references.data[0].data
        calls = ops[start : start + count]
        if count < 2 or len(calls) < count or not _identifier(function) or not first.operands:
            return None
        rest = list(first.operands[1:])
        for k, call in enumerate(calls):
            if not (
                isinstance(call, CallOp)
                and call.callee == SymbolRefAttr(f"{head}.{k}", [function])
                and len(call.results) == 1
                and not call.attributes
                and list(call.operands[1:]) == rest
                and (k == 0 or call.operands[0] is calls[k - 1].results[0])
                and (k == count - 1 or len(list(call.results[0].uses)) == 1)
            ):
                return None
        name = self.fresh(self.binding(calls[-1]) or "h")
        layer = self.fresh("layer")
        args = ", ".join([name, *(self.names[v] for v in rest)])
        lines = []
        if self.names[first.operands[0]] != name:
            lines.append(f"{indent}{name} = {self.names[first.operands[0]]}")
        lines += [
            f"{indent}for {layer} in self.{head}:",
            f"{indent}    {name} = {layer}.{function}({args})",
        ]
        self.names[calls[-1].results[0]] = name
        return lines, count

    def binding(self, op: Operation) -> str | None:
        return next(
            (m.name for m in location_to_metadata(op.location) if type(m) is BindingMetadata),
            None,
        )

    def assignment(self, op: Operation) -> str:
        binding = self.binding(op)
        if not op.results:  # an effect call
            return self.expression(op)
        name = self.fresh(binding)
        labelled = binding is not None and binding != name  # the name says another binding
        text = self.expression(op, operators=not labelled)
        self.names[op.results[0]] = name
        if labelled and isinstance(op, CallOp | ConstantOp | TupleOp):
            assert text.endswith(")")
            text = f"{text[:-1]}{', ' if not text.endswith('()') else ''}loc={binding!r})"
        return f"{name} = {text}"

    def mesh(self, op: MeshOp, indent: str) -> list[str]:
        loc = self.binding(op)
        level = op.topology.data
        header = f"{indent}with tf.Mesh({level!r}{f', loc={loc!r}' if loc else ''}):"
        inner = self.body(op.body.block, indent + "    ")
        terminator = op.body.block.last_op
        assert isinstance(terminator, YieldOp)
        if op.res is None:  # a mesh with no value: its block ends with `pass`
            if inner[-1] != f"{indent}    pass":
                inner.append(f"{indent}    pass")
            return [header, *inner]
        name = self.fresh(None if loc is None or loc in self.used else f"{loc}_mesh")
        if inner == [f"{indent}    pass"]:
            inner = []
        inner.append(f"{indent}    {name} = {self.names[terminator.values[0]]}")
        self.names[op.res] = name
        return [header, *inner]

    def let(self, op: LetOp) -> str:
        terminator = op.body.block.last_op
        assert terminator is not None
        (yielded,) = terminator.operands
        if yielded in self.names and not list(op.body.block.ops)[:-1]:
            text = self.names[yielded]  # an alias: `y = x`
        else:
            text = self.statement(op)
        name = self.fresh(op.var_name(op.binding))
        self.names[op.binding] = name
        return f"{name} = {text}"

    def statement(self, op: LetOp | EvaluateOp) -> str:
        """A TIR statement's expression: one nested expression when its ops are exactly what
        that expression builds, in Python's order; else each op named with `:=`, in block
        order, in a list whose item is the statement's value (`[(a := ...), a + x][-1]`)."""
        try:
            return self.nested(_inner_value_op(op))
        except _NotNested:
            pass
        block = op.body.block
        terminator = block.last_op
        assert terminator is not None
        inner = [o for o in block.ops if o is not terminator]
        if isinstance(op, LetOp):
            (yielded,) = terminator.operands
            root = yielded.owner
            if not isinstance(root, Operation) or root not in inner:
                raise ValueError("a tir.let of a block argument is not part of the DSL")
        else:
            root = inner[-1]
        items: list[str] = []
        for inner_op in inner:
            text = self.expression(inner_op)
            if len(inner_op.results) == 1:
                name = self.fresh(self.binding(inner_op))
                self.names[inner_op.results[0]] = name
                text = f"({name} := {text})"
            elif inner_op.results:
                raise ValueError(
                    f"'{inner_op.name}' has several results, which the DSL cannot bind"
                )
            items.append(text)
        index = inner.index(root)
        at = "-1" if index == len(inner) - 1 else str(index)
        return f"[{', '.join(items)}][{at}]"

    def nested(self, op: Operation | SSAValue) -> str:
        """An expression printed as one nested Python expression (a TIR statement's)."""
        if isinstance(op, SSAValue):
            if op in self.names:
                return self.names[op]
            owner = op.owner
            assert isinstance(owner, Operation)
            if len(list(op.uses)) > 1:
                raise _NotNested(
                    "a TIR statement whose expression uses one op twice is not part of the DSL"
                )
            return self.nested(owner)
        return self.expression(op, nested=True)

    def operand(self, value: SSAValue, nested: bool) -> str:
        if nested:
            return self.nested(value)
        return self.names[value]

    def expression(self, op: Operation, nested: bool = False, operators: bool = True) -> str:
        """The op as a Python expression (`operators=False`: a call, never `a + b`, so that
        `loc=` can follow its arguments)."""
        self.script.where = op
        if op.attributes:
            raise ValueError(
                f"'{op.name}' carries discardable attributes, which the DSL cannot say"
            )
        args = [self.operand(v, nested) for v in op.operands]
        if isinstance(op, ConstantOp):
            dtype = from_attr(op.result.type)
            assert isinstance(dtype, TensorType)
            if math.prod(d for d in dtype.shape if isinstance(d, int)) > _CONSTANT_LIMIT:
                raise ValueError(
                    f"a constant of {dtype} is larger than the script prints "
                    f"({_CONSTANT_LIMIT} elements)"
                )
            value = op.value
            if value.size == 0:  # a list cannot say an empty tensor's shape
                self.script.imports.add("import numpy as np")
                array = f"np.zeros({value.shape!r}, dtype={value.dtype.name!r})"
                return f"tf.Constant({array}, dtype={dtype.dtype!r})"
            if _nan_payloads(value) and dtype.dtype == "bf16":
                raise ValueError("a bf16 constant holding NaN payloads is not part of the DSL")
            if _nan_payloads(value):  # NaNs beyond the canonical one: write the bits
                self.script.imports.add("import numpy as np")
                bits = value.view(f"uint{value.dtype.itemsize * 8}")
                array = f"np.array({bits.tolist()!r}, dtype={bits.dtype.name!r})"
                return f"tf.Constant({array}.view({value.dtype.name!r}), dtype={dtype.dtype!r})"
            return f"tf.Constant({self.script.value(value.tolist())}, dtype={dtype.dtype!r})"
        if isinstance(op, TupleOp):
            return f"tf.Tuple([{', '.join(args)}])"
        if isinstance(op, DispatchOp):
            callees = ", ".join(self.symbol(c) for c in op.callees.data)
            cases = ", ".join(
                "[" + ", ".join(_range(p) for p in case) + "]" for case in op.case_patterns
            )
            return f"DispatchCall([{callees}], [{cases}], [{', '.join(args)}])"
        if isinstance(op, CallOp):
            target = op.target
            if isinstance(target, SymbolRefAttr) or not isinstance(target, Op):
                callee = op.callee
                assert isinstance(callee, SymbolRefAttr)
                return f"{self.symbol(callee)}({', '.join(args)})"
            return self.op_call(target, args, operators)
        raise ValueError(f"'{op.name}' is not part of the DSL")

    def op_call(self, target: Op, args: list[str], operators: bool = True) -> str:
        """A call of an op: the Python operator the DSL reads as it (`(a + b)`), or the builder
        that makes exactly this op from the arguments alone (an alias, `ops.exp(a)`), else the op
        built from its attributes and called (`ops.Softmax(axis=-1)(a)`)."""
        name = ops.alias_of(target)
        if name is None and not target.attrs and ops.builder_name_of(type(target)) in _INFIX:
            name = ops.builder_name_of(type(target))
        if name is None:
            return f"{self.script.op(target)}({', '.join(args)})"
        if operators and len(args) == 2 and name in _INFIX:
            return f"({args[0]} {_INFIX[name]} {args[1]})"
        if operators and len(args) == 1 and name in _PREFIX:
            return f"({_PREFIX[name]}{args[0]})"
        return f"ops.{name}({', '.join(args)})"

    def symbol(self, ref: SymbolRefAttr) -> str:
        parts = [ref.root_reference.data, *(r.data for r in ref.nested_references)]
        text = "self"
        module = self.op.parent_op()
        for part in parts:
            head, _, index = part.rpartition(".")
            if isinstance(module, ModuleOp) and head in self.script.layer_lists(module):
                text = f"{text}.{head}[{index}]"
            elif _identifier(part):
                text = f"{text}.{part}"
            else:
                text = f"getattr({text}, {part!r})"
            module = module.member(part) if isinstance(module, ModuleOp) else None
        return text


class _NotNested(ValueError):
    """A TIR statement that one nested expression cannot say (printed with `:=` instead)."""


def _refusal(message: str, where: Operation | None, module: str) -> ScriptError:
    span = None
    if where is not None:
        found = location_to_metadata(where.location)
        span = next((m for m in found if isinstance(m, SourceSpanMetadata)), None)
    if span is None:
        return ScriptError(message, f"<module '{module}'>", 1, 1)
    text = linecache.getline(span.file, span.line).rstrip("\n")
    return ScriptError(message, span.file, span.line, span.column, text)


def _nan_payloads(value: Any) -> bool:
    """Whether a float array holds a NaN other than numpy's own (sign and payload kept)."""
    if value.dtype.kind != "f" or not np.isnan(value).any():
        return False
    canonical = np.array(np.nan, dtype=value.dtype).view(f"uint{value.dtype.itemsize * 8}")
    bits = value[np.isnan(value)].view(f"uint{value.dtype.itemsize * 8}")
    return bool((bits != canonical).any())


def _range(pattern: DimVarRangePat) -> str:
    return f"tf.DimVarRangePat({pattern.dim_var!r}, {pattern.lo}, {pattern.hi})"


def _check_hir_body(name: str, block: Block) -> None:
    """A @func body has a value (or ends with an effect call); its ops print one per
    assignment, in block order (the DSL keeps the order its statements build them)."""
    terminator = block.last_op
    assert isinstance(terminator, HirReturn)


def _evaluation_order(block: Block, root: SSAValue | Operation) -> list[Operation]:
    """The ops of `block` that `root` uses, in the order Python evaluates the one nested
    expression the script prints for it (operands left to right, each before its user)."""
    live: list[Operation] = []
    seen: set[Operation] = set()
    stack: list[tuple[SSAValue | Operation, bool]] = [(root, False)]
    while stack:
        value, done = stack.pop()
        owner = value.owner if isinstance(value, SSAValue) else value
        if not isinstance(owner, Operation) or owner.parent is not block:
            continue
        if done:
            if owner not in seen:
                seen.add(owner)
                live.append(owner)
            continue
        if owner in seen:
            continue
        stack.append((value, True))
        inner = [o for r in owner.regions for b in r.blocks for n in b.walk() for o in n.operands]
        for operand in reversed([*owner.operands, *inner]):
            stack.append((operand, False))
    return live


def _inner_value_op(statement: LetOp | EvaluateOp) -> Operation:
    block = statement.body.block
    terminator = block.last_op
    assert terminator is not None
    if isinstance(statement, LetOp):
        (value,) = terminator.operands
        owner = value.owner
        if not isinstance(owner, Operation):
            raise ValueError("a tir.let of a block argument is not part of the DSL")
        _check_all_used(block, owner)
        return owner
    inner: list[Operation] = [o for o in block.ops if o is not terminator]
    if not inner:
        raise ValueError("an empty tir.evaluate is not part of the DSL")
    _check_all_used(block, inner[-1])
    return inner[-1]


def _check_all_used(block: Block, root: Operation) -> None:
    """A TIR statement prints as one nested expression: its ops must all be ones `root` uses,
    in the order Python evaluates that expression (reads and writes of buffers happen in it)."""
    inside = [o for o in block.ops if o is not block.last_op]
    if any(o is not root and not any(r.uses for r in o.results) for o in inside):
        raise _NotNested("a TIR statement holding an unused op is not part of the DSL")
    if inside != _evaluation_order(block, root):
        raise _NotNested(
            "a TIR statement holding its ops in another order than Python evaluates its "
            "expression is not part of the DSL"
        )
