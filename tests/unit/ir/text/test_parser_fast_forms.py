"""The one-step readers of the parser's fast path (generic plain ops, new tensor types, decimal
dense literals) build what the token-by-token reading builds, and leave any other text to it:
same IR, same locations, same diagnostics. Each input goes through tf-opt twice, with the
readers and without, and the outputs are compared; the readers must have read something where
the text is theirs."""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tilefoundry.ir.text import parser
from tilefoundry.tools.drivers.tf_opt import main

T = "tensor<4xf32>"
READERS = (
    "read_generic_op",
    "read_tensor_type",
    "read_dense",
    "read_function_type",
    "read_signature",
)
NEG = "#tf.op<tf.math.unary<kind = neg>>"
ADD = "#tf.op<tf.math.binary<kind = add>>"


def generic_call(result: str, operands: str, callee: str = NEG, rest: str = "") -> str:
    arity = operands.count("%")
    types = ", ".join([T] * arity)
    return f'{result} = "tf.call"({operands}) <{{callee = {callee}}}>{rest} : ({types}) -> {T}'


def module(
    *body: str, arguments: str = f"%x: {T}, %y: {T}", end: str = f"hir.return %x : {T}"
) -> str:
    lines = "".join(f"    {line}\n" for line in (*body, end))
    return f"tf.module @m {{\n  hir.func @f({arguments}) -> {T} {{\n{lines}  }}\n}}\n"


NO_RESULT = f'"hir.return"(%x) : ({T}) -> ()'


def run(path: Path, *flags: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(path), *flags])
    return code, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def counted_reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """How many texts each reader read (not those it left to the full reading)."""
    counts = dict.fromkeys(READERS, 0)
    with monkeypatch.context() as patch:
        for name in READERS:
            reader = counting(name, getattr(parser, name), counts)
            patch.setattr(parser, name, reader)
        yield counts


def counting(name: str, reader: Callable[..., Any], counts: dict[str, int]) -> Callable[..., Any]:
    def read(*args: Any) -> Any:
        result = reader(*args)
        counts[name] += result is not None
        return result

    return read


def both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, *flags: str
) -> tuple[tuple[int, str, str], dict[str, int]]:
    """tf-opt's result with the readers (and what they read), after checking that it is the
    result without them."""
    path = tmp_path / "input.mlir"
    path.write_text(text)
    with counted_reads(monkeypatch) as counts:
        fast = run(path, *flags)
    with monkeypatch.context() as patch:
        for name in READERS:
            patch.setattr(parser, name, lambda *args: None)
        full = run(path, *flags)
    assert fast == full
    return fast, counts


EVERY_FORM = [(), ("--print-op-generic", "--mlir-print-debuginfo")]

GENERIC = {
    "properties": [generic_call("%a", "%x"), generic_call("%b", "%a, %y", ADD)],
    "attributes after properties": [generic_call("%a", "%x", rest=" {note = 1 : i64}")],
    "property spelled as an attribute": [f'%a = "tf.call"(%x) {{callee = {NEG}}} : ({T}) -> {T}'],
    "location": [generic_call("%a", "%x") + ' loc("f.py":3:4)'],
    "range location": [generic_call("%a", "%x") + ' loc("f.py":3:4 to 3:9)'],
    "name location": [generic_call("%a", "%x") + ' loc("h")'],
    "location on the next line": [generic_call("%a", "%x"), '  loc("g.py":1:1)'],
    "comment after": [generic_call("%a", "%x") + " // note"],
    "numbered result": [generic_call("%0", "%x"), generic_call("%1", "%0")],
    "constant": [f'%c = "tf.constant"() <{{value = dense<1.5> : {T}}}> : () -> {T}'],
    "spaces": [f'%a = "tf.call"( %x ) <{{callee = {NEG}}}>  :  ({T}) -> {T}'],
}


