// RUN: tf-opt %s --split-input-file --verify-diagnostics -p 'tf-analyze{dims=seq=64}' | filecheck %s
// RUN: tf-opt %s --split-input-file --verify-diagnostics -p tf-analyze | filecheck %s --check-prefix=LARGEST

// tf-analyze records each function's cost on it (tf.cost): flops (matmul 2*M*K*N, an
// elementwise op one per output element, a reduction one per input element, plus what the
// callees count), bytes (its parameters and result, plus what the callees move), their own
// part (self_flops, self_bytes), and the roofline time on its target.
// H100: fp32 peak 6.69e13 flop/s, bandwidth 3.35e12 B/s.

tf.module @m target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>] entry @main {
  hir.func @main(%a: tensor<?x32xf32, #tf.dims<seq: 1 to 513>>, %b: tensor<32x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>> {
    %y = tf.call tf.linalg.matmul(%a, %b) : (tensor<?x32xf32, #tf.dims<seq: 1 to 513>>, tensor<32x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    %z = tf.call @layer::@act(%y) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    hir.return %z : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
  }
  tf.module @layer {
    hir.func @act(%x: tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>> {
      %e = tf.call tf.math.unary<kind = exp>(%x) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      %s = tf.call tf.reduce.sum<axis = 1, keepdims = true>(%e) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x1xf32, #tf.dims<seq: 1 to 513>>
      %d = tf.call tf.math.binary<kind = div>(%e, %s) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>, tensor<?x1xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      hir.return %d : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    }
  }
}

// seq = 64: matmul 2*64*32*16 = 65536; act: exp 1024 + sum 1024 + div 1024 = 3072.
// bytes: main (64*32 + 32*16 + 64*16) * 4 = 14336 of its own, 22528 with the 8192 of act;
// act (64*16 * 2) * 4 = 8192.
// CHECK-LABEL: hir.func @main(
// CHECK-SAME:    attributes {tf.cost = {flops = 68608 : i64, bytes = 22528 : i64, time_s = {{.*}} : f64, bound = "memory", self_flops = 65536 : i64, self_bytes = 14336 : i64}}
// CHECK:         hir.func @act(
// CHECK-SAME:    attributes {tf.cost = {flops = 3072 : i64, bytes = 8192 : i64, time_s = {{.*}} : f64, bound = "memory", self_flops = 3072 : i64, self_bytes = 8192 : i64}}

// Without dims a DimVar takes the largest size of its envelope (seq = 512).
// LARGEST-LABEL: hir.func @main(
// LARGEST-SAME:    tf.cost = {flops = 548864 : i64, bytes = 165888 : i64

// -----

// A compute-bound matmul: 2*M*K*N exactly, at the bf16 tensor peak; a variant chosen by the
// sizes, as at run time; a dispatch counts the case the sizes choose.

tf.module @mm target #tf.target<"h100"> topologies [] {
  hir.func @gemm(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16> {
    %c = tf.call tf.linalg.matmul(%a, %b) : (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16>
    hir.return %c : tensor<1024x1024xbf16>
  }
  hir.func @pick(%x: tensor<?xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?xf32, #tf.dims<seq: 1 to 513>> {
    hir.return %x : tensor<?xf32, #tf.dims<seq: 1 to 513>>
  } variants {
    hir.variant [seq: 1 to 128] (%x: tensor<?xf32, #tf.dims<seq: 1 to 513>>) {
      %e = tf.call tf.math.unary<kind = exp>(%x) : (tensor<?xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?xf32, #tf.dims<seq: 1 to 513>>
      hir.return %e : tensor<?xf32, #tf.dims<seq: 1 to 513>>
    }
  }
}

// 2 * 1024^3 = 2147483648 flops at 9.894e14 flop/s: 2.17e-06 s; 3 * 2 MiB at 3.35e12 B/s: 1.88e-06 s.
// CHECK-LABEL: hir.func @gemm(
// CHECK-SAME:    tf.cost = {flops = 2147483648 : i64, bytes = 6291456 : i64, time_s = 2.17{{[0-9]*}}e-06 : f64, bound = "compute", self_flops = 2147483648 : i64, self_bytes = 6291456 : i64}
// seq = 64 runs the variant: 64 exps.
// CHECK:         hir.func @pick(
// CHECK-SAME:    tf.cost = {flops = 64 : i64, bytes = 512 : i64
// seq = 512 runs the body: no flops.
// LARGEST:       hir.func @pick(
// LARGEST-SAME:    tf.cost = {flops = 0 : i64, bytes = 4096 : i64

// -----

// TIR: statements count, a dispatch counts the case the sizes choose.

tf.module @k target #tf.target<"h100"> topologies [] {
  tir.prim_func @pick(%x: tensor<?xf32, #tf.dims<seq: 1 to 4097>>) -> tensor<?xf32, #tf.dims<seq: 1 to 4097>> {
    %y = tir.let tir.dispatch [@small: [seq: 1 to 128], @large: [seq: 128 to 4097]](%x) : (tensor<?xf32, #tf.dims<seq: 1 to 4097>>) -> tensor<?xf32, #tf.dims<seq: 1 to 4097>>
    tir.return %y : tensor<?xf32, #tf.dims<seq: 1 to 4097>>
  }
  tir.prim_func @small(%x: tensor<?xf32, #tf.dims<seq: 1 to 4097>>) -> tensor<?xf32, #tf.dims<seq: 1 to 4097>> {
    tir.return %x : tensor<?xf32, #tf.dims<seq: 1 to 4097>>
  }
  tir.prim_func @large(%x: tensor<?xf32, #tf.dims<seq: 1 to 4097>>) -> tensor<?xf32, #tf.dims<seq: 1 to 4097>> {
    %y = tir.let tf.call tf.math.unary<kind = neg>(%x) : (tensor<?xf32, #tf.dims<seq: 1 to 4097>>) -> tensor<?xf32, #tf.dims<seq: 1 to 4097>>
    tir.return %y : tensor<?xf32, #tf.dims<seq: 1 to 4097>>
  }
}

// CHECK-LABEL: tir.prim_func @pick(
// CHECK-SAME:    tf.cost = {flops = 0 : i64
// LARGEST-LABEL: tir.prim_func @pick(
// LARGEST-SAME:    tf.cost = {flops = 4096 : i64
