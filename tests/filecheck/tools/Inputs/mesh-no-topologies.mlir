tf.module @root target #tf.target<"h100"> {
  tf.module @c {
    hir.func @h(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = tf.mesh "cta" {
        %z = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>
        tf.yield %z : tensor<4xf32>
      } : tensor<4xf32>
      hir.return %y : tensor<4xf32>
    }
  }
}
