"""The torch mapping, one literal table: each ATen op the importer knows, by its name, and the
rule that maps it onto registered ops (`elementwise.py`, `shapes.py`, `composites.py`).

A row is `"aten.<op>.<overload>": rule`, where a rule is a `Handler` (`emitter.py`): a rule
factory with the op or kind it maps to (`arith(BinaryKind.ADD)`, `elementwise(Unary(...))`,
`reduction(ReduceSum)`), or a rule of its own for an op that maps to several ops or reads its
attributes from the arguments (`linear`, `layer_norm`, `sdpa`), or `decomposed` for an op that
torch's own decomposition replaces before the import (the importer asks torch for exactly those). Adding an ATen op is one row
(and a rule, when no existing one fits). docs/frontends.md lists what each maps to.
"""

from __future__ import annotations

from tilefoundry.frontends.torch import activations as a
from tilefoundry.frontends.torch import composites as c
from tilefoundry.frontends.torch import elementwise as e
from tilefoundry.frontends.torch import shapes as s
from tilefoundry.frontends.torch import vision as v
from tilefoundry.frontends.torch.emitter import Handler
from tilefoundry.ops.math import BinaryKind, Unary, UnaryKind
from tilefoundry.ops.nn import Activation, ActivationKind, LogicalKind, ReduceMean
from tilefoundry.ops.reduce import ReduceMax, ReduceSum

__all__ = ["ATEN"]

ADD, SUB, MUL, DIV, POW = (
    BinaryKind.ADD,
    BinaryKind.SUB,
    BinaryKind.MUL,
    BinaryKind.DIV,
    BinaryKind.POW,
)
MAX, MIN = BinaryKind.MAX, BinaryKind.MIN
AND, OR, XOR = LogicalKind.AND, LogicalKind.OR, LogicalKind.XOR

