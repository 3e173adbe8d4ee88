"""The Python DSL: TileFoundry's "parser" in the spec's sense. It reads decorated Python
functions and class bodies (`ast` + `inspect`) and builds the IR through the same constructors
as the Python surface: `@func` / `@prim_func` (`tilefoundry.dsl.functions`), `class
M(tilefoundry.Module)` (`tilefoundry.dsl.classes`), `Tensor` / `ConstTensor` annotations, and
`print_script`, which prints any Module back as DSL source. See docs/dsl.md.
"""

from __future__ import annotations

from tilefoundry.dialects.tf.mesh import MeshOp as Mesh
from tilefoundry.dsl.annotations import (
    Buffer,
    ConstTensor,
    Tensor,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from tilefoundry.dsl.errors import DSLError
from tilefoundry.dsl.functions import func, prim_func
from tilefoundry.dsl.script import ScriptError

__all__ = [
    "Buffer",
    "ConstTensor",
    "DSLError",
    "Mesh",
    "ScriptError",
    "Tensor",
    "bf16",
    "f16",
    "f32",
    "f64",
    "func",
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "prim_func",
]
