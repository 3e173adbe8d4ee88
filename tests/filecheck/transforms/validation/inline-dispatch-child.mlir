// RUN: tf-opt %s -p tf-inline | filecheck %s
// RUN: tf-opt %s -p tf-inline | tf-opt | filecheck %s
// RUN: tf-opt %s -p tf-inline --print-op-generic | tf-opt | filecheck %s
// RUN: %python -m tilefoundry.testing.same_results %s -p tf-inline | filecheck %s --check-prefix=SAME
// RUN: %python -m tilefoundry.testing.same_results %s -p 'tf-inline,tf-prune-unreachable,canonicalize' | filecheck %s --check-prefix=SAME

// Found by translation validation (seed 27): tf-inline of a kernel of a child module that
// dispatches rewrites the cases to resolve from the caller (`@c0::@small`), and the custom form
// of `tir.dispatch` printed only `@c0`, which does not parse back. A case is a nested symbol
// reference, printed and read in full.

tf.module @m entry @main {
  tir.prim_func @main(%x: tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>> {
    %y = tir.let tf.call @c0::@pick(%x) : (tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>>
    tir.return %y : tensor<?xf32, #tf.dims<n: 1 to 9>>
  }
  tf.module @c0 {
    tir.prim_func @pick(%x: tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>> {
      %y = tir.let tir.dispatch [@small: [n: 1 to 4], @large: [n: 4 to 9]](%x) : (tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>>
      tir.return %y : tensor<?xf32, #tf.dims<n: 1 to 9>>
    }
    tir.prim_func @small(%x: tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>> {
      tir.return %x : tensor<?xf32, #tf.dims<n: 1 to 9>>
    }
    tir.prim_func @large(%x: tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>> {
      %y = tir.let tf.call tf.math.unary<kind = neg>(%x) : (tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>>
      tir.return %y : tensor<?xf32, #tf.dims<n: 1 to 9>>
    }
  }
}

// SAME: same results: 8 runs

// CHECK-LABEL: tir.prim_func @main(
// CHECK-NEXT:    %y = tir.let tir.dispatch [@c0::@small: [n: 1 to 4], @c0::@large: [n: 4 to 9]](%x)
// CHECK-NEXT:    tir.return %y
