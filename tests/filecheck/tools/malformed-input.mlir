// RUN: not tf-opt %s --split-input-file > %t 2>&1
// RUN: filecheck %s --input-file %t
// RUN: not grep Traceback %t

// Every malformed chunk is reported as one line `file:line:col: error: message`, the other
// chunks still run, and the exit code is non-zero.

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call tf.math.binary<kind = add>(%x, %x : (tensor<4xf32>) -> tensor<4xf32>
  }
}
// CHECK: malformed-input.mlir:[[# @LINE - 3]]:52: error: ')' expected

// -----

tf.module @m {
  frob.nicate
}
// CHECK: malformed-input.mlir:[[# @LINE - 2]]:3: error: Operation frob.nicate is not registered

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %undefined : tensor<4xf32>
  }
}
// CHECK: malformed-input.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}undefined

// -----

tf.module @m {} loc("a.py":1:2 to)
// CHECK: malformed-input.mlir:[[# @LINE - 1]]:34: error: Expected integer literal

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call tf.math.binary<kind = add, kind = sub>(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}
// CHECK: malformed-input.mlir:[[# @LINE - 4]]:45: error: op attribute 'kind' is given twice

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}
// This good chunk is printed, on stdout, after the diagnostics (see the last CHECK).

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xi32>
  }
}
// CHECK: malformed-input.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: {{.*}}tensor<4xi32>

// -----

"tf.module"() <{sym_name = "m", entry = 3 : i64}> ({
}) : () -> ()
// CHECK: malformed-input.mlir:[[# @LINE - 2]]:1: error: 'tf.module' op

// -----

tf.module @m {
  hir.func @f(%x: tensor<?xf32, #tf.dims<n: 8 to 1>>) -> () {
    hir.return
  }
}
// CHECK: malformed-input.mlir:[[# @LINE - 4]]:{{[0-9]+}}: error: DimVar 'n' needs 0 <= lo < hi <= 2**63, got [8, 1)

// CHECK: tf.module @m {
// CHECK-NEXT: hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %y = tf.call tf.math.unary<kind = neg>(%x)
