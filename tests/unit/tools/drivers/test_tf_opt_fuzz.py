"""Fuzzing tf-opt with the inputs an adversary tries, seeded and fast.

Classes: mutated test files (deleted spans, adversarial tokens inserted, spans duplicated),
nesting of every kind at depths 10, at the limit, past it, 1,000 and 10,000, integers of up to
thousands of digits in every integer position, floats of every type (decimal, hexadecimal bits,
out of range), splats of huge shapes, large literals and long bodies, and random Unicode in
names, strings and locations.

For every input, tf-opt ends in success or in diagnostics (exit 0 or 1), never in an internal
error, a traceback or a hang; a failure starts with `file:line:col: error:` (or `tf-opt: error:`);
an accepted input prints a fixed point, and its generic form reads back to the same IR.
"""

from __future__ import annotations

import contextlib
import io
import random
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tilefoundry.ir.text.nesting import MAX_NESTING
from tilefoundry.tools.drivers.tf_opt import main

FILECHECK = Path(__file__).parents[3] / "filecheck"
SOURCES = sorted(FILECHECK.glob("dialects/*/*.mlir")) + sorted(FILECHECK.glob("ir/*.mlir"))
HANG_GUARD = 600
"""Seconds after which a run is a hang (SIGALRM). Not a speed claim: a run takes well under one
second; how long each takes is measured in benchmarks/fuzz_runs.py."""

TOKENS = [
    *'%@<>(){}:,"[]',
    "0",
    "-1",
    "f16",
    "tensor<?x4xf32>",
    "#tf.op<x>",
    " to ",
    "loc(",
    "dense<",
    "@x::@y",
    "tf.call",
    "->",
    "0x7FC00000",
    "0xFFFFFFFFFFFFFFFFFFFF",
    "99999999999999999999999",
    "9" * 5000,
    "1.0e400",
    "-0x1",
    "\ufeff",
    "{-# #-}",
    '"caf\u00e9"',
    '@"a b"',
    "\u00b2",
    "tuple<" * 70,
    "[" * 70,
    "(" * 70,
    'loc("n"(' * 40,
    "builtin.module {",
    "tf.module @z {",
    "hir.func @q() -> () {hir.return}",
    'tf.mesh "cta" {',
    "tir.let " * 70,
    "^bb0:",
    "!t = tuple<i32>\n",
    "affine_map<(d0) -> (d0)>",
    'dense<"0x00">',
    "dense_resource<blob>",
    "tensor<9223372036854775808xf32>",
    "i99999",
    "complex<f32>",
    "true",
    ": f16",
    ": index",
    "\x00",
    "callsite(",
    "fused<",
    "#tf.dims<n: 1 to 9>",
]


def run(path: Path, *flags: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with _hang_guard(path), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(path), *flags])
    return code, out.getvalue(), err.getvalue()


class Hang(BaseException):
    """A run that has not ended after HANG_GUARD seconds (a BaseException: tf-opt's own
    handlers, which report an Exception as an internal error, let it through)."""


@contextlib.contextmanager
def _hang_guard(path: Path) -> Iterator[None]:
    def hang(signum: int, frame: object) -> None:
        raise Hang(f"tf-opt still running after {HANG_GUARD} s on {path}")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(HANG_GUARD)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def check(path: Path, text: str) -> bool:
    """Run tf-opt on `text` (see the module docstring); whether it was accepted."""
    path.write_text(text, encoding="utf-8")
    code, out, err = run(path)
    shown = f"{text[:2000]!r}\n{err[:2000]}"
    assert code in (0, 1), f"exit {code}:\n{shown}"
    assert "internal error" not in err and "Traceback" not in err, shown
    if code == 1:
        assert err.startswith((f"{path}:", "tf-opt: error:")), shown
        assert ": error: " in err.splitlines()[0], shown
        return False
    path.write_text(out, encoding="utf-8")
    again = run(path)
    assert again == (0, out, ""), f"not a fixed point:\n{shown}\n{out}\n{again[2]}"
    code, generic, err = run(path, "--print-op-generic")
    assert (code, err) == (0, ""), f"generic form failed:\n{shown}\n{err}"
    path.write_text(generic, encoding="utf-8")
    assert run(path) == (0, out, ""), f"generic form reads back differently:\n{shown}"
    return True


def mutants(count: int, seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    chunks = [c for path in SOURCES for c in path.read_text(encoding="utf-8").split("// -----")]
    for _ in range(count):
        text = rng.choice(chunks)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(text) + 1)
            roll = rng.random()
            if roll < 0.35:
                text = text[:at] + text[at + rng.randint(1, 8) :]
            elif roll < 0.75:
                text = text[:at] + rng.choice(TOKENS) + text[at:]
            else:
                start = rng.randrange(len(text) + 1)
                text = text[:at] + text[start : start + rng.randint(1, 40)] + text[at:]
        yield text


