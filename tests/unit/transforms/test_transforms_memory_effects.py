"""One memory model (issue 12): passes keep what a TIR program computes when it writes buffers.

Each kernel reads a buffer, writes it in place (a `tf.memory.copy`, or a call of a prim function
that copies into its parameter) and reads it again; others read without writing, allocate, and
call read-only functions. Each runs through the interpreter before and after `cse`,
`canonicalize`, `dce`, `tf-inline` and pipelines of several; the results and the buffers' final
contents must be the same bits.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry import BufferType

B4 = "!tf.buffer<4xf32>"
T4 = "tensor<4xf32>"
BD = "!tf.buffer<?xf32, #tf.dims<n: 1 to 9>>"
TD = "tensor<?xf32, #tf.dims<n: 1 to 9>>"

KERNELS = {
    # the kernel: neg(x) - neg(x after the copy)
    "copy": f"""
  tir.prim_func @k(%x: {B4}, %y: {T4}) -> {T4} {{
    %l1 = tir.let tf.call tf.memory.load(%x) : ({B4}) -> {T4}
    %a = tir.let tf.call tf.math.unary<kind = neg>(%l1) : ({T4}) -> {T4}
    tir.evaluate tf.call tf.memory.copy(%x, %y) : ({B4}, {T4}) -> ()
    %l2 = tir.let tf.call tf.memory.load(%x) : ({B4}) -> {T4}
    %b = tir.let tf.call tf.math.unary<kind = neg>(%l2) : ({T4}) -> {T4}
    %s = tir.let tf.call tf.math.binary<kind = sub>(%a, %b) : ({T4}, {T4}) -> {T4}
    tir.return %s : {T4}
  }}""",
    # the write is a call of a prim function that writes its parameter
    "call": f"""
  tir.prim_func @k(%x: {B4}, %y: {T4}) -> {T4} {{
    %l1 = tir.let tf.call tf.memory.load(%x) : ({B4}) -> {T4}
    %a = tir.let tf.call tf.math.unary<kind = neg>(%l1) : ({T4}) -> {T4}
    tir.evaluate tf.call @fill(%x, %y) : ({B4}, {T4}) -> ()
    %l2 = tir.let tf.call tf.memory.load(%x) : ({B4}) -> {T4}
    %b = tir.let tf.call tf.math.unary<kind = neg>(%l2) : ({T4}) -> {T4}
    %s = tir.let tf.call tf.math.binary<kind = sub>(%a, %b) : ({T4}, {T4}) -> {T4}
    tir.return %s : {T4}
  }}
  tir.prim_func @fill(%dst: {B4}, %src: {T4}) -> () {{
    %e = tir.let tf.call tf.math.unary<kind = exp>(%src) : ({T4}) -> {T4}
    tir.evaluate tf.call tf.memory.copy(%dst, %e) : ({B4}, {T4}) -> ()
    tir.return
  }}""",
    # a value-form call that writes: the callee copies into %dst and returns what it read before
    "value_call": f"""
  tir.prim_func @k(%x: {B4}, %y: {T4}) -> {T4} {{
    %l1 = tir.let tf.call tf.memory.load(%x) : ({B4}) -> {T4}
    %old = tir.let tf.call @swap(%x, %y) : ({B4}, {T4}) -> {T4}
    %l2 = tir.let tf.call tf.memory.load(%x) : ({B4}) -> {T4}
    %old2 = tir.let tf.call @swap(%x, %y) : ({B4}, {T4}) -> {T4}
    %s = tir.let tf.call tf.math.binary<kind = sub>(%l1, %l2) : ({T4}, {T4}) -> {T4}
    %t = tir.let tf.call tf.math.binary<kind = sub>(%old, %old2) : ({T4}, {T4}) -> {T4}
    %u = tir.let tf.call tf.math.binary<kind = add>(%s, %t) : ({T4}, {T4}) -> {T4}
    tir.return %u : {T4}
  }}
  tir.prim_func @swap(%dst: {B4}, %src: {T4}) -> {T4} {{
    %before = tir.let tf.call tf.memory.load(%dst) : ({B4}) -> {T4}
    %n = tir.let tf.call tf.math.unary<kind = neg>(%src) : ({T4}) -> {T4}
    tir.evaluate tf.call tf.memory.copy(%dst, %n) : ({B4}, {T4}) -> ()
    tir.return %before : {T4}
  }}""",
    # reads with no write between, and a read-only callee called twice
    "reads": f"""
  tir.prim_func @k(%x: {B4}, %y: {T4}) -> {T4} {{
    %l1 = tir.let tf.call tf.memory.load(%x) : ({B4}) -> {T4}
    %l2 = tir.let tf.call tf.memory.load(%x) : ({B4}) -> {T4}
    %r1 = tir.let tf.call @peek(%x) : ({B4}) -> {T4}
    %r2 = tir.let tf.call @peek(%x) : ({B4}) -> {T4}
    %s = tir.let tf.call tf.math.binary<kind = sub>(%l1, %l2) : ({T4}, {T4}) -> {T4}
    %t = tir.let tf.call tf.math.binary<kind = add>(%r1, %r2) : ({T4}, {T4}) -> {T4}
    %u = tir.let tf.call tf.math.binary<kind = add>(%s, %t) : ({T4}, {T4}) -> {T4}
    tir.return %u : {T4}
  }}
  tir.prim_func @peek(%b: {B4}) -> {T4} {{
    %l = tir.let tf.call tf.memory.load(%b) : ({B4}) -> {T4}
    %n = tir.let tf.call tf.math.unary<kind = neg>(%l) : ({T4}) -> {T4}
    tir.return %n : {T4}
  }}""",
    # two allocs (zero-initialised) are two buffers; one is written, one is not
    "allocs": f"""
  tir.prim_func @k(%x: {B4}, %y: {T4}) -> {T4} {{
    %a = tir.let tf.call tf.memory.alloc<shape = [4], dtype = f32>() : () -> {B4}
    %b = tir.let tf.call tf.memory.alloc<shape = [4], dtype = f32>() : () -> {B4}
    tir.evaluate tf.call tf.memory.copy(%a, %y) : ({B4}, {T4}) -> ()
    tir.evaluate tf.call tf.memory.copy(%x, %a) : ({B4}, {B4}) -> ()
    %la = tir.let tf.call tf.memory.load(%a) : ({B4}) -> {T4}
    %lb = tir.let tf.call tf.memory.load(%b) : ({B4}) -> {T4}
    %s = tir.let tf.call tf.math.binary<kind = sub>(%la, %lb) : ({T4}, {T4}) -> {T4}
    tir.return %s : {T4}
  }}""",
    # a callee with a scratch buffer of its own, called twice: inlined, two allocs stay two
    "scratch": f"""
  tir.prim_func @k(%x: {B4}, %y: {T4}) -> {T4} {{
    %t = tir.let tf.call @scratch(%x, %y) : ({B4}, {T4}) -> {T4}
    %u = tir.let tf.call @scratch(%x, %t) : ({B4}, {T4}) -> {T4}
    %s = tir.let tf.call tf.math.binary<kind = sub>(%t, %u) : ({T4}, {T4}) -> {T4}
    tir.return %s : {T4}
  }}
  tir.prim_func @scratch(%x: {B4}, %y: {T4}) -> {T4} {{
    %a = tir.let tf.call tf.memory.alloc<shape = [4], dtype = f32>() : () -> {B4}
    %l0 = tir.let tf.call tf.memory.load(%a) : ({B4}) -> {T4}
    tir.evaluate tf.call tf.memory.copy(%a, %x) : ({B4}, {B4}) -> ()
    %e = tir.let tf.call tf.math.unary<kind = exp>(%y) : ({T4}) -> {T4}
    tir.evaluate tf.call tf.memory.copy(%x, %e) : ({B4}, {T4}) -> ()
    %l = tir.let tf.call tf.memory.load(%a) : ({B4}) -> {T4}
    %r = tir.let tf.call tf.math.binary<kind = add>(%l, %l0) : ({T4}, {T4}) -> {T4}
    tir.return %r : {T4}
  }}""",
    # the write is a case of a tir.dispatch
    "dispatch": f"""
  tir.prim_func @k(%x: {BD}, %y: {TD}) -> {TD} {{
    %l1 = tir.let tf.call tf.memory.load(%x) : ({BD}) -> {TD}
    %d = tir.let tf.call @pick(%x, %y) : ({BD}, {TD}) -> {TD}
    %l2 = tir.let tf.call tf.memory.load(%x) : ({BD}) -> {TD}
    %s = tir.let tf.call tf.math.binary<kind = sub>(%l1, %l2) : ({TD}, {TD}) -> {TD}
    %t = tir.let tf.call tf.math.binary<kind = add>(%s, %d) : ({TD}, {TD}) -> {TD}
    tir.return %t : {TD}
  }}
  tir.prim_func @pick(%x: {BD}, %y: {TD}) -> {TD} {{
    %d = tir.let tir.dispatch [@put: [n: 1 to 9]](%x, %y, %y) : ({BD}, {TD}, {TD}) -> {TD}
    tir.return %d : {TD}
  }}
  tir.prim_func @put(%x: {BD}, %y: {TD}, %z: {TD}) -> {TD} {{
    tir.evaluate tf.call tf.memory.copy(%x, %y) : ({BD}, {TD}) -> ()
    tir.return %z : {TD}
  }}""",
    # literals copied into a buffer, read back: nothing folds the reads
    "literals": f"""
  tir.prim_func @k(%x: {B4}, %y: {T4}) -> {T4} {{
    %c = tir.let tf.constant dense<[1.0, 2.0, 3.0, 4.0]> : {T4}
    tir.evaluate tf.call tf.memory.copy(%x, %c) : ({B4}, {T4}) -> ()
    %l1 = tir.let tf.call tf.memory.load(%x) : ({B4}) -> {T4}
    %n1 = tir.let tf.call tf.math.unary<kind = neg>(%l1) : ({T4}) -> {T4}
    tir.evaluate tf.call tf.memory.copy(%x, %y) : ({B4}, {T4}) -> ()
    %l2 = tir.let tf.call tf.memory.load(%x) : ({B4}) -> {T4}
    %n2 = tir.let tf.call tf.math.unary<kind = neg>(%l2) : ({T4}) -> {T4}
    %s = tir.let tf.call tf.math.binary<kind = sub>(%n1, %n2) : ({T4}, {T4}) -> {T4}
    tir.return %s : {T4}
  }}""",
}

PIPELINES = [
    "cse",
    "canonicalize",
    "dce",
    "tf-inline",
    "tf-simplify",
    "tf-fold-constants",
    "tf-prune-unreachable",
    "tf-strip-debuginfo",
    "tf-analyze",
    "tf-verify-published",
    "cse,canonicalize,dce",
    "tf-inline,cse,canonicalize,dce",
    "tf-inline,canonicalize,cse,dce,tf-prune-unreachable",
    "tf-simplify,tf-fold-constants,cse,tf-inline,tf-simplify,canonicalize,cse,dce,tf-analyze",
]


def module(name: str) -> tf.Module:
    header = 'tf.module @m target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>]'
    return tf.parse_module(f"{header} {{{KERNELS[name]}\n}}")


def run(kernel: Any) -> tuple[bytes, bytes]:
    """The bits of the result and of the buffer's final contents, on fixed inputs."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal(4).astype(np.float32)
    y = rng.standard_normal(4).astype(np.float32)
    result = kernel.k(x, y)
    return np.asarray(result).tobytes(), x.tobytes()


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_the_kernels_compute_what_they_say(name: str) -> None:
    """The reads see the writes (so the passes have something to keep)."""
    result, _ = run(module(name))
    values = np.frombuffer(result, np.float32)
    if name in ("copy", "call", "literals", "allocs"):
        assert np.any(values != 0), "the write is invisible: the test could not fail"


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_passes_keep_the_bits(name: str, pipeline: str) -> None:
    original = module(name)
    want = run(original)
    got = run(tf.run_passes(original, pipeline))
    assert got == want, f"{pipeline} changed what {name} computes"


