// RUN: tf-opt %s --split-input-file --verify-diagnostics

// Each chunk breaks one rule of the tensor and nn ops (ops/tensor.py, ops/nn.py).
tf.module @m {
  hir.func @f(%x: tensor<4x8xf32>) -> tensor<3x11xf32> {
    // expected-error @+1 {{tf.tensor.reshape: cannot reshape tensor<4x8xf32> (32 elements) to [3, -1]}}
    %y = tf.call tf.tensor.reshape<shape = [3, -1]>(%x) : (tensor<4x8xf32>) -> tensor<3x11xf32>
    hir.return %y : tensor<3x11xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4x8xf32>) -> tensor<32xf32> {
    // expected-error @+1 {{tf.tensor.reshape: shape [-1, -1] may hold one -1 and sizes >= 0}}
    %y = tf.call tf.tensor.reshape<shape = [-1, -1]>(%x) : (tensor<4x8xf32>) -> tensor<32xf32>
    hir.return %y : tensor<32xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<?x8xf32, #tf.dims<n: 1 to 9>>) -> tensor<8x8xf32> {
    // expected-error @+1 {{tf.tensor.reshape: cannot reshape tensor<?x8xf32, #tf.dims<n: 1 to 9>> (8 elements) to [8, 8]}}
    %y = tf.call tf.tensor.reshape<shape = [8, 8]>(%x) : (tensor<?x8xf32, #tf.dims<n: 1 to 9>>) -> tensor<8x8xf32>
    hir.return %y : tensor<8x8xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4x8xf32>) -> tensor<5x8xf32> {
    // expected-error @+1 {{tf.tensor.broadcast_to: cannot broadcast tensor<4x8xf32> to [5, 8] (dim 0)}}
    %y = tf.call tf.tensor.broadcast_to<shape = [5, 8]>(%x) : (tensor<4x8xf32>) -> tensor<5x8xf32>
    hir.return %y : tensor<5x8xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4x8xf32>) -> tensor<8xf32> {
    // expected-error @+1 {{tf.tensor.broadcast_to: cannot broadcast tensor<4x8xf32> to fewer dims [8]}}
    %y = tf.call tf.tensor.broadcast_to<shape = [8]>(%x) : (tensor<4x8xf32>) -> tensor<8xf32>
    hir.return %y : tensor<8xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error @+1 {{tf.tensor.concat: concat needs a non-empty tuple of tensors, got tensor<4x8xf32>}}
    %y = tf.call tf.tensor.concat<axis = 0>(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    hir.return %y : tensor<4x8xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error @+1 {{tf.tensor.slice: step must be >= 1, got 0}}
    %y = tf.call tf.tensor.slice<axis = 1, stop = 4, step = 0>(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    hir.return %y : tensor<4x8xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<?x8xf32, #tf.dims<n: 1 to 9>>) -> tensor<4x8xf32> {
    // expected-error @+1 {{tf.tensor.slice: a slice of the dynamic dim n must take all of it}}
    %y = tf.call tf.tensor.slice<axis = 0, stop = 4>(%x) : (tensor<?x8xf32, #tf.dims<n: 1 to 9>>) -> tensor<4x8xf32>
    hir.return %y : tensor<4x8xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error @+1 {{tf.tensor.slice: axis 2 is out of range for rank 2}}
    %y = tf.call tf.tensor.slice<axis = 2, stop = 4>(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    hir.return %y : tensor<4x8xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4x8xi64>) -> tensor<4x8xi64> {
    // expected-error @+1 {{tf.nn.activation: silu needs a float tensor, got i64}}
    %y = tf.call tf.nn.activation<kind = silu>(%x) : (tensor<4x8xi64>) -> tensor<4x8xi64>
    hir.return %y : tensor<4x8xi64>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4x8xi64>) -> tensor<4x8xi64> {
    // expected-error @+1 {{tf.nn.softmax: softmax needs a float tensor, got i64}}
    %y = tf.call tf.nn.softmax<axis = -1>(%x) : (tensor<4x8xi64>) -> tensor<4x8xi64>
    hir.return %y : tensor<4x8xi64>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4x8xi64>) -> tensor<4xi64> {
    // expected-error @+1 {{tf.reduce.mean: mean needs a float tensor, got i64}}
    %y = tf.call tf.reduce.mean<axis = 1>(%x) : (tensor<4x8xi64>) -> tensor<4xi64>
    hir.return %y : tensor<4xi64>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4x8xi1>) -> tensor<4x8xi1> {
    // expected-error @+1 {{tf.reduce.cumsum: cumsum is not defined on i1 (cast it to an integer first)}}
    %y = tf.call tf.reduce.cumsum<axis = 1>(%x) : (tensor<4x8xi1>) -> tensor<4x8xi1>
    hir.return %y : tensor<4x8xi1>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error @+1 {{tf.logic.not: not needs i1 operands, got f32}}
    %y = tf.call tf.logic.not(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    hir.return %y : tensor<4x8xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error @+1 {{tf.nn.activation: attribute 'kind' expects a ActivationKind (silu, gelu, gelu_tanh, sin, cos, erf), got str 'swish'}}
    %y = tf.call tf.nn.activation<kind = swish>(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    hir.return %y : tensor<4x8xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%a: tensor<4x8xf32>, %b: tensor<3x8xf32>) -> tensor<4x16xf32> {
    %t = tf.tuple %a, %b : tuple<tensor<4x8xf32>, tensor<3x8xf32>>
    // expected-error @+1 {{tf.tensor.concat: concat parts differ in dim 0: tensor<4x8xf32> and tensor<3x8xf32>}}
    %y = tf.call tf.tensor.concat<axis = 1>(%t) : (tuple<tensor<4x8xf32>, tensor<3x8xf32>>) -> tensor<4x16xf32>
    hir.return %y : tensor<4x16xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xi32>) -> tensor<4x16xf32> {
    %t = tf.tuple %a, %b : tuple<tensor<4x8xf32>, tensor<4x8xi32>>
    // expected-error @+1 {{tf.tensor.concat: concat parts differ in dtype or rank: tensor<4x8xf32> and tensor<4x8xi32>}}
    %y = tf.call tf.tensor.concat<axis = 1>(%t) : (tuple<tensor<4x8xf32>, tensor<4x8xi32>>) -> tensor<4x16xf32>
    hir.return %y : tensor<4x16xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%a: tensor<4x8xf32>, %b: tensor<4xf32>) -> tensor<4x8xf32> {
    %t = tf.tuple %b : tuple<tensor<4xf32>>
    // expected-error @+1 {{tf.tensor.index: an index is an integer tensor, got tensor<4xf32>}}
    %y = tf.call tf.tensor.index(%a, %t) : (tensor<4x8xf32>, tuple<tensor<4xf32>>) -> tensor<4x8xf32>
    hir.return %y : tensor<4x8xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%a: tensor<4xf32>, %b: tensor<2xi64>) -> tensor<2xf32> {
    %t = tf.tuple %b, %b : tuple<tensor<2xi64>, tensor<2xi64>>
    // expected-error @+1 {{tf.tensor.index: 2 indices for tensor<4xf32> of rank 1}}
    %y = tf.call tf.tensor.index(%a, %t) : (tensor<4xf32>, tuple<tensor<2xi64>, tensor<2xi64>>) -> tensor<2xf32>
    hir.return %y : tensor<2xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%a: tensor<4x8xf32>, %b: tensor<4xi64>) -> tensor<4xf32> {
    // expected-error @+1 {{tf.tensor.gather: gather needs an integer index of rank 2, got tensor<4xi64>}}
    %y = tf.call tf.tensor.gather<axis = 0>(%a, %b) : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error @+1 {{tf.tensor.where: the condition must be i1, got f32}}
    %y = tf.call tf.tensor.where(%a, %a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    hir.return %y : tensor<4x8xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%a: tensor<4x8xi1>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error @+1 {{tf.tensor.where: operand dtypes differ: i1 and f32}}
    %y = tf.call tf.tensor.where(%a, %a, %b) : (tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xf32>) -> tensor<4x8xf32>
    hir.return %y : tensor<4x8xf32>
  }
}

// -----

tf.module @m {
  hir.func @f(%a: tensor<4x8xi1>, %b: tensor<4x8xf32>) -> tensor<4x8xi1> {
    // expected-error @+1 {{tf.logic.binary: or needs i1 operands, got f32}}
    %y = tf.call tf.logic.binary<kind = or>(%a, %b) : (tensor<4x8xi1>, tensor<4x8xf32>) -> tensor<4x8xi1>
    hir.return %y : tensor<4x8xi1>
  }
}

// -----

tf.module @m {
  hir.func @f(%a: tensor<4xf32>) -> tensor<4xi64> {
    // expected-error @+1 {{tf.tensor.iota: size must be >= 0, got -1}}
    %y = tf.call tf.tensor.iota<size = -1>() : () -> tensor<4xi64>
    hir.return %y : tensor<4xi64>
  }
}

// -----

tf.module @m {
  hir.func @f(%a: tensor<4xf32>) -> tensor<2x2xf32> {
    // expected-error @+1 {{tf.tensor.full: shape [2, -2] has a negative size}}
    %y = tf.call tf.tensor.full<shape = [2, -2], value = 0.0>() : () -> tensor<2x2xf32>
    hir.return %y : tensor<2x2xf32>
  }
}
