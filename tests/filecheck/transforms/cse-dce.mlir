// RUN: tf-opt %s -p cse,dce | filecheck %s

// xDSL's generic cse and dce see a value-form call of a pure op as pure, and an effect-form call
// (or a call of a function) as having effects.

tf.module @m {
  hir.func @f(%x: tensor<4xf32>, %d: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %unused = tf.call tf.math.unary<kind = log>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %c = tf.constant dense<1.0> : tensor<4xf32>
    tf.call tf.memory.copy(%d, %x) : (tensor<4xf32>, tensor<4xf32>) -> ()
    %g = tf.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %s = tf.call tf.math.binary<kind = add>(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %s : tensor<4xf32>
  }
  hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
}

// CHECK-LABEL: hir.func @f(%x: tensor<4xf32>, %d: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %a = tf.call tf.math.unary<kind = exp>(%x)
// CHECK-NEXT:    tf.call tf.memory.copy(%d, %x)
// CHECK-NEXT:    %g = tf.call @g(%x)
// CHECK-NEXT:    %s = tf.call tf.math.binary<kind = add>(%a, %a)
// CHECK-NEXT:    hir.return %s : tensor<4xf32>
