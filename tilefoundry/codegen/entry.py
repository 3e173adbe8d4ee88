"""The exported entry points: the C ABI a backend calls (docs/compile.md, "Emission").

For a prim function the wrapper `@tf..._<path>` (`llvm.emit_c_interface`, so its C symbol is
`_mlir_ciface_tf..._<path>`) takes identity-layout memrefs, in order:

1. one per parameter leaf (a tuple parameter is its leaves): a tensor parameter's is read, a
   buffer parameter's is the buffer the function writes in place;
2. one caller-owned output memref per result leaf (destination-passing style: every DimVar of
   a result is carried by a parameter, so the caller knows each result's shape);
3. the status buffer, `memref<8xi64>`, zero on entry: slot 0 is the code of the first run-time
   error (an index out of range, a dispatch with no case; `EmittedModule.messages[code - 1]`),
   the other slots the values its message is formatted with.

By value (`emit_module(..., by_value=True)`, the IREE backend) the wrapper is a plain public
`func.func` over tensors: it takes one tensor per parameter leaf (a buffer's current contents)
and returns the result leaves, then each buffer leaf's final contents (in parameter order), then
the status `tensor<8xi64>` (`write_value_wrapper`); the caller writes the buffers back.

The memref wrapper returns nothing. Element types at the boundary are the dtypes' own (`i1` one byte, `bf16`
the high 16 bits of a float32).

```mlir
func.func @tf_4main(%a0: memref<?x8xf32>, %r0: memref<?x8xf32>, %status: memref<8xi64>) attributes {llvm.emit_c_interface} {
  %t0 = bufferization.to_tensor %a0 restrict : memref<?x8xf32>
  %v = func.call @tfi_4main(%t0, %status) : (tensor<?x8xf32>, memref<8xi64>) -> tensor<?x8xf32>
  bufferization.materialize_in_destination %v in restrict writable %r0 : (tensor<?x8xf32>, memref<?x8xf32>) -> ()
  func.return
}
```
"""

from __future__ import annotations

from dataclasses import dataclass

from tilefoundry.builtin.types import BufferType, IRType, TensorType
from tilefoundry.dialects.tir import PrimFuncOp
from tilefoundry.mlir_builder.builder import STATUS_TENSOR, STATUS_TYPE
from tilefoundry.mlir_builder.types import leaves, memref_type, tensor_type

__all__ = ["EntryABI", "ParamABI", "entry_abi", "write_value_wrapper", "write_wrapper"]


@dataclass(frozen=True)
class ParamABI:
    """One parameter as the entry point takes it: its leaves, one memref each."""

    name: str
    type: IRType
    is_const: bool
    leaves: tuple[TensorType | BufferType, ...]


@dataclass(frozen=True)
class EntryABI:
    """How to call one function: its path, the wrapper symbol, parameters and result leaves."""

    path: tuple[str, ...]
    symbol: str
    params: tuple[ParamABI, ...]
    result: IRType
    results: tuple[TensorType, ...]

    @property
    def buffers(self) -> tuple[BufferType, ...]:
        """The buffer leaves of the parameters, in order (returned after the results, by
        value)."""
        return tuple(t for p in self.params for t in p.leaves if isinstance(t, BufferType))

    @property
    def c_symbol(self) -> str:
        return f"_mlir_ciface_{self.symbol}"


def entry_abi(op: PrimFuncOp, path: tuple[str, ...], symbol: str) -> EntryABI:
    names = [n.data for n in op.param_names]
    params = tuple(
        ParamABI(name, type, op.var_is_const(arg), tuple(leaves(type)))
        for name, type, arg in zip(names, op.param_types(), op.body.block.args, strict=True)
    )
    result = op.result_type()
    results = tuple(t for t in leaves(result) if isinstance(t, TensorType))
    return EntryABI(path, symbol, params, result, results)


def write_wrapper(lines: list[str], abi: EntryABI, inner: str) -> None:
    """The exported wrapper of a function (see the module docstring)."""
    args: list[str] = []
    operands: list[str] = []
    body: list[str] = []
    inner_types: list[str] = []
    count = 0
    for param in abi.params:
        for leaf in param.leaves:
            name = f"%a{count}"
            args.append(f"{name}: {memref_type(leaf)}")
            if isinstance(leaf, BufferType):
                operands.append(name)
                inner_types.append(memref_type(leaf))
            else:
                value = f"%t{count}"
                body.append(
                    f"{value} = bufferization.to_tensor {name} restrict : {memref_type(leaf)}"
                )
                operands.append(value)
                inner_types.append(tensor_type(leaf))
            count += 1
    outputs = [f"%r{i}" for i in range(len(abi.results))]
    args += [f"{o}: {memref_type(t)}" for o, t in zip(outputs, abi.results, strict=True)]
    args.append(f"%status: {STATUS_TYPE}")
    operands.append("%status")
    inner_types.append(STATUS_TYPE)
    returns = [tensor_type(t) for t in abi.results]
    call = f"func.call @{inner}({', '.join(operands)}) : ({', '.join(inner_types)}) -> ({', '.join(returns)})"
    if len(returns) == 1:
        body.append(f"%v = {call}")
        values = ["%v"]
    elif returns:
        body.append(f"%v:{len(returns)} = {call}")
        values = [f"%v#{i}" for i in range(len(returns))]
    else:
        body.append(call)
        values = []
    for value, output, type in zip(values, outputs, abi.results, strict=True):
        body.append(
            f"bufferization.materialize_in_destination {value} in restrict writable {output} : "
            f"({tensor_type(type)}, {memref_type(type)}) -> ()"
        )
    body.append("func.return")
    lines.append(
        f"  func.func @{abi.symbol}({', '.join(args)}) attributes {{llvm.emit_c_interface}} {{"
    )
    lines.extend(f"    {line}" for line in body)
    lines.append("  }")


def write_value_wrapper(lines: list[str], abi: EntryABI, inner: str) -> None:
    """The exported wrapper of a function by value (see the module docstring)."""
    types = [
        tensor_type(t.tensor if isinstance(t, BufferType) else t)
        for p in abi.params
        for t in p.leaves
    ]
    args = [f"%a{i}: {t}" for i, t in enumerate(types)]
    returns = [
        *(tensor_type(t) for t in abi.results),
        *(tensor_type(t.tensor) for t in abi.buffers),
        STATUS_TENSOR,
    ]
    operands = [f"%a{i}" for i in range(len(types))]
    signature = f"({', '.join([*types, STATUS_TENSOR])}) -> ({', '.join(returns)})"
    lines.append(f"  func.func @{abi.symbol}({', '.join(args)}) -> ({', '.join(returns)}) {{")
    lines.append(f"    %status = arith.constant dense<0> : {STATUS_TENSOR}")
    name = "%v" if len(returns) == 1 else f"%v:{len(returns)}"
    lines.append(
        f"    {name} = func.call @{inner}({', '.join([*operands, '%status'])}) : {signature}"
    )
    values = ["%v"] if len(returns) == 1 else [f"%v#{i}" for i in range(len(returns))]
    lines.append(f"    func.return {', '.join(values)} : {', '.join(returns)}")
    lines.append("  }")
