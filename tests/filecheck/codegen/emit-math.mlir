// REQUIRES: mlir-opt
// RUN: tf-opt %s --split-input-file --emit=mlir | filecheck %s
// RUN: tf-opt %s --split-input-file --emit=mlir | %mlir-opt --split-input-file > /dev/null

// What the elementwise rules write: numpy's max (a NaN first operand wins, else the larger, of
// equal values the second; not arith.maximumf), f16 / bf16 computed in f32 and rounded once
// (bf16 in integers), floor division with x / 0 = 0 and x / -1 = -x, saturating float-to-int
// casts, splat constants as fills (a splat -0.0 keeps its sign).

// CHECK-LABEL: func.func private @tfi_1f(
// CHECK: linalg.generic
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[A:.*]], %[[B:.*]] : f32
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[A]], %[[A]] : f32
// CHECK-NEXT: %[[FIRST:.*]] = arith.ori %[[GT]], %[[NAN]] : i1
// CHECK-NEXT: arith.select %[[FIRST]], %[[A]], %[[B]] : f32
// CHECK-NOT: arith.maximumf
// CHECK: func.func @tf_1f(%a0: memref<4xf32>, %a1: memref<4xf32>, %r0: memref<4xf32>, %status: memref<8xi64>) attributes {llvm.emit_c_interface}
tf.module @m entry @f {
  tir.prim_func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
    %m = tir.let tf.call tf.math.binary<kind = max>(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tir.return %m : tensor<4xf32>
  }
}

// -----

// CHECK-LABEL: func.func private @tfi_1f(
// CHECK: ^bb0(%[[X:.*]]: bf16, %[[Y:.*]]: bf16, %{{.*}}: bf16):
// CHECK: arith.bitcast %[[X]] : bf16 to i16
// CHECK: arith.shli
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: arith.bitcast %[[SUM]] : f32 to i32
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpf uno, %[[SUM]], %[[SUM]] : f32
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
// CHECK-NOT: arith.truncf
tf.module @m entry @f {
  tir.prim_func @f(%x: tensor<4xbf16>, %y: tensor<4xbf16>) -> tensor<4xbf16> {
    %s = tir.let tf.call tf.math.binary<kind = add>(%x, %y) : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
    tir.return %s : tensor<4xbf16>
  }
}

// -----

// CHECK-LABEL: func.func private @tfi_1f(
// CHECK: ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[A:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[B:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: arith.truncf %[[P]] : f32 to f16
tf.module @m entry @f {
  tir.prim_func @f(%x: tensor<4xf16>, %y: tensor<4xf16>) -> tensor<4xf16> {
    %s = tir.let tf.call tf.math.binary<kind = mul>(%x, %y) : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    tir.return %s : tensor<4xf16>
  }
}

// -----

// CHECK-LABEL: func.func private @tfi_1f(
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %[[D:.*]], %{{.*}} : i32
// CHECK: %[[MINUS:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : i32
// CHECK: arith.floordivsi
// CHECK: arith.select %[[MINUS]]
// CHECK: arith.select %[[ZERO]]
tf.module @m entry @f {
  tir.prim_func @f(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
    %q = tir.let tf.call tf.math.binary<kind = div>(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    tir.return %q : tensor<4xi32>
  }
}

// -----

// CHECK-LABEL: func.func private @tfi_1f(
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: math.trunc
// CHECK: arith.cmpf oge, %{{.*}}, %{{.*}} : f64
// CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : f64
// CHECK: arith.fptosi %{{.*}} : f64 to i8
// CHECK: arith.constant 127 : i8
// CHECK: arith.constant -128 : i8
tf.module @m entry @f {
  tir.prim_func @f(%x: tensor<4xf32>) -> tensor<4xi8> {
    %c = tir.let tf.call tf.math.cast<dtype = i8>(%x) : (tensor<4xf32>) -> tensor<4xi8>
    tir.return %c : tensor<4xi8>
  }
}

// -----

// CHECK-LABEL: func.func private @tfi_1f(
// CHECK: %[[NEG:.*]] = arith.constant 0x80000000 : f32
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT: linalg.fill ins(%[[NEG]] : f32) outs(%[[E]] : tensor<2x3xf32>)
// CHECK: arith.constant dense<"0x0000803F000000800000C07F0000807F"> : tensor<4xf32>
tf.module @m entry @f {
  tir.prim_func @f() -> tuple<tensor<2x3xf32>, tensor<4xf32>> {
    %z = tir.let tf.constant dense<-0.0> : tensor<2x3xf32>
    %c = tir.let tf.constant dense<[1.0, -0.0, 0x7FC00000, 0x7F800000]> : tensor<4xf32>
    %t = tir.let tf.tuple %z, %c : tuple<tensor<2x3xf32>, tensor<4xf32>>
    tir.return %t : tuple<tensor<2x3xf32>, tensor<4xf32>>
  }
}
