// RUN: %python -m tilefoundry.testing.same_results %s -p tf-fold-constants | filecheck %s --check-prefix=SAME
// RUN: %python -m tilefoundry.testing.same_results %s -p canonicalize | filecheck %s --check-prefix=SAME
// RUN: %python -m tilefoundry.testing.same_results %s -p 'tf-inline,canonicalize,cse' | filecheck %s --check-prefix=SAME
// RUN: tf-opt %s -p tf-inline,canonicalize | filecheck %s

// Found by translation validation (tests/unit/transforms/test_transforms_translation_validation.py): a
// bf16 op on literals folded to the bf16-rounded value while the interpreter ran it in float32
// unrounded ([1.0, 3.0] + [2^-8, 2^-7] ran as [1.0039062, 3.0078125], folded to [1.0, 3.0]);
// inlined, a callee's bf16 ops on literal arguments folded the same way. Fixed by
// the numeric semantics (bf16 results rounded after each op, in the interpreter as in the folder).

tf.module @m entry @main {
  hir.func @main() -> tensor<2xbf16> {
    %a = tf.constant dense<[0x3F80, 0x4040]> : tensor<2xbf16>
    %b = tf.constant dense<[0x3B80, 0x3C00]> : tensor<2xbf16>
    %s = tf.call tf.math.binary<kind = add>(%a, %b) : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
    %t = tf.call @scale(%s) : (tensor<2xbf16>) -> tensor<2xbf16>
    hir.return %t : tensor<2xbf16>
  }
  hir.func @scale(%x: tensor<2xbf16>) -> tensor<2xbf16> {
    %c = tf.constant dense<0x3F81> : tensor<2xbf16>
    %m = tf.call tf.math.binary<kind = mul>(%x, %c) : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
    %e = tf.call tf.math.unary<kind = exp>(%m) : (tensor<2xbf16>) -> tensor<2xbf16>
    hir.return %e : tensor<2xbf16>
  }
}

// SAME: same results: 2 runs

// CHECK-LABEL: hir.func @main() -> tensor<2xbf16> {
// CHECK-NEXT:    %e = tf.constant dense<[{{.*}}]> : tensor<2xbf16>
// CHECK-NEXT:    hir.return %e : tensor<2xbf16>
