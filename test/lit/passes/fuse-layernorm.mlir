// RUN: vinci-opt %s --split-input-file --vinci-fuse-layernorm | FileCheck %s

// The nine-op LayerNorm torch exports (Pow 2, Div) with its affine part.
// CHECK-LABEL: func.func @layernorm_affine
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<2x8x64xf32>, [[G:%[a-z0-9_]+]]: tensor<64xf32>, [[B:%[a-z0-9_]+]]: tensor<64xf32>)
// CHECK-NEXT: [[Y:%.+]] = vg.layer_norm [[X]], [[G]], [[B]] {axis = 2 : i64} :
// CHECK-NEXT: return [[Y]]
func.func @layernorm_affine(%x: tensor<2x8x64xf32>, %gamma: tensor<64xf32>, %beta: tensor<64xf32>) -> tensor<2x8x64xf32> {
  %two = vg.constant dense<2.0> : tensor<f32>
  %eps = vg.constant dense<1.0e-5> : tensor<f32>
  %m = vg.reduce_mean %x {axes = array<i64: -1>} : (tensor<2x8x64xf32>) -> tensor<2x8x1xf32>
  %d = vg.sub %x, %m : (tensor<2x8x64xf32>, tensor<2x8x1xf32>) -> tensor<2x8x64xf32>
  %s = vg.pow %d, %two : (tensor<2x8x64xf32>, tensor<f32>) -> tensor<2x8x64xf32>
  %v = vg.reduce_mean %s {axes = array<i64: -1>} : (tensor<2x8x64xf32>) -> tensor<2x8x1xf32>
  %e = vg.add %v, %eps : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8x1xf32>
  %r = vg.sqrt %e : tensor<2x8x1xf32>
  %n = vg.div %d, %r : (tensor<2x8x64xf32>, tensor<2x8x1xf32>) -> tensor<2x8x64xf32>
  %g = vg.mul %n, %gamma : (tensor<2x8x64xf32>, tensor<64xf32>) -> tensor<2x8x64xf32>
  %y = vg.add %g, %beta : (tensor<2x8x64xf32>, tensor<64xf32>) -> tensor<2x8x64xf32>
  return %y : tensor<2x8x64xf32>
}

// -----

