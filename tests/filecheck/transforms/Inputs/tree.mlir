tf.module @decoder target #tf.target<"h100"> topologies [#tf.topology<"cluster", 2>, #tf.topology<"cta", 4>] entry @step {
  hir.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
    %h = tf.call @layer0::@block(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %h : tensor<4xf32>
  }
  tf.module @layer0 name "Layer" {
    hir.func @block(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = tf.call @mlp(%x) : (tensor<4xf32>) -> tensor<4xf32>
      hir.return %y : tensor<4xf32>
    }
    hir.func @mlp(%x: tensor<4xf32>) -> tensor<4xf32> {
      %e = tf.mesh "cta" {
        %0 = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
        tf.yield %0 : tensor<4xf32>
      } : tensor<4xf32>
      hir.return %e : tensor<4xf32>
    }
    tir.prim_func @kernel(%x: tensor<4xf32>, %out: !tf.buffer<4xf32>) -> () {
      %y = tir.let tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
      tir.evaluate tf.call tf.memory.copy(%out, %y) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
      tir.return
    }
    tf.module @inner topologies [#tf.topology<"cta", 2>] {
      hir.func @leaf(%x: tensor<4xf32>) -> tensor<4xf32> {
        hir.return %x : tensor<4xf32>
      }
    }
  }
}
