// REQUIRES: mlir-opt
// RUN: tf-opt %s --split-input-file --emit=mlir | filecheck %s
// RUN: tf-opt %s --split-input-file --emit=mlir | %mlir-opt --split-input-file > /dev/null

// The emitter's structure: an inner private function per prim function (tensors as tensors,
// buffers as memrefs, a tuple as its leaves, the status buffer last) and an exported wrapper
// (llvm.emit_c_interface: identity-layout memrefs, one per parameter leaf, then one per result
// leaf, then the status); symbols mangled from the path; calls as func.call; a dispatch as an
// scf.if chain on the sizes, with the interpreter's error recorded when no case holds; a mesh
// inline; each op at its input location.

// CHECK-LABEL: func.func private @tfi_4main(%p0_0: tensor<?x2xf32>, %p1_0: tensor<2xf32>, %p1_1: tensor<2xi1>, %status: memref<8xi64>) -> (tensor<?x2xf32>, tensor<2xi1>)
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[N:.*]] = tensor.dim %p0_0, %[[C0]] : tensor<?x2xf32>
// CHECK: func.call @tfi_2c0_4half(%{{.*}}, %status) : (tensor<?x2xf32>, memref<8xi64>) -> (tensor<?x2xf32>) loc("h"("{{.*}}emit-functions.mlir":{{[0-9]+}}:7))
// CHECK: func.return %{{.*}}, %p1_1 : tensor<?x2xf32>, tensor<2xi1>
// CHECK-LABEL: func.func @tf_4main(%a0: memref<?x2xf32>, %a1: memref<2xf32>, %a2: memref<2xi1>, %r0: memref<?x2xf32>, %r1: memref<2xi1>, %status: memref<8xi64>) attributes {llvm.emit_c_interface}
// CHECK-NEXT: bufferization.to_tensor %a0 restrict : memref<?x2xf32>
// CHECK: bufferization.materialize_in_destination %v#0 in restrict writable %r0
// CHECK-NEXT: bufferization.materialize_in_destination %v#1 in restrict writable %r1
// CHECK-LABEL: func.func private @tfi_2c0_4half(
tf.module @m topologies [#tf.topology<"cta", 4>] entry @main {
  tir.prim_func @main(%x: tensor<?x2xf32, #tf.dims<n: 1 to 9>>, %t: tuple<tensor<2xf32>, tensor<2xi1>>) -> tuple<tensor<?x2xf32, #tf.dims<n: 1 to 9>>, tensor<2xi1>> {
    %b = tir.let tf.call tf.tuple.get_item<index = 1>(%t) : (tuple<tensor<2xf32>, tensor<2xi1>>) -> tensor<2xi1>
    %m = tir.let tf.mesh "cta" {
      %h = tf.call @c0::@half(%x) : (tensor<?x2xf32, #tf.dims<n: 1 to 9>>) -> tensor<?x2xf32, #tf.dims<n: 1 to 9>>
      tf.yield %h : tensor<?x2xf32, #tf.dims<n: 1 to 9>>
    } : tensor<?x2xf32, #tf.dims<n: 1 to 9>>
    %r = tir.let tf.tuple %m, %b : tuple<tensor<?x2xf32, #tf.dims<n: 1 to 9>>, tensor<2xi1>>
    tir.return %r : tuple<tensor<?x2xf32, #tf.dims<n: 1 to 9>>, tensor<2xi1>>
  }
  tf.module @c0 {
    tir.prim_func @half(%x: tensor<?x2xf32, #tf.dims<n: 1 to 9>>) -> tensor<?x2xf32, #tf.dims<n: 1 to 9>> {
      %c = tir.let tf.constant dense<5.000000e-01> : tensor<1xf32>
      %y = tir.let tf.call tf.math.binary<kind = mul>(%x, %c) : (tensor<?x2xf32, #tf.dims<n: 1 to 9>>, tensor<1xf32>) -> tensor<?x2xf32, #tf.dims<n: 1 to 9>>
      tir.return %y : tensor<?x2xf32, #tf.dims<n: 1 to 9>>
    }
  }
}

// -----

// CHECK-LABEL: func.func private @tfi_1f(
// CHECK: %[[N:.*]] = tensor.dim %p0_0, %{{.*}} : tensor<?xf32> loc(
// CHECK: arith.cmpi uge, %[[N]], %{{.*}} : index
// CHECK: arith.cmpi ult, %[[N]], %{{.*}} : index
// CHECK: scf.if %{{.*}} -> (tensor<?xf32>) {
// CHECK-NEXT: func.call @tfi_5small(
// CHECK: } else {
// CHECK: scf.if %{{.*}} -> (tensor<?xf32>) {
// CHECK-NEXT: func.call @tfi_5large(
// CHECK: } else {
// CHECK: memref.load %status
// CHECK: memref.store %{{.*}}, %status
// CHECK: tensor.empty(%{{.*}}) : tensor<?xf32>
tf.module @m entry @f {
  tir.prim_func @f(%x: tensor<?xf32, #tf.dims<n: 1 to 99>>) -> tensor<?xf32, #tf.dims<n: 1 to 99>> {
    %y = tir.let tir.dispatch [@small: [n: 1 to 8], @large: [n: 8 to 64]](%x) : (tensor<?xf32, #tf.dims<n: 1 to 99>>) -> tensor<?xf32, #tf.dims<n: 1 to 99>>
    tir.return %y : tensor<?xf32, #tf.dims<n: 1 to 99>>
  }
  tir.prim_func @small(%x: tensor<?xf32, #tf.dims<n: 1 to 99>>) -> tensor<?xf32, #tf.dims<n: 1 to 99>> {
    tir.return %x : tensor<?xf32, #tf.dims<n: 1 to 99>>
  }
  tir.prim_func @large(%x: tensor<?xf32, #tf.dims<n: 1 to 99>>) -> tensor<?xf32, #tf.dims<n: 1 to 99>> {
    tir.return %x : tensor<?xf32, #tf.dims<n: 1 to 99>>
  }
}

// -----

// A load is a snapshot (copied into fresh memory), a copy writes the caller's memref, an alloc
// is fresh zero-filled memory.
// CHECK-LABEL: func.func private @tfi_1k(%p0_0: memref<4xi8>, %status: memref<8xi64>) -> (tensor<4xi8>)
// CHECK: %[[SNAP:.*]] = memref.alloc() : memref<4xi8>
// CHECK-NEXT: memref.copy %p0_0, %[[SNAP]] : memref<4xi8> to memref<4xi8>
// CHECK-NEXT: %[[OLD:.*]] = bufferization.to_tensor %[[SNAP]] restrict writable : memref<4xi8>
// CHECK: %[[TMP:.*]] = memref.alloc() : memref<4xi8>
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i8
// CHECK-NEXT: linalg.fill ins(%[[Z]] : i8) outs(%[[TMP]] : memref<4xi8>)
// CHECK: memref.copy %[[TMP]], %p0_0 : memref<4xi8> to memref<4xi8>
// CHECK: func.return %[[OLD]] : tensor<4xi8>
tf.module @m entry @k {
  tir.prim_func @k(%b: !tf.buffer<4xi8>) -> tensor<4xi8> {
    %old = tir.let tf.call tf.memory.load(%b) : (!tf.buffer<4xi8>) -> tensor<4xi8>
    %tmp = tir.let tf.call tf.memory.alloc<shape = [4], dtype = i8>() : () -> !tf.buffer<4xi8>
    tir.evaluate tf.call tf.memory.copy(%b, %tmp) : (!tf.buffer<4xi8>, !tf.buffer<4xi8>) -> ()
    tir.return %old : tensor<4xi8>
  }
}

// -----

// HIR is lowered first: a function with variants is a dispatch over its variants and base.
// CHECK-LABEL: func.func private @tfi_1f(
// CHECK: scf.if
// CHECK: func.call @tfi_4f$v0(
// CHECK: func.call @tfi_6f$base(
// CHECK: func.func @tf_1f(
tf.module @m entry @f {
  hir.func @f(%x: tensor<?xf32, #tf.dims<n: 1 to 99>>) -> tensor<?xf32, #tf.dims<n: 1 to 99>> {
    %y = tf.call tf.math.unary<kind = neg>(%x) : (tensor<?xf32, #tf.dims<n: 1 to 99>>) -> tensor<?xf32, #tf.dims<n: 1 to 99>>
    hir.return %y : tensor<?xf32, #tf.dims<n: 1 to 99>>
  } variants {
    hir.variant [n: 1 to 8] (%x: tensor<?xf32, #tf.dims<n: 1 to 99>>) {
      hir.return %x : tensor<?xf32, #tf.dims<n: 1 to 99>>
    }
  }
}

// -----

// A slice (a strided view once bufferized) is copied into memory of its own before a call:
// one-shot-bufferize casts a call's operand to the callee's identity layout.
// CHECK-LABEL: func.func private @tfi_1f(
// CHECK: %[[S:.*]] = tensor.extract_slice %p0_0[0, 2] [2, 3] [1, 1] : tensor<2x8xi64> to tensor<2x3xi64>
// CHECK-NEXT: %[[C:.*]] = bufferization.alloc_tensor() copy(%[[S]]) : tensor<2x3xi64>
// CHECK-NEXT: func.call @tfi_1g(%[[C]], %status)
tf.module @m entry @f {
  tir.prim_func @f(%x: tensor<2x8xi64>) -> tensor<2x3xi64> {
    %s = tir.let tf.call tf.tensor.slice<axis = 1, start = 2, stop = 5>(%x) : (tensor<2x8xi64>) -> tensor<2x3xi64>
    %y = tir.let tf.call @g(%s) : (tensor<2x3xi64>) -> tensor<2x3xi64>
    tir.return %y : tensor<2x3xi64>
  }
  tir.prim_func @g(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
    tir.return %x : tensor<2x3xi64>
  }
}
