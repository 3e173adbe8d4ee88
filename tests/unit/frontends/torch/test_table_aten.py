"""Each ATen mapping on its own: a one-op torch function imported with `from_torch` gives
torch's result on numpy (the handlers the models do not reach included: causal and float
attention masks, scalar promotion, reductions over several dims, split, gather, ...)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from torch_models import torch  # noqa: E402

import tilefoundry as tf  # noqa: E402

F = torch.nn.functional


class _Fn(torch.nn.Module):  # type: ignore[misc]
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: Any) -> Any:
        return self.fn(*args)


def _x(*shape: int) -> Any:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(sum(shape)))


def _ints(*shape: int, high: int = 5) -> Any:
    return torch.randint(0, high, shape, generator=torch.Generator().manual_seed(7))


CASES: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
    "scalar_promotion": (lambda a: a * 0.5 + 1, (_ints(3, 4),)),
    "true_division_of_ints": (lambda a, b: a / (b + 1), (_ints(3, 4), _ints(3, 4))),
    "rsub_and_alpha": (lambda a, b: 1 - torch.add(a, b, alpha=2), (_x(3, 4), _x(4))),
    "pow_both_ways": (lambda a: a**3 + 2**a, (_x(3, 4),)),
    "comparisons_and_logic": (
        lambda a, b: ((a > b) & (a <= 0.5)) | ~(a == b) ^ (b != 0),
        (_x(3, 4), _x(3, 4)),
    ),
    "where_and_masked_fill": (
        lambda a, b: torch.where(a > 0, a, b).masked_fill(b > 1, -3.0),
        (_x(3, 4), _x(3, 4)),
    ),
    "maximum_minimum": (
        lambda a, b: torch.maximum(a, b) - torch.minimum(a, 0.1 * b),
        (_x(2, 5), _x(5)),
    ),
    "unary": (
        lambda a: (
            torch.exp(-a.abs())
            + torch.log(a.abs() + 1)
            + torch.sqrt(a.abs())
            + torch.tanh(a)
            + torch.sigmoid(a)
            + torch.relu(a)
            + torch.rsqrt(a.abs() + 1)
        ),
        (_x(3, 4),),
    ),
    "activations": (
        lambda a: (
            F.silu(a)
            + F.gelu(a)
            + F.gelu(a, approximate="tanh")
            + torch.sin(a)
            + torch.cos(a)
            + torch.erf(a)
        ),
        (_x(3, 4),),
    ),
    "softmax_and_reductions": (
        lambda a: (
            torch.softmax(a, -1).sum(dim=(0, 2)) + a.mean(dim=[1, 2]).sum() + a.amax(dim=1).sum()
        ),
        (_x(2, 3, 4),),
    ),
    "cumsum_of_bools": (lambda a: torch.cumsum(a > 0, dim=1), (_x(3, 6),)),
    "diff_with_prepend": (lambda a: torch.diff(a, dim=-1, prepend=a[:, :1] - 1), (_x(3, 5),)),
    "views": (
        lambda a: a.view(2, 12).unsqueeze(0).flatten(0, 1).reshape(4, 6).t().squeeze(),
        (_x(2, 3, 4),),
    ),
    "permute_expand_cat": (
        lambda a, b: torch.cat([a.permute(1, 0), b.expand(4, 3)], dim=0),
        (_x(3, 4), _x(1, 3)),
    ),
    "slices_select_split": (
        lambda a: (
            a[:, 1:5:2] + a[:, -2:] + a.select(1, -1).unsqueeze(1) + sum(torch.split(a, 2, 1)[:2])
        ),
        (_x(3, 6),),
    ),
    "split_with_sizes": (lambda a: torch.split(a, [1, 3], dim=0)[1] * 2, (_x(4, 3),)),
    "embedding_and_index": (
        lambda w, i: F.embedding(i, w).sum(-1) + w[i[0]].sum(-1),
        (_x(8, 4), _ints(2, 3, high=8)),
    ),
    "gather": (lambda a, i: torch.gather(a, 1, i), (_x(3, 4), _ints(3, 6, high=4))),
    "index_select": (lambda w, i: torch.index_select(w, 0, i), (_x(8, 4), _ints(5, high=8))),
    "arange_and_full": (
        lambda a: (
            a + torch.arange(4) + torch.arange(2, 10, 2) + torch.ones(4) + torch.full((3, 4), 0.25)
        ),
        (_x(3, 4),),
    ),
    "like_constructors": (
        lambda a: torch.zeros_like(a) + torch.ones_like(a) * 2 + a.new_full((3, 4), 3.0),
        (_x(3, 4),),
    ),
    "casts": (lambda a: (a * 10).to(torch.int32).to(torch.float32) + a.type_as(a), (_x(3, 4),)),
    "linear_addmm_bmm": (
        lambda a, w, b: (
            F.linear(a, w, b)
            + torch.addmm(b, a, w.T)
            + torch.bmm(a.unsqueeze(0), w.T.unsqueeze(0))[0]
            + a @ w.T
        ),
        (_x(3, 4), _x(5, 4), _x(5)),
    ),
    "layer_norm": (lambda a, w, b: F.layer_norm(a, (4,), w, b, 1e-5), (_x(2, 3, 4), _x(4), _x(4))),
    "clamp": (
        lambda a, b: torch.clamp(a, -0.5, 0.5) + a.clamp(min=b) + a.clamp(max=0.1),
        (_x(3, 4), _x(4)),
    ),
    "log_softmax": (lambda a: F.log_softmax(a, dim=-1) + torch.log_softmax(a, 0), (_x(3, 4),)),
    "tril_triu": (
        lambda a: torch.tril(a) + torch.triu(a, 1) * 2 + torch.tril(a, -1),
        (_x(2, 4, 5),),
    ),
    "repeat": (
        lambda a: a.repeat(2, 3) + a.repeat(1, 1, 1, 3).sum(0).sum(0).repeat(2, 1)[:6, :9].sum(),
        (_x(3, 3),),
    ),
    "attention_causal": (
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        (_x(1, 2, 5, 8), _x(1, 2, 5, 9)[..., :8], _x(1, 2, 5, 7)[..., :8] + 0),
    ),
    "attention_masks": (
        lambda q, k, v, m: (
            F.scaled_dot_product_attention(q, k, v, attn_mask=m > 0)
            + F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.3)
        ),
        (_x(1, 2, 5, 8), _x(1, 2, 6, 8), _x(1, 2, 6, 4), _x(1, 1, 5, 6)),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_aten_mapping_gives_torchs_result(name: str) -> None:
    fn, inputs = CASES[name]
    model = _Fn(fn)
    with torch.no_grad():
        want = model(*inputs)
    loaded = tf.from_torch(model, inputs)
    got = loaded(*(i.numpy() for i in inputs))
    want_array = want.numpy()
    if want_array.ndim == 0:
        want_array = want_array.reshape(1)  # a rank-0 result is carried as shape (1,)
    assert got.dtype == want_array.dtype
    np.testing.assert_allclose(got, want_array, rtol=1e-5, atol=1e-5)
