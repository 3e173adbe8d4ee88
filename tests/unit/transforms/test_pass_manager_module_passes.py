"""The module passes, checked against the Python surface's own answers: `select`, calls on
numpy arrays, `weights`, `function_selectors`; and `run_passes` / `analyze` from Python."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import DictionaryAttr

import tilefoundry as tf
from tilefoundry import Module, TensorType, Var, ops, structural_equal
from tilefoundry.api.hir import Function
from tilefoundry.transforms import PassError
from tilefoundry.transforms.pass_manager import PipelineError

sys.path.insert(0, str(Path(__file__).parents[3] / "examples"))
from decoder import build_decoder, random_weights, reference  # noqa: E402

SEQ = 8


@pytest.fixture(scope="module")
def decoder() -> Module:
    return build_decoder(num_layers=3, d_model=16, d_ff=32, max_seq=64)


def layer_inputs(decoder: Module, layer: str) -> tuple[np.ndarray, list[np.ndarray]]:
    weights = random_weights(decoder)
    x = np.random.default_rng(2).standard_normal((SEQ, 16)).astype(np.float32)
    names = ["norm1", "wq", "wk", "wv", "wo", "norm2", "w_up", "w_down"]
    return x, [weights[f"{layer}.{n}"] for n in names]


# ---------------------------------------------------------------------------------------------
# tf-select is select


@pytest.mark.parametrize("path", ["", "layer1", "layer1.block", "layer2.mlp", "layer0.attention"])
def test_tf_select_answers_what_select_answers(decoder: Module, path: str) -> None:
    selected = tf.select(decoder, path)
    result = tf.run_passes(decoder, f"tf-select{{path={path}}}" if path else "tf-select")
    assert result.attached_name == selected.attached_name
    assert result.resolve_target() == selected.resolve_target()
    assert result.effective_topologies() == selected.effective_topologies()
    assert result.entry == selected.entry
    assert result.owner is None and result.target is not None and result.topologies is not None
    assert [f.name for f in result.functions] == [f.name for f in selected.functions]
    for mine, theirs in zip(result.functions, selected.functions, strict=True):
        assert structural_equal(mine, theirs)


def test_tf_select_of_a_function_runs_like_the_original(decoder: Module) -> None:
    x, weights = layer_inputs(decoder, "layer1")
    kernel = tf.run_passes(decoder, "tf-select{path=layer1.block}")
    want = decoder.layer1.block(x, *weights)
    np.testing.assert_allclose(kernel(x, *weights), want, rtol=1e-5)


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("layer1..block", "has an empty segment"),
        ("layer7", "'layer7' names no child module of <root> (children: layer0, layer1, layer2)"),
        ("layer1.nope", "nor a function (functions: block, attention, mlp)"),
    ],
)
def test_tf_select_refuses_in_one_line(decoder: Module, path: str, message: str) -> None:
    with pytest.raises(PassError, match=re.escape(message)) as info:
        tf.run_passes(decoder, f"tf-select{{path={path}}}")
    assert "\n" not in str(info.value)


# ---------------------------------------------------------------------------------------------
# tf-inline and tf-prune-unreachable keep what the entry computes


def test_inline_and_prune_keep_the_numbers(decoder: Module) -> None:
    weights = random_weights(decoder)
    x = np.random.default_rng(3).standard_normal((SEQ, 16)).astype(np.float32)
    result = tf.run_passes(decoder, "tf-inline,tf-prune-unreachable,canonicalize,cse")
    assert [f.name for f in result.functions] == ["step"]
    assert result.modules == ()
    assert dict(result.weights) == dict(decoder.weights)
    got = tf.LoadedModule(result, weights).step(x)
    want = reference(x, weights, 3)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    calls = [op for op in result.module_op.walk() if op.name == "tf.call"]
    assert all("@" not in str(op.properties["callee"]) for op in calls)


def test_inline_records_the_call_site_and_keeps_metadata(decoder: Module) -> None:
    result = tf.run_passes(decoder, "tf-inline")
    text = tf.print_module(result, debuginfo=True)
    assert 'callsite("attn" at "h")' in text  # attention's mesh, inlined at block's call `h`
    reparsed = tf.parse_module(text)
    assert tf.print_module(reparsed, debuginfo=True) == text


def test_prune_without_entry_keeps_everything(decoder: Module) -> None:
    layer = tf.select(decoder, "layer0")
    assert layer.entry is None
    pruned = tf.run_passes(layer, "tf-prune-unreachable")
    assert [f.name for f in pruned.functions] == ["block", "attention", "mlp"]


def test_prune_from_an_entry(decoder: Module) -> None:
    kernel = tf.run_passes(decoder, "tf-select{path=layer2.mlp},tf-prune-unreachable")
    assert [f.name for f in kernel.functions] == ["mlp"]


# ---------------------------------------------------------------------------------------------
# run_passes


def test_run_passes_leaves_its_input_as_it_was_when_a_pass_fails(decoder: Module) -> None:
    before = tf.print_module(decoder, debuginfo=True)
    with pytest.raises(PassError):
        tf.run_passes(decoder, "tf-inline,canonicalize,tf-select{path=nowhere}")
    with pytest.raises(PipelineError):
        tf.run_passes(decoder, "tf-inline,(")
    assert tf.print_module(decoder, debuginfo=True) == before


def test_run_passes_refuses_what_is_not_a_module_or_a_pipeline() -> None:
    with pytest.raises(TypeError, match="run_passes takes a Module"):
        tf.run_passes("m", "cse")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="pipeline as a str"):
        tf.run_passes(Module(name="m"), ["cse"])  # type: ignore[arg-type]


def test_verify_published_from_python(decoder: Module) -> None:
    assert tf.run_passes(decoder, "tf-verify-published").name == "decoder"
    with pytest.raises(PassError, match="declares no topology levels"):
        tf.run_passes(Module(name="m", target="h100"), "tf-verify-published")


# ---------------------------------------------------------------------------------------------
# analyze


def matmul_module(m: int, k: int, n: int, dtype: str = "f32") -> Module:
    a = Var("a", TensorType((m, k), dtype))
    b = Var("b", TensorType((k, n), dtype))
    f = Function(name="mm", params=[a, b], body=ops.matmul(a, b))
    return Module(name="m", functions=[f], target="h100", topologies=())


@pytest.mark.parametrize(("m", "k", "n"), [(1, 1, 1), (64, 32, 16), (3, 5, 7), (1024, 1024, 1024)])
def test_analyze_counts_2mkn_for_a_matmul(m: int, k: int, n: int) -> None:
    cost = tf.analyze(matmul_module(m, k, n))["mm"]
    assert cost.flops == 2 * m * k * n
    assert cost.bytes == 4 * (m * k + k * n + m * n)
    h100 = tf.Target("h100").device
    assert h100 is not None
    memory = cost.bytes / h100.memory_bandwidth_bytes_per_s
    compute = cost.flops / h100.peak_flops_per_s["fp32"]
    assert cost.time_s == pytest.approx(max(memory, compute))
    assert cost.bound == ("compute" if compute > memory else "memory")


def test_analyze_uses_the_tensor_peak_for_a_bf16_matmul() -> None:
    cost = tf.analyze(matmul_module(4096, 4096, 4096, "bf16"))["mm"]
    assert cost.bound == "compute"
    assert cost.time_s == pytest.approx(2 * 4096**3 / 9.894e14)


def test_analyze_is_keyed_by_selector_paths_and_leaves_the_module(decoder: Module) -> None:
    before = tf.print_module(decoder)
    costs = tf.analyze(decoder, dims={"seq": SEQ})
    assert tf.print_module(decoder) == before  # a library call changes nothing it is given
    analyzed = tf.run_passes(decoder, f"tf-analyze{{dims=seq={SEQ}}}")
    assert list(costs) == [path for path, _ in tf.function_selectors(decoder)]
    step, blocks = costs["step"], [costs[f"layer{i}.block"] for i in range(3)]
    assert step.flops == sum(b.flops for b in blocks)
    assert blocks[0].flops == costs["layer0.attention"].flops + costs["layer0.mlp"].flops
    for path, function in tf.function_selectors(analyzed):  # what the pass records
        recorded = function.function_op.attributes["tf.cost"]
        assert tf.Cost.from_attr(recorded) == costs[path]
    # N cloned layers are N functions, each with its own measurement.
    ops_ = {id(f.function_op) for _, f in tf.function_selectors(decoder)}
    assert len(ops_) == len(costs)


def test_analyze_dims_change_the_count(decoder: Module) -> None:
    small = tf.analyze(decoder, dims={"seq": 4})["layer0.mlp"]
    large = tf.analyze(decoder, dims={"seq": 8})["layer0.mlp"]
    default = tf.analyze(decoder)["layer0.mlp"]
    assert small.flops < large.flops < default.flops


def test_analyze_refuses_what_it_cannot_measure() -> None:
    x = Var("x", TensorType((4,), "f32"))
    unplaced = Module(name="m", functions=[Function(name="f", params=[x], body=ops.exp(x))])
    with pytest.raises(PassError, match="has no target"):
        tf.analyze(unplaced)
    with pytest.raises(TypeError, match="dims maps DimVar names to int sizes"):
        tf.analyze(matmul_module(1, 1, 1), dims={"seq": "4"})  # type: ignore[dict-item]


def test_a_failing_analysis_records_nothing() -> None:
    """The second function's flops do not fit the i64 of tf.cost: the first, measured before
    it, is left without a tf.cost, as the module was."""
    x = Var("x", TensorType((4,), "f32"))
    first = Function(name="first", params=[x], body=ops.exp(x))
    big = 400_000_000
    a = Var("a", TensorType((big, big), "f32"))
    b = Var("b", TensorType((big, big), "f32"))
    second = Function(name="second", params=[a, b], body=ops.matmul(a, b))
    module = Module(name="m", functions=[first, second], target="h100", topologies=())
    with pytest.raises(PassError, match="flops do not fit the i64 of tf.cost") as caught:
        tf.analyze(module)
    assert str(caught.value).startswith("pass 'analyze' failed: function '@second': ")
    for _, function in tf.function_selectors(module):
        assert "tf.cost" not in function.function_op.attributes


def test_analyze_checks_dims_as_tf_run_does() -> None:
    decoder = build_decoder(num_layers=1, d_model=16, d_ff=32, max_seq=64)
    with pytest.raises(ValueError, match="analyze dims names .sqe., which is no DimVar"):
        tf.analyze(decoder, dims={"sqe": 512})
    with pytest.raises(ValueError, match="dims seq=-1 is outside the envelope of DimVar .seq."):
        tf.analyze(decoder, dims={"seq": -1})
    with pytest.raises(ValueError, match="is outside the envelope"):
        tf.analyze(decoder, dims={"seq": 10**26})
    for _, function in tf.function_selectors(decoder):
        assert "tf.cost" not in function.function_op.attributes


def test_a_cost_attribute_round_trips_and_is_checked() -> None:
    cost = tf.Cost(1, 2, 3.0, "memory", 1, 1)
    assert tf.Cost.from_attr(cost.to_attr()) == cost
    with pytest.raises(
        ValueError, match="holds flops, bytes, time_s, bound, self_flops, self_bytes"
    ):
        tf.Cost.from_attr(DictionaryAttr({}))
