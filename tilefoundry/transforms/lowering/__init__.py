"""HIR → TIR: `lower_module(module_op, function=None)`, the spec's `tilefoundry.lower`, on the IR.

The output is a new module tree in which every function is a `tir.prim_func`: only what the
entry (or the function `function` names, a path as `tf-select` takes it) reaches, each
`hir.func` rewritten as a prim function of the same name and signature, a function with
shape-specialization variants as a `tir.dispatch` over prim functions made from them. The input
is never changed. See `lower.py` for the rules and `functions.py` for the rewriting of one
function; docs/compile.md ("Lowering") is the contract.

```python
lowered = lower_module(root)                       # from root's entry
kernel = lower_module(root, function="layer0.mlp")  # the function that path names, re-rooted
```

The pass is `tf-lower` (`tilefoundry/transforms/tf_lower.py`); the Python surface is
`tilefoundry.lower` (`tilefoundry/api/compiler.py`).
"""

from __future__ import annotations

from tilefoundry.transforms.lowering.functions import variant_names
from tilefoundry.transforms.lowering.lower import LoweringError, lower_module

__all__ = ["LoweringError", "lower_module", "variant_names"]
