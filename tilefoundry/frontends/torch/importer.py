"""From `torch.export` to a Module tree: one child module per submodule (named by its
attribute), each submodule's forward an `hir.func @forward` of its child, called from its
parent's function; parameters and buffers are const params named by their `state_dict` keys
(relative to the submodule whose function takes them).
"""

from __future__ import annotations

import functools
import operator
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tilefoundry.api.hir import Function
from tilefoundry.api.module import Module, verified_once
from tilefoundry.api.runtime import LoadedModule
from tilefoundry.builtin.metadata import BindingMetadata
from tilefoundry.builtin.target import Topology
from tilefoundry.builtin.types import DimVar
from tilefoundry.dialects.tf.ops import CallOp, ConstantOp, TupleOp
from tilefoundry.frontends.torch.composites import decomposed
from tilefoundry.frontends.torch.emitter import Emitter, Merged
from tilefoundry.frontends.torch.errors import TorchImportError, missing_ops, source_line
from tilefoundry.frontends.torch.fx_sources import forgetting_fx_sources
from tilefoundry.frontends.torch.table import ATEN
from tilefoundry.frontends.torch.types import DimTable, tensor_type
from tilefoundry.ir.algebra.expr import Expr, Var
from tilefoundry.ops.structure import TupleGetItem
from tilefoundry.support.diagnostics import VerifyError

__all__ = ["from_exported_program", "from_torch"]

FUNCTION = "forward"
TIED = "tied_weights"
"""The root's metadata entry of its tied weights: (key, the weight's name) pairs."""
UNUSED = "unused_weights"
"""The root's metadata entry of the checkpoint's keys the program never reads (a batch norm's
`num_batches_tracked`, a buffer no forward uses)."""


def from_torch(
    model: Any,
    example_args: Sequence[Any],
    example_kwargs: Mapping[str, Any] | None = None,
    dynamic_shapes: Any = None,
    *,
    target: str = "h100",
    topologies: Sequence[Topology] = (),
) -> LoadedModule:
    """Export `model` (in eval mode, without gradients) with `torch.export.export` and import
    it (see `from_exported_program`)."""
    import torch

    model.eval()
    with forgetting_fx_sources():
        with torch.no_grad(), warnings.catch_warnings():
            # an nn.LSTM / GRU / RNN re-lists its weights (`_flat_weights`) when called: harmless
            warnings.filterwarnings("ignore", message=r".*_flat_weights.*assigned during export")
            ep = torch.export.export(
                model,
                tuple(example_args),
                kwargs=dict(example_kwargs or {}),
                dynamic_shapes=dynamic_shapes,
            )
        names = _dim_names(ep, dynamic_shapes)
        classes = {path: type(sub).__name__ for path, sub in model.named_modules() if path}
        return from_exported_program(
            ep,
            name=type(model).__name__,
            dim_names=names,
            class_names=classes,
            target=target,
            topologies=topologies,
        )


def from_exported_program(
    ep: Any,
    *,
    name: str | None = None,
    dim_names: Mapping[str, str] | None = None,
    class_names: Mapping[str, str] | None = None,
    target: str = "h100",
    topologies: Sequence[Topology] = (),
) -> LoadedModule:
    """The LoadedModule of an `ExportedProgram`: its module tree (`torch.export.unflatten`), its
    weights bound. A dynamic dim becomes a DimVar with its range (named by `dim_names`, torch's
    symbol -> name, else by the symbol); each child module's own name is its class's (from
    `class_names`, submodule path -> class name, else the nodes' `nn_module_stack`)."""
    with forgetting_fx_sources():
        lowered, root = lower(ep)
        return import_lowered(
            lowered,
            root,
            name=name,
            dim_names=dim_names,
            class_names=class_names,
            target=target,
            topologies=topologies,
        )