T4 = "tensor<4xf32>"
NAME = '"n"('
LEVEL = '#tf.topology<"l{}">'
MESH = 'tf.mesh "l{}" {{\n'
NESTINGS: dict[str, Callable[[int], str]] = {
    "tuple types": lambda d: (
        f"hir.func @f(%x: {'tuple<' * d}{T4}{'>' * d}) -> () {{\n  hir.return\n}}\n"
    ),
    "arrays": lambda d: f"tf.module @m metadata {{a = {'[' * d}{']' * d}}} {{}}\n",
    "dictionaries": lambda d: f"tf.module @m metadata {{a = {'{a = ' * d}1{'}' * d}}} {{}}\n",
    "name locations": lambda d: f"tf.module @m {{}} loc({NAME * d}unknown{')' * d})\n",
    "call sites": lambda d: (
        f"tf.module @m {{}} loc({'callsite(' * d}unknown{' at unknown)' * d})\n"
    ),
    "function types": lambda d: (
        f"tf.module @m metadata {{a = {'(' * d}i32{') -> i32' * d}}} {{}}\n"
    ),
    "modules": lambda d: "".join(f"tf.module @m{i} {{\n" for i in range(d)) + "}\n" * d,
    "builtin modules": lambda d: "builtin.module {\n" * d + "}\n" * d,
    "meshes": lambda d: (  # each mesh over a finer level than the one around it
        f"tf.module @m topologies [{', '.join(LEVEL.format(i) for i in range(d))}] {{\n"
        f"hir.func @f(%x: {T4}) -> () {{\n"
        + "".join(MESH.format(i) for i in range(d))
        + "tf.yield\n}\n" * d
        + "hir.return\n}\n}\n"
    ),
    "generic regions": lambda d: (
        '"tf.module"() <{sym_name = "m"}> ({\n' * d + "^bb0:\n" + "}) : () -> ()\n" * d
    ),
    "dense literals": lambda d: (
        f"hir.func @f() -> () {{\n  %c = tf.constant dense<{'[' * d}1.0, 2.0{']' * d}> : "
        f"tensor<{'1x' * (d - 1)}2xf32>\n  hir.return\n}}\n"
    ),
    "type aliases": lambda d: (
        "!t0 = tuple<tensor<4xf32>>\n"
        + "".join(f"!t{i} = tuple<!t{i - 1}>\n" for i in range(1, d))
        + f"hir.func @f(%x: !t{d - 1}) -> () {{\n  hir.return\n}}\n"
    ),
    "tir.let": lambda d: (
        f"tir.prim_func @f(%x: {T4}) -> () {{\n  %y = {'tir.let ' * d}"
        f"tf.call tf.math.unary<kind = exp>(%x) : ({T4}) -> {T4}\n  tir.return\n}}\n"
    ),
}

INTEGER_PLACES = [
    "hir.func @f() -> tensor<2xi32> {{\n  %c = tf.constant dense<{n}> : tensor<2xi32>\n  hir.return %c : tensor<2xi32>\n}}\n",
    "tf.module @m metadata {{a = {n} : i8}} {{}}\n",
    "tf.module @m metadata {{a = {n}}} {{}}\n",
    "hir.func @f(%x: tensor<{n}xf32>) -> () {{\n  hir.return\n}}\n",
    'tf.module @m {{}} loc("a.py":{n}:1)\n',
    'tf.module @m topologies [#tf.topology<"cta", {n}>] {{}}\n',
    "hir.func @f(%x: tensor<?xf32, #tf.dims<n: 1 to {n}>>) -> () {{\n  hir.return\n}}\n",
]

FLOAT_TYPES = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}


