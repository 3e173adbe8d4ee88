// RUN: tf-opt %s --split-input-file --verify-diagnostics

// Each chunk breaks one rule of the tf dialect; the annotation names the diagnostic.

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{tf.math.binary expects 2 argument(s) (lhs, rhs), got 1}}
    %y = tf.call tf.math.binary<kind = add>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> {
    // expected-error @+1 {{tf.math.binary argument #1 ('rhs') expects Tensor, got tensor<f32>}}
    %y = tf.call tf.math.binary<kind = add>(%x, %s) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xi1> {
    // expected-error @+1 {{result type tensor<4xi1> does not match the type inferred for tf.math.binary: tensor<4xf32>}}
    %y = tf.call tf.math.binary<kind = add>(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    hir.return %y : tensor<4xi1>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{unknown op 'tf.math.frobnicate'}}
    %y = tf.call tf.math.frobnicate(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{tf.math.binary: unknown attribute(s) flavor; it has: kind}}
    %y = tf.call tf.math.binary<kind = add, flavor = 3>(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{tf.math.binary: missing required attribute 'kind'}}
    %y = tf.call tf.math.binary(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4x8xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{tf.reduce.sum: attribute 'axis' expects an int, got str 'last'}}
    %y = tf.call tf.reduce.sum<axis = last>(%x) : (tensor<4x8xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{tf.math.binary: attribute 'kind' expects a BinaryKind (add, sub, mul}}
    %y = tf.call tf.math.binary<kind = plus>(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>, %y: tensor<4xbf16>) -> tensor<4xf32> {
    // expected-error @+1 {{tf.math.binary: operand dtypes differ: f32 and bf16}}
    %z = tf.call tf.math.binary<kind = mul>(%x, %y) : (tensor<4xf32>, tensor<4xbf16>) -> tensor<4xf32>
    hir.return %z : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4x8xf32>, %y: tensor<3x8xf32>) -> tensor<4x8xf32> {
    // expected-error @+1 {{shapes [4, 8] and [3, 8] do not broadcast (dim -2: 4 vs 3)}}
    %z = tf.call tf.math.binary<kind = add>(%x, %y) : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    hir.return %z : tensor<4x8xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<?x8xf32, #tf.dims<n: 1 to 64>>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error @+1 {{shapes [n, 8] and [4, 8] do not broadcast (dim -2: n vs 4)}}
    %z = tf.call tf.math.binary<kind = add>(%x, %y) : (tensor<?x8xf32, #tf.dims<n: 1 to 64>>, tensor<4x8xf32>) -> tensor<4x8xf32>
    hir.return %z : tensor<4x8xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xi32>) -> tensor<4xi32> {
    // expected-error @+1 {{tf.math.unary: exp needs a float tensor, got i32}}
    %z = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xi32>) -> tensor<4xi32>
    hir.return %z : tensor<4xi32>
  }
}

// -----

tf.module @m {
  hir.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error @+1 {{contraction dims differ: lhs tensor<4x8xf32> has K = 8, rhs tensor<4x8xf32> has K = 4}}
    %z = tf.call tf.linalg.matmul(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    hir.return %z : tensor<4x8xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%a: tensor<8xf32>, %b: tensor<8x4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{matmul needs rank >= 2 operands, got ranks 1 and 2}}
    %z = tf.call tf.linalg.matmul(%a, %b) : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
    hir.return %z : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4x8xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{tf.reduce.sum: axis 2 is out of range for rank 2}}
    %y = tf.call tf.reduce.sum<axis = 2>(%x) : (tensor<4x8xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
    // expected-error @+1 {{perm [0, 0] is not a permutation of the 2 dims}}
    %y = tf.call tf.linalg.transpose<perm = [0, 0]>(%x) : (tensor<4x8xf32>) -> tensor<8x4xf32>
    hir.return %y : tensor<8x4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
    // expected-error @+1 {{dim 1 of size 6 does not split into 4 parts}}
    %p = tf.call tf.shape.split<axis = 1, sections = 4>(%x) : (tensor<4x6xf32>) -> tuple<tensor<4x6xf32>>
    hir.return %x : tensor<4x6xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%t: tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32> {
    // expected-error @+1 {{index 2 is out of range for a 2-field tuple}}
    %a = tf.call tf.tuple.get_item<index = 2>(%t) : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
    hir.return %a : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{tuple_get_item needs a tuple, got tensor<4xf32>}}
    %a = tf.call tf.tuple.get_item<index = 0>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %a : tensor<4xf32>
  }
}

// -----

tf.module @m {
  tir.prim_func @f(%d: !tf.buffer<4xf32>, %s: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{result type tensor<4xf32> does not match the type inferred for tf.memory.copy: () (no result)}}
    %r = tir.let tf.call tf.memory.copy(%d, %s) : (!tf.buffer<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tir.return %r : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> () {
    // expected-error @+1 {{result type () (no result) does not match the type inferred for tf.math.unary: tensor<4xf32>}}
    tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> ()
    hir.return
  }
}

// -----

// Function calls through the symbol table.

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'@g' does not reference a function in the module tree}}
    %y = tf.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'@child' references a 'tf.module', not a function}}
    %y = tf.call @child(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
  tf.module @child {}
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{@g expects 1 argument(s), got 2}}
    %y = tf.call @g(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
  hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
    // expected-error @+1 {{@c::@g argument #0 expects tensor<?xf32, #tf.dims<n: 1 to 8>>, got tensor<8xf32>}}
    %y = tf.call @c::@g(%x) : (tensor<8xf32>) -> tensor<8xf32>
    hir.return %y : tensor<8xf32>
  }
  tf.module @c {
    hir.func @g(%x: tensor<?xf32, #tf.dims<n: 1 to 8>>) -> tensor<8xf32> {
      %y = tf.call tf.math.binary<kind = add>(%x, %x) : (tensor<?xf32, #tf.dims<n: 1 to 8>>, tensor<?xf32, #tf.dims<n: 1 to 8>>) -> tensor<?xf32, #tf.dims<n: 1 to 8>>
      %z = tf.call tf.math.cast<dtype = f32>(%y) : (tensor<?xf32, #tf.dims<n: 1 to 8>>) -> tensor<?xf32, #tf.dims<n: 1 to 8>>
      %c = tf.constant dense<0.0> : tensor<8xf32>
      hir.return %c : tensor<8xf32>
    }
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{result type tensor<4xf32> does not match @g's result type tensor<4xf16>}}
    %y = tf.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
  hir.func @g(%x: tensor<4xf32>) -> tensor<4xf16> {
    %h = tf.call tf.math.cast<dtype = f16>(%x) : (tensor<4xf32>) -> tensor<4xf16>
    hir.return %h : tensor<4xf16>
  }
}

// -----

// tf.constant and tf.tuple.

tf.module @m {
  hir.func @f() -> tensor<2xf32> {
    // expected-error @+1 {{value type tensor<2xf32> does not match result type tensor<3xf32>}}
    %c = "tf.constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<3xf32>
    hir.return %c : tensor<3xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tuple<tensor<4xf32>> {
    // expected-error @+1 {{result type tuple<tensor<4xf16>> does not match the element types (tensor<4xf32>)}}
    %t = "tf.tuple"(%x) : (tensor<4xf32>) -> tuple<tensor<4xf16>>
    hir.return %t : tuple<tensor<4xf16>>
  }
}

// -----

// Types: element types, and a DimVar for every dynamic dim.

tf.module @m {
  // expected-error @+1 {{unsupported element type ui8 in tensor<4xui8>}}
  hir.func @f(%x: tensor<4xui8>) -> tensor<4xui8> {
    hir.return %x : tensor<4xui8>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{unsupported element type ui8 in tensor<4xui8>}}
    %y = "tf.call"(%x) <{callee = #tf.op<tf.math.cast<dtype = i8>>}> : (tensor<4xf32>) -> tensor<4xui8>
    hir.return %x : tensor<4xf32>
  }
}

// -----

tf.module @m {
  // expected-error @+1 {{tensor<?x4xf32> has 1 dynamic dimension(s) but names 0 DimVar(s)}}
  hir.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
    hir.return %x : tensor<?x4xf32>
  }
}

// -----

tf.module @m {
  // expected-error @+1 {{dim 'n' appears with two envelopes: [1, 8) and [1, 9)}}
  hir.func @f(%x: tensor<?x?xf32, #tf.dims<n: 1 to 8, n: 1 to 9>>) -> () {
    hir.return
  }
}

// -----

// Metadata: at most one value of each class.

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'tf.call' op metadata holds more than one SourceSpanMetadata (bound to 'y' at a.py:1:1)}}
    %y = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32> loc(fused["a.py":1:1, "b.py":2:2])
    hir.return %y : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{unknown metadata class 'no.such.Metadata'}}
    %y = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32> loc(fused<#tf.meta<"no.such.Metadata", {}>>[unknown])
    hir.return %y : tensor<4xf32>
  }
}

