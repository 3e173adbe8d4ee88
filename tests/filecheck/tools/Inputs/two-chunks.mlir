tf.module @a {
}
// -----
tf.module @b {
}