def numbers(count: int, seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    for _ in range(count):
        if rng.random() < 0.5:
            digits = rng.choice([1, 5, 10, 19, 20, 21, 40, 4300, 4301, 6000])
            value = str(rng.randint(1, 9)) + "".join(rng.choices("0123456789", k=digits - 1))
            yield rng.choice(INTEGER_PLACES).format(n=("-" if rng.random() < 0.2 else "") + value)
            continue
        type, width = rng.choice(list(FLOAT_TYPES.items()))
        literal = rng.choice(
            [
                f"0x{rng.getrandbits(width):X}",
                f"0x{rng.getrandbits(width + 4):X}",
                f"{rng.uniform(-9, 9):.4f}e{rng.randint(-400, 400)}",
                f"[{rng.uniform(-1, 1):.3f}, 0x{rng.getrandbits(width):X}]",
            ]
        )
        dims = "2x" if literal.startswith("[") else rng.choice(["", "3x", "50000000x2x"])
        tensor = f"tensor<{dims}{type}>"
        yield (
            f"hir.func @f() -> {tensor} {{\n  %c = tf.constant dense<{literal}> : {tensor}\n"
            f"  hir.return %c : {tensor}\n}}\n"
        )


def strings(count: int, seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    alphabet = 'ab _.-$"\\\t\n\u00e9\u00f1\u4e2d\U0001f600\u200b\ufeff\x7f'
    for _ in range(count):
        a, b, c = ("".join(rng.choices(alphabet, k=rng.randint(1, 8))) for _ in range(3))
        q = [
            s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
            for s in (a, b, c)
        ]
        yield (
            f'tf.module @"{q[0]}" name "{q[1]}" {{\n'
            f'  hir.func @"{q[2]}"(%x: {T4} loc("{q[1]}":1:2)) -> {T4} {{\n'
            f'    %y = tf.call tf.math.unary<kind = neg>(%x) : ({T4}) -> {T4} loc("{q[0]}")\n'
            f"    hir.return %y : {T4}\n  }}\n}}\n"
        )


@pytest.mark.parametrize("seed", range(4))
def test_mutated_test_files(tmp_path: Path, seed: int) -> None:
    accepted = sum(check(tmp_path / "m.mlir", text) for text in mutants(40, seed))
    assert accepted < 40


@pytest.mark.parametrize("kind", NESTINGS)
def test_nesting(tmp_path: Path, kind: str) -> None:
    make = NESTINGS[kind]
    accepted = [check(tmp_path / "n.mlir", make(d)) for d in (10, 1000, 10000)]
    assert accepted[1:] == [False, False], kind
    if accepted[0]:  # the deepest accepted depth is read, printed and read back too
        low, high = 10, MAX_NESTING + 1
        while low < high:
            middle = (low + high + 1) // 2
            low, high = (
                (middle, high) if check(tmp_path / "n.mlir", make(middle)) else (low, middle - 1)
            )
        assert not check(tmp_path / "n.mlir", make(low + 1))


def test_numbers(tmp_path: Path) -> None:
    for text in numbers(60, seed=1):
        check(tmp_path / "x.mlir", text)


def test_huge_inputs(tmp_path: Path) -> None:
    rng = random.Random(3)
    elements = ", ".join(f"{rng.uniform(-1, 1):.6f}" for _ in range(4000))
    literal = f"dense<[{elements}]> : tensor<4000xf32>"
    assert check(
        tmp_path / "h.mlir",
        f"hir.func @f() -> tensor<4000xf32> {{\n  %c = tf.constant {literal}\n"
        "  hir.return %c : tensor<4000xf32>\n}\n",
    )
    calls = "".join(
        f"    %v{i + 1} = tf.call tf.math.unary<kind = neg>(%v{i}) : ({T4}) -> {T4}\n"
        for i in range(500)
    )
    assert check(
        tmp_path / "h.mlir",
        f"hir.func @f(%v0: {T4}) -> {T4} {{\n{calls}    hir.return %v500 : {T4}\n}}\n",
    )


def test_strings(tmp_path: Path) -> None:
    assert sum(check(tmp_path / "s.mlir", text) for text in strings(30, seed=2)) > 0


# ---------------------------------------------------------------------------------------------
# Bounded work: location aliases, regexes of --verify-diagnostics, deep pipelines


def check_with(path: Path, text: str, *flags: str) -> tuple[int, str, str]:
    """Run tf-opt with `flags` on `text`: a result or diagnostics, never an internal error;
    a failure's first line is a diagnostic."""
    path.write_text(text, encoding="utf-8")
    code, out, err = run(path, *flags)
    shown = f"{text[:2000]!r}\n{err[:2000]}"
    assert code in (0, 1), f"exit {code}:\n{shown}"
    assert "internal error" not in err and "Traceback" not in err, shown
    if code == 1:
        assert err.startswith((f"{path}:", "tf-opt: error:")), shown
        assert ": error: " in err.splitlines()[0], shown
    return code, out, err


def alias_graphs(count: int, seed: int) -> Iterator[str]:
    """Location aliases that refer to each other at random, before or after their definition:
    chains that share their parts (2^N written out), cycles, aliases of aliases."""
    rng = random.Random(seed)
    for _ in range(count):
        size = rng.choice([2, 5, 20, 40, 60])
        names = [f"#loc{i}" for i in range(size)]
        lines = []
        for i, name in enumerate(names):
            # mostly earlier aliases (chains); sometimes any (cycles)
            pool = names[:i] if i and rng.random() < 0.9 else names
            shape = rng.random()
            if i == 0:
                body = f'"a.py":{rng.randint(1, 9)}:1'
            elif shape < 0.6:
                body = f"callsite({rng.choice(pool)} at {rng.choice(pool)})"
            elif shape < 0.8:
                body = f"fused[{rng.choice(pool)}, {rng.choice(pool)}]"
            elif shape < 0.9:
                body = f'"n{i}"({rng.choice(pool)})'
            else:
                body = rng.choice(pool)
            lines.append(f"{name} = loc({body})")
        if rng.random() < 0.5:  # defined after their use, as mlir-opt prints them
            where = rng.choice(names)
            yield (
                f"tf.module @m {{\n  hir.func @f(%x: {T4}) -> {T4} {{\n"
                f"    hir.return %x : {T4} loc({where})\n  }}\n}}\n" + "\n".join(lines) + "\n"
            )
        else:
            where = names[-1]
            yield (
                "\n".join(lines) + f"\ntf.module @m {{\n  hir.func @f(%x: {T4}) -> {T4} {{\n"
                f"    hir.return %x : {T4} loc({where})\n  }}\n}}\n"
            )


def test_location_aliases(tmp_path: Path) -> None:
    """Seeded alias graphs: each read in linear time or refused in one line; an accepted one
    prints (shared parts once, through aliases) a fixed point that reads back."""
    path = tmp_path / "loc.mlir"
    accepted = 0
    for text in alias_graphs(40, seed=11):
        code, out, _ = check_with(path, text, "--print-debuginfo")
        if code == 0:
            accepted += 1
            assert len(out) < 20 * len(text) + 2000  # each shared part printed once
            assert check_with(path, out, "--print-debuginfo")[1] == out
    assert 0 < accepted < 40


PATTERN_PIECES = [
    "a",
    "(a|aa)+",
    "(a*)*",
    "(",
    ")",
    "|",
    "*",
    "+",
    "?",
    "{2}",
    "{99999999999}",
    "{1000}",
    "{3,1}",
    "[a-z]",
    "[^",
    "]",
    "\\d",
    "\\1",
    "\\b",
    "(?=",
    "(?:",
    ".",
    "^",
    "$",
    "x{2,}",
]


def patterns(count: int, seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    for _ in range(count):
        pieces = [rng.choice(PATTERN_PIECES) for _ in range(rng.randint(1, 8))]
        if rng.random() < 0.1:
            pieces = ["("] * rng.choice([50, 101, 600]) + ["a"] + [")"] * rng.choice([50, 101, 600])
        yield "".join(pieces)


def test_verify_diagnostics_regexes(tmp_path: Path) -> None:
    """Seeded patterns in an expected-error-re against a message with 48 `a`s: each one met,
    unmet or refused, in one line each, never a hang, a RecursionError or an OverflowError."""
    path = tmp_path / "re.mlir"
    outcomes = set()
    for pattern in patterns(60, seed=12):
        text = (
            f"tf.module @m {{\n  hir.func @f(%x: {T4}) -> {T4} {{\n"
            f"    // expected-error-re @+1 {{{{'@{{{{{pattern}}}}}' does not}}}}\n"
            f"    %y = tf.call @{'a' * 48}(%x) : ({T4}) -> {T4}\n"
            f"    hir.return %y : {T4}\n  }}\n}}\n"
        )
        code, _, err = check_with(path, text, "--verify-diagnostics")
        outcomes.add("met" if code == 0 else "refused" if "invalid regex" in err else "unmet")
    assert outcomes == {"met", "refused", "unmet"}


def test_deep_pipelines(tmp_path: Path) -> None:
    """Seeded pipelines nested 1 to 3,000 deep on the ops a pipeline nests on: a result, or
    one short line (the nesting limit), never a RecursionError."""
    rng = random.Random(13)
    path = tmp_path / "p.mlir"
    path.write_text(
        f"tf.module @m {{\n  hir.func @f(%x: {T4}) -> {T4} {{\n    hir.return %x : {T4}\n  }}\n}}\n"
    )
    anchors = ["tf.module", "hir.func", "tir.prim_func", "builtin.module", "tf.mesh"]
    for depth in [1, 2, 10, 63, 64, 65, 1000, 3000]:
        nests = [rng.choice(anchors) for _ in range(depth)]
        text = "".join(f"{n}(" for n in nests) + rng.choice(["cse", "tf-inline", ""]) + ")" * depth
        code, _, err = run(path, "-p", text)
        assert code in (0, 1), f"exit {code}: {err[:300]}"
        if code:
            assert err.count("\n") == 1 and err.startswith("tf-opt: error: ") and len(err) < 600
        if depth > 64:
            assert code == 1 and ("nests deeper than 64" in err or "cannot nest" in err), err[:300]
