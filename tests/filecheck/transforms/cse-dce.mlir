// RUN: tf-opt %s --split-input-file -p cse,dce | filecheck %s
// RUN: tf-opt %s --split-input-file -p cse | filecheck %s --check-prefix=CSE
// RUN: tf-opt %s --split-input-file -p dce | filecheck %s --check-prefix=DCE
// RUN: xdsl-opt %s --split-input-file -p cse,dce | tf-opt --split-input-file | filecheck %s

// xDSL's generic cse and dce see a value-form call of a pure op as pure, and a call of a function
// as having the effects of the callee's body (none here: an unused call of @g goes). A tir.let
// and a tir.evaluate have the effects of their bodies: TIR stays valid under both (stock
// xdsl-opt included). Buffers and the effects on them: memory-effects.mlir.

tf.module @m {
  hir.func @f(%x: tensor<4xf32>, %d: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %unused = tf.call tf.math.unary<kind = log>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %c = tf.constant dense<1.0> : tensor<4xf32>
    %g = tf.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %s = tf.call tf.math.binary<kind = add>(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %s : tensor<4xf32>
  }
  hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
}

// CHECK-LABEL: hir.func @f(%x: tensor<4xf32>, %d: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %a = tf.call tf.math.unary<kind = exp>(%x)
// CHECK-NEXT:    %s = tf.call tf.math.binary<kind = add>(%a, %a)
// CHECK-NEXT:    hir.return %s : tensor<4xf32>
// DCE-LABEL: hir.func @f(
// DCE-NEXT:    %a = tf.call tf.math.unary<kind = exp>(%x)
// DCE-NEXT:    %b = tf.call tf.math.unary<kind = exp>(%x)
// DCE-NEXT:    %s = tf.call tf.math.binary<kind = add>(%a, %b)

// -----

tf.module @tir {
  tir.prim_func @k(%x: tensor<4xf32>, %out: !tf.buffer<4xf32>) -> tensor<4xf32> {
    %a = tir.let tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tir.let tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %unused = tir.let tf.call tf.math.unary<kind = log>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %dead = tir.let -> tensor<4xf32> {
      %c = tf.constant dense<1.0> : tensor<4xf32>
      %m = tf.call tf.math.binary<kind = mul>(%x, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      tir.yield %m : tensor<4xf32>
    }
    %s = tir.let -> tensor<4xf32> {
      %unused_inside = tf.call tf.math.unary<kind = tanh>(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %sum = tf.call tf.math.binary<kind = add>(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      tir.yield %sum : tensor<4xf32>
    }
    tir.evaluate tf.call tf.memory.copy(%out, %s) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    tir.evaluate tf.call @sink(%x, %out) : (tensor<4xf32>, !tf.buffer<4xf32>) -> ()
    tir.return %s : tensor<4xf32>
  }
  tir.prim_func @sink(%x: tensor<4xf32>, %out: !tf.buffer<4xf32>) -> () {
    tir.return
  }
}

// A call of @sink, whose body does nothing, has no effect: dce erases its tir.evaluate.
// CHECK-LABEL: tir.prim_func @k(%x: tensor<4xf32>, %out: !tf.buffer<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %a = tir.let tf.call tf.math.unary<kind = exp>(%x)
// CHECK-NEXT:    %s = tir.let tf.call tf.math.binary<kind = add>(%a, %a)
// CHECK-NEXT:    tir.evaluate tf.call tf.memory.copy(%out, %s)
// CHECK-NEXT:    tir.return %s : tensor<4xf32>

// CSE-LABEL: tir.prim_func @k(
// CSE-NEXT:    %a = tir.let tf.call tf.math.unary<kind = exp>(%x)
// CSE-NOT:     %b = tir.let
// CSE:         tf.call tf.math.binary<kind = add>(%a, %a)

// DCE-LABEL: tir.prim_func @k(
// DCE-NEXT:    %a = tir.let tf.call tf.math.unary<kind = exp>(%x)
// DCE-NEXT:    %b = tir.let tf.call tf.math.unary<kind = exp>(%x)
// DCE-NEXT:    %s = tir.let tf.call tf.math.binary<kind = add>(%a, %b)
// DCE-NEXT:    tir.evaluate tf.call tf.memory.copy(%out, %s)
// DCE-NEXT:    tir.return %s
