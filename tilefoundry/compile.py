"""The compile stages on the Python surface (docs/compile.md): `lower`, HIR → TIR.

```python
lowered = tilefoundry.lower(decoder)                       # from the entry: a new Module
kernel = tilefoundry.lower(decoder, function="layer0.mlp")  # that function, re-rooted at it
lowered.step(x, *weights)       # runs as the HIR did: the same bits (the interpreter)
```

`lower` is `tilefoundry.lowering.lower_module` (what the `tf-lower` pass runs) over a `Module`:
the input is never changed, the output is verified, and each module of the output that was a
module of the input keeps its orchestration methods (Python only, as `cloned()` shares them). A
refusal (no entry and no `function`, a variant it cannot lower, a path that names no function)
is a `VerifyError` (`LoweringError`) whose text says what to do.
"""

from __future__ import annotations

from tilefoundry.arguments import refuse_type
from tilefoundry.dialects.tf.module import ModuleOp
from tilefoundry.dialects.tf.selection import path_names
from tilefoundry.ir.verify.verifier import verify_ir
from tilefoundry.lowering import lower_module
from tilefoundry.module import METHODS, Module

__all__ = ["lower"]


def lower(module: Module, function: str | None = None) -> Module:
    """The module lowered to TIR: from its entry, or from the function `function` names (a
    path, as `select` takes it); see the module docstring."""
    if not isinstance(module, Module):
        refuse_type("lower module", "a Module", module)
    if function is not None and not isinstance(function, str):
        refuse_type("lower function", "a path (a str) or None", function)
    lowered = lower_module(module.module_op, function)
    verify_ir(lowered)
    start = module.module_op
    if function is not None:  # the module that holds the function, re-rooted at it
        for name in path_names(function)[:-1]:
            child = start.member(name)
            assert isinstance(child, ModuleOp)
            start = child
    _carry_methods(start, lowered)
    return Module.of(lowered)


def _carry_methods(original: ModuleOp, lowered: ModuleOp) -> None:
    """Give each module of `lowered` the methods of the module of `original` at its path."""
    methods = METHODS.get(original)
    if methods:
        METHODS.set(lowered, dict(methods))
    for op in lowered.body.block.ops:
        if isinstance(op, ModuleOp):
            source = original.member(op.sym_name.data)
            if isinstance(source, ModuleOp):
                _carry_methods(source, op)
