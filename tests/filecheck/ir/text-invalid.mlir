// RUN: tf-opt %s --split-input-file --verify-diagnostics

// Text tf-opt refuses: one diagnostic each, at the token at fault, never an exception.

// Integers out of their type's range.

hir.func @f() -> tensor<2xi8> {
  // expected-error @+1 {{integer constant 300 out of range for i8 (expected [-128, 255])}}
  %c = tf.constant dense<[1, 300]> : tensor<2xi8>
  hir.return %c : tensor<2xi8>
}

// -----

hir.func @f() -> tensor<2xi8> {
  // expected-error @+1 {{integer constant -129 out of range for i8}}
  %c = tf.constant dense<-129> : tensor<2xi8>
  hir.return %c : tensor<2xi8>
}

// -----

// expected-error @+1 {{integer constant 99999999999 out of range for i32 (expected [-2147483648, 4294967295])}}
tf.module @m metadata {a = 99999999999 : i32} {}

// -----

// expected-error @+1 {{integer constant 99999999999999999999 out of range for i64}}
tf.module @m metadata {a = 99999999999999999999} {}

// -----

hir.func @f() -> tensor<2xi32> {
  // expected-error @+1 {{'true' is an i1 literal, not i32}}
  %c = tf.constant dense<true> : tensor<2xi32>
  hir.return %c : tensor<2xi32>
}

// -----

hir.func @f() -> tensor<2xi32> {
  // expected-error @+1 {{expected an integer literal of i32, got '1.5'}}
  %c = tf.constant dense<1.5> : tensor<2xi32>
  hir.return %c : tensor<2xi32>
}

// -----

// Floats out of their type's range (MLIR would make them infinities; write those as bits).

hir.func @f() -> tensor<2xf16> {
  // expected-error @+1 {{float constant 1.0e10 out of range for f16}}
  %c = tf.constant dense<1.0e10> : tensor<2xf16>
  hir.return %c : tensor<2xf16>
}

// -----

hir.func @f() -> tensor<2xf16> {
  // expected-error @+1 {{float constant 65520.0 out of range for f16}}
  %c = tf.constant dense<[1.0, 65520.0]> : tensor<2xf16>
  hir.return %c : tensor<2xf16>
}

// -----

hir.func @f() -> tensor<2xf32> {
  // expected-error @+1 {{float constant -1.0e39 out of range for f32}}
  %c = tf.constant dense<-1.0e39> : tensor<2xf32>
  hir.return %c : tensor<2xf32>
}

// -----

hir.func @f() -> tensor<2xf64> {
  // expected-error @+1 {{float constant 1.0e400 out of range for f64}}
  %c = tf.constant dense<1.0e400> : tensor<2xf64>
  hir.return %c : tensor<2xf64>
}

// -----

// expected-error @+1 {{float constant 1.0e5 out of range for f16}}
tf.module @m metadata {a = 1.0e5 : f16} {}

// -----

// Hexadecimal float literals are bits: no more than the type has, and no sign.

hir.func @f() -> tensor<2xf16> {
  // expected-error @+1 {{hexadecimal float constant 0x7F800000 out of range for f16 (at most 16 bits)}}
  %c = tf.constant dense<0x7F800000> : tensor<2xf16>
  hir.return %c : tensor<2xf16>
}

// -----

hir.func @f() -> tensor<2xf32> {
  // expected-error @+1 {{hexadecimal float literal should not have a leading minus}}
  %c = tf.constant dense<-0x7F800000> : tensor<2xf32>
  hir.return %c : tensor<2xf32>
}

// -----

// Shapes and sizes.

hir.func @f() -> tensor<2x2xf32> {
  // expected-error @+1 {{dense literal has shape [3], but the type has shape [2, 2]}}
  %c = tf.constant dense<[1.0, 2.0, 3.0]> : tensor<2x2xf32>
  hir.return %c : tensor<2x2xf32>
}

// -----

hir.func @f() -> tensor<3xf32> {
  // expected-error @+1 {{hex string has 8 bytes; 3 element(s) of f32 take 12 (or 4 for a splat)}}
  %c = tf.constant dense<"0x0000803F0000803F"> : tensor<3xf32>
  hir.return %c : tensor<3xf32>
}

// -----

// expected-error @+1 {{dimension 9223372036854775808 out of range (at most 9223372036854775807)}}
hir.func @f(%x: tensor<9223372036854775808xf32>) -> () {
  hir.return
}

