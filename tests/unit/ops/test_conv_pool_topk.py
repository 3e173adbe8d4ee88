"""`tf.nn.conv`, `tf.nn.pool` and `tf.tensor.topk`: type inference, refusals, and the numpy
reference against a direct loop over the definition."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from tilefoundry import Call, TensorType, Var, VerifyError
from tilefoundry.ops import Conv, Pool, PoolKind, TopK, conv, pool, topk


def v(shape: tuple[int, ...], dtype: str = "f32") -> Var:
    return Var("v", TensorType(shape, dtype))


def _conv_loop(x, w, stride, padding, dilation, groups):  # type: ignore[no-untyped-def]
    n = len(stride)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    out = [
        (s + 2 * p - d * (k - 1) - 1) // st + 1
        for s, k, st, p, d in zip(x.shape[2:], w.shape[2:], stride, padding, dilation, strict=False)
    ]
    y = np.zeros((x.shape[0], w.shape[0], *out))
    per = w.shape[1]
    for b, o in itertools.product(range(x.shape[0]), range(w.shape[0])):
        g = o // (w.shape[0] // groups)
        for pos in itertools.product(*map(range, out)):
            total = 0.0
            for c in range(per):
                for tap in itertools.product(*map(range, w.shape[2:])):
                    at = tuple(pos[i] * stride[i] + tap[i] * dilation[i] for i in range(n))
                    total += xp[(b, g * per + c, *at)] * w[(o, c, *tap)]
            y[(b, o, *pos)] = total
    return y


@pytest.mark.parametrize(
    ("xs", "ws", "stride", "padding", "dilation", "groups"),
    [
        ((2, 4, 7, 6), (6, 2, 3, 2), (1, 1), (0, 0), (1, 1), 2),
        ((1, 3, 8, 8), (4, 3, 3, 3), (2, 2), (1, 1), (1, 1), 1),
        ((1, 4, 9, 7), (4, 1, 3, 3), (2, 1), (1, 2), (2, 1), 4),
        ((2, 2, 11), (3, 2, 3), (2,), (1,), (2,), 1),
    ],
)
def test_conv_is_the_cross_correlation(
    xs: tuple[int, ...],
    ws: tuple[int, ...],
    stride: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    groups: int,
) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    call = conv(v(xs), v(ws), stride, padding, dilation, groups)
    want = _conv_loop(x, w, stride, padding, dilation, groups)
    assert call.type == TensorType(want.shape, "f32")
    got = Conv(stride=stride, padding=padding, dilation=dilation, groups=groups).reference(x, w)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    flops = Conv(stride=stride, padding=padding, dilation=dilation, groups=groups).flops(
        [TensorType(xs, "f32"), TensorType(ws, "f32")], call.type
    )
    assert flops == 2 * want.size * math.prod(ws[1:])


@pytest.mark.parametrize(
    ("xs", "ws", "attrs", "match"),
    [
        ((1, 3, 8, 8), (4, 3, 3, 3), dict(stride=(1,), padding=(0,)), "rank 3"),
        ((1, 3, 8, 8), (4, 2, 3, 3), dict(stride=(1, 1), padding=(0, 0)), "input channels"),
        ((1, 4, 8, 8), (3, 2, 3, 3), dict(stride=(1, 1), padding=(0, 0), groups=2), "output"),
        ((1, 3, 2, 2), (4, 3, 3, 3), dict(stride=(1, 1), padding=(0, 0)), "does not fit"),
        ((1, 3, 8, 8), (4, 3, 3, 3), dict(stride=(1, 1), padding=(0,)), "padding"),
    ],
)
def test_conv_refuses_shapes_that_do_not_fit(
    xs: tuple[int, ...], ws: tuple[int, ...], attrs: dict[str, object], match: str
) -> None:
    with pytest.raises(VerifyError, match=match):
        Call(Conv(**attrs), [v(xs), v(ws)])


def _pool_loop(x, kind, kernel, stride, padding, dilation, count_include_pad):  # type: ignore[no-untyped-def]
    n = len(kernel)
    lead, spatial = x.shape[:-n], x.shape[-n:]
    out = [
        (s + 2 * p - d * (k - 1) - 1) // st + 1
        for s, k, st, p, d in zip(spatial, kernel, stride, padding, dilation, strict=False)
    ]
    y = np.zeros((*lead, *out))
    for idx in itertools.product(*map(range, lead)):
        for pos in itertools.product(*map(range, out)):
            taken, count = [], 0
            for tap in itertools.product(*map(range, kernel)):
                at = [pos[i] * stride[i] + tap[i] * dilation[i] - padding[i] for i in range(n)]
                if all(0 <= a < s for a, s in zip(at, spatial, strict=False)):
                    taken.append(x[(*idx, *at)])
                    count += 1
            if kind == "max":
                y[(*idx, *pos)] = max(taken)
            else:
                y[(*idx, *pos)] = sum(taken) / (math.prod(kernel) if count_include_pad else count)
    return y


@pytest.mark.parametrize(
    ("kind", "kernel", "stride", "padding", "dilation", "cip"),
    [
        ("max", (2, 2), (2, 2), (0, 0), (1, 1), True),
        ("max", (3, 3), (2, 1), (1, 1), (1, 1), True),
        ("max", (3, 2), (1, 2), (1, 1), (2, 1), True),
        ("avg", (2, 2), (2, 2), (0, 0), (1, 1), True),
        ("avg", (3, 3), (2, 1), (1, 1), (1, 1), True),
        ("avg", (3, 3), (2, 1), (1, 1), (1, 1), False),
        ("avg", (3,), (2,), (1,), (1,), False),
    ],
)
def test_pool_reduces_each_window(
    kind: str,
    kernel: tuple[int, ...],
    stride: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    cip: bool,
) -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 9, 7)).astype(np.float32)
    op = Pool(
        kind=PoolKind(kind),
        kernel=kernel,
        stride=stride,
        padding=padding,
        dilation=dilation,
        count_include_pad=cip,
    )
    want = _pool_loop(x, kind, kernel, stride, padding, dilation, cip)
    assert Call(op, [v(x.shape)]).type == TensorType(want.shape, "f32")
    np.testing.assert_allclose(op.reference(x), want, rtol=1e-6, atol=1e-6)


def test_pool_refuses_a_padding_past_half_the_kernel_and_a_dilated_average() -> None:
    with pytest.raises(VerifyError, match="half the kernel"):
        pool(v((1, 8, 8)), PoolKind.MAX, (2, 2), (2, 2), (2, 0))
    with pytest.raises(VerifyError, match="no dilation"):
        pool(v((1, 8, 8)), PoolKind.AVG, (2, 2), (2, 2), (0, 0), (2, 2))


def test_topk_gives_the_largest_in_order_and_their_positions() -> None:
    x = np.array([[3.0, 1.0, 4.0, 1.0, 5.0, 9.0], [2.0, 6.0, 5.0, 3.0, 5.0, np.nan]], np.float32)
    assert topk(v((2, 6)), 3).type.fields == (  # type: ignore[union-attr]
        TensorType((2, 3), "f32"),
        TensorType((2, 3), "i64"),
    )
    values, indices = TopK(k=3).reference(x)
    np.testing.assert_array_equal(indices, [[5, 4, 2], [5, 1, 2]])  # NaN first, ties in order
    np.testing.assert_array_equal(values[0], [9.0, 5.0, 4.0])
    values, indices = TopK(k=2, axis=0, largest=False).reference(x[:, :2])
    np.testing.assert_array_equal(indices, [[1, 0], [0, 1]])
    ints = np.array([[-(2**63), 2**63 - 1, 0]], np.int64)
    assert TopK(k=3).reference(ints)[1].tolist() == [[1, 2, 0]]
    with pytest.raises(VerifyError, match="k = 7"):
        topk(v((2, 6)), 7)


def test_the_native_backend_compiles_them(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Each has its emission rule (what the rules promise, op by op and dtype by dtype:
    tests/unit/backends/native/test_build_ops.py): a module of the three, compiled, computes what it
    interprets to."""
    import tilefoundry as tf

    module = tf.parse_module(
        """tf.module @m entry @f {
  hir.func @f(%x: tensor<1x2x8x8xf32>, %w: tensor<2x2x3x3xf32>) -> tuple<tensor<1x2x2x4xf32>, tensor<1x2x2x4xi64>> {
    %c = tf.call tf.nn.conv<stride = [1, 1], padding = [1, 1]>(%x, %w) : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
    %y = tf.call tf.nn.pool<kind = max, kernel = [2, 2], stride = [2, 2], padding = [0, 0]>(%c) : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
    %t = tf.call tf.tensor.topk<k = 2, axis = 2>(%y) : (tensor<1x2x4x4xf32>) -> tuple<tensor<1x2x2x4xf32>, tensor<1x2x2x4xi64>>
    hir.return %t : tuple<tensor<1x2x2x4xf32>, tensor<1x2x2x4xi64>>
  }
}
""",
        "windowed.mlir",
    )
    assert "linalg.generic" in tf.emit_mlir(module)
    monkeypatch.setenv("TF_CACHE_DIR", str(tmp_path / "cache"))  # not the user's cache
    rng = np.random.default_rng(0)
    x = rng.integers(-4, 5, (1, 2, 8, 8)).astype(np.float32)  # exact sums: any order
    w = rng.integers(-2, 3, (2, 2, 3, 3)).astype(np.float32)
    expected = module.f(x, w)
    got = tf.compile(module).f(x, w)
    for e, g in zip(expected, got, strict=True):
        np.testing.assert_array_equal(g, e)