DECOMPOSED = tuple(name for name, rule in ATEN.items() if rule is decomposed)
"""The ATen ops torch's own decompositions replace (exactly: the recurrent layers are their
cells' linears, sigmoids and tanhs, step by step): the rows of the table whose rule is
`decomposed` (`aten.lstm.input`, ...)."""


def _overload(torch: Any, name: str) -> Any:
    """The ATen overload an `aten.<op>.<overload>` row names (`torch.ops.aten.lstm.input`)."""
    _, op, overload = name.split(".")
    return getattr(getattr(torch.ops.aten, op), overload)


def lower(ep: Any) -> tuple[Any, Any]:
    """What the import asks of torch: the program's inference IR (`run_decompositions` of only
    the `DECOMPOSED` ops: no other ATen op decomposed, no autograd wrapper left) and its module
    hierarchy (`unflatten`)."""
    import torch
    from torch._decomp import get_decompositions

    table = get_decompositions([_overload(torch, name) for name in DECOMPOSED])
    with warnings.catch_warnings():
        # torch 2.13 warns about its own pytree internals while copying the program
        warnings.filterwarnings("ignore", message=".*LeafSpec.*", category=FutureWarning)
        lowered = ep.run_decompositions(table)
        root = torch.export.unflatten(lowered)
    return lowered, root


def import_lowered(
    ep: Any,
    root: Any,
    *,
    name: str | None = None,
    dim_names: Mapping[str, str] | None = None,
    class_names: Mapping[str, str] | None = None,
    target: str = "h100",
    topologies: Sequence[Topology] = (),
) -> LoadedModule:
    """The IR build of `from_exported_program`, on what `lower` gives."""
    refusal = missing_ops(ep.graph.nodes, ATEN)
    if refusal is not None:
        raise refusal
    dims = DimTable(ep.range_constraints, dim_names or {})
    classes = {**_class_names(ep), **(class_names or {})}
    tensors = {
        **dict(root.named_parameters(remove_duplicate=False)),
        **dict(root.named_buffers(remove_duplicate=False)),
    }
    importer = _Importer(root, dims, classes, _tied(tensors), tuple(ep.state_dict))
    with verified_once():  # the whole tree once, not each subtree again at every level
        module = importer.build_root(name or "Model", target, tuple(topologies))
    weights: dict[str, Any] = {}
    for key in importer.root_weights:
        value = tensors.get(key)
        if value is None:
            value = importer.attr_values[key]
        array = value.detach().cpu().numpy()
        weights[param_name(key)] = array.reshape(1) if array.ndim == 0 else array  # as typed
    return LoadedModule(module, weights)


def _tied(tensors: Mapping[str, Any]) -> dict[str, str]:
    """Each key of a tensor that an earlier key also names (a tied weight) -> that first key."""
    first: dict[int, str] = {}
    tied: dict[str, str] = {}
    for key, tensor in tensors.items():
        known = first.setdefault(id(tensor), key)
        if known != key:
            tied[key] = known
    return tied


def _dim_names(ep: Any, dynamic_shapes: Any) -> dict[str, str]:
    """torch's symbol (`s0`) -> the `Dim`'s name, for the user inputs' dynamic dims."""
    if dynamic_shapes is None:
        return {}
    inputs = [
        n
        for n in ep.graph.nodes
        if n.op == "placeholder" and n.name in set(ep.graph_signature.user_inputs)
    ]
    specs: list[Any]
    if isinstance(dynamic_shapes, Mapping):
        specs = [dynamic_shapes.get(n.name) for n in inputs]
    else:
        specs = list(dynamic_shapes) + [None] * len(inputs)
    names: dict[str, str] = {}
    for node, spec in zip(inputs, specs, strict=False):
        val = node.meta.get("val")
        if spec is None or not hasattr(val, "shape"):
            continue
        axes = spec.items() if isinstance(spec, Mapping) else enumerate(spec)
        for axis, dim in axes:
            label = getattr(dim, "__name__", None)
            size = val.shape[axis]
            if label is not None and hasattr(size, "node"):
                names[str(size.node.expr)] = label
    return names


