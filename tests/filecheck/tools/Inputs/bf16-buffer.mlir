tf.module @m entry @f {
  tir.prim_func @f(%b: !tf.buffer<2xbf16>, %x: tensor<2xbf16>) -> () {
    tir.return
  }
}
