"""The parser's learned op shapes (`read_learned_op`): the one-step reading of plain `tf.call`
lines builds what the token-by-token reading builds,
and a text that is not plain is read token by token: same IR, same locations, same diagnostics.
Each input is read twice, with the plain forms and without, and the outputs compared."""

from __future__ import annotations

import contextlib
import io
import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tilefoundry.ir.text import parser as text_parser
from tilefoundry.ir.text.parser import PlainOp, TFParser
from tilefoundry.tools.drivers.tf_opt import main

T = "tensor<4xf32>"
UNARY = f"tf.math.unary<kind = neg>(%x) : ({T}) -> {T}"


def module(*body: str, arguments: str = f"%x: {T}") -> str:
    lines = "".join(f"    {line}\n" for line in body)
    return (
        "tf.module @m {\n"
        f"  hir.func @g(%x: {T}) -> {T} {{\n    hir.return %x : {T}\n  }}\n"
        f"  tf.module @inner {{\n    hir.func @g(%x: {T}) -> {T} {{\n      hir.return %x : {T}\n"
        "    }\n  }\n"
        f"  hir.func @f({arguments}) -> {T} {{\n{lines}    hir.return %x : {T}\n  }}\n}}\n"
    )


@contextlib.contextmanager
def counted_plain_reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[PlainOp]]:
    """What the learned shapes read (not the texts they left to the full reading; the parser
    may still refuse what they read, at the nesting limit)."""
    read: list[PlainOp] = []
    learned = text_parser.read_learned_op

    def counting(parser: TFParser, name: str, position: int) -> PlainOp | None:
        result = learned(parser, name, position)
        if result is not None:
            read.append(result)
        return result

    with monkeypatch.context() as patch:
        patch.setattr(text_parser, "read_learned_op", counting)
        yield read


def run(path: Path, *flags: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(path), *flags])
    return code, out.getvalue(), err.getvalue()


def both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, *flags: str
) -> tuple[tuple[int, str, str], int]:
    """tf-opt's result with the plain forms (and how many ops they read), after checking it
    is the result without them."""
    path = tmp_path / "input.mlir"
    path.write_text(text)
    with counted_plain_reads(monkeypatch) as read:
        plain = run(path, *flags)
    with monkeypatch.context() as patch:
        patch.setattr(text_parser, "read_learned_op", lambda *args: None)
        full = run(path, *flags)
    assert plain == full
    return plain, len(read)


PLAIN = {
    "op callee": [f"%a = tf.call {UNARY}", f"%b = tf.call {UNARY}"],
    "symbol callee": [f"%a = tf.call @g(%x) : ({T}) -> {T}", f"%b = tf.call @g(%a) : ({T}) -> {T}"],
    "nested symbol callee": [
        f"%a = tf.call @inner::@g(%x) : ({T}) -> {T}",
        f"%b = tf.call @inner::@g(%a) : ({T}) -> {T}",
    ],
    "numbered names": [f"%0 = tf.call {UNARY}", f"%1 = tf.call {UNARY}"],
    "trailing spaces": [f"%a = tf.call {UNARY}   ", f"%b = tf.call {UNARY}\t"],
}


@pytest.mark.parametrize("body", PLAIN.values(), ids=PLAIN.keys())
@pytest.mark.parametrize("flags", [(), ("--print-op-generic", "--print-debuginfo")])
def test_plain_calls_read_in_one_step_build_the_same_ir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: list[str], flags: tuple[str, ...]
) -> None:
    (code, out, err), read = both_ways(tmp_path, monkeypatch, module(*body), *flags)
    assert (code, err) == (0, "")
    assert read >= 1  # the first call of a callee and type is read in full, to learn them
    assert "tf.call" in out


