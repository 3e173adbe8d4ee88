// RUN: not tf-opt %s --split-input-file > %t 2>&1
// RUN: filecheck %s --input-file %t
// RUN: not grep Traceback %t

// The declared formats' own diagnostics (`dialects/declared_formats.py`): each at the type it
// is about, one line `file:line:col: error: message`.

tf.module @m {
  hir.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    %t = tf.tuple %a : tensor<4xf32>
    hir.return %a : tensor<4xf32>
  }
}
// CHECK: malformed.mlir:[[# @LINE - 4]]:24: error: expected a tuple type, got tensor<4xf32>

// -----

tf.module @m {
  hir.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    %t = tf.tuple %a, %a : tuple<tensor<4xf32>>
    hir.return %a : tensor<4xf32>
  }
}
// CHECK: malformed.mlir:[[# @LINE - 4]]:28: error: tuple type has 1 field(s) for 2 element(s)

// -----

tf.module @m {
  tir.prim_func @k(%x: tensor<4xf32>) -> tensor<4xf32> {
    tir.return %x : tensor<4xf32>
  }
  tir.prim_func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tir.let tir.dispatch [@k: []](%x) : tensor<4xf32>
    tir.return %y : tensor<4xf32>
  }
}
// CHECK: malformed.mlir:[[# @LINE - 4]]:46: error: function type expected

// -----

tf.module @m {
  tir.prim_func @k(%x: tensor<4xf32>) -> tensor<4xf32> {
    tir.return %x : tensor<4xf32>
  }
  tir.prim_func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tir.let tir.dispatch [@k: []](%x, %x) : (tensor<4xf32>) -> tensor<4xf32>
    tir.return %y : tensor<4xf32>
  }
}
// CHECK: malformed.mlir:[[# @LINE - 4]]:50: error: expected 1 operand types but had 2

// -----

tf.module @m {
  tir.prim_func @k(%x: tensor<4xf32>) -> tensor<4xf32> {
    tir.return %x : tensor<4xf32>
  }
  tir.prim_func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tir.let tir.dispatch [@k: []](%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    tir.return %y : tensor<4xf32>
  }
}
// CHECK: malformed.mlir:[[# @LINE - 4]]:46: error: a call returns one value or nothing (a tuple for several), got 2 results
