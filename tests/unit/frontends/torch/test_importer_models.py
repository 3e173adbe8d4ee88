"""Real models through the torch frontend: each runs on numpy as PyTorch runs it, after the
import and after the README's pipeline; its tree mirrors the nn.Module hierarchy; a layer's
attention selects as an analysable root; FLOPs follow from the shapes; the text round-trips
and upstream mlir-opt reads the generic form."""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from torch_models import (  # noqa: E402
    MORE_FAMILIES,
    TOKENS,
    Imported,
    first,
    import_model,
    torch,
    upstream_accepts,
)

import tilefoundry as tf  # noqa: E402

MODELS = ["mlp", "encoder_layer", "llama", "qwen2", "gpt2", "bert"]


@functools.cache
def imported(name: str) -> Imported:
    return import_model(name)


def _close(got: Any, want: Any) -> None:
    np.testing.assert_allclose(first(got), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", MODELS)
def test_runs_as_pytorch_does(name: str) -> None:
    m = imported(name)
    _close(m.loaded(*m.inputs), m.want)


@pytest.mark.parametrize("name", MODELS)
def test_runs_as_pytorch_does_after_the_pipeline(name: str) -> None:
    m = imported(name)
    after = tf.run_passes(m.loaded.module, "canonicalize,cse")
    _close(tf.LoadedModule(after, m.loaded.bindings)(*m.inputs), m.want)


@pytest.mark.parametrize("name", MODELS)
def test_the_tree_mirrors_the_module_hierarchy(name: str) -> None:
    m = imported(name)
    paths = {path for path, _ in tf.function_selectors(m.loaded.module)}
    # each function is the forward of the submodule at its attribute path
    for path in paths:
        assert path.endswith("forward")
        m.model.get_submodule(path.removesuffix("forward").rstrip("."))
    assert f"{m.attention}.forward".lstrip(".") in paths
    # each child module is named by its attribute, and owns its class's name
    for path, _ in tf.function_selectors(m.loaded.module):
        node = tf.select(m.loaded.module, path.removesuffix("forward").rstrip("."))
        if node.owner is not None:
            sub = m.model.get_submodule(path.removesuffix(".forward"))
            assert node.name == type(sub).__name__ or node.name == node.attached_name
    # its weights are the state_dict keys exactly (the root's const params), and the model's
    # own state_dict binds as it is
    state = {k: v.detach().numpy() for k, v in m.model.state_dict().items()}
    assert set(m.loaded.bindings) <= set(state)
    for key, value in m.loaded.bindings.items():
        np.testing.assert_array_equal(value, _tensor(m.model, key))
    _close(tf.LoadedModule(m.loaded.module, state)(*m.inputs), m.want)


def _tensor(model: Any, key: str) -> Any:
    tensors = {
        **dict(model.named_parameters(remove_duplicate=False)),
        **dict(model.named_buffers(remove_duplicate=False)),
    }
    return tensors[key].detach().numpy()


@pytest.mark.parametrize("name", [n for n in MODELS if n != "mlp"])
def test_a_layers_attention_is_an_analysable_root(name: str) -> None:
    m = imported(name)
    root = m.loaded.module
    node = tf.select(root, m.attention)
    assert node.attached_name == m.attention.rsplit(".", 1)[-1]
    selected = tf.run_passes(root, f"tf-select{{path={m.attention}}}")
    assert selected.owner is None and selected.target is not None
    selected.publish()
    costs = tf.analyze(selected, dims={})
    whole = tf.analyze(root, dims={})
    assert costs["forward"].flops == whole[f"{m.attention}.forward"].flops > 0
    # its weights are the submodule's own state_dict keys
    sub = m.model.get_submodule(m.attention)
    assert set(selected.weights) <= set(sub.state_dict())


@pytest.mark.parametrize("name", MODELS)
def test_linear_flops_follow_from_the_shapes(name: str) -> None:
    m = imported(name)
    costs = tf.analyze(m.loaded.module, dims={})
    functions = dict(tf.function_selectors(m.loaded.module))
    linear_total = 0
    for path, sub in m.model.named_modules():
        if isinstance(sub, torch.nn.Linear) and f"{path}.forward" in costs:
            activation = functions[f"{path}.forward"].params[0].type
            tokens = int(np.prod(activation.shape[:-1]))  # the rows this call multiplies
            expected = 2 * tokens * sub.in_features * sub.out_features
            expected += tokens * sub.out_features if sub.bias is not None else 0
            assert costs[f"{path}.forward"].flops == expected, path
            linear_total += expected
    assert linear_total > 0 or name == "gpt2"  # GPT-2's projections are Conv1D (addmm)
    assert costs["forward"].flops >= linear_total


def test_the_mlp_flops_are_the_count_from_its_shapes() -> None:
    m = imported("mlp")
    t = TOKENS
    expected = (2 * t * 16 * 32 + t * 32) + 5 * t * 32 + (2 * t * 32 * 8 + t * 8) + t * 8
    assert tf.analyze(m.loaded.module, dims={})["forward"].flops == expected


def test_gpt2_conv1d_flops_are_2_tokens_params() -> None:
    m = imported("gpt2")
    costs = tf.analyze(m.loaded.module, dims={})
    for path, sub in m.model.named_modules():
        if type(sub).__name__ == "Conv1D":
            n_in, n_out = sub.weight.shape
            assert costs[f"{path}.forward"].flops == 2 * TOKENS * n_in * n_out + TOKENS * n_out


@pytest.mark.parametrize("name", MODELS)
def test_text_round_trips_and_upstream_reads_the_generic_form(name: str) -> None:
    m = imported(name)
    text = tf.print_module(m.loaded.module)
    again = tf.parse_module(text, "model.mlir")
    assert tf.print_module(again) == text
    _close(tf.LoadedModule(again, m.loaded.bindings)(*m.inputs), m.want)
    generic = tf.print_module(m.loaded.module, generic=True)
    result = upstream_accepts(generic)
    assert result.returncode == 0, result.stderr[:2000]


@pytest.mark.parametrize("name", MORE_FAMILIES)
def test_more_decoder_families_run_as_pytorch_does(name: str) -> None:
    m = import_model(name)
    # T5's relative-position buckets take log(0) = -inf and cast it to an integer, in lanes a
    # `where` then discards, as torch does: numpy computes the same and would warn about it
    quiet = "ignore" if name == "t5_encoder" else "warn"
    with np.errstate(divide=quiet, invalid=quiet):
        _close(m.loaded(*m.inputs), m.want)
    selected = tf.run_passes(m.loaded.module, f"tf-select{{path={m.attention}}}")
    assert tf.analyze(selected, dims={})["forward"].flops > 0
    assert set(selected.weights) <= set(m.model.get_submodule(m.attention).state_dict())
