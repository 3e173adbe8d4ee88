"""Spec section 2: IRMetadata, BindingMetadata, SourceSpanMetadata, the metadata rules of Expr
(only IRMetadata values, at most one per exact class, never in equality / hashing / repr) and the
six helpers (get_metadata, replace_metadata, remove_metadata, binding_name, diagnostic_location,
source_metadata). DESIGN section 1: metadata is debug info, kept through
`print_module(..., debuginfo=True)` + `parse_module`, with MLIR's range form for spans."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, cast

import pytest

from tilefoundry import (
    BindingMetadata,
    Constant,
    Expr,
    IRMetadata,
    Module,
    SourceSpanMetadata,
    TensorType,
    Topology,
    Tuple,
    Var,
    VerifyError,
    binding_name,
    diagnostic_location,
    get_metadata,
    ops,
    parse_module,
    print_module,
    remove_metadata,
    replace_metadata,
    source_metadata,
    structural_equal,
    structural_hash,
)
from tilefoundry.api.hir import Function

T4 = TensorType((4,), "f32")


@dataclass(frozen=True)
class FusionGroup(IRMetadata):
    """A custom metadata class with simple fields."""

    group: int
    label: str = "g"
    weight: float = 0.5
    hot: bool = False
    shape: tuple[int, ...] = ()


@dataclass(frozen=True)
class Reviewed(IRMetadata):
    """A custom metadata class with an optional (None-able) field."""

    reviewer: str | None = None
    rounds: int = 0


@dataclass(frozen=True)
class Commented(IRMetadata):
    text: str

    def format_comment(self) -> str | None:
        return f"note: {self.text}"


@dataclass(frozen=True)
class PreciseSpan(SourceSpanMetadata):
    """A subclass of SourceSpanMetadata: a different exact class."""


@dataclass(frozen=True)
class SpecialBinding(BindingMetadata):
    """A subclass of BindingMetadata: a different exact class."""


BIND = BindingMetadata("h")
SPAN = SourceSpanMetadata("f.py", 3, 4)
FUSE = FusionGroup(7)


def call(*metadata: IRMetadata) -> Expr:
    return ops.exp(Var("x", T4), metadata=metadata)


def one_function_module(body_metadata: tuple[IRMetadata, ...]) -> Module:
    x = Var("x", T4)
    return Module(
        name="m",
        functions=[Function(name="f", params=[x], body=ops.exp(x, metadata=body_metadata))],
    )


def round_trip_body_metadata(
    metadata: tuple[IRMetadata, ...], *, generic: bool = False
) -> tuple[IRMetadata, ...]:
    text = print_module(one_function_module(metadata), debuginfo=True, generic=generic)
    body = parse_module(text).lookup("f").body
    assert body is not None
    return body.metadata


# ---------------------------------------------------------------------------------------------
# The metadata classes


def test_binding_metadata_fields() -> None:
    assert BindingMetadata("h").name == "h"
    assert isinstance(BindingMetadata("h"), IRMetadata)


def test_source_span_metadata_fields() -> None:
    span = SourceSpanMetadata("f.py", 3, 4)
    assert (span.file, span.line, span.column) == ("f.py", 3, 4)
    assert span.end_line is None
    assert span.end_column is None
    ranged = SourceSpanMetadata("f.py", 3, 4, end_line=5, end_column=1)
    assert (ranged.end_line, ranged.end_column) == (5, 1)
    assert isinstance(span, IRMetadata)


@pytest.mark.parametrize(
    ("value", "field"),
    [(BindingMetadata("h"), "name"), (SourceSpanMetadata("f.py", 3, 4), "line"), (FUSE, "group")],
)
def test_metadata_is_immutable(value: IRMetadata, field: str) -> None:
    before = getattr(value, field)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field, before)


def test_a_mutable_subclass_cannot_be_declared() -> None:
    with pytest.raises(TypeError, match="frozen"):

        @dataclass
        class Mutable(IRMetadata):
            value: int = 0


def test_metadata_values_compare_by_value() -> None:
    assert BindingMetadata("h") == BindingMetadata("h")
    assert SourceSpanMetadata("f.py", 3, 4) != SourceSpanMetadata("f.py", 3, 5)
    assert hash(FusionGroup(1)) == hash(FusionGroup(1))


@pytest.mark.parametrize(
    "value", [BindingMetadata("h"), SourceSpanMetadata("f.py", 3, 4), FusionGroup(1)]
)
def test_format_comment_is_none_by_default(value: IRMetadata) -> None:
    assert value.format_comment() is None


def test_a_subclass_can_provide_a_comment() -> None:
    assert Commented("hot loop").format_comment() == "note: hot loop"


# ---------------------------------------------------------------------------------------------
# Metadata on every Expr


def every_expr_kind(metadata: tuple[IRMetadata, ...]) -> list[Expr]:
    x = Var("x", T4)
    return [
        Var("v", T4, metadata=metadata),
        Constant(1.0, metadata=metadata),
        Tuple([x], metadata=metadata),
        ops.neg(x, metadata=metadata),
    ]


def test_every_expr_carries_its_metadata_tuple() -> None:
    for expr in every_expr_kind((BIND, SPAN, FUSE)):
        assert expr.metadata == (BIND, SPAN, FUSE)
        assert type(expr.metadata) is tuple


def test_metadata_defaults_to_empty() -> None:
    assert Var("v", T4).metadata == ()
    assert Constant(1.0).metadata == ()
    assert ops.neg(Var("x", T4)).metadata == ()


def test_function_carries_metadata() -> None:
    x = Var("x", T4)
    f = Function(name="f", params=[x], body=ops.neg(x), metadata=(SPAN,))
    assert f.metadata == (SPAN,)


def test_var_metadata_is_kept_when_it_becomes_a_param() -> None:
    x = Var("x", T4, metadata=(BIND, SPAN))
    f = Function(name="f", params=[x], body=ops.neg(x))
    assert f.params[0].metadata == (BIND, SPAN)


def test_a_subclass_is_a_class_of_its_own() -> None:
    """At most one value per *exact* class: a subclass may sit next to its base."""
    expr = call(SPAN, PreciseSpan("g.py", 1, 1), BIND, SpecialBinding("s"))
    assert len(expr.metadata) == 4


@pytest.mark.parametrize("kind", range(4))
def test_duplicate_class_is_refused_with_context(kind: int) -> None:
    metadata = (BIND, SPAN, BindingMetadata("other"))
    with pytest.raises(VerifyError, match=r"BindingMetadata") as err:
        every_expr_kind(metadata)[kind]
    assert "'h'" in str(err.value)
    assert "f.py:3:4" in str(err.value)


def test_duplicate_custom_class_is_refused() -> None:
    with pytest.raises(VerifyError, match="FusionGroup.*'h'|'h'.*FusionGroup"):
        call(BIND, FusionGroup(1), FusionGroup(2))


def test_duplicate_span_is_refused_with_span_context() -> None:
    with pytest.raises(VerifyError, match=r"SourceSpanMetadata.*f\.py:3:4"):
        Constant(1.0, metadata=(SPAN, SourceSpanMetadata("f.py", 9, 9)))


@pytest.mark.parametrize("bad", ["h", 3, None, ("f.py", 3, 4), {"name": "h"}])
def test_non_metadata_entries_are_refused_with_context(bad: Any) -> None:
    with pytest.raises(VerifyError, match="IRMetadata") as err:
        call(BIND, SPAN, bad)
    assert "'h'" in str(err.value)
    assert "f.py:3:4" in str(err.value)


def test_non_metadata_entry_on_a_var_is_refused() -> None:
    with pytest.raises(VerifyError, match="IRMetadata"):
        Var("v", T4, metadata=cast(Any, ("v",)))


def test_non_metadata_entry_on_a_function_is_refused() -> None:
    x = Var("x", T4)
    with pytest.raises(VerifyError, match="IRMetadata"):
        Function(name="f", params=[x], body=ops.neg(x), metadata=cast(Any, (3,)))


def test_metadata_class_itself_is_not_a_value() -> None:
    with pytest.raises(VerifyError, match="IRMetadata"):
        call(cast(Any, BindingMetadata))


# ---------------------------------------------------------------------------------------------
# Metadata takes no part in equality, hashing or repr


def test_metadata_is_not_in_repr() -> None:
    secret = (BindingMetadata("secret_label"), SourceSpanMetadata("secret.py", 11, 22), FUSE)
    plain = every_expr_kind(())
    annotated = every_expr_kind(secret)
    for a, b in zip(plain, annotated, strict=True):
        text = repr(b)
        assert "secret" not in text
        assert "FusionGroup" not in text
        assert repr(a) == text


def test_function_repr_has_no_metadata() -> None:
    x = Var("x", T4, metadata=(BindingMetadata("secret_param"),))
    f = Function(
        name="f",
        params=[x],
        body=ops.neg(x, metadata=(BindingMetadata("secret_body"),)),
        metadata=(SourceSpanMetadata("secret.py", 1, 1),),
    )
    assert "secret" not in repr(f)


def test_metadata_is_not_in_structural_equality() -> None:
    for a, b in zip(every_expr_kind(()), every_expr_kind((BIND, SPAN, FUSE)), strict=True):
        assert structural_equal(a, b)


def test_metadata_is_not_in_structural_hash() -> None:
    # Tuple hashing is covered by test_structural.py
    plain = [e for e in every_expr_kind(()) if not isinstance(e, Tuple)]
    annotated = [e for e in every_expr_kind((BIND, SPAN, FUSE)) if not isinstance(e, Tuple)]
    for a, b in zip(plain, annotated, strict=True):
        assert structural_hash(a) == structural_hash(b)


def test_replace_metadata_gives_a_structurally_equal_distinct_node() -> None:
    original = call(BIND)
    copy = replace_metadata(original, SPAN)
    assert copy is not original
    assert copy != original  # identity
    assert structural_equal(copy, original)
    assert structural_hash(copy) == structural_hash(original)


# ---------------------------------------------------------------------------------------------
# get_metadata


def test_get_metadata_finds_the_unique_value() -> None:
    expr = call(BIND, SPAN, FUSE)
    assert get_metadata(expr, BindingMetadata) is not None
    assert get_metadata(expr, BindingMetadata) == BIND
    assert get_metadata(expr, SourceSpanMetadata) == SPAN
    assert get_metadata(expr, FusionGroup) == FUSE


def test_get_metadata_returns_none_when_absent() -> None:
    assert get_metadata(call(BIND), SourceSpanMetadata) is None
    assert get_metadata(call(), BindingMetadata) is None


def test_get_metadata_matches_the_exact_class() -> None:
    expr = call(PreciseSpan("g.py", 1, 2), SpecialBinding("s"))
    assert get_metadata(expr, SourceSpanMetadata) is None
    assert get_metadata(expr, BindingMetadata) is None
    assert get_metadata(expr, IRMetadata) is None
    assert get_metadata(expr, PreciseSpan) == PreciseSpan("g.py", 1, 2)


def test_get_metadata_picks_the_base_next_to_a_subclass() -> None:
    expr = call(PreciseSpan("g.py", 1, 2), SPAN)
    found = get_metadata(expr, SourceSpanMetadata)
    assert found == SPAN
    assert type(found) is SourceSpanMetadata


def test_get_metadata_on_a_var() -> None:
    v = Var("v", T4, metadata=(SPAN,))
    assert get_metadata(v, SourceSpanMetadata) == SPAN


# ---------------------------------------------------------------------------------------------
# replace_metadata


def test_replace_keeps_the_position() -> None:
    original = call(BIND, SPAN, FUSE)
    new_span = SourceSpanMetadata("g.py", 8, 1)
    copy = replace_metadata(original, new_span)
    assert copy.metadata == (BIND, new_span, FUSE)


def test_replace_first_and_last_positions() -> None:
    original = call(SPAN, FUSE, BIND)
    assert replace_metadata(original, SourceSpanMetadata("g.py", 1, 1)).metadata == (
        SourceSpanMetadata("g.py", 1, 1),
        FUSE,
        BIND,
    )
    assert replace_metadata(original, BindingMetadata("k")).metadata == (
        SPAN,
        FUSE,
        BindingMetadata("k"),
    )


def test_replace_appends_an_absent_class() -> None:
    original = call(SPAN, BIND)
    copy = replace_metadata(original, FUSE)
    assert copy.metadata == (SPAN, BIND, FUSE)


def test_replace_on_empty_metadata() -> None:
    assert replace_metadata(call(), BIND).metadata == (BIND,)


def test_replace_matches_the_exact_class() -> None:
    original = call(SPAN, BIND)
    precise = PreciseSpan("g.py", 1, 2)
    copy = replace_metadata(original, precise)
    assert copy.metadata == (SPAN, BIND, precise)
    special = SpecialBinding("s")
    assert replace_metadata(original, special).metadata == (SPAN, BIND, special)


def test_replace_does_not_mutate_the_input() -> None:
    original = call(BIND, SPAN)
    copy = replace_metadata(original, BindingMetadata("renamed"))
    assert copy is not original
    assert original.metadata == (BIND, SPAN)
    assert binding_name(original) == "h"
    assert binding_name(copy) == "renamed"


def test_replace_keeps_the_node_otherwise() -> None:
    x = Var("x", T4)
    y = Var("y", T4)
    original = ops.sub(x, y, metadata=(BIND,))
    copy = replace_metadata(original, SPAN)
    assert copy.type == original.type
    assert copy.target == original.target
    assert copy.args[0] is x
    assert copy.args[1] is y


def test_replace_on_a_var_does_not_mutate_it() -> None:
    v = Var("v", T4, is_const=True, metadata=(BIND,))
    copy = replace_metadata(v, SPAN)
    assert copy is not v
    assert v.metadata == (BIND,)
    assert copy.metadata == (BIND, SPAN)
    assert (copy.name, copy.type, copy.is_const) == ("v", T4, True)


@pytest.mark.parametrize("kind", range(4))
def test_replace_on_every_expr_kind(kind: int) -> None:
    original = every_expr_kind((SPAN,))[kind]
    copy = replace_metadata(original, BIND)
    assert copy.metadata == (SPAN, BIND)
    assert original.metadata == (SPAN,)
    assert type(copy) is type(original)


def test_replace_on_a_function() -> None:
    x = Var("x", T4)
    f = Function(name="f", params=[x], body=ops.neg(x), metadata=(SPAN,))
    copy = replace_metadata(f, BIND)
    assert copy.metadata == (SPAN, BIND)
    assert f.metadata == (SPAN,)


@pytest.mark.parametrize("bad", ["h", 3, None, BindingMetadata])
def test_replace_refuses_a_non_metadata_value(bad: Any) -> None:
    original = call(BIND)
    with pytest.raises(VerifyError, match="IRMetadata"):
        replace_metadata(original, bad)
    assert original.metadata == (BIND,)


def test_replace_refusal_names_the_binding_and_span() -> None:
    """Invalid entries raise VerifyError *including* binding / span context when available."""
    original = call(BIND, SPAN)
    with pytest.raises(VerifyError, match="IRMetadata") as err:
        replace_metadata(original, cast(Any, "oops"))
    assert "'h'" in str(err.value)
    assert "f.py:3:4" in str(err.value)


# ---------------------------------------------------------------------------------------------
# A copy of an expression that belongs to a function shares no use-list with that function


def _function_module() -> tuple[Module, Function]:
    x = Var("x", T4)
    body = ops.add(ops.exp(x, metadata=(BIND,)), ops.mul(x, Constant([1.0] * 4)))
    f = Function(name="f", params=[x], body=body)
    return Module(name="m", functions=[f], entry="f"), f


def _uses_from_outside(module: Module) -> list[str]:
    """Uses of the module's values by ops that are not in the module."""
    inside = set(module.module_op.walk())
    found = []
    for op in inside:
        for value in [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]:
            found += [use.operation.name for use in value.uses if use.operation not in inside]
    return found