// Mul for the square, Reciprocal and Mul for the division, eps on the left,
// two trailing axes, and no affine part: the scale is a splat of ones.
// CHECK-LABEL: func.func @layernorm_variants
// CHECK: [[ONES:%.+]] = vg.constant dense<1.000000e+00> : tensor<8x64xf32>
// CHECK: vg.layer_norm %{{.+}}, [[ONES]] {axis = 1 : i64, epsilon = 9.99999996E-13 : f32}
// CHECK-NOT: vg.reduce_mean
func.func @layernorm_variants(%x: tensor<2x8x64xf32>) -> tensor<2x8x64xf32> {
  %eps = vg.constant dense<1.0e-12> : tensor<f32>
  %m = vg.reduce_mean %x {axes = array<i64: 1, 2>} : (tensor<2x8x64xf32>) -> tensor<2x1x1xf32>
  %d = vg.sub %x, %m : (tensor<2x8x64xf32>, tensor<2x1x1xf32>) -> tensor<2x8x64xf32>
  %s = vg.mul %d, %d : (tensor<2x8x64xf32>, tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  %v = vg.reduce_mean %s {axes = array<i64: -2, -1>} : (tensor<2x8x64xf32>) -> tensor<2x1x1xf32>
  %e = vg.add %eps, %v : (tensor<f32>, tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %r = vg.sqrt %e : tensor<2x1x1xf32>
  %i = vg.reciprocal %r : tensor<2x1x1xf32>
  %n = vg.mul %i, %d : (tensor<2x1x1xf32>, tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  return %n : tensor<2x8x64xf32>
}

// -----

// RMSNorm: x / sqrt(mean(x^2) + eps) * gamma.
// CHECK-LABEL: func.func @rmsnorm
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<4x32xf32>, [[G:%[a-z0-9_]+]]: tensor<32xf32>)
// CHECK-NEXT: [[Y:%.+]] = vg.rms_norm [[X]], [[G]] {axis = 1 : i64, epsilon = 9.99999997E-7 : f32}
// CHECK-NEXT: return [[Y]]
func.func @rmsnorm(%x: tensor<4x32xf32>, %gamma: tensor<32xf32>) -> tensor<4x32xf32> {
  %two = vg.constant dense<2.0> : tensor<f32>
  %eps = vg.constant dense<1.0e-6> : tensor<f32>
  %s = vg.pow %x, %two : (tensor<4x32xf32>, tensor<f32>) -> tensor<4x32xf32>
  %v = vg.reduce_mean %s {axes = array<i64: -1>} : (tensor<4x32xf32>) -> tensor<4x1xf32>
  %e = vg.add %v, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = vg.sqrt %e : tensor<4x1xf32>
  %n = vg.div %x, %r : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
  %y = vg.mul %gamma, %n : (tensor<32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// Near-miss: eps added after the square root is not a norm.
// CHECK-LABEL: func.func @eps_after_sqrt
// CHECK-NOT: vg.layer_norm
// CHECK-NOT: vg.rms_norm
// CHECK: vg.reduce_mean
func.func @eps_after_sqrt(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %two = vg.constant dense<2.0> : tensor<f32>
  %eps = vg.constant dense<1.0e-6> : tensor<f32>
  %m = vg.reduce_mean %x {axes = array<i64: -1>} : (tensor<4x32xf32>) -> tensor<4x1xf32>
  %d = vg.sub %x, %m : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
  %s = vg.pow %d, %two : (tensor<4x32xf32>, tensor<f32>) -> tensor<4x32xf32>
  %v = vg.reduce_mean %s {axes = array<i64: -1>} : (tensor<4x32xf32>) -> tensor<4x1xf32>
  %r = vg.sqrt %v : tensor<4x1xf32>
  %e = vg.add %r, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %n = vg.div %d, %e : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
  return %n : tensor<4x32xf32>
}

// -----

// Near-miss: the variance has another user, so the chain must stay.
// CHECK-LABEL: func.func @shared_variance
// CHECK-NOT: vg.layer_norm
// CHECK-NOT: vg.rms_norm
// CHECK: return
func.func @shared_variance(%x: tensor<4x32xf32>) -> (tensor<4x32xf32>, tensor<4x1xf32>) {
  %two = vg.constant dense<2.0> : tensor<f32>
  %eps = vg.constant dense<1.0e-6> : tensor<f32>
  %m = vg.reduce_mean %x {axes = array<i64: -1>} : (tensor<4x32xf32>) -> tensor<4x1xf32>
  %d = vg.sub %x, %m : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
  %s = vg.pow %d, %two : (tensor<4x32xf32>, tensor<f32>) -> tensor<4x32xf32>
  %v = vg.reduce_mean %s {axes = array<i64: -1>} : (tensor<4x32xf32>) -> tensor<4x1xf32>
  %e = vg.add %v, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = vg.sqrt %e : tensor<4x1xf32>
  %n = vg.div %d, %r : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
  return %n, %v : tensor<4x32xf32>, tensor<4x1xf32>
}

// -----

// Near-miss: the statistics reduce a leading dim, not trailing ones.
// CHECK-LABEL: func.func @leading_axis
// CHECK-NOT: vg.layer_norm
// CHECK: vg.reduce_mean %{{.+}} {axes = array<i64: 0>}
func.func @leading_axis(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %two = vg.constant dense<2.0> : tensor<f32>
  %eps = vg.constant dense<1.0e-6> : tensor<f32>
  %m = vg.reduce_mean %x {axes = array<i64: 0>} : (tensor<4x32xf32>) -> tensor<1x32xf32>
  %d = vg.sub %x, %m : (tensor<4x32xf32>, tensor<1x32xf32>) -> tensor<4x32xf32>
  %s = vg.pow %d, %two : (tensor<4x32xf32>, tensor<f32>) -> tensor<4x32xf32>
  %v = vg.reduce_mean %s {axes = array<i64: 0>} : (tensor<4x32xf32>) -> tensor<1x32xf32>
  %e = vg.add %v, %eps : (tensor<1x32xf32>, tensor<f32>) -> tensor<1x32xf32>
  %r = vg.sqrt %e : tensor<1x32xf32>
  %n = vg.div %d, %r : (tensor<4x32xf32>, tensor<1x32xf32>) -> tensor<4x32xf32>
  return %n : tensor<4x32xf32>
}

// -----

// Near-miss: a scale that broadcasts beyond the normalised dims (it varies
// along the batch) stays a separate multiplication.
// CHECK-LABEL: func.func @scale_over_batch
// CHECK: [[N:%.+]] = vg.layer_norm
// CHECK: vg.mul [[N]]
func.func @scale_over_batch(%x: tensor<4x32xf32>, %gamma: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %two = vg.constant dense<2.0> : tensor<f32>
  %eps = vg.constant dense<1.0e-6> : tensor<f32>
  %m = vg.reduce_mean %x {axes = array<i64: -1>} : (tensor<4x32xf32>) -> tensor<4x1xf32>
  %d = vg.sub %x, %m : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
  %s = vg.pow %d, %two : (tensor<4x32xf32>, tensor<f32>) -> tensor<4x32xf32>
  %v = vg.reduce_mean %s {axes = array<i64: -1>} : (tensor<4x32xf32>) -> tensor<4x1xf32>
  %e = vg.add %v, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = vg.sqrt %e : tensor<4x1xf32>
  %n = vg.div %d, %r : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
  %y = vg.mul %n, %gamma : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}
