tf.module @root target #tf.target<"h100"> topologies [] {
  hir.func @"a.b"(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
  tf.module @a {
    hir.func @b(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
      hir.return %y : tensor<4xf32>
    }
  }
  tf.module @"c d" {
    hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = tf.call tf.math.unary<kind = abs>(%x) : (tensor<4xf32>) -> tensor<4xf32>
      hir.return %y : tensor<4xf32>
    }
  }
}
