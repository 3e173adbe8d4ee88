"""`lower_module` / `tilefoundry.lower` (issue 20): the spec's rules of the HIR → TIR lowering,
each a test — where it starts (core_ir.md §1 "Default step"), what it keeps, variants as a
`tir.dispatch` made from the `DimVarRangePat` fields (§3, §3.1), the refusals, and that the
lowered module computes what the HIR did on every size its signature admits."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr

import tilefoundry as tf
from tilefoundry.builtin.metadata import (
    BindingMetadata,
    SourceSpanMetadata,
    location_to_metadata,
)
from tilefoundry.dialects.hir import FuncOp, VariantOp
from tilefoundry.dialects.tf.dim_range import DimRangeAttr
from tilefoundry.dialects.tf.module import ModuleOp
from tilefoundry.dialects.tir import DispatchOp, EvaluateOp, LetOp, PrimFuncOp
from tilefoundry.ir.algebra.patterns import DimVarRangePat
from tilefoundry.testing.validation import functions_by_path
from tilefoundry.transforms.lowering import LoweringError, lower_module, variant_names

N = "tensor<?xf32, #tf.dims<n: 1 to 9>>"
NM = "tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>"

TREE = f"""
tf.module @m name "Root" target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>] entry @main metadata {{opt_level = 2 : i64}} {{
  hir.func @main(%x: {N}, %w: tensor<4xf32> {{const}}) -> {N} {{
    %y = tf.call @layer::@used(%x) : ({N}) -> {N} loc("m.py":3:5)
    %z = tf.call @k(%y) : ({N}) -> {N}
    hir.return %z : {N}
  }}
  hir.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {{
    hir.return %x : tensor<4xf32>
  }}
  tir.prim_func @k(%x: {N}) -> {N} {{
    %e = tir.let tf.call tf.math.unary<kind = exp>(%x) : ({N}) -> {N}
    tir.return %e : {N}
  }}
  tf.module @layer name "Layer" entry @unused {{
    tir.prim_func @used(%x: {N}) -> {N} {{
      %d = tir.let tir.dispatch [@small: [n: 1 to 4], @big: [n: 4 to 9]](%x) : ({N}) -> {N}
      tir.return %d : {N}
    }}
    hir.func @unused(%x: tensor<4xf32>) -> tensor<4xf32> {{
      hir.return %x : tensor<4xf32>
    }}
    hir.func @small(%x: {N}) -> {N} {{
      hir.return %x : {N}
    }}
    hir.func @big(%x: {N}) -> {N} {{
      hir.return %x : {N}
    }}
  }}
  tf.module @other {{
    hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {{
      hir.return %x : tensor<4xf32>
    }}
  }}
}}
"""


def test_lowering_starts_at_the_entry_and_keeps_only_what_it_reaches() -> None:
    """Through calls and dispatch cases, into child modules, transitively; a child left with
    nothing goes, a child whose entry function is not reached keeps no entry."""
    lowered = tf.lower(tf.parse_module(TREE, "tree"))
    assert sorted(functions_by_path(lowered.module_op)) == [
        "k",
        "layer.big",
        "layer.small",
        "layer.used",
        "main",
    ]
    assert [m.attached_name for m in lowered.modules] == ["layer"]
    assert lowered.layer.entry is None
    assert all(isinstance(op, PrimFuncOp) for op in functions_by_path(lowered.module_op).values())


def test_the_tree_target_topologies_metadata_entry_and_weights_survive() -> None:
    module = tf.parse_module(TREE, "tree")
    lowered = tf.lower(module)
    assert (lowered.name, lowered.entry, lowered.target, lowered.topologies) == (
        module.name,
        module.entry,
        module.target,
        module.topologies,
    )
    assert lowered.metadata == module.metadata == {"opt_level": 2}
    assert lowered.layer.name == "Layer"
    assert dict(lowered.weights) == dict(module.weights) == {"w": tf.TensorType((4,), "f32")}
    assert tf.select(lowered, "layer.used").entry == "used"  # select works on it
    assert isinstance(tf.select(lowered, "layer.used").lookup("used"), tf.tir.PrimFunction)


def test_every_function_keeps_its_name_and_signature() -> None:
    module = tf.parse_module(TREE, "tree")
    lowered = tf.lower(module)
    before, after = module.lookup("main"), lowered.lookup("main")
    assert [(p.name, p.type, p.is_const) for p in after.params] == [
        (p.name, p.type, p.is_const) for p in before.params
    ]
    assert after.type == before.type
    assert str(lowered.lookup("k").function_op) == str(module.lookup("k").function_op)


def test_the_input_is_never_changed() -> None:
    module = tf.parse_module(TREE, "tree")
    text = tf.print_module(module, debuginfo=True)
    tf.lower(module)
    with pytest.raises(tf.VerifyError):
        tf.lower(module, function="layer")
    assert tf.print_module(module, debuginfo=True) == text


def test_a_module_without_an_entry_is_refused_as_entry_function_refuses_it() -> None:
    text = TREE.replace(" entry @main", "", 1)
    module = tf.parse_module(text, "tree")
    with pytest.raises(tf.VerifyError) as refused:
        module.entry_function()
    with pytest.raises(LoweringError) as lowering:
        tf.lower(module)
    message = str(lowering.value)
    assert message.startswith(str(refused.value))
    assert "'main', 'helper', 'k'" in message and "lookup('<name>')" in message
    assert "function='<path>'" in message
    assert lowering.value.op is module.module_op


def test_a_function_named_by_its_path_is_lowered_re_rooted_at_it() -> None:
    """`function=` takes a path as `select` does: the function's module, published (target
    and topologies declared), entered at it, only what it reaches."""
    module = tf.parse_module(TREE, "tree")
    kernel = tf.lower(module, function="layer.unused")
    assert (kernel.attached_name, kernel.entry, kernel.target) == ("layer", "unused", module.target)
    assert kernel.topologies == module.topologies
    assert sorted(functions_by_path(kernel.module_op)) == ["unused"]
    assert sorted(functions_by_path(tf.lower(module, function="@layer::@used").module_op)) == [
        "big",
        "small",
        "used",
    ]
    assert sorted(functions_by_path(tf.lower(module, function="helper").module_op)) == ["helper"]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("layer", "function='layer' names the module 'layer', not a function; name one of its"),
        ("nope", "path 'nope': 'nope' names no child module of <root>"),
        ("layer..used", "has an empty segment"),
        ("main.x", "'main' names no child module of <root>"),
        ("", "function='' names the module 'm', not a function"),
    ],
)
def test_a_path_that_names_no_function_is_refused(path: str, message: str) -> None:
    with pytest.raises(LoweringError, match=None) as refused:
        tf.lower(tf.parse_module(TREE, "tree"), function=path)
    assert message in str(refused.value)


VARIANTS = f"""
tf.module @m target #tf.target<"h100"> entry @f {{
  hir.func @f(%x: {NM}, %c: tensor<2xf32> {{const}}) -> {NM} {{
    %y = tf.call tf.math.unary<kind = exp>(%x) : ({NM}) -> {NM}
    hir.return %y : {NM}
  }} variants {{
    hir.variant [n: 2 to 5, m: 3 to 4] (%x: {NM}, %c: tensor<2xf32>) {{
      %y = tf.call tf.math.unary<kind = neg>(%x) : ({NM}) -> {NM}
      hir.return %y : {NM}
    }}
    hir.variant [n: 4 to 7] (%x: {NM}, %c: tensor<2xf32>) {{
      %y = tf.call tf.math.unary<kind = abs>(%x) : ({NM}) -> {NM}
      hir.return %y : {NM}
    }}
    hir.variant [m: 5 to 6] (%x: {NM}, %c: tensor<2xf32>) {{
      hir.return %x : {NM}
    }}
  }}
}}
"""


def dispatch_of(function: PrimFuncOp) -> DispatchOp:
    (dispatch,) = [op for op in function.walk() if isinstance(op, DispatchOp)]
    return dispatch


def test_variants_become_one_dispatch_over_prim_functions_made_from_them() -> None:
    """The cases in order, each from a variant's `DimVarRangePat` fields; the last the base
    body over the whole envelope of every DimVar the variants name."""
    lowered = tf.lower(tf.parse_module(VARIANTS, "variants"))
    functions = functions_by_path(lowered.module_op)
    assert list(functions) == ["f", "f$v0", "f$v1", "f$v2", "f$base"]
    f = functions["f"]
    assert isinstance(f, PrimFuncOp)
    statements = list(f.body.block.ops)
    assert [op.name for op in statements] == ["tir.let", "tir.return"]
    dispatch = dispatch_of(f)
    assert [c.root_reference.data for c in dispatch.callees] == list(functions)[1:]
    assert dispatch.case_patterns == (
        (DimVarRangePat("n", 2, 5), DimVarRangePat("m", 3, 4)),
        (DimVarRangePat("n", 4, 7),),
        (DimVarRangePat("m", 5, 6),),
        (DimVarRangePat("n", 1, 9), DimVarRangePat("m", 2, 6)),
    )
    assert list(dispatch.args) == list(f.body.block.args)
    for name in ("f$v0", "f$base"):  # every case: the signature, const-ness included
        case = functions[name]
        assert isinstance(case, PrimFuncOp)
        assert case.function_type == f.function_type
        assert case.param_names == f.param_names and case.arg_attrs == f.arg_attrs


def test_the_lowered_function_agrees_with_hir_on_every_size_the_signature_admits() -> None:
    """HIR falls back to the base body where no variant holds the sizes, while a dispatch
    raises: the base case covers the whole envelope, so every (n, m) gives the HIR's bits."""
    module = tf.parse_module(VARIANTS, "variants")
    lowered = tf.lower(module)
    rng = np.random.default_rng(0)
    c = np.zeros(2, np.float32)
    for n, m in itertools.product(range(1, 9), range(2, 6)):
        x = rng.standard_normal((n, m)).astype(np.float32)
        assert module.f(x, c).tobytes() == lowered.f(x, c).tobytes(), (n, m)


