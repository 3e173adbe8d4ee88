// The example decoder as text: what `examples/decoder.py` builds with
// `build_decoder(num_layers=4, d_model=16, d_ff=32)` and `tf.print_module` prints
// (tests/unit/cross_cutting/examples/test_example_files.py checks that it still is). Four layers, each an
// attention and an MLP with RMSNorm and a residual, under an H100 root with a cluster/cta/warp
// hierarchy; the root's entry `step` calls the layers in turn.
//
//   tf-run examples/decoder.mlir --dim seq=4
//   tf-opt examples/decoder.mlir -p 'tf-select{path=layer2.block},tf-inline,tf-prune-unreachable,canonicalize,cse,tf-analyze{dims=seq=512}'
//   tf-tree examples/decoder.mlir
tf.module @decoder target #tf.target<"h100"> topologies [#tf.topology<"cluster", 2>, #tf.topology<"cta", 4>, #tf.topology<"warp", 4>] entry @step metadata {opt_level = 2 : i64} {
  hir.func @step(%x: tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, %layer0.norm1: tensor<16xf32> {const}, %layer0.wq: tensor<16x16xf32> {const}, %layer0.wk: tensor<16x16xf32> {const}, %layer0.wv: tensor<16x16xf32> {const}, %layer0.wo: tensor<16x16xf32> {const}, %layer0.norm2: tensor<16xf32> {const}, %layer0.w_up: tensor<16x32xf32> {const}, %layer0.w_down: tensor<32x16xf32> {const}, %layer1.norm1: tensor<16xf32> {const}, %layer1.wq: tensor<16x16xf32> {const}, %layer1.wk: tensor<16x16xf32> {const}, %layer1.wv: tensor<16x16xf32> {const}, %layer1.wo: tensor<16x16xf32> {const}, %layer1.norm2: tensor<16xf32> {const}, %layer1.w_up: tensor<16x32xf32> {const}, %layer1.w_down: tensor<32x16xf32> {const}, %layer2.norm1: tensor<16xf32> {const}, %layer2.wq: tensor<16x16xf32> {const}, %layer2.wk: tensor<16x16xf32> {const}, %layer2.wv: tensor<16x16xf32> {const}, %layer2.wo: tensor<16x16xf32> {const}, %layer2.norm2: tensor<16xf32> {const}, %layer2.w_up: tensor<16x32xf32> {const}, %layer2.w_down: tensor<32x16xf32> {const}, %layer3.norm1: tensor<16xf32> {const}, %layer3.wq: tensor<16x16xf32> {const}, %layer3.wk: tensor<16x16xf32> {const}, %layer3.wv: tensor<16x16xf32> {const}, %layer3.wo: tensor<16x16xf32> {const}, %layer3.norm2: tensor<16xf32> {const}, %layer3.w_up: tensor<16x32xf32> {const}, %layer3.w_down: tensor<32x16xf32> {const}) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>> {
    %layer0 = tf.call @layer0::@block(%x, %layer0.norm1, %layer0.wq, %layer0.wk, %layer0.wv, %layer0.wo, %layer0.norm2, %layer0.w_up, %layer0.w_down) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    %layer1 = tf.call @layer1::@block(%layer0, %layer1.norm1, %layer1.wq, %layer1.wk, %layer1.wv, %layer1.wo, %layer1.norm2, %layer1.w_up, %layer1.w_down) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    %layer2 = tf.call @layer2::@block(%layer1, %layer2.norm1, %layer2.wq, %layer2.wk, %layer2.wv, %layer2.wo, %layer2.norm2, %layer2.w_up, %layer2.w_down) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    %layer3 = tf.call @layer3::@block(%layer2, %layer3.norm1, %layer3.wq, %layer3.wk, %layer3.wv, %layer3.wo, %layer3.norm2, %layer3.w_up, %layer3.w_down) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    hir.return %layer3 : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
  }
  tf.module @layer0 {
    hir.func @block(%x: tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, %norm1: tensor<16xf32> {const}, %wq: tensor<16x16xf32> {const}, %wk: tensor<16x16xf32> {const}, %wv: tensor<16x16xf32> {const}, %wo: tensor<16x16xf32> {const}, %norm2: tensor<16xf32> {const}, %w_up: tensor<16x32xf32> {const}, %w_down: tensor<32x16xf32> {const}) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>> {
      %h = tf.call @attention(%x, %norm1, %wq, %wk, %wv, %wo) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      %0 = tf.call @mlp(%h, %norm2, %w_up, %w_down) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>, tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      hir.return %0 : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    }
    hir.func @attention(%x: tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, %norm1: tensor<16xf32> {const}, %wq: tensor<16x16xf32> {const}, %wk: tensor<16x16xf32> {const}, %wv: tensor<16x16xf32> {const}, %wo: tensor<16x16xf32> {const}) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>> {
      %attn = tf.mesh "cta" {
        %0 = tf.constant dense<1.000000e+00> : tensor<1xf32>
        %1 = tf.constant dense<1.600000e+01> : tensor<1xf32>
        %2 = tf.call tf.math.binary<kind = div>(%0, %1) : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
        %3 = tf.call tf.math.binary<kind = mul>(%x, %x) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %4 = tf.call tf.reduce.sum<axis = -1, keepdims = true>(%3) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %5 = tf.call tf.math.binary<kind = mul>(%4, %2) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %6 = tf.constant dense<1.000000e-06> : tensor<1xf32>
        %7 = tf.call tf.math.binary<kind = add>(%5, %6) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %8 = tf.call tf.math.unary<kind = rsqrt>(%7) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %9 = tf.call tf.math.binary<kind = mul>(%x, %8) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %10 = tf.call tf.math.binary<kind = mul>(%9, %norm1) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %11 = tf.call tf.linalg.matmul(%10, %wq) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %12 = tf.call tf.linalg.matmul(%10, %wk) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %13 = tf.call tf.linalg.matmul(%10, %wv) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %14 = tf.constant dense<1.600000e+01> : tensor<1xf32>
        %15 = tf.call tf.math.unary<kind = rsqrt>(%14) : (tensor<1xf32>) -> tensor<1xf32>
        %16 = tf.call tf.linalg.transpose<perm = [1, 0]>(%12) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<16x?xf32, #tf.dims<seq: 1 to 513>>
        %17 = tf.call tf.linalg.matmul(%11, %16) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x?xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %18 = tf.call tf.math.binary<kind = mul>(%17, %15) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %19 = tf.call tf.reduce.max<axis = -1, keepdims = true>(%18) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %20 = tf.call tf.math.binary<kind = sub>(%18, %19) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>, tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %21 = tf.call tf.math.unary<kind = exp>(%20) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %22 = tf.call tf.reduce.sum<axis = -1, keepdims = true>(%21) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %23 = tf.call tf.math.binary<kind = div>(%21, %22) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>, tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %24 = tf.call tf.linalg.matmul(%23, %13) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %25 = tf.call tf.linalg.matmul(%24, %wo) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %26 = tf.call tf.math.binary<kind = add>(%x, %25) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        tf.yield %26 : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      } : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      hir.return %attn : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    }
    hir.func @mlp(%x: tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, %norm2: tensor<16xf32> {const}, %w_up: tensor<16x32xf32> {const}, %w_down: tensor<32x16xf32> {const}) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>> {
      %0 = tf.mesh "warp" {
        %1 = tf.constant dense<1.000000e+00> : tensor<1xf32>
        %2 = tf.constant dense<1.600000e+01> : tensor<1xf32>
        %3 = tf.call tf.math.binary<kind = div>(%1, %2) : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
        %4 = tf.call tf.math.binary<kind = mul>(%x, %x) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %5 = tf.call tf.reduce.sum<axis = -1, keepdims = true>(%4) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %6 = tf.call tf.math.binary<kind = mul>(%5, %3) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %7 = tf.constant dense<1.000000e-06> : tensor<1xf32>
        %8 = tf.call tf.math.binary<kind = add>(%6, %7) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %9 = tf.call tf.math.unary<kind = rsqrt>(%8) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %10 = tf.call tf.math.binary<kind = mul>(%x, %9) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %11 = tf.call tf.math.binary<kind = mul>(%10, %norm2) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %12 = tf.call tf.linalg.matmul(%11, %w_up) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x32xf32>) -> tensor<?x32xf32, #tf.dims<seq: 1 to 513>>
        %13 = tf.call tf.math.unary<kind = sigmoid>(%12) : (tensor<?x32xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x32xf32, #tf.dims<seq: 1 to 513>>
        %14 = tf.call tf.math.binary<kind = mul>(%12, %13) : (tensor<?x32xf32, #tf.dims<seq: 1 to 513>>, tensor<?x32xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x32xf32, #tf.dims<seq: 1 to 513>>
        %15 = tf.call tf.linalg.matmul(%14, %w_down) : (tensor<?x32xf32, #tf.dims<seq: 1 to 513>>, tensor<32x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %16 = tf.call tf.math.binary<kind = add>(%x, %15) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        tf.yield %16 : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      } : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      hir.return %0 : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    }
  }
  tf.module @layer1 {
    hir.func @block(%x: tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, %norm1: tensor<16xf32> {const}, %wq: tensor<16x16xf32> {const}, %wk: tensor<16x16xf32> {const}, %wv: tensor<16x16xf32> {const}, %wo: tensor<16x16xf32> {const}, %norm2: tensor<16xf32> {const}, %w_up: tensor<16x32xf32> {const}, %w_down: tensor<32x16xf32> {const}) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>> {
      %h = tf.call @attention(%x, %norm1, %wq, %wk, %wv, %wo) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      %0 = tf.call @mlp(%h, %norm2, %w_up, %w_down) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>, tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      hir.return %0 : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    }
    hir.func @attention(%x: tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, %norm1: tensor<16xf32> {const}, %wq: tensor<16x16xf32> {const}, %wk: tensor<16x16xf32> {const}, %wv: tensor<16x16xf32> {const}, %wo: tensor<16x16xf32> {const}) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>> {
      %attn = tf.mesh "cta" {
        %0 = tf.constant dense<1.000000e+00> : tensor<1xf32>
        %1 = tf.constant dense<1.600000e+01> : tensor<1xf32>
        %2 = tf.call tf.math.binary<kind = div>(%0, %1) : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
        %3 = tf.call tf.math.binary<kind = mul>(%x, %x) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %4 = tf.call tf.reduce.sum<axis = -1, keepdims = true>(%3) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %5 = tf.call tf.math.binary<kind = mul>(%4, %2) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %6 = tf.constant dense<1.000000e-06> : tensor<1xf32>
        %7 = tf.call tf.math.binary<kind = add>(%5, %6) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %8 = tf.call tf.math.unary<kind = rsqrt>(%7) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %9 = tf.call tf.math.binary<kind = mul>(%x, %8) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %10 = tf.call tf.math.binary<kind = mul>(%9, %norm1) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %11 = tf.call tf.linalg.matmul(%10, %wq) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %12 = tf.call tf.linalg.matmul(%10, %wk) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %13 = tf.call tf.linalg.matmul(%10, %wv) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %14 = tf.constant dense<1.600000e+01> : tensor<1xf32>
        %15 = tf.call tf.math.unary<kind = rsqrt>(%14) : (tensor<1xf32>) -> tensor<1xf32>
        %16 = tf.call tf.linalg.transpose<perm = [1, 0]>(%12) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<16x?xf32, #tf.dims<seq: 1 to 513>>
        %17 = tf.call tf.linalg.matmul(%11, %16) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x?xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %18 = tf.call tf.math.binary<kind = mul>(%17, %15) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %19 = tf.call tf.reduce.max<axis = -1, keepdims = true>(%18) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %20 = tf.call tf.math.binary<kind = sub>(%18, %19) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>, tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %21 = tf.call tf.math.unary<kind = exp>(%20) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %22 = tf.call tf.reduce.sum<axis = -1, keepdims = true>(%21) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %23 = tf.call tf.math.binary<kind = div>(%21, %22) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>, tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %24 = tf.call tf.linalg.matmul(%23, %13) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %25 = tf.call tf.linalg.matmul(%24, %wo) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %26 = tf.call tf.math.binary<kind = add>(%x, %25) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        tf.yield %26 : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      } : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      hir.return %attn : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    }
    hir.func @mlp(%x: tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, %norm2: tensor<16xf32> {const}, %w_up: tensor<16x32xf32> {const}, %w_down: tensor<32x16xf32> {const}) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>> {
      %0 = tf.mesh "warp" {
        %1 = tf.constant dense<1.000000e+00> : tensor<1xf32>
        %2 = tf.constant dense<1.600000e+01> : tensor<1xf32>
        %3 = tf.call tf.math.binary<kind = div>(%1, %2) : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
        %4 = tf.call tf.math.binary<kind = mul>(%x, %x) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %5 = tf.call tf.reduce.sum<axis = -1, keepdims = true>(%4) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %6 = tf.call tf.math.binary<kind = mul>(%5, %3) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %7 = tf.constant dense<1.000000e-06> : tensor<1xf32>
        %8 = tf.call tf.math.binary<kind = add>(%6, %7) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %9 = tf.call tf.math.unary<kind = rsqrt>(%8) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %10 = tf.call tf.math.binary<kind = mul>(%x, %9) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %11 = tf.call tf.math.binary<kind = mul>(%10, %norm2) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %12 = tf.call tf.linalg.matmul(%11, %w_up) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x32xf32>) -> tensor<?x32xf32, #tf.dims<seq: 1 to 513>>
        %13 = tf.call tf.math.unary<kind = sigmoid>(%12) : (tensor<?x32xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x32xf32, #tf.dims<seq: 1 to 513>>
        %14 = tf.call tf.math.binary<kind = mul>(%12, %13) : (tensor<?x32xf32, #tf.dims<seq: 1 to 513>>, tensor<?x32xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x32xf32, #tf.dims<seq: 1 to 513>>
        %15 = tf.call tf.linalg.matmul(%14, %w_down) : (tensor<?x32xf32, #tf.dims<seq: 1 to 513>>, tensor<32x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %16 = tf.call tf.math.binary<kind = add>(%x, %15) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        tf.yield %16 : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      } : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      hir.return %0 : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    }
  }
  tf.module @layer2 {
    hir.func @block(%x: tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, %norm1: tensor<16xf32> {const}, %wq: tensor<16x16xf32> {const}, %wk: tensor<16x16xf32> {const}, %wv: tensor<16x16xf32> {const}, %wo: tensor<16x16xf32> {const}, %norm2: tensor<16xf32> {const}, %w_up: tensor<16x32xf32> {const}, %w_down: tensor<32x16xf32> {const}) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>> {
      %h = tf.call @attention(%x, %norm1, %wq, %wk, %wv, %wo) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      %0 = tf.call @mlp(%h, %norm2, %w_up, %w_down) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>, tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      hir.return %0 : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    }
    hir.func @attention(%x: tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, %norm1: tensor<16xf32> {const}, %wq: tensor<16x16xf32> {const}, %wk: tensor<16x16xf32> {const}, %wv: tensor<16x16xf32> {const}, %wo: tensor<16x16xf32> {const}) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>> {
      %attn = tf.mesh "cta" {
        %0 = tf.constant dense<1.000000e+00> : tensor<1xf32>
        %1 = tf.constant dense<1.600000e+01> : tensor<1xf32>
        %2 = tf.call tf.math.binary<kind = div>(%0, %1) : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
        %3 = tf.call tf.math.binary<kind = mul>(%x, %x) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %4 = tf.call tf.reduce.sum<axis = -1, keepdims = true>(%3) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %5 = tf.call tf.math.binary<kind = mul>(%4, %2) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %6 = tf.constant dense<1.000000e-06> : tensor<1xf32>
        %7 = tf.call tf.math.binary<kind = add>(%5, %6) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %8 = tf.call tf.math.unary<kind = rsqrt>(%7) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %9 = tf.call tf.math.binary<kind = mul>(%x, %8) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %10 = tf.call tf.math.binary<kind = mul>(%9, %norm1) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %11 = tf.call tf.linalg.matmul(%10, %wq) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %12 = tf.call tf.linalg.matmul(%10, %wk) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %13 = tf.call tf.linalg.matmul(%10, %wv) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %14 = tf.constant dense<1.600000e+01> : tensor<1xf32>
        %15 = tf.call tf.math.unary<kind = rsqrt>(%14) : (tensor<1xf32>) -> tensor<1xf32>
        %16 = tf.call tf.linalg.transpose<perm = [1, 0]>(%12) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<16x?xf32, #tf.dims<seq: 1 to 513>>
        %17 = tf.call tf.linalg.matmul(%11, %16) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x?xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %18 = tf.call tf.math.binary<kind = mul>(%17, %15) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %19 = tf.call tf.reduce.max<axis = -1, keepdims = true>(%18) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %20 = tf.call tf.math.binary<kind = sub>(%18, %19) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>, tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %21 = tf.call tf.math.unary<kind = exp>(%20) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %22 = tf.call tf.reduce.sum<axis = -1, keepdims = true>(%21) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %23 = tf.call tf.math.binary<kind = div>(%21, %22) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>, tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %24 = tf.call tf.linalg.matmul(%23, %13) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %25 = tf.call tf.linalg.matmul(%24, %wo) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %26 = tf.call tf.math.binary<kind = add>(%x, %25) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        tf.yield %26 : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      } : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      hir.return %attn : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    }
    hir.func @mlp(%x: tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, %norm2: tensor<16xf32> {const}, %w_up: tensor<16x32xf32> {const}, %w_down: tensor<32x16xf32> {const}) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>> {
      %0 = tf.mesh "warp" {
        %1 = tf.constant dense<1.000000e+00> : tensor<1xf32>
        %2 = tf.constant dense<1.600000e+01> : tensor<1xf32>
        %3 = tf.call tf.math.binary<kind = div>(%1, %2) : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
        %4 = tf.call tf.math.binary<kind = mul>(%x, %x) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %5 = tf.call tf.reduce.sum<axis = -1, keepdims = true>(%4) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %6 = tf.call tf.math.binary<kind = mul>(%5, %3) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %7 = tf.constant dense<1.000000e-06> : tensor<1xf32>
        %8 = tf.call tf.math.binary<kind = add>(%6, %7) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %9 = tf.call tf.math.unary<kind = rsqrt>(%8) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %10 = tf.call tf.math.binary<kind = mul>(%x, %9) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %11 = tf.call tf.math.binary<kind = mul>(%10, %norm2) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %12 = tf.call tf.linalg.matmul(%11, %w_up) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x32xf32>) -> tensor<?x32xf32, #tf.dims<seq: 1 to 513>>
        %13 = tf.call tf.math.unary<kind = sigmoid>(%12) : (tensor<?x32xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x32xf32, #tf.dims<seq: 1 to 513>>
        %14 = tf.call tf.math.binary<kind = mul>(%12, %13) : (tensor<?x32xf32, #tf.dims<seq: 1 to 513>>, tensor<?x32xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x32xf32, #tf.dims<seq: 1 to 513>>
        %15 = tf.call tf.linalg.matmul(%14, %w_down) : (tensor<?x32xf32, #tf.dims<seq: 1 to 513>>, tensor<32x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %16 = tf.call tf.math.binary<kind = add>(%x, %15) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        tf.yield %16 : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      } : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      hir.return %0 : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    }
  }
  tf.module @layer3 {
    hir.func @block(%x: tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, %norm1: tensor<16xf32> {const}, %wq: tensor<16x16xf32> {const}, %wk: tensor<16x16xf32> {const}, %wv: tensor<16x16xf32> {const}, %wo: tensor<16x16xf32> {const}, %norm2: tensor<16xf32> {const}, %w_up: tensor<16x32xf32> {const}, %w_down: tensor<32x16xf32> {const}) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>> {
      %h = tf.call @attention(%x, %norm1, %wq, %wk, %wv, %wo) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      %0 = tf.call @mlp(%h, %norm2, %w_up, %w_down) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>, tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      hir.return %0 : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    }
    hir.func @attention(%x: tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, %norm1: tensor<16xf32> {const}, %wq: tensor<16x16xf32> {const}, %wk: tensor<16x16xf32> {const}, %wv: tensor<16x16xf32> {const}, %wo: tensor<16x16xf32> {const}) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>> {
      %attn = tf.mesh "cta" {
        %0 = tf.constant dense<1.000000e+00> : tensor<1xf32>
        %1 = tf.constant dense<1.600000e+01> : tensor<1xf32>
        %2 = tf.call tf.math.binary<kind = div>(%0, %1) : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
        %3 = tf.call tf.math.binary<kind = mul>(%x, %x) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %4 = tf.call tf.reduce.sum<axis = -1, keepdims = true>(%3) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %5 = tf.call tf.math.binary<kind = mul>(%4, %2) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %6 = tf.constant dense<1.000000e-06> : tensor<1xf32>
        %7 = tf.call tf.math.binary<kind = add>(%5, %6) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %8 = tf.call tf.math.unary<kind = rsqrt>(%7) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %9 = tf.call tf.math.binary<kind = mul>(%x, %8) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %10 = tf.call tf.math.binary<kind = mul>(%9, %norm1) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %11 = tf.call tf.linalg.matmul(%10, %wq) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %12 = tf.call tf.linalg.matmul(%10, %wk) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %13 = tf.call tf.linalg.matmul(%10, %wv) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %14 = tf.constant dense<1.600000e+01> : tensor<1xf32>
        %15 = tf.call tf.math.unary<kind = rsqrt>(%14) : (tensor<1xf32>) -> tensor<1xf32>
        %16 = tf.call tf.linalg.transpose<perm = [1, 0]>(%12) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<16x?xf32, #tf.dims<seq: 1 to 513>>
        %17 = tf.call tf.linalg.matmul(%11, %16) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x?xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %18 = tf.call tf.math.binary<kind = mul>(%17, %15) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %19 = tf.call tf.reduce.max<axis = -1, keepdims = true>(%18) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %20 = tf.call tf.math.binary<kind = sub>(%18, %19) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>, tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %21 = tf.call tf.math.unary<kind = exp>(%20) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %22 = tf.call tf.reduce.sum<axis = -1, keepdims = true>(%21) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %23 = tf.call tf.math.binary<kind = div>(%21, %22) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>, tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>
        %24 = tf.call tf.linalg.matmul(%23, %13) : (tensor<?x?xf32, #tf.dims<seq: 1 to 513, seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %25 = tf.call tf.linalg.matmul(%24, %wo) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %26 = tf.call tf.math.binary<kind = add>(%x, %25) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        tf.yield %26 : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      } : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      hir.return %attn : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    }
    hir.func @mlp(%x: tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, %norm2: tensor<16xf32> {const}, %w_up: tensor<16x32xf32> {const}, %w_down: tensor<32x16xf32> {const}) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>> {
      %0 = tf.mesh "warp" {
        %1 = tf.constant dense<1.000000e+00> : tensor<1xf32>
        %2 = tf.constant dense<1.600000e+01> : tensor<1xf32>
        %3 = tf.call tf.math.binary<kind = div>(%1, %2) : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
        %4 = tf.call tf.math.binary<kind = mul>(%x, %x) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %5 = tf.call tf.reduce.sum<axis = -1, keepdims = true>(%4) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %6 = tf.call tf.math.binary<kind = mul>(%5, %3) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %7 = tf.constant dense<1.000000e-06> : tensor<1xf32>
        %8 = tf.call tf.math.binary<kind = add>(%6, %7) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>, tensor<1xf32>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %9 = tf.call tf.math.unary<kind = rsqrt>(%8) : (tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
        %10 = tf.call tf.math.binary<kind = mul>(%x, %9) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %11 = tf.call tf.math.binary<kind = mul>(%10, %norm2) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %12 = tf.call tf.linalg.matmul(%11, %w_up) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<16x32xf32>) -> tensor<?x32xf32, #tf.dims<seq: 1 to 513>>
        %13 = tf.call tf.math.unary<kind = sigmoid>(%12) : (tensor<?x32xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x32xf32, #tf.dims<seq: 1 to 513>>
        %14 = tf.call tf.math.binary<kind = mul>(%12, %13) : (tensor<?x32xf32, #tf.dims<seq: 1 to 513>>, tensor<?x32xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x32xf32, #tf.dims<seq: 1 to 513>>
        %15 = tf.call tf.linalg.matmul(%14, %w_down) : (tensor<?x32xf32, #tf.dims<seq: 1 to 513>>, tensor<32x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        %16 = tf.call tf.math.binary<kind = add>(%x, %15) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
        tf.yield %16 : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      } : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      hir.return %0 : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    }
  }
}