def _class_names(ep: Any) -> dict[str, str]:
    """Submodule path -> its class name, from the nodes' `nn_module_stack`."""
    found: dict[str, str] = {}
    for node in ep.graph.nodes:
        for path, cls in (node.meta.get("nn_module_stack") or {}).values():
            qualified = cls if isinstance(cls, str) else getattr(cls, "__qualname__", str(cls))
            found.setdefault(path, qualified.rsplit(".", 1)[-1])
    return found


@dataclass
class _Built:
    """A submodule's function and the weights it takes (in parameter order)."""

    function: Function | None
    weights: list[str]
    module: Module
    descendants: dict[str, _Built] = field(default_factory=dict)


@dataclass
class _Importer:
    root: Any
    dims: DimTable
    classes: dict[str, str]
    tied: dict[str, str] = field(default_factory=dict)  # a tied weight's key -> its first key
    checkpoint: tuple[str, ...] = ()  # the state_dict's keys
    checkpoint_keys: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.checkpoint_keys = frozenset(self.checkpoint)

    attr_values: dict[str, Any] = field(default_factory=dict)
    root_weights: list[str] = field(default_factory=list)

    def build_root(self, name: str, target: str, topologies: tuple[Topology, ...]) -> Module:
        built = self._build("", self.root, name, target, topologies)
        self.root_weights = built.weights
        return built.module

    def _build(
        self,
        path: str,
        torch_module: Any,
        own_name: str,
        target: str | None = None,
        topologies: tuple[Topology, ...] | None = None,
    ) -> _Built:
        children: dict[str, Module] = {}
        functions: dict[str, _Built] = {}  # relative path -> built descendant function
        for attr, child in torch_module.named_children():
            child_path = f"{path}.{attr}" if path else attr
            built = self._build(child_path, child, self.classes.get(child_path, attr))
            children[attr] = built.module
            for rel, fn in self._functions_of(built, attr).items():
                functions[rel] = fn
        graph = getattr(torch_module, "graph", None)
        has_body = graph is not None and any(n.op == "output" for n in graph.nodes)
        own: list[Any] = []
        function: Function | None = None
        weights: list[str] = []
        if has_body:
            function, weights = _FunctionBuilder(self, path, torch_module, functions).build()
            own = [function]
        metadata = self._checkpoint_keys(weights) if not path else None
        module = Module(
            name=own_name,
            functions=own,
            modules=children,
            entry=FUNCTION if has_body else None,
            target=target,
            topologies=topologies,
            metadata=metadata,
        )
        return _Built(function, weights, module, functions)  # the function, placed in `module`

    def _checkpoint_keys(self, weights: list[str]) -> dict[str, object] | None:
        """The root's metadata of the checkpoint's other keys, which LoadedModule accepts: the
        tied keys its one weight stands for, and the keys the program never reads."""
        metadata: dict[str, object] = {}
        aliases = tuple((k, v) for k, v in self.tied.items() if v in weights)
        if aliases:
            metadata[TIED] = aliases
        known = {*weights, *(k for k, _ in aliases)}
        unused = tuple(k for k in self.checkpoint if k not in known)
        if unused:
            metadata[UNUSED] = unused
        return metadata or None

    def _functions_of(self, built: _Built, attr: str) -> dict[str, _Built]:
        """The callable functions of a built child's tree, by path relative to the parent."""
        found: dict[str, _Built] = {}
        if built.function is not None:
            found[attr] = built
        for rel, sub in built.descendants.items():
            found[f"{attr}.{rel}"] = sub
        return found


