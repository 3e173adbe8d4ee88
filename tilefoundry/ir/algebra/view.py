"""`OpView`: the base of the spec classes that are views over an op (`Module`, and through
`FunctionView`, `hir.Function` and `tir.PrimFunction`).

There is one view object per op (`View.of(op)` returns it), and two views are equal when they
view the same op: the op is the node, the view only adds the spec's Python surface. Subclasses
build their op in `__new__` and return `cls.of(op)`.
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, NoReturn, TypeVar, cast

from xdsl.ir import Operation

from tilefoundry.ir.algebra.callable import FunctionLike
from tilefoundry.ir.algebra.expr import Var
from tilefoundry.ir.state import Slot

__all__ = ["FunctionView", "OpView"]

OpT = TypeVar("OpT", bound=Operation)
ViewT = TypeVar("ViewT", bound="OpView[Any]")


class OpView(Generic[OpT]):
    """A thin view over an op (see the module docstring)."""

    __slots__ = ("_op", "__weakref__")

    _op: OpT
    _view: ClassVar[Slot[Any]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._view = Slot(f"view.{cls.__qualname__}")

    @classmethod
    def of(cls: type[ViewT], op: Operation) -> ViewT:
        """The view of an op (one per op, kept on the op: two threads asking at once get one)."""
        view = cls._view.get(op)
        if view is None:
            view = object.__new__(cls)
            view._op = op
            view = cls._view.setdefault(op, view)
        return cast(ViewT, view)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Nothing: a view is made by `__new__` / `of`."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpView) and other._op is self._op

    def __hash__(self) -> int:
        return id(self._op)


class FunctionView(OpView[OpT]):
    """A view over a function op (`hir.Function`, `tir.PrimFunction`): its name and its
    parameters, each a `Var`."""

    @property
    def function_op(self) -> OpT:
        return self._op

    def __copy__(self) -> NoReturn:
        _no_copy(self)

    def __deepcopy__(self, memo: dict[int, object]) -> NoReturn:
        _no_copy(self)

    def __reduce__(self) -> NoReturn:
        _no_copy(self)

    @property
    def name(self) -> str:
        return cast(FunctionLike, self._op).function_name()

    @property
    def params(self) -> tuple[Var, ...]:
        return tuple(Var.view(arg) for arg in self._op.regions[0].block.args)


def _no_copy(view: FunctionView[Any]) -> NoReturn:
    kind = type(view).__name__
    raise TypeError(
        f"cannot copy or pickle {kind} '{view.name}' by itself: a function is a node of its "
        "module (its calls name other functions of the tree); copy or pickle the Module "
        "(copy.deepcopy(module), pickle.dumps(module), module.cloned())"
    )
