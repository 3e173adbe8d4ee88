"""The registered op library, and its Python surface.

Every op class is registered under dialect `tf` (`tf.math.binary`, `tf.reduce.sum`, ...); the
kinded sugar names (`add`, `cmp_lt`, `exp`, ...) are aliases under `("tf", "math", name)`. Each
op is defined once, on its class (`tilefoundry/ops/<family>.py`): its params, type inference,
folding, FLOPs, exactness rule, numpy reference and docs. The functions below are generated
from the registry (`builders.py`): one per op class, named by its `builder_name` (else its own
name), and one per alias, which builds a `Call` through overload resolution (the first schema
of the bucket whose patterns accept the arguments):

```python
from tilefoundry.ops import add, matmul, reduce_sum, softmax
y = add(matmul(x, w), b)           # Call(Binary(kind=ADD), [Call(MatMul(), [x, w]), b])
p = softmax(y, axis=-1)            # Call(Softmax(axis=-1), [y])
```
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tilefoundry.ir.algebra.op_registry import Op, schemas_defined_in

# importing a family registers its ops (`conv` is also a builder's name: the builder wins)
from tilefoundry.ops import conv as conv_family  # noqa: F401
from tilefoundry.ops import linalg, math, memory, nn, reduce, structure, tensor  # noqa: F401
from tilefoundry.ops.builders import builder_name_of, builders_of, call_surface
from tilefoundry.ops.conv import PoolKind
from tilefoundry.ops.math import BINARY_ALIASES, UNARY_ALIASES, BinaryKind, UnaryKind
from tilefoundry.ops.nn import ActivationKind, LogicalKind

if TYPE_CHECKING:  # the builders' signatures, generated from the registry (`make dialects`)
    from tilefoundry.ops._builders import *  # noqa: F403


LIBRARY: tuple[type[Op], ...] = tuple(
    s.op_class for s in schemas_defined_in(__name__) if s.op_class is not None
)
"""The op classes of the library (each has a builder), in registry order."""

BUILDERS = builders_of(__name__)

_ALIASED: dict[Op, str] = {}
for _schema in reversed(schemas_defined_in(__name__)):
    if _schema.op_class is None:
        _ALIASED[_schema.builder()] = _schema.name
del _schema


def alias_of(op: Op) -> str | None:
    """The name of the library's alias that builds exactly `op` (`Binary(kind=ADD)` -> `add`),
    the first in registry order; None when no alias does."""
    return _ALIASED.get(op)


globals().update(BUILDERS)
globals().update({op_class.__name__: op_class for op_class in LIBRARY})

__all__ = [
    "BINARY_ALIASES",
    "BUILDERS",
    "LIBRARY",
    "UNARY_ALIASES",
    "ActivationKind",
    "BinaryKind",
    "LogicalKind",
    "PoolKind",
    "UnaryKind",
    "alias_of",
    "builder_name_of",
    "builders_of",
    "call_surface",
]
__all__ += [c.__name__ for c in LIBRARY if c.__name__ not in __all__]
__all__ += list(BUILDERS)


if not TYPE_CHECKING:  # a type checker sees the names above and the stub's, and no others

    def __getattr__(name: str) -> Any:
        """A name the library does not have: AttributeError with the nearest builder or op class
        (`ops.matmull`: did you mean 'matmul'?)."""
        if name.startswith("_"):
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        import difflib

        known = [*BUILDERS, *(c.__name__ for c in LIBRARY)]
        close = difflib.get_close_matches(name, known, n=1)
        guess = f"; did you mean '{close[0]}'?" if close else ""
        raise AttributeError(f"module {__name__!r} has no op or builder {name!r}{guess}")
