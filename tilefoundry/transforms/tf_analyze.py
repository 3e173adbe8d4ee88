"""`tf-analyze{dims=seq=512,...}`: the spec's Analyze — FLOPs, bytes and the roofline bound of
every function, on the target and hierarchy it resolves through its owners.

For each function of the tree:
- **self_flops**: what each op call of its own body counts (`Op.flops`: elementwise ops one per
  output element, `matmul` 2·M·K·N, reductions one per input element, data movement none);
- **self_bytes**: its parameters and its result at their dtype's width (`i1` takes a byte);
- **flops**, **bytes**: inclusive, its own plus the inclusive figures of every function it
  calls, once per call (a dispatch: the case the sizes choose), so a caller never reports less
  than a callee;
- **time_s**: the roofline lower bound `max(compute, bytes / bandwidth)` of the inclusive
  figures, where compute is the sum over the op calls it runs of `flops / peak`: an op that
  runs on the matrix units (`Op.matrix_unit`, e.g. matmul) at the device's tensor peak for its
  dtype (`bf16_tensor`, `fp16_tensor`, `int8_tensor`, `fp64_tensor`; f32 at `fp32`), any other
  at the vector peak (`fp64` for f64, else `fp32`); peaks and bandwidth come from the device
  document of the target;
- **bound**: `"compute"` or `"memory"`, the larger of the two terms.

The pass prints a table of them, a row per function by its path (`table`: `-` for tf-opt's
stderr, nothing from Python's `run_passes`, which prints nothing; a file; `""` for none), and
draws the roofline (`plot=FILE.svg`; `roofline.py`); the files are written all or none, a failed
write leaving the previous ones as they were. A function outside every `tf.module` (no target)
is refused.

A DimVar takes the size `dims` gives its name, else the largest of its envelope (`hi - 1`):
the bound holds for every size. `dims` is checked as `tf-run --dim` checks its sizes: each name
once, ASCII digits, a name that some function's signature has (`dims=sqe=512`, a typo, is
refused), a size inside every envelope of that name. The sizes also choose the variant a function runs and the case
a dispatch calls, as they would at run time. Each result is recorded on its function, in place,
as a `tf.cost` dictionary attribute, so N cloned layers report N measurements. A target that
names no device (a bare backend kind), recursion and a count past the i64 of `tf.cost` are
refused in one line; every function is measured before any cost is recorded, so a refusal
changes nothing.

```mlir
// tf-analyze on an H100 root
hir.func @mm(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>) -> tensor<64x16xf32> attributes {tf.cost = {flops = 65536 : i64, bytes = 14336 : i64, time_s = 4.279...e-09 : f64, bound = "memory", self_flops = 65536 : i64, self_bytes = 14336 : i64}} { ... }
```
"""

from __future__ import annotations

import errno
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, cast

from xdsl.context import Context
from xdsl.dialects.builtin import (
    SymbolRefAttr,
)
from xdsl.ir import Block, Operation

from tilefoundry.builtin.target.devices import DeviceSpec
from tilefoundry.builtin.types import DimVar, IRType, TensorType, TupleType, from_attr
from tilefoundry.dialects.hir import FuncOp
from tilefoundry.dialects.tf.module import ModuleOp, lookup_symbol, resolve_target
from tilefoundry.dialects.tf.op_attr import OpAttr, attr_to_op
from tilefoundry.dialects.tf.ops import CallOp
from tilefoundry.dialects.tir import DispatchOp, PrimFuncOp
from tilefoundry.ir.algebra.callable import FunctionLike
from tilefoundry.ir.algebra.op_registry import Op
from tilefoundry.support.diagnostics import VerifyError
from tilefoundry.transforms.call_graph import functions_of, roots_of
from tilefoundry.transforms.cost import COST_ATTR, Cost
from tilefoundry.transforms.cost_report import Row, cost_table, device_of, function_paths
from tilefoundry.transforms.pass_base import Anchors, TFPass
from tilefoundry.transforms.pass_manager import PassError
from tilefoundry.transforms.reports import REPORTS
from tilefoundry.transforms.roofline import roofline_svg