@pytest.mark.parametrize("helper", ["replace", "remove"])
def test_a_copy_of_an_attached_expression_uses_nothing_of_its_function(helper: str) -> None:
    m, f = _function_module()
    body = cast(Any, f.body)
    if helper == "replace":
        copy = replace_metadata(body, SPAN)
    else:
        copy = remove_metadata(body.args[0], BindingMetadata)
    assert _uses_from_outside(m) == []
    assert copy.parent is None
    assert structural_equal(copy, body if helper == "replace" else body.args[0])


@pytest.mark.parametrize("name", ["canonicalize", "tf-simplify", "cse", "tf-fold-constants"])
def test_a_pass_run_on_the_input_after_a_copy_works(name: str) -> None:
    from tilefoundry.context.context import make_context
    from tilefoundry.transforms import PASSES

    m, f = _function_module()
    replace_metadata(cast(Any, f.body), SPAN)
    remove_metadata(cast(Any, f.body).args[0], BindingMetadata)
    PASSES[name]()().apply(make_context(), m.module_op)
    m.verify()


def test_the_copy_takes_new_vars_for_the_functions_params() -> None:
    m, f = _function_module()
    x = f.params[0]
    copy = cast(Any, replace_metadata(cast(Any, f.body), SPAN))
    free = copy.args[0].args[0]
    assert isinstance(free, Var) and free != x
    assert (free.name, free.type, free.is_const) == ("x", T4, False)
    assert copy.args[1].args[0] is free  # one Var per value of the function
    g = Function(name="g", params=[free], body=copy)  # a detached expression like any other
    assert structural_equal(g.body, f.body)
    assert binding_name(copy.args[0]) == "h"  # the copied producers keep their metadata


