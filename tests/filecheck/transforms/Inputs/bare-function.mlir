hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>
  hir.return %y : tensor<4xf32>
}
