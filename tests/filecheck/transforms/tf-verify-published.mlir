// RUN: tf-opt %s --split-input-file -p tf-verify-published --verify-diagnostics | filecheck %s

// A root meant for independent analysis declares its target and topology levels; the IR is
// not changed.

tf.module @published target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>] {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
}

// CHECK:      tf.module @published target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>] {
// CHECK-NEXT:   hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {

// -----

// `topologies []` declares that there are none.
tf.module @flat target #tf.target<"cpu"> topologies [] {
}

// CHECK: tf.module @flat target #tf.target<"cpu"> topologies [] {

// -----

// expected-error @+1 {{pass 'tf-verify-published' failed: module 'no_target' is published as a root but declares no target (naming the device is enough, e.g. target="h100")}}
tf.module @no_target topologies [#tf.topology<"cta", 4>] {
}

// -----

// expected-error @+1 {{pass 'tf-verify-published' failed: module 'no_levels' is published as a root but declares no topology levels (topologies=() declares that it has none)}}
tf.module @no_levels target #tf.target<"h100"> {
}
