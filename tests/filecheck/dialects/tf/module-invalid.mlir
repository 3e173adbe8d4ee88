// RUN: tf-opt %s --split-input-file --verify-diagnostics

// The rules of spec section 1 that text can state.

tf.module @m target #tf.target<"h100"> {
  // expected-error @+1 {{child module 'c' declares target 'a100'; only the outermost module may declare one}}
  tf.module @c target #tf.target<"a100"> {}
}

// -----

tf.module @m {
  // expected-error @+1 {{child module 'c' declares target 'h100'; only the outermost module may declare one}}
  tf.module @c target #tf.target<"h100"> {}
}

// -----

// expected-error @+1 {{unknown target 'tpu-v9'; known devices: a100, b200, cpu, h100, h200, l40s, mi300x; backend kinds: cuda, rocm, cpu}}
tf.module @m target #tf.target<"tpu-v9"> {}

// -----

// expected-error @+1 {{topology level 'cta' is declared twice}}
tf.module @m topologies [#tf.topology<"cta", 4>, #tf.topology<"warp">, #tf.topology<"cta">] {}

// -----

// expected-error @+1 {{Topology 'warp' extent must be a positive int, got 0}}
tf.module @m topologies [#tf.topology<"warp", 0>] {}

// -----

// Levels the device cannot have.

// expected-error @+1 {{a100 (sm_80) has no 'cluster' level; its levels are cta, warp, thread}}
tf.module @m target #tf.target<"a100"> topologies [#tf.topology<"cluster", 2>, #tf.topology<"cta">] {}

// -----

// expected-error @+1 {{topology level 'cta' cannot be inside 'warp' on h100; the levels nest as cluster > cta > warp > thread}}
tf.module @m target #tf.target<"h100"> topologies [#tf.topology<"warp">, #tf.topology<"cta">] {}

// -----

// expected-error @+1 {{h100 fits at most 16 'cta' in one 'cluster', got 32}}
tf.module @m target #tf.target<"h100"> topologies [#tf.topology<"cluster">, #tf.topology<"cta", 32>] {}

// -----

tf.module @m target #tf.target<"mi300x"> {
  // A child's levels are held to the target it inherits.
  // expected-error @+1 {{mi300x fits at most 64 'thread' in one 'warp', got 128}}
  tf.module @c topologies [#tf.topology<"warp">, #tf.topology<"thread", 128>] {}
}

// -----

// Metadata is configuration, never mesh or topology semantics.

// expected-error @+1 {{module metadata 'mesh_axes': metadata carries target / compiler-option configuration, never mesh or topology semantics}}
tf.module @m metadata {mesh_axes = ["x", "y"]} {}

// -----

// expected-error @+1 {{module metadata 'levels' holds a tf.topology; declare the target and topologies as the module's own fields}}
tf.module @m metadata {levels = #tf.topology<"cta">} {}

// -----

// A mesh names one effective level.

tf.module @m target #tf.target<"h100"> topologies [#tf.topology<"cta">, #tf.topology<"warp">] {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{mesh names topology level 'cluster', which is not an effective level of module 'm' (available: cta, warp)}}
    %y = tf.mesh "cluster" {
      tf.yield %x : tensor<4xf32>
    } : tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// -----

tf.module @m topologies [#tf.topology<"cta">] {
  tf.module @c topologies [] {
    hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      // expected-error @+1 {{mesh names topology level 'cta', which is not an effective level of module 'c' (available: none)}}
      %y = tf.mesh "cta" {
        tf.yield %x : tensor<4xf32>
      } : tensor<4xf32>
      hir.return %y : tensor<4xf32>
    }
  }
}

// -----

tf.module @m topologies [#tf.topology<"cta">] {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{yields (tensor<4xf32>) but the mesh has type (tensor<4xf16>)}}
    %y = "tf.mesh"() <{topology = "cta"}> ({
      "tf.yield"(%x) : (tensor<4xf32>) -> ()
    }) : () -> tensor<4xf16>
    hir.return %x : tensor<4xf32>
  }
}

// -----

// Functions, child modules and methods are reached through one attribute surface, where the
// Module API comes first: none of them may take an API name.

tf.module @m {
  // expected-error @+1 {{function name 'weights' shadows the Module API 'weights'}}
  hir.func @weights(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
}

// -----

tf.module @m {
  // expected-error @+1 {{child module name 'lookup' shadows the Module API 'lookup'}}
  tf.module @lookup {
  }
}

// -----

tf.module @m {
  // expected-error @+1 {{function name '_k' begins with '_'}}
  tir.prim_func @_k(%x: tensor<4xf32>) -> tensor<4xf32> {
    tir.return %x : tensor<4xf32>
  }
}

// -----

// An owner context is for a module whose owner is outside the IR; a child resolves through
// the module that holds it.

tf.module @m target #tf.target<"h100"> {
  // expected-error @+1 {{child module 'c' has an owner context (within); a child resolves through the module that holds it}}
  tf.module @c within #tf.context<target = #tf.target<"h100">> {
  }
}

// -----

// A copy of a child inherits its owner's target; it cannot declare one of its own.

// expected-error @+1 {{module 'c' declares target 'a100' within an owner that declares one}}
tf.module @c target #tf.target<"a100"> within #tf.context<target = #tf.target<"h100">> {
}

// -----

// The context's hierarchy is the owner's: a mesh names one of its levels.

tf.module @c within #tf.context<target = #tf.target<"h100">, topologies = [#tf.topology<"cta", 4>]> {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{mesh names topology level 'warp', which is not an effective level of module 'c' (available: cta)}}
    %y = tf.mesh "warp" {
      tf.yield %x : tensor<4xf32>
    } : tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{topology level 'cta' is declared twice}}
tf.module @c within #tf.context<topologies = [#tf.topology<"cta">, #tf.topology<"cta">]> {
}

// -----

// expected-error @+1 {{expected target or topologies, got 'levels'}}
tf.module @c within #tf.context<levels = []> {
}

// -----

// expected-error @+1 {{'target' is given twice}}
tf.module @c within #tf.context<target = #tf.target<"h100">, target = #tf.target<"a100">> {
}
// -----

// A mesh body holds expressions, as a function body does.

tf.module @m topologies [#tf.topology<"cta">] {
  hir.func @f(%x: tensor<4xf32>) -> () {
    tf.mesh "cta" {
      // expected-error @+1 {{'hir.func' op cannot be in the body of mesh 'cta'; a body holds tf.call, tf.constant, tf.tuple, tf.mesh and ends with tf.yield}}
      hir.func @g() -> () {
        hir.return
      }
      tf.yield
    }
    hir.return
  }
}

// -----

// Meshes nest as the hierarchy orders its levels, outer to inner.

tf.module @m topologies [#tf.topology<"cluster", 2>, #tf.topology<"cta", 4>, #tf.topology<"warp", 4>] {
  hir.func @f(%x: tensor<4xf32>) -> () {
    tf.mesh "warp" {
      // expected-error @+1 {{mesh over 'cta' cannot be nested in a mesh over 'warp'; meshes nest outer to inner: cluster, cta, warp}}
      tf.mesh "cta" {
        tf.yield
      }
      tf.yield
    }
    hir.return
  }
}

// -----

tf.module @m topologies [#tf.topology<"cta", 4>, #tf.topology<"warp", 4>] {
  hir.func @f(%x: tensor<4xf32>) -> () {
    tf.mesh "cta" {
      // expected-error @+1 {{mesh over 'cta' cannot be nested in a mesh over 'cta'}}
      tf.mesh "cta" {
        tf.yield
      }
      tf.yield
    }
    hir.return
  }
}
