"""The caches of verification and parsing never change an answer (`support/caches.py`): a registry
change empties them, a name already taken cannot be taken again, and each is bounded."""

from __future__ import annotations

from dataclasses import dataclass, make_dataclass
from typing import ClassVar

import pytest

from tilefoundry import (
    BindingMetadata,
    IRMetadata,
    Module,
    TensorType,
    Var,
    VerifyError,
    ops,
    parse_module,
    print_module,
)
from tilefoundry.api.hir import Function
from tilefoundry.dialects.tf import op_attr
from tilefoundry.ir.algebra.op_registry import Op, lookup_op_class, register_op
from tilefoundry.ir.verify.verifier import verify_ir
from tilefoundry.support.caches import CACHES, BoundedMapping, IdentityMemo

T4 = TensorType((4,), "f32")


def _module(*metadata: IRMetadata) -> Module:
    x = Var("x", T4)
    body = ops.exp(x, metadata=metadata)
    return Module(name="m", functions=[Function(name="f", params=[x], body=body)])


def test_a_second_metadata_class_cannot_take_a_name() -> None:
    module = _module(BindingMetadata("h"))
    with pytest.raises(TypeError, match="metadata name 'binding' is already taken by .*"):

        @dataclass(frozen=True)
        class Impostor(IRMetadata):
            metadata_name: ClassVar[str] = "binding"
            other: int = 0

    # The first class keeps the name: text printed with it reads back, and verifies.
    text = print_module(module, debuginfo=True)
    assert print_module(parse_module(text), debuginfo=True) == text
    module.verify()


def test_a_second_op_cannot_take_a_name() -> None:
    with pytest.raises(ValueError, match="an op named 'tf.math.binary' is already registered"):

        @register_op(dialect="tf", category="math", name="binary")
        class Impostor(Op):
            pass


def _tagged(*fields: tuple[str, type]) -> type[IRMetadata]:
    """The class `tests.tagged`, defined here each time (as a reloaded module defines it)."""
    cls = make_dataclass(
        "Tagged",
        [("metadata_name", ClassVar[str], "tests.tagged"), *fields],
        bases=(IRMetadata,),
        frozen=True,
        namespace={"__module__": __name__, "__qualname__": "Tagged"},
    )
    return cls


def test_a_class_defined_again_forgets_the_verdicts_of_the_first() -> None:
    first = _tagged(("group", int))
    module = _module(first(group=3))  # type: ignore[call-arg]
    module.verify()  # the verdict on its location is remembered
    generation = CACHES.generation
    _tagged(("label", str))  # the same class, defined again with other fields: replaces it
    assert CACHES.generation > generation
    with pytest.raises(VerifyError):
        module.verify()  # the location holds `group`, which the class has no more


def test_registering_an_op_empties_every_cache() -> None:
    verify_ir(_module(BindingMetadata("h")).module_op)
    assert len(op_attr._OPS) > 0
    generation = CACHES.generation

    @register_op(dialect="test", category="caches", name="cache_probe")
    class CacheProbe(Op):
        pass

    assert CACHES.generation == generation + 1
    assert len(op_attr._OPS) == 0
    assert lookup_op_class("test.caches.cache_probe") is CacheProbe


def test_a_bounded_mapping_never_holds_more_than_its_limit() -> None:
    mapping: BoundedMapping[int, int] = BoundedMapping(limit=4)
    for key in range(10):
        mapping.set(key, key)
        assert len(mapping) <= 4
    assert mapping.get(9) == 9


def test_an_identity_memo_never_holds_more_than_its_limit() -> None:
    memo = IdentityMemo(limit=4)
    kept = [T4.__class__((i,), "f32") for i in range(10)]  # any objects: weakly held
    for item in kept:
        memo.add((item,))
        assert len(memo) <= 4
    assert memo.holds((kept[-1],))
    assert not memo.holds((object(),))


def test_an_identity_memo_entry_goes_with_its_objects() -> None:
    import gc

    from xdsl.dialects.builtin import StringAttr

    memo = IdentityMemo()
    first, second = StringAttr("a"), StringAttr("b")
    memo.add((first, 3, None))
    memo.add((second, 3, None))
    assert memo.holds((first, 3, None)) and len(memo) == 2
    del first
    gc.collect()
    assert len(memo) == 1 and memo.holds((second, 3, None))


def test_an_identity_memo_never_takes_a_reused_id_for_its_dropped_object() -> None:
    from xdsl.dialects.builtin import StringAttr

    memo = IdentityMemo()
    verified = StringAttr("verified")
    address = id(verified)
    memo.add((verified,))
    del verified
    # CPython hands the freed memory to the next objects of its size: one takes the id.
    made = [StringAttr(f"other{i}") for i in range(10_000)]  # kept: each takes a new place
    reused = next((a for a in made if id(a) == address), None)
    if reused is None:
        pytest.skip("no new object took the dropped one's id")
    assert not memo.holds((reused,))


