// RUN: tf-opt %s --split-input-file -p tf-simplify --print-debuginfo | filecheck %s

// A projection of a tf.tuple forwards the element.

tf.module @tuple {
  hir.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %t = tf.tuple %a, %b : tuple<tensor<4xf32>, tensor<4xf32>>
    %x = tf.call tf.tuple.get_item<index = 1>(%t) : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
    %y = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// CHECK-LABEL: hir.func @f(%a: tensor<4xf32> loc(unknown), %b: tensor<4xf32> loc(unknown)) -> tensor<4xf32> {
// CHECK-NEXT:    %y = tf.call tf.math.unary<kind = exp>(%b) : (tensor<4xf32>) -> tensor<4xf32> loc("y")
// CHECK-NEXT:    hir.return %y : tensor<4xf32>

// -----

// A cast to the value's own dtype, and an identity transpose, are the value.

tf.module @noops {
  hir.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %c = tf.call tf.math.cast<dtype = f32>(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %t = tf.call tf.linalg.transpose<perm = [0, 1]>(%c) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    hir.return %t : tensor<2x3xf32>
  }
}

// CHECK-LABEL: hir.func @f(%a: tensor<2x3xf32> loc(unknown)) -> tensor<2x3xf32> {
// CHECK-NEXT:    hir.return %a : tensor<2x3xf32>

// -----

// Two transposes compose into one; the new call keeps the outer call's binding and span.

tf.module @transposes {
  hir.func @f(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
    %t = tf.call tf.linalg.transpose<perm = [1, 2, 0]>(%a) : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
    %u = tf.call tf.linalg.transpose<perm = [1, 2, 0]>(%t) : (tensor<3x4x2xf32>) -> tensor<4x2x3xf32> loc("m.py":7:3)
    hir.return %u : tensor<4x2x3xf32>
  }
}

// CHECK-LABEL: hir.func @f(%a: tensor<2x3x4xf32> loc(unknown)) -> tensor<4x2x3xf32> {
// CHECK-NEXT:    %u = tf.call tf.linalg.transpose<perm = [2, 0, 1]>(%a) : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32> loc("u"("m.py":7:3))
// CHECK-NEXT:    hir.return %u : tensor<4x2x3xf32>
