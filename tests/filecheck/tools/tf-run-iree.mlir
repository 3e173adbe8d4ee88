// REQUIRES: iree
// RUN: tf-run %s --dim n=3 > %t.interpreter
// RUN: tf-run %s --dim n=3 --backend=iree > %t.iree
// RUN: tf-run %s --dim n=3 --backend=iree | filecheck %s
// RUN: not tf-run %s --dump %t.d 2>&1 | filecheck %s --check-prefix=DUMP
// RUN: tf-run %s --dim n=3 --backend=iree --dump %t.dir > /dev/null && ls %t.dir | filecheck %s --check-prefix=FILES
// RUN: diff %t.interpreter %t.iree

// tf-run --backend=iree: the function compiled by the IREE backend, its output the
// interpreter's (byte for byte: these numbers are exact), a buffer written in place.

// CHECK: f(x[3, 2], acc[3, 2])
// CHECK-NEXT: drawn at random (--seed 0): x, acc
// CHECK-NEXT: -> array[3, 2] float32
// CHECK: buffer acc -> array[3, 2] float32

// DUMP: tf-run: error: --dump keeps a compiling backend's files: use it with --backend=native or iree

// FILES: module.mlir
// FILES-NEXT: module.vmfb
// FILES-NEXT: phases

tf.module @m entry @f {
  tir.prim_func @f(%x: tensor<?x2xf32, #tf.dims<n: 1 to 9>>, %acc: !tf.buffer<?x2xf32, #tf.dims<n: 1 to 9>>) -> tensor<?x2xf32, #tf.dims<n: 1 to 9>> {
    %old = tir.let tf.call tf.memory.load(%acc) : (!tf.buffer<?x2xf32, #tf.dims<n: 1 to 9>>) -> tensor<?x2xf32, #tf.dims<n: 1 to 9>>
    %sum = tir.let tf.call tf.math.binary<kind = add>(%old, %x) : (tensor<?x2xf32, #tf.dims<n: 1 to 9>>, tensor<?x2xf32, #tf.dims<n: 1 to 9>>) -> tensor<?x2xf32, #tf.dims<n: 1 to 9>>
    tir.evaluate tf.call tf.memory.copy(%acc, %sum) : (!tf.buffer<?x2xf32, #tf.dims<n: 1 to 9>>, tensor<?x2xf32, #tf.dims<n: 1 to 9>>) -> ()
    tir.return %old : tensor<?x2xf32, #tf.dims<n: 1 to 9>>
  }
}
