// RUN: tf-opt %s -p 'tf-analyze{table=""},canonicalize' | filecheck %s
// RUN: tf-opt %s -p 'tf-analyze{table=""},tf.module(hir.func(canonicalize))' | filecheck %s
// RUN: tf-opt %s -p 'tf-analyze{table=""},cse' | filecheck %s --check-prefix=KEPT
// RUN: tf-opt %s -p 'tf-analyze{table=""},canonicalize,tf-analyze{table=""}' | filecheck %s --check-prefix=AGAIN

// A pass that changes the IR drops every tf.cost of the tree it changed: canonicalize removes
// `x * 1`, which the cost of @f counted, and @g's cost included @f's. A pass that changes
// nothing (cse, here) keeps them; tf-analyze run again measures what is left.

tf.module @m target #tf.target<"h100"> topologies [] {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %one = tf.constant dense<1.0> : tensor<4xf32>
    %a = tf.call tf.math.binary<kind = mul>(%x, %one) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %a : tensor<4xf32>
  }
  hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// CHECK-NOT:   tf.cost
// CHECK-LABEL: hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    hir.return %x : tensor<4xf32>
// CHECK-NOT:   tf.cost

// KEPT-LABEL:  hir.func @f(
// KEPT-SAME:     tf.cost = {flops = 4 : i64
// KEPT-LABEL:  hir.func @g(
// KEPT-SAME:     tf.cost = {flops = 4 : i64, bytes = 64 : i64

// AGAIN-LABEL: hir.func @f(
// AGAIN-SAME:    tf.cost = {flops = 0 : i64, bytes = 32 : i64
// AGAIN-LABEL: hir.func @g(
// AGAIN-SAME:    tf.cost = {flops = 0 : i64, bytes = 64 : i64
