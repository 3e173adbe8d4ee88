// RUN: not tf-opt %s --split-input-file --verify-diagnostics > %t 2>&1
// RUN: filecheck %s --input-file %t
// RUN: not grep Traceback %t

// MLIR's --verify-diagnostics: an unmet expectation and an unexpected diagnostic both fail.

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{this text is not in the message}}
    %y = tf.call tf.math.binary<kind = add>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}
// CHECK-DAG: error: unexpected error at line [[# @LINE - 4]]: 'tf.call' op tf.math.binary expects 2 argument(s)
// CHECK-DAG: error: expected error "this text is not in the message" at line [[# @LINE - 5]] (annotated at line [[# @LINE - 6]]) was not produced

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error {{expects 2 argument(s)}}
    hir.return %x : tensor<4xf32>
  }
}
// CHECK-DAG: error: expected error "expects 2 argument(s)" at line [[# @LINE - 4]] (annotated at line [[# @LINE - 4]]) was not produced

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xi32>
    hir.return %x : tensor<4xf32>
  }
}
// CHECK-DAG: error: unexpected error at line [[# @LINE - 4]]: 'tf.call' op result type tensor<4xi32>
