"""The registered op library (`tilefoundry.ops`): type inference of each op, and the sugar
functions that build their Op through the `tf` / `math` aliases (spec 2.3, DESIGN section 4)."""

from __future__ import annotations

import pytest

from tilefoundry import (
    BindingMetadata,
    BufferType,
    Call,
    Constant,
    DimVar,
    TensorType,
    Tuple,
    TupleType,
    UnitType,
    Var,
    VerifyError,
    binding_name,
    op_schemas,
    ops,
)
from tilefoundry.ops import (
    Binary,
    BinaryKind,
    Cast,
    Copy,
    MatMul,
    ReduceMax,
    ReduceSum,
    Split,
    Transpose,
    TupleGetItem,
    Unary,
    UnaryKind,
)

N = DimVar("n", 1, 9)
M = DimVar("m", 1, 9)

FLOAT_ONLY = [
    UnaryKind.EXP,
    UnaryKind.LOG,
    UnaryKind.SQRT,
    UnaryKind.RSQRT,
    UnaryKind.TANH,
    UnaryKind.SIGMOID,
]
ANY_NUMBER = [UnaryKind.NEG, UnaryKind.ABS, UnaryKind.RELU]
COMPARISONS = [k for k in BinaryKind if k.value.startswith("cmp_")]
ARITHMETIC = [k for k in BinaryKind if not k.value.startswith("cmp_")]


def v(shape: tuple[int | DimVar, ...], dtype: str = "f32", name: str = "v") -> Var:
    return Var(name, TensorType(shape, dtype))


def t(shape: tuple[int | DimVar, ...], dtype: str = "f32") -> TensorType:
    return TensorType(shape, dtype)


# ---------------------------------------------------------------------------------------------
# Binary


@pytest.mark.parametrize("kind", ARITHMETIC)
def test_binary_arithmetic_keeps_the_dtype(kind: BinaryKind) -> None:
    assert Call(Binary(kind=kind), [v((4, 8)), v((4, 8))]).type == t((4, 8))
    assert Call(Binary(kind=kind), [v((4,), "i32"), v((4,), "i32")]).type == t((4,), "i32")


@pytest.mark.parametrize("kind", COMPARISONS)
def test_comparisons_give_i1(kind: BinaryKind) -> None:
    assert Call(Binary(kind=kind), [v((4, 8)), v((4, 8))]).type == t((4, 8), "i1")
    assert Call(Binary(kind=kind), [v((4,), "i32"), v((4,), "i32")]).type == t((4,), "i1")
    assert Call(Binary(kind=kind), [v((4, 1), "bf16"), v((3,), "bf16")]).type == t((4, 3), "i1")


def test_comparison_of_i1() -> None:
    assert ops.cmp_eq(v((4,), "i1"), v((4,), "i1")).type == t((4,), "i1")


@pytest.mark.parametrize(
    ("lhs", "rhs", "result"),
    [
        ((4, 8), (8,), (4, 8)),
        ((8,), (4, 8), (4, 8)),
        ((4, 1), (1, 8), (4, 8)),
        ((1,), (4, 8), (4, 8)),
        ((2, 1, 8), (3, 1), (2, 3, 8)),
        ((N, 8), (8,), (N, 8)),
        ((8,), (N, 8), (N, 8)),
        ((N, 8), (1, 8), (N, 8)),
        ((1, 8), (N, 8), (N, 8)),
        ((N, 8), (N, 8), (N, 8)),
        ((N, 1), (1, M), (N, M)),
        ((N, 1), (4,), (N, 4)),
    ],
)
def test_binary_broadcasting(
    lhs: tuple[int | DimVar, ...], rhs: tuple[int | DimVar, ...], result: tuple[int | DimVar, ...]
) -> None:
    assert ops.add(v(lhs), v(rhs)).type == t(result)


@pytest.mark.parametrize(
    ("lhs", "rhs"),
    [
        ((4, 8), (4,)),
        ((3,), (4,)),
        ((2, 4, 8), (3, 4, 8)),
        ((N, 8), (M, 8)),
    ],
)
def test_binary_refuses_shapes_that_do_not_broadcast(
    lhs: tuple[int | DimVar, ...], rhs: tuple[int | DimVar, ...]
) -> None:
    with pytest.raises(VerifyError, match="broadcast"):
        ops.add(v(lhs), v(rhs))


@pytest.mark.parametrize("kind", list(BinaryKind))
def test_binary_refuses_different_dtypes(kind: BinaryKind) -> None:
    with pytest.raises(VerifyError, match=r"dtype.*f32.*bf16"):
        Call(Binary(kind=kind), [v((4,), "f32"), v((4,), "bf16")])