// -----

// expected-error @+1 {{dense literals of i128 are not supported}}
tf.module @m metadata {a = dense<1> : tensor<2xi128>} {}

// -----

// Locations: line and column numbers are unsigned 32-bit, a range ends after it starts.

// expected-error @+1 {{line number 4294967296 out of range (at most 4294967295)}}
tf.module @m {} loc("a.py":4294967296:1)

// -----

// expected-error @+1 {{source range ends at 2:1, before it starts at 3:4}}
tf.module @m {} loc("a.py":3:4 to 2:1)

// -----

// expected-error @+1 {{source range ends at 3:1, before it starts at 3:4}}
tf.module @m {} loc("a.py":3:4 to :1)

// -----

// What TileFoundry IR does not have.

tf.module @m {}
// expected-error @+1 {{resource blocks ({-# ... #-}) are not supported: TileFoundry IR has no dialect resources}}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x0400000001000000"
    }
  }
#-}

// -----

// expected-error @+1 {{affine maps are not supported: TileFoundry IR has none}}
tf.module @m metadata {a = affine_map<(d0) -> (d0)>} {}

// -----

// Lexing errors, in the first token too.

// expected-error @+1 {{unexpected character '²'}}
hir.func @f(%x: tensor<²xf32>) -> () {
  hir.return
}

// -----

// expected-error @+1 {{Unexpected character: `}}
`

// -----

// expected-error @+1 {{End of file reached before closing string literal}}
"unterminated

// -----

// A value defined in a region is not visible outside it: the body of a function cannot use
// the argument of a variant that follows it.

tf.module @m {
  hir.func @f(%x: tensor<?x8xf32, #tf.dims<n: 1 to 64>>) -> tensor<?x8xf32, #tf.dims<n: 1 to 64>> {
    // expected-error @+1 {{use of undefined value '%v'}}
    hir.return %v : tensor<?x8xf32, #tf.dims<n: 1 to 64>>
  } variants {
    hir.variant [n: 1 to 8] (%v: tensor<?x8xf32, #tf.dims<n: 1 to 64>>) {
      hir.return %v : tensor<?x8xf32, #tf.dims<n: 1 to 64>>
    }
  }
}

// -----

// More literals that do not fit their type.

hir.func @f() -> tensor<2xf32> {
  // expected-error @+1 {{dense literal has no elements, but tensor<2xf32> has 2}}
  %c = tf.constant dense<> : tensor<2xf32>
  hir.return %c : tensor<2xf32>
}

// -----

hir.func @f() -> tensor<2xf32> {
  // expected-error @+1 {{expected a hex string of the data, '0x...'}}
  %c = tf.constant dense<"ABCD"> : tensor<2xf32>
  hir.return %c : tensor<2xf32>
}

// -----

hir.func @f() -> tensor<2xf32> {
  // expected-error @+1 {{expected a float literal of f32, got '(1.0,2.0)'}}
  %c = tf.constant dense<(1.0,2.0)> : tensor<2xf32>
  hir.return %c : tensor<2xf32>
}

// -----

// expected-error @+1 {{complex value must be either (float, float) or (int, int)}}
tf.module @m metadata {a = dense<(1.0, 2)> : tensor<2xcomplex<f32>>} {}

// -----

// expected-error @+1 {{Expected ')' in complex literal}}
tf.module @m metadata {a = dense<(1.0, 2.0]> : tensor<2xcomplex<f32>>} {}

// -----

// expected-error @+1 {{float attributes of f80 are not supported}}
tf.module @m metadata {a = 1.0 : f80} {}

// -----

// expected-error @+1 {{expected an integer or float type for '1', got tensor<2xi32>}}
tf.module @m metadata {a = 1 : tensor<2xi32>} {}

// -----

// expected-error @+1 {{float constant 1.0e400 out of range for f64}}
tf.module @m metadata {a = 1.0e400} {}

// -----

// expected-error @+1 {{column number 4294967296 out of range (at most 4294967295)}}
tf.module @m {} loc("a.py":1:4294967296)

// -----

// expected-error @+1 {{affine sets are not supported: TileFoundry IR has none}}
tf.module @m metadata {a = affine_set<(d0) : (d0 >= 0)>} {}

// -----

// A binding needs a name.

hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{invalid location loc(""): BindingMetadata.name must be a non-empty str, got ''}}
  %y = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("")
  hir.return %y : tensor<4xf32>
}