NOT_PLAIN = {
    "attributes": [
        f"%a = tf.call {UNARY}",
        f"%b = tf.call tf.math.unary<kind = neg>(%x) {{k = 1}} : ({T}) -> {T}",
    ],
    "location after": [f"%a = tf.call {UNARY}", f'%b = tf.call {UNARY} loc("here":3:4)'],
    "location on the next line": [
        f"%a = tf.call {UNARY}",
        f"%b = tf.call {UNARY}",
        '  loc("there":7:1)',
    ],
    "location after a comment": [
        f"%a = tf.call {UNARY}",
        f"%b = tf.call {UNARY} // note",
        '  loc("c":1:1)',
    ],
    "operand index": [
        f"%a = tf.call {UNARY}",
        f"%b = tf.call tf.math.unary<kind = neg>(%a#0) : ({T}) -> {T}",
    ],
    "quoted symbol": [
        f'%a = tf.call @"g"(%x) : ({T}) -> {T}',
        f'%b = tf.call @"g"(%x) : ({T}) -> {T}',
    ],
}


@pytest.mark.parametrize("body", NOT_PLAIN.values(), ids=NOT_PLAIN.keys())
def test_other_spellings_are_read_token_by_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: list[str]
) -> None:
    (code, out, err), read = both_ways(
        tmp_path, monkeypatch, module(*body), "--print-op-generic", "--print-debuginfo"
    )
    assert read <= 1  # only the first, plain-looking call; never the other spelling
    if code == 0:
        assert "tf.call" in out


WRONG = {
    "defined twice": [f"%a = tf.call {UNARY}", f"%a = tf.call {UNARY}"],
    "used with another type": [
        f"%a = tf.call tf.math.unary<kind = neg>(%b) : ({T}) -> {T}",
        "%c = tf.call tf.math.unary<kind = neg>(%b) : (tensor<8xf32>) -> tensor<8xf32>",
        f"%b = tf.call {UNARY}",
    ],
    "operand count": [
        f"%a = tf.call {UNARY}",
        f"%b = tf.call tf.math.unary<kind = neg>(%x, %x) : ({T}) -> {T}",
    ],
    "no result to bind": [f"%a = tf.call {UNARY}", f"%b = tf.call @g(%x) : ({T}) -> ()"],
    "two results": [f"%a = tf.call {UNARY}", f"%b = tf.call @g(%x) : ({T}) -> ({T}, {T})"],
    "undefined operand": [
        f"%a = tf.call {UNARY}",
        f"%b = tf.call tf.math.unary<kind = neg>(%nope) : ({T}) -> {T}",
    ],
    "wrong result type": [
        f"%a = tf.call {UNARY}",
        f"%b = tf.call tf.math.unary<kind = neg>(%x) : ({T}) -> tensor<5xf32>",
    ],
}


@pytest.mark.parametrize("body", WRONG.values(), ids=WRONG.keys())
def test_a_wrong_call_gets_the_same_diagnostic_either_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: list[str]
) -> None:
    (code, out, err), _ = both_ways(tmp_path, monkeypatch, module(*body))
    assert code == 1
    assert out == ""
    assert err.startswith(str(tmp_path / "input.mlir") + ":")


def nested_modules(name: str, levels: int, inner: str) -> str:
    return "".join(f"tf.module @{name}{i} {{\n" for i in range(levels)) + inner + "}\n" * levels


def test_the_nesting_limit_holds_on_plain_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The call's type is read in full (and remembered) at a level where it fits; the same call
    # deeper down, where it does not fit, must be refused as the full reading refuses it.
    deep = "tuple<" * 26 + T + ">" * 26
    call = f"%a = tf.call @g(%x) : ({T}) -> {deep}"
    shallow = f"hir.func @s(%x: {T}) {{\n{call}\nhir.return\n}}\n"
    deeper = nested_modules("d", 8, shallow.replace("@s", "@t"))
    text = nested_modules("s", 1, shallow) + deeper
    (code, _, err), read = both_ways(tmp_path, monkeypatch, text)
    assert read == 1  # the deeper call: read, then refused by the limit
    assert code == 1
    line = text.count("\n", 0, text.index(call, text.index("@d7"))) + 1
    assert err.startswith(f"{tmp_path / 'input.mlir'}:{line}:1: error: nesting deeper than")


