// RUN: tf-opt %s --split-input-file -p tf-inline --print-debuginfo | filecheck %s
// RUN: tf-opt %s --split-input-file -p tf-inline,tf-prune-unreachable | filecheck %s --check-prefix=PRUNED

// A call of a function of the tree becomes a copy of its body; each inlined op keeps its own
// metadata and records the call site. Callees are inlined bottom-up; their symbols are
// rewritten to resolve from the caller's module.

tf.module @m entry @main {
  hir.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call @layer::@block(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("m.py":9:5)
    hir.return %y : tensor<4xf32>
  }
  tf.module @layer {
    hir.func @block(%a: tensor<4xf32>) -> tensor<4xf32> {
      %d = tf.call @double(%a) : (tensor<4xf32>) -> tensor<4xf32> loc("l.py":2:5)
      %r = tf.call @again(%d) : (tensor<4xf32>) -> tensor<4xf32>
      hir.return %r : tensor<4xf32>
    }
    hir.func @double(%a: tensor<4xf32>) -> tensor<4xf32> {
      %s = tf.call tf.math.binary<kind = add>(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("l.py":7:3)
      hir.return %s : tensor<4xf32>
    }
    hir.func @again(%a: tensor<4xf32>) -> tensor<4xf32> {
      %r = tf.call @again(%a) : (tensor<4xf32>) -> tensor<4xf32>
      hir.return %r : tensor<4xf32>
    }
  }
}

// CHECK-LABEL: hir.func @main(%x: tensor<4xf32> loc(unknown)) -> tensor<4xf32> {
// CHECK-NEXT:    %s = tf.call tf.math.binary<kind = add>(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(callsite(callsite("s"("l.py":7:3) at "d"("l.py":2:5)) at "y"("m.py":9:5)))
// CHECK-NEXT:    %r = tf.call @layer::@again(%s) : (tensor<4xf32>) -> tensor<4xf32> loc(callsite("r" at "y"("m.py":9:5)))
// CHECK-NEXT:    hir.return %r : tensor<4xf32>
// CHECK:         hir.func @again(%a: tensor<4xf32> loc(unknown)) -> tensor<4xf32> {
// CHECK-NEXT:      %r = tf.call @again(%a)

// PRUNED-LABEL: tf.module @m entry @main {
// PRUNED-NEXT:    hir.func @main(
// PRUNED:         tf.module @layer {
// PRUNED-NEXT:      hir.func @again(
// PRUNED-NOT:       @double

// -----

// Left alone: recursion, a callee with variants, arguments that specialize the parameters
// (a size for a DimVar), a call from HIR into TIR.

tf.module @keep {
  hir.func @f(%x: tensor<4xf32>, %v: tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<4xf32> {
    %a = tf.call @f(%x, %v) : (tensor<4xf32>, tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<4xf32>
    %b = tf.call @varied(%v) : (tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<?xf32, #tf.dims<n: 1 to 64>>
    %c = tf.call @generic(%x) : (tensor<4xf32>) -> tensor<?xf32, #tf.dims<n: 1 to 64>>
    %d = tf.call @kernel(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %d : tensor<4xf32>
  }
  hir.func @varied(%v: tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<?xf32, #tf.dims<n: 1 to 64>> {
    hir.return %v : tensor<?xf32, #tf.dims<n: 1 to 64>>
  } variants {
    hir.variant [n: 1 to 8] (%v: tensor<?xf32, #tf.dims<n: 1 to 64>>) {
      hir.return %v : tensor<?xf32, #tf.dims<n: 1 to 64>>
    }
  }
  hir.func @generic(%v: tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<?xf32, #tf.dims<n: 1 to 64>> {
    hir.return %v : tensor<?xf32, #tf.dims<n: 1 to 64>>
  }
  tir.prim_func @kernel(%x: tensor<4xf32>) -> tensor<4xf32> {
    tir.return %x : tensor<4xf32>
  }
}

// CHECK-LABEL: hir.func @f(
// CHECK-NEXT:    %a = tf.call @f(%x, %v)
// CHECK-NEXT:    %b = tf.call @varied(%v)
// CHECK-NEXT:    %c = tf.call @generic(%x)
// CHECK-NEXT:    %d = tf.call @kernel(%x)

// -----

// TIR: the callee's statements go before the statement that holds the call; a tir.let left
// binding the returned Var is forwarded, a tir.evaluate left running nothing goes.

tf.module @tir {
  tir.prim_func @main(%x: tensor<4xf32>, %out: !tf.buffer<4xf32>) -> tensor<4xf32> {
    %y = tir.let tf.call @square(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("k.py":3:5)
    tir.evaluate tf.call @store(%out, %y) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    %z = tir.let -> tensor<4xf32> {
      %e = tf.call tf.math.unary<kind = exp>(%y) : (tensor<4xf32>) -> tensor<4xf32>
      %q = tf.call @square(%e) : (tensor<4xf32>) -> tensor<4xf32>
      tir.yield %q : tensor<4xf32>
    }
    tir.return %z : tensor<4xf32>
  }
  tir.prim_func @square(%a: tensor<4xf32>) -> tensor<4xf32> {
    %s = tir.let tf.call tf.math.binary<kind = mul>(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tir.return %s : tensor<4xf32>
  }
  tir.prim_func @store(%dst: !tf.buffer<4xf32>, %src: tensor<4xf32>) -> () {
    tir.evaluate tf.call tf.memory.copy(%dst, %src) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    tir.return
  }
}

// CHECK-LABEL: tir.prim_func @main(%x: tensor<4xf32> loc(unknown), %out: !tf.buffer<4xf32> loc(unknown)) -> tensor<4xf32> {
// CHECK-NEXT:    %s = tir.let tf.call tf.math.binary<kind = mul>(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(unknown) loc(callsite("s" at "k.py":3:5))
// CHECK-NEXT:    tir.evaluate tf.call tf.memory.copy(%out, %s)
// CHECK-NEXT:    %z = tir.let -> tensor<4xf32> {
// CHECK-NEXT:      %e = tf.call tf.math.unary<kind = exp>(%s)
// CHECK-NEXT:      %q = tf.call @square(%e)
// CHECK-NEXT:      tir.yield %q : tensor<4xf32>

// -----

// Meshes nest outer to inner in the result: a callee's `mesh "cta"` is not inlined into the
// caller's `mesh "warp"` (the call is left alone), a callee's `mesh "warp"` is inlined into a
// `mesh "cta"`.

tf.module @meshes target #tf.target<"h100"> topologies [#tf.topology<"cta">, #tf.topology<"warp">] entry @main {
  hir.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.mesh "warp" {
      %z = tf.call @over_cta(%x) : (tensor<4xf32>) -> tensor<4xf32>
      tf.yield %z : tensor<4xf32>
    } : tensor<4xf32>
    %w = tf.mesh "cta" {
      %v = tf.call @over_warp(%y) : (tensor<4xf32>) -> tensor<4xf32>
      tf.yield %v : tensor<4xf32>
    } : tensor<4xf32>
    hir.return %w : tensor<4xf32>
  }
  hir.func @over_cta(%a: tensor<4xf32>) -> tensor<4xf32> {
    %b = tf.mesh "cta" {
      tf.yield %a : tensor<4xf32>
    } : tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @over_warp(%a: tensor<4xf32>) -> tensor<4xf32> {
    %b = tf.mesh "warp" {
      tf.yield %a : tensor<4xf32>
    } : tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
}

// CHECK-LABEL: hir.func @main(
// CHECK-NEXT:    %y = tf.mesh "warp" {
// CHECK-NEXT:      %z = tf.call @over_cta(%x)
// CHECK-NEXT:      tf.yield %z
// CHECK:         %w = tf.mesh "cta" {
// CHECK-NEXT:      %b = tf.mesh "warp" {
// CHECK-NEXT:        tf.yield %y
// CHECK:           tf.yield %b