def test_a_copy_of_a_tir_expression_uses_nothing_of_its_function() -> None:
    from tilefoundry.api.tir import LetStmt, PrimFunction

    x = Var("x", T4)
    y = LetStmt("y", ops.exp(x))
    z = LetStmt("z", ops.add(ops.neg(y.var), x))
    k = PrimFunction(name="k", params=[x], body=[y, z], result=z.var)
    m = Module(name="m", functions=[k], entry="k")
    copy = cast(Any, replace_metadata(cast(Any, z.value), SPAN))
    assert _uses_from_outside(m) == []
    assert [a.name for a in copy.args[0].args] == ["y"]
    assert copy.args[1].name == "x"
    m.verify()


def test_a_copy_of_an_expression_in_a_mesh_uses_nothing_of_its_function() -> None:
    from tilefoundry import Mesh

    x = Var("x", T4)
    y = Mesh("cta", lambda: ops.add(ops.exp(x), x))
    f = Function(name="f", params=[x], body=y)
    m = Module(name="m", functions=[f], entry="f", topologies=(Topology("cta"),))
    copy = replace_metadata(cast(Any, f.body), SPAN)
    inner = replace_metadata(cast(Any, y).body.block.first_op, SPAN)
    assert _uses_from_outside(m) == []
    assert structural_equal(copy, y)
    assert inner.parent is None


