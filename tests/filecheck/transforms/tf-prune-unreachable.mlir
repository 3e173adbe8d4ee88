// RUN: tf-opt %s --split-input-file -p tf-prune-unreachable | filecheck %s
// RUN: tf-opt %s --split-input-file -p 'tf.module(tf-prune-unreachable)' | filecheck %s

// Only what the root's entry reaches stays: through calls (into child modules), dispatch
// cases and variant bodies. A child left empty goes; a child whose entry function went keeps
// no entry.

tf.module @m entry @main {
  hir.func @main(%x: tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<?xf32, #tf.dims<n: 1 to 64>> {
    %y = tf.call @layer::@used(%x) : (tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<?xf32, #tf.dims<n: 1 to 64>>
    hir.return %y : tensor<?xf32, #tf.dims<n: 1 to 64>>
  } variants {
    hir.variant [n: 1 to 8] (%x: tensor<?xf32, #tf.dims<n: 1 to 64>>) {
      %y = tf.call @from_variant(%x) : (tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<?xf32, #tf.dims<n: 1 to 64>>
      hir.return %y : tensor<?xf32, #tf.dims<n: 1 to 64>>
    }
  }
  hir.func @from_variant(%x: tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<?xf32, #tf.dims<n: 1 to 64>> {
    hir.return %x : tensor<?xf32, #tf.dims<n: 1 to 64>>
  }
  hir.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
  tf.module @layer entry @unused {
    hir.func @used(%x: tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<?xf32, #tf.dims<n: 1 to 64>> {
      hir.return %x : tensor<?xf32, #tf.dims<n: 1 to 64>>
    }
    hir.func @unused(%x: tensor<4xf32>) -> tensor<4xf32> {
      hir.return %x : tensor<4xf32>
    }
  }
  tf.module @other {
    hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
      hir.return %x : tensor<4xf32>
    }
    tf.module @nested {
      hir.func @h(%x: tensor<4xf32>) -> tensor<4xf32> {
        hir.return %x : tensor<4xf32>
      }
    }
  }
}

// CHECK-LABEL: tf.module @m entry @main {
// CHECK-NEXT:    hir.func @main(
// CHECK:         } variants {
// CHECK:         hir.func @from_variant(
// CHECK-NEXT:      hir.return
// CHECK-NEXT:    }
// CHECK-NEXT:    tf.module @layer {
// CHECK-NEXT:      hir.func @used(
// CHECK-NEXT:        hir.return
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// -----

// TIR: a dispatch reaches every case; same-module calls in statements are followed.

tf.module @k entry @pick {
  tir.prim_func @pick(%x: tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?xf32, #tf.dims<n: 1 to 4097>> {
    %y = tir.let tir.dispatch [@small: [n: 1 to 128], @large: [n: 128 to 4097]](%x) : (tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?xf32, #tf.dims<n: 1 to 4097>>
    tir.return %y : tensor<?xf32, #tf.dims<n: 1 to 4097>>
  }
  tir.prim_func @small(%x: tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?xf32, #tf.dims<n: 1 to 4097>> {
    tir.return %x : tensor<?xf32, #tf.dims<n: 1 to 4097>>
  }
  tir.prim_func @large(%x: tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?xf32, #tf.dims<n: 1 to 4097>> {
    %y = tir.let tf.call @negate(%x) : (tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?xf32, #tf.dims<n: 1 to 4097>>
    tir.return %y : tensor<?xf32, #tf.dims<n: 1 to 4097>>
  }
  tir.prim_func @negate(%x: tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?xf32, #tf.dims<n: 1 to 4097>> {
    %y = tir.let tf.call tf.math.unary<kind = neg>(%x) : (tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?xf32, #tf.dims<n: 1 to 4097>>
    tir.return %y : tensor<?xf32, #tf.dims<n: 1 to 4097>>
  }
  tir.prim_func @orphan(%x: tensor<4xf32>) -> () {
    tir.return
  }
}

// CHECK-LABEL: tf.module @k entry @pick {
// CHECK-NEXT:    tir.prim_func @pick(
// CHECK:         tir.prim_func @small(
// CHECK:         tir.prim_func @large(
// CHECK:         tir.prim_func @negate(
// CHECK-NOT:     @orphan

// -----

// A root without an entry is left whole: each function stays reachable by name.

tf.module @library {
  hir.func @a(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
  tf.module @child {
    hir.func @b(%x: tensor<4xf32>) -> tensor<4xf32> {
      hir.return %x : tensor<4xf32>
    }
  }
}

// CHECK-LABEL: tf.module @library {
// CHECK-NEXT:    hir.func @a(
// CHECK:         tf.module @child {
// CHECK-NEXT:      hir.func @b(
