// RUN: tf-opt %s --split-input-file -p canonicalize --print-debuginfo | filecheck %s
// RUN: xdsl-opt %s --split-input-file -p canonicalize | tf-opt --split-input-file | filecheck %s --check-prefix=STOCK

// canonicalize does the tf work: the ops' fold hooks (identities), literal folding, and dead
// code removal, in HIR and in TIR. xDSL's stock canonicalize (through the xdsl.universe entry
// point) gives the same IR: the tf ops take part through their traits alone.

tf.module @identities {
  hir.func @f(%x: tensor<4xf32>, %i: tensor<4xi32>, %t: tensor<2x3xf32>) -> tensor<4xf32> {
    %one = tf.constant dense<1.0> : tensor<4xf32>
    %a = tf.call tf.math.binary<kind = mul>(%x, %one) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call tf.math.binary<kind = mul>(%one, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %nz = tf.constant dense<-0.0> : tensor<4xf32>
    %c = tf.call tf.math.binary<kind = add>(%b, %nz) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %z = tf.constant dense<0.0> : tensor<4xf32>
    %d = tf.call tf.math.binary<kind = sub>(%c, %z) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %e = tf.call tf.math.binary<kind = div>(%d, %one) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %g = tf.call tf.math.binary<kind = pow>(%e, %one) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %h = tf.call tf.math.binary<kind = max>(%g, %g) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %n1 = tf.call tf.math.unary<kind = neg>(%h) : (tensor<4xf32>) -> tensor<4xf32>
    %n2 = tf.call tf.math.unary<kind = neg>(%n1) : (tensor<4xf32>) -> tensor<4xf32>
    %c1 = tf.call tf.math.cast<dtype = f32>(%n2) : (tensor<4xf32>) -> tensor<4xf32>
    %izero = tf.constant dense<0> : tensor<4xi32>
    %j = tf.call tf.math.binary<kind = add>(%izero, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %tup = tf.tuple %c1, %j : tuple<tensor<4xf32>, tensor<4xi32>>
    %p = tf.call tf.tuple.get_item<index = 0>(%tup) : (tuple<tensor<4xf32>, tensor<4xi32>>) -> tensor<4xf32>
    %tt = tf.call tf.linalg.transpose<perm = [1, 0]>(%t) : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %back = tf.call tf.linalg.transpose<perm = [1, 0]>(%tt) : (tensor<3x2xf32>) -> tensor<2x3xf32>
    hir.return %p : tensor<4xf32>
  }
}

// CHECK-LABEL: hir.func @f(%x: tensor<4xf32> loc(unknown), %i: tensor<4xi32> loc(unknown), %t: tensor<2x3xf32> loc(unknown)) -> tensor<4xf32> {
// CHECK-NEXT:    hir.return %x : tensor<4xf32>
// STOCK-LABEL: hir.func @f(
// STOCK-NEXT:    hir.return %x : tensor<4xf32>

// -----

// Not identities: x + 0.0 (-0.0 + 0.0 is 0.0), an identity that would broadcast x, x - x.

tf.module @not_identities {
  hir.func @f(%x: tensor<4xf32>, %s: tensor<1xf32>) -> tensor<4xf32> {
    %z = tf.constant dense<0.0> : tensor<4xf32>
    %a = tf.call tf.math.binary<kind = add>(%x, %z) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %one = tf.constant dense<1.0> : tensor<4xf32>
    %b = tf.call tf.math.binary<kind = mul>(%s, %one) : (tensor<1xf32>, tensor<4xf32>) -> tensor<4xf32>
    %c = tf.call tf.math.binary<kind = sub>(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %c : tensor<4xf32>
  }
}

// CHECK-LABEL: hir.func @f(
// CHECK:         %a = tf.call tf.math.binary<kind = add>(%x, %z)
// CHECK:         %b = tf.call tf.math.binary<kind = mul>(%s, %one)
// CHECK-NEXT:    %c = tf.call tf.math.binary<kind = sub>(%a, %b)

// -----

// Literal expressions fold into one constant that keeps the binding and span of the call it
// replaces; what folds away is dead and goes.

tf.module @literals {
  hir.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
    %a = tf.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %b = tf.call tf.math.binary<kind = add>(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %c = tf.call tf.math.unary<kind = neg>(%b) : (tensor<2xf32>) -> tensor<2xf32> loc("m.py":3:5)
    %y = tf.call tf.math.binary<kind = add>(%x, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    hir.return %y : tensor<2xf32>
  }
}

// CHECK-LABEL: hir.func @f(%x: tensor<2xf32> loc(unknown)) -> tensor<2xf32> {
// CHECK-NEXT:    %c = tf.constant dense<[-2.000000e+00, -4.000000e+00]> : tensor<2xf32> loc("c"("m.py":3:5))
// CHECK-NEXT:    %y = tf.call tf.math.binary<kind = add>(%x, %c)
// CHECK-NEXT:    hir.return %y : tensor<2xf32>

// -----

// Undefined results are never folded: integer division by zero stays a call.

tf.module @undefined {
  hir.func @f() -> tensor<2xi32> {
    %a = tf.constant dense<[4, 2]> : tensor<2xi32>
    %z = tf.constant dense<[2, 0]> : tensor<2xi32>
    %d = tf.call tf.math.binary<kind = div>(%a, %z) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
    hir.return %d : tensor<2xi32>
  }
}

// CHECK-LABEL: hir.func @f() -> tensor<2xi32> {
// CHECK:         %d = tf.call tf.math.binary<kind = div>(%a, %z)

// -----

// TIR: the same folds see through the Vars statements bind; a statement left binding another
// Var is forwarded; dead statements of pure expressions go, effect-form ones stay.

tf.module @tir {
  tir.prim_func @k(%x: tensor<4xf32>, %out: !tf.buffer<4xf32>) -> tensor<4xf32> {
    %one = tir.let tf.constant dense<1.0> : tensor<4xf32>
    %a = tir.let tf.call tf.math.binary<kind = mul>(%x, %one) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %two = tir.let tf.constant dense<2.0> : tensor<4xf32>
    %four = tir.let tf.call tf.math.binary<kind = add>(%two, %two) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("m.py":4:1)
    %alias = tir.let {
      tir.yield %a : tensor<4xf32>
    }
    %unused = tir.let tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %y = tir.let tf.call tf.math.binary<kind = mul>(%alias, %four) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tir.evaluate tf.call tf.memory.copy(%out, %y) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    tir.return %y : tensor<4xf32>
  }
}

// CHECK-LABEL: tir.prim_func @k(%x: tensor<4xf32> loc(unknown), %out: !tf.buffer<4xf32> loc(unknown)) -> tensor<4xf32> {
// CHECK-NEXT:    %four = tir.let tf.constant dense<4.000000e+00> : tensor<4xf32> loc("m.py":4:1) loc("four")
// CHECK-NEXT:    %y = tir.let tf.call tf.math.binary<kind = mul>(%x, %four)
// CHECK-NEXT:    tir.evaluate tf.call tf.memory.copy(%out, %y)
// CHECK-NEXT:    tir.return %y : tensor<4xf32>
// STOCK-LABEL: tir.prim_func @k(
// STOCK-NEXT:    %four = tir.let tf.constant dense<4.000000e+00> : tensor<4xf32>
// STOCK-NEXT:    %y = tir.let tf.call tf.math.binary<kind = mul>(%x, %four)
// STOCK-NEXT:    tir.evaluate tf.call tf.memory.copy(%out, %y)
// STOCK-NEXT:    tir.return %y : tensor<4xf32>
