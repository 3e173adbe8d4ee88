// RUN: tf-opt %s --split-input-file --print-debuginfo --plugin custom_metadata | filecheck %s
// RUN: %fixpoint --plugin custom_metadata

// Metadata is debug info: every encoding of a metadata tuple, printed with --print-debuginfo,
// re-parses to the same tuple (%fixpoint checks the text is a fixed point with debug info).

tf.module @m {
  hir.func @f(%x: tensor<4xf32> loc("m.py":1:7 to 1:8)) -> tensor<4xf32> {
    // A span with an end on another line, and on the same line (`to :col`).
    %a = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("m.py":3:4 to 5:10)
    %b = tf.call tf.math.unary<kind = neg>(%a) : (tensor<4xf32>) -> tensor<4xf32> loc("m.py":6:4 to :12)
    // The stored form of a range, as xDSL's own printer writes it, reads the same.
    %c = tf.call tf.math.unary<kind = neg>(%b) : (tensor<4xf32>) -> tensor<4xf32> loc(fused<#tf.span_end<7, 9>>["m.py":7:1])
    // Binding then span (MLIR's name location), span then binding (order is kept).
    %d = tf.call tf.math.unary<kind = neg>(%c) : (tensor<4xf32>) -> tensor<4xf32> loc("dd"("m.py":8:1))
    %e = tf.call tf.math.unary<kind = neg>(%d) : (tensor<4xf32>) -> tensor<4xf32> loc(fused["m.py":9:1, "e"])
    // A metadata class of the user's (tests/filecheck/tools/custom_metadata.py).
    %f = tf.call tf.math.unary<kind = neg>(%e) : (tensor<4xf32>) -> tensor<4xf32> loc(fused<#tf.meta<"fusion_group", {group = 3 : i64}>>[unknown])
    // A call-site location gives its callee's metadata.
    %g = tf.call tf.math.unary<kind = neg>(%f) : (tensor<4xf32>) -> tensor<4xf32> loc(callsite("m.py":10:2 at "caller.py":1:1))
    hir.return %g : tensor<4xf32>
  }
}

// CHECK-LABEL: tf.module @m {
// CHECK-NEXT:    hir.func @f(%x: tensor<4xf32> loc("m.py":1:7 to 1:8)) -> tensor<4xf32> {
// CHECK-NEXT:      %a = {{.*}} loc("a"("m.py":3:4 to 5:10))
// CHECK-NEXT:      %b = {{.*}} loc("b"("m.py":6:4 to :12))
// CHECK-NEXT:      %c = {{.*}} loc("c"("m.py":7:1 to 7:9))
// CHECK-NEXT:      %dd = {{.*}} loc("dd"("m.py":8:1))
// CHECK-NEXT:      %e = {{.*}} loc(fused["m.py":9:1, "e"])
// CHECK-NEXT:      %f = {{.*}} loc("f"(fused<#tf.meta<"fusion_group", {group = 3 : i64}>>[unknown]))
// CHECK-NEXT:      %g = {{.*}} loc("g"(callsite("m.py":10:2 at "caller.py":1:1)))

// -----

// A location names the binding; the SSA name follows it.

tf.module @names {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("hidden")
    %named = tf.call tf.math.unary<kind = neg>(%0) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %named : tensor<4xf32>
  }
}

// CHECK-LABEL: tf.module @names {
// CHECK:         %hidden = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("hidden")
// CHECK-NEXT:    %named = tf.call tf.math.unary<kind = neg>(%hidden) : (tensor<4xf32>) -> tensor<4xf32> loc("named")
