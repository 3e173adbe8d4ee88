// RUN: tf-opt %s --allow-unregistered-dialect --split-input-file --verify-diagnostics

// Even where unregistered ops are allowed, a function body holds none of them, nor an op of an
// unrelated dialect: each is reported at the op, by the name it was written with.

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'foo.bar' op cannot be in the body of function '@f'; a body holds tf.call, tf.constant, tf.tuple, tf.mesh and ends with hir.return}}
    "foo.bar"() : () -> ()
    hir.return %x : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'builtin.unrealized_conversion_cast' op cannot be in the body of function '@f'}}
    %y = builtin.unrealized_conversion_cast %x : tensor<4xf32> to tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// -----

tf.module @m topologies [#tf.topology<"cta">] {
  hir.func @f(%x: tensor<4xf32>) -> () {
    tf.mesh "cta" {
      // expected-error @+1 {{'foo.bar' op cannot be in the body of mesh 'cta'}}
      "foo.bar"() : () -> ()
      tf.yield
    }
    hir.return
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'tf.yield' op cannot be in the body of function '@f'}}
    tf.yield
  }
}
