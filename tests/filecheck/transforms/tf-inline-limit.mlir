// RUN: not tf-opt %s -p tf-inline 2>&1 | filecheck %s
// RUN: not tf-opt %s -p 'tf-inline{max-ops=1000000}' 2>&1 | filecheck %s --check-prefix=LARGER

// tf-inline is bounded: a call graph that doubles per level (30 levels, 2^30 ops once
// inlined) is refused in one line before anything is inlined, at the default max-ops
// (100000) and at a larger one alike; the count stops at max-ops, so the refusal is quick.

tf.module @m entry @f0 {
  hir.func @f0(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f1(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f1(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f1(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f2(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f2(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f2(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f3(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f3(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f3(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f4(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f4(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f4(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f5(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f5(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f5(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f6(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f6(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f6(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f7(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f7(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f7(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f8(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f8(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f8(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f9(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f9(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f9(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f10(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f10(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f10(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f11(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f11(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f11(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f12(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f12(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f12(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f13(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f13(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f13(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f14(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f14(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f14(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f15(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f15(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f15(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f16(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f16(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f16(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f17(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f17(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f17(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f18(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f18(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f18(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f19(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f19(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f19(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f20(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f20(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f20(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f21(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f21(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f21(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f22(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f22(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f22(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f23(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f23(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f23(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f24(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f24(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f24(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f25(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f25(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f25(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f26(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f26(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f26(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f27(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f27(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f27(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f28(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f28(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f28(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @f29(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @f29(%a) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %b : tensor<4xf32>
  }
  hir.func @f29(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %a : tensor<4xf32>
  }
}

// CHECK:      tf-inline-limit.mlir:74:3: error: pass 'tf-inline' failed: inlining would copy more than 100000 ops (max-ops), past it in '@f13'; nothing was inlined; raise tf-inline{max-ops=N} or inline less
// CHECK-NEXT:   hir.func @f13(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:   ^
// CHECK-EMPTY:

// LARGER: tf-inline-limit.mlir:59:3: error: pass 'tf-inline' failed: inlining would copy more than 1000000 ops (max-ops), past it in '@f10'
