"""`tests/unit` mirrors the source tree path for path (docs/architecture.md, "A test"):
`tests/unit/<pkg path>/test_<module>[_<aspect>].py` tests `tilefoundry/<pkg path>/<module>.py`
(`test_<package>[_<aspect>].py` the package's `__init__.py`), `tests/unit/tilefoundry_client/`
mirrors `tilefoundry_client/`, and what tests the project as a whole (the docs, the examples,
the soak, the layering, this rule) is in `tests/unit/cross_cutting/`. Helpers of the tests
(`conftest.py`, a module of cases) sit beside the tests that use them."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[3]
UNIT = ROOT / "tests" / "unit"
CROSS_CUTTING = "cross_cutting"
CLIENT = "tilefoundry_client"


def source_of(test: PurePosixPath, root: Path) -> Path | None:
    """The source file (module or package `__init__.py`) a unit test's path names, or None."""
    folder = test.parent
    source = root / folder if folder.parts[:1] == (CLIENT,) else root / "tilefoundry" / folder
    if not source.is_dir():
        return None
    name = test.stem.removeprefix("test_")
    candidates = {p.stem: p for p in source.glob("*.py") if p.name != "__init__.py"}
    if folder.parts and (source / "__init__.py").is_file():
        candidates.setdefault(folder.parts[-1], source / "__init__.py")
    # the longest module name the test's name begins with (`tf_run_inputs` is `tf_run`'s)
    for stem in sorted(candidates, key=len, reverse=True):
        if name == stem or name.startswith(stem + "_"):
            return candidates[stem]
    return None


def misplaced(unit: Path, root: Path) -> list[str]:
    found = []
    for path in sorted(unit.rglob("test_*.py")):
        test = PurePosixPath(path.relative_to(unit).as_posix())
        if test.parts[0] == CROSS_CUTTING:
            continue
        if source_of(test, root) is None:
            found.append(str(test))
    return found


def test_every_unit_test_names_the_module_it_tests() -> None:
    assert misplaced(UNIT, ROOT) == []


def test_the_rule_finds_a_test_out_of_place(tmp_path: Path) -> None:
    for name in (
        "tilefoundry/ir/text/asm.py",
        "tilefoundry/ops/__init__.py",
        "tilefoundry_client/streams.py",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    unit = tmp_path / "tests" / "unit"
    for name in (
        "ir/text/test_asm.py",
        "ir/text/test_asm_deep.py",
        "ops/test_ops_library.py",
        "tilefoundry_client/test_streams.py",
        "cross_cutting/test_anything.py",
        "ir/test_asm.py",  # asm.py is in ir/text/
        "ir/text/test_asmx.py",  # not a module's name
        "dsl/test_classes.py",  # no tilefoundry/dsl/
    ):
        (unit / name).parent.mkdir(parents=True, exist_ok=True)
        (unit / name).write_text("")
    assert misplaced(unit, tmp_path) == [
        "dsl/test_classes.py",
        "ir/test_asm.py",
        "ir/text/test_asmx.py",
    ]
