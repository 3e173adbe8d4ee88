// RUN: %roundtrip
// RUN: %generic-roundtrip
// RUN: %generic-form
// RUN: %fixpoint

// The nn ops (tilefoundry/ops/nn.py): activation, softmax, mean, cumsum, logic; defaults elided.

tf.module @nn_ops {
  hir.func @f(%x: tensor<4x8xf32>, %p: tensor<4x8xi1>, %q: tensor<8xi1>, %k: tensor<4x8xi64>) -> tensor<4x8xf32> {
    %a = tf.call tf.nn.activation<kind = silu>(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %g = tf.call tf.nn.activation<kind = gelu_tanh>(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %s = tf.call tf.nn.softmax<axis = -1>(%g) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %m = tf.call tf.reduce.mean<axis = -1, keepdims = true>(%s) : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %m2 = tf.call tf.reduce.mean<axis = 0, keepdims = false>(%s) : (tensor<4x8xf32>) -> tensor<8xf32>
    %c = tf.call tf.reduce.cumsum<axis = 1>(%k) : (tensor<4x8xi64>) -> tensor<4x8xi64>
    %l = tf.call tf.logic.binary<kind = and>(%p, %q) : (tensor<4x8xi1>, tensor<8xi1>) -> tensor<4x8xi1>
    %n = tf.call tf.logic.not(%l) : (tensor<4x8xi1>) -> tensor<4x8xi1>
    hir.return %s : tensor<4x8xf32>
  }
}

// CHECK-LABEL: tf.module @nn_ops {
// CHECK-NEXT:    hir.func @f(%x: tensor<4x8xf32>, %p: tensor<4x8xi1>, %q: tensor<8xi1>, %k: tensor<4x8xi64>) -> tensor<4x8xf32> {
// CHECK-NEXT:      %a = tf.call tf.nn.activation<kind = silu>(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:      %g = tf.call tf.nn.activation<kind = gelu_tanh>(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:      %s = tf.call tf.nn.softmax<axis = -1>(%g) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:      %m = tf.call tf.reduce.mean<axis = -1, keepdims = true>(%s) : (tensor<4x8xf32>) -> tensor<4x1xf32>
// CHECK-NEXT:      %m2 = tf.call tf.reduce.mean<axis = 0>(%s) : (tensor<4x8xf32>) -> tensor<8xf32>
// CHECK-NEXT:      %c = tf.call tf.reduce.cumsum<axis = 1>(%k) : (tensor<4x8xi64>) -> tensor<4x8xi64>
// CHECK-NEXT:      %l = tf.call tf.logic.binary<kind = and>(%p, %q) : (tensor<4x8xi1>, tensor<8xi1>) -> tensor<4x8xi1>
// CHECK-NEXT:      %n = tf.call tf.logic.not(%l) : (tensor<4x8xi1>) -> tensor<4x8xi1>
// CHECK-NEXT:      hir.return %s : tensor<4x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// GENERIC-LABEL: "tf.module"() <{sym_name = "nn_ops"}> ({
// GENERIC:      %a = "tf.call"(%x) <{callee = #tf.op<tf.nn.activation<kind = silu>>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC:      %g = "tf.call"(%a) <{callee = #tf.op<tf.nn.activation<kind = gelu_tanh>>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC:      %s = "tf.call"(%g) <{callee = #tf.op<tf.nn.softmax<axis = -1>>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC:      %m = "tf.call"(%s) <{callee = #tf.op<tf.reduce.mean<axis = -1, keepdims = true>>}> : (tensor<4x8xf32>) -> tensor<4x1xf32>
// GENERIC:      %m2 = "tf.call"(%s) <{callee = #tf.op<tf.reduce.mean<axis = 0>>}> : (tensor<4x8xf32>) -> tensor<8xf32>
// GENERIC:      %c = "tf.call"(%k) <{callee = #tf.op<tf.reduce.cumsum<axis = 1>>}> : (tensor<4x8xi64>) -> tensor<4x8xi64>
// GENERIC:      %l = "tf.call"(%p, %q) <{callee = #tf.op<tf.logic.binary<kind = and>>}> : (tensor<4x8xi1>, tensor<8xi1>) -> tensor<4x8xi1>
// GENERIC:      %n = "tf.call"(%l) <{callee = #tf.op<tf.logic.not>}> : (tensor<4x8xi1>) -> tensor<4x8xi1>