def test_parsing_again_keeps_nothing_of_a_dropped_module() -> None:
    import gc
    import weakref

    from xdsl.dialects.builtin import UnknownLoc

    text = print_module(_module(BindingMetadata("h")))
    first = parse_module(text)
    ops_of_first = [weakref.ref(op) for op in first.module_op.walk()]
    locations = [
        weakref.ref(op.location)
        for op in first.module_op.walk()
        if not isinstance(op.location, UnknownLoc)  # one object for the whole process
    ]
    assert locations
    sizes = CACHES.sizes()
    del first
    gc.collect()
    assert all(ref() is None for ref in ops_of_first + locations)
    assert sum(CACHES.sizes().values()) < sum(sizes.values())  # their verdicts went too
    second = parse_module(text)
    gc.collect()
    again = CACHES.sizes()
    del second
    parse_module(text)
    gc.collect()
    assert CACHES.sizes() == {n: min(c, again[n]) for n, c in CACHES.sizes().items()}


def test_library_calls_leave_the_collector_running() -> None:
    # With a threshold of 1 the collector runs during any call that allocates, unless the call
    # pauses it: parse_module, verify_ir and Module.cloned never do (only the tools do).
    import gc

    collections: list[str] = []

    def observe(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(phase)

    module = _module(BindingMetadata("h"))
    text = print_module(module, debuginfo=True)
    threshold = gc.get_threshold()
    gc.callbacks.append(observe)
    gc.set_threshold(1)
    try:
        calls = {
            "parse_module": lambda: parse_module(text),
            "verify_ir": lambda: verify_ir(module.module_op),
            "cloned": module.cloned,
        }
        for name, call in calls.items():
            collections.clear()
            call()
            assert collections, f"{name} paused the collector"
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(observe)


def test_registering_an_op_empties_the_verifiers_memos() -> None:
    from tilefoundry.dialects.tf import ops as tf_dialect
    from tilefoundry.dialects.tf.ops import CallOp
    from tilefoundry.ir.algebra import expr
    from tilefoundry.ir.verify.op_verification import definition_verifier

    module = _module(BindingMetadata("h"))
    verify_ir(module.module_op)
    print_module(module)  # remembers the text of the call's op target
    calls = definition_verifier(CallOp)
    assert calls is not None and len(calls.class_memo)
    assert tf_dialect._CHECKED_CALLS.entries and expr._CHECKED_LOCATIONS.entries
    assert len(op_attr._ATTRS) > 0 and tf_dialect._op_body_text.cache_info().currsize > 0

    @register_op(dialect="test", category="caches", name="memo_probe")
    class MemoProbe(Op):
        pass

    assert not len(calls.class_memo)
    assert not tf_dialect._CHECKED_CALLS.entries and not expr._CHECKED_LOCATIONS.entries
    assert len(op_attr._ATTRS) == 0 and tf_dialect._op_body_text.cache_info().currsize == 0


MESH_IN_CHILD = """\
tf.module @m target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>] {
  tf.module @c {
    hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = tf.mesh "cta" {
        tf.yield %x : tensor<4xf32>
      } : tensor<4xf32>
      hir.return %y : tensor<4xf32>
    }
  }
}
"""


def test_what_an_owner_chain_resolves_is_remembered_only_during_one_verification() -> None:
    from xdsl.dialects.builtin import ArrayAttr

    from tilefoundry.builtin.target import Topology, TopologyAttr
    from tilefoundry.dialects.tf.module import ModuleOp

    module = parse_module(MESH_IN_CHILD)
    root = module.module_op
    assert CACHES.scope() is None  # outside a verification: nothing remembered
    with CACHES.unchanging() as memo:
        verify_ir(root)  # shares this scope: every module of the tree resolved once
        modules = [op for op in root.walk() if isinstance(op, ModuleOp)]
        assert set(memo) == set(modules)
    assert CACHES.scope() is None
    # The root declares another hierarchy: the next verification resolves the chain anew.
    root.topologies = ArrayAttr([TopologyAttr.of(Topology("warp", 4))])
    with pytest.raises(VerifyError, match="mesh names topology level 'cta'.*available: warp"):
        verify_ir(root)


def test_modules_built_alike_share_their_attributes_and_verdicts() -> None:
    """The builders store one representative of each attribute they make (`shared`): two
    layers built alike share their signature attributes, as a parse's would, so the second
    verifies by the verifier's identity memo; equal attributes are interchangeable, so the IR
    says what it said."""
    from xdsl.dialects.builtin import StringAttr

    from tilefoundry.support.caches import Interner, shared

    first, second = _module(), _module()
    a = first.lookup("f").function_op
    b = second.lookup("f").function_op
    assert a is not b
    for name in ("sym_name", "function_type", "param_names"):
        assert a.properties[name] is b.properties[name]
    assert first.module_op.sym_name is second.module_op.sym_name
    assert print_module(first) == print_module(second)
    assert shared(StringAttr("layer")) is shared(StringAttr("layer"))
    interner = Interner(limit=2)
    values = [StringAttr(str(i)) for i in range(5)]
    for value in values:
        assert interner(value) is value
    assert len(interner) <= 2
    assert interner(StringAttr("4")) is values[4]
    CACHES.bump()
    assert shared(StringAttr("layer")) == StringAttr("layer")  # emptied, still equal
