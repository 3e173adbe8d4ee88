"""tf-run's values: random arguments, arguments read from `.npy` / `.npz` files, results written
to them, and values shown as numpy shows them (elided when large).

A tensor is one `.npy` file; a tuple is one `.npz` file holding its tensors depth first, as
`np.savez` names them (`arr_0`, `arr_1`, ...). Files are read without pickles: a file that needs
one (an object array) is refused, never run.
"""

from __future__ import annotations

import math
import os
import re
import stat
import warnings
from typing import Any, BinaryIO

import numpy as np

from tilefoundry.builtin.types import BufferType, DimVar, IRType, TensorType, TupleType

__all__ = [
    "MAX_DRAWN_ELEMENTS",
    "RunError",
    "check_output_path",
    "draw",
    "exact_value",
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
    drawn = rng.standard_normal(shape).astype("float16" if type.dtype == "f16" else "float32")
    return _bf16_rounded(drawn) if type.dtype == "bf16" else drawn


def _bf16_rounded(array: Any) -> Any:
    """float32 values rounded to the nearest bf16 (ties to even; the finite normal values that
    a random draw gives), still held as float32."""
    bits = array.view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(
        0xFFFF0000
    )
    return rounded.view(np.float32)


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


def check_output_path(path: str, type: IRType, what: str = "the result") -> None:
    """A value of `type` (`what`: the result, a buffer) can be written to `path`: a `.npy` file
    for a tensor, `.npz` for a tuple (checked before the run); `-` (standard output), a
    descriptor (`/dev/stdout`), a device or a FIFO takes either."""
    suffix = ".npz" if isinstance(type, TupleType) else ".npy"
    if path == "-" or _is_special(path) or _DESCRIPTOR_PATH.fullmatch(os.path.abspath(path)):
        return
    if not path.endswith(suffix):
        kind = "a tuple" if isinstance(type, TupleType) else "a tensor"
        raise RunError(f"{what} is {kind}: write it to a {suffix} file, got '{path}'")


_DESCRIPTOR_PATH = re.compile(r"/dev/(fd/\d+|stdout|stderr)|/proc/(self|\d+)/fd/\d+")
"""A file descriptor's path: it takes either form, whatever file it leads to."""


def _is_special(path: str) -> bool:
    """Whether `path` names something that exists and is neither a regular file nor a directory
    (a device, a FIFO, a socket)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def save_value(path: str, value: Any) -> None:
    """Write a result: a tensor in `.npy` form, a tuple in `.npz` form (`tools/output/output.py`: a
    regular file is written aside and renamed over `path`, so a failed write leaves the
    previous file as it was; `-` is standard output; raises `OutputError`)."""

    from tilefoundry.tools.output.output import write_file

    def write(stream: BinaryIO) -> None:
        if isinstance(value, tuple):  # each member is written through the zip file's write
            np.savez(stream, *flatten(value))
        else:
            np.save(_Writer(stream), np.asarray(value), allow_pickle=False)

    write_file(path, write)


def _within(array: Any, dtype: Any) -> Any:
    """Where the elements of `array` lie in the range of the integer or bool `dtype` (a float
    element: finite and integral too); compared as values, never through a wrapping cast."""
    lo, hi = (0, 1) if dtype.kind == "b" else (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max))
    if array.dtype.kind in "biu":
        return (array >= lo) & (array <= hi)
    # float(hi + 1) is exact (a power of two): the elements below it are at most hi.
    return np.isfinite(array) & (np.floor(array) == array) & (array >= lo) & (array < float(hi + 1))


def _exact(array: Any, converted: Any) -> Any:
    """Where `converted` (`array` cast to another dtype) holds each element's exact value."""
    if converted.dtype.kind in "biu":
        return _within(array, converted.dtype)
    if array.dtype.kind in "iu":  # to a float: exact where it converts back to the same int
        return _within(converted, array.dtype) & (converted.astype(array.dtype) == array)
    back = converted.astype(array.dtype)  # bool or float to a float
    exact = back == array
    if array.dtype.kind == "f":
        exact |= np.isnan(back) & np.isnan(array)
    return exact


class _Writer:
    """A stream that only writes: numpy then writes through `write`, whose failure names its
    cause (`File too large`), rather than with `tofile`, whose failure does not (`16384
    requested and 992 written`)."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def write(self, data: bytes) -> int:
        return self._stream.write(data)

    def flush(self) -> None:
        self._stream.flush()


def exact_value(value: Any, type: IRType, what: str, shown: IRType | None = None) -> Any:
    """A value read for a parameter of `type`, in the parameter's dtype: converted only when
    every element is exact in that dtype, else refused naming both dtypes and the first element
    that does not fit (int64 1000 for i8, float64 0.1 or 1e10 for f16, 1.5 for i32, 2 for i1).
    A bf16 value is given as float32 (numpy has no bf16) and must hold bf16 values."""
    if isinstance(type, TupleType):
        if not isinstance(value, tuple) or len(value) != len(type.fields):
            return value  # check_argument refuses it, naming the tuple type
        return tuple(
            exact_value(field, t, f"{what} field {i}")
            for i, (field, t) in enumerate(zip(value, type.fields, strict=True))
        )
    from tilefoundry.dialects.tf.dense import numpy_dtype

    if isinstance(type, BufferType):  # its initial contents: a tensor's rule
        return exact_value(value, type.tensor, what, type)
    if not isinstance(type, TensorType):
        return value
    array = np.asarray(value)
    expected = numpy_dtype(type.dtype)
    holds = f"{type.dtype} ({expected})" if type.dtype == "bf16" else str(expected)
    if array.dtype.kind not in "biuf":
        raise RunError(
            f"{what} ({array.dtype}) is not a bool, integer or float array: {shown or type} takes "
            f"{holds} values"
        )
    if array.dtype == expected and type.dtype != "bf16":
        return array
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's cast warnings: the check below decides
        converted = array.astype(expected)
        exact = _exact(array, converted)
        if type.dtype == "bf16":
            bits = converted.view(np.uint32)
            exact &= ((bits & 0xFFFF) == 0) | np.isnan(converted)
    if not exact.all():
        index = tuple(int(i) for i in np.argwhere(~exact)[0])
        element = array[index].item()
        raise RunError(
            f"{what} ({array.dtype}) holds {element!r} at {list(index)}, which {type.dtype} "
            f"cannot hold exactly: {shown or type} takes {holds} values (tf-run converts an input's "
            "dtype only when every element is exact)"
        )
    return converted


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
