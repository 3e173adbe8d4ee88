"""`run_passes`: a pass pipeline (tf-opt's `-p` text) over a `Module`, from Python.

```python
layer = run_passes(decoder, "tf-select{path=layer2},tf-prune-unreachable,tf-inline,canonicalize")
layer.block(x, *weights)          # the result is a Module like any other
```

The pipeline runs on a copy: the input is never changed, so a failing pass (or a pipeline
that does not parse) leaves it as it was. The IR is verified after every pass, as `tf-opt`
does. Errors: `PipelineError` (a `ValueError`) for the text, `PassError` for a pass that
refuses its input, `PassOutputError` (a `VerifyError`) for a pass whose output fails the
verifier (the pass's bug: `pass 'tf-inline' produced invalid IR: ...`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp as BuiltinModuleOp

from tilefoundry.api.module import Module
from tilefoundry.context.context import make_context
from tilefoundry.dialects.tf.module import ModuleOp
from tilefoundry.support.arguments import shown
from tilefoundry.transforms import PASSES
from tilefoundry.transforms.instrumentation import standard_instrumentations
from tilefoundry.transforms.pass_manager import parse_pipeline

__all__ = ["run_passes"]


def run_passes(module: Module, pipeline: str) -> Module:
    """The module a pipeline makes of a copy of `module` (see the module docstring)."""
    if not isinstance(module, Module):
        raise TypeError(f"run_passes takes a Module, got {type(module).__name__} {shown(module)}")
    if not isinstance(pipeline, str):
        raise TypeError(f"run_passes takes the pipeline as a str, got {shown(pipeline)}")
    built = parse_pipeline(pipeline, PASSES)
    copy = module.cloned()
    holder = BuiltinModuleOp([copy.module_op])
    built.run(make_context(), holder, standard_instrumentations())
    (root,) = [op for op in holder.body.block.ops if isinstance(op, ModuleOp)]
    holder.body.block.detach_op(root)
    return Module.of(root)
