// RUN: tf-opt %s --split-input-file -p 'tf.module(tf.module(tf-prune-unreachable))' | filecheck %s

// A child module pruned on its own keeps what its parent calls in it: @used is reachable from
// outside the child (the parent's @main calls it), @unused from nowhere.

tf.module @m entry @main {
  hir.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call @c::@used(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
  tf.module @c entry @e {
    hir.func @e(%x: tensor<4xf32>) -> tensor<4xf32> {
      hir.return %x : tensor<4xf32>
    }
    hir.func @used(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = tf.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
      hir.return %y : tensor<4xf32>
    }
    hir.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
      hir.return %x : tensor<4xf32>
    }
    hir.func @unused(%x: tensor<4xf32>) -> tensor<4xf32> {
      hir.return %x : tensor<4xf32>
    }
  }
}

// CHECK-LABEL: tf.module @m entry @main {
// CHECK:         tf.call @c::@used(
// CHECK:         tf.module @c entry @e {
// CHECK-NEXT:      hir.func @e(
// CHECK:           hir.func @used(
// CHECK:           hir.func @helper(
// CHECK-NOT:       @unused

// -----

// A child that nothing outside calls keeps only what its own entry reaches.

tf.module @r entry @main {
  hir.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call @a::@f(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
  tf.module @a entry @f {
    hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      hir.return %x : tensor<4xf32>
    }
  }
  tf.module @b entry @g {
    hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
      hir.return %x : tensor<4xf32>
    }
    hir.func @dropped(%x: tensor<4xf32>) -> tensor<4xf32> {
      hir.return %x : tensor<4xf32>
    }
  }
}

// CHECK-LABEL: tf.module @r entry @main {
// CHECK:         tf.module @a entry @f {
// CHECK-NEXT:      hir.func @f(
// CHECK:         tf.module @b entry @g {
// CHECK-NEXT:      hir.func @g(
// CHECK-NOT:       @dropped
