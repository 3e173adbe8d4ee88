"""examples/dsl_decoder.py: the decoder written in the DSL (class-body layers, meshes, a
variant, weights) builds, matches the numpy reference, and prints back as DSL source."""

from __future__ import annotations

import contextlib
import io
import runpy
import sys
from pathlib import Path

import numpy as np

import tilefoundry as tf
from tilefoundry.dialects.tf.mesh import MeshOp

ROOT = Path(__file__).parents[4]


def load() -> dict[str, object]:
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        return runpy.run_path(str(ROOT / "examples" / "dsl_decoder.py"), run_name="dsl_decoder")
    finally:
        sys.path.remove(str(ROOT / "examples"))


def test_the_dsl_decoder_is_a_module_tree_with_meshes_a_variant_and_weights(
    tmp_path: Path,
) -> None:
    example = load()
    root = example["build_decoder"](d_model=16, d_ff=32, max_seq=64)  # type: ignore[operator]
    assert isinstance(root, tf.Module)
    assert [m.attached_name for m in root.modules] == ["layer0", "layer1"]
    assert {m.name for m in root.modules} == {"DecoderLayer"}
    assert root.resolve_target().arch == "sm_90a" and root.metadata == {"opt_level": 2}
    assert list(root.weights)[:2] == ["layer0.norm1", "layer0.wq"] and len(root.weights) == 16
    attention = root.modules[0].lookup("attention")
    assert attention.specializations == ((tf.DimVarRangePat("seq", 1, 2),),)
    levels = {op.topology.data for op in root.module_op.walk() if isinstance(op, MeshOp)}
    assert levels == {"cta", "warp"}
    path = tmp_path / "again.py"
    path.write_text(tf.print_script(root))
    assert tf.structural_equal(runpy.run_path(str(path))["module"], root)
    random_weights, reference = example["random_weights"], example["reference"]
    weights = random_weights(root)  # type: ignore[operator]
    for tokens in (1, 5):
        x = np.random.default_rng(tokens).standard_normal((tokens, 16)).astype(np.float32)
        got = root.forward(x, weights)
        want = reference(x, weights, 2)  # type: ignore[operator]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_the_dsl_decoder_script_succeeds() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            runpy.run_path(str(ROOT / "examples" / "dsl_decoder.py"), run_name="__main__")
        except SystemExit as exit:
            assert exit.code == 0, out.getvalue()
    assert "max abs error" in out.getvalue()
