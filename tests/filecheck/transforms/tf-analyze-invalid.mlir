// RUN: tf-opt %s --split-input-file --verify-diagnostics -p tf-analyze

// Refused in one line: no target, a target without a device document, recursion.

tf.module @nowhere {
  // expected-error @+1 {{pass 'tf-analyze' failed: function '@f': module 'nowhere' has no target}}
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
}

// -----

tf.module @backend target #tf.target<"cuda"> {
  // expected-error @+1 {{function '@f': target 'cuda' names no device, so there are no peak figures to measure against}}
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
}

// -----

tf.module @loop target #tf.target<"h100"> {
  // expected-error @+1 {{pass 'tf-analyze' failed: recursive calls (@f -> @f) have no static cost}}
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// -----

// A count past the i64 of tf.cost is refused at the function, before anything is recorded
// (test_module_passes.py checks, from Python, that @small is left without a tf.cost).

tf.module @huge target #tf.target<"h100"> topologies [] {
  hir.func @small(%a: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %a : tensor<4xf32>
  }
  // expected-error @+1 {{pass 'tf-analyze' failed: function '@mm': 128000000000000000000000000 flops do not fit the i64 of tf.cost (at most 9223372036854775807)}}
  hir.func @mm(%a: tensor<400000000x400000000xf32>, %b: tensor<400000000x400000000xf32>) -> tensor<400000000x400000000xf32> {
    %c = tf.call tf.linalg.matmul(%a, %b) : (tensor<400000000x400000000xf32>, tensor<400000000x400000000xf32>) -> tensor<400000000x400000000xf32>
    hir.return %c : tensor<400000000x400000000xf32>
  }
}

// -----

tf.module @wide target #tf.target<"h100"> topologies [] {
  // expected-error @+1 {{pass 'tf-analyze' failed: function '@id': 128000000000000000000 bytes do not fit the i64 of tf.cost (at most 9223372036854775807)}}
  hir.func @id(%a: tensor<4000000000x4000000000xf32>) -> tensor<4000000000x4000000000xf32> {
    hir.return %a : tensor<4000000000x4000000000xf32>
  }
}
