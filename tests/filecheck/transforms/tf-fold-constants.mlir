// RUN: tf-opt %s --split-input-file -p tf-fold-constants --print-debuginfo | filecheck %s
// RUN: tf-opt %s --split-input-file -p 'tf-fold-constants{max-elements=2}' | filecheck %s --check-prefix=LIMIT

// A pure op call on constants becomes a constant; it keeps the call's binding and span.

tf.module @fold {
  hir.func @f() -> tensor<4xf32> {
    %a = tf.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> loc("m.py":1:1)
    %b = tf.call tf.math.binary<kind = mul>(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("b"("m.py":2:5 to 2:11))
    %c = tf.call tf.math.unary<kind = neg>(%b) : (tensor<4xf32>) -> tensor<4xf32> loc("m.py":3:5)
    hir.return %c : tensor<4xf32>
  }
}

// CHECK-LABEL: hir.func @f() -> tensor<4xf32> {
// CHECK-NEXT:    %a = tf.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32> loc("a"("m.py":1:1))
// CHECK-NEXT:    %b = tf.constant dense<[1.000000e+00, 4.000000e+00, 9.000000e+00, 1.600000e+01]> : tensor<4xf32> loc("b"("m.py":2:5 to 2:11))
// CHECK-NEXT:    %c = tf.constant dense<[-1.000000e+00, -4.000000e+00, -9.000000e+00, -1.600000e+01]> : tensor<4xf32> loc("c"("m.py":3:5))
// CHECK-NEXT:    hir.return %c : tensor<4xf32>

// LIMIT-LABEL: hir.func @f() -> tensor<4xf32> {
// LIMIT:         %b = tf.call tf.math.binary<kind = mul>(%a, %a)
// LIMIT:         %c = tf.call tf.math.unary<kind = neg>(%b)

// -----

// Not folded: a call with a non-constant argument, a call of a function, an effect-form call.

tf.module @keep {
  hir.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
    %a = tf.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %b = tf.call tf.math.binary<kind = add>(%a, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %c = tf.call @g(%a) : (tensor<2xf32>) -> tensor<2xf32>
    tf.call tf.memory.copy(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> ()
    hir.return %b : tensor<2xf32>
  }
  hir.func @g(%x: tensor<2xf32>) -> tensor<2xf32> {
    hir.return %x : tensor<2xf32>
  }
}

// CHECK-LABEL: hir.func @f(%x: tensor<2xf32> loc(unknown)) -> tensor<2xf32> {
// CHECK-NEXT:    %a = tf.constant
// CHECK-NEXT:    %b = tf.call tf.math.binary<kind = add>(%a, %x)
// CHECK-NEXT:    %c = tf.call @g(%a)
// CHECK-NEXT:    tf.call tf.memory.copy(%a, %a)

// -----

// Multi-output and integer results fold too; a tuple projection of a folded tuple is left to
// tf-simplify (the tuple value is not a tensor constant).

tf.module @kinds {
  hir.func @f() -> tensor<2xi1> {
    %a = tf.constant dense<[1, 5]> : tensor<2xi32>
    %b = tf.constant dense<[3, 3]> : tensor<2xi32>
    %lt = tf.call tf.math.binary<kind = cmp_lt>(%a, %b) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %s = tf.call tf.reduce.sum<axis = 0>(%a) : (tensor<2xi32>) -> tensor<i32>
    hir.return %lt : tensor<2xi1>
  }
}

// CHECK-LABEL: hir.func @f() -> tensor<2xi1> {
// CHECK:         %lt = tf.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT:    %s = tf.constant dense<6> : tensor<i32>
