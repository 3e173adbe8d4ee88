// RUN: tf-opt %s --split-input-file --verify-diagnostics --disable-verify -p tf-lower
// RUN: not tf-opt %s --split-input-file -p tf-lower 2>&1 | filecheck %s --check-prefix=VERIFIED

// Refused in one line, at the module or at the variant, and nothing is changed: a module with
// no entry (no default step, spec §1), a variant whose range names a DimVar no parameter
// carries (a dispatch reads each size from its arguments) or leaves its DimVar's envelope. The
// verifier refuses the last one first (VERIFIED): the first RUN line does not verify its input,
// so that the lowering's own check is what reports it.

// VERIFIED: tf-lower-invalid.mlir:[[# @LINE + 3]]:1: error: pass 'tf-lower' failed: module 'm' has no entry

// expected-error @+1 {{pass 'tf-lower' failed: module 'm' has no entry, so no default step; its functions are 'a', 'b': select one with lookup('<name>'), or lower it by its path (function='<path>')}}
tf.module @m target #tf.target<"h100"> {
  hir.func @a(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
  hir.func @b(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
  tf.module @c entry @g {
    hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
      hir.return %x : tensor<4xf32>
    }
  }
}

// -----

tf.module @m target #tf.target<"h100"> entry @f {
  hir.func @g(%y: tensor<?xf32, #tf.dims<m: 1 to 9>>) -> tensor<?xf32, #tf.dims<m: 1 to 9>> {
    hir.return %y : tensor<?xf32, #tf.dims<m: 1 to 9>>
  }
  hir.func @f(%x: tensor<4xf32>) -> tensor<?xf32, #tf.dims<m: 1 to 9>> {
    %r = tf.call @g(%x) : (tensor<4xf32>) -> tensor<?xf32, #tf.dims<m: 1 to 9>>
    hir.return %r : tensor<?xf32, #tf.dims<m: 1 to 9>>
  } variants {
    // VERIFIED: tf-lower-invalid.mlir:[[# @LINE + 2]]:5: error: pass 'tf-lower' failed: variant #0 of function '@f' ranges over DimVar 'm'
    // expected-error @+1 {{pass 'tf-lower' failed: variant #0 of function '@f' ranges over DimVar 'm', which no parameter carries (the parameters carry: none); a lowered function picks its variant by the sizes of its arguments, so a variant ranges over a DimVar of a parameter}}
    hir.variant [m: 1 to 4] (%x: tensor<4xf32>) {
      %r = tf.call @g(%x) : (tensor<4xf32>) -> tensor<?xf32, #tf.dims<m: 1 to 9>>
      hir.return %r : tensor<?xf32, #tf.dims<m: 1 to 9>>
    }
  }
}

// -----

// A callee's variant is checked too, in a child module.

tf.module @m target #tf.target<"h100"> entry @main {
  hir.func @main(%x: tensor<?x4xf32, #tf.dims<n: 1 to 9>>) -> tensor<?x4xf32, #tf.dims<n: 1 to 9>> {
    %y = tf.call @c::@f(%x) : (tensor<?x4xf32, #tf.dims<n: 1 to 9>>) -> tensor<?x4xf32, #tf.dims<n: 1 to 9>>
    hir.return %y : tensor<?x4xf32, #tf.dims<n: 1 to 9>>
  }
  tf.module @c {
    // VERIFIED: tf-lower-invalid.mlir:[[# @LINE + 1]]:5: error: 'hir.func' op variant #1 of function '@f' range [4, 12) of 'n' is not inside its envelope [1, 9)
    hir.func @f(%x: tensor<?x4xf32, #tf.dims<n: 1 to 9>>) -> tensor<?x4xf32, #tf.dims<n: 1 to 9>> {
      hir.return %x : tensor<?x4xf32, #tf.dims<n: 1 to 9>>
    } variants {
      hir.variant [n: 1 to 4] (%x: tensor<?x4xf32, #tf.dims<n: 1 to 9>>) {
        hir.return %x : tensor<?x4xf32, #tf.dims<n: 1 to 9>>
      }
      // expected-error @+1 {{variant #1 of function '@f': range [4, 12) of DimVar 'n' is not inside its envelope [1, 9) (parameter 'x', axis 0); narrow the range}}
      hir.variant [n: 4 to 12] (%x: tensor<?x4xf32, #tf.dims<n: 1 to 9>>) {
        hir.return %x : tensor<?x4xf32, #tf.dims<n: 1 to 9>>
      }
    }
  }
}
