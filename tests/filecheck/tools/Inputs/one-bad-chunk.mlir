tf.module @first {
}
// -----
tf.module @second {
  frob.nicate
}
// -----
tf.module @third {
}