# ---------------------------------------------------------------------------------------------
# remove_metadata


def test_remove_returns_a_copy_without_the_value() -> None:
    original = call(BIND, SPAN, FUSE)
    copy = remove_metadata(original, SourceSpanMetadata)
    assert copy is not original
    assert copy.metadata == (BIND, FUSE)
    assert original.metadata == (BIND, SPAN, FUSE)


def test_remove_binding_does_not_mutate_the_input() -> None:
    original = call(BIND, SPAN)
    copy = remove_metadata(original, BindingMetadata)
    assert copy.metadata == (SPAN,)
    assert binding_name(copy) is None
    assert binding_name(original) == "h"
    assert original.metadata == (BIND, SPAN)


def test_remove_returns_the_input_itself_when_absent() -> None:
    original = call(BIND)
    assert remove_metadata(original, SourceSpanMetadata) is original
    assert original.metadata == (BIND,)
    v = Var("v", T4)
    assert remove_metadata(v, BindingMetadata) is v


def test_remove_matches_the_exact_class() -> None:
    original = call(PreciseSpan("g.py", 1, 2), SpecialBinding("s"))
    assert remove_metadata(original, SourceSpanMetadata) is original
    assert remove_metadata(original, BindingMetadata) is original
    assert remove_metadata(original, IRMetadata) is original
    assert remove_metadata(original, PreciseSpan).metadata == (SpecialBinding("s"),)