def test_a_prim_function_writes_the_callers_array_in_place() -> None:
    m = module("copy")
    x = np.zeros(4, np.float32)
    y = np.arange(4, dtype=np.float32)
    m.k(x, y)
    np.testing.assert_array_equal(x, y)


def test_a_buffer_argument_must_be_a_writeable_array_of_its_dtype() -> None:
    m = module("copy")
    y = np.zeros(4, np.float32)
    for bad, why in [
        ([0.0, 0.0, 0.0, 0.0], "got list"),
        (np.zeros(4, np.float64), "got a float64 array"),
        (np.zeros(4, np.float32)[::1].view(), None),
    ]:
        if why is None:
            bad.flags.writeable = False
            why = "read-only"
        with pytest.raises(ValueError, match=rf"buffer \(!tf.buffer<4xf32>\).*{why}"):
            m.k(bad, y)


def test_tensors_are_read_only_in_the_interpreter() -> None:
    """A tensor never changes: an op that wrote one would raise (and the caller's array, given
    for a tensor parameter, is left writeable)."""
    from tilefoundry.interpreter.evaluate import check_argument

    given = np.ones(4, np.float32)
    seen = check_argument("y", tf.TensorType((4,), "f32"), given, {})
    assert not seen.flags.writeable and given.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        seen[0] = 2.0
    buffer = check_argument("x", BufferType((4,), "f32"), given, {})
    assert buffer is given