__all__ = [
    "COST_ATTR",
    "Cost",
    "TfAnalyze",
    "analyze_tree",
    "check_dims",
    "measure_tree",
    "parse_dims",
    "record_costs",
    "report_rows",
]

_WIDTH = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8}
_TENSOR_PEAK = {
    "bf16": "bf16_tensor",
    "f16": "fp16_tensor",
    "i8": "int8_tensor",
    "f64": "fp64_tensor",
}


_I64_MAX = 2**63 - 1


def parse_dims(entries: tuple[str, ...]) -> dict[str, int]:
    """`("seq=512", "batch=4")` as sizes by DimVar name, as `tf-run --dim` reads them: each
    name once, the size in ASCII digits, below 2**63 (ValueError names a bad entry)."""
    sizes: dict[str, int] = {}
    for entry in entries:
        name, _, size = entry.partition("=")
        name, size = name.strip(), size.strip()
        if not name or not size.isascii() or not size.isdigit():
            raise ValueError(f"dims entries are name=size, got '{entry}'")
        if name in sizes:
            raise ValueError(f"dims gives '{name}' twice")
        if len(size) > 19 or int(size) > _I64_MAX:
            raise ValueError(f"dims size of '{name}' is past int64, got {size[:30]}")
        sizes[name] = int(size)
    return sizes


def check_dims(roots: list[ModuleOp], dims: Mapping[str, int], pass_name: str) -> None:
    """Each size names a DimVar of a function of the trees and lies inside every envelope of
    that name (PassError otherwise, as `tf-run --dim` refuses)."""
    found: dict[str, list[tuple[Operation, DimVar]]] = {}
    for root in roots:
        for function in functions_of(root):
            assert isinstance(function, FunctionLike)
            for type in (*function.param_types(), function.result_type()):
                for dim in _dim_vars(type):
                    found.setdefault(dim.name, []).append((function, dim))
    for name, size in dims.items():
        if name not in found:
            known = ", ".join(sorted(found)) or "none"
            where = (
                f"module '{roots[0].own_name}'" if len(roots) == 1 else "the modules of the input"
            )
            raise PassError(
                pass_name,
                f"dims names '{name}', which is no DimVar of a function of {where} "
                f"(DimVars: {known})",
                roots[0] if len(roots) == 1 else None,
            )
        for function, dim in found[name]:
            if not dim.contains(size):
                raise PassError(
                    pass_name,
                    f"dims {name}={size} is outside the envelope of DimVar '{name}' of function "
                    f"'@{_name(function)}' ([{dim.lo}, {dim.hi}))",
                    function,
                )


@dataclass
class _Work:
    """What a function's run does, callees included: flops, compute time, bytes moved."""

    flops: int = 0
    compute_s: float = 0.0
    bytes: int = 0

    def add(self, other: _Work) -> None:
        self.flops += other.flops
        self.compute_s += other.compute_s
        self.bytes += other.bytes


