// RUN: tf-opt %s -p 'tf-analyze{dims=seq=512}' | filecheck %s
// RUN: not tf-opt %s -p 'tf-analyze{dims=sqe=512}' 2>&1 | filecheck %s --check-prefix=TYPO
// RUN: not tf-opt %s -p 'tf-analyze{dims=seq=513}' 2>&1 | filecheck %s --check-prefix=OUTSIDE
// RUN: not tf-opt %s -p 'tf-analyze{dims=seq=0}' 2>&1 | filecheck %s --check-prefix=BELOW
// RUN: not tf-opt %s -p 'tf-analyze{dims=n=100000000000000000000000000}' 2>&1 | filecheck %s --check-prefix=HUGE
// RUN: not tf-opt %s -p 'tf-analyze{dims=seq=4,seq=8}' 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: not tf-opt %s -p 'tf-analyze{dims=seq=٥}' 2>&1 | filecheck %s --check-prefix=DIGITS
// RUN: not tf-opt %s -p 'tf-analyze{dims=seq=-4}' 2>&1 | filecheck %s --check-prefix=NEGATIVE

// tf-analyze{dims=...} checks its sizes as tf-run --dim does: a name that some function's
// signature has (a typo is not analysed at the default), a size inside every envelope of that
// name, each name once, ASCII digits, below 2**63; each mistake one line.

tf.module @m target #tf.target<"h100"> topologies [] {
  hir.func @f(%x: tensor<?xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?xf32, #tf.dims<seq: 1 to 513>> {
    %y = tf.call tf.math.unary<kind = exp>(%x) : (tensor<?xf32, #tf.dims<seq: 1 to 513>>) -> tensor<?xf32, #tf.dims<seq: 1 to 513>>
    hir.return %y : tensor<?xf32, #tf.dims<seq: 1 to 513>>
  }
}

// CHECK: tf.cost = {flops = 512 : i64, bytes = 4096 : i64

// TYPO:     tf-analyze-dims.mlir:14:1: error: pass 'tf-analyze' failed: dims names 'sqe', which is no DimVar of a function of module 'm' (DimVars: seq)
// OUTSIDE:  tf-analyze-dims.mlir:15:3: error: pass 'tf-analyze' failed: dims seq=513 is outside the envelope of DimVar 'seq' of function '@f' ([1, 513))
// BELOW:    tf-analyze-dims.mlir:15:3: error: pass 'tf-analyze' failed: dims seq=0 is outside the envelope of DimVar 'seq' of function '@f' ([1, 513))
// HUGE:     tf-opt: error: invalid pass pipeline 'tf-analyze{dims=n=100000000000000000000000000}': pass 'tf-analyze': dims size of 'n' is past int64, got 100000000000000000000000000 (at column 1)
// TWICE:    tf-opt: error: invalid pass pipeline 'tf-analyze{dims=seq=4,seq=8}': pass 'tf-analyze': dims gives 'seq' twice (at column 1)
// DIGITS:   tf-opt: error: invalid pass pipeline 'tf-analyze{dims=seq=٥}': pass 'tf-analyze': dims entries are name=size, got 'seq=٥' (at column 1)
// NEGATIVE: tf-opt: error: invalid pass pipeline 'tf-analyze{dims=seq=-4}': pass 'tf-analyze': dims entries are name=size, got 'seq=-4' (at column 1)
