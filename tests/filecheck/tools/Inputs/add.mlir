tf.module @add entry @f {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call tf.math.binary<kind = add>(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}
