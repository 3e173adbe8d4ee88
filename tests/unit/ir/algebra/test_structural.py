"""structural_equal / structural_hash over exprs, functions and modules (spec section 2: metadata
takes no part in equality or hashing; DESIGN section 4: they compare structure and ignore all
metadata, while `==` / `hash` are identity)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tilefoundry import (
    BindingMetadata,
    Call,
    Constant,
    DimVar,
    Expr,
    IRMetadata,
    Module,
    SourceSpanMetadata,
    TensorType,
    Tuple,
    Var,
    ops,
    parse_module,
    print_module,
    structural_equal,
    structural_hash,
)
from tilefoundry.api.hir import Function
from tilefoundry.ops import Binary, BinaryKind

T4 = TensorType((4,), "f32")
META: tuple[IRMetadata, ...] = (
    BindingMetadata("label"),
    SourceSpanMetadata("model.py", 7, 3, 7, 20),
)


def same(a: object, b: object) -> None:
    assert structural_equal(a, b)
    assert structural_equal(b, a)
    assert structural_hash(a) == structural_hash(b)


def differ(a: object, b: object) -> None:
    assert not structural_equal(a, b)
    assert not structural_equal(b, a)


def mlp(
    *,
    meta: tuple[IRMetadata, ...] = (),
    x_name: str = "x",
    w_name: str = "w",
    const: bool = True,
    rows: int = 4,
    kind: BinaryKind = BinaryKind.ADD,
    swap: bool = False,
    keepdims: bool = False,
    scale: float = 0.5,
    name: str = "mlp",
) -> Function:
    x = Var(x_name, TensorType((rows, 8), "f32"), metadata=meta)
    w = Var(w_name, TensorType((8, 8), "f32"), is_const=const, metadata=meta)
    h = ops.matmul(x, w, metadata=meta)
    lhs, rhs = (h, x) if swap else (x, h)
    y = Call(Binary(kind=kind), [lhs, rhs], metadata=meta)
    s = ops.mul(y, ops.cast(Constant([[scale] * 8] * rows, metadata=meta), "f32"), metadata=meta)
    body = ops.reduce_sum(s, 1, keepdims=keepdims, metadata=meta)
    return Function(name=name, params=[x, w], body=body, metadata=meta)


def module(
    *, meta: tuple[IRMetadata, ...] = (), name: str = "m", entry: str | None = "mlp", **kw: Any
) -> Module:
    return Module(name=name, functions=[mlp(meta=meta, **kw)], entry=entry)


def with_tuples(meta: tuple[IRMetadata, ...] = ()) -> Module:
    x = Var("x", TensorType((4, 8), "f32"), metadata=meta)
    parts = ops.split(x, 1, 2, metadata=meta)
    first = ops.tuple_get_item(parts, 0, metadata=meta)
    body = Tuple([first, ops.tuple_get_item(parts, 1)], metadata=meta)
    return Module(name="m", functions=[Function(name="f", params=[x], body=body)], entry="f")


def calling(meta: tuple[IRMetadata, ...] = ()) -> Module:
    a = Var("a", T4)
    helper = Function(name="helper", params=[a], body=ops.exp(a, metadata=meta))
    x = Var("x", T4)
    main = Function(name="main", params=[x], body=ops.add(Call(helper, [x], metadata=meta), x))
    return Module(name="m", functions=[helper, main], entry="main")


# ---------------------------------------------------------------------------------------------
# Equal structure: equal, whatever the identity and metadata


def test_separately_built_exprs_are_structurally_equal() -> None:
    def build(meta: tuple[IRMetadata, ...]) -> Expr:
        x = Var("x", T4)
        y = Var("y", T4)
        return ops.sub(ops.exp(x, metadata=meta), y, metadata=meta)

    a = build(())
    b = build(META)
    assert a != b  # distinct graph nodes
    same(a, b)


def test_exprs_over_the_same_vars() -> None:
    x = Var("x", T4)
    y = Var("y", T4)
    same(ops.sub(x, y), ops.sub(x, y, metadata=META))


def test_vars_compare_by_name_type_and_const() -> None:
    same(Var("x", T4), Var("x", T4, metadata=META))
    same(Var("w", T4, is_const=True), Var("w", T4, is_const=True))


def test_constants_compare_by_value() -> None:
    same(Constant(1.5), Constant(1.5, metadata=META))
    same(Constant([1, 2, 3]), Constant([1, 2, 3]))


def test_functions_with_different_metadata_are_equal() -> None:
    a = mlp()
    b = mlp(meta=META)
    assert a != b
    same(a, b)


def test_modules_with_different_metadata_are_equal() -> None:
    same(module(), module(meta=META))


def test_modules_with_calls_between_functions_are_equal() -> None:
    same(calling(), calling(META))


def test_modules_with_tuple_values_are_equal() -> None:
    same(with_tuples(), with_tuples(META))


def test_tuple_exprs_hash_alike() -> None:
    x = Var("x", T4)
    y = Var("y", T4)
    same(Tuple([x, y]), Tuple([x, y], metadata=META))


def test_multi_output_calls_hash_alike() -> None:
    def build(meta: tuple[IRMetadata, ...]) -> Expr:
        return ops.split(Var("x", TensorType((4, 8), "f32")), 1, 2, metadata=meta)

    same(build(()), build(META))


@pytest.mark.parametrize("generic", [False, True])
@pytest.mark.parametrize("debuginfo", [False, True])
@pytest.mark.parametrize("make", [module, calling], ids=["mlp", "calling"])
def test_text_round_trip_is_structurally_equal(
    make: Callable[[], Module], generic: bool, debuginfo: bool
) -> None:
    original = make()
    parsed = parse_module(print_module(original, generic=generic, debuginfo=debuginfo))
    same(original, parsed)


@pytest.mark.parametrize("generic", [False, True])
def test_text_round_trip_with_tuple_values_is_structurally_equal(generic: bool) -> None:
    original = with_tuples()
    parsed = parse_module(print_module(original, generic=generic))
    assert structural_equal(original, parsed)
    assert structural_equal(parsed, original)


# ---------------------------------------------------------------------------------------------
# Any structural difference: not equal


def test_operand_order_differs() -> None:
    x = Var("x", T4)
    y = Var("y", T4)
    differ(ops.sub(x, y), ops.sub(y, x))
    differ(mlp(), mlp(swap=True))


def test_tuple_element_order_differs() -> None:
    x = Var("x", T4)
    y = Var("y", T4)
    differ(Tuple([x, y]), Tuple([y, x]))


def test_op_attribute_differs() -> None:
    x = Var("x", T4)
    differ(ops.add(x, x), ops.sub(x, x))
    differ(mlp(), mlp(kind=BinaryKind.MAX))
    differ(mlp(), mlp(keepdims=True))
    m = Var("m", TensorType((4, 8), "f32"))
    differ(ops.reduce_sum(m, 0), ops.reduce_sum(m, 1))
    differ(ops.reduce_sum(m, 0), ops.reduce_max(m, 0))


def test_type_differs() -> None:
    differ(Var("x", T4), Var("x", TensorType((4,), "bf16")))
    differ(Var("x", T4), Var("x", TensorType((5,), "f32")))
    differ(
        Var("x", TensorType((DimVar("n", 1, 9),), "f32")),
        Var("x", TensorType((DimVar("n", 1, 17),), "f32")),
    )
    differ(ops.neg(Var("x", T4)), ops.neg(Var("x", TensorType((4,), "f16"))))
    differ(mlp(), mlp(rows=2))


def test_var_name_differs() -> None:
    differ(Var("x", T4), Var("y", T4))
    differ(ops.neg(Var("x", T4)), ops.neg(Var("y", T4)))


def test_param_name_differs() -> None:
    differ(mlp(), mlp(x_name="inp"))
    differ(mlp(), mlp(w_name="weight"))
    differ(module(), module(w_name="weight"))


def test_const_ness_differs() -> None:
    differ(Var("w", T4, is_const=True), Var("w", T4))
    differ(mlp(), mlp(const=False))


def test_constant_value_differs() -> None:
    differ(Constant(1.0), Constant(2.0))
    differ(Constant(1), Constant(1.0))
    differ(mlp(), mlp(scale=0.25))


def test_function_name_differs() -> None:
    differ(mlp(), mlp(name="other"))


def test_module_differs() -> None:
    differ(module(), module(name="other"))
    differ(module(), module(entry=None))
    differ(module(), module(kind=BinaryKind.SUB))


def test_different_kinds_of_node_differ() -> None:
    x = Var("x", T4)
    differ(x, ops.neg(x))
    differ(Constant([1.0, 2.0, 3.0, 4.0]), Var("c", T4))


# ---------------------------------------------------------------------------------------------
# The walk's shortcuts keep the answers


@pytest.mark.parametrize("make", [module, calling, with_tuples, mlp], ids=lambda f: f.__name__)
def test_a_node_is_equal_to_itself(make: Callable[[], Any]) -> None:
    node = make()
    assert structural_equal(node, node)
    assert structural_hash(node) == structural_hash(node)
    same(node, make())


def test_one_node_used_twice_differs_from_two_equal_nodes() -> None:
    x = Var("x", T4)
    e = ops.exp(x)
    differ(ops.add(e, e), ops.add(ops.exp(x), ops.exp(x)))
    same(ops.add(e, e), ops.add(*(lambda f: (f, f))(ops.exp(x))))


def first_call(m: Module) -> Any:
    return next(op for op in m.module_op.walk() if op.name == "tf.call")


def test_a_changed_discardable_attribute_differs() -> None:
    from xdsl.dialects.builtin import StringAttr

    a, b = module(), module()
    same(a, b)
    first_call(b).attributes["note"] = StringAttr("x")
    differ(a, b)
    assert structural_hash(a) != structural_hash(b)
    first_call(a).attributes["note"] = StringAttr("y")
    differ(a, b)
    first_call(a).attributes["note"] = StringAttr("x")
    same(a, b)


def test_properties_set_in_another_order_are_equal() -> None:
    a, b = module(), module()
    for op in b.module_op.walk():
        if len(op.properties) > 1:
            reordered = dict(reversed(list(op.properties.items())))
            op.properties.clear()
            op.properties.update(reordered)
    same(a, b)


def test_a_changed_property_differs() -> None:
    from xdsl.dialects.builtin import StringAttr

    a, b = module(), module()
    function = next(op for op in b.module_op.walk() if op.name == "hir.func")
    function.properties["sym_name"] = StringAttr("renamed")
    differ(a, b)
    assert structural_hash(a) != structural_hash(b)


def test_the_difference_is_found_in_the_last_function() -> None:
    def two(kind: BinaryKind) -> Module:
        return Module(name="m", functions=[mlp(name="f"), mlp(name="g", kind=kind)], entry="f")

    same(two(BinaryKind.ADD), two(BinaryKind.ADD))
    differ(two(BinaryKind.ADD), two(BinaryKind.MUL))