@pytest.mark.parametrize("body", GENERIC.values(), ids=GENERIC.keys())
@pytest.mark.parametrize("flags", EVERY_FORM)
def test_generic_plain_ops_read_in_one_step_build_the_same_ir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: list[str], flags: tuple[str, ...]
) -> None:
    (code, out, err), counts = both_ways(tmp_path, monkeypatch, module(*body), *flags)
    assert (code, err) == (0, "")
    assert counts["read_generic_op"] >= 1


@pytest.mark.parametrize("flags", EVERY_FORM)
def test_an_op_without_results_is_read_in_one_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flags: tuple[str, ...]
) -> None:
    text = module(generic_call("%a", "%x"), end=NO_RESULT.replace("%x", "%a"))
    (code, out, err), counts = both_ways(tmp_path, monkeypatch, text, *flags)
    assert (code, err) == (0, "")
    assert counts["read_generic_op"] == 2


NOT_GENERIC_PLAIN = {
    "region": ['%a = "tf.mesh"() <{kind = "cta"}> ({', f"  hir.yield %x : {T}", f"}}) : () -> {T}"],
    "operand index": [generic_call("%a", "%x"), generic_call("%b", "%a#0")],
    "two lines": ['%a = "tf.call"(%x)', f"  <{{callee = {NEG}}}> : ({T}) -> {T}"],
    "unregistered": [f'%a = "tf.nope"(%x) : ({T}) -> {T}'],
}


@pytest.mark.parametrize("body", NOT_GENERIC_PLAIN.values(), ids=NOT_GENERIC_PLAIN.keys())
def test_other_generic_spellings_are_read_token_by_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: list[str]
) -> None:
    both_ways(tmp_path, monkeypatch, module(*body), *EVERY_FORM[1])


WRONG = {
    "operand count": [f'%a = "tf.call"(%x, %y) <{{callee = {NEG}}}> : ({T}) -> {T}'],
    "result count": [f"%a = {NO_RESULT}"],
    "two results": [f'%a = "tf.call"(%x) <{{callee = @f}}> : ({T}) -> ({T}, {T})'],
    "defined twice": [generic_call("%a", "%x"), generic_call("%a", "%x")],
    "undefined operand": [generic_call("%a", "%nope")],
    "used with another type": [
        generic_call("%a", "%b"),
        '%c = "tf.call"(%b) <{callee = #tf.op<tf.math.unary<kind = neg>>}> : '
        "(tensor<8xf32>) -> tensor<8xf32>",
        generic_call("%b", "%x"),
    ],
    "duplicate property": [
        f'%a = "tf.call"(%x) <{{callee = {NEG}, callee = {NEG}}}> : ({T}) -> {T}'
    ],
    "bad property": ['%a = "tf.call"(%x) <{callee = 3 : i64}> : (tensor<4xf32>) -> tensor<4xf32>'],
    "unknown op target": [generic_call("%a", "%x", "#tf.op<tf.nope>")],
    "unclosed properties": [f'%a = "tf.call"(%x) <{{callee = {NEG} : ({T}) -> {T}'],
    "no type": [f'%a = "tf.call"(%x) <{{callee = {NEG}}}>'],
    "wrong result type": [f'%a = "tf.call"(%x) <{{callee = {NEG}}}> : ({T}) -> tensor<5xf32>'],
    "bad location": [generic_call("%a", "%x") + ' loc("f.py":3:4 to 2:1)'],
}


@pytest.mark.parametrize("body", WRONG.values(), ids=WRONG.keys())
def test_a_wrong_generic_op_gets_the_same_diagnostic_either_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: list[str]
) -> None:
    result, _ = both_ways(tmp_path, monkeypatch, module(*body))
    assert result[:2] == (1, "") and is_diagnostic(tmp_path, result[2])


def is_diagnostic(tmp_path: Path, err: str) -> bool:
    """Whether `err` is a diagnostic of the input (not a traceback or an internal error)."""
    return err.startswith(str(tmp_path / "input.mlir") + ":") and "internal error" not in err


