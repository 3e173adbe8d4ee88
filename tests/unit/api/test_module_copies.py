"""`copy.copy`, `copy.deepcopy` and `pickle` of a Module: an independent copy through the text
form with debug info (metadata included), the methods of every module of the tree kept (shared
by a deep copy, pickled by reference); a Function alone is refused with a clear TypeError."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import UnitAttr

from tilefoundry import (
    Module,
    TensorType,
    Topology,
    Var,
    ops,
    parse_module,
    print_module,
    structural_equal,
)
from tilefoundry.api.hir import Function
from tilefoundry.dialects.hir import FuncOp

T4 = TensorType((4,), "f32")


def forward(self: Module, x: Any) -> Any:
    """A method defined at the top level: it pickles by reference."""
    return self.step(x)


def tree(methods: dict[str, Any] | None = None) -> Module:
    x, y = Var("x", T4), Var("y", T4)
    layer = Module(
        name="MLP",
        functions=[Function(name="mlp", params=[y], body=ops.exp(y))],
        methods={"twice": forward},
    )
    return Module(
        name="root",
        functions=[Function(name="step", params=[x], body=ops.neg(x))],
        modules={"layer0": layer},
        target="h100",
        topologies=(Topology("cta", 4),),
        entry="step",
        metadata={"opt_level": 2, "note": "kept"},
        methods=methods if methods is not None else {"forward": forward},
    )


COPIES = {
    "copy.copy": copy.copy,
    "copy.deepcopy": copy.deepcopy,
    "pickle": lambda module: pickle.loads(pickle.dumps(module)),
}


@pytest.mark.parametrize("how", COPIES)
def test_a_copy_is_the_same_ir_with_its_metadata_and_methods(how: str) -> None:
    root = tree()
    duplicate = COPIES[how](root)
    assert isinstance(duplicate, Module) and duplicate is not root
    assert duplicate.module_op is not root.module_op
    assert print_module(duplicate, debuginfo=True) == print_module(root, debuginfo=True)
    assert structural_equal(duplicate, root)
    assert duplicate.metadata == {"opt_level": 2, "note": "kept"}
    assert dict(duplicate.methods) == {"forward": forward}
    assert dict(duplicate.layer0.methods) == {"twice": forward}
    np.testing.assert_array_equal(duplicate.forward(np.ones(4, np.float32)), -np.ones(4))
    duplicate.verify()


@pytest.mark.parametrize("how", COPIES)
def test_a_copy_is_independent(how: str) -> None:
    root = tree()
    before = print_module(root, debuginfo=True)
    duplicate = COPIES[how](root)
    function = next(op for op in duplicate.module_op.walk() if isinstance(op, FuncOp))
    function.attributes["tf.mark"] = UnitAttr()  # the copy changed in place
    assert "tf.mark" in print_module(duplicate)
    assert print_module(root, debuginfo=True) == before


def test_locations_are_kept(tmp_path: Any) -> None:
    text = (
        'tf.module @m entry @f {\n  hir.func @"a.b"(%x: tensor<4xf32> loc("x.py":1:2)) -> '
        "tensor<4xf32> {\n"
        "    %y = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32> "
        'loc("model.py":3:4)\n    hir.return %y : tensor<4xf32>\n  }\n'
        '  hir.func @f() -> () {\n    hir.return\n  }\n} loc("m.py":9:1)\n'
    )
    module = parse_module(text)
    for how in COPIES.values():
        assert print_module(how(module), debuginfo=True) == print_module(module, debuginfo=True)


def test_a_child_s_copy_resolves_as_the_child_does() -> None:
    root = tree()
    for how in COPIES.values():
        child = how(root.layer0)
        assert child.owner is None  # no owner object, as after text
        assert child.resolve_target() == root.resolve_target()
        assert child.effective_topologies() == (Topology("cta", 4),)
        assert dict(child.methods) == {"twice": forward}
    assert root.layer0.owner == root  # the original is untouched


def test_a_deep_copy_shares_a_lambda_method_and_pickle_refuses_it() -> None:
    root = tree({"forward": lambda self, x: self.step(x)})
    duplicate = copy.deepcopy(root)
    assert duplicate.methods["forward"] is root.methods["forward"]
    with pytest.raises(TypeError) as refused:
        pickle.dumps(root)
    assert str(refused.value).startswith(
        "cannot pickle module 'root': its method 'forward' (<function "
    )
    assert "a method pickles by reference, so it must be a function defined at a module's top " in (
        str(refused.value)
    )


def test_a_function_alone_is_refused_with_a_clear_type_error() -> None:
    step = tree().lookup("step")
    message = (
        "cannot copy or pickle Function 'step' by itself: a function is a node of its module "
        "(its calls name other functions of the tree); copy or pickle the Module "
        "(copy.deepcopy(module), pickle.dumps(module), module.cloned())"
    )
    for how in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError) as refused:
            how(step)
        assert str(refused.value) == message
