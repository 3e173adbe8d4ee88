// RUN: tf-opt %s --split-input-file --verify-diagnostics

// Each chunk breaks one rule of the tir dialect.

tf.module @m {
  // expected-error @+1 {{a tf.call cannot be a statement: anchor a value-form call with tir.let, or run an effect-form call with tir.evaluate}}
  tir.prim_func @k(%x: tensor<4xf32>) -> () {
    %y = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    tir.return
  }
}

// -----

tf.module @m {
  // expected-error @+1 {{a tf.call cannot be a statement}}
  tir.prim_func @k(%d: !tf.buffer<4xf32>, %s: tensor<4xf32>) -> () {
    tf.call tf.memory.copy(%d, %s) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%d: !tf.buffer<4xf32>, %s: tensor<4xf32>) -> () {
    // expected-error @+1 {{tir.let anchors a value-form expression; this 'tf.call' has no value (run an effect-form call with tir.evaluate)}}
    "tir.let"() ({
      "tf.call"(%d, %s) <{callee = #tf.op<tf.memory.copy>}> : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
      "tir.yield"(%s) : (tensor<4xf32>) -> ()
    }) : () -> tensor<4xf32>
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%x: tensor<4xf32>) -> () {
    // expected-error @+1 {{tir.evaluate runs an effect-form call; this one has a value of type tensor<4xf32> (bind it with tir.let)}}
    tir.evaluate tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%x: tensor<4xf32>) -> () {
    // expected-error @+1 {{binds type tensor<4xf16>, but its body yields a value of type tensor<4xf32>}}
    %y = "tir.let"() ({
      %0 = "tf.call"(%x) <{callee = #tf.op<tf.math.unary<kind = neg>>}> : (tensor<4xf32>) -> tensor<4xf32>
      "tir.yield"(%0) : (tensor<4xf32>) -> ()
    }) : () -> tensor<4xf16>
    tir.return
  }
}

// -----

tf.module @m {
  // expected-error @+1 {{'hir.return' cannot be a statement of function '@k'; statements are tir.let, tir.evaluate and tir.return}}
  tir.prim_func @k(%x: tensor<4xf32>) -> () {
    "hir.return"() : () -> ()
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{returns nothing, but function '@k' returns tensor<4xf32>}}
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%x: tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<?xf32, #tf.dims<n: 1 to 64>> {
    // expected-error @+1 {{case #0 (@k) range [1, 128) of 'n' is not inside its envelope [1, 64)}}
    %y = tir.let tir.dispatch [@k: [n: 1 to 128]](%x) : (tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<?xf32, #tf.dims<n: 1 to 64>>
    tir.return %y : tensor<?xf32, #tf.dims<n: 1 to 64>>
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%x: tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<?xf32, #tf.dims<n: 1 to 64>> {
    // expected-error @+1 {{case #0: '@nowhere' does not reference a function}}
    %y = tir.let tir.dispatch [@nowhere: [n: 1 to 8]](%x) : (tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<?xf32, #tf.dims<n: 1 to 64>>
    tir.return %y : tensor<?xf32, #tf.dims<n: 1 to 64>>
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%x: tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<?xf32, #tf.dims<n: 1 to 64>> {
    // expected-error @+2 {{1 callee(s) for 2 case pattern list(s)}}
    %y = "tir.let"() ({
      %0 = "tir.dispatch"(%x) <{callees = [@k], case_patterns = [[#tf.range<n: 1 to 8>], [#tf.range<n: 8 to 9>]]}> : (tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<?xf32, #tf.dims<n: 1 to 64>>
      "tir.yield"(%0) : (tensor<?xf32, #tf.dims<n: 1 to 64>>) -> ()
    }) : () -> tensor<?xf32, #tf.dims<n: 1 to 64>>
    tir.return %y : tensor<?xf32, #tf.dims<n: 1 to 64>>
  }
}

// -----

// expected-error @+1 {{'tir.let' expects parent op 'tir.prim_func'}}
%y = "tir.let"() ({
  %0 = "tf.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  "tir.yield"(%0) : (tensor<f32>) -> ()
}) : () -> tensor<f32>

// -----

tf.module @m {
  tir.prim_func @k(%x: tensor<4xf32>) -> () {
    // expected-error @+1 {{the body of tir.let must end with tir.yield}}
    %y = "tir.let"() ({
      %0 = "tf.call"(%x) <{callee = #tf.op<tf.math.unary<kind = neg>>}> : (tensor<4xf32>) -> tensor<4xf32>
    }) : () -> tensor<4xf32>
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%x: tensor<4xf32>) -> () {
    // expected-error @+1 {{tir.let yields one value, got 0}}
    %y = "tir.let"() ({
      "tir.yield"() : () -> ()
    }) : () -> tensor<4xf32>
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%x: tensor<4xf32>) -> () {
    // expected-error @+1 {{the body of tir.let has no block arguments}}
    %y = "tir.let"() ({
    ^bb0(%a: tensor<4xf32>):
      "tir.yield"(%a) : (tensor<4xf32>) -> ()
    }) : () -> tensor<4xf32>
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%x: tensor<4xf32>) -> () {
    // expected-error @+1 {{'tir.return' cannot be in the body of tir.let; it holds expressions (tf.call, tf.constant, tf.tuple, tir.dispatch)}}
    %y = "tir.let"() ({
      "tir.return"() : () -> ()
      "tir.yield"(%x) : (tensor<4xf32>) -> ()
    }) : () -> tensor<4xf32>
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%x: tensor<4xf32>) -> () {
    // expected-error @+1 {{the body yields tensor<4xf32>, but the statement says tensor<8xf32>}}
    %y = tir.let -> tensor<8xf32> {
      tir.yield %x : tensor<4xf32>
    }
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%x: tensor<4xf32>) -> () {
    // expected-error @+1 {{a statement body ends with tir.yield}}
    %y = tir.let {
      %0 = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    }
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%b: !tf.buffer<4xf32>, %x: tensor<4xf32>) -> () {
    // expected-error @+1 {{tir.let anchors a value-form expression; this one has no value}}
    tir.let tf.call tf.memory.copy(%b, %x) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%x: tensor<4xf32>) -> () {
    // expected-error @+1 {{tir.evaluate runs a call: its body ends with an effect-form call}}
    tir.evaluate {
      tir.yield
    }
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%b: !tf.buffer<4xf32>, %x: tensor<4xf32>) -> () {
    // expected-error @+1 {{the tir.yield of a tir.evaluate yields nothing}}
    "tir.evaluate"() ({
      "tf.call"(%b, %x) <{callee = #tf.op<tf.memory.copy>}> : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
      "tir.yield"(%x) : (tensor<4xf32>) -> ()
    }) : () -> ()
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%b: !tf.buffer<4xf32>, %x: tensor<4xf32>) -> () {
    // expected-error @+1 {{tir.evaluate runs one effect-form call; run this 'tf.call' with a tir.evaluate of its own}}
    tir.evaluate {
      tf.call tf.memory.copy(%b, %x) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
      tf.call tf.memory.copy(%b, %x) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
      tir.yield
    }
    tir.return
  }
}

// -----

// expected-error @+1 {{'tir.yield' expects parent op to be one of 'tir.let', 'tir.evaluate'}}
"tir.yield"() : () -> ()

// -----

// Buffers (!tf.buffer): a value-form op takes tensors only (read a buffer with tf.memory.load).

tf.module @m {
  tir.prim_func @k(%b: !tf.buffer<4xf32>) -> () {
    // expected-error @+1 {{'tf.call' op operand #0 is a buffer (!tf.buffer<4xf32>); read it with tf.memory.load}}
    %y = tir.let tf.call tf.math.unary<kind = neg>(%b) : (!tf.buffer<4xf32>) -> tensor<4xf32>
    tir.return
  }
}

// -----

// An op writes a buffer, never a tensor (a value never changes).

tf.module @m {
  tir.prim_func @k(%x: tensor<4xf32>, %y: tensor<4xf32>) -> () {
    // expected-error @+1 {{'tf.memory.copy' writes operand #0 in place, which must be a buffer, got tensor<4xf32>}}
    tir.evaluate tf.call tf.memory.copy(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> ()
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%b: !tf.buffer<4xf32>, %y: tensor<2x2xf32>) -> () {
    // expected-error @+1 {{tf.memory.copy: copy needs src of the shape and dtype of dst: dst holds tensor<4xf32>, src tensor<2x2xf32>}}
    tir.evaluate tf.call tf.memory.copy(%b, %y) : (!tf.buffer<4xf32>, tensor<2x2xf32>) -> ()
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%b: !tf.buffer<4xf32>, %c: !tf.buffer<4xi32>) -> () {
    // expected-error @+1 {{dst holds tensor<4xf32>, src tensor<4xi32>}}
    tir.evaluate tf.call tf.memory.copy(%b, %c) : (!tf.buffer<4xf32>, !tf.buffer<4xi32>) -> ()
    tir.return
  }
}

// -----

// A load reads a buffer.

tf.module @m {
  tir.prim_func @k(%x: tensor<4xf32>) -> () {
    // expected-error @+1 {{tf.memory.load: load reads a buffer, got tensor<4xf32>}}
    %y = tir.let tf.call tf.memory.load(%x) : (tensor<4xf32>) -> tensor<4xf32>
    tir.return
  }
}

// -----

// A buffer does not escape its function.

tf.module @m {
  // expected-error @+1 {{function '@k' returns the buffer !tf.buffer<4xf32>; a buffer does not escape its function: return a tf.memory.load of it}}
  tir.prim_func @k(%b: !tf.buffer<4xf32>) -> !tf.buffer<4xf32> {
    tir.return %b : !tf.buffer<4xf32>
  }
}

// -----

// tf.memory.alloc introduces a resource: it is anchored by a tir.let.

tf.module @m {
  tir.prim_func @k(%x: tensor<4xf32>) -> () {
    tir.evaluate {
      // expected-error @+1 {{tf.memory.alloc introduces a buffer: it is anchored by a tir.let (`%buf = tir.let tf.call tf.memory.alloc<...>() : () -> ...`), not in a 'tir.evaluate'}}
      %b = tf.call tf.memory.alloc<shape = [4], dtype = f32>() : () -> !tf.buffer<4xf32>
      tf.call tf.memory.copy(%b, %x) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
      tir.yield
    }
    tir.return
  }
}

// -----

// Buffers belong to TIR: HIR refuses them as parameters, results and values.

tf.module @m {
  hir.func @f() -> tensor<4xf32> {
    // expected-error @+1 {{'tf.call' op defines a buffer (!tf.buffer<4xf32>) in function '@f'; buffers belong to TIR}}
    %b = tf.call tf.memory.alloc<shape = [4], dtype = f32>() : () -> !tf.buffer<4xf32>
    %t = tf.call tf.memory.load(%b) : (!tf.buffer<4xf32>) -> tensor<4xf32>
    hir.return %t : tensor<4xf32>
  }
}

// -----

tf.module @m {
  // expected-error @+1 {{parameter 'b' of function '@f' is a buffer (!tf.buffer<4xf32>); buffers belong to TIR (a tir.prim_func), HIR takes tensors}}
  hir.func @f(%b: !tf.buffer<4xf32>) -> () {
    hir.return
  }
}

// -----

tf.module @m {
  // expected-error @+1 {{function '@f' returns a buffer (!tf.buffer<4xf32>); HIR returns values}}
  hir.func @f() -> !tf.buffer<4xf32> {
    %b = tf.constant dense<0.0> : tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
}

// -----

// A tir.let binds a buffer only from the tf.memory.alloc in its body (never an alias).

tf.module @m {
  tir.prim_func @k(%b: !tf.buffer<4xf32>) -> () {
    // expected-error @+1 {{tir.let binds a buffer (!tf.buffer<4xf32>) only from a tf.memory.alloc in its body; a buffer has one name (use the buffer itself)}}
    %alias = tir.let {
      tir.yield %b : !tf.buffer<4xf32>
    }
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k() -> () {
    // expected-error @+1 {{Alloc: unknown dtype 'f31'}}
    %b = tir.let tf.call tf.memory.alloc<shape = [4], dtype = f31>() : () -> !tf.buffer<4xf32>
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k() -> () {
    // expected-error @+1 {{result type !tf.buffer<2xf32> does not match the type inferred for tf.memory.alloc: !tf.buffer<4xf32>}}
    %b = tir.let tf.call tf.memory.alloc<shape = [4], dtype = f32>() : () -> !tf.buffer<2xf32>
    tir.return
  }
}

// -----

// A tuple holds values, not buffers.

tf.module @m {
  tir.prim_func @k(%b: !tf.buffer<4xf32>) -> () {
    // expected-error @+1 {{a tuple holds values (tensors, tuples), not the buffer !tf.buffer<4xf32>}}
    %t = tir.let tf.tuple %b : tuple<!tf.buffer<4xf32>>
    tir.return
  }
}
