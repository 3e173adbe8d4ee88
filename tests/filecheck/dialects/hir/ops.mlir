// RUN: %roundtrip
// RUN: %generic-roundtrip
// RUN: %generic-form
// RUN: %fixpoint

// hir.func: named parameters (the name is semantic and printed exactly, `_<digits>` included),
// {const} parameters, DimVar-typed parameters, discardable attributes, hir.return.

tf.module @m {
  hir.func @mlp(%x: tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, %w_0: tensor<8x8xf32> {const}, %w_1: tensor<8x8xf32> {const}) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>> attributes {note = "layer"} {
    %h = tf.call tf.linalg.matmul(%x, %w_0) : (tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, tensor<8x8xf32>) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
    %y = tf.call tf.linalg.matmul(%h, %w_1) : (tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, tensor<8x8xf32>) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
    hir.return %y : tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
  }
  hir.func @identity(%t: tuple<tensor<2xi32>, tensor<f32>>) -> tuple<tensor<2xi32>, tensor<f32>> {
    hir.return %t : tuple<tensor<2xi32>, tensor<f32>>
  }
  hir.func @nothing() -> () {
    hir.return
  }
}

// CHECK-LABEL: tf.module @m {
// CHECK-NEXT:    hir.func @mlp(%x: tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, %w_0: tensor<8x8xf32> {const}, %w_1: tensor<8x8xf32> {const}) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>> attributes {note = "layer"} {
// CHECK-NEXT:      %h = tf.call tf.linalg.matmul(%x, %w_0) : (tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, tensor<8x8xf32>) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
// CHECK-NEXT:      %y = tf.call tf.linalg.matmul(%h, %w_1) : (tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, tensor<8x8xf32>) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
// CHECK-NEXT:      hir.return %y : tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
// CHECK-NEXT:    }
// CHECK-NEXT:    hir.func @identity(%t: tuple<tensor<2xi32>, tensor<f32>>) -> tuple<tensor<2xi32>, tensor<f32>> {
// CHECK-NEXT:      hir.return %t : tuple<tensor<2xi32>, tensor<f32>>
// CHECK-NEXT:    }
// CHECK-NEXT:    hir.func @nothing() -> () {
// CHECK-NEXT:      hir.return
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// GENERIC-LABEL: "tf.module"() <{sym_name = "m"}> ({
// GENERIC-NEXT:    "hir.func"() <{sym_name = "mlp", function_type = (tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, param_names = ["x", "w_0", "w_1"], arg_attrs = [{}, {const}, {const}]}> ({
// GENERIC-NEXT:    ^bb0(%x: tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, %w: tensor<8x8xf32>, %w_1: tensor<8x8xf32>):
// GENERIC:         "hir.return"(%y) : (tensor<?x8xf32, #tf.dims<n: 1 to 4097>>) -> ()
// GENERIC-NEXT:    }) {note = "layer"} : () -> ()

// -----

// A bare function at the top level of a file stays bare in tf-opt (parse_module wraps it in
// an implicit module whose entry it is).

hir.func @bare(%x: tensor<4xf32>) -> tensor<4xf32> {
  hir.return %x : tensor<4xf32>
}

// CHECK-LABEL: hir.func @bare(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    hir.return %x : tensor<4xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "hir.func"() <{sym_name = "bare"

// -----

// Shape-specialization variants live inside their function, each over sub-ranges of the
// signature's DimVars.

tf.module @specialized {
  hir.func @f(%x: tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, %w_0: tensor<8x8xf32> {const}) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>> {
    %y = tf.call tf.linalg.matmul(%x, %w_0) : (tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, tensor<8x8xf32>) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
    hir.return %y : tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
  } variants {
    hir.variant [n: 1 to 128] (%x: tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, %w_0: tensor<8x8xf32>) {
      %y = tf.call tf.linalg.matmul(%x, %w_0) : (tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, tensor<8x8xf32>) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
      hir.return %y : tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
    }
    hir.variant [n: 128 to 4097] (%x: tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, %w_0: tensor<8x8xf32>) {
      %t = tf.call tf.linalg.transpose<perm = [1, 0]>(%w_0) : (tensor<8x8xf32>) -> tensor<8x8xf32>
      %u = tf.call tf.linalg.transpose<perm = [1, 0]>(%t) : (tensor<8x8xf32>) -> tensor<8x8xf32>
      %y = tf.call tf.linalg.matmul(%x, %u) : (tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, tensor<8x8xf32>) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
      hir.return %y : tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
    }
  }
}

// CHECK-LABEL: tf.module @specialized {
// CHECK:         } variants {
// CHECK-NEXT:      hir.variant [n: 1 to 128] (%x: tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, %w_0: tensor<8x8xf32>) {
// CHECK-NEXT:        %[[Y:.*]] = tf.call tf.linalg.matmul(%x, %w_0)
// CHECK-NEXT:        hir.return %[[Y]]
// CHECK-NEXT:      }
// CHECK-NEXT:      hir.variant [n: 128 to 4097] (%x: tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, %w_0: tensor<8x8xf32>) {

// GENERIC-LABEL: "tf.module"() <{sym_name = "specialized"}> ({
// GENERIC:         "hir.variant"() <{ranges = [#tf.range<n: 1 to 128>]}> ({
