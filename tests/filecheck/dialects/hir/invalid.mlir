// RUN: tf-opt %s --split-input-file --verify-diagnostics

// Each chunk breaks one rule of hir.func / hir.return.

tf.module @m {
  // expected-error @+1 {{parameter name 'x' is used twice}}
  "hir.func"() <{sym_name = "f", function_type = (tensor<4xf32>, tensor<4xf32>) -> (), param_names = ["x", "x"]}> ({
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    "hir.return"() : () -> ()
  }) : () -> ()
}

// -----

tf.module @m {
  // expected-error @+1 {{1 parameter name(s) for 2 parameter(s)}}
  "hir.func"() <{sym_name = "f", function_type = (tensor<4xf32>, tensor<4xf32>) -> (), param_names = ["x"]}> ({
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    "hir.return"() : () -> ()
  }) : () -> ()
}

// -----

tf.module @m {
  // expected-error @+1 {{invalid parameter name '': a name is a non-empty printable string}}
  "hir.func"() <{sym_name = "f", function_type = (tensor<4xf32>) -> (), param_names = [""]}> ({
  ^bb0(%a: tensor<4xf32>):
    "hir.return"() : () -> ()
  }) : () -> ()
}

// -----

tf.module @m {
  // expected-error @+1 {{parameter #0 has type tensor<4xf16>, but the signature says tensor<4xf32>}}
  "hir.func"() <{sym_name = "f", function_type = (tensor<4xf32>) -> (), param_names = ["x"]}> ({
  ^bb0(%a: tensor<4xf16>):
    "hir.return"() : () -> ()
  }) : () -> ()
}

// -----

tf.module @m {
  // expected-error @+1 {{entry block has 0 argument(s) for 1 parameter type(s)}}
  "hir.func"() <{sym_name = "f", function_type = (tensor<4xf32>) -> (), param_names = ["x"]}> ({
    "hir.return"() : () -> ()
  }) : () -> ()
}

// -----

tf.module @m {
  // expected-error @+1 {{unknown parameter attribute 'frozen'; expected one of: const}}
  hir.func @f(%x: tensor<4xf32> {frozen}) -> () {
    hir.return
  }
}

// -----

tf.module @m {
  // expected-error @+1 {{parameter 'x' has unknown attribute 'frozen'; expected one of: const}}
  "hir.func"() <{sym_name = "f", function_type = (tensor<4xf32>) -> (), param_names = ["x"], arg_attrs = [{frozen}]}> ({
  ^bb0(%a: tensor<4xf32>):
    "hir.return"() : () -> ()
  }) : () -> ()
}

// -----

tf.module @m {
  // expected-error @+1 {{const parameter 't' must be a tensor, got tuple<tensor<4xf32>>}}
  hir.func @f(%t: tuple<tensor<4xf32>> {const}) -> () {
    hir.return
  }
}

// -----

tf.module @m {
  // expected-error @+1 {{a function returns one value (use a tuple for several), got 2 results}}
  "hir.func"() <{sym_name = "f", function_type = (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>), param_names = ["x"]}> ({
  ^bb0(%a: tensor<4xf32>):
    "hir.return"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) : () -> ()
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf16> {
    // expected-error @+1 {{returns tensor<4xf32>, but function '@f' returns tensor<4xf16>}}
    hir.return %x : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{returns nothing, but function '@f' returns tensor<4xf32>}}
    hir.return
  }
}

// -----

