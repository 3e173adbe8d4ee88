// RUN: tf-opt %s -p tf-simplify | filecheck %s
// RUN: tf-opt %s -p canonicalize | filecheck %s --check-prefix=FOLD
// RUN: %python -m tilefoundry.testing.same_results %s -p tf-simplify | filecheck %s --check-prefix=SAME

// Found by translation validation (seed 473, tf-simplify): composing transposes read the
// first operand of the call that defines the transpose's operand before asking whether that
// call is a transpose; a `tf.tensor.full` has no operand, and tf-opt stopped with an internal
// error. Only a transpose of a transpose is composed.

tf.module @m entry @main {
  hir.func @main() -> tensor<3x2xi64> {
    %f = tf.call tf.tensor.full<shape = [2, 3], value = 7.0, dtype = i64>() : () -> tensor<2x3xi64>
    %t = tf.call tf.linalg.transpose<perm = [1, 0]>(%f) : (tensor<2x3xi64>) -> tensor<3x2xi64>
    hir.return %t : tensor<3x2xi64>
  }
}

// CHECK:      %f = tf.call tf.tensor.full<shape = [2, 3], value = 7.0, dtype = i64>()
// CHECK-NEXT: %t = tf.call tf.linalg.transpose<perm = [1, 0]>(%f)
// CHECK-NEXT: hir.return %t

// FOLD:      %t = tf.constant dense<7> : tensor<3x2xi64>
// FOLD-NEXT: hir.return %t

// SAME: same results: 1 runs
