"""Spec section 2.3: Op, ParamDef, @register_op, @register_alias, OpSchema, op_schemas.

Test ops live under dialect "test", category "registry", so they never clash with the library.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable
from typing import Any, ClassVar, cast

import pytest

from tilefoundry import (
    AndPat,
    Call,
    Constant,
    Expr,
    Op,
    OpSchema,
    ParamDef,
    Pattern,
    Scalar,
    Tensor,
    TensorPat,
    TensorType,
    TupleType,
    UnitType,
    Var,
    VerifyError,
    op_schemas,
    register_alias,
    register_op,
)
from tilefoundry.builtin.types import IRType
from tilefoundry.ir.algebra.op_registry import first_op_class
from tilefoundry.ops import (
    BINARY_ALIASES,
    UNARY_ALIASES,
    Binary,
    BinaryKind,
    Copy,
    MatMul,
    ReduceSum,
    Unary,
    UnaryKind,
    call_surface,
)

D, C = "test", "registry"
T4 = TensorType((4,), "f32")


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"


@register_op(dialect=D, category=C, name="scale")
class Scale(Op):
    """One tensor input and one attribute with a default."""

    x = ParamDef(kind="input", pattern=Tensor)
    factor = ParamDef(kind="attribute", annotation=int, default=1)

    def infer_type(self, *arg_types: IRType) -> IRType:
        return arg_types[0]


@register_alias(dialect=D, category=C, name="scale", params=[Scale.x])
def _scale_by_two() -> Op:
    return Scale(factor=2)


@register_alias(dialect=D, category=C, name="scale", params=[Scale.x])
def _scale_by_three() -> Op:
    return Scale(factor=3)


@register_alias(dialect=D, category=C, name="scale_by", params=[Scale.x])
def _scale_by(*, factor: int) -> Op:
    return Scale(factor=factor)


@register_alias(dialect=D, category=C, name="alias_only", params=[Scale.x])
def _alias_only() -> Op:
    return Scale(factor=4)


@register_op(dialect=D, category=C, name="ordered")
class Ordered(Op):
    """Inputs and attributes interleaved, in an order that is not alphabetical."""

    second = ParamDef(kind="input", pattern=Scalar)
    mode = ParamDef(kind="attribute", annotation=Mode)
    first = ParamDef(kind="input", pattern=Tensor)

    def infer_type(self, *arg_types: IRType) -> IRType:
        return arg_types[1]


class _Base(Op):
    zeta = ParamDef(kind="input", pattern=Tensor)
    alpha = ParamDef(kind="attribute", annotation=int, default=0)


class _Middle(_Base):
    mid = ParamDef(kind="input", pattern=Tensor)


@register_op(dialect=D, category=C, name="leaf")
class Leaf(_Middle):
    LIMIT: ClassVar[int] = 3  # not a ParamDef
    beta = ParamDef(kind="attribute", annotation=bool, default=False)

    def helper(self) -> int:
        return self.LIMIT

    def infer_type(self, *arg_types: IRType) -> IRType:
        return arg_types[0]


@register_op(dialect=D, category=C, name="no_attrs")
class NoAttrs(Op):
    a = ParamDef(kind="input", pattern=Tensor)

    def infer_type(self, *arg_types: IRType) -> IRType:
        return arg_types[0]


@register_op(dialect=D, category=C, name="options")
class Options(Op):
    a = ParamDef(kind="input")
    limit = ParamDef(kind="attribute", annotation=int, optional=True)
    label = ParamDef(kind="attribute", annotation=str, default="x")
    ratio = ParamDef(kind="attribute", annotation=float)

    def infer_type(self, *arg_types: IRType) -> IRType:
        return arg_types[0]


@register_op(dialect=D, category=C, name="store")
class Store(Op):
    """Effect form: acts in place, produces no value."""

    pure: ClassVar[bool] = False
    dst = ParamDef(kind="input", pattern=Tensor)
    src = ParamDef(kind="input", pattern=Tensor)

    def infer_type(self, *arg_types: IRType) -> IRType:
        return UnitType()


@register_op(dialect=D, category=C, name="pair")
class Pair(Op):
    """Multi-output value form: a tuple."""

    a = ParamDef(kind="input", pattern=Tensor)

    def infer_type(self, *arg_types: IRType) -> IRType:
        return TupleType((arg_types[0], arg_types[0]))


class EvenLength(Pattern):
    def match(self, subject: object) -> bool:
        return isinstance(subject, TensorType) and subject.rank == 1 and subject.shape[0] % 2 == 0


@register_op(dialect=D, category=C, name="halves")
class Halves(Op):
    a = ParamDef(kind="input", pattern=EvenLength())

    def infer_type(self, *arg_types: IRType) -> IRType:
        return arg_types[0]


@register_op(dialect=D, category=C, name="rank_one_f32")
class RankOneF32(Op):
    a = ParamDef(kind="input", pattern=AndPat((TensorPat(rank=1), TensorPat(dtype="f32"))))

    def infer_type(self, *arg_types: IRType) -> IRType:
        return arg_types[0]


@register_alias(dialect=D, category=C, name="early", params=[Scale.x])
def _early() -> Op:
    return Scale(factor=7)


@register_op(dialect=D, category=C, name="early")
class Early(Op):
    """Registered after an alias of the same coordinates."""

    a = ParamDef(kind="input", pattern=Tensor)

    def infer_type(self, *arg_types: IRType) -> IRType:
        return arg_types[0]


def names(params: list[ParamDef] | tuple[ParamDef, ...]) -> list[str]:
    return [p.name for p in params]


# ---------------------------------------------------------------------------------------------
# Op is a value class, not an Expr


def test_op_is_not_an_expr() -> None:
    assert not issubclass(Op, Expr)
    assert not isinstance(Binary(kind=BinaryKind.ADD), Expr)
    assert not isinstance(MatMul(), Expr)


def test_a_call_carries_the_op_instance() -> None:
    c = Call(Scale(factor=5), [Var("x", T4)])
    assert isinstance(c.target, Op)
    assert c.target == Scale(factor=5)
    assert c.target.factor == 5


def test_ops_with_attributes_are_values() -> None:
    assert Scale(factor=2) == Scale(factor=2)
    assert hash(Scale(factor=2)) == hash(Scale(factor=2))
    assert Scale(factor=2) != Scale(factor=3)
    assert Binary(kind=BinaryKind.ADD) != Binary(kind=BinaryKind.SUB)
    assert ReduceSum(axis=1, keepdims=True) != ReduceSum(axis=1, keepdims=False)


# ---------------------------------------------------------------------------------------------
# Singletons


def test_an_op_without_attributes_is_a_singleton() -> None:
    assert NoAttrs() is NoAttrs()
    assert Pair() is Pair()
    assert Store() is Store()


def test_library_ops_without_attributes_are_singletons() -> None:
    assert MatMul() is MatMul()
    assert Copy() is Copy()


def test_singletons_are_per_class() -> None:
    assert NoAttrs() is not Pair()
    assert type(NoAttrs()) is NoAttrs
    assert type(Pair()) is Pair


def test_a_singleton_refuses_attributes() -> None:
    with pytest.raises(TypeError, match="unknown.*bogus"):
        NoAttrs(bogus=1)
    assert NoAttrs() is NoAttrs()


# ---------------------------------------------------------------------------------------------
# Attribute validation


def test_attribute_values_are_carried_on_the_instance() -> None:
    op = ReduceSum(axis=1, keepdims=True)
    assert op.axis == 1
    assert op.keepdims is True
    assert Binary(kind=BinaryKind.MUL).kind is BinaryKind.MUL


def test_unknown_attribute_is_refused() -> None:
    with pytest.raises(TypeError, match="unknown.*bogus"):
        Scale(factor=1, bogus=2)


def test_missing_attribute_is_refused() -> None:
    with pytest.raises(TypeError, match="missing.*'mode'"):
        Ordered()
    with pytest.raises(TypeError, match="missing.*'kind'"):
        Binary()
    with pytest.raises(TypeError, match="missing.*'axis'"):
        ReduceSum(keepdims=True)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: Scale(factor="2"), r"'factor'.*int"),
        (lambda: Scale(factor=2.0), r"'factor'.*int"),
        (lambda: Scale(factor=True), r"'factor'.*int"),
        (lambda: Leaf(beta=1), r"'beta'.*bool"),
        (lambda: Options(ratio="fast"), r"'ratio'.*float"),
        (lambda: Options(ratio=1.0, label=3), r"'label'.*str"),
        (lambda: ReduceSum(axis=1.0), r"'axis'.*int"),
        (lambda: ReduceSum(axis=1, keepdims="yes"), r"'keepdims'.*bool"),
    ],
)
def test_wrongly_typed_attribute_is_refused(make: Callable[[], object], words: str) -> None:
    with pytest.raises(TypeError, match=words):
        make()


def test_none_is_refused_for_a_non_optional_attribute() -> None:
    with pytest.raises(TypeError, match="'factor'"):
        Scale(factor=None)


def test_none_is_accepted_for_an_optional_attribute() -> None:
    op = Options(ratio=1.5, limit=None)
    assert op.limit is None
    assert Options(ratio=1.5, limit=3).limit == 3


def test_enum_attribute_by_value() -> None:
    op = Ordered(mode="fast")
    assert op.mode is Mode.FAST
    assert op == Ordered(mode=Mode.FAST)
    assert Binary(kind="cmp_lt").kind is BinaryKind.CMP_LT
    assert Binary(kind="add") == Binary(kind=BinaryKind.ADD)


def test_enum_attribute_refuses_an_unknown_value() -> None:
    with pytest.raises(TypeError, match=r"'mode'.*medium"):
        Ordered(mode="medium")
    with pytest.raises(TypeError, match=r"'kind'.*plus"):
        Binary(kind="plus")


def test_defaults_are_filled_in() -> None:
    assert Scale().factor == 1
    assert dict(Scale().attrs) == {"factor": 1}
    assert dict(Leaf().attrs) == {"alpha": 0, "beta": False}
    assert dict(ReduceSum(axis=1).attrs) == {"axis": 1, "keepdims": False}
    assert ReduceSum(axis=1) == ReduceSum(axis=1, keepdims=False)
    assert Options(ratio=1.0).label == "x"


def test_attrs_are_in_param_order() -> None:
    assert list(Options(ratio=2.0, label="y", limit=1).attrs) == ["limit", "label", "ratio"]


# ---------------------------------------------------------------------------------------------
# ParamDef and params()


def test_param_def_fields() -> None:
    assert Binary.lhs.kind == "input"
    assert Binary.lhs.pattern == Tensor
    assert Binary.kind.kind == "attribute"
    assert Binary.kind.annotation is BinaryKind
    assert ReduceSum.axis.annotation is int
    assert ReduceSum.keepdims.annotation is bool
    assert ReduceSum.keepdims.default is False
    assert Options.limit.optional is True
    assert Options.label.optional is False


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: ParamDef(kind="output"), "kind"),
        (lambda: ParamDef(kind="attribute", annotation=int, pattern=Tensor), "pattern"),
        (lambda: ParamDef(kind="input", default=0), "default"),
        (lambda: ParamDef(kind="input", optional=True), "optional"),
    ],
)
def test_param_def_fields_belong_to_their_kind(make: Callable[[], object], words: str) -> None:
    with pytest.raises((TypeError, ValueError), match=words):
        make()


def test_params_are_in_definition_order() -> None:
    params = Ordered.params()
    assert isinstance(params, list)
    assert all(isinstance(p, ParamDef) for p in params)
    assert names(params) == ["second", "mode", "first"]


def test_params_put_base_classes_first() -> None:
    assert names(Leaf.params()) == ["zeta", "alpha", "mid", "beta"]
    assert names(_Middle.params()) == ["zeta", "alpha", "mid"]


def test_params_are_the_class_level_param_defs() -> None:
    params = Leaf.params()
    assert params[0] is _Base.zeta
    assert params[2] is _Middle.mid
    assert params[3] is Leaf.beta


def test_params_of_library_ops() -> None:
    assert names(Binary.params()) == ["lhs", "rhs", "kind"]
    assert names(Unary.params()) == ["input", "kind"]
    assert names(ReduceSum.params()) == ["input", "axis", "keepdims"]
    assert [p.kind for p in ReduceSum.params()] == ["input", "attribute", "attribute"]


# ---------------------------------------------------------------------------------------------
# Input position


def test_input_order_fixes_call_args_position() -> None:
    scalar = Constant(2.0)
    tensor = Var("t", T4)
    c = Call(Ordered(mode="slow"), [scalar, tensor])
    inputs = [p for p in Ordered.params() if p.kind == "input"]
    assert names(inputs) == ["second", "first"]
    assert c.args[0] is scalar  # matched against `second` (Scalar)
    assert c.args[1] is tensor  # matched against `first` (Tensor)
    assert c.type == T4


def test_args_in_another_order_are_refused() -> None:
    with pytest.raises(VerifyError, match="tensor<4xf32>"):
        Call(Ordered(mode="slow"), [Var("t", T4), Constant(2.0)])


def test_a_custom_pattern_checks_the_argument() -> None:
    assert Call(Halves(), [Var("a", TensorType((6,), "f32"))]).type == TensorType((6,), "f32")
    with pytest.raises(VerifyError, match="tensor<5xf32>"):
        Call(Halves(), [Var("a", TensorType((5,), "f32"))])


def test_an_and_pattern_checks_the_argument() -> None:
    assert Call(RankOneF32(), [Var("a", T4)]).type == T4
    with pytest.raises(VerifyError, match="tensor<4xbf16>"):
        Call(RankOneF32(), [Var("a", TensorType((4,), "bf16"))])
    with pytest.raises(VerifyError, match="tensor<2x2xf32>"):
        Call(RankOneF32(), [Var("a", TensorType((2, 2), "f32"))])


# ---------------------------------------------------------------------------------------------
# register_op / OpSchema / op_schemas


def test_register_op_makes_a_schema() -> None:
    (schema,) = op_schemas(D, C, "ordered")
    assert isinstance(schema, OpSchema)
    assert (schema.dialect, schema.category, schema.name) == (D, C, "ordered")
    assert schema.op_class is Ordered
    assert tuple(schema.params) == tuple(Ordered.params())
    assert all(a is b for a, b in zip(schema.params, Ordered.params(), strict=True))


def test_op_schemas_of_unknown_coordinates_is_empty() -> None:
    assert tuple(op_schemas(D, C, "never_registered")) == ()


def test_register_op_refuses_a_non_op() -> None:
    with pytest.raises(TypeError, match="Op"):
        register_op(dialect=D, category=C, name="not_an_op")(cast(Any, int))


# ---------------------------------------------------------------------------------------------
# register_alias


def test_aliases_prepend_to_their_bucket() -> None:
    bucket = op_schemas(D, C, "scale")
    assert len(bucket) == 3
    assert bucket[0].builder is _scale_by_three  # registered last, first
    assert bucket[1].builder is _scale_by_two
    assert bucket[2].op_class is Scale


def test_alias_schemas_have_no_op_class() -> None:
    bucket = op_schemas(D, C, "scale")
    assert bucket[0].op_class is None
    assert bucket[1].op_class is None
    (alias,) = op_schemas(D, C, "alias_only")
    assert alias.op_class is None


def test_alias_wins_first_match_resolution() -> None:
    x = Var("x", T4)
    c = call_surface(D, C, "scale", x)
    assert c.target == Scale(factor=3)
    assert c.args[0] is x


def test_an_alias_registered_before_the_class_is_still_first() -> None:
    bucket = op_schemas(D, C, "early")
    assert [s.op_class for s in bucket] == [None, Early]
    assert call_surface(D, C, "early", Var("x", T4)).target == Scale(factor=7)


def test_first_op_class_skips_aliases() -> None:
    assert first_op_class(D, C, "scale") is Scale
    assert first_op_class(D, C, "alias_only") is None
    assert first_op_class(D, C, "never_registered") is None
    assert first_op_class("tf", "math", "add") is None  # add is an alias of Binary


def test_alias_params_are_the_target_ops_own_param_defs() -> None:
    (alias,) = op_schemas(D, C, "alias_only")
    assert len(alias.params) == 1
    assert alias.params[0] is Scale.x


def test_library_alias_params_are_binary_and_unary_param_defs() -> None:
    add = op_schemas("tf", "math", "add")[0]
    assert add.params[0] is Binary.lhs
    assert add.params[1] is Binary.rhs
    neg = op_schemas("tf", "math", "neg")[0]
    assert tuple(neg.params) == (Unary.input,)
    assert neg.params[0] is Unary.input


def test_an_alias_cannot_declare_its_own_param_defs() -> None:
    with pytest.raises(TypeError, match="ParamDef"):

        @register_alias(dialect=D, category=C, name="redeclares", params=[ParamDef(kind="input")])
        def _redeclares() -> Op:
            return NoAttrs()

    assert tuple(op_schemas(D, C, "redeclares")) == ()


def test_alias_builder_takes_attribute_kwargs_only() -> None:
    x = Var("x", T4)
    c = call_surface(D, C, "scale_by", x, factor=5)
    assert c.target == Scale(factor=5)
    assert c.args == (x,)


def test_a_fully_fixing_alias_builder_takes_zero_kwargs() -> None:
    """`add` fixes `kind`, so its builder takes no parameter at all (nothing lets a caller
    turn the `add` alias into another kind)."""
    taking_params = {
        name: list(inspect.signature(op_schemas("tf", "math", name)[0].builder).parameters)
        for name in (*BINARY_ALIASES, *UNARY_ALIASES)
    }
    assert {name: p for name, p in taking_params.items() if p} == {}


@pytest.mark.parametrize("kind", list(BinaryKind))
def test_binary_alias_builder_builds_its_kind(kind: BinaryKind) -> None:
    schema = op_schemas("tf", "math", kind.value)[0]
    assert schema.op_class is None
    assert schema.builder() == Binary(kind=kind)


@pytest.mark.parametrize("kind", list(UnaryKind))
def test_unary_alias_builder_builds_its_kind(kind: UnaryKind) -> None:
    schema = op_schemas("tf", "math", kind.value)[0]
    assert schema.op_class is None
    assert schema.builder() == Unary(kind=kind)


# ---------------------------------------------------------------------------------------------
# Value form and effect form


def test_value_form_call_has_a_tensor_type() -> None:
    c = Call(Scale(), [Var("x", T4)])
    assert c.type == T4


def test_multi_output_value_form_call_has_a_tuple_type() -> None:
    c = Call(Pair(), [Var("x", T4)])
    assert c.type == TupleType((T4, T4))


def test_effect_form_call_has_unit_type() -> None:
    c = Call(Store(), [Var("d", T4), Var("s", T4)])
    assert c.type == UnitType()
    assert isinstance(c, Expr)


def test_an_effect_form_call_has_no_value_to_use() -> None:
    effect = Call(Store(), [Var("d", T4), Var("s", T4)])
    with pytest.raises(VerifyError, match="effect"):
        Call(Scale(), [effect])


# ---------------------------------------------------------------------------------------------
# op_schemas with fewer coordinates: what is registered


def test_op_schemas_with_fewer_coordinates_lists_what_is_registered() -> None:
    everything = op_schemas()
    tf = op_schemas("tf")
    math = op_schemas("tf", "math")
    keys = [(s.dialect, s.category, s.name) for s in everything]
    assert keys == sorted(keys)  # sorted by coordinates
    assert [s for s in everything if s.dialect == "tf"] == list(tf)
    assert [s for s in tf if s.category == "math"] == list(math)
    # each bucket whole, in its own order (aliases first)
    assert [s for s in everything if (s.dialect, s.category) == (D, C) and s.name == "scale"] == (
        list(op_schemas(D, C, "scale"))
    )
    names = {s.full_name for s in math}
    assert {"tf.math.binary", "tf.math.unary", "tf.math.cast", "tf.math.add"} <= names
    assert {s.op_class for s in tf if not s.is_alias} >= {Binary, MatMul, ReduceSum, Copy}
    (add,) = [s for s in math if s.name == "add"]
    assert add.is_alias and add.builder() == Binary(kind=BinaryKind.ADD)
    assert op_schemas("no_such_dialect") == ()


def test_op_schemas_needs_the_coordinates_before_a_name() -> None:
    with pytest.raises(TypeError, match="a name needs its dialect and category"):
        op_schemas("tf", name="add")
    with pytest.raises(TypeError, match="a category needs its dialect"):
        op_schemas(category="math")


def test_an_unknown_surface_name_gets_the_nearest_names() -> None:
    x = Var("x", T4)
    with pytest.raises(VerifyError, match=r"tf\.math\.ad; did you mean 'tf\.math\.add' or "):
        call_surface("tf", "math", "ad", x, x)
    with pytest.raises(VerifyError, match=r"did you mean 'tf\.linalg\.transpose'\?"):
        call_surface("tf", "linalg", "transpos", x, perm=[0])
    with pytest.raises(VerifyError, match=r"registered as tf\.math\.frobnicate$"):
        call_surface("tf", "math", "frobnicate", x)
