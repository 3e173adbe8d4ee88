"""Every example of docs/dsl.md runs: the ```python blocks, in order, as one file (the DSL reads
its functions from a file, so the page's code is written to one and run)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import runpy
from pathlib import Path

from tilefoundry import LoadedModule

DOC = Path(__file__).parents[4] / "docs" / "dsl.md"


def test_the_tutorial_runs(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) >= 9, "docs/dsl.md lost its examples"
    path = tmp_path / "dsl_tutorial.py"
    path.write_text("\n\n".join(blocks))
    with contextlib.redirect_stdout(io.StringIO()):
        found = runpy.run_path(str(path), run_name="dsl_tutorial")
    assert found["model"].entry == "step"
    # the Llama-style decoder: a loop over layers, checked against numpy (asserted in the page)
    assert found["llama"].forward(found["x"]).shape == (found["S"], found["D"])
    if importlib.util.find_spec("torch") is not None:  # the [torch] extra (`make test` has it)
        assert isinstance(found["imported"], LoadedModule)  # the PyTorch comparison ran
        assert isinstance(found["ours"], LoadedModule)
