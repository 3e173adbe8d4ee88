// RUN: not tf-opt %s -p 'tf-fold-constants{max-elements=10000000000}' 2>&1 | filecheck %s --check-prefix=HUGE
// RUN: tf-opt %s -p 'tf-fold-constants{max-elements=1048576}' | filecheck %s

// A fold computes its result in memory, so max-elements is bounded (1048576): past it, the
// pipeline is refused in one line. At the bound, a splat of 10^10 elements is left alone.

hir.func @f() -> tensor<100000x100000xf32> {
  %c = tf.constant dense<1.0> : tensor<100000x100000xf32>
  %n = tf.call tf.math.unary<kind = neg>(%c) : (tensor<100000x100000xf32>) -> tensor<100000x100000xf32>
  hir.return %n : tensor<100000x100000xf32>
}

// HUGE: tf-opt: error: invalid pass pipeline 'tf-fold-constants{max-elements=10000000000}': pass 'tf-fold-constants': max-elements must be at most 1048576 (a fold computes its result in memory), got 10000000000 (at column 1)

// CHECK: %n = tf.call tf.math.unary<kind = neg>(%c)
