// RUN: %roundtrip
// RUN: %generic-roundtrip
// RUN: %generic-form
// RUN: %fixpoint

// Numeric literals keep their value bit for bit: non-finite floats print as their bits in hex
// (as MLIR prints them) and read back as the same floats, in custom and generic form; a hex
// literal of a float type means bits, not an integer; a literal whose elements are all equal is
// a splat, and a splat stays one element whatever the shape.

tf.module @floats {
  hir.func @f32() -> tensor<6xf32> {
    %c = tf.constant dense<[0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 1.5, -0.0]> : tensor<6xf32>
    hir.return %c : tensor<6xf32>
  }
  hir.func @f16() -> tensor<4xf16> {
    %c = tf.constant dense<[0x7C00, 0xFC00, 0x7E00, 65504.0]> : tensor<4xf16>
    hir.return %c : tensor<4xf16>
  }
  hir.func @bf16() -> tensor<3xbf16> {
    %c = tf.constant dense<[0x7F80, 0xFFC0, 3.0]> : tensor<3xbf16>
    hir.return %c : tensor<3xbf16>
  }
  hir.func @f64() -> tensor<2xf64> {
    %c = tf.constant dense<0x7FF0000000000000> : tensor<2xf64>
    hir.return %c : tensor<2xf64>
  }
  hir.func @bits() -> tensor<f32> {
    %c = tf.constant dense<0x3F800000> : tensor<f32>
    hir.return %c : tensor<f32>
  }
}

// CHECK-LABEL: tf.module @floats {
// CHECK:         tf.constant dense<[0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 1.500000e+00, -0.000000e+00]> : tensor<6xf32>
// CHECK:         tf.constant dense<[0x7C00, 0xFC00, 0x7E00, 6.550400e+04]> : tensor<4xf16>
// CHECK:         tf.constant dense<[0x7F80, 0xFFC0, 3.000000e+00]> : tensor<3xbf16>
// CHECK:         tf.constant dense<0x7FF0000000000000> : tensor<2xf64>
// CHECK:         tf.constant dense<1.000000e+00> : tensor<f32>

// GENERIC-LABEL: "tf.module"() <{sym_name = "floats"}> ({
// GENERIC:         "tf.constant"() <{value = dense<[0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 1.500000e+00, -0.000000e+00]> : tensor<6xf32>}>
// GENERIC:         "tf.constant"() <{value = dense<[0x7C00, 0xFC00, 0x7E00, 6.550400e+04]> : tensor<4xf16>}>

// -----

tf.module @splats {
  hir.func @big() -> tensor<50000000xf32> {
    %c = tf.constant dense<1.0> : tensor<50000000xf32>
    hir.return %c : tensor<50000000xf32>
  }
  hir.func @equal() -> tensor<2x3xi32> {
    %c = tf.constant dense<[[7, 7, 7], [7, 7, 7]]> : tensor<2x3xi32>
    hir.return %c : tensor<2x3xi32>
  }
  hir.func @hex_splat() -> tensor<1000xf32> {
    %c = tf.constant dense<"0x0000803F"> : tensor<1000xf32>
    hir.return %c : tensor<1000xf32>
  }
  hir.func @ints() -> tensor<4xi8> {
    %c = tf.constant dense<[255, -128, 127, 0x10]> : tensor<4xi8>
    hir.return %c : tensor<4xi8>
  }
  hir.func @bools() -> tensor<3xi1> {
    %c = tf.constant dense<[true, false, 1]> : tensor<3xi1>
    hir.return %c : tensor<3xi1>
  }
}

// CHECK-LABEL: tf.module @splats {
// CHECK:         tf.constant dense<1.000000e+00> : tensor<50000000xf32>
// CHECK:         tf.constant dense<7> : tensor<2x3xi32>
// CHECK:         tf.constant dense<1.000000e+00> : tensor<1000xf32>
// CHECK:         tf.constant dense<[-1, -128, 127, 16]> : tensor<4xi8>
// CHECK:         tf.constant dense<[true, false, true]> : tensor<3xi1>

// GENERIC-LABEL: "tf.module"() <{sym_name = "splats"}> ({
// GENERIC:         "tf.constant"() <{value = dense<1.000000e+00> : tensor<50000000xf32>}>
