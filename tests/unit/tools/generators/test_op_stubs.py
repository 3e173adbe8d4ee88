"""The typed signatures of the op library's builders (`tilefoundry/ops/_builders.pyi`): fresh,
one `def` per builder with the builder's own parameters, and what a type checker makes of them."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
import textwrap
from pathlib import Path

from tilefoundry import ops
from tilefoundry.ir.algebra.op_registry import schemas_defined_in
from tilefoundry.tools.generators.op_stubs import ROOT, STUB, render

STUB_PATH = ROOT / "tilefoundry" / "ops" / STUB


def _stub_defs() -> dict[str, ast.FunctionDef]:
    tree = ast.parse(STUB_PATH.read_text(encoding="utf-8"))
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def _stub_all() -> list[str]:
    tree = ast.parse(STUB_PATH.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__":
            return list(ast.literal_eval(node.value))
    raise AssertionError("the stub has no __all__")


def test_the_stub_is_fresh() -> None:
    # a process of its own: the registry of this one holds the test ops of other tests
    done = subprocess.run(
        [sys.executable, "-m", "tilefoundry.tools.generators.op_stubs", "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"{done.stderr} (run `make dialects` and commit the result)"


def test_check_names_a_stale_stub(tmp_path: Path) -> None:
    from tilefoundry.tools.generators.op_stubs import main

    (tmp_path / STUB).write_text("# stale\n", encoding="utf-8")
    assert main(["--check", "--out", str(tmp_path)]) == 1
    assert main(["--out", str(tmp_path)]) == 0
    assert (tmp_path / STUB).read_text(encoding="utf-8") == render()


def _kinds(params: ast.arguments) -> list[tuple[str, str, bool]]:
    """(name, kind, has a default) of each parameter of a stub def."""
    positional = [*params.posonlyargs, *params.args]
    defaults = [False] * (len(positional) - len(params.defaults)) + [True] * len(params.defaults)
    found = [
        (a.arg, "positional_only" if a in params.posonlyargs else "either", d)
        for a, d in zip(positional, defaults, strict=True)
    ]
    found += [
        (a.arg, "keyword_only", d is not None)
        for a, d in zip(params.kwonlyargs, params.kw_defaults, strict=True)
    ]
    return found


_KIND = {
    inspect.Parameter.POSITIONAL_ONLY: "positional_only",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "either",
    inspect.Parameter.KEYWORD_ONLY: "keyword_only",
}


def test_every_builder_has_its_signature_in_the_stub() -> None:
    defs = _stub_defs()
    assert sorted(defs) == sorted(ops.BUILDERS)
    for schema in schemas_defined_in(ops.__name__):
        if schema.op_class is None:  # an alias: its inputs, positional only
            name = schema.name
            expected = [(p.name, "positional_only", False) for p in schema.input_params]
            expected.append(("metadata", "keyword_only", True))
        else:
            name = ops.builder_name_of(schema.op_class)
            signature = inspect.signature(ops.BUILDERS[name])
            expected = [
                (p.name, _KIND[p.kind], p.default is not inspect.Parameter.empty)
                for p in signature.parameters.values()
            ]
        assert _kinds(defs[name].args) == expected, name
        assert ast.unparse(defs[name].returns) == "CallOp", name  # type: ignore[arg-type]


def test_the_stub_types_attributes_by_their_annotation() -> None:
    defs = _stub_defs()
    annotations = {a.arg: ast.unparse(a.annotation) for a in defs["binary"].args.args}  # type: ignore[arg-type]
    assert annotations == {"lhs": "Expr", "rhs": "Expr", "kind": "BinaryKind | str"}
    transpose = {a.arg: ast.unparse(a.annotation) for a in defs["transpose"].args.args}  # type: ignore[arg-type]
    assert transpose["perm"] == "Iterable[int]"
    assert set(_stub_all()) == set(ops.BUILDERS) | {c.__name__ for c in ops.LIBRARY}


def test_a_type_checker_reads_the_builders(tmp_path: Path) -> None:
    from mypy import api

    user = tmp_path / "user.py"
    user.write_text(
        textwrap.dedent(
            """\
            from tilefoundry import ops
            from tilefoundry.dialects.tf.ops import CallOp
            from tilefoundry.ir.algebra.expr import Expr

            def good(x: Expr) -> CallOp:
                y = ops.add(ops.matmul(x, x), x)
                return ops.softmax(ops.transpose(y, range(2)), axis=-1)

            def bad(x: Expr) -> None:
                ops.softmax(x, axis="last")
                ops.add(x)
                ops.matmull(x, x)
            """
        ),
        encoding="utf-8",
    )
    out, _, status = api.run(
        ["--strict", "--no-error-summary", "--cache-dir", str(ROOT / ".mypy_cache"), str(user)]
    )
    errors = [line.split(": error: ")[1] for line in out.splitlines() if ": error: " in line]
    lines = sorted({int(line.split(":")[1]) for line in out.splitlines() if ": error: " in line})
    assert status == 1, out
    assert lines == [10, 11, 12], out  # `good` type-checks; each call of `bad` is refused
    assert any('"axis" to "softmax"' in e for e in errors), out
    assert any('no attribute "matmull"' in e for e in errors), out
