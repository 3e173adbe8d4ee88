// RUN: tf-opt %s --verify-diagnostics -p 'tf-inline{max-ops=1}'
// RUN: tf-opt %s -p 'tf-inline{max-ops=2}' | filecheck %s
// RUN: not tf-opt %s -p 'tf-inline{max-ops=0}' 2>&1 | filecheck %s --check-prefix=ZERO

// max-ops bounds the ops inlining copies into the tree (here the 2 ops of @twice's body, less
// its terminator). Past it, the function where the count passes it is named, at its
// definition, and nothing is inlined; at the bound it is inlined.

tf.module @small entry @main {
  // expected-error @+1 {{pass 'tf-inline' failed: inlining would copy more than 1 ops (max-ops), past it in '@main'; nothing was inlined; raise tf-inline{max-ops=N} or inline less}}
  hir.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @twice(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %a : tensor<4xf32>
  }
  hir.func @twice(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call tf.math.unary<kind = neg>(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
}

// CHECK-LABEL: hir.func @main(
// CHECK-NEXT:    tf.call tf.math.unary<kind = neg>(%x)
// CHECK-NEXT:    tf.call tf.math.unary<kind = neg>(
// CHECK-NEXT:    hir.return

// ZERO: tf-opt: error: invalid pass pipeline 'tf-inline{max-ops=0}': pass 'tf-inline': max-ops must be at least 1 and at most 1000000 (each copied op is held in memory), got 0 (at column 1)
