// RUN: tf-opt %s | filecheck %s
// RUN: xdsl-opt %s | filecheck %s --check-prefix=STOCK
// RUN: xdsl-opt %s | tf-opt | filecheck %s

// tf-opt knows xDSL's standard dialects (func, arith, ...), each loaded on first use as
// xdsl-opt loads them; stock xdsl-opt knows tf, hir and tir through the `xdsl.universe` entry
// point (tilefoundry/context/universe.py), and what it prints reads back into tf-opt.

func.func @host(%a: i32) -> i32 {
  %c = arith.constant 1 : i32
  %s = arith.addi %a, %c : i32
  func.return %s : i32
}
tf.module @m {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// CHECK-LABEL: func.func @host(%a: i32) -> i32 {
// CHECK-NEXT:    %c = arith.constant 1 : i32
// CHECK-NEXT:    %s = arith.addi %a, %c : i32
// CHECK-NEXT:    func.return %s : i32
// CHECK-NEXT:  }
// CHECK-NEXT:  tf.module @m {
// CHECK-NEXT:    hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:      %y = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:      hir.return %y : tensor<4xf32>

// STOCK-LABEL: builtin.module {
// STOCK-NEXT:    func.func @host(%a: i32) -> i32 {
// STOCK:         tf.module @m {
// STOCK-NEXT:      hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
// STOCK-NEXT:        %y = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
