// RUN: %roundtrip
// RUN: %generic-roundtrip
// RUN: %generic-form
// RUN: %fixpoint

// The windowed ops (tilefoundry/ops/conv.py): conv, pool, topk; defaults elided.

tf.module @conv_ops {
  hir.func @f(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %d: tensor<6x1x3x3xf32>, %s: tensor<2x4x11xbf16>) -> tensor<2x4x2xf32> {
    %y = tf.call tf.nn.conv<stride = [1, 1], padding = [1, 1]>(%x, %w) : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
    %z = tf.call tf.nn.conv<stride = [2, 1], padding = [0, 2], dilation = [1, 2], groups = 3>(%x, %d) : (tensor<2x3x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<2x6x3x8xf32>
    %m = tf.call tf.nn.pool<kind = max, kernel = [2, 2], stride = [2, 2], padding = [0, 0]>(%y) : (tensor<2x4x8x8xf32>) -> tensor<2x4x4x4xf32>
    %a = tf.call tf.nn.pool<kind = avg, kernel = [3], stride = [2], padding = [1], count_include_pad = false>(%s) : (tensor<2x4x11xbf16>) -> tensor<2x4x6xbf16>
    %t = tf.call tf.tensor.topk<k = 2, axis = 2, largest = false>(%m) : (tensor<2x4x4x4xf32>) -> tuple<tensor<2x4x2x4xf32>, tensor<2x4x2x4xi64>>
    %v = tf.call tf.tuple.get_item<index = 0>(%t) : (tuple<tensor<2x4x2x4xf32>, tensor<2x4x2x4xi64>>) -> tensor<2x4x2x4xf32>
    %r = tf.call tf.reduce.max<axis = 3>(%v) : (tensor<2x4x2x4xf32>) -> tensor<2x4x2xf32>
    hir.return %r : tensor<2x4x2xf32>
  }
}

// CHECK-LABEL: tf.module @conv_ops {
// CHECK:      %y = tf.call tf.nn.conv<stride = [1, 1], padding = [1, 1]>(%x, %w) : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
// CHECK-NEXT: %z = tf.call tf.nn.conv<stride = [2, 1], padding = [0, 2], dilation = [1, 2], groups = 3>(%x, %d)
// CHECK-NEXT: %m = tf.call tf.nn.pool<kind = max, kernel = [2, 2], stride = [2, 2], padding = [0, 0]>(%y)
// CHECK-NEXT: %a = tf.call tf.nn.pool<kind = avg, kernel = [3], stride = [2], padding = [1], count_include_pad = false>(%s) : (tensor<2x4x11xbf16>) -> tensor<2x4x6xbf16>
// CHECK-NEXT: %t = tf.call tf.tensor.topk<k = 2, axis = 2, largest = false>(%m) : (tensor<2x4x4x4xf32>) -> tuple<tensor<2x4x2x4xf32>, tensor<2x4x2x4xi64>>

// GENERIC-LABEL: "tf.module"() <{sym_name = "conv_ops"}> ({
// GENERIC:      %y = "tf.call"(%x, %w) <{callee = #tf.op<tf.nn.conv<stride = [1, 1], padding = [1, 1]>>}>
// GENERIC:      %t = "tf.call"(%m) <{callee = #tf.op<tf.tensor.topk<k = 2, axis = 2, largest = false>>}>
