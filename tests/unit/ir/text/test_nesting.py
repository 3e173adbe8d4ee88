"""The nesting limit: what it counts, and that IR at the limit leaves Python stack to spare."""

from __future__ import annotations

import contextlib
import inspect
import io
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tilefoundry.ir.text.nesting import MAX_NESTING, nesting_message
from tilefoundry.tools.drivers.tf_opt import main

HEADROOM = 250
"""Frames of Python's default 1000 that IR at the limit must leave to its caller."""


def deepest_modules(depth: int) -> str:
    return "".join(f"tf.module @m{i} {{\n" for i in range(depth)) + "}\n" * depth


def deepest_dictionary(depth: int) -> str:
    return f"tf.module @m metadata {{a = {'{a = ' * depth}1{'}' * depth}}} {{}}\n"


@contextlib.contextmanager
def recursion_limit(frames: int) -> Iterator[None]:
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def run(path: Path, text: str, *flags: str) -> tuple[int, str, str]:
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(path), *flags])
    return code, out.getvalue(), err.getvalue()


def test_the_limit_counts_operations_and_what_they_hold(tmp_path: Path) -> None:
    # The innermost module is an operation at level 63 whose symbol (a string) is one level
    # more: 64. One module more and its symbol would be at 65: refused at that module.
    path = tmp_path / "deep.mlir"
    assert run(path, deepest_modules(MAX_NESTING - 1))[0] == 0
    for depth in (MAX_NESTING, MAX_NESTING + 1, 1000):
        code, _, err = run(path, deepest_modules(depth))
        assert code == 1
        line = min(depth, MAX_NESTING + 1)
        assert err.splitlines()[0] == f"{path}:{line}:1: error: {nesting_message()}"


def test_an_alias_counts_as_deep_as_what_it_stands_for(tmp_path: Path) -> None:
    aliases = "!t0 = tuple<tensor<4xf32>>\n" + "".join(
        f"!t{i} = tuple<!t{i - 1}>\n" for i in range(1, 200)
    )
    code, _, err = run(tmp_path / "a.mlir", aliases + "hir.func @f(%x: !t199) -> () {\n}\n")
    assert code == 1 and nesting_message() in err.splitlines()[0]


@pytest.mark.parametrize("make", [deepest_modules, deepest_dictionary])
def test_ir_at_the_limit_leaves_stack_to_its_caller(tmp_path: Path, make: object) -> None:
    assert callable(make)
    path = tmp_path / "limit.mlir"
    depth = MAX_NESTING
    while run(path, make(depth))[0] != 0:
        depth -= 1
    text = make(depth)
    with recursion_limit(1000 - HEADROOM):
        for flags in ([], ["--print-op-generic"], ["-p", "canonicalize,cse,dce"]):
            code, out, err = run(path, text, *flags)
            assert (code, err) == (0, ""), flags
            assert run(tmp_path / "again.mlir", out)[0] == 0


def test_tensor_and_function_types_measure_as_deep_as_their_parameters() -> None:
    """`AttributeDepths` measures a tensor or function type from its parts (without its walk):
    one level above its deepest parameter, as every other attribute."""
    from xdsl.dialects.builtin import (
        DYNAMIC_INDEX,
        ArrayAttr,
        DictionaryAttr,
        FunctionType,
        ParametrizedAttribute,
        TensorType,
        TupleType,
        f32,
    )
    from xdsl.ir import Attribute

    from tilefoundry.ir.text.nesting import AttributeDepths

    def depth(attr: Attribute) -> int:
        if isinstance(attr, ParametrizedAttribute):
            children: tuple[Attribute, ...] = attr.parameters
        elif isinstance(attr, ArrayAttr):
            children = attr.data
        elif isinstance(attr, DictionaryAttr):
            children = tuple(attr.data.values())
        else:
            return 1
        return 1 + max(map(depth, children), default=0)

    deep = TupleType([TupleType([TensorType(f32, [2])])])
    scalar, shaped = TensorType(f32, []), TensorType(f32, [DYNAMIC_INDEX, 3])
    encoded = TensorType(f32, [4], ArrayAttr([ArrayAttr([deep])]))
    types = [scalar, shaped, encoded, FunctionType.from_lists([], [])]
    types += [
        FunctionType.from_lists([scalar, encoded], [shaped]),
        FunctionType.from_lists([deep], []),
    ]
    for type in types:
        assert AttributeDepths().depth(type) == depth(type), type
