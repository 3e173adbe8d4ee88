// RUN: tf-opt %s -p tf-fold-constants | filecheck %s
// RUN: tf-opt %s -p canonicalize | filecheck %s --check-prefix=CANON
// RUN: tf-run %s --function bf16_add | filecheck %s --check-prefix=RUN-BF16
// RUN: tf-run %s --function bf16_cast_overflow | filecheck %s --check-prefix=RUN-CAST
// RUN: tf-run %s --function i64_add_overflow | filecheck %s --check-prefix=RUN-ADD
// RUN: tf-run %s --function i64_neg_min | filecheck %s --check-prefix=RUN-NEG
// RUN: tf-run %s --function bf16_sum | filecheck %s --check-prefix=RUN-SUM
// RUN: tf-run %s --function f32_signs_and_denormals | filecheck %s --check-prefix=RUN-F32
// RUN: tf-run %s --function nan_to_int | filecheck %s --check-prefix=RUN-CAST-INT
// RUN: tf-opt %s -p tf-fold-constants -o %t.mlir
// RUN: tf-run %t.mlir --function bf16_add | filecheck %s --check-prefix=RUN-BF16
// RUN: tf-run %t.mlir --function bf16_sum | filecheck %s --check-prefix=RUN-SUM
// RUN: tf-run %t.mlir --function f32_signs_and_denormals | filecheck %s --check-prefix=RUN-F32

// The folder bakes in exactly what the interpreter computes (docs/ir.md, "Numeric semantics"),
// and nothing that is not a defined value.

