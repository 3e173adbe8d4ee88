// REQUIRES: mlir-opt
// RUN: cat %S/../../../dialects/*.irdl.mlir > %t.irdl.mlir
// RUN: %mlir-opt --irdl-file=%t.irdl.mlir %s --split-input-file --verify-diagnostics

// Upstream MLIR, given the dialects of dialects/*.irdl.mlir, refuses the IR that breaks a
// constraint IRDL states. Each chunk is in the IRDL form, as tf-opt --print-irdl-generic
// writes it, with one fault.

// A tf.constant whose result is not a tensor.
"tf.module"() ({
  "hir.func"() ({
    // expected-error @+1 {{expected base type 'builtin.tensor' but got 'builtin.integer'}}
    %c = "tf.constant"() {value = dense<1> : tensor<i32>} : () -> i32
    "hir.return"() : () -> ()
    "llvm.unreachable"() : () -> ()
  }, {
  }) {sym_name = "f", function_type = () -> (), param_names = []} : () -> ()
  "llvm.unreachable"() : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

// A tf.module without its symbol.
// expected-error @+1 {{'tf.module' op attribute "sym_name" is expected but not provided}}
"tf.module"() ({
  "llvm.unreachable"() : () -> ()
}) {module_name = "m"} : () -> ()

// -----

// A tf.call whose callee is neither a #tf.op nor a symbol.
"tf.module"() ({
  "hir.func"() ({
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{'"tf.math.unary"' does not satisfy the constraint}}
    %y = "tf.call"(%x) {callee = "tf.math.unary", operand_segment_sizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
    "hir.return"(%y) : (tensor<4xf32>) -> ()
    "llvm.unreachable"() : () -> ()
  }, {
  }) {sym_name = "f", function_type = (tensor<4xf32>) -> tensor<4xf32>, param_names = ["x"]} : () -> ()
  "llvm.unreachable"() : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

// A tf.call argument that is not a tensor or a tuple.
"tf.module"() ({
  "hir.func"() ({
  ^bb0(%x: tensor<4xf32>, %i: i32):
    // expected-error @+1 {{'i32' does not satisfy the constraint}}
    %y = "tf.call"(%x, %i) {callee = @g, operand_segment_sizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4xf32>, i32) -> tensor<4xf32>
    "hir.return"(%y) : (tensor<4xf32>) -> ()
    "llvm.unreachable"() : () -> ()
  }, {
  }) {sym_name = "f", function_type = (tensor<4xf32>, i32) -> tensor<4xf32>, param_names = ["x", "i"]} : () -> ()
  "llvm.unreachable"() : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

// A hir.return of values of two types (a terminator's values have one type).
"tf.module"() ({
  "hir.func"() ({
  ^bb0(%x: tensor<4xf32>, %z: tensor<2xf32>):
    // expected-error @+1 {{expected 'tensor<4xf32>' but got 'tensor<2xf32>'}}
    "hir.return"(%x, %z) : (tensor<4xf32>, tensor<2xf32>) -> ()
    "llvm.unreachable"() : () -> ()
  }, {
  }) {sym_name = "f", function_type = (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>, param_names = ["x", "z"]} : () -> ()
  "llvm.unreachable"() : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

// A hir.func without its variants region (the irdl form writes an absent one empty).
"tf.module"() ({
  // expected-error @+1 {{'hir.func' op unexpected number of regions: expected 2 but got 1}}
  "hir.func"() ({
  ^bb0(%x: tensor<4xf32>):
    "hir.return"(%x) : (tensor<4xf32>) -> ()
    "llvm.unreachable"() : () -> ()
  }) {sym_name = "f", function_type = (tensor<4xf32>) -> tensor<4xf32>, param_names = ["x"]} : () -> ()
  "llvm.unreachable"() : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

// A block of a tf op that does not end in llvm.unreachable (no irdl op is a terminator).
"tf.module"() ({
  "hir.func"() ({
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{block with no terminator, has "hir.return"}}
    "hir.return"(%x) : (tensor<4xf32>) -> ()
  }, {
  }) {sym_name = "f", function_type = (tensor<4xf32>) -> tensor<4xf32>, param_names = ["x"]} : () -> ()
  "llvm.unreachable"() : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

// A #tf.topology whose extent is a string.
"tf.module"() ({
  "llvm.unreachable"() : () -> ()
// expected-error @+1 {{'"four"' does not satisfy the constraint}}
}) {sym_name = "m", target = #tf.target<"h100">, topologies = [#tf.topology<"cta", "four">]} : () -> ()

// -----

// A #tf.range whose bound is a string, wherever it is.
"tf.module"() ({
  "llvm.unreachable"() : () -> ()
// expected-error @+1 {{expected base attribute 'builtin.integer' but got 'builtin.string'}}
}) {sym_name = "m", metadata = #tf.range<"n", 1 : i64, "x">} : () -> ()

// -----

// A tir.let whose body has two blocks.
"tf.module"() ({
  "tir.prim_func"() ({
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{expected region 0 to have 1 block(s) but got 2}}
    %y = "tir.let"() ({
      "tir.yield"(%x) : (tensor<4xf32>) -> ()
      "llvm.unreachable"() : () -> ()
    ^bb1:
      "llvm.unreachable"() : () -> ()
    }) : () -> tensor<4xf32>
    "tir.return"() : () -> ()
    "llvm.unreachable"() : () -> ()
  }) {sym_name = "k", function_type = (tensor<4xf32>) -> (), param_names = ["x"]} : () -> ()
  "llvm.unreachable"() : () -> ()
}) {sym_name = "m"} : () -> ()
