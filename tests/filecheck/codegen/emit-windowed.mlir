// REQUIRES: mlir-opt
// RUN: tf-opt %s --split-input-file --emit=mlir | filecheck %s
// RUN: tf-opt %s --split-input-file --emit=mlir | %mlir-opt --split-input-file > /dev/null

// The zoo's windowed ops: the input padded (zeros for conv and avg, -inf for max), a
// linalg.generic whose input map slides the window (o * stride + k * dilation), a grouped
// conv's channel through floordiv; a pool's windows laid out as [..., taps, *out] and reduced
// as numpy does; topk as ranks (how many elements come before each), the position of each rank
// and a gather there.

// CHECK-LABEL: func.func private @tfi_4conv(
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 0] high[0, 0, 1, 0]
// CHECK: tensor.yield %{{.*}} : f32
// CHECK: } : tensor<?x4x7x6xf32> to tensor<?x4x9x6xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, (d1 floordiv 3) * 2 + d4, d2 * 2 + d5, d3 + d6 * 2)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
tf.module @m entry @conv {
  tir.prim_func @conv(%x: tensor<?x4x7x6xf32, #tf.dims<n: 1 to 9>>, %w: tensor<6x2x3x2xf32>) -> tensor<?x6x4x4xf32, #tf.dims<n: 1 to 9>> {
    %r = tir.let tf.call tf.nn.conv<stride = [2, 1], padding = [1, 0], dilation = [1, 2], groups = 2>(%x, %w) : (tensor<?x4x7x6xf32, #tf.dims<n: 1 to 9>>, tensor<6x2x3x2xf32>) -> tensor<?x6x4x4xf32, #tf.dims<n: 1 to 9>>
    tir.return %r : tensor<?x6x4x4xf32, #tf.dims<n: 1 to 9>>
  }
}

// -----

// CHECK-LABEL: func.func private @tfi_4pool(
// CHECK: %[[LOW:.*]] = arith.constant 0xFF800000 : f32
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tensor.yield %[[LOW]] : f32
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2, d5 * 2 + d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>]
// CHECK: tensor.reshape %{{.*}} : (tensor<?x3x3x2x4x4xf32>, tensor<5xindex>) -> tensor<?x3x6x4x4xf32>
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
tf.module @m entry @pool {
  tir.prim_func @pool(%x: tensor<?x3x7x6xf32, #tf.dims<n: 1 to 9>>) -> tensor<?x3x4x4xf32, #tf.dims<n: 1 to 9>> {
    %r = tir.let tf.call tf.nn.pool<kind = max, kernel = [3, 2], stride = [2, 2], padding = [1, 1]>(%x) : (tensor<?x3x7x6xf32, #tf.dims<n: 1 to 9>>) -> tensor<?x3x4x4xf32, #tf.dims<n: 1 to 9>>
    tir.return %r : tensor<?x3x4x4xf32, #tf.dims<n: 1 to 9>>
  }
}

// -----

// CHECK-LABEL: func.func private @tfi_4topk(
// CHECK: arith.constant dense<"0x{{0+}}01{{0+}}02{{0+}}03{{0+}}04{{0+}}"> : tensor<5xi64>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: arith.cmpi sgt
// CHECK: arith.cmpi ult
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: } -> tensor<?x2xi64>
// CHECK: tensor.extract %p0_0[%{{.*}}, %{{.*}}] : tensor<?x5xi32>
tf.module @m entry @topk {
  tir.prim_func @topk(%x: tensor<?x5xi32, #tf.dims<n: 1 to 9>>) -> tuple<tensor<?x2xi32, #tf.dims<n: 1 to 9>>, tensor<?x2xi64, #tf.dims<n: 1 to 9>>> {
    %r = tir.let tf.call tf.tensor.topk<k = 2>(%x) : (tensor<?x5xi32, #tf.dims<n: 1 to 9>>) -> tuple<tensor<?x2xi32, #tf.dims<n: 1 to 9>>, tensor<?x2xi64, #tf.dims<n: 1 to 9>>>
    tir.return %r : tuple<tensor<?x2xi32, #tf.dims<n: 1 to 9>>, tensor<?x2xi64, #tf.dims<n: 1 to 9>>>
  }
}
