// RUN: tf-opt %s --split-input-file --verify-diagnostics

// Every directive form of MLIR's --verify-diagnostics, each met (see verify-diagnostics.mlir
// for the failures).

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call tf.math.binary<kind = add>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    // expected-error @-1 {{tf.math.binary expects 2 argument(s)}}
    hir.return %y : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call tf.math.binary<kind = add>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    // expected-error @above {{tf.math.binary expects 2 argument(s)}}
    hir.return %y : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error-re @below {{tf.math.{{[a-z]+}} expects {{[0-9]}} argument(s) (lhs, rhs)}}
    %y = tf.call tf.math.binary<kind = add>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+2 {{tf.math.binary expects 2 argument(s)}}

    %y = tf.call tf.math.binary<kind = add>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// -----

// An error with a note: both expected, each at its own line.
tf.module @m {
  // expected-note @+1 {{see existing symbol definition here}}
  hir.func @f() -> () {
    hir.return
  }
  tf.module @f {} // expected-error {{redefinition of symbol named 'f'}}
}
