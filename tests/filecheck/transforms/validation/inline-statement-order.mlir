// RUN: %python -m tilefoundry.testing.same_results %s -p tf-inline | filecheck %s --check-prefix=SAME
// RUN: %python -m tilefoundry.testing.same_results %s -p 'tf-inline,cse,canonicalize,dce' | filecheck %s --check-prefix=SAME
// RUN: tf-opt %s -p tf-inline | filecheck %s

// Found by translation validation: tf-inline puts a TIR callee's statements before the
// statement that holds the call, so a callee that writes a buffer wrote it before a load that
// came earlier in the same statement (@main returned zeros after tf-inline). Such a call stays
// a call; a call whose effects do not meet those of the ops before it is inlined.

tf.module @m entry @main {
  tir.prim_func @w(%dst: !tf.buffer<2xf32>, %v: tensor<2xf32>) -> tensor<2xf32> {
    tir.evaluate tf.call tf.memory.copy(%dst, %v) : (!tf.buffer<2xf32>, tensor<2xf32>) -> ()
    tir.return %v : tensor<2xf32>
  }
  tir.prim_func @r(%src: !tf.buffer<2xf32>) -> tensor<2xf32> {
    %l = tir.let tf.call tf.memory.load(%src) : (!tf.buffer<2xf32>) -> tensor<2xf32>
    tir.return %l : tensor<2xf32>
  }
  tir.prim_func @main(%b: !tf.buffer<2xf32>, %x: tensor<2xf32>) -> tensor<2xf32> {
    %z = tir.let -> tensor<2xf32> {
      %a = tf.call tf.memory.load(%b) : (!tf.buffer<2xf32>) -> tensor<2xf32>
      %r = tf.call @w(%b, %x) : (!tf.buffer<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %s = tf.call tf.math.binary<kind = sub>(%a, %r) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      tir.yield %s : tensor<2xf32>
    }
    tir.return %z : tensor<2xf32>
  }
  tir.prim_func @reads(%b: !tf.buffer<2xf32>, %c: !tf.buffer<2xf32>, %x: tensor<2xf32>) -> tensor<2xf32> {
    %z = tir.let -> tensor<2xf32> {
      %n = tf.call tf.math.unary<kind = neg>(%x) : (tensor<2xf32>) -> tensor<2xf32>
      %a = tf.call tf.memory.load(%b) : (!tf.buffer<2xf32>) -> tensor<2xf32>
      %r = tf.call @r(%b) : (!tf.buffer<2xf32>) -> tensor<2xf32>
      %s = tf.call tf.math.binary<kind = sub>(%a, %r) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %t = tf.call tf.math.binary<kind = add>(%s, %n) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      tir.yield %t : tensor<2xf32>
    }
    %y = tir.let -> tensor<2xf32> {
      %m = tf.call tf.math.unary<kind = neg>(%z) : (tensor<2xf32>) -> tensor<2xf32>
      %q = tf.call @w(%c, %z) : (!tf.buffer<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %p = tf.call tf.math.binary<kind = add>(%q, %m) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      tir.yield %p : tensor<2xf32>
    }
    tir.return %y : tensor<2xf32>
  }
}

// SAME: same results: 4 runs

// CHECK-LABEL: tir.prim_func @main(
// CHECK-NEXT:    %z = tir.let -> tensor<2xf32> {
// CHECK-NEXT:      %a = tf.call tf.memory.load(%b)
// CHECK-NEXT:      %r = tf.call @w(%b, %x)
// CHECK-LABEL: tir.prim_func @reads(
// CHECK-NEXT:    %l = tir.let tf.call tf.memory.load(%b)
// CHECK-NEXT:    %z = tir.let -> tensor<2xf32> {
// CHECK-NOT:       tf.call @r
// CHECK:         tir.evaluate tf.call tf.memory.copy(%c, %z)
// CHECK-NOT:     tf.call @w
// CHECK:         tir.return
