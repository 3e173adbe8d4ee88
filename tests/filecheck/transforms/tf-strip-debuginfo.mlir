// RUN: tf-opt %s -p tf-strip-debuginfo --print-debuginfo | filecheck %s

// All metadata goes: every location becomes unknown, and no binding name is left.

tf.module @m {
  hir.func @f(%x: tensor<4xf32> loc("m.py":1:7)) -> tensor<4xf32> {
    %h = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("h"("m.py":3:4 to 3:12))
    hir.return %h : tensor<4xf32> loc("m.py":4:5)
  } loc("m.py":1:1)
} loc("m.py":0:0)

// CHECK:      tf.module @m {
// CHECK-NEXT:   hir.func @f(%x: tensor<4xf32> loc(unknown)) -> tensor<4xf32> {
// CHECK-NEXT:     %0 = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32> loc(unknown)
// CHECK-NEXT:     hir.return %0 : tensor<4xf32> loc(unknown)
// CHECK-NEXT:   } loc(unknown)
// CHECK-NEXT: } loc(unknown)

// A TIR function loses its metadata the same way, statements and their bodies included.

tf.module @k {
  tir.prim_func @p(%x: tensor<4xf32> loc("k.py":1:7), %out: !tf.buffer<4xf32>) -> () {
    %y = tir.let tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("k.py":2:5) loc("y"("k.py":2:1))
    tir.evaluate tf.call tf.memory.copy(%out, %y) : (!tf.buffer<4xf32>, tensor<4xf32>) -> () loc("k.py":3:5) loc("k.py":3:1)
    tir.return loc("k.py":4:1)
  } loc("k.py":1:1)
} loc("k.py":0:0)

// CHECK:      tf.module @k {
// CHECK-NEXT:   tir.prim_func @p(%x: tensor<4xf32> loc(unknown), %out: !tf.buffer<4xf32> loc(unknown)) -> () {
// CHECK-NEXT:     %0 = tir.let tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32> loc(unknown) loc(unknown)
// CHECK-NEXT:     tir.evaluate tf.call tf.memory.copy(%out, %0) : (!tf.buffer<4xf32>, tensor<4xf32>) -> () loc(unknown) loc(unknown)
// CHECK-NEXT:     tir.return loc(unknown)
// CHECK-NEXT:   } loc(unknown)
// CHECK-NEXT: } loc(unknown)