def test_remove_keeps_a_subclass_next_to_the_base() -> None:
    precise = PreciseSpan("g.py", 1, 2)
    original = call(precise, SPAN, BIND)
    assert remove_metadata(original, SourceSpanMetadata).metadata == (precise, BIND)


def test_remove_on_a_var() -> None:
    v = Var("v", T4, metadata=(BIND, SPAN))
    copy = remove_metadata(v, BindingMetadata)
    assert copy.metadata == (SPAN,)
    assert v.metadata == (BIND, SPAN)


# ---------------------------------------------------------------------------------------------
# binding_name, diagnostic_location, source_metadata


def test_binding_name_is_the_authored_label() -> None:
    assert binding_name(call(SPAN, BindingMetadata("hidden"))) == "hidden"
    assert binding_name(call(SPAN)) is None
    assert binding_name(call()) is None


def test_binding_name_matches_the_exact_class() -> None:
    assert binding_name(call(SpecialBinding("s"))) is None


def test_diagnostic_location_prefers_the_span() -> None:
    location = diagnostic_location(call(BIND, SPAN))
    assert location is not None
    assert location.startswith("f.py:3:4")


def test_diagnostic_location_falls_back_to_the_label() -> None:
    assert diagnostic_location(call(BIND)) == "h"
    assert diagnostic_location(call(FUSE, BindingMetadata("lbl"))) == "lbl"


