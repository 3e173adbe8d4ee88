// RUN: %roundtrip
// RUN: %generic-roundtrip
// RUN: %generic-form
// RUN: %fixpoint

// tir.prim_func: statements only. tir.let anchors a value-form expression and binds its Var;
// tir.evaluate runs an effect-form call; each holds its expression in a region that ends in
// tir.yield (one op prints in the short form); same-module calls go through the symbol table;
// tir.dispatch picks a case by DimVar ranges; buffers (!tf.buffer) are params or tir.let-anchored
// allocs, read by tf.memory.load and written in place by tf.memory.copy.

tf.module @kernels {
  tir.prim_func @square(%x: tensor<4xf32>, %out: !tf.buffer<4xf32>) -> () {
    %y = tir.let tf.call tf.math.binary<kind = mul>(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tir.evaluate tf.call tf.memory.copy(%out, %y) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    tir.return
  }
  tir.prim_func @twice(%x: tensor<4xf32>, %out: !tf.buffer<4xf32>) -> tensor<4xf32> {
    %c = tir.let tf.constant dense<2.0> : tensor<4xf32>
    %y = tir.let tf.call tf.math.binary<kind = mul>(%x, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tir.evaluate tf.call @square(%y, %out) : (tensor<4xf32>, !tf.buffer<4xf32>) -> ()
    tir.return %y : tensor<4xf32>
  }
  tir.prim_func @small(%x: tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?xf32, #tf.dims<n: 1 to 4097>> {
    tir.return %x : tensor<?xf32, #tf.dims<n: 1 to 4097>>
  }
  tir.prim_func @large(%x: tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?xf32, #tf.dims<n: 1 to 4097>> {
    %y = tir.let tf.call tf.math.unary<kind = neg>(%x) : (tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?xf32, #tf.dims<n: 1 to 4097>>
    tir.return %y : tensor<?xf32, #tf.dims<n: 1 to 4097>>
  }
  tir.prim_func @fused(%x: tensor<4xf32>, %out: !tf.buffer<4xf32>) -> tensor<4xf32> {
    %y = tir.let -> tensor<4xf32> {
      %c = tf.constant dense<2.0> : tensor<4xf32>
      %m = tf.call tf.math.binary<kind = mul>(%x, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      tir.yield %m : tensor<4xf32>
    }
    %alias = tir.let {
      tir.yield %y : tensor<4xf32>
    }
    tir.evaluate {
      %e = tf.call tf.math.unary<kind = exp>(%alias) : (tensor<4xf32>) -> tensor<4xf32>
      tf.call tf.memory.copy(%out, %e) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
      tir.yield
    }
    tir.return %y : tensor<4xf32>
  }
  tir.prim_func @pick(%x: tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?xf32, #tf.dims<n: 1 to 4097>> {
    %y = tir.let tir.dispatch [@small: [n: 1 to 128], @large: [n: 128 to 4097]](%x) : (tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?xf32, #tf.dims<n: 1 to 4097>>
    tir.return %y : tensor<?xf32, #tf.dims<n: 1 to 4097>>
  }
  tir.prim_func @memory(%b: !tf.buffer<?x2xi32, #tf.dims<n: 1 to 9>>, %s: !tf.buffer<f32>) -> tensor<f32> {
    %t = tir.let tf.call tf.memory.alloc<shape = [], dtype = f32>() : () -> !tf.buffer<f32>
    tir.evaluate tf.call tf.memory.copy(%t, %s) : (!tf.buffer<f32>, !tf.buffer<f32>) -> ()
    %v = tir.let tf.call tf.memory.load(%b) : (!tf.buffer<?x2xi32, #tf.dims<n: 1 to 9>>) -> tensor<?x2xi32, #tf.dims<n: 1 to 9>>
    tir.evaluate tf.call tf.memory.copy(%b, %v) : (!tf.buffer<?x2xi32, #tf.dims<n: 1 to 9>>, tensor<?x2xi32, #tf.dims<n: 1 to 9>>) -> ()
    %r = tir.let tf.call tf.memory.load(%t) : (!tf.buffer<f32>) -> tensor<f32>
    tir.return %r : tensor<f32>
  }
}

// CHECK-LABEL: tf.module @kernels {
// CHECK-NEXT:    tir.prim_func @square(%x: tensor<4xf32>, %out: !tf.buffer<4xf32>) -> () {
// CHECK-NEXT:      %y = tir.let tf.call tf.math.binary<kind = mul>(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:      tir.evaluate tf.call tf.memory.copy(%out, %y) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT:      tir.return
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.prim_func @twice(%x: tensor<4xf32>, %out: !tf.buffer<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:      %c = tir.let tf.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT:      %y = tir.let tf.call tf.math.binary<kind = mul>(%x, %c)
// CHECK-NEXT:      tir.evaluate tf.call @square(%y, %out) : (tensor<4xf32>, !tf.buffer<4xf32>) -> ()
// CHECK-NEXT:      tir.return %y : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK:         tir.prim_func @fused(%x: tensor<4xf32>, %out: !tf.buffer<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:      %y = tir.let -> tensor<4xf32> {
// CHECK-NEXT:        %c = tf.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT:        %m = tf.call tf.math.binary<kind = mul>(%x, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:        tir.yield %m : tensor<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      %alias = tir.let -> tensor<4xf32> {
// CHECK-NEXT:        tir.yield %y : tensor<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.evaluate {
// CHECK-NEXT:        %e = tf.call tf.math.unary<kind = exp>(%alias) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:        tf.call tf.memory.copy(%out, %e) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT:        tir.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.return %y : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.prim_func @pick(%x: tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?xf32, #tf.dims<n: 1 to 4097>> {
// CHECK-NEXT:      %y = tir.let tir.dispatch [@small: [n: 1 to 128], @large: [n: 128 to 4097]](%x) : (tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?xf32, #tf.dims<n: 1 to 4097>>
// CHECK-NEXT:      tir.return %y
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.prim_func @memory(%b: !tf.buffer<?x2xi32, #tf.dims<n: 1 to 9>>, %s: !tf.buffer<f32>) -> tensor<f32> {
// CHECK-NEXT:      %t = tir.let tf.call tf.memory.alloc<shape = [], dtype = f32>() : () -> !tf.buffer<f32>
// CHECK-NEXT:      tir.evaluate tf.call tf.memory.copy(%t, %s) : (!tf.buffer<f32>, !tf.buffer<f32>) -> ()
// CHECK-NEXT:      %v = tir.let tf.call tf.memory.load(%b) : (!tf.buffer<?x2xi32, #tf.dims<n: 1 to 9>>) -> tensor<?x2xi32, #tf.dims<n: 1 to 9>>
// CHECK-NEXT:      tir.evaluate tf.call tf.memory.copy(%b, %v) : (!tf.buffer<?x2xi32, #tf.dims<n: 1 to 9>>, tensor<?x2xi32, #tf.dims<n: 1 to 9>>) -> ()
// CHECK-NEXT:      %r = tir.let tf.call tf.memory.load(%t) : (!tf.buffer<f32>) -> tensor<f32>
// CHECK-NEXT:      tir.return %r : tensor<f32>

// GENERIC-LABEL: "tf.module"() <{sym_name = "kernels"}> ({
// GENERIC:         %y = "tir.let"() ({
// GENERIC-NEXT:      %{{.*}} = "tf.call"(%x, %x) <{callee = #tf.op<tf.math.binary<kind = mul>>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT:      "tir.yield"(%{{.*}}) : (tensor<4xf32>) -> ()
// GENERIC-NEXT:    }) : () -> tensor<4xf32>
// GENERIC-NEXT:    "tir.evaluate"() ({
// GENERIC-NEXT:      "tf.call"(%out, %y) <{callee = #tf.op<tf.memory.copy>}> : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
// GENERIC-NEXT:      "tir.yield"() : () -> ()
// GENERIC-NEXT:    }) : () -> ()
// GENERIC:         "tir.dispatch"(%x) <{callees = [@small, @large], case_patterns = {{\[}}[#tf.range<n: 1 to 128>], [#tf.range<n: 128 to 4097>]]}>
// GENERIC:         "tir.prim_func"() <{sym_name = "memory", function_type = (!tf.buffer<?x2xi32, #tf.dims<n: 1 to 9>>, !tf.buffer<f32>) -> tensor<f32>, param_names = ["b", "s"]}> ({
// GENERIC-NEXT:    ^{{.*}}(%b: !tf.buffer<?x2xi32, #tf.dims<n: 1 to 9>>, %s: !tf.buffer<f32>):
// GENERIC-NEXT:      %t = "tir.let"() ({
// GENERIC-NEXT:        %{{.*}} = "tf.call"() <{callee = #tf.op<tf.memory.alloc<shape = [], dtype = f32>>}> : () -> !tf.buffer<f32>
// GENERIC:             "tf.call"(%t, %s) <{callee = #tf.op<tf.memory.copy>}> : (!tf.buffer<f32>, !tf.buffer<f32>) -> ()
// GENERIC:             %{{.*}} = "tf.call"(%b) <{callee = #tf.op<tf.memory.load>}> : (!tf.buffer<?x2xi32, #tf.dims<n: 1 to 9>>) -> tensor<?x2xi32, #tf.dims<n: 1 to 9>>

// -----

// tir.evaluate runs a tf.mesh of no value too (what an HIR mesh of no value lowers to: tf-lower).

tf.module @meshes target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>] {
  tir.prim_func @k(%x: tensor<4xf32>) -> () {
    tir.evaluate tf.mesh "cta" {
      %e = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
      tf.yield
    }
    tir.return
  }
}

// CHECK-LABEL: tf.module @meshes
// CHECK-NEXT:    tir.prim_func @k(%x: tensor<4xf32>) -> () {
// CHECK-NEXT:      tir.evaluate tf.mesh "cta" {
// CHECK-NEXT:        %e = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:        tf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.return

// GENERIC-LABEL: "tf.module"() <{sym_name = "meshes"
// GENERIC:         "tir.evaluate"() ({
// GENERIC-NEXT:      "tf.mesh"() <{topology = "cta"}> ({
