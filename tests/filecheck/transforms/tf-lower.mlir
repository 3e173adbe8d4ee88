// RUN: tf-opt %s --split-input-file -p tf-lower | filecheck %s
// RUN: tf-opt %s --split-input-file -p tf-lower | tf-opt --split-input-file | filecheck %s
// RUN: tf-opt %s --split-input-file -p tf-lower --print-op-generic | tf-opt --split-input-file | filecheck %s
// RUN: tf-opt %s --split-input-file -p tf-lower --print-debuginfo | filecheck %s --check-prefix=DEBUG
// RUN: tf-opt %s --split-input-file -p tf-lower --print-debuginfo -o %t && %python %tools/roundtrip_stable.py %t
// RUN: tf-opt %s --split-input-file -p tf-lower,tf-lower | filecheck %s

// tf-lower: HIR -> TIR from the root's entry (the spec's default step). Each chunk is one
// behaviour; the lowered module re-parses (custom and generic form) to itself, with locations
// (roundtrip_stable), and lowering it again changes nothing.

// Only what the entry reaches is in the output: through calls into child modules and the
// cases of a dispatch, transitively. Unreached functions go, a child left empty goes, a child
// whose entry is not reached keeps no entry. An hir.func becomes a tir.prim_func of the same
// signature (param names, {const}), each expression anchored by a tir.let in order.