class _Analyzer:
    """Costs of the functions of one tree, memoized; recursion is refused."""

    def __init__(self, dims: Mapping[str, int], pass_name: str) -> None:
        self.dims = dims
        self.pass_name = pass_name
        self.work_of: dict[Operation, _Work] = {}
        self.self_flops_of: dict[Operation, int] = {}
        self.active: dict[Operation, None] = {}  # the calls being measured, in order

    def size(self, dim: int | DimVar) -> int:
        return dim if isinstance(dim, int) else self.dims.get(dim.name, dim.hi - 1)

    def concrete(self, type: IRType) -> IRType:
        if isinstance(type, TensorType):
            return TensorType(tuple(self.size(d) for d in type.shape), type.dtype)
        if isinstance(type, TupleType):
            return TupleType(tuple(self.concrete(f) for f in type.fields))
        return type

    def nbytes(self, type: IRType) -> int:
        concrete = self.concrete(type)
        if isinstance(concrete, TensorType):
            return _WIDTH[concrete.dtype] * math.prod(
                d for d in concrete.shape if isinstance(d, int)
            )
        if isinstance(concrete, TupleType):
            return sum(self.nbytes(f) for f in concrete.fields)
        return 0

    def device(self, function: Operation) -> DeviceSpec:
        module = function.parent_op()
        assert isinstance(module, ModuleOp)
        where = f"function '@{_name(function)}'"
        try:
            target = resolve_target(module)
        except VerifyError as err:
            raise PassError(self.pass_name, f"{where}: {err}", function) from None
        assert target is not None
        if target.device is None:
            raise PassError(
                self.pass_name,
                f"{where}: target '{target.name}' names no device, so there are no peak figures "
                'to measure against; declare a device (e.g. target "h100")',
                function,
            )
        return target.device

    def io_bytes(self, function: Operation) -> int:
        assert isinstance(function, FunctionLike)
        return sum(self.nbytes(t) for t in (*function.param_types(), function.result_type()))

    def cost(self, function: Operation) -> Cost:
        device = self.device(function)
        work = self.work(function, device)
        memory_s = work.bytes / device.memory_bandwidth_bytes_per_s
        bound = "compute" if work.compute_s > memory_s else "memory"
        return Cost(
            work.flops,
            work.bytes,
            max(work.compute_s, memory_s),
            bound,
            self.self_flops_of[function],
            self.io_bytes(function),
        )

    def work(self, function: Operation, device: DeviceSpec) -> _Work:
        """The function's inclusive work: its own op calls, its parameters and result, and the
        inclusive work of every function it calls (once per call)."""
        known = self.work_of.get(function)
        if known is not None:
            return known
        if function in self.active:
            chain = list(self.active)
            cycle = [*chain[chain.index(function) :], function]
            shown = " -> ".join(f"@{_name(f)}" for f in cycle)
            raise PassError(
                self.pass_name, f"recursive calls ({shown}) have no static cost", function
            )
        self.active[function] = None
        work = _Work(bytes=self.io_bytes(function))
        own = 0
        for op in self.body(function).walk():
            done, is_own = self.op_work(op, device)
            work.add(done)
            own += done.flops if is_own else 0
        self.active.popitem()
        self.work_of[function] = work
        self.self_flops_of[function] = own
        return work

    def body(self, function: Operation) -> Block:
        """The block that runs for the sizes: the first variant whose ranges hold them."""
        if isinstance(function, FuncOp):
            sizes = {d.name: self.size(d) for t in function.param_types() for d in _dim_vars(t)}
            for variant in function.variant_ops():
                if all(
                    p.dim_var in sizes and p.match(sizes[p.dim_var]) for p in variant.patterns()
                ):
                    return variant.body.block
            return function.body.block
        assert isinstance(function, PrimFuncOp)
        return function.body.block

    def op_work(self, op: Operation, device: DeviceSpec) -> tuple[_Work, bool]:
        """The op's work, and whether it is the function's own (an op call) or a callee's."""
        if isinstance(op, CallOp) and isinstance(op.callee, OpAttr):
            target = attr_to_op(op.callee)
            args = [self.concrete(from_attr(v.type)) for v in op.args_]
            result = self.concrete(op.type)
            flops = target.flops(args, result)
            peak = _peak(device, target, result, args) if flops else 1.0
            return _Work(flops, flops / peak if flops else 0.0), True
        if isinstance(op, CallOp) and isinstance(op.callee, SymbolRefAttr):
            return self.callee_work(op, op.callee, device), False
        if isinstance(op, DispatchOp):
            sizes = {d.name: self.size(d) for t in op.args.types for d in _dim_vars(from_attr(t))}
            for callee, patterns in zip(op.callees, op.case_patterns, strict=True):
                if all(p.dim_var in sizes and p.match(sizes[p.dim_var]) for p in patterns):
                    return self.callee_work(op, callee, device), False
            cases = [self.callee_work(op, c, device) for c in op.callees]
            return max(cases, key=lambda w: w.compute_s), False
        return _Work(), True

    def callee_work(self, op: Operation, ref: SymbolRefAttr, device: DeviceSpec) -> _Work:
        callee = lookup_symbol(op, ref)
        assert callee is not None
        return self.work(callee, device)


