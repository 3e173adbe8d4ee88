// Pipelines as mlir-opt users write them.

// `builtin.module(a,b)` is `a,b`; op-anchored nesting runs the passes on those ops.
// RUN: tf-opt %s -p 'builtin.module(canonicalize,cse)' | filecheck %s --check-prefix=BOTH
// RUN: tf-opt %s -p 'canonicalize,cse' | filecheck %s --check-prefix=BOTH
// RUN: tf-opt %s -p 'tf.module(hir.func(canonicalize))' | filecheck %s --check-prefix=HIRONLY
// RUN: tf-opt %s -p 'tf.module(tir.prim_func(canonicalize))' | filecheck %s --check-prefix=TIRONLY
// RUN: tf-opt %s -p ' tf.module( tf-fold-constants{ max-elements=0 } , tf.module(canonicalize) ) ' | filecheck %s --check-prefix=CHILD

// BOTH-LABEL: hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
// BOTH-NEXT:    hir.return %x : tensor<4xf32>
// BOTH-LABEL: tir.prim_func @k(%x: tensor<4xf32>) -> tensor<4xf32> {
// BOTH-NEXT:    tir.return %x : tensor<4xf32>
// BOTH-LABEL: hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
// BOTH-NEXT:    hir.return %x : tensor<4xf32>

// HIRONLY-LABEL: hir.func @f(
// HIRONLY-NEXT:    hir.return %x : tensor<4xf32>
// HIRONLY-LABEL: tir.prim_func @k(
// HIRONLY-NEXT:    %one = tir.let
// HIRONLY-LABEL: hir.func @g(
// HIRONLY-NEXT:    %one = tf.constant

// TIRONLY-LABEL: hir.func @f(
// TIRONLY-NEXT:    %one = tf.constant
// TIRONLY-LABEL: tir.prim_func @k(
// TIRONLY-NEXT:    tir.return %x : tensor<4xf32>
// TIRONLY-LABEL: hir.func @g(
// TIRONLY-NEXT:    %one = tf.constant

// CHILD-LABEL: hir.func @f(
// CHILD-NEXT:    %one = tf.constant
// CHILD-LABEL: hir.func @g(
// CHILD-NEXT:    hir.return %x : tensor<4xf32>

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %one = tf.constant dense<1.0> : tensor<4xf32>
    %y = tf.call tf.math.binary<kind = mul>(%x, %one) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
  tir.prim_func @k(%x: tensor<4xf32>) -> tensor<4xf32> {
    %one = tir.let tf.constant dense<1.0> : tensor<4xf32>
    %y = tir.let tf.call tf.math.binary<kind = mul>(%x, %one) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tir.return %y : tensor<4xf32>
  }
  tf.module @child {
    hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
      %one = tf.constant dense<1.0> : tensor<4xf32>
      %y = tf.call tf.math.binary<kind = mul>(%x, %one) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      hir.return %y : tensor<4xf32>
    }
  }
}