tf.module @numerics {
  // bf16 is rounded to bf16 after each op (ties to even): 1 + 2^-8 and 3 + 2^-7 are ties, to
  // 1 and 3, in the interpreter and in the folded literal alike.
  hir.func @bf16_add() -> tensor<2xbf16> {
    %a = tf.constant dense<[1.0, 3.0]> : tensor<2xbf16>
    %b = tf.constant dense<[0.00390625, 0.0078125]> : tensor<2xbf16>
    %c = tf.call tf.math.binary<kind = add>(%a, %b) : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
    hir.return %c : tensor<2xbf16>
  }
  // Past the largest bf16 (3.3895e38) a cast rounds to +inf: an inf is never folded, and the
  // valid constant is no internal error.
  hir.func @bf16_cast_overflow() -> tensor<1xbf16> {
    %a = tf.constant dense<3.4e38> : tensor<1xf32>
    %c = tf.call tf.math.cast<dtype = bf16>(%a) : (tensor<1xf32>) -> tensor<1xbf16>
    hir.return %c : tensor<1xbf16>
  }
  // The largest finite f32 rounds to the largest bf16 only below the midpoint: this one is
  // 0x7F7F7FFF, just below it, so it folds to 0x7F7F (3.389531e+38).
  hir.func @bf16_cast_largest() -> tensor<1xbf16> {
    %a = tf.constant dense<0x7F7F7FFF> : tensor<1xf32>
    %c = tf.call tf.math.cast<dtype = bf16>(%a) : (tensor<1xf32>) -> tensor<1xbf16>
    hir.return %c : tensor<1xbf16>
  }
  // i64 overflow wraps in the interpreter; the folder leaves it alone (the check is exact
  // integer arithmetic, not float64).
  hir.func @i64_add_overflow() -> tensor<1xi64> {
    %a = tf.constant dense<4611686018427387904> : tensor<1xi64>
    %c = tf.call tf.math.binary<kind = add>(%a, %a) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
    hir.return %c : tensor<1xi64>
  }
  hir.func @i64_neg_min() -> tensor<1xi64> {
    %a = tf.constant dense<-9223372036854775808> : tensor<1xi64>
    %c = tf.call tf.math.unary<kind = neg>(%a) : (tensor<1xi64>) -> tensor<1xi64>
    hir.return %c : tensor<1xi64>
  }
  // Exact past 2^53, where float64 is not: 2^62 - 1 + 2^62 is the largest i64, and folds.
  hir.func @i64_add_largest() -> tensor<1xi64> {
    %a = tf.constant dense<4611686018427387903> : tensor<1xi64>
    %b = tf.constant dense<4611686018427387904> : tensor<1xi64>
    %c = tf.call tf.math.binary<kind = add>(%a, %b) : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
    hir.return %c : tensor<1xi64>
  }
  // A bf16 sum accumulates in f32 and rounds once: 1 + 2^-8 + 2^-8 is 1 + 2^-7 (rounded after
  // each add it would be 1).
  hir.func @bf16_sum() -> tensor<1xbf16> {
    %a = tf.constant dense<[[1.0, 0.00390625, 0.00390625]]> : tensor<1x3xbf16>
    %s = tf.call tf.reduce.sum<axis = 1>(%a) : (tensor<1x3xbf16>) -> tensor<1xbf16>
    hir.return %s : tensor<1xbf16>
  }
  // f16 rounds to nearest even too: 2048 + 1 is a tie, to 2048.
  hir.func @f16_add() -> tensor<1xf16> {
    %a = tf.constant dense<2048.0> : tensor<1xf16>
    %b = tf.constant dense<1.0> : tensor<1xf16>
    %c = tf.call tf.math.binary<kind = add>(%a, %b) : (tensor<1xf16>, tensor<1xf16>) -> tensor<1xf16>
    hir.return %c : tensor<1xf16>
  }
  // -0.0 and denormals are values like any other: they fold, bit for bit.
  hir.func @f32_signs_and_denormals() -> tensor<2xf32> {
    %a = tf.constant dense<[-0.0, 1.0e-30]> : tensor<2xf32>
    %b = tf.constant dense<[1.0, 1.0e-15]> : tensor<2xf32>
    %c = tf.call tf.math.binary<kind = mul>(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    hir.return %c : tensor<2xf32>
  }
  // A float to an integer saturates and NaN is 0 in the interpreter; the folder leaves a cast
  // that changes a value alone.
  hir.func @nan_to_int() -> tensor<2xi8> {
    %a = tf.constant dense<[0x7FC00000, 1.0e10]> : tensor<2xf32>
    %c = tf.call tf.math.cast<dtype = i8>(%a) : (tensor<2xf32>) -> tensor<2xi8>
    hir.return %c : tensor<2xi8>
  }
}

// CHECK-LABEL: hir.func @bf16_add()
// CHECK:         %c = tf.constant dense<[1.000000e+00, 3.000000e+00]> : tensor<2xbf16>
// CHECK-LABEL: hir.func @bf16_cast_overflow()
// CHECK:         %c = tf.call tf.math.cast<dtype = bf16>(%a)
// CHECK-LABEL: hir.func @bf16_cast_largest()
// CHECK:         %c = tf.constant dense<3.389531e+38> : tensor<1xbf16>
// CHECK-LABEL: hir.func @i64_add_overflow()
// CHECK:         %c = tf.call tf.math.binary<kind = add>(%a, %a)
// CHECK-LABEL: hir.func @i64_neg_min()
// CHECK:         %c = tf.call tf.math.unary<kind = neg>(%a)
// CHECK-LABEL: hir.func @i64_add_largest()
// CHECK:         %c = tf.constant dense<9223372036854775807> : tensor<1xi64>
// CHECK-LABEL: hir.func @bf16_sum()
// CHECK:         %s = tf.constant dense<1.007812e+00> : tensor<1xbf16>
// CHECK-LABEL: hir.func @f16_add()
// CHECK:         %c = tf.constant dense<2.048000e+03> : tensor<1xf16>
// CHECK-LABEL: hir.func @f32_signs_and_denormals()
// CHECK:         %c = tf.constant dense<[-0.000000e+00, 1.401298e-45]> : tensor<2xf32>
// CHECK-LABEL: hir.func @nan_to_int()
// CHECK:         %c = tf.call tf.math.cast<dtype = i8>(%a)

// CANON-LABEL: hir.func @bf16_add()
// CANON-NEXT:    %c = tf.constant dense<[1.000000e+00, 3.000000e+00]> : tensor<2xbf16>
// CANON-LABEL: hir.func @bf16_cast_overflow()
// CANON:         tf.call tf.math.cast<dtype = bf16>
// CANON-LABEL: hir.func @bf16_cast_largest()
// CANON-NEXT:    %c = tf.constant dense<3.389531e+38> : tensor<1xbf16>
// CANON-LABEL: hir.func @i64_add_overflow()
// CANON:         tf.call tf.math.binary<kind = add>
// CANON-LABEL: hir.func @i64_neg_min()
// CANON:         tf.call tf.math.unary<kind = neg>
// CANON-LABEL: hir.func @i64_add_largest()
// CANON-NEXT:    %c = tf.constant dense<9223372036854775807> : tensor<1xi64>

// RUN-BF16:      [1. 3.]
// RUN-CAST:      [inf]
// RUN-ADD:       [-9223372036854775808]
// RUN-NEG:       [-9223372036854775808]
// RUN-SUM:       [1.0078125]
// RUN-F32:       [-0.e+00  1.e-45]
// RUN-CAST-INT:  {{\[ *0 127\]}}
