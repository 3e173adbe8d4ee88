// RUN: %roundtrip
// RUN: %generic-roundtrip
// RUN: %generic-form
// RUN: %fixpoint

// tf.module: the execution domain. The root declares the target and the topology hierarchy; a
// child attached under another name keeps its own name; a child may declare no levels ([]).

tf.module @decoder name "Decoder" target #tf.target<"h100"> topologies [#tf.topology<"cluster", 2>, #tf.topology<"cta", 4>, #tf.topology<"warp", 4>] entry @step metadata {opt_level = 2 : i64} {
  hir.func @step(%x: tensor<8xf32>) -> tensor<8xf32> {
    %y = tf.mesh "cta" {
      %h = tf.call tf.math.unary<kind = exp>(%x) : (tensor<8xf32>) -> tensor<8xf32>
      tf.yield %h : tensor<8xf32>
    } : tensor<8xf32>
    hir.return %y : tensor<8xf32>
  }
  tf.module @layer0 name "MLP" {
    hir.func @mlp(%x: tensor<8xf32>) -> tensor<8xf32> {
      %y = tf.mesh "warp" {
        %h = tf.call tf.math.unary<kind = neg>(%x) : (tensor<8xf32>) -> tensor<8xf32>
        tf.yield %h : tensor<8xf32>
      } : tensor<8xf32>
      hir.return %y : tensor<8xf32>
    }
  }
  tf.module @host topologies [] {
  }
}

// CHECK-LABEL: tf.module @decoder name "Decoder" target #tf.target<"h100"> topologies [#tf.topology<"cluster", 2>, #tf.topology<"cta", 4>, #tf.topology<"warp", 4>] entry @step metadata {opt_level = 2 : i64} {
// CHECK-NEXT:    hir.func @step(%x: tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT:      %y = tf.mesh "cta" {
// CHECK-NEXT:        %h = tf.call tf.math.unary<kind = exp>(%x) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:        tf.yield %h : tensor<8xf32>
// CHECK-NEXT:      } : tensor<8xf32>
// CHECK-NEXT:      hir.return %y : tensor<8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tf.module @layer0 name "MLP" {
// CHECK:         tf.module @host topologies [] {

// GENERIC-LABEL: "tf.module"() <{sym_name = "decoder", module_name = "Decoder", target = #tf.target<"h100">, topologies = [#tf.topology<"cluster", 2>, #tf.topology<"cta", 4>, #tf.topology<"warp", 4>], entry = @step, metadata = {opt_level = 2 : i64}}> ({
// GENERIC:         %y = "tf.mesh"() <{topology = "cta"}> ({
// GENERIC:           "tf.yield"(%h) : (tensor<8xf32>) -> ()
// GENERIC-NEXT:    }) : () -> tensor<8xf32>

// -----

// A bare backend kind is a target with no architecture; a level without an extent; an
// effect-only mesh.

tf.module @cpu_kernels target #tf.target<"cpu"> topologies [#tf.topology<"core">, #tf.topology<"lane", 16>] {
  hir.func @fill(%dst: tensor<4xf32>, %src: tensor<4xf32>) -> () {
    tf.mesh "core" {
      tf.call @g(%dst, %src) : (tensor<4xf32>, tensor<4xf32>) -> ()
      tf.yield
    }
    hir.return
  }
  hir.func @g(%dst: tensor<4xf32>, %src: tensor<4xf32>) -> () {
    hir.return
  }
}

// CHECK-LABEL: tf.module @cpu_kernels target #tf.target<"cpu"> topologies [#tf.topology<"core">, #tf.topology<"lane", 16>] {
// CHECK:           tf.mesh "core" {
// CHECK-NEXT:        tf.call @g(%dst, %src) : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT:        tf.yield
// CHECK-NEXT:      }

// GENERIC-LABEL: "tf.module"() <{sym_name = "cpu_kernels", target = #tf.target<"cpu">, topologies = [#tf.topology<"core">, #tf.topology<"lane", 16>]}> ({

// -----

// A detached copy of an owned module (Module.cloned() of a child) records the context its
// owner provides: it resolves the owner's target and hierarchy, declaring neither, and its
// meshes are checked against that hierarchy.

tf.module @layer1 name "MLP" within #tf.context<target = #tf.target<"h100">, topologies = [#tf.topology<"cta", 4>, #tf.topology<"warp", 4>]> {
  hir.func @mlp(%x: tensor<8xf32>) -> tensor<8xf32> {
    %y = tf.mesh "warp" {
      %h = tf.call tf.math.unary<kind = neg>(%x) : (tensor<8xf32>) -> tensor<8xf32>
      tf.yield %h : tensor<8xf32>
    } : tensor<8xf32>
    hir.return %y : tensor<8xf32>
  }
}

// CHECK-LABEL: tf.module @layer1 name "MLP" within #tf.context<target = #tf.target<"h100">, topologies = [#tf.topology<"cta", 4>, #tf.topology<"warp", 4>]> {
// CHECK-NEXT:    hir.func @mlp(%x: tensor<8xf32>) -> tensor<8xf32> {

// GENERIC-LABEL: "tf.module"() <{sym_name = "layer1", module_name = "MLP", owner_context = #tf.context<target = #tf.target<"h100">, topologies = [#tf.topology<"cta", 4>, #tf.topology<"warp", 4>]>}> ({

// -----

// An owner that declares only a target.

tf.module @block within #tf.context<target = #tf.target<"cuda">> {
}

// CHECK-LABEL: tf.module @block within #tf.context<target = #tf.target<"cuda">> {
// GENERIC-LABEL: "tf.module"() <{sym_name = "block", owner_context = #tf.context<target = #tf.target<"cuda">>}> ({
// -----

// Meshes nest outer to inner: a cta mesh holds a warp mesh.

tf.module @nested topologies [#tf.topology<"cta", 4>, #tf.topology<"warp", 4>] {
  hir.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
    %y = tf.mesh "cta" {
      %w = tf.mesh "warp" {
        %h = tf.call tf.math.unary<kind = exp>(%x) : (tensor<8xf32>) -> tensor<8xf32>
        tf.yield %h : tensor<8xf32>
      } : tensor<8xf32>
      tf.yield %w : tensor<8xf32>
    } : tensor<8xf32>
    hir.return %y : tensor<8xf32>
  }
}

// CHECK-LABEL: tf.module @nested topologies [#tf.topology<"cta", 4>, #tf.topology<"warp", 4>] {
// CHECK:           %y = tf.mesh "cta" {
// CHECK-NEXT:        %w = tf.mesh "warp" {

// GENERIC-LABEL: "tf.module"() <{sym_name = "nested", topologies = [#tf.topology<"cta", 4>, #tf.topology<"warp", 4>]}> ({
// GENERIC:         %y = "tf.mesh"() <{topology = "cta"}> ({
// GENERIC-NEXT:      %w = "tf.mesh"() <{topology = "warp"}> ({