tf.module @m {
  // expected-error @+1 {{body must end with hir.return}}
  "hir.func"() <{sym_name = "f", function_type = (tensor<4xf32>) -> tensor<4xf32>, param_names = ["x"]}> ({
  ^bb0(%a: tensor<4xf32>):
    %y = "tf.call"(%a) <{callee = #tf.op<tf.math.unary<kind = neg>>}> : (tensor<4xf32>) -> tensor<4xf32>
  }) : () -> ()
}

// -----

tf.module @m {
  // expected-error @+1 {{DimVar 'n' has two envelopes in function '@f': [1, 8) and [1, 16)}}
  hir.func @f(%x: tensor<?xf32, #tf.dims<n: 1 to 8>>, %y: tensor<?xf32, #tf.dims<n: 1 to 16>>) -> () {
    hir.return
  }
}

// -----

// expected-error @+1 {{'hir.return' expects parent op to be one of 'hir.func', 'hir.variant'}}
"hir.return"() : () -> ()

// -----

tf.module @m {
  // expected-error @+1 {{parameter #0 metadata holds more than one BindingMetadata}}
  hir.func @f(%x: tensor<4xf32> loc(fused["a", "b"])) -> () {
    hir.return
  }
}

// -----

// Variants.

tf.module @m {
  // expected-error @+1 {{variant #0 of function '@f' range [0, 128) of 'n' is not inside its envelope [1, 4097)}}
  hir.func @f(%x: tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> () {
    hir.return
  } variants {
    hir.variant [n: 0 to 128] (%x: tensor<?xf32, #tf.dims<n: 1 to 4097>>) {
      hir.return
    }
  }
}

// -----

tf.module @m {
  // expected-error @+1 {{variant #0 of function '@f' ranges over 'm', which is not a DimVar of the signature (DimVars: n)}}
  hir.func @f(%x: tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> () {
    hir.return
  } variants {
    hir.variant [m: 1 to 128] (%x: tensor<?xf32, #tf.dims<n: 1 to 4097>>) {
      hir.return
    }
  }
}

// -----

tf.module @m {
  // expected-error @+1 {{variant #0 of function '@f' gives DimVar 'n' two ranges}}
  hir.func @f(%x: tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> () {
    hir.return
  } variants {
    hir.variant [n: 1 to 128, n: 2 to 3] (%x: tensor<?xf32, #tf.dims<n: 1 to 4097>>) {
      hir.return
    }
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> () {
    hir.return
  } variants {
    // expected-error @+1 {{a variant has its function's parameter types (tensor<?xf32, #tf.dims<n: 1 to 4097>>), got (tensor<4xf32>)}}
    hir.variant [n: 1 to 128] (%x: tensor<4xf32>) {
      hir.return
    }
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<?xf32, #tf.dims<n: 1 to 4097>>) -> () {
    hir.return
  } variants {
    // expected-error @+1 {{DimVarRangePat for 'n' needs lo < hi, got [128, 128)}}
    hir.variant [n: 128 to 128] (%x: tensor<?xf32, #tf.dims<n: 1 to 4097>>) {
      hir.return
    }
  }
}

// -----

// A function body holds expressions and its terminator; never a foreign op. Each is reported
// at the foreign op itself.

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'builtin.module' op cannot be in the body of function '@f'; a body holds tf.call, tf.constant, tf.tuple, tf.mesh and ends with hir.return}}
    builtin.module {}
    hir.return %x : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'tf.module' op cannot be in the body of function '@f'}}
    tf.module @inner {}
    hir.return %x : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'hir.func' op cannot be in the body of function '@f'}}
    hir.func @g() -> () {
      hir.return
    }
    hir.return %x : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> () {
    // expected-error @+1 {{'tir.prim_func' op cannot be in the body of function '@f'}}
    tir.prim_func @g() -> () {
      tir.return
    }
    hir.return
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'tir.let' op cannot be in the body of function '@f'}}
    %y = tir.let tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %x : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<?xf32, #tf.dims<n: 1 to 64>> {
    hir.return %x : tensor<?xf32, #tf.dims<n: 1 to 64>>
  } variants {
    hir.variant [n: 1 to 8] (%x: tensor<?xf32, #tf.dims<n: 1 to 64>>) {
      // expected-error @+1 {{'builtin.module' op cannot be in the body of a variant of function '@f'}}
      builtin.module {}
      hir.return %x : tensor<?xf32, #tf.dims<n: 1 to 64>>
    }
  }
}
