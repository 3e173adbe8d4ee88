// tf-select: the node a path names, published as a root (the target and topologies it
// resolves, declared; re-entried at a function the path ends in).

// RUN: tf-opt %S/Inputs/tree.mlir -p 'tf-select{path=layer0.mlp}' | filecheck %s --check-prefix=FUNCTION
// FUNCTION:      tf.module @layer0 name "Layer" target #tf.target<"h100"> topologies [#tf.topology<"cluster", 2>, #tf.topology<"cta", 4>] entry @mlp {
// FUNCTION-NEXT:   hir.func @block(
// FUNCTION:        hir.func @mlp(
// FUNCTION:        tir.prim_func @kernel(
// FUNCTION:        tf.module @inner topologies [#tf.topology<"cta", 2>] {

// A TIR function is selected the same way, and pruning keeps what it reaches.
// RUN: tf-opt %S/Inputs/tree.mlir -p 'tf-select{path=layer0.kernel},tf-prune-unreachable' | filecheck %s --check-prefix=KERNEL
// KERNEL:      tf.module @layer0 name "Layer" target #tf.target<"h100"> topologies [#tf.topology<"cluster", 2>, #tf.topology<"cta", 4>] entry @kernel {
// KERNEL-NEXT:   tir.prim_func @kernel(%x: tensor<4xf32>, %out: !tf.buffer<4xf32>) -> () {
// KERNEL-NEXT:     %y = tir.let tf.call tf.math.unary<kind = exp>(%x)
// KERNEL-NEXT:     tir.evaluate tf.call tf.memory.copy(%out, %y)
// KERNEL-NEXT:     tir.return
// KERNEL-NEXT:   }
// KERNEL-NEXT: }

// RUN: tf-opt %S/Inputs/tree.mlir -p 'tf-select{path=layer0.inner}' | filecheck %s --check-prefix=MODULE
// MODULE:      tf.module @inner target #tf.target<"h100"> topologies [#tf.topology<"cta", 2>] {
// MODULE-NEXT:   hir.func @leaf(

// RUN: tf-opt %S/Inputs/tree.mlir -p 'tf-select{path=layer0.inner.leaf},tf-verify-published' | filecheck %s --check-prefix=LEAF
// LEAF: tf.module @inner target #tf.target<"h100"> topologies [#tf.topology<"cta", 2>] entry @leaf {

// An empty path is the root itself.
// RUN: tf-opt %S/Inputs/tree.mlir -p 'tf-select' | filecheck %s --check-prefix=ROOT
// RUN: tf-opt %S/Inputs/tree.mlir -p 'tf-select{path=""}' | filecheck %s --check-prefix=ROOT
// ROOT: tf.module @decoder target #tf.target<"h100"> topologies [#tf.topology<"cluster", 2>, #tf.topology<"cta", 4>] entry @step {

// Refused, in one line naming what is available.
// RUN: not tf-opt %S/Inputs/tree.mlir -p 'tf-select{path=layer0..mlp}' 2>&1 | filecheck %s --check-prefix=EMPTY
// EMPTY: error: pass 'tf-select' failed: path 'layer0..mlp' has an empty segment; dropping it would make two paths name one node
// RUN: not tf-opt %S/Inputs/tree.mlir -p 'tf-select{path=layer9}' 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: error: pass 'tf-select' failed: path 'layer9': 'layer9' names no child module of <root> (children: layer0), nor a function (functions: step)
// RUN: not tf-opt %S/Inputs/tree.mlir -p 'tf-select{path=layer0.nope.x}' 2>&1 | filecheck %s --check-prefix=MIDDLE
// MIDDLE: error: pass 'tf-select' failed: path 'layer0.nope.x': 'nope' names no child module of layer0 (children: inner)

// A root that resolves no target cannot be published.
// RUN: not tf-opt %s -p 'tf-select{path=f}' 2>&1 | filecheck %s --check-prefix=TARGET
// TARGET: error: pass 'tf-select' failed: module 'm' has no target

// tf-select replaces the root: it runs on the input, not nested.
// RUN: not tf-opt %s -p 'tf.module(tf-select)' 2>&1 | filecheck %s --check-prefix=ANCHOR
// ANCHOR: tf-opt: error: invalid pass pipeline 'tf.module(tf-select)': pass 'tf-select' runs on builtin.module, not on 'tf.module'

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
}
