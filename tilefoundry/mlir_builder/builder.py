"""`MlirBuilder`: writes upstream MLIR text, one op per line, for the emitter and the ops'
emission rules.

A builder writes the body of one function: `op(text, type)` appends `%vN = text` (with the
current location) and returns the `MValue` it defines; `region(...)` opens a nested block;
`generic(...)` writes a `linalg.generic`. It knows the sizes of the function's DimVars (`dims`,
index values read from the parameters at the function's start), so `empty(type)` can make a
tensor of any type the function mentions. Errors a compiled program detects at run time (an
index out of range, no dispatch case) are written into the function's status buffer with
`fail_if`, one message template per site (`ErrorSite`).

By value (`ModuleState.by_value`, for a backend that takes only tensors at function boundaries,
IREE): the status is a `tensor<8xi64>` value and a buffer is a tensor value held in a cell
(`cell`, `read`, `write`): its identity stays the same `MValue` while each write gives it a new
tensor. An `if_(..., state=True)` carries the status and the cells through its branches.

Module-level helper functions (an exact pairwise float sum, ...) are registered once per
module with `helper(name, make)`; the emitter writes them after the functions.

```python
b = MlirBuilder(ModuleState("tf"))
x = MValue("%x", "f32")
y = b.op(f"arith.mulf {x}, {x} : f32", "f32")    # writes '%v1 = arith.mulf %x, %x : f32'
```
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from tilefoundry.builtin.types import DimVar, TensorType
from tilefoundry.mlir_builder.types import tensor_type

__all__ = ["EmitError", "Emitted", "ErrorSite", "MValue", "MlirBuilder", "ModuleState", "values"]


class EmitError(Exception):
    """A module the emitter cannot write (an op with no emission rule, a DimVar no parameter
    carries, ...): one line, said where (the function and op); `op` is the IR op it is about,
    when known (a diagnostic points at it)."""

    def __init__(self, message: str, op: object = None) -> None:
        super().__init__(message)
        self.message = message
        self.op = op


@dataclass(frozen=True)
class MValue:
    """An SSA value of the emitted MLIR: its name (`%v3`) and its MLIR type text."""

    name: str
    type: str

    def __str__(self) -> str:
        return self.name


Emitted = MValue | tuple["Emitted", ...]
"""What an expression emits: a tensor or buffer value, or a tuple of them (a tuple value has
no MLIR value: its leaves are separate values), or None for an effect-form call."""


def values(args: Sequence[Emitted | None]) -> list[MValue]:
    """The arguments of an op whose inputs are tensors or buffers, as single values."""
    found = []
    for arg in args:
        assert isinstance(arg, MValue), f"expected a tensor or buffer value, got {arg}"
        found.append(arg)
    return found


@dataclass(frozen=True)
class ErrorSite:
    """A check a compiled program makes at run time: its code in the status buffer is its
    index + 1, and `message` is formatted with the recorded values (`{0}`, `{1}`, ...)."""

    message: str


@dataclass
class ModuleState:
    """What the functions of one emitted module share: the symbol prefix, the helper functions
    and the error sites."""

    prefix: str
    by_value: bool = False
    helpers: dict[str, list[str]] = field(default_factory=dict)
    sites: list[ErrorSite] = field(default_factory=list)
    counter: int = 0

    def site(self, message: str) -> int:
        self.sites.append(ErrorSite(message))
        return len(self.sites)


STATUS_SLOTS = 8
"""The status buffer (`memref<8xi64>`): slot 0 the code of the first error (0: none), the
others its recorded values."""

STATUS_TYPE = f"memref<{STATUS_SLOTS}xi64>"
STATUS_TENSOR = f"tensor<{STATUS_SLOTS}xi64>"
"""The status by value (`ModuleState.by_value`)."""


def affine_map(rank: int, results: Sequence[str]) -> str:
    dims = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({dims}) -> ({', '.join(results)})>"


def identity_map(rank: int) -> str:
    return affine_map(rank, [f"d{i}" for i in range(rank)])


class MlirBuilder:
    """Writes the lines of one function body (see the module docstring)."""

    def __init__(self, module: ModuleState, indent: int = 2) -> None:
        self.module = module
        self.lines: list[str] = []
        self.indent = indent
        self.dims: dict[str, MValue] = {}
        self.status: MValue | None = None
        self.cells: dict[MValue, MValue] = {}
        self.location = ""
        self.views: set[str] = set()
        """The values whose buffer may be a strided view of another's (a `tensor.extract_slice`,
        and what only renames one): `one-shot-bufferize` casts a `func.call`'s operand to the
        callee's identity layout, which a view is not cast compatible with, so a call copies
        them (`materialized`)."""
        self._index_constants: dict[int, MValue] = {}

    @property
    def by_value(self) -> bool:
        return self.module.by_value

    @property
    def status_type(self) -> str:
        return STATUS_TENSOR if self.by_value else STATUS_TYPE

    # -- buffers by value ----------------------------------------------------------------------

    def cell(self, value: MValue) -> MValue:
        """A buffer by value: a new identity that holds `value` now."""
        self.module.counter += 1
        identity = MValue(f"%buffer{self.module.counter}", value.type)
        self.cells[identity] = value
        return identity

    def read(self, value: MValue) -> MValue:
        """What a value holds now: a buffer's current tensor (by value), else the value."""
        return self.cells.get(value, value)

    def write(self, buffer: MValue, value: MValue) -> None:
        """A buffer (by value) holds `value` from now on (cast to the buffer's type)."""
        assert buffer in self.cells, f"{buffer} is not a buffer"
        if value.type != buffer.type:
            value = self.op(f"tensor.cast {value} : {value.type} to {buffer.type}", buffer.type)
        self.cells[buffer] = value

    # -- text --------------------------------------------------------------------------------

    def fresh(self) -> str:
        self.module.counter += 1
        return f"%v{self.module.counter}"

    def line(self, text: str) -> None:
        """One op (or a closing line) at the current depth, with the current location."""
        self.lines.append("  " * self.indent + text + self.location)

    def raw(self, text: str) -> None:
        """A line without a location (`^bb0(...)`, a lone `}`)."""
        self.lines.append("  " * self.indent + text)

    def op(self, text: str, type: str) -> MValue:
        """`%vN = text`; the value, of MLIR type `type`."""
        value = MValue(self.fresh(), type)
        self.line(f"{value.name} = {text}")
        return value

    def ops(self, text: str, types: Sequence[str]) -> list[MValue]:
        """`%vN:k = text` for an op with several results (one result: as `op`)."""
        if len(types) == 1:
            return [self.op(text, types[0])]
        name = self.fresh()
        if not types:
            self.line(text)
            return []
        self.line(f"{name}:{len(types)} = {text}")
        return _results(name, types)

    @contextmanager
    def nested(self) -> Iterator[None]:
        self.indent += 1
        try:
            yield
        finally:
            self.indent -= 1

    @contextmanager
    def block(self, args: Sequence[str]) -> Iterator[list[MValue]]:
        """A block with arguments of the given types (`^bb0(%a: f32, ...)`), nested one level;
        the caller writes its terminator."""
        values = [MValue(self.fresh(), t) for t in args]
        if values:
            self.raw("^bb0(" + ", ".join(f"{v.name}: {v.type}" for v in values) + "):")
        with self.nested():
            yield values

    # -- constants and sizes -----------------------------------------------------------------

    def index(self, value: int) -> MValue:
        """An `index` constant (written once per function body)."""
        found = self._index_constants.get(value)
        if found is None:
            found = self.op(f"arith.constant {value} : index", "index")
            if self.indent <= 2:
                self._index_constants[value] = found
        return found

    def constant(self, literal: str, type: str) -> MValue:
        """`arith.constant literal : type` (an integer, `true`/`false`, or a float's bits as
        `0x...`)."""
        return self.op(f"arith.constant {literal} : {type}", type)

    def int_constant(self, value: int, type: str) -> MValue:
        if type == "i1":
            return self.op(f"arith.constant {'true' if value else 'false'}", "i1")
        return self.constant(str(value), type)

    def float_constant(self, bits: int, type: str) -> MValue:
        digits = {"f16": 4, "bf16": 4, "f32": 8, "f64": 16}[type]
        return self.constant(f"0x{bits:0{digits}X}", type)

    def dim(self, size: int | DimVar) -> MValue:
        """The size of a dim as an `index` value."""
        if isinstance(size, int):
            return self.index(size)
        found = self.dims.get(size.name)
        if found is None:
            raise EmitError(f"DimVar '{size.name}' is carried by no parameter of the function")
        return found

    def dynamic_sizes(self, shape: Sequence[int | DimVar]) -> list[MValue]:
        return [self.dim(d) for d in shape if isinstance(d, DimVar)]

    def empty(self, type: TensorType, dtype: str | None = None) -> MValue:
        """`tensor.empty` of a type (its dynamic dims from the DimVars), of another dtype when
        `dtype` is given."""
        text = tensor_type(type if dtype is None else TensorType(type.shape, dtype))
        sizes = ", ".join(str(s) for s in self.dynamic_sizes(type.shape))
        return self.op(f"tensor.empty({sizes}) : {text}", text)

    def fill(self, scalar: MValue, into: MValue) -> MValue:
        """`linalg.fill` of a tensor with a scalar (how splat constants are written: a splat
        `-0.0` constant loses its sign in mlir-translate-19, llvm-project issue 160437)."""
        return self.op(
            f"linalg.fill ins({scalar} : {scalar.type}) outs({into} : {into.type}) -> {into.type}",
            into.type,
        )

    # -- structured ops ----------------------------------------------------------------------

    def generic(
        self,
        ins: Sequence[tuple[MValue, str]],
        outs: Sequence[tuple[MValue, str]],
        iterators: Sequence[str],
        body: Callable[[list[MValue]], Sequence[MValue]],
        attributes: Sequence[tuple[str, str]] = (),
    ) -> list[MValue]:
        """A `linalg.generic` over tensors: `ins` and `outs` with their indexing maps, the
        iterator types, and the body (given the block's scalar arguments, returns the values
        it yields). Its results have the types of `outs`. `attributes` (name, value text) are
        added to its attribute dictionary (a schedule's tag: `tf_schedule = "matmul"`)."""
        maps = ", ".join(m for _, m in (*ins, *outs))
        kinds = ", ".join(f'"{k}"' for k in iterators)
        extra = "".join(f", {name} = {value}" for name, value in attributes)
        header = f"linalg.generic {{indexing_maps = [{maps}], iterator_types = [{kinds}]{extra}}}"
        if ins:
            header += (
                f" ins({', '.join(v.name for v, _ in ins)} : {', '.join(v.type for v, _ in ins)})"
            )
        header += (
            f" outs({', '.join(v.name for v, _ in outs)} : {', '.join(v.type for v, _ in outs)})"
        )
        types = [v.type for v, _ in outs]
        names = self.fresh()
        target = names if len(outs) == 1 else f"{names}:{len(outs)}"
        self.raw(f"{target} = {header} {{")
        with self.block([_element_of(v.type) for v, _ in (*ins, *outs)]) as args:
            yielded = body(args)
            self.line(
                f"linalg.yield {', '.join(v.name for v in yielded)} : "
                f"{', '.join(v.type for v in yielded)}"
            )
        self.line(f"}} -> {types[0]}" if len(types) == 1 else f"}} -> ({', '.join(types)})")
        if len(outs) == 1:
            return [MValue(names, types[0])]
        return [MValue(f"{names}#{i}", t) for i, t in enumerate(types)]

    def linalg_index(self, dim: int) -> MValue:
        return self.op(f"linalg.index {dim} : index", "index")

    # -- control flow ------------------------------------------------------------------------

    def if_(
        self,
        condition: MValue,
        types: Sequence[str],
        then: Callable[[], Sequence[MValue]],
        otherwise: Callable[[], Sequence[MValue]] | None,
        state: bool = False,
    ) -> list[MValue]:
        """`scf.if` with results of `types`; each branch returns the values it yields. With
        `state` (by value), the branches may change the status and the buffers: the `scf.if`
        carries them out (extra results after `types`)."""
        if state and self.by_value and self.status is not None:
            return self._if_with_state(condition, types, then, otherwise)
        result = ", ".join(types)
        arrow = f" -> ({result})" if types else ""
        name = self.fresh()
        target = _target(name, types)
        self.raw(f"{target}scf.if {condition}{arrow} {{")
        with self.nested():
            self._yield(then())
        if otherwise is not None:
            self.raw("} else {")
            with self.nested():
                self._yield(otherwise())
        self.line("}")
        return _results(name, types)

    def _if_with_state(
        self,
        condition: MValue,
        types: Sequence[str],
        then: Callable[[], Sequence[MValue]],
        otherwise: Callable[[], Sequence[MValue]] | None,
    ) -> list[MValue]:
        assert self.status is not None
        status, cells = self.status, dict(self.cells)
        carried = list(cells)

        def branch(make: Callable[[], Sequence[MValue]] | None) -> Callable[[], list[MValue]]:
            def run() -> list[MValue]:
                self.status, self.cells = status, dict(cells)
                made = list(make()) if make is not None else []
                assert self.status is not None
                return [*made, self.status, *(self.cells[c] for c in carried)]

            return run

        state_types = [self.status_type, *(c.type for c in carried)]
        found = self.if_(condition, [*types, *state_types], branch(then), branch(otherwise))
        self.status = found[len(types)]
        self.cells = dict(zip(carried, found[len(types) + 1 :], strict=True))
        return found[: len(types)]

    def _yield(self, values: Sequence[MValue]) -> None:
        if values:
            self.line(
                f"scf.yield {', '.join(v.name for v in values)} : {', '.join(v.type for v in values)}"
            )
        else:
            self.line("scf.yield")

    def for_(
        self,
        lower: MValue,
        upper: MValue,
        carried: Sequence[MValue],
        body: Callable[[MValue, list[MValue]], Sequence[MValue]],
        step: int = 1,
    ) -> list[MValue]:
        """`scf.for %i = lower to upper step <step>` carrying `carried`; the body gets the
        induction variable and the carried values and returns the next ones."""
        stride = self.index(step)
        iv = MValue(self.fresh(), "index")
        inits = [MValue(self.fresh(), v.type) for v in carried]
        name = self.fresh()
        types = [v.type for v in carried]
        target = _target(name, types)
        args = ""
        if carried:
            args = " iter_args(" + ", ".join(
                f"{a} = {v}" for a, v in zip(inits, carried, strict=True)
            )
            args += f") -> ({', '.join(types)})"
        self.raw(f"{target}scf.for {iv} = {lower} to {upper} step {stride}{args} {{")
        with self.nested():
            self._yield(body(iv, inits))
        self.line("}")
        return _results(name, types)

    # -- run-time errors ---------------------------------------------------------------------

    def fail_if(self, condition: MValue, message: str, values: Sequence[MValue]) -> None:
        """When `condition` (i1) holds and no error was recorded yet, record this site's error
        with `values` (i64, at most 7): `message` is formatted with them (`{0}` ...) after the
        call, as the interpreter's `ExecutionError` would say it."""
        assert self.status is not None, "a run-time check outside a function"
        assert len(values) < STATUS_SLOTS
        code = self.module.site(message)
        zero = self.index(0)
        if self.by_value:
            self._record(condition, code, values)
            return
        current = self.op(f"memref.load {self.status}[{zero}] : {STATUS_TYPE}", "i64")
        none = self.int_constant(0, "i64")
        first = self.op(f"arith.cmpi eq, {current}, {none} : i64", "i1")
        record = self.op(f"arith.andi {condition}, {first} : i1", "i1")

        def store() -> list[MValue]:
            self.line(
                f"memref.store {self.int_constant(code, 'i64')}, {self.status}[{zero}] : {STATUS_TYPE}"
            )
            for slot, value in enumerate(values, start=1):
                self.line(
                    f"memref.store {value}, {self.status}[{self.index(slot)}] : {STATUS_TYPE}"
                )
            return []

        self.if_(record, [], store, None)

    def _record(self, condition: MValue, code: int, values: Sequence[MValue]) -> None:
        """`fail_if` by value: the status tensor, updated where the error is the first."""
        assert self.status is not None
        type = STATUS_TENSOR
        zero = self.index(0)
        current = self.op(f"tensor.extract {self.status}[{zero}] : {type}", "i64")
        first = self.op(f"arith.cmpi eq, {current}, {self.int_constant(0, 'i64')} : i64", "i1")
        record = self.op(f"arith.andi {condition}, {first} : i1", "i1")
        code_value = self.int_constant(code, "i64")
        updated = self.op(f"tensor.insert {code_value} into {self.status}[{zero}] : {type}", type)
        for slot, value in enumerate(values, start=1):
            updated = self.op(
                f"tensor.insert {value} into {updated}[{self.index(slot)}] : {type}", type
            )
        self.status = self.op(f"arith.select {record}, {updated}, {self.status} : {type}", type)

    # -- helper functions --------------------------------------------------------------------

    def helper(self, name: str, make: Callable[[MlirBuilder], None]) -> str:
        """The symbol of a module-level helper function, written by `make` (given a builder at
        module depth) the first time the module asks for it."""
        symbol = f"tfh{self.module.prefix}_{name}"
        if symbol not in self.module.helpers:
            self.module.helpers[symbol] = []  # reserved: a helper may ask for itself no more
            inner = MlirBuilder(self.module, indent=1)
            make(inner)
            self.module.helpers[symbol] = inner.lines
        return f"@{symbol}"


def _element_of(type: str) -> str:
    """The element type of a `tensor<...>` / `memref<...>` type text."""
    inner = type[type.index("<") + 1 : type.rindex(">")]
    return inner.rsplit("x", 1)[-1]


def _target(name: str, types: Sequence[str]) -> str:
    """What stands before an op with results of `types` named `name`: `%v = `, `%v:k = `, or
    nothing."""
    return "" if not types else (f"{name} = " if len(types) == 1 else f"{name}:{len(types)} = ")


def _results(name: str, types: Sequence[str]) -> list[MValue]:
    """The results of `types` of an op named `name`: `%v`, or `%v#0`, `%v#1`, ..."""
    if len(types) == 1:
        return [MValue(name, types[0])]
    return [MValue(f"{name}#{i}", t) for i, t in enumerate(types)]
