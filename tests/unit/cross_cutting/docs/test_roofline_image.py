"""docs/images/roofline.svg, the picture docs/passes.md shows, is the roofline the example's
model pipeline draws today, and reads as one: well-formed SVG, the axes, the device's roofs,
and one labelled point per function instance."""

from __future__ import annotations

import runpy
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).parents[4]
IMAGE = ROOT / "docs" / "images" / "roofline.svg"
SVG = "{http://www.w3.org/2000/svg}"


def _example_roofline() -> str:
    demo = runpy.run_path(str(ROOT / "examples" / "demo.py"))
    svg = demo["example_roofline"]()
    assert isinstance(svg, str)
    return svg


def test_the_docs_image_is_fresh() -> None:
    assert IMAGE.read_text() == _example_roofline(), (
        "docs/images/roofline.svg is stale: run `python examples/demo.py --docs-image`"
    )


def test_the_docs_image_has_a_labelled_point_per_function_and_the_axes() -> None:
    root = ET.fromstring(IMAGE.read_text())
    assert root.tag == f"{SVG}svg"
    points = root.findall(f"{SVG}circle[@class='point']")
    paths = [p.get("data-path") for p in points]
    expected = ["step"] + [f"layer{i}.{f}" for i in range(4) for f in ("block", "attention", "mlp")]
    assert sorted(paths) == sorted(expected)
    for point in points:
        title = point.find(f"{SVG}title")
        assert title is not None and title.text is not None
        assert title.text.startswith(f"{point.get('data-path')}: ")
    labels = [t.text for t in root.findall(f"{SVG}text[@class='label']")]
    assert sorted(labels) == sorted(
        ["step", "layer0.block (+3 alike)", "layer0.attention (+3 alike)", "layer0.mlp (+3 alike)"]
    )
    axes = [t.text for t in root.findall(f"{SVG}text")]
    assert "arithmetic intensity (FLOP / byte)" in axes
    assert "attained performance (FLOP / s)" in axes
    roofs = [t.text or "" for t in root.findall(f"{SVG}text[@class='roof-label compute']")]
    assert "fp64_tensor, fp32 66.9 TFLOP/s" in roofs
    assert [t.text for t in root.findall(f"{SVG}text[@class='roof-label memory']")] == [
        "memory 3.35 TB/s"
    ]
