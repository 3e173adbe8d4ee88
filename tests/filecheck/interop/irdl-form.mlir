// RUN: tf-opt %s --plugin custom_metadata --print-irdl-generic | filecheck %s
// RUN: tf-opt %s --plugin custom_metadata --print-irdl-generic --print-debuginfo > %t.irdl
// RUN: filecheck %s --check-prefix=LOC --input-file %t.irdl
// RUN: %python %tools/same_ir.py %s %t.irdl

// The IRDL form (tf-opt --print-irdl-generic): the generic form with inherent data as
// attributes, tf attributes in IRDL's positional parameter syntax, each block of a tf/hir/tir
// op ended by llvm.unreachable, an absent optional region written empty, operand lists of
// several types split into runs (operand_segment_sizes), span ends as fused metadata. tf-opt
// reads it back as the same IR, metadata included (same_ir.py).

tf.module @m target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>, #tf.topology<"warp">] entry @f {
  hir.func @f(%x: tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, %w: tensor<8x8xf32> {const}) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>> {
    %h = tf.call tf.linalg.matmul(%x, %w) : (tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, tensor<8x8xf32>) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>> loc("m.py":3:4 to 3:20)
    %y = tf.mesh "cta" {
      %s = tf.call tf.reduce.sum<axis = 1, keepdims = true>(%h) : (tensor<?x8xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?x1xf32, #tf.dims<n: 1 to 4097>> loc(fused<#tf.meta<"fusion_group", {group = 3 : i64}>>[unknown])
      %e = tf.call tf.math.binary<kind = add>(%h, %s) : (tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, tensor<?x1xf32, #tf.dims<n: 1 to 4097>>) -> tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
      tf.yield %e : tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
    } : tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
    hir.return %y : tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
  } variants {
    hir.variant [n: 1 to 128] (%x: tensor<?x8xf32, #tf.dims<n: 1 to 4097>>, %w: tensor<8x8xf32>) {
      hir.return %x : tensor<?x8xf32, #tf.dims<n: 1 to 4097>>
    }
  }
  tf.module @kernels {
    tir.prim_func @copy(%x: tensor<4xf32>, %out: !tf.buffer<4xf32>) -> () {
      %t = tir.let tf.tuple %x, %x : tuple<tensor<4xf32>, tensor<4xf32>>
      tir.evaluate tf.call tf.memory.copy(%out, %x) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
      tir.return
    }
  }
}

// CHECK-LABEL: "tf.module"() ({
// CHECK-NEXT:    "hir.func"() ({
// CHECK-NEXT:    ^bb0(%x: tensor<?x8xf32, #tf.dims<["n"], [1 : i64], [4097 : i64]>>, %w: tensor<8x8xf32>):
// CHECK-NEXT:      %h = "tf.call"(%x, %w) {callee = #tf.op<"tf.linalg.matmul", {}>, operand_segment_sizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}
// CHECK-NEXT:      %y = "tf.mesh"() ({
// CHECK-NEXT:        %s = "tf.call"(%h) {callee = #tf.op<"tf.reduce.sum", {axis = 1 : i64, keepdims = true}>, operand_segment_sizes = array<i32: 1, 0,
// CHECK-NEXT:        %e = "tf.call"(%h, %s) {callee = #tf.op<"tf.math.binary", {kind = "add"}>,
// CHECK-NEXT:        "tf.yield"(%e) : (tensor<?x8xf32, #tf.dims<["n"], [1 : i64], [4097 : i64]>>) -> ()
// CHECK-NEXT:        "llvm.unreachable"() : () -> ()
// CHECK-NEXT:      }) {topology = "cta"} : () -> tensor<?x8xf32, #tf.dims<["n"], [1 : i64], [4097 : i64]>>
// CHECK-NEXT:      "hir.return"(%y) : (tensor<?x8xf32, #tf.dims<["n"], [1 : i64], [4097 : i64]>>) -> ()
// CHECK-NEXT:      "llvm.unreachable"() : () -> ()
// CHECK-NEXT:    }, {
// CHECK-NEXT:      "hir.variant"() ({
// CHECK:           }) {ranges = [#tf.range<"n", 1 : i64, 128 : i64>]} : () -> ()
// CHECK-NEXT:      "llvm.unreachable"() : () -> ()
// CHECK-NEXT:    }) {sym_name = "f", function_type = {{.*}}, param_names = ["x", "w"], arg_attrs = [{}, {const}]} : () -> ()
// CHECK:             %0 = "tf.tuple"(%x, %x) {operand_segment_sizes = array<i32: 2, 0,
// CHECK:             "tf.call"(%out, %x) {callee = #tf.op<"tf.memory.copy", {}>, {{.*}} : (!tf.buffer<[4 : i64], f32, none>, tensor<4xf32>) -> ()
// CHECK:           "tir.return"() : () -> ()
// CHECK-NEXT:      "llvm.unreachable"() : () -> ()
// CHECK-NEXT:    }) {sym_name = "copy", function_type = (tensor<4xf32>, !tf.buffer<[4 : i64], f32, none>) -> (), param_names = ["x", "out"]} : () -> ()
// CHECK-NEXT:    "llvm.unreachable"() : () -> ()
// CHECK-NEXT:  }) {sym_name = "kernels"} : () -> ()
// CHECK-NEXT:  "llvm.unreachable"() : () -> ()
// CHECK-NEXT: }) {sym_name = "m", target = #tf.target<"h100">, topologies = [#tf.topology<"cta", 4 : i64>, #tf.topology<"warp", none>], entry = @f} : () -> ()

// LOC: %h = "tf.call"{{.*}} loc("h"(fused<#tf.span_end<3 : i64, 20 : i64>>["m.py":3:4]))
// LOC: %s = "tf.call"{{.*}} loc("s"(fused<#tf.meta<"fusion_group", {group = 3 : i64}>>[unknown]))