class _FunctionBuilder:
    """One submodule's graph as an `hir.func`: placeholders become parameters, get_attr
    nodes const parameters, call_module nodes calls of the children's functions."""

    def __init__(
        self, importer: _Importer, path: str, torch_module: Any, callees: dict[str, _Built]
    ) -> None:
        self.importer = importer
        self.path = path
        self.torch_module = torch_module
        self.callees = callees
        self.weights: dict[str, Var] = {}
        self.env: dict[Any, Any] = {}
        self.emitter = Emitter(importer.dims)
        import torch.fx

        self.node_class: type = torch.fx.Node

    def where(self, node: Any) -> str:
        line = source_line(node)
        return f"submodule '{self.path or '<root>'}'" + (f" ({line})" if line else "")

    def build(self) -> tuple[Function, list[str]]:
        params: list[Var] = []
        body: Any = None
        nodes = list(self.torch_module.graph.nodes)
        for node in nodes:
            if node.op == "placeholder":
                val = node.meta.get("val")
                if not hasattr(val, "shape"):
                    self.env[node] = val  # a specialized non-tensor input (use_cache=False)
                    continue
                where = functools.partial(self.where, node)
                var = Var(node.name, tensor_type(val, self.importer.dims, where))
                params.append(var)
                self.env[node] = var
                self.emitter.carry(var)
            elif node.op == "get_attr":
                self.env[node] = self._attribute(node)
            elif node.op == "call_module":
                self.env[node] = self._call_module(node)
            elif node.op == "call_function":
                self.env[node] = self._call_function(node)
            elif node.op == "output":
                body = self._output(node)
        assert body is not None
        # weights after the activations: every const param, in first-use order
        ordered = list(self.weights)
        function = Function(name=FUNCTION, params=[*params, *self.weights.values()], body=body)
        return function, ordered

    # -- nodes ------------------------------------------------------------------------------

    def _attribute(self, node: Any) -> Any:
        target: str = node.target
        value = _get_attr(self.torch_module, target)
        import torch

        if not isinstance(value, torch.Tensor):
            raise TorchImportError(
                f"unsupported attribute '{target}' ({type(value).__name__}) in {self.where(node)}"
            )
        if self._is_state(target) and self._in_checkpoint(target):
            return self._weight(target, value, node)
        # a lifted constant, or a buffer the checkpoint does not hold (a non-persistent one,
        # computed when the model is built: rotary frequencies): a literal of the function
        array = value.detach().cpu().numpy()
        return ConstantOp(array.reshape(1) if array.ndim == 0 else array)  # rank 0 as (1,)

    def _in_checkpoint(self, target: str) -> bool:
        checkpoint = self.importer.checkpoint_keys
        full = f"{self.path}.{target}" if self.path else target
        return not checkpoint or full in checkpoint

    def _is_state(self, target: str) -> bool:
        owner_path, _, leaf = target.rpartition(".")
        owner = self.torch_module.get_submodule(owner_path) if owner_path else self.torch_module
        # what `named_parameters(recurse=False)` / `named_buffers(recurse=False)` list
        return owner._parameters.get(leaf) is not None or owner._buffers.get(leaf) is not None

    def _weight(self, key: str, value: Any, node: Any) -> Var:
        prefix = f"{self.path}." if self.path else ""
        first = self.importer.tied.get(prefix + key)
        if first is not None and first.startswith(prefix):
            key = first.removeprefix(prefix)  # a tied weight: one param, by its first key
        var = self.weights.get(key)
        if var is None:
            full = prefix + key
            self.importer.attr_values.setdefault(full, value)
            var = Var(
                param_name(key),
                tensor_type(value, self.importer.dims, functools.partial(self.where, node)),
                is_const=True,
            )
            self.weights[key] = var
        return var

    def _call_module(self, node: Any) -> Any:
        target: str = node.target
        callee = self.callees.get(target)
        if callee is None or callee.function is None:
            raise TorchImportError(
                f"call of submodule '{target}' has no graph in {self.where(node)}"
            )
        if node.kwargs:
            raise TorchImportError(
                f"keyword arguments to submodule '{target}' are not supported in {self.where(node)}"
            )
        args: list[Expr] = []
        for arg in node.args:
            value = self._value(arg)
            if isinstance(value, Merged):
                raise TorchImportError(f"{value.refusal()} in {self.where(node)}")
            if isinstance(value, Expr):
                args.append(value)
            elif not _is_size_or_flag(value):
                raise TorchImportError(
                    f"submodule '{target}' takes a {type(value).__name__} argument "
                    f"{value!r} in {self.where(node)}"
                )
            # a size or a flag: the child's graph holds what it is (its recorded value)
        sub = self.torch_module.get_submodule(target)
        for key in callee.weights:
            owner_path, _, leaf = key.rpartition(".")
            holder = sub.get_submodule(owner_path) if owner_path else sub
            value = _get_attr(holder, leaf)
            args.append(self._weight(f"{target}.{key}", value, node))
        return CallOp(callee.function, args, metadata=_binding(node.name))

    def _call_function(self, node: Any) -> Any:
        if node.target is operator.getitem:
            seq, index = node.args
            value = self._value(seq)
            if isinstance(value, list | tuple):
                return value[index]
            if isinstance(value, Expr):
                return CallOp(TupleGetItem(index=index), [value])
        name = str(node.target)
        handler = ATEN.get(name)
        if handler is None:
            raise TorchImportError(f"unsupported op '{name}' in {self.where(node)}")
        args = [self._value(a) for a in node.args]
        kwargs = {k: self._value(v) for k, v in node.kwargs.items()}
        try:
            merged = next((a for a in [*args, *kwargs.values()] if isinstance(a, Merged)), None)
            if merged is not None and name not in _TAKE_MERGED:
                raise merged.refusal()
            return handler(self.emitter, node, args, kwargs)
        except TorchImportError as err:
            raise TorchImportError(f"op '{name}': {err} in {self.where(node)}") from None
        except (TypeError, ValueError, VerifyError) as err:
            first = str(err).splitlines()[0] if str(err) else type(err).__name__
            raise TorchImportError(f"op '{name}': {first} in {self.where(node)}") from None

    def _output(self, node: Any) -> Expr:
        (result,) = node.args
        value = self._value(result)
        for item in value if isinstance(value, list | tuple) else [value]:
            if isinstance(item, Merged):
                raise TorchImportError(f"{item.refusal()} in {self.where(node)}")
        if isinstance(value, list | tuple):
            if len(value) == 1 and isinstance(value[0], Expr) and not self.path:
                return value[0]
            if not all(isinstance(v, Expr) for v in value):
                raise TorchImportError(f"a non-tensor output in {self.where(node)}")
            return TupleOp(list(value))
        if not isinstance(value, Expr):
            raise TorchImportError(f"a non-tensor output {value!r} in {self.where(node)}")
        return value

    def _value(self, arg: Any) -> Any:
        if isinstance(arg, self.node_class):
            return self.env[arg]
        if isinstance(arg, list | tuple):
            return type(arg)(self._value(a) for a in arg)
        return arg


_TAKE_MERGED = frozenset({"aten.view.default", "aten.addmm.default", "aten.mm.default"})
"""The ATen ops a `Merged` value (leading dims merged into a product) may reach."""


def _is_size_or_flag(value: Any) -> bool:
    import torch

    return value is None or isinstance(value, int | float | bool | DimVar | torch.SymInt)


def _binding(name: str) -> list[BindingMetadata]:
    """The call's binding name, the fx node's (none for `_0`-like names, which the printer's
    SSA naming cannot carry)."""
    return [] if re.fullmatch(r"_\d+", name) else [BindingMetadata(name)]


def param_name(key: str) -> str:
    """The const param of a state_dict key: the key itself (`0.weight` inside an
    `nn.Sequential` too; the text escapes a name that is no SSA name, `%$0.weight`)."""
    return key


def _get_attr(module: Any, target: str) -> Any:
    value = module
    for part in target.split("."):
        value = getattr(value, part)
    return value
