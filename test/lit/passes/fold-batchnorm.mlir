// RUN: vinci-opt %s --split-input-file --vinci-fold-batchnorm | FileCheck %s

// s = gamma / sqrt(var + eps) = [1 / 2, 2 / 1]: W' = W * s = [0.5, 4],
// b' = (0 - mean) * s + beta = [-0.5 + 0.5, 0 + 1] = [0, 1].
// CHECK-LABEL: func.func @folded
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x1x2x2xf32>)
// CHECK-NEXT: [[W:%.+]] = vg.constant dense<{{\[\[\[\[}}5.000000e-01]]], {{\[\[\[}}4.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-NEXT: [[B:%.+]] = vg.constant dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: [[Y:%.+]] = vg.conv [[X]], [[W]], [[B]]
// CHECK-NOT: vg.batch_norm
// CHECK: return [[Y]]
func.func @folded(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = vg.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %gamma = vg.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = vg.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean = vg.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %var = vg.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %y = vg.conv %x, %w : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %z = vg.batch_norm %y, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %z : tensor<1x2x2x2xf32>
}

// -----

// The conv's own bias goes through the affine map too:
// b' = (b - mean) * s + beta = [(3 - 1) * 0.5 + 0.5, (4 - 0) * 2 + 1] = [1.5, 9];
// the strides and pads stay.
// CHECK-LABEL: func.func @conv_bias
// CHECK: [[B:%.+]] = vg.constant dense<[1.500000e+00, 9.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: vg.conv %{{.+}}, %{{.+}}, [[B]] {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
// CHECK-NOT: vg.batch_norm
func.func @conv_bias(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %w = vg.constant dense<1.0> : tensor<2x1x3x3xf32>
  %b = vg.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %gamma = vg.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = vg.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean = vg.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %var = vg.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %y = vg.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %z = vg.batch_norm %y, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %z : tensor<1x2x2x2xf32>
}

// -----

// Near miss: the mean is not a constant (a graph input), so nothing folds.
// CHECK-LABEL: func.func @stats_not_constant
// CHECK: vg.conv
// CHECK: vg.batch_norm
func.func @stats_not_constant(%x: tensor<1x1x2x2xf32>, %mean: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
  %w = vg.constant dense<1.0> : tensor<2x1x1x1xf32>
  %gamma = vg.constant dense<1.0> : tensor<2xf32>
  %beta = vg.constant dense<0.0> : tensor<2xf32>
  %var = vg.constant dense<1.0> : tensor<2xf32>
  %y = vg.conv %x, %w : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %z = vg.batch_norm %y, %gamma, %beta, %mean, %var : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %z : tensor<1x2x2x2xf32>
}

// -----

// Near miss: the conv output has another user, which needs the
// unnormalised values; folding would change it.
// CHECK-LABEL: func.func @conv_has_other_user
// CHECK: [[Y:%.+]] = vg.conv
// CHECK: [[Z:%.+]] = vg.batch_norm [[Y]]
// CHECK: return [[Z]], [[Y]]
func.func @conv_has_other_user(%x: tensor<1x1x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = vg.constant dense<1.0> : tensor<2x1x1x1xf32>
  %gamma = vg.constant dense<1.0> : tensor<2xf32>
  %beta = vg.constant dense<0.0> : tensor<2xf32>
  %mean = vg.constant dense<0.0> : tensor<2xf32>
  %var = vg.constant dense<1.0> : tensor<2xf32>
  %y = vg.conv %x, %w : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %z = vg.batch_norm %y, %gamma, %beta, %mean, %var : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %z, %y : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// Near miss: a batch_norm of a graph input (no conv before it) stays.
// CHECK-LABEL: func.func @no_conv
// CHECK: vg.batch_norm
func.func @no_conv(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %gamma = vg.constant dense<1.0> : tensor<2xf32>
  %beta = vg.constant dense<0.0> : tensor<2xf32>
  %mean = vg.constant dense<0.0> : tensor<2xf32>
  %var = vg.constant dense<1.0> : tensor<2xf32>
  %z = vg.batch_norm %x, %gamma, %beta, %mean, %var : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %z : tensor<1x2x2x2xf32>
}

// -----

// Weight blobs give blobs named after the weight; the old blobs are gone.
// W' = [2 * 0.5, 3 * 2] = [1, 6] (0x3F800000, 0x40C00000); b' = [0, 1].
// CHECK-LABEL: func.func @blobs
// CHECK: vg.constant dense_resource<conv1.weight.bn_folded> : tensor<2x1x1x1xf32>
// CHECK: vg.constant dense_resource<conv1.weight.bn_folded_bias> : tensor<2xf32>
// CHECK: dialect_resources
// CHECK-NOT: conv1.weight:
// CHECK-DAG: conv1.weight.bn_folded: "0x{{[0-9A-F]+}}0000803F0000C040"
// CHECK-DAG: conv1.weight.bn_folded_bias: "0x{{[0-9A-F]+}}000000000000803F"
func.func @blobs(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = vg.constant dense_resource<conv1.weight> : tensor<2x1x1x1xf32>
  %gamma = vg.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = vg.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean = vg.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %var = vg.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %y = vg.conv %x, %w : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %z = vg.batch_norm %y, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %z : tensor<1x2x2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      conv1.weight: "0x040000000000004000004040"
    }
  }
#-}
