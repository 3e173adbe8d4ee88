// RUN: %roundtrip
// RUN: %generic-roundtrip
// RUN: %generic-form
// RUN: %fixpoint

// The expression ops: tf.constant, tf.tuple and tf.call (op targets, defaults elided).

tf.module @exprs {
  hir.func @f(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tuple<tensor<4x8xf32>, tensor<4xf32>> {
    %c = tf.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %s = tf.constant dense<0.5> : tensor<f32>
    %i = tf.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
    %y = tf.call tf.math.binary<kind = add>(%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %r = tf.call tf.reduce.sum<axis = 1, keepdims = false>(%y) : (tensor<4x8xf32>) -> tensor<4xf32>
    %k = tf.call tf.reduce.sum<axis = 1, keepdims = true>(%y) : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %t = tf.tuple %y, %r : tuple<tensor<4x8xf32>, tensor<4xf32>>
    hir.return %t : tuple<tensor<4x8xf32>, tensor<4xf32>>
  }
}

// CHECK-LABEL: tf.module @exprs {
// CHECK-NEXT:    hir.func @f(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tuple<tensor<4x8xf32>, tensor<4xf32>> {
// CHECK-NEXT:      %c = tf.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:      %s = tf.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:      %i = tf.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK-NEXT:      %y = tf.call tf.math.binary<kind = add>(%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:      %r = tf.call tf.reduce.sum<axis = 1>(%y) : (tensor<4x8xf32>) -> tensor<4xf32>
// CHECK-NEXT:      %k = tf.call tf.reduce.sum<axis = 1, keepdims = true>(%y) : (tensor<4x8xf32>) -> tensor<4x1xf32>
// CHECK-NEXT:      %t = tf.tuple %y, %r : tuple<tensor<4x8xf32>, tensor<4xf32>>
// CHECK-NEXT:      hir.return %t : tuple<tensor<4x8xf32>, tensor<4xf32>>
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// GENERIC-LABEL: "tf.module"() <{sym_name = "exprs"}> ({
// GENERIC:         %c = "tf.constant"() <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
// GENERIC:         %y = "tf.call"(%x, %b) <{callee = #tf.op<tf.math.binary<kind = add>>}> : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// GENERIC-NEXT:    %r = "tf.call"(%y) <{callee = #tf.op<tf.reduce.sum<axis = 1>>}> : (tensor<4x8xf32>) -> tensor<4xf32>
// GENERIC:         %t = "tf.tuple"(%y, %r) : (tensor<4x8xf32>, tensor<4xf32>) -> tuple<tensor<4x8xf32>, tensor<4xf32>>

// -----

// Multi-output ops produce one tuple-typed call; tf.tuple.get_item projects a field.

tf.module @multi {
  hir.func @f(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
    %p = tf.call tf.shape.split<axis = 1, sections = 2>(%x) : (tensor<4x8xf32>) -> tuple<tensor<4x4xf32>, tensor<4x4xf32>>
    %a = tf.call tf.tuple.get_item<index = 0>(%p) : (tuple<tensor<4x4xf32>, tensor<4x4xf32>>) -> tensor<4x4xf32>
    hir.return %a : tensor<4x4xf32>
  }
}

// CHECK-LABEL: tf.module @multi {
// CHECK:         %p = tf.call tf.shape.split<axis = 1, sections = 2>(%x) : (tensor<4x8xf32>) -> tuple<tensor<4x4xf32>, tensor<4x4xf32>>
// CHECK-NEXT:    %a = tf.call tf.tuple.get_item<index = 0>(%p) : (tuple<tensor<4x4xf32>, tensor<4x4xf32>>) -> tensor<4x4xf32>

// GENERIC-LABEL: "tf.module"() <{sym_name = "multi"}> ({
// GENERIC:         "tf.call"(%x) <{callee = #tf.op<tf.shape.split<axis = 1, sections = 2>>}>

// -----

// An effect-form call has no result (UnitType), run by a tir.evaluate; an effect-only function
// returns nothing. A buffer (!tf.buffer, TIR only) is written in place.

tf.module @effects {
  tir.prim_func @store(%dst: !tf.buffer<4xf32>, %src: tensor<4xf32>) -> () {
    tir.evaluate tf.call tf.memory.copy(%dst, %src) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    tir.return
  }
}

// CHECK-LABEL: tf.module @effects {
// CHECK-NEXT:    tir.prim_func @store(%dst: !tf.buffer<4xf32>, %src: tensor<4xf32>) -> () {
// CHECK-NEXT:      tir.evaluate tf.call tf.memory.copy(%dst, %src) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT:      tir.return
// CHECK-NEXT:    }

// GENERIC-LABEL: "tf.module"() <{sym_name = "effects"}> ({
// GENERIC:         "tf.call"(%dst, %src) <{callee = #tf.op<tf.memory.copy>}> : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
// GENERIC-NEXT:      "tir.yield"() : () -> ()

// -----

// Calls of functions of the module tree, by symbol: same module and a child's.

tf.module @root entry @step {
  hir.func @step(%x: tensor<8xf32>) -> tensor<8xf32> {
    %h = tf.call @layer0::@mlp(%x) : (tensor<8xf32>) -> tensor<8xf32>
    %y = tf.call @double(%h) : (tensor<8xf32>) -> tensor<8xf32>
    hir.return %y : tensor<8xf32>
  }
  hir.func @double(%x: tensor<8xf32>) -> tensor<8xf32> {
    %y = tf.call tf.math.binary<kind = add>(%x, %x) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    hir.return %y : tensor<8xf32>
  }
  tf.module @layer0 name "MLP" {
    hir.func @mlp(%x: tensor<8xf32>) -> tensor<8xf32> {
      %y = tf.call tf.math.unary<kind = relu>(%x) : (tensor<8xf32>) -> tensor<8xf32>
      hir.return %y : tensor<8xf32>
    }
  }
}

// CHECK-LABEL: tf.module @root entry @step {
// CHECK-NEXT:    hir.func @step(%x: tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT:      %h = tf.call @layer0::@mlp(%x) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:      %y = tf.call @double(%h) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK:         tf.module @layer0 name "MLP" {

// GENERIC-LABEL: "tf.module"() <{sym_name = "root", entry = @step}> ({
// GENERIC:         "tf.call"(%x) <{callee = @layer0::@mlp}> : (tensor<8xf32>) -> tensor<8xf32>
// GENERIC:         "tf.module"() <{sym_name = "layer0", module_name = "MLP"}> ({

// -----

// Every op attribute value kind: int, negative int, float, bool, string, enum, list, none.

tf.module @values {
  hir.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
    %t = tf.call tf.linalg.transpose<perm = [1, 0]>(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %m = tf.call tf.reduce.max<axis = -1>(%t) : (tensor<3x2xf32>) -> tensor<3xf32>
    %h = tf.call tf.math.cast<dtype = bf16>(%x) : (tensor<2x3xf32>) -> tensor<2x3xbf16>
    hir.return %t : tensor<3x2xf32>
  }
}

// CHECK-LABEL: tf.module @values {
// CHECK:         %t = tf.call tf.linalg.transpose<perm = [1, 0]>(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    %m = tf.call tf.reduce.max<axis = -1>(%t) : (tensor<3x2xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %h = tf.call tf.math.cast<dtype = bf16>(%x) : (tensor<2x3xf32>) -> tensor<2x3xbf16>

// GENERIC-LABEL: "tf.module"() <{sym_name = "values"}> ({
// GENERIC:         <{callee = #tf.op<tf.linalg.transpose<perm = [1, 0]>>}>
