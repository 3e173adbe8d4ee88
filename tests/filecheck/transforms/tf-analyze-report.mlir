// RUN: tf-opt %s -p 'tf-analyze{dims=seq=64}' -o /dev/null 2>&1 | filecheck %s --check-prefix=TABLE
// RUN: tf-opt %s -p 'tf-analyze{dims=seq=64 table=%t.txt plot=%t.svg}' -o /dev/null 2>&1 | filecheck %s --allow-empty --check-prefix=QUIET
// RUN: filecheck %s --check-prefix=TABLE < %t.txt
// RUN: filecheck %s --check-prefix=PLOT < %t.svg

// tf-analyze prints a row per function instance, by its select path, to stderr (or to the
// file `table` names); `plot` draws the roofline of the device, a labelled point per function.

tf.module @m target #tf.target<"h100"> topologies [] entry @main {
  hir.func @main(%a: tensor<?x32xf32, #tf.dims<seq: 1 to 513>>, %b: tensor<32x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>> {
    %y = tf.call tf.linalg.matmul(%a, %b) : (tensor<?x32xf32, #tf.dims<seq: 1 to 513>>, tensor<32x16xf32>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    %z = tf.call @layer::@act(%y) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    hir.return %z : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
  }
  tf.module @layer {
    hir.func @act(%x: tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>> {
      %e = tf.call tf.math.unary<kind = exp>(%x) : (tensor<?x16xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
      hir.return %e : tensor<?x16xf32, #tf.dims<seq: 1 to 513>>
    }
  }
}

// TABLE:      tf-analyze on h100 (NVIDIA H100 SXM5 80GB): 3.35e+12 B/s; fp32 6.69e+13 FLOP/s
// TABLE-NEXT: function   self FLOPs   FLOPs  self bytes   bytes  FLOP/B  roofline time  bound
// TABLE-NEXT: ---------  ----------  ------  ----------  ------  ------  -------------  ------
// TABLE-NEXT: main           65,536  66,560      14,336  22,528    2.95        6.72 ns  memory
// TABLE-NEXT: layer.act       1,024   1,024       8,192   8,192    0.12        2.45 ns  memory
// TABLE-NOT:  {{.}}

// With the files named, nothing goes to stderr.
// QUIET-NOT:  {{.}}

// PLOT:      <svg xmlns="http://www.w3.org/2000/svg"
// PLOT:      Roofline of NVIDIA H100 SXM5 80GB (h100)
// PLOT-DAG:  <line class="roof memory"
// PLOT-DAG:  <line class="roof compute"
// PLOT-DAG:  <circle class="point" data-path="main" {{.*}}<title>main: 66,560 FLOPs, 22,528 bytes,
// PLOT-DAG:  <circle class="point" data-path="layer.act" {{.*}}<title>layer.act: 1,024 FLOPs, 8,192 bytes,
// PLOT-DAG:  <text class="label" {{.*}}>main</text>
// PLOT-DAG:  <text class="label" {{.*}}>layer.act</text>
// PLOT-DAG:  arithmetic intensity (FLOP / byte)
// PLOT:      </svg>
