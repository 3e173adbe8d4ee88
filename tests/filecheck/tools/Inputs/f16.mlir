hir.func @f(%x: tensor<2xf16>) -> tensor<2xf16> {
  hir.return %x : tensor<2xf16>
}