tf.module @m name "Root" target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>] entry @main metadata {opt_level = 2 : i64} {
  hir.func @main(%x: tensor<4xf32>, %w_0: tensor<4xf32> {const}) -> tensor<4xf32> {
    %c = tf.constant dense<2.0> : tensor<4xf32>
    %h = tf.call tf.math.binary<kind = mul>(%x, %w_0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("m.py":3:5)
    %y = tf.call @layer::@block(%h, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
  hir.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
  tf.module @layer name "Layer" entry @unused {
    hir.func @block(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
      %t = tf.tuple %a, %b : tuple<tensor<4xf32>, tensor<4xf32>>
      %s = tf.call tf.tuple.get_item<index = 1>(%t) : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
      %r = tf.call @inner::@leaf(%s) : (tensor<4xf32>) -> tensor<4xf32>
      hir.return %r : tensor<4xf32>
    }
    hir.func @unused(%x: tensor<4xf32>) -> tensor<4xf32> {
      hir.return %x : tensor<4xf32>
    }
    tf.module @inner topologies [] {
      hir.func @leaf(%x: tensor<4xf32>) -> tensor<4xf32> {
        %e = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
        hir.return %e : tensor<4xf32>
      }
    }
  }
  tf.module @other {
    hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
      hir.return %x : tensor<4xf32>
    }
  }
}

// CHECK-LABEL: tf.module @m name "Root" target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>] entry @main metadata {opt_level = 2 : i64} {
// CHECK-NEXT:    tir.prim_func @main(%x: tensor<4xf32>, %w_0: tensor<4xf32> {const}) -> tensor<4xf32> {
// CHECK-NEXT:      %c = tir.let tf.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT:      %h = tir.let tf.call tf.math.binary<kind = mul>(%x, %w_0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:      %y = tir.let tf.call @layer::@block(%h, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:      tir.return %y : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tf.module @layer name "Layer" {
// CHECK-NEXT:      tir.prim_func @block(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:        %t = tir.let tf.tuple %a, %b : tuple<tensor<4xf32>, tensor<4xf32>>
// CHECK-NEXT:        %s = tir.let tf.call tf.tuple.get_item<index = 1>(%t) : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
// CHECK-NEXT:        %r = tir.let tf.call @inner::@leaf(%s) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:        tir.return %r : tensor<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      tf.module @inner topologies [] {
// CHECK-NEXT:        tir.prim_func @leaf(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:          %e = tir.let tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:          tir.return %e : tensor<4xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// Bindings go on the statement, the rest of the location stays on the op it anchors.
// DEBUG-LABEL: tir.prim_func @main(
// DEBUG:         %h = tir.let tf.call tf.math.binary<kind = mul>(%x, %w_0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("m.py":3:5) loc("h")

// -----

// A function with variants: a prim function whose body is one tir.dispatch over prim functions
// made from the variants (cases from the ranges, in order) and the base body, whose case is
// the whole envelope of every DimVar the variants name (HIR falls back to the base body).

tf.module @v target #tf.target<"h100"> entry @f {
  hir.func @f(%x: tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>, %w: tensor<2xf32> {const}) -> tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>> {
    %y = tf.call tf.math.unary<kind = exp>(%x) : (tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>) -> tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>
    hir.return %y : tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>
  } variants {
    hir.variant [n: 2 to 5, m: 3 to 4] (%x: tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>, %w: tensor<2xf32>) {
      %y = tf.call tf.math.unary<kind = neg>(%x) : (tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>) -> tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>
      hir.return %y : tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>
    } loc("v.py":4:1)
    hir.variant [m: 5 to 6] (%x: tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>, %w: tensor<2xf32>) {
      hir.return %x : tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>
    }
  }
}

// CHECK-LABEL: tf.module @v target #tf.target<"h100"> entry @f {
// CHECK-NEXT:    tir.prim_func @f(%x: tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>, %w: tensor<2xf32> {const}) -> tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>> {
// CHECK-NEXT:      %0 = tir.let tir.dispatch [@f$v0: [n: 2 to 5, m: 3 to 4], @f$v1: [m: 5 to 6], @f$base: [n: 1 to 9, m: 2 to 6]](%x, %w) : (tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>, tensor<2xf32>) -> tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>
// CHECK-NEXT:      tir.return %0 : tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.prim_func @f$v0(%x: tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>, %w: tensor<2xf32> {const}) -> tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>> {
// CHECK-NEXT:      %y = tir.let tf.call tf.math.unary<kind = neg>(%x)
// CHECK-NEXT:      tir.return %y
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.prim_func @f$v1(%x: tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>, %w: tensor<2xf32> {const}) -> tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>> {
// CHECK-NEXT:      tir.return %x
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.prim_func @f$base(%x: tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>>, %w: tensor<2xf32> {const}) -> tensor<?x?xf32, #tf.dims<n: 1 to 9, m: 2 to 6>> {
// CHECK-NEXT:      %y = tir.let tf.call tf.math.unary<kind = exp>(%x)
// CHECK-NEXT:      tir.return %y
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// A made function keeps the location of the variant it is made from.
// DEBUG-LABEL: tir.prim_func @f$v0(
// DEBUG:         } loc("v.py":4:1)

// -----

// Meshes stay whole inside the statement that anchors them (kept for the backends that use
// them): a mesh of a value in a tir.let, a mesh of no value in a tir.evaluate; a call of a
// function that returns nothing is a tir.evaluate too.

tf.module @mesh target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>, #tf.topology<"warp", 4>] entry @main {
  hir.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.mesh "cta" {
      %e = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %w = tf.mesh "warp" {
        %n = tf.call tf.math.unary<kind = neg>(%e) : (tensor<4xf32>) -> tensor<4xf32>
        tf.yield %n : tensor<4xf32>
      } : tensor<4xf32>
      tf.yield %w : tensor<4xf32>
    } : tensor<4xf32>
    tf.mesh "cta" {
      %a = tf.call tf.math.unary<kind = abs>(%y) : (tensor<4xf32>) -> tensor<4xf32>
      tf.yield
    }
    tf.call @nothing(%y) : (tensor<4xf32>) -> ()
    hir.return %y : tensor<4xf32>
  }
  hir.func @nothing(%x: tensor<4xf32>) -> () {
    hir.return
  }
}

// CHECK-LABEL: tf.module @mesh
// CHECK-NEXT:    tir.prim_func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:      %y = tir.let tf.mesh "cta" {
// CHECK-NEXT:        %e = tf.call tf.math.unary<kind = exp>(%x)
// CHECK-NEXT:        %w = tf.mesh "warp" {
// CHECK-NEXT:          %n = tf.call tf.math.unary<kind = neg>(%e)
// CHECK-NEXT:          tf.yield %n : tensor<4xf32>
// CHECK-NEXT:        } : tensor<4xf32>
// CHECK-NEXT:        tf.yield %w : tensor<4xf32>
// CHECK-NEXT:      } : tensor<4xf32>
// CHECK-NEXT:      tir.evaluate tf.mesh "cta" {
// CHECK-NEXT:        %a = tf.call tf.math.unary<kind = abs>(%y)
// CHECK-NEXT:        tf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.evaluate tf.call @nothing(%y) : (tensor<4xf32>) -> ()
// CHECK-NEXT:      tir.return %y : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.prim_func @nothing(%x: tensor<4xf32>) -> () {
// CHECK-NEXT:      tir.return
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// -----

