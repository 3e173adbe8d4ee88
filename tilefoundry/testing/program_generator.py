"""A seeded generator of random valid TileFoundry programs, for translation validation.

`generate_program(seed)` gives a `GeneratedProgram`: the text of one module tree and, for every
function it can run, numpy inputs. The same seed gives the same program on every machine. What a
program may hold:

- HIR functions (`hir.func`) and TIR kernels (`tir.prim_func`), in the root and in child modules
  (`tf.module @c0`, called as `@c0::@f`), calling functions generated before them (no recursion;
  in HIR, a function of no value too);
- every registered op with random attributes: `tf.math.binary` (every kind), `tf.math.unary`
  (every kind its dtype allows), `tf.math.cast` (to every dtype), `tf.reduce.sum` / `max`
  (axis, keepdims), `tf.linalg.matmul`, `tf.linalg.transpose` (any permutation),
  `tf.shape.split`, `tf.tuple` / `tf.tuple.get_item` (negative indices too); `tf.nn.activation`
  (every kind), `tf.nn.softmax`, `tf.reduce.mean` on floats, `tf.reduce.cumsum`, `tf.logic.*`
  on i1, `tf.tensor.where`, and on static tensors `tf.tensor.reshape` / `broadcast_to` /
  `slice` / `concat`, `tf.tensor.iota` / `full` (`index`, `gather` are not generated yet);
  the zoo's ops: `tf.nn.conv` (1-d / 2-d, stride, padding, dilation, groups) on static floats,
  `tf.nn.pool` (max with dilation, avg with and without `count_include_pad`) over the static
  trailing dims of a float tensor, `tf.tensor.topk` (largest or smallest, any dtype) along a
  static axis, and `tf.tensor.reshape` with `dims` keeping the DimVar; dynamic functions too
  (a `dims` reshape there and back, a `topk` of the whole static axis, a same-size pool);
- constants, dense and splat, of every dtype of `tilefoundry.builtin.types.DTYPES`, with the edge
  values (`-0.0`, `±inf`, NaN, denormals, the largest finite value, the integer extremes, `0`,
  `±1`) written as their bits;
- `tf.mesh` regions over the root's topology levels (`cta`, nested `warp`), a child declaring no
  levels (`topologies []`), HIR functions with shape-specialization variants (split at 4, or
  random sub-ranges that overlap or leave sizes to the base body; run at every size), and a
  `tir.dispatch` over DimVar ranges;
- in-place memory: `tf.memory.copy` into a kernel's buffer parameters (`tir.evaluate`, alone or
  after the expressions of its body), calls of kernels that write the caller's buffers, and
  multi-op `tir.let` bodies;
- locations on some ops (`loc("gen.py":line:col)`), so metadata passes have work.

Every program verifies; one that does not is a bug of this generator. Nothing is left out to
hide a bug of the code under test: each bug the generator found is fixed, with a lit test under
`tests/filecheck/transforms/validation/` (docs/testing.md).
"""

from __future__ import annotations

import math
import random
import re
import struct
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "GeneratedProgram",
    "Literals",
    "RunCase",
    "generate_program",
]

DIM = "n"
DIM_LO, DIM_HI = 1, 9
DIM_SPLIT = 4
"""The DimVar of dynamic programs: `n` in [1, 9); dispatch cases split at 4, variants too or
cover random sub-ranges (overlapping, or leaving sizes to the base body)."""

FLOAT_DTYPES = ("bf16", "f16", "f32", "f64")
INT_DTYPES = ("i8", "i16", "i32", "i64")
ALL_DTYPES = (*FLOAT_DTYPES, *INT_DTYPES, "i1")

STATIC_SHAPES: tuple[tuple[int, ...], ...] = ((1,), (4,), (2, 3), (3, 2), (2, 2), (2, 1, 3))
"""Op operands have rank >= 1 (the `Tensor` pattern; a rank-0 tensor is a `Scalar`)."""

BINARY_KINDS = ("add", "sub", "mul", "div", "max", "min", "pow")
COMPARISONS = ("cmp_eq", "cmp_ne", "cmp_lt", "cmp_le", "cmp_gt", "cmp_ge")
UNARY_FLOAT = ("neg", "exp", "log", "sqrt", "rsqrt", "tanh", "abs", "sigmoid", "relu")
UNARY_INT = ("neg", "abs", "relu")
ACTIVATION_KINDS = ("silu", "gelu", "gelu_tanh", "sin", "cos", "erf")
LEVELS = ("cta", "warp")

_FLOAT_BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}


# --- types and values -----------------------------------------------------------------------


@dataclass(frozen=True)
class Tensor:
    """A tensor type; `None` in the shape is the dynamic dim `n`."""

    shape: tuple[int | None, ...]
    dtype: str

    @property
    def dynamic(self) -> bool:
        return None in self.shape

    @property
    def rank(self) -> int:
        return len(self.shape)

    def text(self) -> str:
        dims = "".join(("?" if d is None else str(d)) + "x" for d in self.shape)
        dims_attr = f", #tf.dims<{DIM}: {DIM_LO} to {DIM_HI}>" if self.dynamic else ""
        return f"tensor<{dims}{self.dtype}{dims_attr}>"

    def with_dtype(self, dtype: str) -> Tensor:
        return Tensor(self.shape, dtype)


@dataclass(frozen=True)
class Tuple:
    fields: tuple[Tensor, ...]

    def text(self) -> str:
        return "tuple<" + ", ".join(f.text() for f in self.fields) + ">"


@dataclass(frozen=True)
class Buffer:
    """TIR memory of a static tensor type (`!tf.buffer<...>`): a kernel parameter or an
    allocation, read with `tf.memory.load`, written in place."""

    tensor: Tensor

    def text(self) -> str:
        dims = "".join(f"{d}x" for d in self.tensor.shape)
        return f"!tf.buffer<{dims}{self.tensor.dtype}>"


Type = Tensor | Tuple | Buffer


@dataclass(frozen=True)
class Value:
    """An SSA value in scope: its name, type, whether only literals reach it, and (for a
    kernel's parameter) the parameter it is."""

    name: str
    type: Type
    literal: bool = False
    param: int | None = None
    reads: frozenset[int] = frozenset()
    buffer: int | None = None


@dataclass
class Signature:
    """A generated function as its callers see it."""

    path: tuple[str, ...]
    name: str
    level: str
    params: list[Type]
    result: Type | None
    writes: set[int] = field(default_factory=set)
    has_mesh: bool = False
    dynamic: bool = False
    bf16: bool = False


@dataclass(frozen=True)
class RunCase:
    """One run of a function: its path (`c0.f`, as `function_selectors` writes it) and its
    arguments (fresh copies are made for every run)."""

    path: str
    args: tuple[Any, ...]


@dataclass
class GeneratedProgram:
    seed: int
    text: str
    runs: list[RunCase]
    functions: list[Signature]


# --- literals -------------------------------------------------------------------------------


def _float_edges(dtype: str) -> list[int]:
    """Bit patterns of a float dtype's edge values."""
    if dtype == "f32":
        return [0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000,
                0x7FC00000, 0xFFC00000, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000,
                0x7F7FFFFF, 0xFF7FFFFF]  # fmt: skip
    if dtype == "f16":
        return [0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x0001, 0x8001,
                0x03FF, 0x0400, 0x7BFF, 0xFBFF]  # fmt: skip
    if dtype == "bf16":
        return [0x0000, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x0001, 0x8001,
                0x007F, 0x0080, 0x7F7F, 0xFF7F]  # fmt: skip
    return [0x0, 0x8000000000000000, 0x3FF0000000000000, 0xBFF0000000000000,
            0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0xFFF8000000000000,
            0x1, 0x8000000000000001, 0x000FFFFFFFFFFFFF, 0x0010000000000000,
            0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF]  # fmt: skip


def _int_range(dtype: str) -> tuple[int, int]:
    bits = int(dtype[1:])
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def _to_bits(value: float, dtype: str) -> int:
    """The bits of a float exactly representable in `dtype`."""
    if dtype == "f64":
        return int(struct.unpack("<Q", struct.pack("<d", value))[0])
    if dtype == "f32":
        return int(struct.unpack("<I", struct.pack("<f", value))[0])
    if dtype == "f16":
        return int(np.array(value, np.float16).view(np.uint16))
    return int(struct.unpack("<I", struct.pack("<f", value))[0]) >> 16