def test_the_cases_are_read_from_the_fields_never_by_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Spec §3: the lowering inspects each pattern's fields; it does not call `match`."""
    module = tf.parse_module(VARIANTS, "variants")

    def refuse(self: DimVarRangePat, value: object) -> bool:
        raise AssertionError("the lowering called DimVarRangePat.match")

    monkeypatch.setattr(DimVarRangePat, "match", refuse)
    lowered = tf.lower(module)
    monkeypatch.undo()
    assert len(dispatch_of(lowered.lookup("f").function_op).callees) == 4


def test_a_function_without_a_value_dispatches_in_a_tir_evaluate() -> None:
    text = f"""
tf.module @m entry @f {{
  hir.func @f(%x: {N}) -> () {{
    %y = tf.call tf.math.unary<kind = exp>(%x) : ({N}) -> {N}
    hir.return
  }} variants {{
    hir.variant [n: 1 to 4] (%x: {N}) {{
      hir.return
    }}
  }}
}}
"""
    lowered = tf.lower(tf.parse_module(text, "effect"))
    f = lowered.lookup("f").function_op
    (statement, _) = f.body.block.ops
    assert isinstance(statement, EvaluateOp) and isinstance(statement.call, DispatchOp)
    assert lowered.f(np.ones(3, np.float32)) is None


