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
  tir.prim_func @k(%d: tensor<4xf32>, %s: tensor<4xf32>) -> () {
    tf.call tf.memory.copy(%d, %s) : (tensor<4xf32>, tensor<4xf32>) -> ()
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%d: tensor<4xf32>, %s: tensor<4xf32>) -> () {
    // expected-error @+1 {{tir.let anchors a value-form expression; this 'tf.call' has no value (run an effect-form call with tir.evaluate)}}
    "tir.let"() ({
      "tf.call"(%d, %s) <{callee = #tf.op<tf.memory.copy>}> : (tensor<4xf32>, tensor<4xf32>) -> ()
      "tir.yield"(%d) : (tensor<4xf32>) -> ()
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
  tir.prim_func @k(%x: tensor<4xf32>) -> () {
    // expected-error @+1 {{tir.let anchors a value-form expression; this one has no value}}
    tir.let tf.call tf.memory.copy(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> ()
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
  tir.prim_func @k(%x: tensor<4xf32>) -> () {
    // expected-error @+1 {{the tir.yield of a tir.evaluate yields nothing}}
    "tir.evaluate"() ({
      "tf.call"(%x, %x) <{callee = #tf.op<tf.memory.copy>}> : (tensor<4xf32>, tensor<4xf32>) -> ()
      "tir.yield"(%x) : (tensor<4xf32>) -> ()
    }) : () -> ()
    tir.return
  }
}

// -----

tf.module @m {
  tir.prim_func @k(%x: tensor<4xf32>) -> () {
    // expected-error @+1 {{tir.evaluate runs one effect-form call; run this 'tf.call' with a tir.evaluate of its own}}
    tir.evaluate {
      tf.call tf.memory.copy(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> ()
      tf.call tf.memory.copy(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> ()
      tir.yield
    }
    tir.return
  }
}

// -----

// expected-error @+1 {{'tir.yield' expects parent op to be one of 'tir.let', 'tir.evaluate'}}
"tir.yield"() : () -> ()
