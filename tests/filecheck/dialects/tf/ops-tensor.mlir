// RUN: %roundtrip
// RUN: %generic-roundtrip
// RUN: %generic-form
// RUN: %fixpoint

// The tensor ops (tilefoundry/ops/tensor.py): reshape, broadcast_to, slice, concat, index, gather, where, iota, full; defaults elided.

tf.module @tensor_ops {
  hir.func @f(%x: tensor<4x8xf32>, %y: tensor<8xf32>, %m: tensor<4x8xi1>, %ids: tensor<1x8xi64>, %i: tensor<4x2xi64>) -> tensor<4x8xf32> {
    %r = tf.call tf.tensor.reshape<shape = [2, -1]>(%x) : (tensor<4x8xf32>) -> tensor<2x16xf32>
    %b = tf.call tf.tensor.broadcast_to<shape = [3, -1, 8]>(%x) : (tensor<4x8xf32>) -> tensor<3x4x8xf32>
    %s = tf.call tf.tensor.slice<axis = 1, start = 2, stop = 6>(%x) : (tensor<4x8xf32>) -> tensor<4x4xf32>
    %s2 = tf.call tf.tensor.slice<axis = -1, start = 0, stop = 9223372036854775807, step = 2>(%x) : (tensor<4x8xf32>) -> tensor<4x4xf32>
    %t = tf.tuple %s, %s2 : tuple<tensor<4x4xf32>, tensor<4x4xf32>>
    %c = tf.call tf.tensor.concat<axis = 1>(%t) : (tuple<tensor<4x4xf32>, tensor<4x4xf32>>) -> tensor<4x8xf32>
    %it = tf.tuple %ids : tuple<tensor<1x8xi64>>
    %e = tf.call tf.tensor.index(%x, %it) : (tensor<4x8xf32>, tuple<tensor<1x8xi64>>) -> tensor<1x8x8xf32>
    %g = tf.call tf.tensor.gather<axis = 1>(%x, %i) : (tensor<4x8xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
    %w = tf.call tf.tensor.where(%m, %c, %y) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %a = tf.call tf.tensor.iota<size = 8>() : () -> tensor<8xi64>
    %a2 = tf.call tf.tensor.iota<start = 2, step = 3, size = 4, dtype = "i32">() : () -> tensor<4xi32>
    %f = tf.call tf.tensor.full<shape = [2, 2], value = 1.500000e+00>() : () -> tensor<2x2xf32>
    %f2 = tf.call tf.tensor.full<shape = [8], value = 1.000000e+00, dtype = "i1">() : () -> tensor<8xi1>
    hir.return %w : tensor<4x8xf32>
  }
}

// CHECK-LABEL: tf.module @tensor_ops {
// CHECK-NEXT:    hir.func @f(%x: tensor<4x8xf32>, %y: tensor<8xf32>, %m: tensor<4x8xi1>, %ids: tensor<1x8xi64>, %i: tensor<4x2xi64>) -> tensor<4x8xf32> {
// CHECK-NEXT:      %r = tf.call tf.tensor.reshape<shape = [2, -1]>(%x) : (tensor<4x8xf32>) -> tensor<2x16xf32>
// CHECK-NEXT:      %b = tf.call tf.tensor.broadcast_to<shape = [3, -1, 8]>(%x) : (tensor<4x8xf32>) -> tensor<3x4x8xf32>
// CHECK-NEXT:      %s = tf.call tf.tensor.slice<axis = 1, start = 2, stop = 6>(%x) : (tensor<4x8xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:      %s2 = tf.call tf.tensor.slice<axis = -1, stop = 9223372036854775807, step = 2>(%x) : (tensor<4x8xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:      %t = tf.tuple %s, %s2 : tuple<tensor<4x4xf32>, tensor<4x4xf32>>
// CHECK-NEXT:      %c = tf.call tf.tensor.concat<axis = 1>(%t) : (tuple<tensor<4x4xf32>, tensor<4x4xf32>>) -> tensor<4x8xf32>
// CHECK-NEXT:      %it = tf.tuple %ids : tuple<tensor<1x8xi64>>
// CHECK-NEXT:      %e = tf.call tf.tensor.index(%x, %it) : (tensor<4x8xf32>, tuple<tensor<1x8xi64>>) -> tensor<1x8x8xf32>
// CHECK-NEXT:      %g = tf.call tf.tensor.gather<axis = 1>(%x, %i) : (tensor<4x8xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
// CHECK-NEXT:      %w = tf.call tf.tensor.where(%m, %c, %y) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:      %a = tf.call tf.tensor.iota<size = 8>() : () -> tensor<8xi64>
// CHECK-NEXT:      %a2 = tf.call tf.tensor.iota<start = 2, step = 3, size = 4, dtype = i32>() : () -> tensor<4xi32>
// CHECK-NEXT:      %f = tf.call tf.tensor.full<shape = [2, 2], value = 1.5>() : () -> tensor<2x2xf32>
// CHECK-NEXT:      %f2 = tf.call tf.tensor.full<shape = [8], value = 1.0, dtype = i1>() : () -> tensor<8xi1>
// CHECK-NEXT:      hir.return %w : tensor<4x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// GENERIC-LABEL: "tf.module"() <{sym_name = "tensor_ops"}> ({
// GENERIC:      %r = "tf.call"(%x) <{callee = #tf.op<tf.tensor.reshape<shape = [2, -1]>>}> : (tensor<4x8xf32>) -> tensor<2x16xf32>
// GENERIC:      %b = "tf.call"(%x) <{callee = #tf.op<tf.tensor.broadcast_to<shape = [3, -1, 8]>>}> : (tensor<4x8xf32>) -> tensor<3x4x8xf32>
// GENERIC:      %s = "tf.call"(%x) <{callee = #tf.op<tf.tensor.slice<axis = 1, start = 2, stop = 6>>}> : (tensor<4x8xf32>) -> tensor<4x4xf32>
// GENERIC:      %s2 = "tf.call"(%x) <{callee = #tf.op<tf.tensor.slice<axis = -1, stop = 9223372036854775807, step = 2>>}> : (tensor<4x8xf32>) -> tensor<4x4xf32>
// GENERIC:      %c = "tf.call"(%t) <{callee = #tf.op<tf.tensor.concat<axis = 1>>}> : (tuple<tensor<4x4xf32>, tensor<4x4xf32>>) -> tensor<4x8xf32>
// GENERIC:      %e = "tf.call"(%x, %it) <{callee = #tf.op<tf.tensor.index>}> : (tensor<4x8xf32>, tuple<tensor<1x8xi64>>) -> tensor<1x8x8xf32>
// GENERIC:      %g = "tf.call"(%x, %i) <{callee = #tf.op<tf.tensor.gather<axis = 1>>}> : (tensor<4x8xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
// GENERIC:      %w = "tf.call"(%m, %c, %y) <{callee = #tf.op<tf.tensor.where>}> : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// GENERIC:      %a = "tf.call"() <{callee = #tf.op<tf.tensor.iota<size = 8>>}> : () -> tensor<8xi64>
// GENERIC:      %a2 = "tf.call"() <{callee = #tf.op<tf.tensor.iota<start = 2, step = 3, size = 4, dtype = i32>>}> : () -> tensor<4xi32>
// GENERIC:      %f = "tf.call"() <{callee = #tf.op<tf.tensor.full<shape = [2, 2], value = 1.5>>}> : () -> tensor<2x2xf32>
// GENERIC:      %f2 = "tf.call"() <{callee = #tf.op<tf.tensor.full<shape = [8], value = 1.0, dtype = i1>>}> : () -> tensor<8xi1>
