hir.func @f(%x: tensor<4xi8>) -> tensor<4xi8> {
  hir.return %x : tensor<4xi8>
}