// -----

// The module body and its entry.

// expected-error @+1 {{'tf.constant' cannot be in a module body; it holds only hir.func, tir.prim_func, tf.module}}
tf.module @m {
  %c = tf.constant dense<1.0> : tensor<f32>
}

// -----

// expected-error @+1 {{entry '@main' does not name a function of this module (functions: 'f')}}
tf.module @m entry @main {
  hir.func @f() -> () {
    hir.return
  }
}

// -----

// A symbol defined twice: the error at the second definition, a note at the first (as MLIR).
tf.module @m {
  // expected-note @+1 {{see existing symbol definition here}}
  hir.func @f() -> () {
    hir.return
  }
  // expected-error @+1 {{redefinition of symbol named 'f'}}
  tf.module @f {}
}

// -----

// A symbol table that is not one block is refused before a call looks into it.
tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call @c::@g(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
  // expected-error @+1 {{'tf.module' op Region 'body' at position 0 expected a single block, but got 2 blocks}}
  "tf.module"() <{sym_name = "c"}> ({
  ^bb0:
    "hir.func"() <{sym_name = "g", function_type = (tensor<4xf32>) -> tensor<4xf32>, param_names = ["x"]}> ({
    ^bb2(%a: tensor<4xf32>):
      "hir.return"(%a) : (tensor<4xf32>) -> ()
    }) : () -> ()
  ^bb1:
  }) : () -> ()
}
