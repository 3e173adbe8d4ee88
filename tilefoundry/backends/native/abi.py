"""Calling an entry point of a compiled library from Python: numpy arrays as MLIR memref
descriptors through ctypes (no MLIR Python bindings).

A rank-r memref descriptor is `{T* allocated, T* aligned, i64 offset, i64 sizes[r], i64
strides[r]}`; the `_mlir_ciface_` wrapper takes a pointer to one per memref argument
(`codegen/entry.py` says which, in order). `NativeFunction.__call__` checks the arguments as
the interpreter does (`check_argument`: the same `ExecutionError` text, bf16 rounded, NaNs
quiet; `refuse_aliasing`: no buffer sharing another argument's memory), passes contiguous copies of tensors, passes a buffer's own memory when it can (else a
copy, written back after the call), allocates each result, calls, and reads the status buffer:
a run-time error (an index out of range, no dispatch case) raises the interpreter's
`ExecutionError`.

The IREE backend calls its functions with the same pieces (`bind_arguments`, `to_storage`,
`from_storage`, `leaf_values`, `assembled`, `raise_status`).
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Container, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from tilefoundry.builtin.types import BufferType, DimVar, IRType, TensorType, TupleType
from tilefoundry.codegen.entry import EntryABI
from tilefoundry.dialects.tf.dense import numpy_dtype
from tilefoundry.interpreter.evaluate import ExecutionError, check_argument, refuse_aliasing
from tilefoundry.mlir_builder.builder import STATUS_SLOTS

__all__ = [
    "NativeFunction",
    "assembled",
    "bind_arguments",
    "descriptor",
    "from_storage",
    "leaf_values",
    "array_signature",
    "raise_status",
    "result_shape",
    "to_storage",
    "trusted_arguments",
]

_DESCRIPTORS: dict[int, type[ctypes.Structure]] = {}
_DESCRIPTOR_LOCK = threading.Lock()


def _descriptor_type(rank: int) -> type[ctypes.Structure]:
    """The ctypes struct of a rank's memref descriptor (one class per rank: a bounded memo)."""
    with _DESCRIPTOR_LOCK:
        found = _DESCRIPTORS.get(rank)
        if found is None:
            fields: list[tuple[str, Any]] = [
                ("allocated", ctypes.c_void_p),
                ("aligned", ctypes.c_void_p),
                ("offset", ctypes.c_int64),
            ]
            if rank:
                fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
            found = type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})
            _DESCRIPTORS[rank] = found
        return found


def descriptor(array: Any) -> ctypes.Structure:
    """The memref descriptor of a C-contiguous array (it must outlive the call)."""
    assert array.flags.c_contiguous
    structure = _descriptor_type(array.ndim)()
    value: Any = structure  # its fields are declared at run time
    pointer = array.ctypes.data
    value.allocated = pointer
    value.aligned = pointer
    value.offset = 0
    for axis, (size, stride) in enumerate(zip(array.shape, array.strides, strict=True)):
        value.sizes[axis] = size
        value.strides[axis] = stride // array.itemsize if array.itemsize else 0
    return structure


def array_signature(array: Any) -> tuple[Any, ...]:
    """What a descriptor of the array depends on: its memory, shape and strides."""
    return (array.__array_interface__["data"][0], array.shape, array.strides, array.dtype)


def to_storage(array: Any, dtype: str) -> Any:
    """A C-contiguous array of the element type's bits (bf16: the high halves)."""
    if dtype == "bf16":
        bits = np.ascontiguousarray(array, dtype=np.float32).view(np.uint32)
        return np.ascontiguousarray(bits >> np.uint32(16), dtype=np.uint16)
    return np.ascontiguousarray(array, dtype=numpy_dtype(dtype))


def from_storage(storage: Any, dtype: str) -> Any:
    """Storage bits back as the interpreter holds the dtype (bf16 as float32)."""
    if dtype == "bf16":
        return (storage.astype(np.uint32) << np.uint32(16)).view(np.float32)
    return storage


def leaf_values(type: IRType, value: Any) -> list[tuple[TensorType | BufferType, Any]]:
    if isinstance(type, TupleType):
        return [
            leaf
            for field, item in zip(type.fields, value, strict=True)
            for leaf in leaf_values(field, item)
        ]
    assert isinstance(type, TensorType | BufferType)
    return [(type, value)]


def result_shape(type: TensorType, sizes: dict[str, int]) -> tuple[int, ...]:
    return tuple(sizes[d.name] if isinstance(d, DimVar) else d for d in type.shape)


def assembled(type: IRType, results: list[Any]) -> Any:
    if isinstance(type, TupleType):
        return tuple(assembled(field, results) for field in type.fields)
    return results.pop(0)


