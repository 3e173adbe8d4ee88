// The mean over an empty axis is NaN (0 / 0), with no numpy warning (lit makes a RuntimeWarning
// an error: it was an internal error).
// RUN: tf-run %s 2>&1 | filecheck %s
// CHECK:      {{^}}f(x[3, 0]){{$}}
// CHECK-NEXT: {{^}}  -> array[3] float32{{$}}
// CHECK-NEXT: {{^}}     [nan nan nan]{{$}}
// CHECK-NOT:  {{.}}
tf.module @m entry @f {
  hir.func @f(%x: tensor<3x0xf32>) -> tensor<3xf32> {
    %y = tf.call tf.reduce.mean<axis = 1>(%x) : (tensor<3x0xf32>) -> tensor<3xf32>
    hir.return %y : tensor<3xf32>
  }
}