def test_binary_refuses_a_scalar_operand() -> None:
    """Binary's inputs are `Tensor` (the spec's example): a rank-0 value does not match."""
    with pytest.raises(VerifyError, match="tensor<f32>"):
        Call(Binary(kind=BinaryKind.ADD), [v((4,)), Constant(1.0)])


# ---------------------------------------------------------------------------------------------
# Unary and Cast


@pytest.mark.parametrize("kind", list(UnaryKind))
@pytest.mark.parametrize("dtype", ["f32", "bf16", "f16", "f64"])
def test_unary_keeps_the_type(kind: UnaryKind, dtype: str) -> None:
    assert Call(Unary(kind=kind), [v((N, 4), dtype)]).type == t((N, 4), dtype)


@pytest.mark.parametrize("kind", FLOAT_ONLY)
@pytest.mark.parametrize("dtype", ["i32", "i8", "i64"])
def test_transcendental_unary_needs_a_float(kind: UnaryKind, dtype: str) -> None:
    with pytest.raises(VerifyError, match=rf"{kind.value}.*float"):
        Call(Unary(kind=kind), [v((4,), dtype)])


@pytest.mark.parametrize("kind", ANY_NUMBER)
def test_sign_unary_accepts_integers(kind: UnaryKind) -> None:
    assert Call(Unary(kind=kind), [v((4,), "i32")]).type == t((4,), "i32")


@pytest.mark.parametrize(("src", "dst"), [("f32", "bf16"), ("i32", "f32"), ("f16", "i1")])
def test_cast_changes_the_dtype_only(src: str, dst: str) -> None:
    assert ops.cast(v((N, 4), src), dst).type == t((N, 4), dst)
    assert Call(Cast(dtype=dst), [v((2, 3), src)]).type == t((2, 3), dst)


def test_cast_refuses_an_unknown_dtype() -> None:
    with pytest.raises(TypeError, match="f99"):
        Cast(dtype="f99")


# ---------------------------------------------------------------------------------------------
# Reductions


@pytest.mark.parametrize("op", [ReduceSum, ReduceMax])
@pytest.mark.parametrize(
    ("shape", "axis", "keepdims", "result"),
    [
        ((4, 8), 1, False, (4,)),
        ((4, 8), 0, False, (8,)),
        ((4, 8), 1, True, (4, 1)),
        ((4, 8), 0, True, (1, 8)),
        ((4, 8), -1, False, (4,)),
        ((4, 8), -2, True, (1, 8)),
        ((2, 3, 4), 1, False, (2, 4)),
        ((4,), 0, False, ()),
        ((4,), 0, True, (1,)),
        ((N, 8), 1, False, (N,)),
        ((N, 8), 0, False, (8,)),
        ((N, 8), 0, True, (1, 8)),
    ],
)
def test_reduce_axis_and_keepdims(
    op: type[ReduceSum] | type[ReduceMax],
    shape: tuple[int | DimVar, ...],
    axis: int,
    keepdims: bool,
    result: tuple[int | DimVar, ...],
) -> None:
    assert Call(op(axis=axis, keepdims=keepdims), [v(shape, "bf16")]).type == t(result, "bf16")


def test_reduce_keepdims_defaults_to_false() -> None:
    assert ops.reduce_sum(v((4, 8)), 1).type == t((4,))
    assert ops.reduce_max(v((4, 8)), 1).type == t((4,))
    assert ops.reduce_sum(v((4, 8)), 1, keepdims=True).type == t((4, 1))


@pytest.mark.parametrize("axis", [2, -3, 10])
def test_reduce_refuses_an_axis_out_of_range(axis: int) -> None:
    with pytest.raises(VerifyError, match=rf"axis {axis}.*rank 2"):
        ops.reduce_sum(v((4, 8)), axis)
    with pytest.raises(VerifyError, match=rf"axis {axis}.*rank 2"):
        ops.reduce_max(v((4, 8)), axis)


# ---------------------------------------------------------------------------------------------
# MatMul and Transpose


@pytest.mark.parametrize(
    ("lhs", "rhs", "result"),
    [
        ((4, 8), (8, 16), (4, 16)),
        ((2, 4, 8), (8, 16), (2, 4, 16)),
        ((4, 8), (2, 8, 16), (2, 4, 16)),
        ((2, 4, 8), (2, 8, 16), (2, 4, 16)),
        ((2, 1, 4, 8), (3, 8, 16), (2, 3, 4, 16)),
        ((N, 8), (8, 16), (N, 16)),
        ((4, 8), (8, M), (4, M)),
        ((N, 4, 8), (8, 16), (N, 4, 16)),
        ((4, N), (N, 16), (4, 16)),
    ],
)
def test_matmul_shapes(
    lhs: tuple[int | DimVar, ...], rhs: tuple[int | DimVar, ...], result: tuple[int | DimVar, ...]
) -> None:
    assert ops.matmul(v(lhs), v(rhs)).type == t(result)
    assert Call(MatMul(), [v(lhs, "bf16"), v(rhs, "bf16")]).type == t(result, "bf16")