def test_variant_names_never_collide_with_a_symbol_of_the_module() -> None:
    assert variant_names("f", 2, set()) == (["f$v0", "f$v1"], "f$base")
    assert variant_names("f", 1, {"f$base"}) == (["f$$v0"], "f$$base")
    assert variant_names("f", 1, {"f$v0", "f$$base"}) == (["f$$$v0"], "f$$$base")
    text = VARIANTS.replace(
        "entry @f {", "entry @f {\n  tir.prim_func @f$v1() -> () { tir.return }"
    )
    text = text.replace("hir.variant [m: 5 to 6]", "hir.variant [m: 5 to 6]")
    lowered = tf.lower(tf.parse_module(text.replace("tf.call @f$v1", ""), "taken"))
    names = list(functions_by_path(lowered.module_op))
    assert names == ["f", "f$$v0", "f$$v1", "f$$v2", "f$$base"]  # f$v1 itself is not reached


def test_two_functions_with_variants_never_share_a_made_name() -> None:
    """`a` and `a$` both with variants: `a$`'s names are made first (`a$$v0`), so `a`'s take
    more `$`s than any name taken."""
    one = f"""
  hir.func @NAME(%x: {N}) -> {N} {{
    hir.return %x : {N}
  }} variants {{
    hir.variant [n: 1 to 4] (%x: {N}) {{
      hir.return %x : {N}
    }}
  }}"""
    text = (
        f"tf.module @m entry @main {{\n  hir.func @main(%x: {N}) -> {N} {{\n"
        f"    %a = tf.call @a$(%x) : ({N}) -> {N}\n"
        f"    %b = tf.call @a(%a) : ({N}) -> {N}\n"
        f"    hir.return %b : {N}\n  }}"
        + one.replace("NAME", "a$")
        + one.replace("NAME", "a")
        + "\n}\n"
    )
    lowered = tf.lower(tf.parse_module(text, "names"))
    names = list(functions_by_path(lowered.module_op))
    assert len(names) == len(set(names)) == 7
    x = np.arange(3, dtype=np.float32)
    assert lowered.main(x).tobytes() == x.tobytes()


