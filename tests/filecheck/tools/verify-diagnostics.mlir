// RUN: not tf-opt %s --split-input-file --verify-diagnostics > %t 2>&1
// RUN: filecheck %s --input-file %t
// RUN: not grep Traceback %t

// MLIR's --verify-diagnostics: an unmet expectation, an unexpected diagnostic, a diagnostic of
// another kind than expected and a malformed annotation all fail the run, each reported as
// mlir-opt reports it, at its place, with the source line and a caret.

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{this text is not in the message}}
    %y = tf.call tf.math.binary<kind = add>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}
// CHECK:      verify-diagnostics.mlir:[[# @LINE - 4]]:5: error: unexpected error: 'tf.call' op tf.math.binary expects 2 argument(s)
// CHECK-NEXT: {{^}}    %y = tf.call
// CHECK-NEXT: {{^}}    ^{{$}}
// CHECK-NEXT: verify-diagnostics.mlir:[[# @LINE - 8]]:8: error: expected error "this text is not in the message" was not produced
// CHECK-NEXT: {{^}}    //{{ }}expected-error @+1
// CHECK-NEXT: {{^}}       ^{{$}}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error {{expects 2 argument(s)}}
    hir.return %x : tensor<4xf32>
  }
}
// CHECK: verify-diagnostics.mlir:[[# @LINE - 4]]:8: error: expected error "expects 2 argument(s)" was not produced

// -----

// A note where an error was expected is a near miss, reported at the annotation.
tf.module @m {
  // expected-error @+1 {{see existing symbol definition here}}
  hir.func @f() -> () {
    hir.return
  }
  // expected-error @+1 {{redefinition of symbol named 'f'}}
  tf.module @f {}
}
// CHECK: verify-diagnostics.mlir:[[# @LINE - 7]]:6: error: 'note' diagnostic emitted when expecting a 'error'
// CHECK: verify-diagnostics.mlir:[[# @LINE - 8]]:6: error: expected error "see existing symbol definition here" was not produced

// -----

// An error whose note nobody expected: the note is unexpected.
tf.module @m {
  hir.func @f() -> () {
    hir.return
  }
  // expected-error @+1 {{redefinition of symbol named 'f'}}
  tf.module @f {}
}
// CHECK:      verify-diagnostics.mlir:[[# @LINE - 6]]:3: error: unexpected note: see existing symbol definition here
// CHECK-NEXT: {{^}}  hir.func @f() -> () {

// -----

// A regex that does not match; the literal text around it is not a regex.
// expected-error-re @+1 {{module metadata 'mesh{{[0-9]+}}'}}
tf.module @m metadata {mesh_axes = ["x"]} {}
// CHECK: verify-diagnostics.mlir:[[# @LINE - 2]]:4: error: expected error "module metadata 'mesh{{[{][{]}}[0-9]+{{[}][}]}}'" was not produced

// -----

// Malformed annotations are refused, not read as comments.
tf.module @m {
  // expected-error @+1 {{missing braces}
  // expected-eror {{a typo}}
  // expected-error @+x {{a bad offset}}
  // expected-note
  // expected-error-re {{an unterminated {{regex}}
  // expected-error-re {{a bad {{[regex}}}}
}
// CHECK:      verify-diagnostics.mlir:[[# @LINE - 7]]:6: error: malformed expected-error annotation; expected `expected-error[-re] [@+N|@-N|@above|@below|@unknown] {{[{][{]}}text{{[}][}]}}` at the end of the line
// CHECK-NEXT: {{^}}  //{{ }}expected-error @+1 {{[{][{]}}missing braces}
// CHECK-NEXT: {{^}}     ^{{$}}
// CHECK-NEXT: verify-diagnostics.mlir:[[# @LINE - 9]]:6: error: unknown annotation 'expected-eror'; expected one of expected-error, expected-warning, expected-note, expected-remark
// CHECK:      verify-diagnostics.mlir:[[# @LINE - 9]]:6: error: malformed expected-error annotation
// CHECK:      verify-diagnostics.mlir:[[# @LINE - 9]]:6: error: expected-note needs its text in '{{[{][{]}}...{{[}][}]}}'
// CHECK:      verify-diagnostics.mlir:[[# @LINE - 9]]:6: error: found start of regex with no end '}}'
// CHECK:      verify-diagnostics.mlir:[[# @LINE - 9]]:6: error: invalid regex:

// -----

// A warning, note or remark that is expected but not produced fails like an error.
tf.module @m {
  // expected-warning @+1 {{a warning}}
  hir.func @f() -> () {
    hir.return
  }
}
// CHECK: verify-diagnostics.mlir:[[# @LINE - 5]]:6: error: expected warning "a warning" was not produced