def constant(literal: str, type: str) -> str:
    return f"%c = tf.constant dense<{literal}> : {type}"


DENSE = {
    "f32 matrix": ("[[1.5, -2.0], [0.25, 3.0]]", "tensor<2x2xf32>"),
    "f32 splat": ("-1.5", "tensor<4x4xf32>"),
    "all equal": ("[2.0, 2.0, 2.0]", "tensor<3xf32>"),
    "integers in a float tensor": ("[1, -0, 3]", "tensor<3xf32>"),
    "negative zero": ("[-0.0, 0.0]", "tensor<2xf32>"),
    "exponents": ("[1.5e3, -2.0E-2, 3.0e+1]", "tensor<3xf32>"),
    "f16": ("[65504.0, 1.0e-3]", "tensor<2xf16>"),
    "bf16": ("[1.0, 3.0e38]", "tensor<2xbf16>"),
    "f64": ("[1.0000000000000002, 4.9e-324]", "tensor<2xf64>"),
    "i8": ("[127, -128, 0]", "tensor<3xi8>"),
    "i1": ("[1, 0]", "tensor<2xi1>"),
    "i64": ("[9223372036854775807, -9223372036854775808]", "tensor<2xi64>"),
    "i16": ("[1, 2]", "tensor<2xi16>"),
    "signless wraps": ("[255]", "tensor<1xi8>"),
    "rank 3": ("[[[1], [2]], [[3], [4]]]", "tensor<2x2x1xi32>"),
}


@pytest.mark.parametrize(("literal", "type"), DENSE.values(), ids=DENSE.keys())
@pytest.mark.parametrize("flags", EVERY_FORM)
def test_dense_literals_read_in_one_step_build_the_same_ir(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    literal: str,
    type: str,
    flags: tuple[str, ...],
) -> None:
    text = module(constant(literal, type))
    (code, out, err), counts = both_ways(tmp_path, monkeypatch, text, *flags)
    assert (code, err) == (0, "")
    assert counts["read_dense"] >= 1


WRONG_DENSE = {
    "out of range": ("[300]", "tensor<1xi8>"),
    "float in an integer tensor": ("[1.5]", "tensor<1xi32>"),
    "float out of range": ("[1.0e10]", "tensor<1xf16>"),
    "shape": ("[1.0, 2.0]", "tensor<3xf32>"),
    "ragged": ("[[1.0, 2.0], [3.0]]", "tensor<2x2xf32>"),
    "no dot": ("[1e5]", "tensor<1xf32>"),
    "trailing dot": ("[1.]", "tensor<1xf32>"),
    "leading zero": ("[01]", "tensor<1xi32>"),
    "trailing comma": ("[1.0,]", "tensor<1xf32>"),
    "dynamic shape": ("[1.0]", "tensor<?xf32>"),
    "not a tensor": ("[1.0]", "f32"),
    "empty": ("[]", "tensor<0xf32>"),
    "booleans": ("[true, false]", "tensor<2xi1>"),
    "hex float": ("[0x7F800000]", "tensor<1xf32>"),
    "i1 out of range": ("[2]", "tensor<1xi1>"),
    "vector": ("[1.0]", "vector<1xf32>"),
}


@pytest.mark.parametrize(("literal", "type"), WRONG_DENSE.values(), ids=WRONG_DENSE.keys())
def test_other_dense_literals_are_read_token_by_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, literal: str, type: str
) -> None:
    (code, _, err), counts = both_ways(tmp_path, monkeypatch, module(constant(literal, type)))
    assert counts["read_dense"] == 0
    assert code == 0 or is_diagnostic(tmp_path, err)