def test_diagnostic_location_none_without_span_or_label() -> None:
    assert diagnostic_location(call()) is None
    assert diagnostic_location(call(FUSE)) is None


def test_diagnostic_location_of_a_ranged_span() -> None:
    location = diagnostic_location(call(SourceSpanMetadata("f.py", 3, 4, 3, 10)))
    assert location is not None
    assert location.startswith("f.py:3:4")


def test_source_metadata_keeps_binding_and_span_in_order() -> None:
    assert source_metadata(call(FUSE, SPAN, Commented("c"), BIND)) == (SPAN, BIND)
    assert source_metadata(call(BIND, FUSE, SPAN)) == (BIND, SPAN)
    assert source_metadata(call(FUSE)) == ()
    assert type(source_metadata(call(BIND))) is tuple


def test_source_metadata_does_not_mutate_the_input() -> None:
    original = call(FUSE, SPAN, BIND)
    source_metadata(original)
    assert original.metadata == (FUSE, SPAN, BIND)


def test_source_metadata_carries_over_to_a_synthesized_replacement() -> None:
    x = Var("x", T4)
    old = ops.sub(x, x, metadata=(FUSE, SPAN, BIND))
    new = ops.add(x, ops.neg(x), metadata=source_metadata(old))
    assert new.metadata == (SPAN, BIND)
    assert binding_name(new) == "h"
    assert diagnostic_location(new) == diagnostic_location(old)


# ---------------------------------------------------------------------------------------------
# Debug info in text


@pytest.mark.parametrize("generic", [False, True])
def test_custom_metadata_round_trips_through_text(generic: bool) -> None:
    value = FusionGroup(3, label='a "quoted" label', weight=1.25, hot=True, shape=(2, 4))
    assert round_trip_body_metadata((value,), generic=generic) == (value,)


def test_custom_metadata_with_a_none_field_round_trips_through_text() -> None:
    value = Reviewed(reviewer=None, rounds=2)
    got = round_trip_body_metadata((value,))
    assert got == (value,)
    assert type(got[0]) is Reviewed


def test_custom_metadata_with_a_set_optional_field_round_trips_through_text() -> None:
    value = Reviewed(reviewer="ana", rounds=2)
    assert round_trip_body_metadata((value,)) == (value,)


