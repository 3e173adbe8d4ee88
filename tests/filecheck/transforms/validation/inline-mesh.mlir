// RUN: %python -m tilefoundry.testing.same_results %s -p tf-inline | filecheck %s --check-prefix=SAME
// RUN: %python -m tilefoundry.testing.same_results %s -p 'tf-inline,canonicalize,tf-prune-unreachable' | filecheck %s --check-prefix=SAME
// RUN: tf-opt %s -p tf-inline | filecheck %s

// Found by translation validation: tf-inline put a callee's `tf.mesh "cta"` into the caller's
// `tf.mesh "cta"` (and `"warp"`), and the verifier refused the pass's own output. Fixed by
// tf-inline (a call whose callee's meshes cannot nest where the call is stays a call).

tf.module @m target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>, #tf.topology<"warp", 4>] entry @main {
  hir.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.mesh "cta" {
      %a = tf.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
      tf.yield %a : tensor<4xf32>
    } : tensor<4xf32>
    %z = tf.mesh "cta" {
      %w = tf.mesh "warp" {
        %b = tf.call @f(%y) : (tensor<4xf32>) -> tensor<4xf32>
        tf.yield %b : tensor<4xf32>
      } : tensor<4xf32>
      tf.yield %w : tensor<4xf32>
    } : tensor<4xf32>
    hir.return %z : tensor<4xf32>
  }
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.mesh "cta" {
      %e = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
      tf.yield %e : tensor<4xf32>
    } : tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// SAME: same results: 2 runs

// CHECK-LABEL: hir.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK:         tf.mesh "cta" {
// CHECK-NEXT:      %a = tf.call @f(%x)
// CHECK:         tf.mesh "warp" {
// CHECK-NEXT:      %b = tf.call @f(%y)