TENSORS = {
    "static": "tensor<2x3xf32>",
    "integer": "tensor<3x8xi32>",
    "encoding": "tensor<?x8xf32, #tf.dims<seq: 1 to 513>>",
    "two encoded dims": "tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>",
    "rank 0": "tensor<f16>",
    "zero size": "tensor<0x4xbf16>",
}


@pytest.mark.parametrize("type", TENSORS.values(), ids=TENSORS.keys())
@pytest.mark.parametrize("flags", EVERY_FORM)
def test_tensor_types_read_in_one_step_build_the_same_ir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, type: str, flags: tuple[str, ...]
) -> None:
    text = module(arguments=f"%x: {T}, %y: {type}")
    (code, _, err), counts = both_ways(tmp_path, monkeypatch, text, *flags)
    assert (code, err) == (0, "")
    assert counts["read_tensor_type"] >= 2 or counts["read_signature"] == 1  # in the signature


WRONG_TENSORS = {
    "bad encoding": "tensor<?x8xf32, #tf.dims<nope>>",
    "encoding of the wrong rank": "tensor<?x8xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>",
    "dimension too large": "tensor<99999999999999999999xf32>",
    "leading zero": "tensor<08xf32>",
    "unranked": "tensor<*xf32>",
    "odd element": "tensor<4xi3>",
    "unknown element": "tensor<4xfoo>",
    "encoding not an attribute": "tensor<4xf32, 3>",
}


@pytest.mark.parametrize("type", WRONG_TENSORS.values(), ids=WRONG_TENSORS.keys())
def test_other_tensor_types_get_what_the_full_reading_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, type: str
) -> None:
    text = module(arguments=f"%x: {T}, %y: {type}")
    (code, _, err), _ = both_ways(tmp_path, monkeypatch, text)
    assert code == 0 or is_diagnostic(tmp_path, err)


def benchmark_inputs() -> dict[str, str]:
    sys.path.insert(0, str(Path(__file__).parents[4] / "benchmarks"))
    try:
        import generate
    finally:
        sys.path.pop(0)
    return {
        "chain": generate.chain_module(200),
        "tree": generate.tree_module(2),
        "shapes": generate.shapes_module(3),
        "constants": generate.constants_module(30),
        "distinct": generate.distinct_module(12),
    }


@pytest.mark.parametrize("name", ["chain", "tree", "shapes", "constants", "distinct"])
def test_the_benchmark_inputs_read_alike_in_both_forms_and_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    custom = benchmark_inputs()[name]
    (code, generic, err), _ = both_ways(tmp_path, monkeypatch, custom, "--print-op-generic")
    assert (code, err) == (0, "")
    (code, out, err), counts = both_ways(tmp_path, monkeypatch, generic)
    assert (code, err) == (0, "")
    assert out == run_text(tmp_path, custom)
    assert counts["read_generic_op"] > 0


@pytest.mark.parametrize("flags", [(), ("--print-op-generic",)])
def test_new_function_types_are_read_in_one_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flags: tuple[str, ...]
) -> None:
    """Each function of `distinct` has its own signatures: the plain call lines read them in
    one step (one function type a call), in the custom form and in the generic form."""
    custom = benchmark_inputs()["distinct"]
    (code, text, err), _ = both_ways(tmp_path, monkeypatch, custom, *flags)
    assert (code, err) == (0, "")
    (code, _, err), counts = both_ways(tmp_path, monkeypatch, text)
    assert (code, err) == (0, "")
    assert counts["read_function_type"] >= 12 * 5  # five calls in each of the 12 functions


FUNCTION_TYPES = {
    "no inputs, no outputs": "() -> ()",
    "two outputs": f"({T}) -> ({T}, {T})",
    "encoding": "(tensor<?x4xf32, #tf.dims<s: 1 to 9>>) -> tensor<?x4xf32, #tf.dims<s: 1 to 9>>",
    "no spaces": f"({T},{T})->{T}",
    "bad encoding": f"(tensor<?x4xf32, #tf.dims<nope>>) -> {T}",
    "not a tensor": f"(i32) -> {T}",
}


