// A TIR kernel module: buffers written in place, a dispatch on the row count, a scratch buffer.
//
//   tf-run examples/kernel.mlir --dim n=4                       # scale_rows on random inputs
//   tf-run examples/kernel.mlir --dim n=4 --output out=out.npy  # ... and save the buffer `out`
//   tf-run examples/kernel.mlir --function accumulate
//   tf-tree examples/kernel.mlir
//
// `scale_rows` writes `out = x * gain` (each row of `x` times `gain`): up to 16 rows in one
// statement (`scale_small`), more as `(x * (gain * 2)) * 0.5`, a statement whose body holds
// several ops (`scale_large`; scaling by 2 and by 0.5 is exact, so both cases give the same bits).
// `accumulate` adds `x` to the buffer `acc` through a zero-initialised scratch buffer.
tf.module @kernels target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>, #tf.topology<"warp", 4>] entry @scale_rows {
  tir.prim_func @scale_rows(%x: tensor<?x8xf32, #tf.dims<n: 1 to 257>>, %gain: tensor<8xf32>, %out: !tf.buffer<?x8xf32, #tf.dims<n: 1 to 257>>) -> () {
    %y = tir.let tir.dispatch [@scale_small: [n: 1 to 17], @scale_large: [n: 17 to 257]](%x, %gain) : (tensor<?x8xf32, #tf.dims<n: 1 to 257>>, tensor<8xf32>) -> tensor<?x8xf32, #tf.dims<n: 1 to 257>>
    tir.evaluate tf.call tf.memory.copy(%out, %y) : (!tf.buffer<?x8xf32, #tf.dims<n: 1 to 257>>, tensor<?x8xf32, #tf.dims<n: 1 to 257>>) -> ()
    tir.return
  }
  tir.prim_func @scale_small(%x: tensor<?x8xf32, #tf.dims<n: 1 to 257>>, %gain: tensor<8xf32>) -> tensor<?x8xf32, #tf.dims<n: 1 to 257>> {
    %y = tir.let tf.call tf.math.binary<kind = mul>(%x, %gain) : (tensor<?x8xf32, #tf.dims<n: 1 to 257>>, tensor<8xf32>) -> tensor<?x8xf32, #tf.dims<n: 1 to 257>>
    tir.return %y : tensor<?x8xf32, #tf.dims<n: 1 to 257>>
  }
  tir.prim_func @scale_large(%x: tensor<?x8xf32, #tf.dims<n: 1 to 257>>, %gain: tensor<8xf32>) -> tensor<?x8xf32, #tf.dims<n: 1 to 257>> {
    %y = tir.let -> tensor<?x8xf32, #tf.dims<n: 1 to 257>> {
      %two = tf.constant dense<2.000000e+00> : tensor<1xf32>
      %half = tf.constant dense<5.000000e-01> : tensor<1xf32>
      %g2 = tf.call tf.math.binary<kind = mul>(%gain, %two) : (tensor<8xf32>, tensor<1xf32>) -> tensor<8xf32>
      %p = tf.call tf.math.binary<kind = mul>(%x, %g2) : (tensor<?x8xf32, #tf.dims<n: 1 to 257>>, tensor<8xf32>) -> tensor<?x8xf32, #tf.dims<n: 1 to 257>>
      %r = tf.call tf.math.binary<kind = mul>(%p, %half) : (tensor<?x8xf32, #tf.dims<n: 1 to 257>>, tensor<1xf32>) -> tensor<?x8xf32, #tf.dims<n: 1 to 257>>
      tir.yield %r : tensor<?x8xf32, #tf.dims<n: 1 to 257>>
    }
    tir.return %y : tensor<?x8xf32, #tf.dims<n: 1 to 257>>
  }
  tir.prim_func @accumulate(%acc: !tf.buffer<8xf32>, %x: tensor<8xf32>) -> () {
    %old = tir.let tf.call tf.memory.load(%acc) : (!tf.buffer<8xf32>) -> tensor<8xf32>
    %tmp = tir.let tf.call tf.memory.alloc<shape = [8], dtype = f32>() : () -> !tf.buffer<8xf32>
    %sum = tir.let tf.call tf.math.binary<kind = add>(%old, %x) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    tir.evaluate tf.call tf.memory.copy(%tmp, %sum) : (!tf.buffer<8xf32>, tensor<8xf32>) -> ()
    tir.evaluate tf.call tf.memory.copy(%acc, %tmp) : (!tf.buffer<8xf32>, !tf.buffer<8xf32>) -> ()
    tir.return
  }
}
