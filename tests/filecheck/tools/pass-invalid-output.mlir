// RUN: not tf-opt %s --plugin broken_pass -p test-break-return 2>&1 | filecheck %s
// RUN: not tf-opt %s --plugin broken_pass -p 'tf.module(hir.func(test-break-return))' 2>&1 | filecheck %s

// A pass whose output fails the verifier is the pass's bug: the report names the pass and the
// op that fails (a new op the input never had: at the closest op the input has), one line and
// a caret, never `internal error` and never a complaint about the (valid) input.

tf.module @m {
  hir.func @f(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<f32> {
    hir.return %s : tensor<f32>
  }
}

// CHECK:      pass-invalid-output.mlir:9:3: error: pass 'test-break-return' produced invalid IR: 'hir.return' op returns tensor<4xf32>, but function '@f' returns tensor<f32>
// CHECK-NEXT:   hir.func @f(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<f32> {
// CHECK-NEXT:   ^
// CHECK-NOT:  error
