// RUN: not tf-opt %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s

// The regexes of expected-*-re are bounded and matched in linear time (tools/safe_regex.py):
// a pattern past a bound is refused in one line, at its annotation; one that would make a
// backtracking engine run for ages (`(a|aa)+b` against 48 a's) is answered at once.

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error-re @+1 {{'@{{(a|aa)+b}}' does not reference}}
    %y = tf.call @aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// CHECK:      verify-diagnostics-regex.mlir:[[# @LINE - 5]]:5: error: unexpected error: 'tf.call' op '@aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' does not reference a function in the module tree
// CHECK:      verify-diagnostics-regex.mlir:[[# @LINE - 7]]:8: error: expected error "'@{{[{][{]}}(a|aa)+b{{[}][}]}}' does not reference" was not produced

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error-re @+1 {{'@{{(a|aa)+}}' does not reference}}
    %y = tf.call @aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error-re @+1 {{'@{{a{99999999999}a*}}' does not reference}}
    %y = tf.call @aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa(%x) : (tensor<4xf32>) -> tensor<4xf32>
    // expected-error-re @-1 {{{{(a{1000}){1000}x}}}}
    hir.return %y : tensor<4xf32>
  }
}

// CHECK:      verify-diagnostics-regex.mlir:[[# @LINE - 7]]:8: error: invalid regex: repetition count 99999999999 is more than 1000 (at offset 1 of 'a{99999999999}a*')
// CHECK:      verify-diagnostics-regex.mlir:[[# @LINE - 6]]:8: error: invalid regex: more than 2000 states once repetitions are expanded ('(a{1000}){1000}x')

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error-re @+1 {{{{((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))}}}}
    %y = tf.call @aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa(%x) : (tensor<4xf32>) -> tensor<4xf32>
    // expected-error-re @-1 {{{{(a|\1)}}}}
    hir.return %y : tensor<4xf32>
  }
}

// CHECK:      verify-diagnostics-regex.mlir:[[# @LINE - 7]]:8: error: invalid regex: groups nest deeper than 100 (at offset 101 of '((((((((((((((((((((((((((((((((((((((((...' (1201 characters))
// CHECK:      verify-diagnostics-regex.mlir:[[# @LINE - 6]]:8: error: invalid regex: '\1' is not supported (at offset 5 of '(a|\1)')