def test_a_load_is_a_snapshot() -> None:
    """`load` copies: the tensor it gives keeps its value after the buffer is written."""
    m = module("literals")
    x = np.zeros(4, np.float32)
    y = np.full(4, 10.0, np.float32)
    np.testing.assert_array_equal(m.k(x, y), np.array([9, 8, 7, 6], np.float32))


def test_a_deep_chain_of_calls_is_summarised_without_deep_recursion() -> None:
    """The effects of a call are its callee's, through the whole call graph: a chain of 1500
    calls is walked explicitly (no RecursionError), each function once per pass."""
    depth = 1500
    t = "tensor<4xf32>"
    lines = ["tf.module @chain {"]
    for i in range(depth):
        body = (
            f"    %y = tf.call @f{i + 1}(%x) : ({t}) -> {t}\n"
            f"    %z = tf.call @f{i + 1}(%x) : ({t}) -> {t}\n"
            f"    %s = tf.call tf.math.binary<kind = add>(%y, %z) : ({t}, {t}) -> {t}\n"
            f"    hir.return %s : {t}"
            if i + 1 < depth
            else f"    hir.return %x : {t}"
        )
        lines.append(f"  hir.func @f{i}(%x: {t}) -> {t} {{\n{body}\n  }}")
    lines.append("}")
    result = tf.run_passes(tf.parse_module("\n".join(lines)), "cse,dce")
    first = tf.print_module(result).split("hir.func @f1(")[0]
    assert first.count("tf.call @f1(") == 1  # the two pure calls are one