def _from_bits(bits: int, dtype: str) -> Any:
    """The numpy scalar the interpreter holds for these bits (bf16 as float32)."""
    if dtype == "f64":
        return np.array(bits, np.uint64).view(np.float64)
    if dtype == "f32":
        return np.array(bits, np.uint32).view(np.float32)
    if dtype == "f16":
        return np.array(bits, np.uint16).view(np.float16)
    return np.array(bits << 16, np.uint32).view(np.float32)


class Literals:
    """Random elements of a dtype, as their bits (floats) or integers, edges included."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def element(self, dtype: str, small: bool = False) -> int | bool:
        rng = self.rng
        if dtype == "i1":
            return rng.random() < 0.5
        if dtype in INT_DTYPES:
            lo, hi = _int_range(dtype)
            if small or rng.random() < 0.6:
                return rng.choice([0, 1, -1, 2, 3, -2, 5, 7])
            return rng.choice([lo, hi, lo + 1, hi - 1, rng.randint(lo, hi)])
        if small or rng.random() < 0.6:
            plain = rng.choice([0.0, 1.0, -1.0, 0.5, 2.0, -2.0, 0.25, 3.0, -0.75, 1.5, 0.125])
            return _to_bits(plain, dtype)
        return rng.choice(_float_edges(dtype))

    def elements(self, dtype: str, count: int, small: bool = False) -> list[int | bool]:
        return [self.element(dtype, small) for _ in range(count)]

    @staticmethod
    def text(dtype: str, element: int | bool) -> str:
        if dtype == "i1":
            return "true" if element else "false"
        if dtype in INT_DTYPES:
            return str(element)
        width = _FLOAT_BITS[dtype] // 4
        return f"0x{int(element):0{width}X}"

    @staticmethod
    def array(dtype: str, shape: tuple[int, ...], elements: list[int | bool]) -> Any:
        if dtype == "i1":
            return np.array(elements, np.bool_).reshape(shape)
        if dtype in INT_DTYPES:
            return np.array(elements, np.dtype(f"int{dtype[1:]}")).reshape(shape)
        values = [_from_bits(int(e), dtype) for e in elements]
        holder = np.float32 if dtype == "bf16" else values[0].dtype if values else np.float32
        return np.array(values, holder).reshape(shape)


# --- bodies ---------------------------------------------------------------------------------


class _Body:
    """Emits the ops of one body (an HIR function or variant, a mesh, a TIR let body, a
    kernel's statements) and keeps the values in scope."""

    def __init__(self, gen: _Generator, scope: list[Value], indent: int, level: str) -> None:
        self.gen = gen
        self.rng = gen.rng
        self.scope = list(scope)
        self.lines: list[str] = []
        self.indent = indent
        self.level = level

    # naming and output

    def emit(self, text: str) -> None:
        loc = ""
        if self.rng.random() < 0.15:
            loc = f' loc("gen.py":{self.rng.randint(1, 99)}:{self.rng.randint(1, 40)})'
        self.lines.append("  " * self.indent + text + loc)

    def fresh(self) -> str:
        return self.gen.fresh()

    def readable(self, pred: Any = None) -> list[Value]:
        """The values an op may use."""
        return [v for v in self.scope if pred is None or pred(v)]

    # values

    def constant(self, type: Tensor, small: bool = False) -> Value:
        shape = _static(type.shape)
        lit = self.gen.literals
        count = math.prod(shape)
        name = self.fresh()
        if self.rng.random() < 0.3 or count == 1:
            element = lit.element(type.dtype, small)
            body = lit.text(type.dtype, element)
        else:
            elements = lit.elements(type.dtype, count, small)
            body = _nested(lit, type.dtype, shape, elements)
        prefix = "tir.let " if self.level == "tir" else ""
        self.emit(f"%{name} = {prefix}tf.constant dense<{body}> : {type.text()}")
        value = Value(name, type, literal=True)
        self.scope.append(value)
        return value

    def tensor_values(self, dynamic: bool | None = None) -> list[Value]:
        return self.readable(
            lambda v: isinstance(v.type, Tensor) and (dynamic is None or v.type.dynamic == dynamic)
        )

    def pick_tensor(self) -> Value:
        values = self.tensor_values()
        buffers = self.readable(lambda v: isinstance(v.type, Buffer))
        if buffers and self.rng.random() < 0.25:  # reads of buffers, written or not
            return self.load(self.rng.choice(buffers))
        if not values or self.rng.random() < 0.15:
            static = [v for v in values if not v.type.dynamic]  # type: ignore[union-attr]
            dtype = self.gen.dtype()
            shape = self.rng.choice(STATIC_SHAPES)
            if static and self.rng.random() < 0.5:
                shape = static[-1].type.shape  # type: ignore[union-attr,assignment]
            return self.constant(Tensor(shape, dtype))
        # prefer recent values: deeper expressions
        if self.rng.random() < 0.6:
            return values[-min(len(values), self.rng.randint(1, 3))]
        return self.rng.choice(values)

    def load(self, buffer: Value) -> Value:
        """`tf.memory.load` of a buffer: a snapshot tensor."""
        assert isinstance(buffer.type, Buffer)
        text = self.call_line("tf.memory.load", [buffer], buffer.type.tensor)
        return self.value_op(text, buffer.type.tensor, [buffer])

    def call_line(self, callee: str, args: list[Value], result: Type | None) -> str:
        arg_types = ", ".join(a.type.text() for a in args)
        result_text = "()" if result is None else result.text()
        names = ", ".join(f"%{a.name}" for a in args)
        return f"tf.call {callee}({names}) : ({arg_types}) -> {result_text}"

    def value_op(
        self, text: str, result: Type, operands: list[Value], repeatable: bool = True
    ) -> Value:
        if repeatable:
            self.gen.history.append((text, result, operands))
        name = self.fresh()
        prefix = "tir.let " if self.level == "tir" else ""
        self.emit(f"%{name} = {prefix}{text}")
        value = Value(
            name,
            result,
            literal=all(v.literal for v in operands),
            reads=frozenset().union(*(v.reads for v in operands)),
        )
        self.scope.append(value)
        return value

    def tuple_op(self, elements: list[Value]) -> Value:
        """`tf.tuple` of `elements` (not repeatable: it computes nothing to reuse)."""
        result = Tuple(tuple(e.type for e in elements))  # type: ignore[misc]
        text = f"tf.tuple {', '.join('%' + e.name for e in elements)} : {result.text()}"
        return self.value_op(text, result, elements, repeatable=False)

    # ops

    def op(self) -> Value | None:
        """One random op call on values in scope (constants made as needed)."""
        choice = self.rng.choices(
            [
                "binary",
                "unary",
                "cast",
                "reduce",
                "matmul",
                "transpose",
                "split",
                "tuple",
                "repeat",
                "float_op",
                "cumsum",
                "logical",
                "where",
                "reshape",
                "broadcast_to",
                "slice",
                "concat",
                "iota_full",
                "window",
                "topk",
            ],
            weights=[8, 5, 3, 2, 2, 2, 1, 1, 3, 3, 1, 2, 2, 1, 1, 1, 1, 1, 1, 1],
        )[0]
        made: Value | None = getattr(self, f"_{choice}")()
        return made

    def _repeat(self) -> Value | None:
        """An op call made before, again (on operands still in scope): work for cse, and a
        read of a buffer before and after a write."""
        names = {v.name for v in self.readable()}
        again = [h for h in self.gen.history if all(o.name in names for o in h[2])]
        if not again:
            return None
        text, result, operands = self.rng.choice(again)
        return self.value_op(text, result, operands)

    def _binary(self) -> Value | None:
        a = self.pick_tensor()
        assert isinstance(a.type, Tensor)
        kinds = list(COMPARISONS)
        if a.type.dtype != "i1":
            kinds += list(BINARY_KINDS) * 2
        kind = self.rng.choice(kinds)
        b_type = a.type
        if not a.type.dynamic and self.rng.random() < 0.2 and a.type.rank:
            b_type = Tensor(a.type.shape[self.rng.randint(0, a.type.rank - 1) :], a.type.dtype)
        elif self.rng.random() < 0.2:
            b_type = Tensor((1,), a.type.dtype)
        small = kind == "pow" and a.type.dtype in INT_DTYPES
        same = [v for v in self.tensor_values() if v.type == b_type]
        if small or not same or self.rng.random() < 0.4:
            b = self.constant(b_type, small=small)
            if small:  # an integer power needs a non-negative exponent
                b = self._nonnegative(b)
        else:
            b = self.rng.choice(same)
        if small and b.param is not None:
            return None
        if small and not b.literal:
            return None
        lhs, rhs = (a, b) if self.rng.random() < 0.7 or small else (b, a)
        shape = _broadcast(lhs.type.shape, rhs.type.shape)  # type: ignore[union-attr]
        result = Tensor(shape, "i1" if kind.startswith("cmp") else a.type.dtype)
        text = self.call_line(f"tf.math.binary<kind = {kind}>", [lhs, rhs], result)
        return self.value_op(text, result, [lhs, rhs])

    def _nonnegative(self, b: Value) -> Value:
        """An integer exponent constant made non-negative (rewrites the line just emitted)."""
        line = self.lines[-1]
        assert isinstance(b.type, Tensor)
        shape = _static(b.type.shape)
        elements: list[Any] = [self.rng.randint(0, 3) for _ in range(math.prod(shape))]
        body = _nested(self.gen.literals, b.type.dtype, shape, elements)
        start = line.index("dense<")
        end = line.index("> :", start)
        self.lines[-1] = line[:start] + f"dense<{body}" + line[end:]
        return b

    def _unary(self) -> Value | None:
        a = self.pick_tensor()
        assert isinstance(a.type, Tensor)
        if a.type.dtype == "i1":
            return None
        kinds = UNARY_FLOAT if a.type.dtype in FLOAT_DTYPES else UNARY_INT
        kind = self.rng.choice(kinds)
        text = self.call_line(f"tf.math.unary<kind = {kind}>", [a], a.type)
        return self.value_op(text, a.type, [a])

    def _cast(self) -> Value | None:
        a = self.pick_tensor()
        assert isinstance(a.type, Tensor)
        dtype = self.gen.dtype()
        result = a.type.with_dtype(dtype)
        text = self.call_line(f"tf.math.cast<dtype = {dtype}>", [a], result)
        return self.value_op(text, result, [a])

    def _reduce(self) -> Value | None:
        a = self.pick_tensor()
        assert isinstance(a.type, Tensor)
        if a.type.rank == 0:
            return None
        axis = self.rng.randint(-a.type.rank, a.type.rank - 1)
        keep = self.rng.random() < 0.4 or a.type.rank == 1
        norm = axis % a.type.rank
        if keep:
            shape = (*a.type.shape[:norm], 1, *a.type.shape[norm + 1 :])
        else:
            shape = (*a.type.shape[:norm], *a.type.shape[norm + 1 :])
        result = Tensor(shape, a.type.dtype)
        kind = self.rng.choice(["sum", "max"])
        attrs = f"axis = {axis}" + (", keepdims = true" if keep else "")
        text = self.call_line(f"tf.reduce.{kind}<{attrs}>", [a], result)
        return self.value_op(text, result, [a])

    def _matmul(self) -> Value | None:
        candidates = [
            v
            for v in self.tensor_values()
            if v.type.rank >= 2 and v.type.shape[-1] is not None  # type: ignore[union-attr]
        ]
        if not candidates:
            a = self.constant(Tensor(self.rng.choice([(2, 3), (3, 2), (2, 2)]), self.gen.dtype()))
        else:
            a = self.rng.choice(candidates)
        assert isinstance(a.type, Tensor)
        k = a.type.shape[-1]
        assert isinstance(k, int)
        n = self.rng.randint(1, 3)
        rhs_type = Tensor((k, n), a.type.dtype)
        same = [v for v in self.tensor_values() if v.type == rhs_type]
        b = self.rng.choice(same) if same and self.rng.random() < 0.5 else self.constant(rhs_type)
        result = Tensor((*a.type.shape[:-1], n), a.type.dtype)
        text = self.call_line("tf.linalg.matmul", [a, b], result)
        return self.value_op(text, result, [a, b])

    def _transpose(self) -> Value | None:
        a = self.pick_tensor()
        assert isinstance(a.type, Tensor)
        perm = list(range(a.type.rank))
        self.rng.shuffle(perm)
        result = Tensor(tuple(a.type.shape[p] for p in perm), a.type.dtype)
        text = self.call_line(f"tf.linalg.transpose<perm = [{', '.join(map(str, perm))}]>",
                              [a], result)  # fmt: skip
        return self.value_op(text, result, [a])

    def _split(self) -> Value | None:
        picked = self._static_axis()
        if picked is None:
            return None
        a, axis, size = picked
        assert isinstance(a.type, Tensor)
        sections = self.rng.choice([s for s in range(1, size + 1) if size % s == 0])
        part = Tensor((*a.type.shape[:axis], size // sections, *a.type.shape[axis + 1 :]),
                      a.type.dtype)  # fmt: skip
        result = Tuple((part,) * sections)
        shown_axis = self._shown_axis(axis, a.type.rank)
        text = self.call_line(f"tf.shape.split<axis = {shown_axis}, sections = {sections}>",
                              [a], result)  # fmt: skip
        t = self.value_op(text, result, [a])
        return self._get_item(t)

    def _tuple(self) -> Value | None:
        values = self.readable()
        count = self.rng.randint(1, 3)
        if not values:
            return None
        elements = [self.rng.choice(values) for _ in range(count)]
        if not all(isinstance(e.type, Tensor) for e in elements):
            return None
        t = self.tuple_op(elements)
        if self.rng.random() < 0.8:
            return self._get_item(t)
        return t

    def _get_item(self, t: Value, index: int | None = None) -> Value:
        assert isinstance(t.type, Tuple)
        count = len(t.type.fields)
        if index is None:
            index = self.rng.randint(-count, count - 1)
        result = t.type.fields[index]
        text = self.call_line(f"tf.tuple.get_item<index = {index}>", [t], result)
        return self.value_op(text, result, [t])

    # the tensor and nn ops (tilefoundry/ops/tensor.py, nn.py)

    def _pick_static(self, pred: Any = None) -> Value:
        """A static tensor in scope (matching `pred`), else a new constant."""
        values = [v for v in self.tensor_values(dynamic=False) if pred is None or pred(v.type)]
        if values and self.rng.random() < 0.8:
            return values[-min(len(values), self.rng.randint(1, 3))]
        dtypes = [d for d in ALL_DTYPES if pred is None or pred(Tensor((1,), d))]
        return self.constant(Tensor(self.rng.choice(STATIC_SHAPES), self.rng.choice(dtypes)))

    def _float_op(self) -> Value | None:
        """`tf.nn.activation` (every kind), `tf.nn.softmax`, `tf.reduce.mean` on a float."""
        a = self.pick_tensor()
        assert isinstance(a.type, Tensor)
        if a.type.dtype not in FLOAT_DTYPES:
            return None
        choice = self.rng.choice(["activation", "activation", "softmax", "mean"])
        axis = self.rng.randint(-a.type.rank, a.type.rank - 1)
        if choice == "activation":
            kind = self.rng.choice(ACTIVATION_KINDS)
            text = self.call_line(f"tf.nn.activation<kind = {kind}>", [a], a.type)
            return self.value_op(text, a.type, [a])
        if choice == "softmax":
            text = self.call_line(f"tf.nn.softmax<axis = {axis}>", [a], a.type)
            return self.value_op(text, a.type, [a])
        keep = self.rng.random() < 0.4 or a.type.rank == 1
        norm = axis % a.type.rank
        kept: tuple[int | None, ...] = (1,) if keep else ()
        result = Tensor((*a.type.shape[:norm], *kept, *a.type.shape[norm + 1 :]), a.type.dtype)
        attrs = f"axis = {axis}" + (", keepdims = true" if keep else "")
        text = self.call_line(f"tf.reduce.mean<{attrs}>", [a], result)
        return self.value_op(text, result, [a])

    def _cumsum(self) -> Value | None:
        a = self.pick_tensor()
        assert isinstance(a.type, Tensor)
        if a.type.dtype == "i1":
            return None
        axis = self.rng.randint(-a.type.rank, a.type.rank - 1)
        text = self.call_line(f"tf.reduce.cumsum<axis = {axis}>", [a], a.type)
        return self.value_op(text, a.type, [a])

    def _logical(self) -> Value | None:
        a = self.pick_tensor()
        assert isinstance(a.type, Tensor)
        if a.type.dtype != "i1":
            return None
        kind = self.rng.choice(["and", "or", "xor", "not"])
        if kind == "not":
            text = self.call_line("tf.logic.not", [a], a.type)
            return self.value_op(text, a.type, [a])
        same = [v for v in self.tensor_values() if v.type == a.type]
        b = self.rng.choice(same)
        text = self.call_line(f"tf.logic.binary<kind = {kind}>", [a, b], a.type)
        return self.value_op(text, a.type, [a, b])

    def _where(self) -> Value | None:
        a = self.pick_tensor()
        assert isinstance(a.type, Tensor)
        conds = [v for v in self.tensor_values() if v.type == a.type.with_dtype("i1")]
        if conds and self.rng.random() < 0.7:
            c = self.rng.choice(conds)
        elif a.type.dynamic:
            return None
        else:
            c = self.constant(a.type.with_dtype("i1"))
        same = [v for v in self.tensor_values() if v.type == a.type]
        b = self.rng.choice(same)
        lhs, rhs = (a, b) if self.rng.random() < 0.5 else (b, a)
        text = self.call_line("tf.tensor.where", [c, lhs, rhs], a.type)
        return self.value_op(text, a.type, [c, lhs, rhs])

    def _reshape(self) -> Value | None:
        dynamic = [v for v in self.tensor_values(dynamic=True) if v.type.rank >= 1]  # type: ignore[union-attr]
        if dynamic and self.rng.random() < 0.5:
            return self._reshape_keeping(self.rng.choice(dynamic))
        a = self._pick_static()
        assert isinstance(a.type, Tensor)
        count = math.prod(_static(a.type.shape))
        shapes = [s for s in STATIC_SHAPES + ((count,),) if math.prod(s) == count]
        shape = self.rng.choice(shapes)
        shown = list(shape)
        if self.rng.random() < 0.4:
            shown[self.rng.randrange(len(shown))] = -1
        result = Tensor(shape, a.type.dtype)
        text = self.call_line(f"tf.tensor.reshape<shape = {shown}>", [a], result)
        return self.value_op(text, result, [a])

    def _reshape_keeping(self, a: Value) -> Value | None:
        """`tf.tensor.reshape` with `dims` of a dynamic tensor: its DimVar dim kept (a `-1`
        entry), the static dims' elements regrouped around it."""
        assert isinstance(a.type, Tensor)
        shape = a.type.shape
        axis = shape.index(None)
        count = math.prod(d for d in shape if d is not None)
        groups = [s for s in STATIC_SHAPES + ((count,), ()) if math.prod(s) == count]
        before = list(self.rng.choice(groups))
        after: list[int] = []
        if before and self.rng.random() < 0.5:
            cut = self.rng.randint(0, len(before))
            before, after = before[:cut], before[cut:]
        target: list[int | None] = [*before, None, *after]
        shown = [-1 if d is None else d for d in target]
        result = Tensor(tuple(target), a.type.dtype)
        text = self.call_line(f"tf.tensor.reshape<shape = {shown}, dims = [{axis}]>", [a], result)
        return self.value_op(text, result, [a])

    def _window(self) -> Value | None:
        """`tf.nn.conv` (1-d or 2-d, stride, padding, dilation, groups) on a static float
        tensor, or `tf.nn.pool` (max or avg) over the trailing dims of a float tensor whose
        leading dims may be dynamic."""
        rng = self.rng
        n = rng.randint(1, 2)
        if rng.random() < 0.4:
            return self._conv(n)
        floats = [
            v
            for v in self.tensor_values()
            if v.type.dtype in FLOAT_DTYPES  # type: ignore[union-attr]
            and v.type.rank > n  # type: ignore[union-attr]
            and None not in v.type.shape[-n:]  # type: ignore[union-attr]
        ]
        if floats and rng.random() < 0.7:
            a = rng.choice(floats)
        else:
            shape = (rng.randint(1, 2), *(rng.randint(2, 5) for _ in range(n)))
            a = self.constant(Tensor(shape, rng.choice(FLOAT_DTYPES)))
        assert isinstance(a.type, Tensor)
        spatial = _static(a.type.shape[-n:])
        kind = rng.choice(["max", "avg"])
        kernel = [rng.randint(1, min(3, s)) for s in spatial]
        stride = [rng.randint(1, 2) for _ in range(n)]
        padding = [rng.randint(0, k // 2) for k in kernel]
        dilation = [1] * n
        if kind == "max" and rng.random() < 0.3:
            dilation = [rng.randint(1, 2) if s + 2 * p >= 2 * k else 1
                        for s, p, k in zip(spatial, padding, kernel, strict=True)]  # fmt: skip
        out = [(s + 2 * p - d * (k - 1) - 1) // st + 1
               for s, p, d, k, st in zip(spatial, padding, dilation, kernel, stride, strict=True)]  # fmt: skip
        attrs = f"kind = {kind}, kernel = {kernel}, stride = {stride}, padding = {padding}"
        if any(d != 1 for d in dilation):
            attrs += f", dilation = {dilation}"
        if kind == "avg" and rng.random() < 0.4:
            attrs += ", count_include_pad = false"
        result = Tensor((*a.type.shape[:-n], *out), a.type.dtype)
        text = self.call_line(f"tf.nn.pool<{attrs}>", [a], result)
        return self.value_op(text, result, [a])

    def _conv(self, n: int) -> Value | None:
        rng = self.rng
        candidates = [
            v
            for v in self.tensor_values(dynamic=False)
            if v.type.dtype in FLOAT_DTYPES and v.type.rank == n + 2  # type: ignore[union-attr]
        ]
        if candidates and rng.random() < 0.7:
            a = rng.choice(candidates)
        else:
            shape = (
                rng.randint(1, 2),
                rng.choice([1, 2, 4]),
                *(rng.randint(2, 5) for _ in range(n)),
            )
            a = self.constant(Tensor(shape, rng.choice(FLOAT_DTYPES)))
        assert isinstance(a.type, Tensor)
        batch, channels, *spatial = _static(a.type.shape)
        groups = rng.choice([g for g in (1, 2) if channels % g == 0])
        out_channels = groups * rng.randint(1, 2)
        kernel = [rng.randint(1, min(3, s)) for s in spatial]
        stride = [rng.randint(1, 2) for _ in range(n)]
        padding = [rng.randint(0, 1) for _ in range(n)]
        dilation = [rng.randint(1, 2) if s + 2 * p >= 2 * k else 1
                    for s, p, k in zip(spatial, padding, kernel, strict=True)]  # fmt: skip
        out = [(s + 2 * p - d * (k - 1) - 1) // st + 1
               for s, p, d, k, st in zip(spatial, padding, dilation, kernel, stride, strict=True)]  # fmt: skip
        w = self.constant(Tensor((out_channels, channels // groups, *kernel), a.type.dtype))
        attrs = f"stride = {stride}, padding = {padding}"
        if any(d != 1 for d in dilation):
            attrs += f", dilation = {dilation}"
        if groups != 1:
            attrs += f", groups = {groups}"
        result = Tensor((batch, out_channels, *out), a.type.dtype)
        text = self.call_line(f"tf.nn.conv<{attrs}>", [a, w], result)
        return self.value_op(text, result, [a, w])

    def _topk(self) -> Value | None:
        """`tf.tensor.topk` along a static axis (any dtype; the other dims may be dynamic), then
        one of its two results."""
        picked = self._static_axis()
        if picked is None:
            return None
        a, axis, size = picked
        assert isinstance(a.type, Tensor)
        k = self.rng.randint(1, size)
        largest = self.rng.random() < 0.7
        attrs = f"k = {k}, axis = {self._shown_axis(axis, a.type.rank)}"
        if not largest:
            attrs += ", largest = false"
        shape = (*a.type.shape[:axis], k, *a.type.shape[axis + 1 :])
        pair = Tuple((Tensor(shape, a.type.dtype), Tensor(shape, "i64")))
        text = self.call_line(f"tf.tensor.topk<{attrs}>", [a], pair)
        t = self.value_op(text, pair, [a])
        return self._get_item(t)

    def _broadcast_to(self) -> Value | None:
        a = self._pick_static()
        assert isinstance(a.type, Tensor)
        dims = [self.rng.randint(1, 3) if d == 1 else d for d in _static(a.type.shape)]
        shown: list[int] = [self.rng.choice([-1, d]) if d == a.type.shape[i] else d
                            for i, d in enumerate(dims)]  # fmt: skip
        if self.rng.random() < 0.4:
            lead = self.rng.randint(1, 3)
            dims, shown = [lead, *dims], [lead, *shown]
        result = Tensor(tuple(dims), a.type.dtype)
        text = self.call_line(f"tf.tensor.broadcast_to<shape = {shown}>", [a], result)
        return self.value_op(text, result, [a])

    def _pick_axis(self) -> tuple[Value, Tensor, int]:
        """A static tensor (`_pick_static`), its type and a random axis of it."""
        a = self._pick_static()
        assert isinstance(a.type, Tensor)
        return a, a.type, self.rng.randrange(len(a.type.shape))

    def _static_axis(self) -> tuple[Value, int, int] | None:
        """A tensor, one of its static axes and that axis's size (None when it has none)."""
        a = self.pick_tensor()
        assert isinstance(a.type, Tensor)
        axes = [i for i, d in enumerate(a.type.shape) if d is not None]
        if not axes:
            return None
        axis = self.rng.choice(axes)
        size = a.type.shape[axis]
        assert isinstance(size, int)
        return a, axis, size

    def _shown_axis(self, axis: int, rank: int) -> int:
        """`axis` as the op's text gives it: sometimes counted from the end."""
        return axis - rank if self.rng.random() < 0.3 else axis

    def _slice(self) -> Value | None:
        a, type, axis = self._pick_axis()
        size = _static(type.shape)[axis]
        start = self.rng.randint(0, size - 1)
        stop = self.rng.randint(start + 1, size)
        step = self.rng.randint(1, 3)
        new = len(range(start, stop, step))
        attrs = f"axis = {self._shown_axis(axis, type.rank)}, start = {start}, stop = {stop}"
        if step != 1:
            attrs += f", step = {step}"
        result = _resized(type, axis, new)
        text = self.call_line(f"tf.tensor.slice<{attrs}>", [a], result)
        return self.value_op(text, result, [a])

    def _concat(self) -> Value | None:
        a, type, axis = self._pick_axis()
        parts = [a]
        for _ in range(self.rng.randint(0, 2)):
            part = _resized(type, axis, self.rng.randint(1, 3))
            same = [v for v in self.tensor_values() if v.type == part]
            parts.append(self.rng.choice(same) if same else self.constant(part))
        self.rng.shuffle(parts)
        t = self.tuple_op(parts)
        sizes: list[int] = [_static(p.type.shape)[axis] for p in parts]  # type: ignore[union-attr]
        total = sum(sizes)
        result = _resized(type, axis, total)
        text = self.call_line(
            f"tf.tensor.concat<axis = {self._shown_axis(axis, type.rank)}>", [t], result
        )
        return self.value_op(text, result, [t])

    def _iota_full(self) -> Value | None:
        """`tf.tensor.iota` (start, step, any dtype but i1) or `tf.tensor.full` (any dtype)."""
        rng = self.rng
        if rng.random() < 0.5:
            dtype = rng.choice([d for d in ALL_DTYPES if d != "i1"])
            size = rng.randint(1, 6)
            attrs = f"start = {rng.randint(-3, 3)}, step = {rng.randint(-2, 3)}, size = {size}"
            text = self.call_line(f'tf.tensor.iota<{attrs}, dtype = "{dtype}">', [],
                                  Tensor((size,), dtype))  # fmt: skip
            return self.value_op(text, Tensor((size,), dtype), [])
        dtype = self.gen.dtype()
        shape = rng.choice(STATIC_SHAPES)
        if dtype == "i1":
            value = rng.choice(["0.0", "1.0"])
        elif dtype in INT_DTYPES:
            value = rng.choice(["0.0", "1.0", "-2.0", "7.0"])
        else:
            value = rng.choice(["0.0", "1.5", "-0.75", "2.0", "0.125"])
        attrs = f'shape = {list(shape)}, value = {value}, dtype = "{dtype}"'
        text = self.call_line(f"tf.tensor.full<{attrs}>", [], Tensor(shape, dtype))
        return self.value_op(text, Tensor(shape, dtype), [])

    def ops(self, count: int) -> None:
        for _ in range(count):
            self.op()

    def last_value(self) -> Value:
        values = self.readable()
        return values[-1] if values else self.pick_tensor()


def _nested(lit: Literals, dtype: str, shape: tuple[int, ...], elements: list[Any]) -> str:
    """A dense literal's nested list text."""
    if not shape:
        return lit.text(dtype, elements[0])
    if len(shape) == 1:
        return "[" + ", ".join(lit.text(dtype, e) for e in elements) + "]"
    step = len(elements) // shape[0]
    parts = [
        _nested(lit, dtype, shape[1:], elements[i * step : (i + 1) * step]) for i in range(shape[0])
    ]
    return "[" + ", ".join(parts) + "]"


def _static(shape: tuple[int | None, ...]) -> tuple[int, ...]:
    dims = tuple(d for d in shape if d is not None)
    assert len(dims) == len(shape), f"a literal has a static shape, got {shape}"
    return dims


def _resized(type: Tensor, axis: int, size: int) -> Tensor:
    """A static `type` with `size` elements along `axis`."""
    shape = _static(type.shape)
    return Tensor((*shape[:axis], size, *shape[axis + 1 :]), type.dtype)


def _broadcast(a: tuple[int | None, ...], b: tuple[int | None, ...]) -> tuple[int | None, ...]:
    rank = max(len(a), len(b))
    left = (1,) * (rank - len(a)) + a
    right = (1,) * (rank - len(b)) + b
    return tuple(x if y == 1 else y for x, y in zip(left, right, strict=True))


# --- functions and modules ------------------------------------------------------------------


@dataclass
class _Module:
    path: tuple[str, ...]
    lines: list[str] = field(default_factory=list)
    children: list[_Module] = field(default_factory=list)
    has_levels: bool = True
    entry: str | None = None


class _Generator:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.literals = Literals(self.rng)
        self.functions: list[Signature] = []
        self.runs: list[RunCase] = []
        self.counter = 0
        self.written: set[int] = set()
        self.history: list[tuple[str, Type, list[Value]]] = []
        self.main_dtype = "f32"
        self.buffer_types = [
            Tensor(self.rng.choice(STATIC_SHAPES), self.rng.choice(ALL_DTYPES)) for _ in range(2)
        ]
        """The types of the program's buffers: a few, so that kernels can pass them on."""

    def dtype(self) -> str:
        """The function's main dtype, most of the time (ops need operands of one dtype)."""
        return self.main_dtype if self.rng.random() < 0.6 else self.rng.choice(ALL_DTYPES)

    def start_function(self) -> None:
        self.written = set()
        self.history = []
        self.main_dtype = self.rng.choice(ALL_DTYPES)

    def fresh(self) -> str:
        self.counter += 1
        return f"v{self.counter}"

    # inputs

    def input(self, type: Type) -> Any:
        if isinstance(type, Tuple):
            return tuple(self.input(f) for f in type.fields)
        if isinstance(type, Buffer):  # a writeable array of the exact dtype
            return self.input(type.tensor)
        shape = tuple(DIM_LO if d is None else d for d in type.shape)
        count = int(np.prod(shape)) if shape else 1
        return Literals.array(type.dtype, shape, self.literals.elements(type.dtype, count))

    def dynamic_input(self, type: Tensor, n: int) -> Any:
        shape = tuple(n if d is None else d for d in type.shape)
        count = int(np.prod(shape)) if shape else 1
        return Literals.array(type.dtype, shape, self.literals.elements(type.dtype, count))

    # the tree

    def program(self) -> GeneratedProgram:
        rng = self.rng
        root = _Module(())
        modules = [root]
        for i in range(rng.randint(0, 2)):
            parent = rng.choice(modules)
            child = _Module((*parent.path, f"c{i}"), has_levels=parent.has_levels)
            if rng.random() < 0.2:
                child.has_levels = False
            parent.children.append(child)
            modules.append(child)
        for _ in range(rng.randint(1, 4)):
            module = rng.choice(modules)
            if rng.random() < 0.5:
                self.hir_function(module)
            else:
                self.prim_function(module)
        if rng.random() < 0.3:
            module = rng.choice(modules)
            self.variants_function(module)
            self.dynamic_caller(modules, module, "hir")
        if rng.random() < 0.3:
            module = rng.choice(modules)
            self.dispatch_group(module)
            self.dynamic_caller(modules, module, "tir")
        main = self.hir_function(root, name="main") if rng.random() < 0.6 else None
        if main is None:
            self.prim_function(root, name="main")
        for module in modules[1:]:
            own = [f for f in self.functions if f.path == module.path]
            if own and rng.random() < 0.5:
                module.entry = rng.choice(own).name
        text = self.module_text(root, 0)
        return GeneratedProgram(self.seed, text, self.runs, self.functions)

    def module_text(self, module: _Module, indent: int) -> str:
        pad = "  " * indent
        if not module.path:
            head = (
                'tf.module @m target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>, '
                '#tf.topology<"warp", 4>] entry @main {'
            )
        else:
            head = f"tf.module @{module.path[-1]}"
            if not module.has_levels:
                head += " topologies []"
            if module.entry is not None:
                head += f" entry @{module.entry}"
            head += " {"
        lines = [pad + head]
        lines += ["  " * indent + line for line in module.lines]
        for child in module.children:
            lines.append(self.module_text(child, indent + 1))
        lines.append(pad + "}")
        return "\n".join(lines)

    def callable_from(self, module: _Module, level: str, in_mesh: bool) -> list[Signature]:
        found = []
        for f in self.functions:
            if f.level != level or f.dynamic or f.path[: len(module.path)] != module.path:
                continue
            if f.has_mesh and not module.has_levels:
                continue
            found.append(f)
        return found

    @staticmethod
    def reference(caller: _Module, callee: Signature) -> str:
        rest = callee.path[len(caller.path) :]
        return "::".join(f"@{p}" for p in (*rest, callee.name))

    def name_for(self, module: _Module, prefix: str) -> str:
        taken = {f.name for f in self.functions if f.path == module.path}
        index = 0
        while f"{prefix}{index}" in taken:
            index += 1
        return f"{prefix}{index}"

    def params(self, count: int) -> list[Type]:
        types: list[Type] = []
        for _ in range(count):
            if types and self.rng.random() < 0.3:
                types.append(self.rng.choice(types))
            else:
                types.append(Tensor(self.rng.choice(STATIC_SHAPES), self.dtype()))
        return types

    # HIR

    def hir_function(self, module: _Module, name: str | None = None) -> Signature:
        rng = self.rng
        name = name or self.name_for(module, "f")
        self.start_function()
        params = self.params(rng.randint(0, 3))
        scope = [Value(f"p{i}", t) for i, t in enumerate(params)]
        body = _Body(self, scope, 2, "hir")
        signature = Signature(module.path, name, "hir", params, None)
        for _ in range(rng.randint(1, 6)):
            roll = rng.random()
            if roll < 0.15:
                self.hir_call(body, module, in_mesh=False)
            elif roll < 0.3 and module.has_levels:
                self.mesh(body, module, "cta" if rng.random() < 0.7 else "warp")
                signature.has_mesh = True
            else:
                body.op()
        result = body.last_value() if rng.random() < 0.85 else None
        if result is not None and rng.random() < 0.15:
            others = [v for v in body.readable() if isinstance(v.type, Tensor)]
            pair = [result, rng.choice(others)] if others else [result]
            if all(isinstance(v.type, Tensor) for v in pair):
                t = Tuple(tuple(v.type for v in pair))  # type: ignore[misc]
                tname = self.fresh()
                body.emit(
                    f"%{tname} = tf.tuple {', '.join('%' + v.name for v in pair)} : {t.text()}"
                )
                result = Value(tname, t)
        called = self.close_function(module, signature, body, result, "hir.func", "hir.return")
        signature.has_mesh = signature.has_mesh or any(f.has_mesh for f in called)
        return signature

    def close_function(
        self,
        module: _Module,
        signature: Signature,
        body: _Body,
        result: Value | None,
        func_op: str,
        return_op: str,
    ) -> list[Signature]:
        """Write the function (`func_op`, its body, `return_op`) into `module`, record its
        signature and a run of it; the functions its body calls are returned."""
        signature.result = result.type if result is not None else None
        called = [f for f in self.functions if self._called(body, f, module)]
        params = signature.params
        head = ", ".join(f"%p{i}: {t.text()}" for i, t in enumerate(params))
        result_text = "()" if result is None else result.type.text()
        lines = [f"  {func_op} @{signature.name}({head}) -> {result_text} {{", *body.lines]
        signature.bf16 = "bf16" in "".join(lines) or any(f.bf16 for f in called)
        lines.append(
            f"    {return_op}"
            if result is None
            else f"    {return_op} %{result.name} : {result_text}"
        )
        lines.append("  }")
        module.lines += lines
        self.functions.append(signature)
        self.runs.append(RunCase(".".join((*module.path, signature.name)),
                                 tuple(self.input(t) for t in params)))  # fmt: skip
        return called

    @staticmethod
    def _called(body: _Body, f: Signature, module: _Module) -> bool:
        ref = _Generator.reference(module, f)
        return any(f"tf.call {ref}(" in line for line in body.lines)

    def hir_call(self, body: _Body, module: _Module, in_mesh: bool) -> None:
        found = self.callable_from(module, "hir", in_mesh)
        callees = [f for f in found if f.result is not None]
        if self.rng.random() < 0.3:  # a call of a function of no value, when there is one
            callees = [f for f in found if f.result is None] or callees
        if not callees:
            body.op()
            return
        callee = self.rng.choice(callees)
        args = [self.argument(body, t) for t in callee.params]
        if callee.result is None:  # a statement of no value (tf-lower: a tir.evaluate)
            body.emit(body.call_line(self.reference(module, callee), args, None))
            return
        text = body.call_line(self.reference(module, callee), args, callee.result)
        # a call made again may land in a mesh: only of a function without meshes
        body.value_op(text, callee.result, args, repeatable=not callee.has_mesh)

    def argument(self, body: _Body, type: Type) -> Value:
        same = [v for v in body.readable() if v.type == type]
        if same and self.rng.random() < 0.7:
            return self.rng.choice(same)
        if isinstance(type, Tuple):
            elements = [self.argument(body, f) for f in type.fields]
            return body.tuple_op(elements)
        assert isinstance(type, Tensor), "a buffer argument is chosen by tir_call"
        return body.constant(type)

    def mesh(self, body: _Body, module: _Module, level: str) -> None:
        inner = _Body(self, body.scope, body.indent + 1, "hir")
        for _ in range(self.rng.randint(1, 3)):
            roll = self.rng.random()
            if roll < 0.2:
                self.hir_call(inner, module, in_mesh=True)
            elif roll < 0.35 and level == "cta":
                self.mesh(inner, module, "warp")
            else:
                inner.op()
        made = [v for v in inner.scope if v not in body.scope and isinstance(v.type, Tensor)]
        if not made or self.rng.random() < 0.1:
            result = None
        else:
            result = made[-1]
        name = self.fresh()
        pad = "  " * body.indent
        if result is None:
            body.lines.append(f'{pad}tf.mesh "{level}" {{')
            body.lines += inner.lines
            body.lines.append(f"{pad}  tf.yield")
            body.lines.append(f"{pad}}}")
            return
        body.lines.append(f'{pad}%{name} = tf.mesh "{level}" {{')
        body.lines += inner.lines
        body.lines.append(f"{pad}  tf.yield %{result.name} : {result.type.text()}")
        body.lines.append(f"{pad}}} : {result.type.text()}")
        body.scope.append(Value(name, result.type, literal=result.literal, reads=result.reads))

    # TIR

    def prim_function(self, module: _Module, name: str | None = None) -> Signature:
        rng = self.rng
        name = name or self.name_for(module, "k")
        self.start_function()
        params: list[Type] = [
            Buffer(rng.choice(self.buffer_types)) if rng.random() < 0.5 else t
            for t in self.params(rng.randint(1, 4))
            if isinstance(t, Tensor)
        ]
        scope = [
            Value(f"p{i}", t, param=i, reads=frozenset({i}), buffer=i)
            if isinstance(t, Buffer)
            else Value(f"p{i}", t, param=i)
            for i, t in enumerate(params)
        ]
        body = _Body(self, scope, 2, "tir")
        signature = Signature(module.path, name, "tir", list(params), None)
        if any(isinstance(t, Buffer) for t in params) and rng.random() < 0.5:
            self.copy_statement(body)  # a kernel that writes its caller's memory
        for _ in range(rng.randint(1, 6)):
            roll = rng.random()
            if roll < 0.1:
                self.read_write_read(body, module)
            elif roll < 0.15:
                self.alloc(body)
            elif roll < 0.3:
                self.copy_statement(body)
            elif roll < 0.35:
                self.tir_call(body, module)
            elif roll < 0.5:
                self.let_block(body, module)
            else:
                body.op()
        result = None
        if rng.random() < 0.8:
            candidates = body.readable(lambda v: isinstance(v.type, Tensor))
            if candidates:
                result = candidates[-1]
        signature.writes = {w for w in self.written if w >= 0}
        self.close_function(module, signature, body, result, "tir.prim_func", "tir.return")
        self.written = set()
        return signature

    def _mark_written(self, body: _Body, param: int) -> None:
        self.written.add(param)

    def alloc(self, body: _Body, type: Tensor | None = None) -> Value:
        """`tir.let` of a `tf.memory.alloc`: a fresh buffer of zeros."""
        type = type or self.rng.choice(self.buffer_types)
        shape = ", ".join(str(d) for d in type.shape)
        name = self.fresh()
        buffer = Buffer(type)
        body.emit(
            f"%{name} = tir.let tf.call tf.memory.alloc<shape = [{shape}], dtype = {type.dtype}>() "
            f": () -> {buffer.text()}"
        )
        value = Value(name, buffer, reads=frozenset({-self.counter}), buffer=-self.counter)
        body.scope.append(value)
        return value

    def copy_statement(self, body: _Body) -> None:
        """`tir.evaluate` of a copy into a buffer (a parameter, or an allocation), of a tensor
        of its type (computed in the statement's own body, sometimes) or of another buffer."""
        rng = self.rng
        targets = [v for v in body.scope if isinstance(v.type, Buffer)]
        if not targets:
            targets = [self.alloc(body)]
        dst = rng.choice(targets)
        assert isinstance(dst.type, Buffer)
        if rng.random() < 0.4:
            inner = _Body(self, body.scope, body.indent + 1, "hir")
            for _ in range(rng.randint(1, 2)):
                inner.op()
            src = self.source(inner, dst)
            pad = "  " * body.indent
            body.lines.append(f"{pad}tir.evaluate {{")
            body.lines += inner.lines
            body.lines.append(f"{pad}  {inner.call_line('tf.memory.copy', [dst, src], None)}")
            body.lines.append(f"{pad}  tir.yield")
            body.lines.append(f"{pad}}}")
        else:
            src = self.source(body, dst)
            body.emit(f"tir.evaluate {body.call_line('tf.memory.copy', [dst, src], None)}")
        assert dst.buffer is not None
        self._mark_written(body, dst.buffer)

    def source(self, body: _Body, dst: Value) -> Value:
        """What a copy into `dst` reads: another buffer of its type, sometimes, else a tensor."""
        others = body.readable(lambda v: v.type == dst.type and v is not dst)
        if others and self.rng.random() < 0.2:
            return self.rng.choice(others)
        assert isinstance(dst.type, Buffer)
        return self.same_type(body, dst.type.tensor)

    def read_write_read(self, body: _Body, module: _Module) -> None:
        """A load of a buffer (and an op on it), a write of the buffer (a copy, or a kernel
        call), the same load and op again: the second must see the write (while
        `read_after_write` is a known bug, it is left out)."""
        buffers = body.readable(lambda v: isinstance(v.type, Buffer))
        if not buffers:
            buffers = [self.alloc(body)]
        buffer = self.rng.choice(buffers)
        assert isinstance(buffer.type, Buffer)
        loaded = body.load(buffer)
        read = self._read_of(body, loaded)
        entry = self.history[-1] if read is not None else None
        if buffer.param is not None and self.rng.random() < 0.3:
            self.tir_call(body, module)
        else:
            src = self.source(body, buffer)
            body.emit(f"tir.evaluate {body.call_line('tf.memory.copy', [buffer, src], None)}")
            assert buffer.buffer is not None
            self._mark_written(body, buffer.buffer)
        if buffer not in body.readable():
            return
        again = body.load(buffer)
        if entry is not None:
            text, result, _ = entry
            text = re.sub(rf"%{loaded.name}(?![0-9A-Za-z_])", f"%{again.name}", text)
            body.value_op(text, result, [again])

    def _read_of(self, body: _Body, loaded: Value) -> Value | None:
        assert isinstance(loaded.type, Tensor)
        dtype = loaded.type.dtype
        if dtype == "i1":
            text = body.call_line("tf.math.binary<kind = cmp_ne>", [loaded, loaded],
                                  loaded.type)  # fmt: skip
        else:
            kind = self.rng.choice(UNARY_FLOAT if dtype in FLOAT_DTYPES else UNARY_INT)
            text = body.call_line(f"tf.math.unary<kind = {kind}>", [loaded], loaded.type)
        return body.value_op(text, loaded.type, [loaded])

    def same_type(self, body: _Body, type: Tensor) -> Value:
        same = [v for v in body.readable() if v.type == type]
        if same and self.rng.random() < 0.8:
            return self.rng.choice(same)
        # a value of the type from one of the body's values, else a constant
        made = body.op()
        if made is not None and made.type == type:
            return made
        return body.constant(type)

    def let_block(self, body: _Body, module: _Module) -> None:
        """A `tir.let` whose body holds several expressions (kernel calls too) and yields the
        last."""
        inner = _Body(self, body.scope, body.indent + 1, "hir")
        buffers = inner.readable(lambda v: isinstance(v.type, Buffer))
        steps = self.rng.randint(1, 3)
        if buffers and self.rng.random() < 0.6:  # a load, then maybe a call that writes it
            buffer = self.rng.choice(buffers)
            loaded = inner.load(buffer)
            if self.rng.random() < 0.6:
                self.tir_call(inner, module, in_statement=True, prefer=buffer, outer=body)
                called = inner.scope[-1]
                if called is not loaded and isinstance(called.type, Tensor):
                    # yield the load, after the call: (load, result)[0]
                    pair = Tuple((loaded.type, called.type))  # type: ignore[arg-type]
                    text = f"tf.tuple %{loaded.name}, %{called.name} : {pair.text()}"
                    t = inner.value_op(text, pair, [loaded, called], repeatable=False)
                    inner._get_item(t, index=0)
                    steps = 0
        for _ in range(steps):
            if self.rng.random() < 0.3:
                self.tir_call(inner, module, in_statement=True, outer=body)
            else:
                inner.op()
        made = [v for v in inner.scope if v not in body.scope]
        outer = body.readable(lambda v: isinstance(v.type, Tensor | Tuple))
        if outer and self.rng.random() < 0.15:  # an alias: tir.let { tir.yield %outer }
            inner.lines, made = [], [self.rng.choice(outer)]
        if not made:
            return
        result = made[-1]
        name = self.fresh()
        pad = "  " * body.indent
        body.lines.append(f"{pad}%{name} = tir.let -> {result.type.text()} {{")
        body.lines += inner.lines
        body.lines.append(f"{pad}  tir.yield %{result.name} : {result.type.text()}")
        body.lines.append(f"{pad}}}")
        body.scope.append(Value(name, result.type, literal=result.literal, reads=result.reads))

    def tir_call(
        self,
        body: _Body,
        module: _Module,
        in_statement: bool = False,
        prefer: Value | None = None,
        outer: _Body | None = None,
    ) -> None:
        """A call of a kernel: its written parameters get buffer parameters of the caller
        (each once, used nowhere else in the call), which are then written. In a statement's
        body (`in_statement`), a call with a result."""
        callees = self.callable_from(module, "tir", in_mesh=False)
        if in_statement:
            callees = [c for c in callees if c.result is not None]
        if prefer is not None:  # a kernel that writes this buffer, if there is one
            writers = [c for c in callees if any(c.params[i] == prefer.type for i in c.writes)]
            callees = writers or callees
        if not callees:
            body.op()
            return
        callee = self.rng.choice(callees)
        buffers: dict[int, Value] = {}
        for index, type in enumerate(callee.params):
            if not isinstance(type, Buffer):
                continue
            free = [v for v in body.readable() if v.type == type and v not in buffers.values()]
            if prefer in free and index in callee.writes:
                free = [prefer]
            if free:
                buffers[index] = self.rng.choice(free)
            elif in_statement:  # an allocation is a statement of its own
                body.op()
                return
            else:
                buffers[index] = self.alloc(body, type.tensor)
        written = {buffers[i].buffer for i in callee.writes}
        args: list[Value] = []
        for index, type in enumerate(callee.params):
            if index in buffers:
                args.append(buffers[index])
                continue
            if outer is not None and self.rng.random() < 0.7:
                # made before the statement: the call can be inlined
                arg = self.argument(outer, type)
                if arg not in body.scope:
                    body.scope.append(arg)
            else:
                arg = self.argument(body, type)
            args.append(arg)
        ref = self.reference(module, callee)
        if callee.result is None:
            body.emit(f"tir.evaluate {body.call_line(ref, args, None)}")
        else:
            text = body.call_line(ref, args, callee.result)
            body.value_op(text, callee.result, args, repeatable=not callee.writes)
        for buffer in written:
            assert buffer is not None
            self._mark_written(body, buffer)

    # dynamic shapes: variants and dispatch

    def dynamic_body(self, body: _Body, x: Value, steps: int) -> Value:
        """Elementwise, type-preserving ops on a dynamic value: the result has x's type."""
        current = x
        assert isinstance(x.type, Tensor)
        dtype = x.type.dtype
        for _ in range(steps):
            if self.rng.random() < 0.25:
                current = self.dynamic_window(body, current)
                continue
            if dtype == "i1":
                kind = self.rng.choice(["cmp_eq", "cmp_ne"])
                other = current
                text = body.call_line(f"tf.math.binary<kind = {kind}>", [current, other], x.type)
                current = body.value_op(text, x.type, [current, other])
                continue
            if self.rng.random() < 0.5:
                kinds = UNARY_FLOAT if dtype in FLOAT_DTYPES else UNARY_INT
                kind = self.rng.choice(kinds)
                text = body.call_line(f"tf.math.unary<kind = {kind}>", [current], x.type)
                current = body.value_op(text, x.type, [current])
            else:
                kind = self.rng.choice(["add", "sub", "mul", "max", "min"])
                if self.rng.random() < 0.5:
                    other = body.constant(Tensor((1,), dtype))
                else:
                    other = current
                text = body.call_line(f"tf.math.binary<kind = {kind}>", [current, other], x.type)
                current = body.value_op(text, x.type, [current, other])
        return current

    def dynamic_window(self, body: _Body, x: Value) -> Value:
        """A step that gives x's type back through the zoo's ops on a dynamic value: a
        `reshape` with `dims` there and back, a `topk` of the whole static axis (a sort), or a
        same-size `pool` (kernel 3, padding 1) of floats along the static last dim."""
        assert isinstance(x.type, Tensor)
        type = x.type
        choices = ["reshape"]
        static = [i for i, d in enumerate(type.shape) if d is not None]
        if static:
            choices.append("topk")
        if type.shape[-1] is not None and type.dtype in FLOAT_DTYPES:
            choices.append("pool")
        choice = self.rng.choice(choices)
        if choice == "reshape":
            axis = type.shape.index(None)
            wide = Tensor((*type.shape, 1), type.dtype)
            shown = [-1 if d is None else d for d in wide.shape]
            text = body.call_line(f"tf.tensor.reshape<shape = {shown}, dims = [{axis}]>", [x], wide)
            y = body.value_op(text, wide, [x])
            back = [-1 if d is None else d for d in type.shape]
            text = body.call_line(f"tf.tensor.reshape<shape = {back}, dims = [{axis}]>", [y], type)
            return body.value_op(text, type, [y])
        if choice == "topk":
            axis = self.rng.choice(static)
            size = type.shape[axis]
            largest = "" if self.rng.random() < 0.6 else ", largest = false"
            pair = Tuple((type, Tensor(type.shape, "i64")))
            text = body.call_line(f"tf.tensor.topk<k = {size}, axis = {axis}{largest}>", [x], pair)
            t = body.value_op(text, pair, [x])
            return body._get_item(t, 0)
        kind = self.rng.choice(["max", "avg"])
        extra = ", count_include_pad = false" if kind == "avg" and self.rng.random() < 0.5 else ""
        attrs = f"kind = {kind}, kernel = [3], stride = [1], padding = [1]{extra}"
        text = body.call_line(f"tf.nn.pool<{attrs}>", [x], type)
        return body.value_op(text, type, [x])

    def dynamic_type(self) -> Tensor:
        shape: tuple[int | None, ...] = self.rng.choice([(None,), (None, 2), (3, None)])
        return Tensor(shape, self.rng.choice(ALL_DTYPES))

    def dynamic_runs(self, path: str, type: Tensor, every: bool = False) -> None:
        """Runs at a few sizes of `n` (DIM_SPLIT among them), or at `every` size."""
        sizes = {self.rng.randint(DIM_LO, DIM_HI - 1) for _ in range(2)} | {DIM_SPLIT}
        for n in range(DIM_LO, DIM_HI) if every else sorted(sizes):
            self.runs.append(RunCase(path, (self.dynamic_input(type, n),)))

    def variants_function(self, module: _Module) -> None:
        name = self.name_for(module, "v")
        self.written = set()
        type = self.dynamic_type()
        x = Value("x", type)
        pad = "  "
        body = _Body(self, [x], 2, "hir")
        result = self.dynamic_body(body, x, self.rng.randint(0, 3))
        lines = [f"{pad}hir.func @{name}(%x: {type.text()}) -> {type.text()} {{", *body.lines,
                 f"{pad}  hir.return %{result.name} : {type.text()}", f"{pad}}} variants {{"]  # fmt: skip
        if self.rng.random() < 0.5:  # split at DIM_SPLIT, a side maybe left to the base
            ranges = [(DIM_LO, DIM_SPLIT), (DIM_SPLIT, DIM_HI)]
            ranges = [r for r in ranges if self.rng.random() >= 0.3]
        else:  # sub-ranges that may overlap (the first wins) or leave gaps (the base runs)
            ranges = []
            for _ in range(self.rng.randint(1, 3)):
                lo = self.rng.randint(DIM_LO, DIM_HI - 1)
                ranges.append((lo, self.rng.randint(lo + 1, DIM_HI)))
        for lo, hi in ranges:
            inner = _Body(self, [x], 3, "hir")
            got = self.dynamic_body(inner, x, self.rng.randint(0, 3))
            lines.append(f"{pad}  hir.variant [{DIM}: {lo} to {hi}] (%x: {type.text()}) {{")
            lines += inner.lines
            lines.append(f"{pad}    hir.return %{got.name} : {type.text()}")
            lines.append(f"{pad}  }}")
        lines.append(f"{pad}}}")
        module.lines += lines
        self.functions.append(Signature(module.path, name, "hir", [type], type, dynamic=True))
        self.dynamic_runs(".".join((*module.path, name)), type, every=True)

    def dispatch_group(self, module: _Module) -> None:
        type = self.dynamic_type()
        names = []
        for _ in range(2):
            name = self.name_for(module, "d")
            self.written = set()
            x = Value("x", type)
            body = _Body(self, [x], 2, "tir")
            result = self.dynamic_body(body, x, self.rng.randint(0, 3))
            module.lines += [
                f"  tir.prim_func @{name}(%x: {type.text()}) -> {type.text()} {{",
                *body.lines,
                f"    tir.return %{result.name} : {type.text()}",
                "  }",
            ]
            self.functions.append(Signature(module.path, name, "tir", [type], type, dynamic=True))
            names.append(name)
            self.dynamic_runs(".".join((*module.path, name)), type)
        name = self.name_for(module, "d")
        self.written = set()
        x = Value("x", type)
        body = _Body(self, [x], 2, "tir")
        y = self.fresh()
        body.emit(
            f"%{y} = tir.let tir.dispatch [@{names[0]}: [{DIM}: {DIM_LO} to {DIM_SPLIT}], "
            f"@{names[1]}: [{DIM}: {DIM_SPLIT} to {DIM_HI}]](%x) : ({type.text()}) -> {type.text()}"
        )
        result = self.dynamic_body(body, Value(y, type), self.rng.randint(0, 2))
        module.lines += [
            f"  tir.prim_func @{name}(%x: {type.text()}) -> {type.text()} {{",
            *body.lines,
            f"    tir.return %{result.name} : {type.text()}",
            "  }",
        ]
        self.functions.append(Signature(module.path, name, "tir", [type], type, dynamic=True))
        self.dynamic_runs(".".join((*module.path, name)), type)

    def dynamic_caller(self, modules: list[_Module], callee_module: _Module, level: str) -> None:
        """A function of the same dynamic type, in the callee's module or an ancestor, that
        calls the function just made (`tf-inline` moves a dispatch, or leaves variants)."""
        callee = self.functions[-1]
        assert isinstance(callee.result, Tensor)
        type = callee.result
        module = self.rng.choice(
            [m for m in modules if callee_module.path[: len(m.path)] == m.path]
        )
        name = self.name_for(module, "dc")
        self.start_function()
        x = Value("x", type)
        body = _Body(self, [x], 2, level)
        before = self.dynamic_body(body, x, self.rng.randint(0, 1))
        text = body.call_line(self.reference(module, callee), [before], type)
        called = body.value_op(text, type, [before])
        result = self.dynamic_body(body, called, self.rng.randint(0, 1))
        keyword, end = (
            ("hir.func", "hir.return") if level == "hir" else ("tir.prim_func", "tir.return")
        )
        module.lines += [
            f"  {keyword} @{name}(%x: {type.text()}) -> {type.text()} {{",
            *body.lines,
            f"    {end} %{result.name} : {type.text()}",
            "  }",
        ]
        self.functions.append(Signature(module.path, name, level, [type], type, dynamic=True))
        self.dynamic_runs(".".join((*module.path, name)), type)


def _has_dtype(type: Type | None, dtype: str) -> bool:
    if isinstance(type, Tuple):
        return any(_has_dtype(f, dtype) for f in type.fields)
    return isinstance(type, Tensor) and type.dtype == dtype


def generate_program(seed: int) -> GeneratedProgram:
    """The program of a seed (see the module docstring)."""
    return _Generator(seed).program()