def test_the_python_surface_reaches_the_made_functions() -> None:
    lowered = tf.lower(tf.parse_module(VARIANTS, "variants"))
    x, c = np.full((3, 3), -2.0, np.float32), np.zeros(2, np.float32)
    assert getattr(lowered, "f$v0")(x, c).tobytes() == (-x).tobytes()  # the variant's body
    assert "f$base" in dir(lowered)
    assert tf.select(lowered, "f$base").entry == "f$base"
    assert tf.select(lowered, "@f$v1").entry == "f$v1"


DIMLESS = """
tf.module @m target #tf.target<"h100"> entry @f {
  hir.func @g(%y: tensor<?xf32, #tf.dims<m: 1 to 9>>) -> tensor<?xf32, #tf.dims<m: 1 to 9>> {
    hir.return %y : tensor<?xf32, #tf.dims<m: 1 to 9>>
  }
  hir.func @f(%x: tensor<4xf32>) -> tensor<?xf32, #tf.dims<m: 1 to 9>> {
    %r = tf.call @g(%x) : (tensor<4xf32>) -> tensor<?xf32, #tf.dims<m: 1 to 9>>
    hir.return %r : tensor<?xf32, #tf.dims<m: 1 to 9>>
  } variants {
    hir.variant [m: 1 to 4] (%x: tensor<4xf32>) {
      %r = tf.call @g(%x) : (tensor<4xf32>) -> tensor<?xf32, #tf.dims<m: 1 to 9>>
      hir.return %r : tensor<?xf32, #tf.dims<m: 1 to 9>>
    } loc("v.py":7:3)
  }
}
"""


def test_a_variant_over_a_dim_var_no_parameter_carries_is_refused_at_the_variant() -> None:
    module = tf.parse_module(DIMLESS, "dimless")
    with pytest.raises(LoweringError) as refused:
        tf.lower(module)
    assert isinstance(refused.value.op, VariantOp)
    assert refused.value.message == (
        "variant #0 of function '@f' ranges over DimVar 'm', which no parameter carries (the "
        "parameters carry: none); a lowered function picks its variant by the sizes of its "
        "arguments, so a variant ranges over a DimVar of a parameter"
    )
    assert str(refused.value).endswith("(at v.py:7:3)")


def test_a_variant_outside_its_dim_var_envelope_is_refused_at_the_variant() -> None:
    """The verifier refuses such a variant too; the lowering checks it again, on the IR it is
    given (here made unverified by a write to the variant's ranges)."""
    module = tf.parse_module(VARIANTS, "variants")
    (f,) = [op for op in module.module_op.walk() if isinstance(op, FuncOp)]
    variant = f.variant_ops()[1]
    variant.ranges = ArrayAttr([DimRangeAttr(StringAttr("n"), IntAttr(4), IntAttr(12))])
    before = tf.print_module(module)
    with pytest.raises(LoweringError) as refused:
        lower_module(module.module_op)
    assert refused.value.op is variant
    assert refused.value.message == (
        "variant #1 of function '@f': range [4, 12) of DimVar 'n' is not inside its envelope "
        "[1, 9) (parameter 'x', axis 0); narrow the range"
    )
    assert tf.print_module(module) == before


