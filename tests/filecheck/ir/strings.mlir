// RUN: %roundtrip
// RUN: %generic-roundtrip
// RUN: %fixpoint
// RUN: tf-opt %s --print-debuginfo | filecheck %s --check-prefix=LOC

// Quoted symbol names and non-ASCII strings print so that tf-opt and upstream mlir-opt read
// them back (interop/mlir-opt-roundtrip.test): symbols that are not identifiers are quoted, a
// string's non-ASCII bytes are escaped (`\C3\A9`), as MLIR prints them, and an SSA name that is
// not ASCII is printed as a number (the binding stays in the location).

tf.module @"top level" name "café" entry @"a b" {
  hir.func @"a b"(%x: tensor<4xf32> loc("déjà vu.py":1:2)) -> tensor<4xf32> {
    %y = tf.call @"c d"::@"café"(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("naïve"("ñ.py":3:4))
    hir.return %y : tensor<4xf32>
  }
  tf.module @"c d" {
    hir.func @"café"(%x: tensor<4xf32>) -> tensor<4xf32> {
      hir.return %x : tensor<4xf32>
    }
  }
}

// CHECK-LABEL: tf.module @"top level" name "caf\C3\A9" entry @"a b" {
// CHECK-NEXT:    hir.func @"a b"(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:      %0 = tf.call @"c d"::@"caf\C3\A9"(%x) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:      hir.return %0 : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tf.module @"c d" {
// CHECK-NEXT:      hir.func @"caf\C3\A9"(%x: tensor<4xf32>) -> tensor<4xf32> {

// LOC:       hir.func @"a b"(%x: tensor<4xf32> loc("d\C3\A9j\C3\A0 vu.py":1:2)) -> tensor<4xf32> {
// LOC-NEXT:    %0 = tf.call @"c d"::@"caf\C3\A9"(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("na\C3\AFve"("\C3\B1.py":3:4))
