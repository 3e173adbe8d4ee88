// RUN: tf-opt %s -p 'tf-lower{function=layer0.block}' | filecheck %s
// RUN: tf-opt %s -p 'tf-lower{function=@layer0::@block}' | filecheck %s
// RUN: tf-opt %s -p 'tf-select{path=layer0.block},tf-lower' | filecheck %s
// RUN: tf-opt %s -p 'tf-lower{function=helper}' | filecheck %s --check-prefix=ROOT
// RUN: tf-opt %s -p 'tf-lower{function=layer0.block}' | tf-opt | filecheck %s
// RUN: %python -m tilefoundry.testing.same_results %s -p lower | filecheck %s --check-prefix=SAME

// tf-lower{function=PATH}: lower from the function a path names (as tf-select takes it), not
// from the entry. The output is that function's module re-rooted at it: it declares the target
// and topologies it resolves and holds only what the function reaches
// (`tf-select{path=PATH},tf-lower` is the same). A root without an entry is lowered this way.

tf.module @m target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>] {
  hir.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call @layer0::@block(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
  hir.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
  tf.module @layer0 name "Block" {
    hir.func @block(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = tf.mesh "cta" {
        %e = tf.call @mlp::@mlp(%x) : (tensor<4xf32>) -> tensor<4xf32>
        tf.yield %e : tensor<4xf32>
      } : tensor<4xf32>
      hir.return %y : tensor<4xf32>
    }
    hir.func @other(%x: tensor<4xf32>) -> tensor<4xf32> {
      hir.return %x : tensor<4xf32>
    }
    tf.module @mlp {
      hir.func @mlp(%x: tensor<4xf32>) -> tensor<4xf32> {
        %e = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
        hir.return %e : tensor<4xf32>
      }
    }
  }
}

// CHECK:      tf.module @layer0 name "Block" target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>] entry @block {
// CHECK-NEXT:   tir.prim_func @block(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:     %y = tir.let tf.mesh "cta" {
// CHECK-NEXT:       %e = tf.call @mlp::@mlp(%x) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:       tf.yield %e : tensor<4xf32>
// CHECK-NEXT:     } : tensor<4xf32>
// CHECK-NEXT:     tir.return %y : tensor<4xf32>
// CHECK-NEXT:   }
// CHECK-NEXT:   tf.module @mlp {
// CHECK-NEXT:     tir.prim_func @mlp(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:       %e = tir.let tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:       tir.return %e : tensor<4xf32>
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }

// ROOT:      tf.module @m target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>] entry @helper {
// ROOT-NEXT:   tir.prim_func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
// ROOT-NEXT:     %y = tir.let tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>
// ROOT-NEXT:     tir.return %y : tensor<4xf32>
// ROOT-NEXT:   }
// ROOT-NEXT: }

// Every function (none is reached from an entry: each lowered with function=) computes what it did.
// SAME: same results: 5 runs