def test_a_shape_is_learned_only_from_an_op_the_parser_read_in_full() -> None:
    """No dialect registers a reader: before the parser has read a call line in full, the same
    text (its function type known) is not read in one step, whatever the context."""
    from xdsl.context import Context
    from xdsl.dialects.builtin import FunctionType, TensorType, f32

    from tilefoundry.context.context import make_context

    text = f"%a = tf.call @g(%x) : ({T}) -> {T}\n"
    signature = FunctionType.from_lists([TensorType(f32, [4])], [TensorType(f32, [4])])
    for context in (make_context(), Context()):
        parser = TFParser(context, text, "x.mlir")
        parser.remember("function type", f"({T}) -> {T}", signature)
        assert parser._parse_plain_operation(0) is None


CHAIN = module(
    f"%a = tf.call {UNARY}",
    f"%b = tf.call @g(%a) : ({T}) -> {T}",
    f"%c = tf.call tf.math.unary<kind = neg>(%b) : ({T}) -> {T}",
    f"%d = tf.call @g(%c) : ({T}) -> {T}",
    f"%e = tf.call tf.math.binary<kind = add>(%c, %d) : ({T}, {T}) -> {T}",
    f"%f = tf.call tf.math.binary<kind = add>(%e, %a) : ({T}, {T}) -> {T}",
    f"%h = tf.call @inner::@g(%f) : ({T}) -> {T}",
)
LINE_EDITS: list[Callable[[random.Random, str], str]] = [
    lambda rng, line: line + " " * rng.randint(1, 3),
    lambda rng, line: line + " // note",
    lambda rng, line: line + " loc(unknown)",
    lambda rng, line: line + '\n      loc("f.py":1:2)',
    lambda rng, line: line.replace(" : ", " {k = 1} : ", 1),
    lambda rng, line: line.replace("(%", f"({rng.choice(['%a', '%x', '%zz', '%a#0'])}, %", 1),
    lambda rng, line: line.replace(rng.choice(["%a", "%b", "%c"]), rng.choice(["%x", "%c"])),
    lambda rng, line: line.replace("@g", rng.choice(["@inner::@g", '@"g"', "@nope"])),
    lambda rng, line: line.replace(T, "tensor<5xf32>", 1),
    lambda rng, line: line.replace("-> tensor", "-> (tensor") + ")",
    lambda rng, line: line + "\n    " + line.strip(),
    lambda rng, line: line.replace("tf.call ", "tf.call  ", 1),
    lambda rng, line: (lambda at: line[:at] + line[at + 1 :])(rng.randrange(len(line))),
]


def plain_call_mutants(count: int, seed: int) -> list[str]:
    """The chain above with one to three of its call lines after the first edited (so the
    edited lines are the ones a plain form may read): each edit one a user might make."""
    rng = random.Random(seed)
    lines = CHAIN.split("\n")
    calls = [i for i, line in enumerate(lines) if "tf.call" in line][1:]
    texts = []
    for _ in range(count):
        edited = list(lines)
        for index in rng.sample(calls, rng.randint(1, 3)):
            edited[index] = rng.choice(LINE_EDITS)(rng, edited[index])
        texts.append("\n".join(edited))
    return texts


@pytest.mark.parametrize("seed", range(3))
def test_edited_call_chains_read_the_same_either_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    accepted = 0
    for text in plain_call_mutants(40, seed):
        (code, _, err), _ = both_ways(tmp_path, monkeypatch, text, "--print-debuginfo")
        assert "internal error" not in err
        accepted += code == 0
    assert 0 < accepted < 40  # some edits keep the module valid, some do not