@pytest.mark.parametrize(("lhs", "rhs"), [((4, 8), (9, 16)), ((4, N), (M, 16)), ((4, 8), (N, 16))])
def test_matmul_refuses_a_contraction_mismatch(
    lhs: tuple[int | DimVar, ...], rhs: tuple[int | DimVar, ...]
) -> None:
    with pytest.raises(VerifyError, match="contraction"):
        ops.matmul(v(lhs), v(rhs))


def test_matmul_refuses_batch_dims_that_do_not_broadcast() -> None:
    with pytest.raises(VerifyError, match="broadcast"):
        ops.matmul(v((2, 4, 8)), v((3, 8, 16)))


@pytest.mark.parametrize(("lhs", "rhs"), [((8,), (8, 16)), ((4, 8), (8,))])
def test_matmul_refuses_rank_1_operands(lhs: tuple[int, ...], rhs: tuple[int, ...]) -> None:
    with pytest.raises(VerifyError, match="rank"):
        ops.matmul(v(lhs), v(rhs))


def test_matmul_refuses_different_dtypes() -> None:
    with pytest.raises(VerifyError, match=r"dtype.*f32.*bf16"):
        ops.matmul(v((4, 8)), v((8, 16), "bf16"))


@pytest.mark.parametrize(
    ("shape", "perm", "result"),
    [
        ((4, 8), (1, 0), (8, 4)),
        ((4, 8), (0, 1), (4, 8)),
        ((N, 8, 3), (2, 0, 1), (3, N, 8)),
        ((2, 3, 4, 5), (0, 2, 1, 3), (2, 4, 3, 5)),
    ],
)
def test_transpose_permutes_the_dims(
    shape: tuple[int | DimVar, ...], perm: tuple[int, ...], result: tuple[int | DimVar, ...]
) -> None:
    assert ops.transpose(v(shape, "i32"), perm).type == t(result, "i32")
    assert Call(Transpose(perm=perm), [v(shape)]).type == t(result)


@pytest.mark.parametrize("perm", [(0, 0), (0,), (0, 1, 2), (0, 2), (1, -1)])
def test_transpose_refuses_a_non_permutation(perm: tuple[int, ...]) -> None:
    with pytest.raises(VerifyError, match="perm"):
        ops.transpose(v((4, 8)), perm)


# ---------------------------------------------------------------------------------------------
# Split and TupleGetItem


def test_split_is_a_multi_output_op() -> None:
    s = ops.split(v((4, 8)), 1, 2)
    assert type(s) is Call
    assert s.target == Split(axis=1, sections=2)
    assert s.type == TupleType((t((4, 4)), t((4, 4))))


@pytest.mark.parametrize(
    ("shape", "axis", "sections", "part"),
    [
        ((4, 9), -1, 3, (4, 3)),
        ((6, 2), 0, 3, (2, 2)),
        ((4, 8), 0, 1, (4, 8)),
        ((N, 8), 1, 4, (N, 2)),
    ],
)
def test_split_parts(
    shape: tuple[int | DimVar, ...],
    axis: int,
    sections: int,
    part: tuple[int | DimVar, ...],
) -> None:
    assert ops.split(v(shape), axis, sections).type == TupleType((t(part),) * sections)


def test_split_refuses_an_uneven_split() -> None:
    with pytest.raises(VerifyError, match="8.*3"):
        ops.split(v((4, 8)), 1, 3)


def test_split_refuses_a_dynamic_dim() -> None:
    with pytest.raises(VerifyError, match="dynamic"):
        ops.split(v((N, 8)), 0, 2)


def test_split_refuses_zero_sections() -> None:
    with pytest.raises(VerifyError, match="sections"):
        ops.split(v((4, 8)), 0, 0)


def test_split_refuses_an_axis_out_of_range() -> None:
    with pytest.raises(VerifyError, match="axis 2"):
        ops.split(v((4, 8)), 2, 2)


def test_tuple_get_item_projects_one_field() -> None:
    s = ops.split(v((4, 8), "bf16"), 0, 2)
    item = ops.tuple_get_item(s, 1)
    assert type(item) is Call
    assert item.target == TupleGetItem(index=1)
    assert item.args[0] is s
    assert item.type == t((2, 8), "bf16")


def test_tuple_get_item_of_a_tuple_expr() -> None:
    tup = Tuple([v((4,)), v((2,), "i32")])
    assert ops.tuple_get_item(tup, 0).type == t((4,))
    assert ops.tuple_get_item(tup, 1).type == t((2,), "i32")
    assert ops.tuple_get_item(tup, -1).type == t((2,), "i32")