@pytest.mark.parametrize("type", FUNCTION_TYPES.values(), ids=FUNCTION_TYPES.keys())
def test_every_function_type_gets_what_the_full_reading_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, type: str
) -> None:
    arity = type.split(")")[0].count("tensor") + type.split(")")[0].count("i32")
    operands = ", ".join(["%x"] * arity)
    line = f'%a = "tf.call"({operands}) <{{callee = {NEG}}}> : {type}'
    (code, _, err), _ = both_ways(tmp_path, monkeypatch, module(line))
    assert code == 0 or is_diagnostic(tmp_path, err)


def run_text(tmp_path: Path, text: str) -> str:
    path = tmp_path / "custom.mlir"
    path.write_text(text)
    code, out, err = run(path)
    assert (code, err) == (0, "")
    return out


CONSTANT_SPELLINGS = {
    "plain": f"%c = tf.constant dense<[1.5, 2.0, 3.0, 4.0]> : {T}",
    "location": f'%c = tf.constant dense<1.5> : {T} loc("k.py":2:3)',
    "attributes": f"%c = tf.constant dense<1.5> : {T} {{note = 1 : i64}}",
    "comment": f"%c = tf.constant dense<1.5> : {T} // note",
    "hex string": '%c = tf.constant dense<"0x0000C03F"> : tensor<1xf32>',
    "wrong shape": f"%c = tf.constant dense<[1.5, 2.0]> : {T}",
    "defined twice": f"%x = tf.constant dense<1.5> : {T}",
}


@pytest.mark.parametrize("line", CONSTANT_SPELLINGS.values(), ids=CONSTANT_SPELLINGS.keys())
def test_every_spelling_of_a_constant_gets_what_the_full_reading_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str
) -> None:
    (code, _, err), counts = both_ways(tmp_path, monkeypatch, module(line), *EVERY_FORM[1])
    assert code == 0 or is_diagnostic(tmp_path, err)


SIGNATURES = {
    "plain": (f"(%x: {T}, %y: {T} {{const}}) -> {T}", True),
    "no parameters": (f"() -> {T}", True),
    "encoding": ("(%x: tensor<?x4xf32, #tf.dims<s: 1 to 9>>) -> tensor<4xf32>", True),
    "location": (f'(%x: {T} loc("f.py":1:2)) -> {T}', False),
    "unknown attribute": (f"(%x: {T} {{nope}}) -> {T}", False),
    "two attributes": (f"(%x: {T} {{const, const}}) -> {T}", False),
    "arrow unspaced": (f"(%x: {T})-> {T}", False),
    "not a tensor": (f"(%x: i32) -> {T}", False),
    "two results": (f"(%x: {T}) -> ({T}, {T})", False),
    "no result": (f"(%x: {T}) -> ()", True),
    "bad encoding": (f"(%x: tensor<?x4xf32, #tf.dims<nope>>) -> {T}", False),
}


@pytest.mark.parametrize("case", SIGNATURES.values(), ids=SIGNATURES.keys())
def test_every_signature_gets_what_the_full_reading_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: tuple[str, bool]
) -> None:
    """A function's signature of tensor types is read in one step; any other spelling is left
    to the full reading, which reports what is wrong: the same output or diagnostic."""
    signature, plain = case
    returned = f"hir.return %x : {T}" if "%x" in signature else f"hir.return %c : {T}"
    body = [] if "%x" in signature else [f"%c = tf.constant dense<1.5> : {T}"]
    lines = "".join(f"    {line}\n" for line in (*body, returned))
    text = f"tf.module @m {{\n  hir.func @f{signature} {{\n{lines}  }}\n}}\n"
    (code, _, err), counts = both_ways(tmp_path, monkeypatch, text)
    assert code == 0 or is_diagnostic(tmp_path, err)
    assert (counts["read_signature"] == 1) == plain
