tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %w = tf.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %one = tf.constant dense<1.0> : tensor<4xf32>
    %a = tf.call tf.math.binary<kind = mul>(%x, %one) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call tf.math.binary<kind = mul>(%x, %one) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %c = tf.call tf.math.binary<kind = add>(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d = tf.call tf.math.binary<kind = add>(%c, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %d : tensor<4xf32>
  }
}
