"""Every op's emission rule on every dtype it takes, over edge values: the cases the native
backend's op tests compile (all into one library) and compare with the interpreter.

A case is one `tir.prim_func` calling one op on its parameters, with inputs that hold each
dtype's edge values (`-0.0`, `±inf`, NaNs, denormals, the largest finite values, the integer
extremes, 0, ±1) and small plain values, laid out so that a binary op meets every pair.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from tilefoundry.testing.program_generator import (
    ALL_DTYPES,
    FLOAT_DTYPES,
    INT_DTYPES,
    Literals,
    _float_edges,
)

__all__ = ["Case", "all_cases", "module_text"]


@dataclass(frozen=True)
class Case:
    name: str
    params: tuple[str, ...]  # parameter types
    body: str  # the statements, using %a0, %a1, ...; the value returned is %r
    result: str  # its type ('' for none)
    args: tuple[Any, ...]

    def text(self) -> str:
        params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(self.params))
        if self.result:
            end = f"    tir.return %r : {self.result}"
            result = self.result
        else:
            end, result = "    tir.return", "()"
        return f"  tir.prim_func @{self.name}({params}) -> {result} {{\n{self.body}\n{end}\n  }}"


def tensor(shape: tuple[int | str, ...], dtype: str) -> str:
    dims = "".join(f"{'?' if d == 'n' else d}x" for d in shape)
    extra = ", #tf.dims<n: 0 to 300>" if "n" in shape else ""
    return f"tensor<{dims}{dtype}{extra}>"


def edge_values(dtype: str) -> list[Any]:
    """Every edge value of a dtype and a few plain ones, as the interpreter holds them."""
    if dtype == "i1":
        elements: list[Any] = [False, True]
    elif dtype in INT_DTYPES:
        width = int(dtype[1:])
        lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
        elements = [0, 1, -1, 2, -2, 3, 7, -7, lo, hi, lo + 1, hi - 1, 5]
    else:
        elements = list(_float_edges(dtype))
        for value in (0.5, -0.75, 2.0, 3.0, 1.5, -2.5, 0.1, 100.0, -1e4):
            elements.append(_bits(value, dtype))
    return list(Literals.array(dtype, (len(elements),), elements))


def _bits(value: float, dtype: str) -> int:
    if dtype == "f64":
        return int(np.array(value, np.float64).view(np.uint64))
    if dtype == "f32":
        return int(np.array(value, np.float32).view(np.uint32))
    if dtype == "f16":
        return int(np.array(value, np.float16).view(np.uint16))
    return int(np.array(value, np.float32).view(np.uint32)) >> 16


def values(dtype: str, count: int, seed: int = 0) -> Any:
    """`count` values of a dtype: its edge values first, then random ones of it."""
    edges = edge_values(dtype)
    rng = random.Random(seed)
    lit = Literals(rng)
    more = Literals.array(
        dtype, (max(count - len(edges), 0),), lit.elements(dtype, max(count - len(edges), 0))
    )
    holder = _holder(dtype)
    return np.concatenate([np.array(edges, dtype=holder), more.astype(holder)])[:count]


def _holder(dtype: str) -> Any:
    return {"i1": np.bool_, "bf16": np.float32}.get(dtype) or np.dtype(
        {"f16": "float16", "f32": "float32", "f64": "float64"}.get(dtype) or f"int{dtype[1:]}"
    )


def all_cases() -> list[Case]:
    cases: list[Case] = []
    count = 0

    def add(params: list[str], call: str, result: str, args: list[Any]) -> None:
        nonlocal count
        count += 1
        body = f"    %r = tir.let {call}" if result else f"    {call}"
        cases.append(Case(f"c{count}", tuple(params), body, result, tuple(args)))

    def call(op: str, operands: list[str], types: list[str], result: str) -> str:
        names = ", ".join(operands)
        return f"tf.call {op}({names}) : ({', '.join(types)}) -> {result or '()'}"

    # binary ops: every pair of values (a column against a row)
    binary = ["add", "sub", "mul", "div", "max", "min", "pow"]
    comparisons = ["cmp_eq", "cmp_ne", "cmp_lt", "cmp_le", "cmp_gt", "cmp_ge"]
    for dtype in ALL_DTYPES:
        edges = np.array(edge_values(dtype), dtype=_holder(dtype))
        e = len(edges)
        column, row = tensor((e, 1), dtype), tensor((e,), dtype)
        for kind in (binary if dtype != "i1" else []) + comparisons:
            rhs = edges
            if kind == "pow" and dtype in INT_DTYPES:
                rhs = np.array([0, 1, 2, 3, 5, 7, 8, 15, 31, 63, -1, -2, -3], dtype=_holder(dtype))[
                    :e
                ]
            out = tensor((e, e), "i1" if kind.startswith("cmp") else dtype)
            add([column, row], call(f"tf.math.binary<kind = {kind}>", ["%a0", "%a1"], [column, row], out),
                out, [edges.reshape(e, 1), rhs])  # fmt: skip
    # unary ops and activations
    for dtype in ALL_DTYPES:
        if dtype == "i1":
            continue
        x = values(dtype, 64)
        t = tensor((64,), dtype)
        kinds = ["neg", "abs", "relu"] + (
            ["exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid"] if dtype in FLOAT_DTYPES else []
        )
        for kind in kinds:
            add([t], call(f"tf.math.unary<kind = {kind}>", ["%a0"], [t], t), t, [x])
        if dtype in FLOAT_DTYPES:
            for kind in ("silu", "gelu", "gelu_tanh", "sin", "cos", "erf"):
                add([t], call(f"tf.nn.activation<kind = {kind}>", ["%a0"], [t], t), t, [x])
    # libm's functions on constants: calls at run time, not folded by opt with the compiler's
    # own (correctly rounded) versions (tanhf(0.125) is an ULP from glibc's)
    for dtype in ("f32", "f64"):
        t = tensor((4,), dtype)
        literal = ", ".join(f"0x{_bits(v, dtype):X}" for v in (0.125, 0.3, -1.7, 2.5))
        for kind in ("tanh", "exp", "log", "sin", "cos", "erf"):
            op = "tf.nn.activation" if kind in ("sin", "cos", "erf") else "tf.math.unary"
            body = (f"    %c = tir.let tf.constant dense<[{literal}]> : {t}\n"
                    f"    %r = tir.let {call(f'{op}<kind = {kind}>', ['%c'], [t], t)}")  # fmt: skip
            count += 1
            cases.append(Case(f"c{count}", (), body, t, ()))
    # casts: every pair of dtypes
    for src in ALL_DTYPES:
        x = values(src, 48, seed=1)
        t = tensor((48,), src)
        for dst in ALL_DTYPES:
            out = tensor((48,), dst)
            add([t], call(f"tf.math.cast<dtype = {dst}>", ["%a0"], [t], out), out, [x])
    # reductions, along each axis, with and without keepdims, rows of every pairwise shape
    for dtype in ALL_DTYPES:
        for shape, axis in (((3, 9), 1), ((9, 3), 0), ((2, 3, 4), 1), ((1, 7), -1), ((2, 8), 1),
                            ((2, 130), 1), ((300,), 0), ((2, 1000), 1), ((3, 0), 1), ((4,), 0)):  # fmt: skip
            size = math.prod(shape)
            x = values(dtype, size, seed=size).reshape(shape)
            t = tensor(shape, dtype)
            kinds = ["sum", "max"] + (["mean"] if dtype in FLOAT_DTYPES else [])
            for keep in (False, True):
                norm = axis % len(shape)
                kept = (1,) if keep else ()
                out_shape = (*shape[:norm], *kept, *shape[norm + 1 :])
                for kind in kinds:
                    out = tensor(out_shape, dtype)
                    attrs = f"axis = {axis}" + (", keepdims = true" if keep else "")
                    add([t], call(f"tf.reduce.{kind}<{attrs}>", ["%a0"], [t], out), out, [x])
            if dtype != "i1":
                add([t], call(f"tf.reduce.cumsum<axis = {axis}>", ["%a0"], [t], t), t, [x])
            if dtype in FLOAT_DTYPES and size:
                add([t], call(f"tf.nn.softmax<axis = {axis}>", ["%a0"], [t], t), t, [x])
    # a dynamic dim: the mean (numpy's order decided at run time), cumsum, an elementwise op
    for dtype in ("f16", "f32", "i32"):
        for n in (1, 5, 9, 200):
            x = values(dtype, 3 * n, seed=n).reshape(3, n)
            t = tensor((3, "n"), dtype)
            out = tensor((1, "n"), dtype)
            if dtype != "i32":
                add(
                    [t],
                    call("tf.reduce.mean<axis = 0, keepdims = true>", ["%a0"], [t], out),
                    out,
                    [x],
                )
            add([t], call("tf.reduce.sum<axis = 1, keepdims = true>", ["%a0"], [t], tensor((3, 1), dtype)),
                tensor((3, 1), dtype), [x])  # fmt: skip
            add([t], call("tf.reduce.cumsum<axis = 1>", ["%a0"], [t], t), t, [x])
    # matmul: batched and broadcast; integers wrap, i1 is an or of ands (floats: test_bounds)
    for dtype in ("i1", "i8", "i32", "i64"):
        lhs, rhs = (
            values(dtype, 2 * 3 * 4, seed=3).reshape(2, 3, 4),
            values(dtype, 4 * 5, seed=4).reshape(4, 5),
        )
        lt, rt, out = tensor((2, 3, 4), dtype), tensor((4, 5), dtype), tensor((2, 3, 5), dtype)
        add([lt, rt], call("tf.linalg.matmul", ["%a0", "%a1"], [lt, rt], out), out, [lhs, rhs])
    for dtype in FLOAT_DTYPES:  # exact products, exact sums: the order does not matter
        lhs = np.array([[1.0, 2.0, -0.5], [0.25, 0.0, -0.0]]).astype(_holder(dtype))
        rhs = np.array([[2.0, -1.0], [0.5, 4.0], [-3.0, 0.0]]).astype(_holder(dtype))
        lt, rt, out = tensor((2, 3), dtype), tensor((3, 2), dtype), tensor((2, 2), dtype)
        add([lt, rt], call("tf.linalg.matmul", ["%a0", "%a1"], [lt, rt], out), out, [lhs, rhs])
    # data movement, on every dtype
    for dtype in ALL_DTYPES:
        x = values(dtype, 24, seed=5).reshape(2, 3, 4)
        t = tensor((2, 3, 4), dtype)
        add([t], call("tf.linalg.transpose<perm = [2, 0, 1]>", ["%a0"], [t], tensor((4, 2, 3), dtype)),
            tensor((4, 2, 3), dtype), [x])  # fmt: skip
        add([t], call("tf.tensor.reshape<shape = [4, -1]>", ["%a0"], [t], tensor((4, 6), dtype)),
            tensor((4, 6), dtype), [x])  # fmt: skip
        add([t], call("tf.tensor.slice<axis = 2, start = 1, stop = 9, step = 2>", ["%a0"], [t],
            tensor((2, 3, 2), dtype)), tensor((2, 3, 2), dtype), [x])  # fmt: skip
        small = values(dtype, 3, seed=6).reshape(3, 1)
        st = tensor((3, 1), dtype)
        add([st], call("tf.tensor.broadcast_to<shape = [2, -1, 4]>", ["%a0"], [st], tensor((2, 3, 4), dtype)),
            tensor((2, 3, 4), dtype), [small])  # fmt: skip
        pair = f"tuple<{t}, {tensor((2, 3, 1), dtype)}>"
        part = values(dtype, 6, seed=7).reshape(2, 3, 1)
        body = (f"    %p = tir.let tf.tuple %a0, %a1 : {pair}\n"
                f"    %r = tir.let {call('tf.tensor.concat<axis = -1>', ['%p'], [pair], tensor((2, 3, 5), dtype))}")  # fmt: skip
        count += 1
        cases.append(
            Case(
                f"c{count}",
                (t, tensor((2, 3, 1), dtype)),
                body,
                tensor((2, 3, 5), dtype),
                (x, part),
            )
        )
        halves = f"tuple<{tensor((2, 3, 2), dtype)}, {tensor((2, 3, 2), dtype)}>"
        body = (f"    %s = tir.let {call('tf.shape.split<axis = 2, sections = 2>', ['%a0'], [t], halves)}\n"
                f"    %r = tir.let {call('tf.tuple.get_item<index = -1>', ['%s'], [halves], tensor((2, 3, 2), dtype))}")  # fmt: skip
        count += 1
        cases.append(Case(f"c{count}", (t,), body, tensor((2, 3, 2), dtype), (x,)))
        cond = np.arange(12).reshape(3, 4) % 3 == 0
        ct = tensor((3, 4), "i1")
        add([ct, t, tensor((4,), dtype)], call("tf.tensor.where", ["%a0", "%a1", "%a2"],
            [ct, t, tensor((4,), dtype)], t), t, [cond, x, values(dtype, 4, seed=8)])  # fmt: skip
        out = tensor((6,), dtype)
        if dtype != "i1":
            add(
                [],
                call(
                    f'tf.tensor.iota<start = -2, step = 3, size = 6, dtype = "{dtype}">',
                    [],
                    [],
                    out,
                ),
                out,
                [],
            )
        for value in ("-0.0", "1.5", "-2.0", "1.0e+10", "0.1"):
            add([], call(f'tf.tensor.full<shape = [2, 3], value = {value}, dtype = "{dtype}">', [], [],
                tensor((2, 3), dtype)), tensor((2, 3), dtype), [])  # fmt: skip
    # logic
    p = np.array([[False, True], [True, True], [False, False]])
    q = np.array([True, False])
    pt, qt = tensor((3, 2), "i1"), tensor((2,), "i1")
    for kind in ("and", "or", "xor"):
        add(
            [pt, qt],
            call(f"tf.logic.binary<kind = {kind}>", ["%a0", "%a1"], [pt, qt], pt),
            pt,
            [p, q],
        )
    add([pt], call("tf.logic.not", ["%a0"], [pt], pt), pt, [p])
    # indexing: negative indices, broadcast index tensors, gather along each axis
    w = values("f32", 40, seed=9).reshape(8, 5)
    wt = tensor((8, 5), "f32")
    for itype in ("i8", "i32", "i64"):
        ids = np.array([[0, -1, 3], [7, -8, 2]], dtype=_holder(itype))
        it = tensor((2, 3), itype)
        idx = f"tuple<{it}>"
        body = (f"    %i = tir.let tf.tuple %a1 : {idx}\n"
                f"    %r = tir.let {call('tf.tensor.index', ['%a0', '%i'], [wt, idx], tensor((2, 3, 5), 'f32'))}")  # fmt: skip
        count += 1
        cases.append(Case(f"c{count}", (wt, it), body, tensor((2, 3, 5), "f32"), (w, ids)))
        g = np.array(
            [[0, -1], [4, 2], [1, 1], [0, 3], [-5, 4], [2, 2], [3, 0], [1, -2]],
            dtype=_holder(itype),
        )
        gt = tensor((8, 2), itype)
        add([wt, gt], call("tf.tensor.gather<axis = 1>", ["%a0", "%a1"], [wt, gt], tensor((8, 2), "f32")),
            tensor((8, 2), "f32"), [w, g])  # fmt: skip
    rows = np.array([[1], [-2]], dtype=np.int64)
    cols = np.array([0, 4, -1], dtype=np.int64)
    pair = f"tuple<{tensor((2, 1), 'i64')}, {tensor((3,), 'i64')}>"
    body = (f"    %i = tir.let tf.tuple %a1, %a2 : {pair}\n"
            f"    %r = tir.let {call('tf.tensor.index', ['%a0', '%i'], [wt, pair], tensor((2, 3), 'f32'))}")  # fmt: skip
    count += 1
    cases.append(
        Case(
            f"c{count}",
            (wt, tensor((2, 1), "i64"), tensor((3,), "i64")),
            body,
            tensor((2, 3), "f32"),
            (w, rows, cols),
        )
    )
    # out of range: refused with the interpreter's message
    bad = np.array([[1, 9, -9]], dtype=np.int64)
    bt = tensor((1, 3), "i64")
    add([wt, bt], call("tf.tensor.gather<axis = 0>", ["%a0", "%a1"], [wt, tensor((1, 3), "i64")], tensor((1, 3), "f32")),
        tensor((1, 3), "f32"), [w, bad])  # fmt: skip
    # the zoo's windowed ops: a dynamic batch (`n`), padding, stride, dilation, groups
    for dtype in FLOAT_DTYPES:
        # convolution on small integers: exact products and sums, so any order gives the
        # reference's bits (random values: within the matmul bound, test_bounds.py)
        rng = np.random.default_rng(12)
        for attrs, x_shape, w_shape, out in (
            ("stride = [1], padding = [1]", (2, 3, 7), (4, 3, 3), (4, 7)),
            ("stride = [2, 1], padding = [1, 0], dilation = [1, 2], groups = 2",
             (2, 4, 7, 6), (6, 2, 3, 2), (6, 4, 4)),
            ("stride = [1, 1], padding = [0, 0]", (1, 2, 4, 4), (3, 2, 4, 4), (3, 1, 1)),
        ):  # fmt: skip
            xt, wt = tensor(("n", *x_shape[1:]), dtype), tensor(w_shape, dtype)
            ot = tensor(("n", *out), dtype)
            x = rng.integers(-3, 4, x_shape).astype(_holder(dtype))
            w = rng.integers(-3, 4, w_shape).astype(_holder(dtype))
            add([xt, wt], call(f"tf.nn.conv<{attrs}>", ["%a0", "%a1"], [xt, wt], ot), ot, [x, w])
        # pooling over edge values (NaN, ±inf, ±0 meet in windows), a dynamic batch
        x = values(dtype, 2 * 3 * 7 * 6, seed=13).reshape(2, 3, 7, 6)
        xt = tensor(("n", 3, 7, 6), dtype)
        for attrs, out in (
            ("kind = max, kernel = [3, 2], stride = [2, 2], padding = [1, 1]", (4, 4)),
            ("kind = max, kernel = [2, 2], stride = [1, 2], padding = [0, 1], dilation = [3, 1]",
             (4, 4)),
            ("kind = avg, kernel = [3, 2], stride = [2, 2], padding = [1, 1]", (4, 4)),
            ("kind = avg, kernel = [3, 3], stride = [1, 2], padding = [1, 1], "
             "count_include_pad = false", (7, 3)),
            ("kind = avg, kernel = [7, 6], stride = [1, 1], padding = [0, 0]", (1, 1)),
        ):  # fmt: skip
            ot = tensor(("n", 3, *out), dtype)
            add([xt], call(f"tf.nn.pool<{attrs}>", ["%a0"], [xt], ot), ot, [x])
        # a whole-output average of more than numpy's pairwise block (128 taps)
        wide = values(dtype, 2 * 12 * 12, seed=14).reshape(2, 12, 12)
        wt, ot = tensor((2, 12, 12), dtype), tensor((2, 1, 1), dtype)
        add([wt], call("tf.nn.pool<kind = avg, kernel = [12, 12], stride = [1, 1], padding = [0, 0]>",
            ["%a0"], [wt], ot), ot, [wide])  # fmt: skip
        one_d = values(dtype, 2 * 9, seed=15).reshape(2, 9)
        t1, o1 = tensor((2, 9), dtype), tensor((2, 5), dtype)
        add([t1], call("tf.nn.pool<kind = max, kernel = [3], stride = [2], padding = [1]>",
            ["%a0"], [t1], o1), o1, [one_d])  # fmt: skip
    # topk: every dtype, largest and smallest, along each axis; ties keep their order (edge
    # values repeat: NaNs, ±inf, ±0, the integer extremes), a dynamic dim beside the axis
    for dtype in ALL_DTYPES:
        edges = np.array(edge_values(dtype), dtype=_holder(dtype))
        row = np.concatenate([edges, edges[::-1], edges[: len(edges) // 2]])
        size = len(row)
        x = np.stack([row, np.roll(row, 5), row[::-1]])
        for largest in ("true", "false"):
            for k in (1, 5, size):
                xt = tensor(("n", size), dtype)
                pair = f"tuple<{tensor(('n', k), dtype)}, {tensor(('n', k), 'i64')}>"
                add([xt], call(f"tf.tensor.topk<k = {k}, largest = {largest}>", ["%a0"], [xt], pair),
                    pair, [x])  # fmt: skip
            xt = tensor((3, size), dtype)
            pair = f"tuple<{tensor((2, size), dtype)}, {tensor((2, size), 'i64')}>"
            add([xt], call(f"tf.tensor.topk<k = 2, axis = 0, largest = {largest}>", ["%a0"], [xt],
                pair), pair, [x])  # fmt: skip
    # reshape with `dims`: two DimVars kept through the reshape
    for dtype in ("f32", "i8"):
        nm = "#tf.dims<n: 1 to 9, m: 1 to 9>"
        xt = f"tensor<?x?x12x{dtype}, {nm}>"
        ot = f"tensor<?x3x?x4x{dtype}, {nm}>"
        x = values(dtype, 3 * 5 * 12, seed=16).reshape(3, 5, 12)
        add([xt], call("tf.tensor.reshape<shape = [-1, 3, -1, 4], dims = [0, 1]>", ["%a0"], [xt], ot),
            ot, [x])  # fmt: skip
    # memory: a snapshot load, a copy into the caller's buffer, a fresh zero buffer
    for dtype in ("bf16", "i1", "f64"):
        t = tensor((4,), dtype)
        buf = f"!tf.buffer<4x{dtype}>"
        body = (f"    %old = tir.let tf.call tf.memory.load(%a0) : ({buf}) -> {t}\n"
                f"    tir.evaluate tf.call tf.memory.copy(%a0, %a1) : ({buf}, {t}) -> ()\n"
                f"    %tmp = tir.let tf.call tf.memory.alloc<shape = [4], dtype = {dtype}>() : () -> {buf}\n"
                f"    %zero = tir.let tf.call tf.memory.load(%tmp) : ({buf}) -> {t}\n"
                f"    tir.evaluate tf.call tf.memory.copy(%tmp, %old) : ({buf}, {t}) -> ()\n"
                f"    %new = tir.let tf.call tf.memory.load(%a0) : ({buf}) -> {t}\n"
                f"    %saved = tir.let tf.call tf.memory.load(%tmp) : ({buf}) -> {t}\n"
                f"    %r = tir.let tf.tuple %zero, %new, %saved : tuple<{t}, {t}, {t}>")  # fmt: skip
        count += 1
        cases.append(Case(f"c{count}", (buf, t), body, f"tuple<{t}, {t}, {t}>",
                          (values(dtype, 4, seed=10).copy(), values(dtype, 4, seed=11))))  # fmt: skip
    return cases


def module_text(cases: list[Case]) -> str:
    return "tf.module @ops {\n" + "\n".join(c.text() for c in cases) + "\n}\n"
