// RUN: vinci-opt %s --split-input-file --vinci-decompose-resize | FileCheck %s

// Nearest x2 along H, x3 along W: W first (X [.., 2] x R^T [2, 6], one-hot
// columns), then H with N = C = 1 (P = 1): a plain matmul R [4, 2] x the
// view [2, 6]. Axes of scale 1 have identity matrices and are skipped.
// CHECK-LABEL: func.func @nearest_upsample
// CHECK-SAME: (%[[X:.+]]: tensor<1x1x2x2xf32>)
// CHECK: %[[RW:.+]] = vg.constant dense<{{\[}}[1.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00]]> : tensor<2x6xf32>
// CHECK: %[[W:.+]] = vg.matmul %[[X]], %[[RW]] : (tensor<1x1x2x2xf32>, tensor<2x6xf32>) -> tensor<1x1x2x6xf32>
// CHECK: %[[RH:.+]] = vg.constant dense<{{\[}}[1.000000e+00, 0.000000e+00], [1.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00], [0.000000e+00, 1.000000e+00]]> : tensor<4x2xf32>
// CHECK: %[[V:.+]] = vg.reshape %[[W]] {shape = array<i64: 2, 6>}
// CHECK: %[[M:.+]] = vg.matmul %[[RH]], %[[V]] : (tensor<4x2xf32>, tensor<2x6xf32>) -> tensor<4x6xf32>
// CHECK: %[[Y:.+]] = vg.reshape %[[M]] {shape = array<i64: 1, 1, 4, 6>}
// CHECK-NOT: vg.resize
// CHECK: return %[[Y]]
func.func @nearest_upsample(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x6xf32> {
  %y = vg.resize %x {mode = "nearest", scales = array<f32: 1.0, 1.0, 2.0, 3.0>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x6xf32>
  return %y : tensor<1x1x4x6xf32>
}

// -----

// Linear x2 (half_pixel) over 3 channels: the H matrix (edge rows 1, inner
// rows 3/4 and 1/4) is repeated over the 3 channels for a batched matmul
// [3, 8, 4] x [3, 4, 8]: the Cube template takes a 2-D operand on the
// right only.
// CHECK-LABEL: func.func @linear_channels
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x4x4xf32>)
// CHECK: %[[RW:.+]] = vg.constant dense<{{\[}}[1.000000e+00, 7.500000e-01, 2.500000e-01, 0.000000e+00, {{.*}}]]> : tensor<4x8xf32>
// CHECK: %[[W:.+]] = vg.matmul %[[X]], %[[RW]] : (tensor<1x3x4x4xf32>, tensor<4x8xf32>) -> tensor<1x3x4x8xf32>
// CHECK: %[[RH:.+]] = vg.constant dense<{{\[\[}}[1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [7.500000e-01, 2.500000e-01, 0.000000e+00, 0.000000e+00], {{.*}}]]]> : tensor<3x8x4xf32>
// CHECK: %[[V:.+]] = vg.reshape %[[W]] {shape = array<i64: 3, 4, 8>}
// CHECK: %[[M:.+]] = vg.matmul %[[RH]], %[[V]] : (tensor<3x8x4xf32>, tensor<3x4x8xf32>) -> tensor<3x8x8xf32>
// CHECK: %[[Y:.+]] = vg.reshape %[[M]] {shape = array<i64: 1, 3, 8, 8>}
// CHECK: return %[[Y]]
func.func @linear_channels(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  %y = vg.resize %x {mode = "linear", scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return %y : tensor<1x3x8x8xf32>
}

// -----

// Only the last axis resized (align_corners, 4 -> 2 keeps the two ends):
// one matmul by a 2-D weight over the batch dims, no reshape.
// CHECK-LABEL: func.func @width_only
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK: %[[RW:.+]] = vg.constant dense<{{\[}}[1.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00]]> : tensor<4x2xf32>
// CHECK: %[[Y:.+]] = vg.matmul %[[X]], %[[RW]] : (tensor<2x3x4xf32>, tensor<4x2xf32>) -> tensor<2x3x2xf32>
// CHECK-NOT: vg.reshape
// CHECK: return %[[Y]]
func.func @width_only(%x: tensor<2x3x4xf32>) -> tensor<2x3x2xf32> {
  %y = vg.resize %x {mode = "linear", coordinate_transformation_mode = "align_corners", scales = array<f32: 1.0, 1.0, 0.5>} : (tensor<2x3x4xf32>) -> tensor<2x3x2xf32>
  return %y : tensor<2x3x2xf32>
}

// -----

// Scale 1 everywhere under half_pixel: every matrix is the identity, the
// resize disappears.
// CHECK-LABEL: func.func @identity
// CHECK-SAME: (%[[X:.+]]: tensor<1x2x3x3xf32>)
// CHECK-NOT: vg.matmul
// CHECK-NOT: vg.resize
// CHECK: return %[[X]]
func.func @identity(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %y = vg.resize %x {mode = "linear", scales = array<f32: 1.0, 1.0, 1.0, 1.0>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// Near-miss of the identity: scale 1 under tf_half_pixel_for_nn with
// nearest_mode ceil reads x + 0.5 rounded up, a shift by one (the last
// output repeats the edge), so the axis is not skipped.
// CHECK-LABEL: func.func @shift_at_scale_one
// CHECK-SAME: (%[[X:.+]]: tensor<1x3xf32>)
// CHECK: %[[R:.+]] = vg.constant dense<{{\[}}[0.000000e+00, 0.000000e+00, 0.000000e+00], [1.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 1.000000e+00]]> : tensor<3x3xf32>
// CHECK: %[[Y:.+]] = vg.matmul %[[X]], %[[R]]
// CHECK: return %[[Y]]
func.func @shift_at_scale_one(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %y = vg.resize %x {mode = "nearest", coordinate_transformation_mode = "tf_half_pixel_for_nn", nearest_mode = "ceil", scales = array<f32: 1.0, 1.0>} : (tensor<1x3xf32>) -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}

// -----

// An f16 tensor gets f16 matrices (and f16 matmuls).
// CHECK-LABEL: func.func @f16_matrices
// CHECK-SAME: (%[[X:.+]]: tensor<1x1x2x2xf16>)
// CHECK: %[[RW:.+]] = vg.constant dense<{{\[}}[1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00]]> : tensor<2x4xf16>
// CHECK: vg.matmul %[[X]], %[[RW]] : (tensor<1x1x2x2xf16>, tensor<2x4xf16>) -> tensor<1x1x2x4xf16>
// CHECK: vg.constant {{.*}} : tensor<4x2xf16>
// CHECK-NOT: vg.resize
func.func @f16_matrices(%x: tensor<1x1x2x2xf16>) -> tensor<1x1x4x4xf16> {
  %y = vg.resize %x {mode = "nearest", scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x1x2x2xf16>) -> tensor<1x1x4x4xf16>
  return %y : tensor<1x1x4x4xf16>
}

// -----

// Near-miss: a dynamic dim leaves the resize alone (no matrix size).
// CHECK-LABEL: func.func @dynamic_left_alone
// CHECK: vg.resize
// CHECK-NOT: vg.matmul
func.func @dynamic_left_alone(%x: tensor<?x1x2x2xf32>) -> tensor<?x1x4x4xf32> {
  %y = vg.resize %x {mode = "nearest", scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<?x1x2x2xf32>) -> tensor<?x1x4x4xf32>
  return %y : tensor<?x1x4x4xf32>
}

// -----

// A matrix above 256 elements is a resource blob named after the node.
// CHECK-LABEL: func.func @blob_matrix
// CHECK: vg.constant dense_resource<up.resize_axis1> : tensor<16x32xf32>
func.func @blob_matrix(%x: tensor<1x16xf32>) -> tensor<1x32xf32> {
  %y = vg.resize %x {mode = "nearest", scales = array<f32: 1.0, 2.0>} : (tensor<1x16xf32>) -> tensor<1x32xf32> loc("up")
  return %y : tensor<1x32xf32>
}