def _name(function: Operation) -> str:
    assert isinstance(function, FunctionLike)
    return function.function_name()


def _dim_vars(type: IRType) -> tuple[DimVar, ...]:
    if isinstance(type, TensorType):
        return type.dim_vars
    if isinstance(type, TupleType):
        return tuple(d for f in type.fields for d in _dim_vars(f))
    return ()


def _peak(device: DeviceSpec, op: Op, result: IRType, args: list[IRType]) -> float:
    dtype = next(
        (t.dtype for t in (*args, result) if isinstance(t, TensorType)),
        "f32",
    )
    peaks = device.peak_flops_per_s
    vector = peaks.get("fp64" if dtype == "f64" else "fp32") or max(peaks.values())
    if op.matrix_unit and (key := _TENSOR_PEAK.get(dtype)) in peaks:
        return peaks[key]
    return vector


def measure_tree(
    root: ModuleOp, dims: Mapping[str, int] | None = None, pass_name: str = "tf-analyze"
) -> dict[Operation, Cost]:
    """Measure every function of the tree, recording nothing (PassError when a function cannot
    be measured, or a count does not fit the i64 of `tf.cost`). The dims are checked by
    `check_dims`."""
    analyzer = _Analyzer(dims or {}, pass_name)
    costs: dict[Operation, Cost] = {}
    for function in functions_of(root):
        cost = analyzer.cost(function)
        for what, count in (("flops", cost.flops), ("bytes", cost.bytes)):
            if count > _I64_MAX:
                raise PassError(
                    pass_name,
                    f"function '@{_name(function)}': {count} {what} do not fit the i64 of "
                    f"{COST_ATTR} (at most {_I64_MAX})",
                    function,
                )
        costs[function] = cost
    return costs


def record_costs(costs: Mapping[Operation, Cost]) -> None:
    """Record each cost on its function (`tf.cost`)."""
    attrs = {function: cost.to_attr() for function, cost in costs.items()}
    for function, attr in attrs.items():
        function.attributes[COST_ATTR] = attr


def analyze_tree(
    root: ModuleOp, dims: Mapping[str, int] | None = None, pass_name: str = "tf-analyze"
) -> dict[Operation, Cost]:
    """Measure every function of the tree and record each cost on its function (`tf.cost`).
    Nothing is recorded when the dims are wrong or a function cannot be measured (PassError):
    everything is computed before anything is written."""
    check_dims([root], dims or {}, pass_name)
    costs = measure_tree(root, dims, pass_name)
    record_costs(costs)
    return costs


def report_rows(
    roots: Sequence[ModuleOp], measured: Sequence[Mapping[Operation, Cost]]
) -> list[Row]:
    """A row per measured function, by its path from its root (`root:path` when the input
    holds more than one root)."""
    rows = []
    for root, costs in zip(roots, measured, strict=True):
        for path, function in function_paths(root):
            shown = path if len(roots) == 1 else f"{root.sym_name.data}:{path}"
            rows.append(Row(shown, costs[function], device_of(function)))
    return rows