// Existing prim functions are kept as they are (buffers stay buffers), and an HIR function
// they call (through tf.call or a dispatch case, across modules) is lowered in place: the calls
// still resolve, to a prim function of the same name and signature.

tf.module @t target #tf.target<"h100"> entry @main {
  tir.prim_func @main(%x: tensor<?xf32, #tf.dims<n: 1 to 9>>, %out: !tf.buffer<4xf32>) -> tensor<?xf32, #tf.dims<n: 1 to 9>> {
    %y = tir.let tf.call @c0::@pick(%x) : (tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>>
    %z = tir.let tf.constant dense<1.0> : tensor<4xf32>
    tir.evaluate tf.call tf.memory.copy(%out, %z) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    tir.return %y : tensor<?xf32, #tf.dims<n: 1 to 9>>
  }
  tf.module @c0 {
    tir.prim_func @pick(%x: tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>> {
      %y = tir.let tir.dispatch [@small: [n: 1 to 4], @large: [n: 4 to 9]](%x) : (tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>>
      tir.return %y : tensor<?xf32, #tf.dims<n: 1 to 9>>
    }
    hir.func @small(%x: tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>> {
      hir.return %x : tensor<?xf32, #tf.dims<n: 1 to 9>>
    }
    tir.prim_func @large(%x: tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>> {
      %y = tir.let tf.call tf.math.unary<kind = neg>(%x) : (tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>>
      tir.return %y : tensor<?xf32, #tf.dims<n: 1 to 9>>
    }
  }
}

// CHECK-LABEL: tf.module @t target #tf.target<"h100"> entry @main {
// CHECK-NEXT:    tir.prim_func @main(%x: tensor<?xf32, #tf.dims<n: 1 to 9>>, %out: !tf.buffer<4xf32>) -> tensor<?xf32, #tf.dims<n: 1 to 9>> {
// CHECK-NEXT:      %y = tir.let tf.call @c0::@pick(%x)
// CHECK-NEXT:      %z = tir.let tf.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT:      tir.evaluate tf.call tf.memory.copy(%out, %z) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT:      tir.return %y
// CHECK-NEXT:    }
// CHECK-NEXT:    tf.module @c0 {
// CHECK-NEXT:      tir.prim_func @pick(%x: tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>> {
// CHECK-NEXT:        %y = tir.let tir.dispatch [@small: [n: 1 to 4], @large: [n: 4 to 9]](%x)
// CHECK-NEXT:        tir.return %y
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.prim_func @small(%x: tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>> {
// CHECK-NEXT:        tir.return %x
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.prim_func @large(%x: tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>> {
// CHECK-NEXT:        %y = tir.let tf.call tf.math.unary<kind = neg>(%x)
// CHECK-NEXT:        tir.return %y
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// -----

// A child's context: a root that is a detached copy of a child (within #tf.context<...>)
// keeps it, and names that are taken make the made functions take more `$`s (`f$v0` is a
// function of the module: the made ones are `f$$v0`, `f$$base`).

tf.module @layer name "MLP" entry @f within #tf.context<target = #tf.target<"h100">, topologies = []> {
  hir.func @f(%x: tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>> {
    %y = tf.call @f$v0(%x) : (tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>>
    hir.return %y : tensor<?xf32, #tf.dims<n: 1 to 9>>
  } variants {
    hir.variant [n: 1 to 4] (%x: tensor<?xf32, #tf.dims<n: 1 to 9>>) {
      hir.return %x : tensor<?xf32, #tf.dims<n: 1 to 9>>
    }
  }
  hir.func @f$v0(%x: tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>> {
    hir.return %x : tensor<?xf32, #tf.dims<n: 1 to 9>>
  }
}

// CHECK-LABEL: tf.module @layer name "MLP" entry @f within #tf.context<target = #tf.target<"h100">, topologies = []> {
// CHECK-NEXT:    tir.prim_func @f(
// CHECK-NEXT:      %0 = tir.let tir.dispatch [@f$$v0: [n: 1 to 4], @f$$base: [n: 1 to 9]](%x)
// CHECK-NEXT:      tir.return %0
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.prim_func @f$$v0(
// CHECK-NEXT:      tir.return %x
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.prim_func @f$$base(
// CHECK-NEXT:      %y = tir.let tf.call @f$v0(%x)
// CHECK-NEXT:      tir.return %y
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.prim_func @f$v0(
// CHECK-NEXT:      tir.return %x
// CHECK-NEXT:    }
// CHECK-NEXT:  }
