"""tf-run's values: random arguments, arguments read from `.npy` / `.npz` files, results written
to them, and values shown as numpy shows them (elided when large).

A tensor is one `.npy` file; a tuple is one `.npz` file holding its tensors depth first, as
`np.savez` names them (`arr_0`, `arr_1`, ...). Files are read without pickles: a file that needs
one (an object array) is refused, never run.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tilefoundry.types import BufferType, DimVar, IRType, TensorType, TupleType

__all__ = [
    "MAX_DRAWN_ELEMENTS",
    "RunError",
    "check_output_path",
    "draw",
    "flatten",
    "format_value",
    "load_value",
    "save_value",
    "value_summary",
]

_SHOWN_ELEMENTS = 64
"""Arrays with more elements than this are shown elided (their first and last few)."""

MAX_DRAWN_ELEMENTS = 1 << 28
"""The most elements a random argument may have (1 GiB of f32): a larger one is refused, not
allocated (give it with --input)."""


class RunError(Exception):
    """A refusal of tf-run: one line."""


def draw(type: IRType, sizes: dict[str, int], rng: np.random.Generator) -> Any:
    """A random value of `type` (a DimVar takes its size from `sizes`, else its lower bound)."""
    if isinstance(type, TupleType):
        return tuple(draw(t, sizes, rng) for t in type.fields)
    if isinstance(type, BufferType):  # a fresh writeable array, its initial contents
        return draw(type.tensor, sizes, rng)
    if not isinstance(type, TensorType):
        raise RunError(f"cannot draw a value of type {type}")
    shape = [sizes.get(d.name, d.lo) if isinstance(d, DimVar) else d for d in type.shape]
    if math.prod(shape) > MAX_DRAWN_ELEMENTS:
        raise RunError(
            f"a random {type} of shape {shape} would have {math.prod(shape)} elements; tf-run "
            f"draws at most {MAX_DRAWN_ELEMENTS} (give the argument with --input)"
        )
    if type.dtype == "i1":
        return rng.integers(0, 2, shape).astype(bool)
    if type.dtype.startswith("i"):
        return rng.integers(-8, 8, shape).astype(f"int{type.dtype[1:]}")
    return rng.standard_normal(shape).astype("float16" if type.dtype == "f16" else "float32")


def flatten(value: Any) -> list[Any]:
    """The tensors of a value, depth first."""
    if isinstance(value, tuple):
        return [leaf for field in value for leaf in flatten(field)]
    return [value]


def _count(type: IRType) -> int:
    return sum(_count(t) for t in type.fields) if isinstance(type, TupleType) else 1


def _rebuild(type: IRType, leaves: list[Any]) -> Any:
    if isinstance(type, TupleType):
        return tuple(_rebuild(t, leaves) for t in type.fields)
    return leaves.pop(0)


def load_value(path: str, type: IRType, what: str) -> Any:
    """The value of `type` stored in `path` (`.npy` for a tensor, `.npz` for a tuple)."""
    suffix = ".npz" if isinstance(type, TupleType) else ".npy"
    if not path.endswith(suffix):
        raise RunError(f"{what} has type {type}: give it as a {suffix} file, got '{path}'")
    try:
        loaded = np.load(path, allow_pickle=False)
        if isinstance(loaded, np.ndarray) != (suffix == ".npy"):
            raise RunError(f"cannot read {what} from '{path}': not a {suffix} file")
        if isinstance(loaded, np.ndarray):
            return loaded
        with loaded:
            keys = [f"arr_{i}" for i in range(_count(type))]
            if sorted(loaded.files) != sorted(keys):
                raise RunError(
                    f"{what}: '{path}' holds {', '.join(loaded.files) or 'nothing'}; "
                    f"{type} needs {', '.join(keys)}"
                )
            return _rebuild(type, [np.array(loaded[key]) for key in keys])
    except RunError:
        raise
    except Exception as err:  # numpy reports a bad file as OSError, ValueError, EOFError, ...
        reason = err.strerror if isinstance(err, OSError) and err.strerror else err
        raise RunError(f"cannot read {what} from '{path}': {reason}") from None


def check_output_path(path: str, type: IRType) -> None:
    """A result of `type` can be written to `path`: a `.npy` file for a tensor, `.npz` for a
    tuple (checked before the run)."""
    suffix = ".npz" if isinstance(type, TupleType) else ".npy"
    if not path.endswith(suffix):
        kind = "a tuple" if isinstance(type, TupleType) else "a tensor"
        raise RunError(f"the result is {kind}: write it to a {suffix} file, got '{path}'")


def save_value(path: str, value: Any) -> None:
    """Write a result: a tensor to a `.npy` file, a tuple to a `.npz` file."""
    try:
        with open(path, "wb") as stream:
            if isinstance(value, tuple):
                np.savez(stream, *flatten(value))
            else:
                np.save(stream, np.asarray(value), allow_pickle=False)
    except OSError as err:
        raise RunError(f"cannot write output file '{path}': {err.strerror}") from None


def value_summary(value: Any) -> str:
    """`array[7, 4] float32`, `(array[2] int32, array[2] bool)`."""
    if value is None:
        return "nothing (an effect-only function)"
    if isinstance(value, tuple):
        return "(" + ", ".join(value_summary(v) for v in value) + ")"
    array = np.asarray(value)
    return f"array{list(array.shape)} {array.dtype}"


def format_value(value: Any, indent: str) -> list[str]:
    """The value's lines as numpy prints arrays (elided when large); a tuple's fields each
    under its index."""
    if value is None:
        return []
    if isinstance(value, tuple):
        lines: list[str] = []
        for index, field in enumerate(value):
            lines.append(f"{indent}[{index}] {value_summary(field)}")
            lines.extend(format_value(field, indent + "    "))
        return lines
    text = np.array2string(
        np.asarray(value), threshold=_SHOWN_ELEMENTS, edgeitems=3, max_line_width=100
    )
    return [indent + line for line in text.splitlines()]