@pytest.mark.parametrize("index", [2, -3, 100])
def test_tuple_get_item_refuses_an_index_out_of_range(index: int) -> None:
    tup = Tuple([v((4,)), v((2,), "i32")])
    with pytest.raises(VerifyError, match=rf"index {index}"):
        ops.tuple_get_item(tup, index)


def test_tuple_get_item_refuses_a_tensor() -> None:
    with pytest.raises(VerifyError, match="tuple"):
        ops.tuple_get_item(v((4,)), 0)


# ---------------------------------------------------------------------------------------------
# Memory: copy (effect form), load, alloc


def b(shape: tuple[int | DimVar, ...], dtype: str = "f32", name: str = "b") -> Var:
    return Var(name, BufferType(shape, dtype))


def test_copy_is_effect_form() -> None:
    c = ops.copy(b((4,), name="dst"), v((4,), name="src"))
    assert type(c) is Call
    assert c.target == Copy()
    assert c.type == UnitType()
    assert ops.copy(b((4,), name="dst"), b((4,), name="src")).type == UnitType()


@pytest.mark.parametrize(("dst", "src"), [(t((4,)), t((5,))), (t((4,)), t((4,), "i32"))])
def test_copy_needs_equal_types(dst: TensorType, src: TensorType) -> None:
    with pytest.raises(VerifyError, match="copy"):
        ops.copy(Var("dst", BufferType(dst.shape, dst.dtype)), Var("src", src))


def test_copy_writes_a_buffer_only() -> None:
    with pytest.raises(VerifyError, match=r"writes operand #0 in place, which must be a buffer"):
        ops.copy(v((4,), name="dst"), v((4,), name="src"))


def test_copy_result_cannot_be_used() -> None:
    c = ops.copy(b((4,)), v((4,)))
    with pytest.raises(VerifyError):
        ops.neg(c)


def test_load_gives_the_tensor_of_the_buffer() -> None:
    n = DimVar("n", 1, 9)
    assert ops.load(b((n, 2), "i8")).type == t((n, 2), "i8")
    with pytest.raises(VerifyError, match="load reads a buffer"):
        ops.load(v((4,)))


def test_alloc_gives_a_buffer_of_its_attributes() -> None:
    assert ops.alloc((2, 3), "bf16").type == BufferType((2, 3), "bf16")
    assert ops.alloc((), "i1").type == BufferType((), "i1")
    with pytest.raises(TypeError, match="dtype"):
        ops.alloc((2,), "f99")
    with pytest.raises(TypeError, match=">= 0"):
        ops.alloc((-1,), "f32")


def test_a_value_op_refuses_a_buffer() -> None:
    with pytest.raises(VerifyError, match=r"operand #1 is a buffer \(!tf.buffer<4xf32>\)"):
        ops.add(v((4,)), b((4,)))


# ---------------------------------------------------------------------------------------------
# Sugar


@pytest.mark.parametrize("kind", list(BinaryKind))
def test_binary_sugar_builds_its_kind(kind: BinaryKind) -> None:
    sugar = getattr(ops, kind.value)
    x = v((4,), name="x")
    y = v((4,), name="y")
    c = sugar(x, y)
    assert type(c) is Call
    assert c.target == Binary(kind=kind)
    assert c.args == (x, y)
    assert c.type == t((4,), "i1" if kind in COMPARISONS else "f32")


@pytest.mark.parametrize("kind", list(UnaryKind))
def test_unary_sugar_builds_its_kind(kind: UnaryKind) -> None:
    sugar = getattr(ops, kind.value)
    x = v((4,), name="x")
    c = sugar(x)
    assert c.target == Unary(kind=kind)
    assert c.args == (x,)
    assert c.type == t((4,))


@pytest.mark.parametrize(
    "name", ["add", "sub", "mul", "div", "neg", "exp", "cmp_eq", "cmp_lt", "cmp_ge"]
)
def test_sugar_names_are_aliases_under_tf_math(name: str) -> None:
    bucket = op_schemas("tf", "math", name)
    assert bucket
    assert bucket[0].op_class is None
    assert getattr(ops, name)


def test_sugar_refuses_the_wrong_number_of_arguments() -> None:
    with pytest.raises(TypeError, match="add"):
        ops.add(v((4,)))
    with pytest.raises(TypeError, match="neg"):
        ops.neg(v((4,)), v((4,)))


def test_sugar_passes_metadata_on() -> None:
    c = ops.mul(v((4,)), v((4,)), metadata=(BindingMetadata("prod"),))
    assert binding_name(c) == "prod"


def test_sugar_checks_types_like_call() -> None:
    with pytest.raises(VerifyError, match="dtype"):
        ops.sub(v((4,)), v((4,), "i32"))
    with pytest.raises(VerifyError, match="float"):
        ops.exp(v((4,), "i32"))