def bind_arguments(
    abi: EntryABI, args: Sequence[Any], checked: Container[int] = ()
) -> tuple[dict[str, int], list[Any]]:
    """The DimVar sizes and each argument as the interpreter holds it (`check_argument`: its
    `ExecutionError` text); a buffer's is the caller's array when it can be. The arguments at
    the indices `checked` were checked before (`NativeFunction.trust`): they are as they are."""
    params = abi.params
    if len(args) != len(params):
        names = ", ".join(p.name for p in params)
        raise ExecutionError(
            f"function '{abi.path[-1]}' takes {len(params)} argument(s) ({names}), got {len(args)}"
        )
    sizes: dict[str, int] = {}
    held = [
        a if i in checked else check_argument(p.name, p.type, a, sizes)
        for i, (p, a) in enumerate(zip(params, args, strict=True))
    ]
    refuse_aliasing([p.name for p in params], [p.type for p in params], args)
    return sizes, held


def trusted_arguments(abi: EntryABI, values: Mapping[str, Any]) -> Iterator[tuple[int, Any, str]]:
    """The parameters whose bound value (`values`, by name: a `LoadedModule`'s bindings) a
    backend may check once for all: each index, array and dtype of a statically shaped tensor
    parameter whose value is a read-only array its check returns as it is; none in a function
    with buffers."""
    params = abi.params
    if any(isinstance(p.type, BufferType) for p in params):
        return
    for index, param in enumerate(params):
        array = values.get(param.name)
        type = param.type
        if (
            isinstance(array, np.ndarray)
            and not array.flags.writeable
            and isinstance(type, TensorType)
            and all(isinstance(d, int) for d in type.shape)
            and check_argument(param.name, type, array, {}) is array
        ):
            yield index, array, type.dtype


def raise_status(status: Any, messages: Sequence[str]) -> None:
    """The run-time error a status buffer records (slot 0: its code, 0 for none)."""
    if status[0]:
        message = messages[int(status[0]) - 1]
        raise ExecutionError(message.format(*(int(v) for v in status[1:])))


class NativeFunction:
    """One entry point of a loaded library, called with one array per parameter."""

    def __init__(self, library: ctypes.CDLL, abi: EntryABI, messages: Sequence[str]) -> None:
        self.abi = abi
        self.messages = list(messages)
        self._entry = getattr(library, abi.c_symbol)
        self._entry.restype = None
        self._library = library  # kept alive as long as the function
        self._trusted: dict[int, tuple[Any, Any, Any, tuple[Any, ...]]] = {}

    def trust(self, values: Mapping[str, Any]) -> None:
        """Arguments checked once for all (a `LoadedModule`'s bindings, by parameter name: each a
        read-only array its parameter's check returned): a call given the same array object,
        with the same memory, shape and strides, reuses its check and its descriptor. Only
        statically shaped tensor parameters of a function without buffers are trusted."""
        for index, array, dtype in trusted_arguments(self.abi, values):
            storage = to_storage(array, dtype)
            structure = descriptor(storage)
            self._trusted[index] = (array, storage, structure, array_signature(array))

    @property
    def name(self) -> str:
        return self.abi.path[-1]

    def __call__(self, *args: Any) -> Any:
        abi = self.abi
        params = abi.params
        reused = {
            index: known
            for index, known in self._trusted.items()
            if index < len(args)
            and args[index] is known[0]
            and known[3] == array_signature(known[0])
        }
        sizes, held = bind_arguments(abi, args, reused)
        keep: list[Any] = []
        pointers: list[Any] = []
        write_back: list[tuple[Any, Any, str]] = []
        for index, (param, value) in enumerate(zip(params, held, strict=True)):
            found = reused.get(index)
            if found is not None:
                keep.append(found[1])
                pointers.append(ctypes.byref(found[2]))
                continue
            for leaf, array in leaf_values(param.type, value):
                if isinstance(leaf, BufferType):
                    direct = (
                        leaf.dtype != "bf16"
                        and array.flags.c_contiguous
                        and array.dtype == numpy_dtype(leaf.dtype)
                    )
                    storage = array if direct else to_storage(array, leaf.dtype)
                    if not direct:
                        write_back.append((array, storage, leaf.dtype))
                else:
                    storage = to_storage(array, leaf.dtype)  # no buffer's memory (refused above)
                keep.append(storage)
                pointers.append(ctypes.byref(descriptor(storage)))
        outputs = []
        for result in abi.results:
            shape = result_shape(result, sizes)
            storage = np.empty(
                shape, np.uint16 if result.dtype == "bf16" else numpy_dtype(result.dtype)
            )
            outputs.append((result, storage))
            pointers.append(ctypes.byref(descriptor(storage)))
        status = np.zeros(STATUS_SLOTS, np.int64)
        pointers.append(ctypes.byref(descriptor(status)))
        keep.append(status)
        self._entry(*pointers)
        for array, storage, dtype in write_back:
            np.copyto(array, from_storage(storage, dtype))
        raise_status(status, self.messages)
        if not abi.results:
            return None
        values = [from_storage(storage, t.dtype) for t, storage in outputs]
        return assembled(abi.result, values)
