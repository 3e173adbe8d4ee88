tf.module @md entry @f {
  hir.func @f(%x: tensor<4xf32> loc("m.py":1:7), %w: tensor<4xf32> {const} loc("w"("m.py":1:10))) -> tensor<4xf32> {
    %h = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("h"("m.py":2:5))
    %y = tf.call tf.math.binary<kind = add>(%h, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(fused["m.py":3:5, "y"])
    %z = tf.call tf.math.unary<kind = neg>(%y) : (tensor<4xf32>) -> tensor<4xf32> loc(fused<#tf.meta<"fusion_group", {group = 3 : i64}>>[unknown])
    hir.return %z : tensor<4xf32> loc("m.py":5:5)
  } loc("m.py":1:1)
} loc("m.py":0:1)