ATEN: dict[str, Handler] = {
    # -- replaced by torch's own decompositions before the import (the recurrent layers are
    #    their cells' linears, sigmoids and tanhs, step by step)
    "aten.lstm.input": c.decomposed,
    "aten.gru.input": c.decomposed,
    "aten.rnn_tanh.input": c.decomposed,
    "aten.rnn_relu.input": c.decomposed,
    # -- arithmetic: the result dtype is torch's, each operand cast or made a literal of it
    "aten.add.Tensor": e.arith(ADD),
    "aten.add.Scalar": e.arith(ADD),
    "aten.add.default": e.arith(ADD),
    "aten.add.Tensor_Scalar": e.arith(ADD),
    "aten.add.Tensor_Tensor": e.arith(ADD),
    "aten.sub.Tensor": e.arith(SUB),
    "aten.sub.Scalar": e.arith(SUB),
    "aten.sub.default": e.arith(SUB),
    "aten.sub.Tensor_Scalar": e.arith(SUB),
    "aten.sub.Tensor_Tensor": e.arith(SUB),
    "aten.rsub.Scalar": e.rsub,
    "aten.rsub.Tensor": e.rsub,
    "aten.mul.Tensor": e.arith(MUL),
    "aten.mul.Scalar": e.arith(MUL),
    "aten.mul.default": e.arith(MUL),
    "aten.mul.Tensor_Scalar": e.arith(MUL),
    "aten.mul.Tensor_Tensor": e.arith(MUL),
    "aten.div.Tensor": e.arith(DIV),
    "aten.div.Scalar": e.arith(DIV),
    "aten.div.default": e.arith(DIV),
    "aten.div.Tensor_Scalar": e.arith(DIV),
    "aten.div.Tensor_Tensor": e.arith(DIV),
    "aten.pow.Tensor": e.arith(POW),
    "aten.pow.Scalar": e.arith(POW),
    "aten.pow.default": e.arith(POW),
    "aten.pow.Tensor_Scalar": e.arith(POW),
    "aten.pow.Tensor_Tensor": e.arith(POW),
    "aten.maximum.Tensor": e.arith(MAX),
    "aten.maximum.Scalar": e.arith(MAX),
    "aten.maximum.default": e.arith(MAX),
    "aten.maximum.Tensor_Scalar": e.arith(MAX),
    "aten.maximum.Tensor_Tensor": e.arith(MAX),
    "aten.max.other": e.arith(MAX),
    "aten.minimum.Tensor": e.arith(MIN),
    "aten.minimum.Scalar": e.arith(MIN),
    "aten.minimum.default": e.arith(MIN),
    "aten.minimum.Tensor_Scalar": e.arith(MIN),
    "aten.minimum.Tensor_Tensor": e.arith(MIN),
    "aten.min.other": e.arith(MIN),
    "aten.clamp.default": c.clamp,
    "aten.clamp.Tensor": c.clamp,
    "aten.clip.default": c.clamp,
    # -- comparisons: both operands in their promoted dtype, an i1 result
    "aten.eq.Tensor": e.compare(BinaryKind.CMP_EQ),
    "aten.eq.Scalar": e.compare(BinaryKind.CMP_EQ),
    "aten.ne.Tensor": e.compare(BinaryKind.CMP_NE),
    "aten.ne.Scalar": e.compare(BinaryKind.CMP_NE),
    "aten.lt.Tensor": e.compare(BinaryKind.CMP_LT),
    "aten.lt.Scalar": e.compare(BinaryKind.CMP_LT),
    "aten.le.Tensor": e.compare(BinaryKind.CMP_LE),
    "aten.le.Scalar": e.compare(BinaryKind.CMP_LE),
    "aten.gt.Tensor": e.compare(BinaryKind.CMP_GT),
    "aten.gt.Scalar": e.compare(BinaryKind.CMP_GT),
    "aten.ge.Tensor": e.compare(BinaryKind.CMP_GE),
    "aten.ge.Scalar": e.compare(BinaryKind.CMP_GE),
    # -- logic, on bool only (bitwise ops on integers are refused)
    "aten.__and__.Tensor": e.logical(AND),
    "aten.__and__.default": e.logical(AND),
    "aten.bitwise_and.Tensor": e.logical(AND),
    "aten.bitwise_and.default": e.logical(AND),
    "aten.logical_and.Tensor": e.logical(AND),
    "aten.logical_and.default": e.logical(AND),
    "aten.__or__.Tensor": e.logical(OR),
    "aten.__or__.default": e.logical(OR),
    "aten.bitwise_or.Tensor": e.logical(OR),
    "aten.bitwise_or.default": e.logical(OR),
    "aten.logical_or.Tensor": e.logical(OR),
    "aten.logical_or.default": e.logical(OR),
    "aten.__xor__.Tensor": e.logical(XOR),
    "aten.__xor__.default": e.logical(XOR),
    "aten.bitwise_xor.Tensor": e.logical(XOR),
    "aten.bitwise_xor.default": e.logical(XOR),
    "aten.logical_xor.Tensor": e.logical(XOR),
    "aten.logical_xor.default": e.logical(XOR),
    "aten.logical_not.default": e.logical_not,
    "aten.bitwise_not.default": e.logical_not,
    # -- unary ops and activations
    # every unary kind, and the activations but gelu, is the aten op of its name
    **{f"aten.{kind.value}.default": e.elementwise(Unary(kind=kind)) for kind in UnaryKind},
    **{
        f"aten.{kind.value}.default": e.elementwise(Activation(kind=kind))
        for kind in (
            ActivationKind.SILU,
            ActivationKind.SIN,
            ActivationKind.COS,
            ActivationKind.ERF,
        )
    },
    "aten.gelu.default": e.gelu,
    "aten.leaky_relu.default": a.leaky_relu,
    "aten.hardtanh.default": a.hardtanh,
    "aten.elu.default": a.elu,
    "aten.softplus.default": a.softplus,
    "aten.hardsigmoid.default": a.hardsigmoid,
    "aten.hardswish.default": a.hardswish,
    "aten.mish.default": a.mish,
    "aten.log_sigmoid.default": a.log_sigmoid,
    "aten.log_sigmoid_forward.default": a.log_sigmoid,
    "aten.softmax.int": c.softmax,
    "aten._softmax.default": c.softmax,
    "aten._safe_softmax.default": c.softmax,
    "aten.log_softmax.int": c.log_softmax,
    "aten._log_softmax.default": c.log_softmax,
    # -- selection
    "aten.where.self": e.where,
    "aten.where.ScalarSelf": e.where,
    "aten.where.ScalarOther": e.where,
    "aten.where.Scalar": e.where,
    "aten.masked_fill.Scalar": e.masked_fill,
    "aten.masked_fill.Tensor": e.masked_fill,
    "aten.tril.default": c.triangle,
    "aten.triu.default": c.triangle,
    # -- identities, assertions and casts
    "aten.clone.default": e.identity,
    "aten.alias.default": e.identity,
    "aten.contiguous.default": e.identity,
    "aten.detach.default": e.identity,
    "aten.lift_fresh_copy.default": e.identity,
    "aten.dropout.default": e.dropout,
    "aten._assert_tensor_metadata.default": e.assertion,
    "aten._assert_scalar.default": e.assertion,
    "aten._to_copy.default": e.to_dtype,
    "aten.to.dtype": e.to_dtype,
    "aten.to.dtype_layout": e.to_dtype,
    "aten.to.device": e.to_dtype,
    "aten.type_as.default": e.to_dtype,
    # -- shapes: one reshape to the recorded shape
    "aten.view.default": s.view,
    "aten._unsafe_view.default": s.view,
    "aten.reshape.default": s.view,
    "aten.unsqueeze.default": s.view,
    "aten.squeeze.dim": s.view,
    "aten.squeeze.dims": s.view,
    "aten.squeeze.default": s.view,
    "aten.flatten.using_ints": s.view,
    "aten.unflatten.int": s.view,
    "aten.expand.default": s.expand,
    "aten.expand_as.default": s.expand,
    "aten.repeat.default": c.repeat,
    "aten.transpose.int": s.transpose,
    "aten.t.default": s.t,
    "aten.numpy_T.default": s.t,
    "aten.permute.default": s.permute,
    "aten.flip.default": a.flip,
    "aten.cat.default": s.cat,
    "aten.concat.default": s.cat,
    "aten.slice.Tensor": s.slice_tensor,
    "aten.select.int": s.select,
    "aten.split.Tensor": s.split,
    "aten.split_with_sizes.default": s.split,
    "aten.sym_size.int": c.sym_size,
    "aten.unbind.int": s.unbind,
    "aten.stack.default": s.stack,
    "aten.repeat_interleave.self_int": s.repeat_interleave,
    # -- indexing
    "aten.embedding.default": s.embedding,
    "aten.index.Tensor": s.index,
    "aten.index_select.default": s.index_select,
    "aten.gather.default": s.gather,
    # -- construction
    "aten.arange.default": s.arange,
    "aten.arange.start": s.arange,
    "aten.arange.start_step": s.arange,
    "aten.full.default": s.full,
    "aten.new_full.default": s.full,
    "aten.new_ones.default": s.full,
    "aten.new_zeros.default": s.full,
    "aten.ones.default": s.full,
    "aten.zeros.default": s.full,
    "aten.ones_like.default": s.full,
    "aten.zeros_like.default": s.full,
    "aten.full_like.default": s.full,
    # -- reductions, one op per reduced dim
    "aten.mean.dim": c.reduction(ReduceMean),
    "aten.mean.default": c.reduction(ReduceMean),
    "aten.sum.dim_IntList": c.reduction(ReduceSum),
    "aten.sum.default": c.reduction(ReduceSum),
    "aten.amax.default": c.reduction(ReduceMax),
    "aten.cumsum.default": c.cumsum,
    "aten.diff.default": c.diff,
    # -- linear algebra and the composites
    "aten.linear.default": c.linear,
    "aten.addmm.default": c.addmm,
    "aten.mm.default": c.mm,
    "aten.bmm.default": c.mm,
    "aten.matmul.default": c.mm,
    "aten.baddbmm.default": c.baddbmm,
    "aten.layer_norm.default": c.layer_norm,
    "aten.scaled_dot_product_attention.default": c.sdpa,
    "aten.topk.default": c.topk,
    # -- convolution, pooling and the norms
    "aten.conv1d.default": v.conv,
    "aten.conv2d.default": v.conv,
    "aten.conv3d.default": v.conv,
    "aten.conv1d.padding": v.conv,
    "aten.conv2d.padding": v.conv,
    "aten.convolution.default": v.conv,
    "aten.max_pool1d.default": v.pool,
    "aten.max_pool2d.default": v.pool,
    "aten.avg_pool1d.default": v.pool,
    "aten.avg_pool2d.default": v.pool,
    "aten.adaptive_avg_pool1d.default": v.adaptive_avg_pool,
    "aten.adaptive_avg_pool2d.default": v.adaptive_avg_pool,
    "aten._native_batch_norm_legit_no_training.default": v.batch_norm,
    "aten.batch_norm.default": v.batch_norm,
    "aten.group_norm.default": v.group_norm,
    "aten.rms_norm.default": v.rms_norm,
}
