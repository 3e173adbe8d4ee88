"""The Python builders of the op library, generated from the registry: one function per op class
(named by its `builder_name`, else its own name) and one per alias.

```python
ops.softmax(x, -1)                    # Call(Softmax(axis=-1), [x])
ops.reduce_sum(x, axis=1, keepdims=True)
ops.slice(x, axis=1, stop=4)          # attributes after a defaulted one are keyword-only
ops.add(a, b)                         # an alias: the first matching schema of its bucket
```

An op's builder takes its inputs (positional), then its attributes in `ParamDef` order
(positional or keyword while every required attribute comes before the defaulted ones, else
keyword-only), and `metadata`. An attribute annotated `tuple[...]` takes any iterable.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterable
from typing import Any

from tilefoundry.builtin.metadata import IRMetadata
from tilefoundry.dialects.tf.ops import CallOp
from tilefoundry.ir.algebra.expr import Expr, check_expr
from tilefoundry.ir.algebra.op_registry import (
    Op,
    OpSchema,
    ParamDef,
    resolve_schema,
    schemas_defined_in,
)

__all__ = ["alias_builder", "builder_name_of", "builders_of", "call_surface", "op_builder"]

Builder = Callable[..., CallOp]


def call_surface(
    dialect: str,
    category: str,
    name: str,
    *args: Expr,
    metadata: Iterable[IRMetadata] = (),
    **attrs: Any,
) -> CallOp:
    """`Call` the surface name `dialect.category.name`: the first matching schema's builder
    makes the Op (from attribute kwargs only), and the args become the Call's arguments."""
    for index, arg in enumerate(args):
        check_expr(arg, f"'{name}' argument #{index}")
    schema = resolve_schema(dialect, category, name, [a.type for a in args])
    return CallOp(schema.builder(**attrs), args, metadata=metadata)


def _summary(doc: str | None) -> str:
    first = inspect.cleandoc(doc or "").split("\n\n")[0]
    return " ".join(first.split())


def _signature(inputs: list[ParamDef], attributes: list[ParamDef]) -> inspect.Signature:
    ordered = all(
        not a.has_default or all(b.has_default for b in attributes[i:])
        for i, a in enumerate(attributes)
    )
    attr_kind = (
        inspect.Parameter.POSITIONAL_OR_KEYWORD if ordered else inspect.Parameter.KEYWORD_ONLY
    )
    params = [inspect.Parameter(p.name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in inputs]
    for a in attributes:
        default = a.default if a.has_default else None if a.optional else inspect.Parameter.empty
        params.append(inspect.Parameter(a.name, attr_kind, default=default))
    params.append(inspect.Parameter("metadata", inspect.Parameter.KEYWORD_ONLY, default=()))
    return inspect.Signature(params)


def _attribute_value(param: ParamDef, value: Any) -> Any:
    """A `tuple[...]` attribute from any iterable (a range, a generator); else as given."""
    if typing.get_origin(param.annotation) is tuple and not isinstance(value, tuple | list | str):
        try:
            return tuple(value)
        except TypeError:
            return value  # the Op refuses it, naming what it expects
    return value


def builder_name_of(op_class: type[Op]) -> str:
    """The name of an op class's builder: its `builder_name`, else its own name
    (`tf.nn.softmax` -> `softmax`)."""
    return op_class.builder_name or op_class.op_name.rsplit(".", 1)[-1]


def op_builder(op_class: type[Op], name: str) -> Builder:
    """The builder `name(*inputs, *attributes, metadata=())` of an op class."""
    inputs, attributes = op_class.input_params(), op_class.attribute_params()
    signature = _signature(inputs, attributes)

    def build(*args: Any, **kwargs: Any) -> CallOp:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as err:
            raise TypeError(f"{name}(): {err}") from None
        bound.apply_defaults()
        values = bound.arguments
        operands = [values[p.name] for p in inputs]
        attrs = {a.name: _attribute_value(a, values[a.name]) for a in attributes}
        return CallOp(op_class(**attrs), operands, metadata=values["metadata"])

    build.__name__ = build.__qualname__ = name
    build.__signature__ = signature  # type: ignore[attr-defined]
    build.__doc__ = f"`Call` of `{op_class.op_name}` ({op_class.__name__}): " + _summary(
        op_class.__doc__
    )
    return build


def alias_builder(schema: OpSchema) -> Builder:
    """The builder `name(*inputs, metadata=())` of an alias (resolved as `call_surface`)."""
    arity = len(schema.input_params)
    name = schema.name

    def build(*args: Expr, metadata: Iterable[IRMetadata] = ()) -> CallOp:
        if len(args) != arity:
            raise TypeError(f"{name}() takes {arity} argument(s), got {len(args)}")
        return call_surface(schema.dialect, schema.category, name, *args, metadata=metadata)

    build.__name__ = build.__qualname__ = name
    build.__doc__ = (
        f"`Call` of the `{name}` alias (dialect {schema.dialect}, category {schema.category})."
    )
    return build


def builders_of(package: str) -> dict[str, Builder]:
    """Every builder of the ops and aliases defined in `package` (a module or a package and the
    modules under it), by name: what `tilefoundry.ops` exports for its own, and what a library
    of ops gets for its own the same way. Two builders of one name are refused."""
    found: dict[str, Builder] = {}
    for schema in schemas_defined_in(package):
        op_class = schema.op_class
        if op_class is None:
            name, builder = schema.name, alias_builder(schema)
        else:
            name = builder_name_of(op_class)
            builder = op_builder(op_class, name)
        if name in found:
            raise ValueError(f"two builders of the op library are named '{name}'")
        found[name] = builder
    return found