def test_span_subclass_round_trips_through_text() -> None:
    value = PreciseSpan("g.py", 1, 2)  # end_line / end_column are None
    got = round_trip_body_metadata((value, SPAN))
    assert got == (value, SPAN)
    assert type(got[0]) is PreciseSpan


@pytest.mark.parametrize(
    "metadata",
    [
        (),
        (BIND,),
        (SPAN,),
        (BIND, SPAN),
        (SPAN, BIND),
        (FUSE, BIND),
        (BIND, FUSE),
        (SPAN, Commented("x"), BIND),
        (Commented("x"), SourceSpanMetadata("f.py", 3, 4, 3, 10), BIND),
        (PreciseSpan("g.py", 1, 2, 1, 5), SPAN),
    ],
)
@pytest.mark.parametrize("generic", [False, True])
def test_metadata_tuple_round_trips_through_text(
    metadata: tuple[IRMetadata, ...], generic: bool
) -> None:
    got = round_trip_body_metadata(metadata, generic=generic)
    assert got == metadata
    assert [type(m) for m in got] == [type(m) for m in metadata]


def test_span_with_an_end_prints_as_an_mlir_range() -> None:
    span = SourceSpanMetadata("f.py", 3, 4, end_line=3, end_column=10)
    text = print_module(one_function_module((span,)), debuginfo=True)
    assert 'loc("f.py":3:4 to 3:10)' in text
    assert round_trip_body_metadata((span,)) == (span,)


def test_span_ending_on_its_start_line_prints_with_a_bare_end_column() -> None:
    span = SourceSpanMetadata("f.py", 3, 4, end_line=None, end_column=10)
    text = print_module(one_function_module((span,)), debuginfo=True)
    assert 'loc("f.py":3:4 to :10)' in text
    got = round_trip_body_metadata((span,))
    assert got == (span,)
    assert got[0].end_line is None


def test_span_on_several_lines_prints_as_an_mlir_range() -> None:
    span = SourceSpanMetadata("f.py", 3, 4, end_line=5, end_column=1)
    text = print_module(one_function_module((span,)), debuginfo=True)
    assert 'loc("f.py":3:4 to 5:1)' in text
    assert round_trip_body_metadata((span,)) == (span,)


def test_hand_written_range_locations_parse_to_spans() -> None:
    text = (
        "tf.module @m {\n"
        "  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "    %0 = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>"
        ' loc("f.py":3:4 to :10)\n'
        "    %1 = tf.call tf.math.unary<kind = neg>(%0) : (tensor<4xf32>) -> tensor<4xf32>"
        ' loc("f.py":3:4 to 3:10)\n'
        "    hir.return %1 : tensor<4xf32>\n"
        "  }\n"
        "}\n"
    )
    body = parse_module(text).lookup("f").body
    assert body.metadata == (SourceSpanMetadata("f.py", 3, 4, 3, 10),)
    assert body.args[0].metadata == (SourceSpanMetadata("f.py", 3, 4, None, 10),)


def test_param_and_function_metadata_round_trip_through_text() -> None:
    param_metadata = (SourceSpanMetadata("p.py", 1, 2, None, 9), BindingMetadata("xx"))
    x = Var("x", T4, metadata=param_metadata)
    f = Function(name="f", params=[x], body=ops.neg(x), metadata=(SPAN, FUSE))
    text = print_module(Module(name="m", functions=[f]), debuginfo=True)
    g = parse_module(text).lookup("f")
    assert g.params[0].metadata == param_metadata
    assert g.metadata == (SPAN, FUSE)


def test_binding_survives_text_without_debuginfo_as_the_ssa_name() -> None:
    text = print_module(one_function_module((BindingMetadata("hidden"), SPAN)))
    assert "%hidden = " in text
    body = parse_module(text).lookup("f").body
    assert binding_name(body) == "hidden"


