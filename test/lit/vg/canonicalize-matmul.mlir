// RUN: vinci-opt %s --split-input-file --canonicalize | FileCheck %s

// A transpose that only swaps the last two dims folds into the matmul.
// CHECK-LABEL: func.func @swap_last_two
// CHECK-SAME: ([[A:%[a-z0-9_]+]]: tensor<8x64xf32>, [[B:%[a-z0-9_]+]]: tensor<32x64xf32>)
// CHECK-NEXT: [[R:%.+]] = vg.matmul [[A]], [[B]] {transpose_b = true}
// CHECK-NEXT: return [[R]]
func.func @swap_last_two(%a: tensor<8x64xf32>, %b: tensor<32x64xf32>) -> tensor<8x32xf32> {
  %t = vg.transpose %b {perm = array<i64: 1, 0>} : (tensor<32x64xf32>) -> tensor<64x32xf32>
  %r = vg.matmul %a, %t : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// -----

// Attention's K^T: perm [0, 2, 3, 1] becomes the head split [0, 2, 1, 3]
// (innermost dim kept) plus transpose_b.
// CHECK-LABEL: func.func @attention_keys
// CHECK: [[K:%.+]] = vg.transpose %{{.+}} {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x128x12x64xf32>) -> tensor<1x12x128x64xf32>
// CHECK: vg.matmul %{{.+}}, [[K]] {transpose_b = true} : (tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>) -> tensor<1x12x128x128xf32>
func.func @attention_keys(%q: tensor<1x12x128x64xf32>, %k: tensor<1x128x12x64xf32>) -> tensor<1x12x128x128xf32> {
  %kt = vg.transpose %k {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x128x12x64xf32>) -> tensor<1x12x64x128xf32>
  %s = vg.matmul %q, %kt : (tensor<1x12x128x64xf32>, tensor<1x12x64x128xf32>) -> tensor<1x12x128x128xf32>
  return %s : tensor<1x12x128x128xf32>
}

// -----

// On the left operand, an existing transpose_a toggles off.
// CHECK-LABEL: func.func @left_operand
// CHECK-NEXT: vg.matmul %{{.+}}, %{{.+}} : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
func.func @left_operand(%a: tensor<8x64xf32>, %b: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %t = vg.transpose %a {perm = array<i64: 1, 0>} : (tensor<8x64xf32>) -> tensor<64x8xf32>
  %r = vg.matmul %t, %b {transpose_a = true} : (tensor<64x8xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// -----

// Near-miss: a transpose that keeps the innermost dim stays (the Cube's
// transpose flag would not remove it).
// CHECK-LABEL: func.func @inner_dim_kept
// CHECK: vg.transpose %{{.+}} {perm = array<i64: 1, 0, 2>}
// CHECK: vg.matmul %{{.+}}, %{{.+}} : (tensor<2x16x64xf32>, tensor<2x64x32xf32>)
func.func @inner_dim_kept(%a: tensor<2x16x64xf32>, %b: tensor<64x2x32xf32>) -> tensor<2x16x32xf32> {
  %t = vg.transpose %b {perm = array<i64: 1, 0, 2>} : (tensor<64x2x32xf32>) -> tensor<2x64x32xf32>
  %r = vg.matmul %a, %t : (tensor<2x16x64xf32>, tensor<2x64x32xf32>) -> tensor<2x16x32xf32>
  return %r : tensor<2x16x32xf32>
}

// -----

// Near-miss: the innermost dim moves elsewhere than one place up.
// CHECK-LABEL: func.func @inner_dim_moves_further
// CHECK: [[T:%.+]] = vg.transpose %{{.+}} {perm = array<i64: 2, 0, 1>}
// CHECK: vg.matmul %{{.+}}, [[T]] :
func.func @inner_dim_moves_further(%a: tensor<4x5x8xf32>, %b: tensor<8x3x4xf32>) -> tensor<4x5x3xf32> {
  %t = vg.transpose %b {perm = array<i64: 2, 0, 1>} : (tensor<8x3x4xf32>) -> tensor<4x8x3xf32>
  %r = vg.matmul %a, %t : (tensor<4x5x8xf32>, tensor<4x8x3xf32>) -> tensor<4x5x3xf32>
  return %r : tensor<4x5x3xf32>
}