def _write_all(pass_name: str, files: list[tuple[str, str, str]], anchor: Operation) -> None:
    """Write each `(what, path, text)`, all or none: each regular file through a temporary
    file beside it, renamed over it only once every one is written (a failure leaves every
    previous file as it was); a special file (`/dev/null`, a pipe) is written directly, last."""
    staged: list[tuple[str, str]] = []
    try:
        direct = []
        for what, path, text in files:
            try:
                if os.path.isdir(path):
                    raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
                if os.path.exists(path) and not os.path.isfile(path):
                    direct.append((what, path, text))
                    continue
                where = os.path.dirname(os.path.abspath(path))
                fd, temporary = tempfile.mkstemp(prefix=".tf-analyze-", dir=where)
                staged.append((temporary, path))
                with os.fdopen(fd, "w", encoding="utf-8") as stream:
                    stream.write(text)
                kept = os.stat(path).st_mode & 0o7777 if os.path.exists(path) else None
                os.chmod(temporary, kept if kept is not None else 0o666 & ~_umask())
            except OSError as err:
                reason = err.strerror or str(err)
                raise PassError(
                    pass_name, f"cannot write the {what} to '{path}': {reason}", anchor
                ) from None
        for temporary, path in staged:
            os.replace(temporary, path)
        staged = []
        for what, path, text in direct:
            try:
                Path(path).write_text(text, encoding="utf-8")
            except OSError as err:
                reason = err.strerror or str(err)
                raise PassError(
                    pass_name, f"cannot write the {what} to '{path}': {reason}", anchor
                ) from None
    finally:
        for temporary, _ in staged:
            with suppress(OSError):
                os.unlink(temporary)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _refuse_unplaced(op: Operation, pass_name: str) -> None:
    """A function outside every `tf.module` has no target to measure against: refused (it
    was an empty table, "no functions")."""
    for inner in op.walk():
        if isinstance(inner, FunctionLike) and not isinstance(inner.parent_op(), ModuleOp):
            name = cast(FunctionLike, inner).function_name()
            raise PassError(
                pass_name,
                f"function '@{name}' is in no tf.module, so it has no target to measure "
                'against; put it in one that declares its target (tf.module @m target "h100")',
                inner,
            )


@dataclass(frozen=True)
class TfAnalyze(TFPass):
    """Record FLOPs, bytes and the roofline time on every function (see the module docstring)."""

    name = "tf-analyze"
    anchors: ClassVar[Anchors] = ("builtin.module", "tf.module")

    dims: tuple[str, ...] = field(
        default=(),
        metadata={"help": "sizes of DimVars by name, e.g. seq=512,batch=4 (default: the largest)"},
    )
    table: str = field(
        default="-",
        metadata={
            "help": "where the table of costs goes: - for the tool's stderr (from Python: "
            'nowhere), a file, or "" for none'
        },
    )
    plot: str = field(
        default="",
        metadata={"help": "an SVG file to draw the device's roofline in, a point per function"},
    )

    def __post_init__(self) -> None:
        parse_dims(self.dims)

    def apply(self, ctx: Context, op: Operation) -> None:
        sizes = parse_dims(self.dims)
        roots = roots_of(op)
        if not roots:
            _refuse_unplaced(op, self.name)
        check_dims(roots, sizes, self.name)
        measured = [measure_tree(root, sizes, self.name) for root in roots]
        rows = report_rows(roots, measured)
        if self.plot:
            devices = {row.device.name: row.device for row in rows}
            if len(devices) > 1:
                raise PassError(
                    self.name,
                    "plot draws one device's roofline, but the functions resolve "
                    + ", ".join(sorted(devices)),
                    op,
                )
        # the files first, all or none: a refusal to write one changes nothing
        files = []
        if self.table and self.table != "-":
            files.append(("table", self.table, cost_table(rows)))
        if self.plot and rows:
            files.append(("roofline plot", self.plot, roofline_svg(rows, rows[0].device)))
        _write_all(self.name, files, op)
        stream = REPORTS.get()
        if self.table == "-" and stream is not None:
            stream.write(cost_table(rows))
            stream.flush()
        for costs in measured:  # every tree measured before any is written
            record_costs(costs)