@pytest.mark.parametrize(
    "span",
    [
        SourceSpanMetadata("m.py", 3, 4),
        SourceSpanMetadata("m.py", 3, 4, None, 9),
        SourceSpanMetadata("dir/ü.py", 3, 4, 5, 1),
        SourceSpanMetadata("", 0, 0, 0, 0),
    ],
)
def test_a_span_s_location_is_the_verified_one(span: SourceSpanMetadata) -> None:
    """The span's location is made without the attributes' generic verification: it is equal
    to (and prints as) the one the verified constructors make, and reads back as the span."""
    from xdsl.dialects.builtin import ArrayAttr, FileLineColLoc, FusedLoc, IntAttr, NoneAttr
    from xdsl.dialects.builtin import StringAttr as Str

    from tilefoundry.builtin.metadata import (
        SpanEndAttr,
        location_to_metadata,
        metadata_to_location,
    )

    start = FileLineColLoc(Str(span.file), IntAttr(span.line), IntAttr(span.column))
    verified: Any = start
    if span.end_column is not None:
        end_line = NoneAttr() if span.end_line is None else IntAttr(span.end_line)
        verified = FusedLoc(ArrayAttr((start,)), SpanEndAttr(end_line, IntAttr(span.end_column)))
    made = metadata_to_location((span,))
    assert made == verified and hash(made) == hash(verified) and str(made) == str(verified)
    made.verify()
    assert location_to_metadata(made) == (span,)


def test_a_location_of_shared_parts_is_read_without_walking_every_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fused location whose parts are shared (`#loc` aliases) is a DAG of 2^depth paths:
    only spans and bindings of spans go through the memo, whose key is hashed by walking the
    whole attribute (the irdl round trip of location-aliases.mlir hung there)."""
    from xdsl.dialects.builtin import ArrayAttr, FileLineColLoc, FusedLoc, IntAttr, NoneAttr
    from xdsl.dialects.builtin import StringAttr as Str

    from tilefoundry.builtin import metadata as md
    from tilefoundry.support.diagnostics import VerifyError

    memo_keys: list[str] = []  # what would be hashed (by kind: a DAG's repr is exponential too)
    monkeypatch.setattr(md, "_plain_metadata", lambda loc: memo_keys.append(type(loc).__name__))
    leaf = FileLineColLoc(Str("m.py"), IntAttr(1), IntAttr(2))
    shared: Any = leaf
    for _ in range(64):  # 2^64 paths, 65 distinct locations
        shared = FusedLoc(ArrayAttr((shared, shared)), NoneAttr())
    with pytest.raises(VerifyError, match="more than 4096 metadata values"):
        md.location_to_metadata(shared)
    assert memo_keys == []
    assert md.location_to_metadata(leaf) == (SourceSpanMetadata("m.py", 1, 2),)
    assert memo_keys == ["FileLineColLoc"]


@pytest.mark.parametrize(
    "items",
    [
        (SourceSpanMetadata("m.py", 3, 4, 3, 9),),
        (SourceSpanMetadata("m.py", 3, 4, None, 9),),
        (BindingMetadata("h"), SourceSpanMetadata("m.py", 3, 4, 5, 1)),
        (BindingMetadata("h"),),
    ],
)
def test_a_remembered_location_reads_back_as_it_was_made(items: tuple[IRMetadata, ...]) -> None:
    """A location the DSL made and remembered (`remember_location`) reads back, by its
    identity, as the metadata it was made from: what reading it walks out (an equal location
    not remembered reads the same); its entry goes with it."""
    import gc

    from tilefoundry.builtin import metadata as md

    made = md.metadata_to_location(items)
    md.remember_location(made, items)
    assert md.location_to_metadata(made) is items
    equal = md.metadata_to_location(items)
    assert equal == made and md.location_to_metadata(equal) == items
    assert md._MADE.get(id(equal)) is None
    key = id(made)
    del made
    gc.collect()
    assert md._MADE.get(key) is None


def test_only_bindings_and_spans_are_remembered() -> None:
    """Other metadata (another class, a subclass of a binding) is read from the location each
    time: its values need not be immutable."""
    from tilefoundry.builtin import metadata as md

    for items in [(FUSE,), (SpecialBinding("h"),), (BIND, FUSE)]:
        made = md.metadata_to_location(items)
        md.remember_location(made, items)
        assert md._MADE.get(id(made)) is None
        assert md.location_to_metadata(made) == items