def test_statements_keep_bindings_and_source_spans() -> None:
    """A statement takes the binding of the op it anchors; the op keeps its span."""
    lowered = tf.lower(tf.parse_module(TREE, "tree"))
    main = lowered.lookup("main").function_op
    first = main.body.block.first_op
    assert isinstance(first, LetOp)
    assert location_to_metadata(first.location) == (BindingMetadata("y"),)
    inner = first.body.block.first_op
    assert inner is not None
    assert location_to_metadata(inner.location) == (SourceSpanMetadata("m.py", 3, 5),)
    assert first.var.name == "y"


def test_lowering_a_lowered_module_changes_nothing() -> None:
    once = tf.lower(tf.parse_module(VARIANTS, "variants"))
    twice = tf.lower(once)
    assert tf.print_module(twice, debuginfo=True) == tf.print_module(once, debuginfo=True)


def test_a_child_module_lowers_as_a_copy_that_resolves_its_owners_context() -> None:
    module = tf.parse_module(TREE, "tree")
    layer = tf.lower(module.layer, function="used")
    assert layer.target == module.target  # published at the function, as select does
    child = lower_module(module.layer.module_op, function="used")
    assert child.owner_context is None and child.target is not None  # published, as select does
    text = TREE.replace(
        'tf.module @layer name "Layer" entry @unused', 'tf.module @layer name "Layer" entry @used'
    )
    child = lower_module(tf.parse_module(text, "tree").layer.module_op)
    assert isinstance(child, ModuleOp) and child.parent is None
    assert child.owner_context is not None  # within #tf.context<...>: what its owner provides


def test_the_costs_of_the_hir_go() -> None:
    module = tf.run_passes(tf.parse_module(TREE, "tree"), 'tf-analyze{table=""}')
    assert "tf.cost" in tf.print_module(module)
    assert "tf.cost" not in tf.print_module(tf.lower(module))


def test_tf_analyze_gives_the_lowered_module_the_flops_of_the_hir() -> None:
    """Inclusive FLOPs per function, for sizes that choose each variant and the base."""
    text = VARIANTS.replace('target #tf.target<"h100">', 'target #tf.target<"h100"> topologies []')
    module = tf.parse_module(text, "variants")
    lowered = tf.lower(module)
    for n, m, flops in [(3, 3, 9), (6, 4, 24), (8, 5, 0), (1, 2, 2), (8, 2, 16)]:
        dims = {"n": n, "m": m}  # variant 0, 1, 2 (no flops), the base body twice
        hir, tir = tf.analyze(module, dims), tf.analyze(lowered, dims)
        assert tir["f"].flops == hir["f"].flops == flops, dims
        assert tir["f"].self_flops == 0  # the dispatcher: its case's work is a callee's
        # as for any call, the case's parameters and result count once more
        assert tir["f"].bytes == hir["f"].bytes + tir["f$base"].self_bytes
    tree = tf.parse_module(TREE, "tree")
    hir, tir = tf.analyze(tree), tf.analyze(tf.lower(tree))
    assert {path: tir[path].flops for path in tir} == {path: hir[path].flops for path in tir}
    assert tir["main"].flops == 8  # exp over n = 8 (the envelope's largest size)


def test_methods_come_along() -> None:
    module = tf.parse_module(TREE, "tree")

    def twice(self: tf.Module, x: np.ndarray) -> np.ndarray:
        return self.main(self.main(x, np.zeros(4, np.float32)), np.zeros(4, np.float32))

    from tilefoundry.api.module import METHODS

    METHODS.set(module.module_op, {"twice": twice})
    lowered = tf.lower(module)
    x = np.ones(2, np.float32)
    assert lowered.twice(x).tobytes() == module.twice(x).tobytes()


def test_wrong_arguments_are_type_errors() -> None:
    with pytest.raises(TypeError, match="lower module must be a Module"):
        tf.lower("tf.module @m {}")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="lower function must be a path"):
        tf.lower(tf.parse_module(TREE, "tree"), function=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="lower module must be a tf.module"):
        lower_module("m")  # type: ignore[arg-type]
