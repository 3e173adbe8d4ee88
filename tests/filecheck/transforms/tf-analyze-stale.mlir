// RUN: tf-opt %s -p 'tf-analyze{table=""},canonicalize' | filecheck %s
// RUN: tf-opt %s -p 'tf-analyze{table=""},tf.module(hir.func(canonicalize))' | filecheck %s
// RUN: tf-opt %s -p 'tf-analyze{table=""},cse' | filecheck %s --check-prefix=KEPT
// RUN: tf-opt %s -p 'tf-analyze{table=""},canonicalize,tf-analyze{table=""}' | filecheck %s --check-prefix=AGAIN
// RUN: tf-opt %s -p 'tf-analyze{table=""},tf-prune-unreachable' | filecheck %s --check-prefix=MODULE

// A pass that changes a function drops its tf.cost and those of its callers: canonicalize
// removes `x * 1`, which the cost of @f counted, and @g's cost included @f's; @h, which
// neither changed nor calls what did, keeps its cost. A pass that changes nothing (cse, here)
// keeps them all; tf-analyze run again measures what is left. A pass that changes a module
// (tf-prune-unreachable removes @h) drops every cost of the tree.

tf.module @m target #tf.target<"h100"> topologies [] entry @g {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %one = tf.constant dense<1.0> : tensor<4xf32>
    %a = tf.call tf.math.binary<kind = mul>(%x, %one) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    hir.return %a : tensor<4xf32>
  }
  hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
  hir.func @h(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}

// CHECK-LABEL: hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    hir.return %x : tensor<4xf32>
// CHECK-LABEL: hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-LABEL: hir.func @h(
// CHECK-SAME:    tf.cost = {flops = 4 : i64, bytes = 32 : i64

// KEPT-LABEL:  hir.func @f(
// KEPT-SAME:     tf.cost = {flops = 4 : i64
// KEPT-LABEL:  hir.func @g(
// KEPT-SAME:     tf.cost = {flops = 4 : i64, bytes = 64 : i64
// KEPT-LABEL:  hir.func @h(
// KEPT-SAME:     tf.cost = {flops = 4 : i64

// AGAIN-LABEL: hir.func @f(
// AGAIN-SAME:    tf.cost = {flops = 0 : i64, bytes = 32 : i64
// AGAIN-LABEL: hir.func @g(
// AGAIN-SAME:    tf.cost = {flops = 0 : i64, bytes = 64 : i64

// MODULE-NOT:  tf.cost
// MODULE:      hir.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
// MODULE-NOT:  tf.cost
