// `canonicalize` and `dce` on an anchor op work on every region of it, as MLIR's passes do:
// on a `hir.func`, its `variants` too (xDSL's `apply` reads `op.body` only).
// RUN: tf-opt %s -p 'tf.module(hir.func(dce))' | filecheck %s
// RUN: tf-opt %s -p 'tf.module(hir.func(canonicalize))' | filecheck %s

tf.module @m {
  hir.func @f(%x: tensor<?x8xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>> {
    %dead = tf.call tf.math.unary<kind = exp>(%x) : (tensor<?x8xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
    hir.return %x : tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
  } variants {
    hir.variant [n: 1 to 4097] (%x: tensor<?x8xf32, #tf.dims<n: 1 to 4097>>) {
      %dead = tf.call tf.math.unary<kind = exp>(%x) : (tensor<?x8xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
      hir.return %x : tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
    }
  }
}

// CHECK-LABEL: hir.func @f(
// CHECK-NEXT:    hir.return %x
// CHECK:       } variants {
// CHECK-NEXT:    hir.variant [n: 1 to 4097]
// CHECK-NEXT:      hir.return %x
// CHECK-NOT:   tf.call
