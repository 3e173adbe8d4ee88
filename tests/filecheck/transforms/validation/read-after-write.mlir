// RUN: %python -m tilefoundry.testing.same_results %s -p cse | filecheck %s --check-prefix=SAME
// RUN: %python -m tilefoundry.testing.same_results %s -p canonicalize | filecheck %s --check-prefix=SAME
// RUN: %python -m tilefoundry.testing.same_results %s -p tf-fold-constants | filecheck %s --check-prefix=SAME
// RUN: %python -m tilefoundry.testing.same_results %s -p 'tf-inline,cse,canonicalize,dce' | filecheck %s --check-prefix=SAME
// RUN: tf-opt %s -p 'cse,canonicalize' | filecheck %s

// Found by translation validation: a read of memory after an in-place write was merged with
// the read before it (cse), or folded from the literal the memory held before the write
// (canonicalize, tf-fold-constants: seed 98 read a `tir.let` literal that a copy had
// overwritten); the same through a kernel call that writes its parameter, and after inlining
// it. Fixed by the memory model (buffers, `tf.memory.load`, declared read/write effects).

tf.module @m entry @main {
  tir.prim_func @main(%b: !tf.buffer<2xf64>, %x: tensor<2xf64>) -> tensor<2xf64> {
    %l0 = tir.let tf.call tf.memory.load(%b) : (!tf.buffer<2xf64>) -> tensor<2xf64>
    %t0 = tir.let tf.call tf.math.unary<kind = tanh>(%l0) : (tensor<2xf64>) -> tensor<2xf64>
    tir.evaluate tf.call tf.memory.copy(%b, %x) : (!tf.buffer<2xf64>, tensor<2xf64>) -> ()
    %l1 = tir.let tf.call tf.memory.load(%b) : (!tf.buffer<2xf64>) -> tensor<2xf64>
    %t1 = tir.let tf.call tf.math.unary<kind = tanh>(%l1) : (tensor<2xf64>) -> tensor<2xf64>
    %d = tir.let tf.call tf.math.binary<kind = sub>(%t0, %t1) : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
    tir.return %d : tensor<2xf64>
  }
  tir.prim_func @write(%dst: !tf.buffer<2xf64>, %v: tensor<2xf64>) -> () {
    %n = tir.let tf.call tf.math.unary<kind = neg>(%v) : (tensor<2xf64>) -> tensor<2xf64>
    tir.evaluate tf.call tf.memory.copy(%dst, %n) : (!tf.buffer<2xf64>, tensor<2xf64>) -> ()
    tir.return
  }
  tir.prim_func @through_call(%b: !tf.buffer<2xf64>, %x: tensor<2xf64>) -> tensor<2xf64> {
    %l0 = tir.let tf.call tf.memory.load(%b) : (!tf.buffer<2xf64>) -> tensor<2xf64>
    tir.evaluate tf.call @write(%b, %x) : (!tf.buffer<2xf64>, tensor<2xf64>) -> ()
    %l1 = tir.let tf.call tf.memory.load(%b) : (!tf.buffer<2xf64>) -> tensor<2xf64>
    %d = tir.let tf.call tf.math.binary<kind = sub>(%l0, %l1) : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
    tir.return %d : tensor<2xf64>
  }
  tir.prim_func @allocated(%x: tensor<2xf64>) -> tensor<2xf64> {
    %buf = tir.let tf.call tf.memory.alloc<shape = [2], dtype = f64>() : () -> !tf.buffer<2xf64>
    %z = tir.let tf.call tf.memory.load(%buf) : (!tf.buffer<2xf64>) -> tensor<2xf64>
    %c = tir.let tf.constant dense<0x3FD0000000000000> : tensor<2xf64>
    tir.evaluate tf.call tf.memory.copy(%buf, %c) : (!tf.buffer<2xf64>, tensor<2xf64>) -> ()
    %w = tir.let tf.call tf.memory.load(%buf) : (!tf.buffer<2xf64>) -> tensor<2xf64>
    %t = tir.let tf.call tf.math.unary<kind = tanh>(%w) : (tensor<2xf64>) -> tensor<2xf64>
    %s = tir.let tf.call tf.math.binary<kind = sub>(%t, %z) : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
    tir.return %s : tensor<2xf64>
  }
}

// SAME: same results: 4 runs

// CHECK-LABEL: tir.prim_func @main(
// CHECK:         tf.memory.load(%b)
// CHECK:         tf.memory.copy(%b, %x)
// CHECK:         tf.memory.load(%b)
// CHECK-LABEL: tir.prim_func @through_call(
// CHECK:         tf.memory.load(%b)
// CHECK:         tf.call @write(%b, %x)
// CHECK:         tf.memory.load(%b)
