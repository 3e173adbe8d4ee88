// RUN: tf-opt %s --split-input-file -p tf-simplify --print-debuginfo | filecheck %s

// A projection of a tf.tuple forwards the element.

tf.module @tuple {
  hir.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %t = tf.tuple %a, %b : tuple<tensor<4xf32>, tensor<4xf32>>
    %x = tf.call tf.tuple.get_item<index = 1>(%t) : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
    %y = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// CHECK-LABEL: hir.func @f(%a: tensor<4xf32> loc(unknown), %b: tensor<4xf32> loc(unknown)) -> tensor<4xf32> {
// CHECK-NEXT:    %y = tf.call tf.math.unary<kind = exp>(%b) : (tensor<4xf32>) -> tensor<4xf32> loc("y")
// CHECK-NEXT:    hir.return %y : tensor<4xf32>

// -----

// A cast to the value's own dtype, and an identity transpose, are the value.

tf.module @noops {
  hir.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %c = tf.call tf.math.cast<dtype = f32>(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %t = tf.call tf.linalg.transpose<perm = [0, 1]>(%c) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    hir.return %t : tensor<2x3xf32>
  }
}

// CHECK-LABEL: hir.func @f(%a: tensor<2x3xf32> loc(unknown)) -> tensor<2x3xf32> {
// CHECK-NEXT:    hir.return %a : tensor<2x3xf32>

// -----

// Two transposes compose into one; the new call keeps the outer call's binding and span.

tf.module @transposes {
  hir.func @f(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
    %t = tf.call tf.linalg.transpose<perm = [1, 2, 0]>(%a) : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
    %u = tf.call tf.linalg.transpose<perm = [1, 2, 0]>(%t) : (tensor<3x4x2xf32>) -> tensor<4x2x3xf32> loc("m.py":7:3)
    hir.return %u : tensor<4x2x3xf32>
  }
}

// CHECK-LABEL: hir.func @f(%a: tensor<2x3x4xf32> loc(unknown)) -> tensor<4x2x3xf32> {
// CHECK-NEXT:    %u = tf.call tf.linalg.transpose<perm = [2, 0, 1]>(%a) : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32> loc("u"("m.py":7:3))
// CHECK-NEXT:    hir.return %u : tensor<4x2x3xf32>

// -----

// The identities: x * 1, 1 * x, x + -0.0 (not x + 0.0: -0.0 + 0.0 is 0.0), x / 1, neg(neg(x)),
// abs(abs(x)); tf-simplify computes no literal.

tf.module @identities {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %one = tf.constant dense<1.0> : tensor<4xf32>
    %nz = tf.constant dense<-0.0> : tensor<4xf32>
    %z = tf.constant dense<0.0> : tensor<4xf32>
    %a = tf.call tf.math.binary<kind = mul>(%one, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call tf.math.binary<kind = add>(%a, %nz) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %c = tf.call tf.math.binary<kind = div>(%b, %one) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %n = tf.call tf.math.unary<kind = neg>(%c) : (tensor<4xf32>) -> tensor<4xf32>
    %nn = tf.call tf.math.unary<kind = neg>(%n) : (tensor<4xf32>) -> tensor<4xf32>
    %p = tf.call tf.math.unary<kind = abs>(%nn) : (tensor<4xf32>) -> tensor<4xf32>
    %pp = tf.call tf.math.unary<kind = abs>(%p) : (tensor<4xf32>) -> tensor<4xf32>
    %keep = tf.call tf.math.binary<kind = add>(%pp, %z) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %lit = tf.call tf.math.binary<kind = add>(%one, %one) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %r = tf.call tf.math.binary<kind = mul>(%keep, %lit) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %r : tensor<4xf32>
  }
}

// CHECK-LABEL: hir.func @f(%x: tensor<4xf32> loc(unknown)) -> tensor<4xf32> {
// CHECK-NEXT:    %one = tf.constant dense<1.000000e+00>
// CHECK-NEXT:    %z = tf.constant dense<0.000000e+00>
// CHECK-NEXT:    %p = tf.call tf.math.unary<kind = abs>(%x)
// CHECK-NEXT:    %keep = tf.call tf.math.binary<kind = add>(%p, %z)
// CHECK-NEXT:    %lit = tf.call tf.math.binary<kind = add>(%one, %one)
// CHECK-NEXT:    %r = tf.call tf.math.binary<kind = mul>(%keep, %lit)

// -----

// TIR: the same identities through the Vars statements bind; a projection of a tuple bound by
// an earlier statement forwards the element; a statement left binding a Var is forwarded.

tf.module @tir {
  tir.prim_func @k(%a: tensor<4xf32>, %b: tensor<4xf32>, %out: !tf.buffer<4xf32>) -> () {
    %t = tir.let tf.tuple %a, %b : tuple<tensor<4xf32>, tensor<4xf32>>
    %x = tir.let tf.call tf.tuple.get_item<index = 1>(%t) : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
    %c = tir.let tf.call tf.math.cast<dtype = f32>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %y = tir.let tf.call tf.math.unary<kind = exp>(%c) : (tensor<4xf32>) -> tensor<4xf32> loc("k.py":3:7)
    tir.evaluate tf.call tf.memory.copy(%out, %y) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    tir.return
  }
}

// CHECK-LABEL: tir.prim_func @k(%a: tensor<4xf32> loc(unknown), %b: tensor<4xf32> loc(unknown), %out: !tf.buffer<4xf32> loc(unknown)) -> () {
// CHECK-NEXT:    %y = tir.let tf.call tf.math.unary<kind = exp>(%b) : (tensor<4xf32>) -> tensor<4xf32> loc("k.py":3:7) loc("y")
// CHECK-NEXT:    tir.evaluate tf.call tf.memory.copy(%out, %y)
// CHECK-NEXT:    tir.return
