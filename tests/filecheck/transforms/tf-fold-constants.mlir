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

// Not folded: a call with a non-constant argument, a call of a function, an effect-form call, a
// load of a buffer (whatever was copied into it).

tf.module @keep {
  hir.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
    %a = tf.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %b = tf.call tf.math.binary<kind = add>(%a, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %c = tf.call @g(%a) : (tensor<2xf32>) -> tensor<2xf32>
    tf.call @h(%a) : (tensor<2xf32>) -> ()
    hir.return %b : tensor<2xf32>
  }
  hir.func @h(%x: tensor<2xf32>) -> () {
    hir.return
  }
  hir.func @g(%x: tensor<2xf32>) -> tensor<2xf32> {
    hir.return %x : tensor<2xf32>
  }
}

// CHECK-LABEL: hir.func @f(%x: tensor<2xf32> loc(unknown)) -> tensor<2xf32> {
// CHECK-NEXT:    %a = tf.constant
// CHECK-NEXT:    %b = tf.call tf.math.binary<kind = add>(%a, %x)
// CHECK-NEXT:    %c = tf.call @g(%a)
// CHECK-NEXT:    tf.call @h(%a)

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

// -----

// TIR: a call on Vars bound to literals folds inside its statement; the statement keeps its
// binding; the literal lets stay for dce.

tf.module @tir {
  tir.prim_func @k(%out: !tf.buffer<2xf32>) -> tensor<2xf32> {
    %a = tir.let tf.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %b = tir.let tf.call tf.math.binary<kind = mul>(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("m.py":5:3)
    tir.evaluate tf.call tf.memory.copy(%out, %b) : (!tf.buffer<2xf32>, tensor<2xf32>) -> ()
    %l = tir.let tf.call tf.memory.load(%out) : (!tf.buffer<2xf32>) -> tensor<2xf32>
    %n = tir.let tf.call tf.math.unary<kind = neg>(%l) : (tensor<2xf32>) -> tensor<2xf32>
    tir.return %n : tensor<2xf32>
  }
}

// CHECK-LABEL: tir.prim_func @k(%out: !tf.buffer<2xf32> loc(unknown)) -> tensor<2xf32> {
// CHECK-NEXT:    %a = tir.let tf.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32> loc(unknown) loc("a")
// CHECK-NEXT:    %b = tir.let tf.constant dense<[1.000000e+00, 4.000000e+00]> : tensor<2xf32> loc("m.py":5:3) loc("b")
// CHECK-NEXT:    tir.evaluate tf.call tf.memory.copy(%out, %b)
// CHECK-NEXT:    %l = tir.let tf.call tf.memory.load(%out)
// CHECK-NEXT:    %n = tir.let tf.call tf.math.unary<kind = neg>(%l)
// CHECK-NEXT:    tir.return %n : tensor<2xf32>

// -----

// Never folded into a value: what is undefined or not exact in the result's dtype.

tf.module @undefined {
  hir.func @f() -> tensor<2xi32> {
    %i = tf.constant dense<[7, 8]> : tensor<2xi32>
    %zero = tf.constant dense<[1, 0]> : tensor<2xi32>
    %div0 = tf.call tf.math.binary<kind = div>(%i, %zero) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
    %neg = tf.constant dense<[-1, 2]> : tensor<2xi32>
    %negpow = tf.call tf.math.binary<kind = pow>(%i, %neg) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
    %big = tf.constant dense<[2147483647, 1]> : tensor<2xi32>
    %overflow = tf.call tf.math.binary<kind = add>(%big, %big) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
    %narrow = tf.call tf.math.cast<dtype = i8>(%big) : (tensor<2xi32>) -> tensor<2xi8>
    %f = tf.constant dense<[1.0, 0.0]> : tensor<2xf32>
    %fzero = tf.constant dense<0.0> : tensor<2xf32>
    %inf = tf.call tf.math.binary<kind = div>(%f, %fzero) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %nan = tf.call tf.math.unary<kind = log>(%fzero) : (tensor<2xf32>) -> tensor<2xf32>
    %fbig = tf.constant dense<3.0e38> : tensor<2xf32>
    %finf = tf.call tf.math.binary<kind = mul>(%fbig, %fbig) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %empty = tf.constant dense<> : tensor<0x3xf32>
    %max = tf.call tf.reduce.max<axis = 0>(%empty) : (tensor<0x3xf32>) -> tensor<3xf32>
    %sum = tf.call tf.reduce.sum<axis = 0>(%empty) : (tensor<0x3xf32>) -> tensor<3xf32>
    %ok = tf.call tf.math.binary<kind = sub>(%i, %zero) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
    hir.return %ok : tensor<2xi32>
  }
}

// CHECK-LABEL: hir.func @f() -> tensor<2xi32> {
// CHECK:         %div0 = tf.call tf.math.binary<kind = div>(%i, %zero)
// CHECK:         %negpow = tf.call tf.math.binary<kind = pow>(%i, %neg)
// CHECK:         %overflow = tf.call tf.math.binary<kind = add>(%big, %big)
// CHECK-NEXT:    %narrow = tf.call tf.math.cast<dtype = i8>(%big)
// CHECK:         %inf = tf.call tf.math.binary<kind = div>(%f, %fzero)
// CHECK-NEXT:    %nan = tf.call tf.math.unary<kind = log>(%fzero)
// CHECK:         %finf = tf.call tf.math.binary<kind = mul>(%fbig, %fbig)
// CHECK:         %max = tf.call tf.reduce.max<axis = 0>(%empty)
// CHECK-NEXT:    %sum = tf.call tf.reduce.sum<axis = 0>(%empty)
// CHECK-NEXT:    %ok = tf.constant dense<[6, 8]> : tensor<2xi32>