// Every malformed pipeline is one line and exit 1, never a traceback.
// RUN: not tf-opt %s -p 'cse{' 2>&1 | filecheck %s --check-prefix=OPEN
// OPEN: tf-opt: error: invalid pass pipeline 'cse{': expected '}' to close the options of 'cse' (at column 5)
// RUN: not tf-opt %s -p 'cse dce' 2>&1 | filecheck %s --check-prefix=SPACE
// SPACE: tf-opt: error: invalid pass pipeline 'cse dce': expected ',' between passes, found 'd' (at column 5)
// RUN: not tf-opt %s -p 'cse,,dce' 2>&1 | filecheck %s --check-prefix=COMMAS
// COMMAS: tf-opt: error: invalid pass pipeline 'cse,,dce': expected a pass name or an op name, found ',' (at column 5)
// RUN: not tf-opt %s -p '((' 2>&1 | filecheck %s --check-prefix=PARENS
// PARENS: tf-opt: error: invalid pass pipeline '((': expected a pass name or an op name, found '(' (at column 1)
// RUN: not tf-opt %s -p 'tf.module(cse' 2>&1 | filecheck %s --check-prefix=UNCLOSED
// UNCLOSED: tf-opt: error: invalid pass pipeline 'tf.module(cse': expected ',' or ')', found the end (at column 14)
// RUN: not tf-opt %s -p 'tf-fold-constants{bogus=1}' 2>&1 | filecheck %s --check-prefix=OPTION
// OPTION: tf-opt: error: invalid pass pipeline 'tf-fold-constants{bogus=1}': pass 'tf-fold-constants' has no option 'bogus' (options: max-elements) (at column 19)
// RUN: not tf-opt %s -p 'tf-fold-constants{max-elements=many}' 2>&1 | filecheck %s --check-prefix=VALUE
// VALUE: tf-opt: error: invalid pass pipeline 'tf-fold-constants{max-elements=many}': option 'max-elements' of 'tf-fold-constants' expects an integer, got 'many' (at column 19)
// RUN: not tf-opt %s -p 'tf-fold-constants{max-elements=-1}' 2>&1 | filecheck %s --check-prefix=NEGATIVE
// NEGATIVE: tf-opt: error: invalid pass pipeline 'tf-fold-constants{max-elements=-1}': pass 'tf-fold-constants': max-elements must be >= 0, got -1 (at column 1)
// RUN: not tf-opt %s -p 'tf-fold-constants{max-elements}' 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: tf-opt: error: invalid pass pipeline 'tf-fold-constants{max-elements}': option 'max-elements' of 'tf-fold-constants' needs a value (at column 19)
// RUN: not tf-opt %s -p 'no-such-pass' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: tf-opt: error: invalid pass pipeline 'no-such-pass': unknown pass 'no-such-pass' (available passes: canonicalize, cse, dce, tf-analyze, {{.*}}) (at column 1)
// RUN: not tf-opt %s -p 'tf.call(cse)' 2>&1 | filecheck %s --check-prefix=NEST
// NEST: tf-opt: error: invalid pass pipeline 'tf.call(cse)': cannot nest passes on 'tf.call': it is not isolated from above; nest on one of: builtin.module, tf.module, hir.func, hir.variant, tir.prim_func (at column 1)
// RUN: not tf-opt %s -p 'hir.func(tf-inline)' 2>&1 | filecheck %s --check-prefix=ANCHOR
// ANCHOR: tf-opt: error: invalid pass pipeline 'hir.func(tf-inline)': pass 'tf-inline' runs on builtin.module or tf.module, not on 'hir.func' (at column 10)
// RUN: not tf-opt %s -p 'cse,builtin.module(dce)' 2>&1 | filecheck %s --check-prefix=ROOT
// ROOT: tf-opt: error: invalid pass pipeline 'cse,builtin.module(dce)': 'builtin.module(...)' names the root: it encloses the whole pipeline (at column 5)
// RUN: not tf-opt %s -p 'tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(cse)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))' 2>&1 | filecheck %s --check-prefix=DEEP
// DEEP: tf-opt: error: invalid pass pipeline 'tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(tf.module(...' (718 characters): the pipeline nests deeper than 64 levels (at column 641)

// --list-passes: every pass, what it does, where it runs, its options.
// RUN: tf-opt --list-passes | filecheck %s --check-prefix=LIST
// LIST:      canonicalize
// LIST-NEXT:     {{.+}} (runs on any op)
// LIST:      tf-analyze
// LIST-NEXT:     {{.+}} (runs on builtin.module, tf.module)
// LIST-NEXT:     {dims=list of str} (default (none)): {{.+}}
// LIST:      tf-fold-constants
// LIST-NEXT:     {{.+}}
// LIST-NEXT:     {max-elements=int} (default 65536): {{.+}}
// LIST:      tf-inline
// LIST:      tf-lower
// LIST-NEXT:     {{.+}} (runs on builtin.module)
// LIST-NEXT:     {function=str} (default ""): {{.+}}
// LIST:      tf-prune-unreachable
// LIST:      tf-select
// LIST-NEXT:     {{.+}} (runs on builtin.module)
// LIST-NEXT:     {path=str} (default ""): {{.+}}
// LIST:      tf-simplify
// LIST:      tf-strip-debuginfo
// LIST:      tf-verify-published
