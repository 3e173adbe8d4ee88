// RUN: tf-opt %s --split-input-file -p cse | filecheck %s --check-prefix=CSE
// RUN: tf-opt %s --split-input-file -p dce | filecheck %s --check-prefix=DCE
// RUN: tf-opt %s --split-input-file -p canonicalize | filecheck %s --check-prefix=CANON
// RUN: xdsl-opt %s --split-input-file -p cse,dce | tf-opt --split-input-file | filecheck %s --check-prefix=STOCK

// Buffers are memory that ops write in place; every read and write says which buffer it
// touches (MemoryReadEffect / MemoryWriteEffect on it), so xDSL's generic cse, dce and
// canonicalize, which know nothing of TIR, keep what a program computes.

// The miscompile of issue 12: two loads of %x across a copy into %x are two values (cse used to
// merge the two reads, and the kernel returned zeros).

tf.module @across_a_copy {
  tir.prim_func @k(%x: !tf.buffer<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
    %l1 = tir.let tf.call tf.memory.load(%x) : (!tf.buffer<4xf32>) -> tensor<4xf32>
    %a = tir.let tf.call tf.math.unary<kind = neg>(%l1) : (tensor<4xf32>) -> tensor<4xf32>
    tir.evaluate tf.call tf.memory.copy(%x, %y) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    %l2 = tir.let tf.call tf.memory.load(%x) : (!tf.buffer<4xf32>) -> tensor<4xf32>
    %b = tir.let tf.call tf.math.unary<kind = neg>(%l2) : (tensor<4xf32>) -> tensor<4xf32>
    %s = tir.let tf.call tf.math.binary<kind = sub>(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tir.return %s : tensor<4xf32>
  }
}

// CSE-LABEL: tf.module @across_a_copy
// CSE:       tir.prim_func @k(
// CSE-NEXT:    %l1 = tir.let tf.call tf.memory.load(%x)
// CSE-NEXT:    %a = tir.let tf.call tf.math.unary<kind = neg>(%l1)
// CSE-NEXT:    tir.evaluate tf.call tf.memory.copy(%x, %y)
// CSE-NEXT:    %l2 = tir.let tf.call tf.memory.load(%x)
// CSE-NEXT:    %b = tir.let tf.call tf.math.unary<kind = neg>(%l2)
// CSE-NEXT:    %s = tir.let tf.call tf.math.binary<kind = sub>(%a, %b)

// CANON-LABEL: tf.module @across_a_copy
// CANON:       tir.prim_func @k(
// CANON-NEXT:    %l1 = tir.let tf.call tf.memory.load(%x)
// CANON-NEXT:    %a = tir.let tf.call tf.math.unary<kind = neg>(%l1)
// CANON-NEXT:    tir.evaluate tf.call tf.memory.copy(%x, %y)
// CANON-NEXT:    %l2 = tir.let tf.call tf.memory.load(%x)
// CANON-NEXT:    %b = tir.let tf.call tf.math.unary<kind = neg>(%l2)
// CANON-NEXT:    %s = tir.let tf.call tf.math.binary<kind = sub>(%a, %b)

// STOCK-LABEL: tf.module @across_a_copy
// STOCK:       tir.prim_func @k(
// STOCK-NEXT:    %l1 = tir.let tf.call tf.memory.load(%x)
// STOCK-NEXT:    %a = tir.let tf.call tf.math.unary<kind = neg>(%l1)
// STOCK-NEXT:    tir.evaluate tf.call tf.memory.copy(%x, %y)
// STOCK-NEXT:    %l2 = tir.let tf.call tf.memory.load(%x)

// -----

// The write is a call of a prim function that writes its parameter: the call has the callee's
// effects on the buffer passed for it, so the loads stay two as well.

tf.module @across_a_call {
  tir.prim_func @k(%x: !tf.buffer<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
    %l1 = tir.let tf.call tf.memory.load(%x) : (!tf.buffer<4xf32>) -> tensor<4xf32>
    tir.evaluate tf.call @fill(%x, %y) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    %l2 = tir.let tf.call tf.memory.load(%x) : (!tf.buffer<4xf32>) -> tensor<4xf32>
    %s = tir.let tf.call tf.math.binary<kind = sub>(%l1, %l2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tir.return %s : tensor<4xf32>
  }
  tir.prim_func @fill(%dst: !tf.buffer<4xf32>, %src: tensor<4xf32>) -> () {
    tir.evaluate tf.call tf.memory.copy(%dst, %src) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    tir.return
  }
}

// CSE-LABEL: tf.module @across_a_call
// CSE:       tir.prim_func @k(
// CSE-NEXT:    %l1 = tir.let tf.call tf.memory.load(%x)
// CSE-NEXT:    tir.evaluate tf.call @fill(%x, %y)
// CSE-NEXT:    %l2 = tir.let tf.call tf.memory.load(%x)
// CSE-NEXT:    %s = tir.let tf.call tf.math.binary<kind = sub>(%l1, %l2)

// The write is observable (a buffer parameter is the caller's memory): dce keeps the call.
// DCE-LABEL: tf.module @across_a_call
// DCE:       tir.prim_func @k(
// DCE-NEXT:    %l1 = tir.let tf.call tf.memory.load(%x)
// DCE-NEXT:    tir.evaluate tf.call @fill(%x, %y)
// DCE-NEXT:    %l2 = tir.let tf.call tf.memory.load(%x)

// CANON-LABEL: tf.module @across_a_call
// CANON:       tir.prim_func @k(
// CANON-NEXT:    %l1 = tir.let tf.call tf.memory.load(%x)
// CANON-NEXT:    tir.evaluate tf.call @fill(%x, %y)
// CANON-NEXT:    %l2 = tir.let tf.call tf.memory.load(%x)

// -----

// With no write in between, two loads of a buffer are one value; so are two calls of a prim
// function that only reads its buffer (the call reads %x; nothing writes it in between).

tf.module @no_write {
  tir.prim_func @k(%x: !tf.buffer<4xf32>) -> tensor<4xf32> {
    %l1 = tir.let tf.call tf.memory.load(%x) : (!tf.buffer<4xf32>) -> tensor<4xf32>
    %l2 = tir.let tf.call tf.memory.load(%x) : (!tf.buffer<4xf32>) -> tensor<4xf32>
    %r1 = tir.let tf.call @peek(%x) : (!tf.buffer<4xf32>) -> tensor<4xf32>
    %r2 = tir.let tf.call @peek(%x) : (!tf.buffer<4xf32>) -> tensor<4xf32>
    %s = tir.let tf.call tf.math.binary<kind = sub>(%l1, %l2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %t = tir.let tf.call tf.math.binary<kind = add>(%r1, %r2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %u = tir.let tf.call tf.math.binary<kind = add>(%s, %t) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tir.return %u : tensor<4xf32>
  }
  tir.prim_func @peek(%b: !tf.buffer<4xf32>) -> tensor<4xf32> {
    %l = tir.let tf.call tf.memory.load(%b) : (!tf.buffer<4xf32>) -> tensor<4xf32>
    %n = tir.let tf.call tf.math.unary<kind = neg>(%l) : (tensor<4xf32>) -> tensor<4xf32>
    tir.return %n : tensor<4xf32>
  }
}

// CSE-LABEL: tf.module @no_write
// CSE:       tir.prim_func @k(
// CSE-NEXT:    %l1 = tir.let tf.call tf.memory.load(%x)
// CSE-NEXT:    %r1 = tir.let tf.call @peek(%x)
// CSE-NEXT:    %s = tir.let tf.call tf.math.binary<kind = sub>(%l1, %l1)
// CSE-NEXT:    %t = tir.let tf.call tf.math.binary<kind = add>(%r1, %r1)

// A read that nothing uses has no effect worth keeping: dce erases it.
// DCE-LABEL: tf.module @no_write
// DCE:       tir.prim_func @k(
// DCE-NEXT:    %l1 = tir.let tf.call tf.memory.load(%x)
// DCE-NEXT:    %l2 = tir.let tf.call tf.memory.load(%x)

// -----

// dce keeps a copy whose buffer is never read again (the caller sees it), and erases a load
// that nothing uses.

tf.module @dead_read {
  tir.prim_func @k(%out: !tf.buffer<4xf32>, %x: tensor<4xf32>) -> () {
    %unused = tir.let tf.call tf.memory.load(%out) : (!tf.buffer<4xf32>) -> tensor<4xf32>
    tir.evaluate tf.call tf.memory.copy(%out, %x) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    tir.return
  }
}

// DCE-LABEL: tf.module @dead_read
// DCE:       tir.prim_func @k(
// DCE-NEXT:    tir.evaluate tf.call tf.memory.copy(%out, %x)
// DCE-NEXT:    tir.return

// STOCK-LABEL: tf.module @dead_read
// STOCK:       tir.prim_func @k(
// STOCK-NEXT:    tir.evaluate tf.call tf.memory.copy(%out, %x)
// STOCK-NEXT:    tir.return

// -----

// Two allocs are two buffers (each has MemoryAllocEffect on its result): cse keeps both.

tf.module @allocs {
  tir.prim_func @k(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tir.let tf.call tf.memory.alloc<shape = [4], dtype = f32>() : () -> !tf.buffer<4xf32>
    %b = tir.let tf.call tf.memory.alloc<shape = [4], dtype = f32>() : () -> !tf.buffer<4xf32>
    tir.evaluate tf.call tf.memory.copy(%a, %x) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    %la = tir.let tf.call tf.memory.load(%a) : (!tf.buffer<4xf32>) -> tensor<4xf32>
    %lb = tir.let tf.call tf.memory.load(%b) : (!tf.buffer<4xf32>) -> tensor<4xf32>
    %s = tir.let tf.call tf.math.binary<kind = sub>(%la, %lb) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tir.return %s : tensor<4xf32>
  }
}

// CSE-LABEL: tf.module @allocs
// CSE:       tir.prim_func @k(
// CSE-NEXT:    %a = tir.let tf.call tf.memory.alloc<shape = [4], dtype = f32>()
// CSE-NEXT:    %b = tir.let tf.call tf.memory.alloc<shape = [4], dtype = f32>()
// CSE-NEXT:    tir.evaluate tf.call tf.memory.copy(%a, %x)
// CSE-NEXT:    %la = tir.let tf.call tf.memory.load(%a)
// CSE-NEXT:    %lb = tir.let tf.call tf.memory.load(%b)

// STOCK-LABEL: tf.module @allocs
// STOCK:       tir.prim_func @k(
// STOCK-NEXT:    %a = tir.let tf.call tf.memory.alloc<shape = [4], dtype = f32>()
// STOCK-NEXT:    %b = tir.let tf.call tf.memory.alloc<shape = [4], dtype = f32>()

// -----

// canonicalize folds a pure call of literals, never a load: a load after a copy reads what the
// copy wrote, which is no literal (the constant itself is a value and never changes).

tf.module @fold {
  tir.prim_func @k(%b: !tf.buffer<2xf32>) -> tensor<2xf32> {
    %c = tir.let tf.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %z = tir.let tf.constant dense<0.0> : tensor<2xf32>
    tir.evaluate tf.call tf.memory.copy(%b, %c) : (!tf.buffer<2xf32>, tensor<2xf32>) -> ()
    %l1 = tir.let tf.call tf.memory.load(%b) : (!tf.buffer<2xf32>) -> tensor<2xf32>
    tir.evaluate tf.call tf.memory.copy(%b, %z) : (!tf.buffer<2xf32>, tensor<2xf32>) -> ()
    %l2 = tir.let tf.call tf.memory.load(%b) : (!tf.buffer<2xf32>) -> tensor<2xf32>
    %n = tir.let tf.call tf.math.unary<kind = neg>(%c) : (tensor<2xf32>) -> tensor<2xf32>
    %s = tir.let tf.call tf.math.binary<kind = sub>(%l1, %l2) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %t = tir.let tf.call tf.math.binary<kind = add>(%s, %n) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    tir.return %t : tensor<2xf32>
  }
}

// CANON-LABEL: tf.module @fold
// CANON:       tir.prim_func @k(
// CANON:         tir.evaluate tf.call tf.memory.copy(%b, %c)
// CANON-NEXT:    %l1 = tir.let tf.call tf.memory.load(%b)
// CANON-NEXT:    tir.evaluate tf.call tf.memory.copy(%b, %z)
// CANON-NEXT:    %l2 = tir.let tf.call tf.memory.load(%b)
// CANON-NEXT:    %n = tir.let tf.constant dense<[-1.000000e+00, -2.000000e+00]>
// CANON-NEXT:    %s = tir.let tf.call tf.math.binary<kind = sub>(%l1, %l2)

// -----

// A call of an HIR function whose body is pure is pure: cse merges two, dce drops an unused one.
// A call that recurses has unknown effects (all): both stay.

tf.module @calls {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = tf.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = tf.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %unused = tf.call @g(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %r1 = tf.call @r(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %r2 = tf.call @r(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %s = tf.call tf.math.binary<kind = add>(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %t = tf.call tf.math.binary<kind = add>(%r1, %r2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %u = tf.call tf.math.binary<kind = add>(%s, %t) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %u : tensor<4xf32>
  }
  hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
    %e = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %e : tensor<4xf32>
  }
  hir.func @r(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call @r(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// CSE-LABEL: tf.module @calls
// CSE:         hir.func @f(
// CSE-NEXT:    %a = tf.call @g(%x)
// CSE-NEXT:    %r1 = tf.call @r(%x)
// CSE-NEXT:    %r2 = tf.call @r(%x)
// CSE-NEXT:    %s = tf.call tf.math.binary<kind = add>(%a, %a)

// DCE-LABEL: tf.module @calls
// DCE:         hir.func @f(
// DCE-NEXT:    %a = tf.call @g(%x)
// DCE-NEXT:    %b = tf.call @g(%x)
// DCE-NEXT:    %r1 = tf.call @r(%x)
// DCE-NEXT:    %r2 = tf.call @r(%x)

// -----

// A buffer of a static shape is passed for a buffer parameter whose DimVar holds its size; the
// call has the callee's write on it.

tf.module @dims {
  tir.prim_func @k(%x: !tf.buffer<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
    %l1 = tir.let tf.call tf.memory.load(%x) : (!tf.buffer<4xf32>) -> tensor<4xf32>
    tir.evaluate tf.call @zero(%x) : (!tf.buffer<4xf32>) -> ()
    %l2 = tir.let tf.call tf.memory.load(%x) : (!tf.buffer<4xf32>) -> tensor<4xf32>
    %s = tir.let tf.call tf.math.binary<kind = sub>(%l1, %l2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tir.return %s : tensor<4xf32>
  }
  tir.prim_func @zero(%b: !tf.buffer<?xf32, #tf.dims<n: 1 to 9>>) -> () {
    %l = tir.let tf.call tf.memory.load(%b) : (!tf.buffer<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>>
    %z = tir.let tf.call tf.math.binary<kind = sub>(%l, %l) : (tensor<?xf32, #tf.dims<n: 1 to 9>>, tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>>
    tir.evaluate tf.call tf.memory.copy(%b, %z) : (!tf.buffer<?xf32, #tf.dims<n: 1 to 9>>, tensor<?xf32, #tf.dims<n: 1 to 9>>) -> ()
    tir.return
  }
}

// CSE-LABEL: tf.module @dims
// CSE:         tir.prim_func @k(
// CSE-NEXT:    %l1 = tir.let tf.call tf.memory.load(%x)
// CSE-NEXT:    tir.evaluate tf.call @zero(%x)
// CSE-NEXT:    %l2 = tir.let tf.call tf.memory.load(%x)
