// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels=allow-unlowered=true | FileCheck %s

// hard_sigmoid(x) = min(max(alpha x + beta, 0), 1) is a matmul epilogue
// step in place on the output tile (MobileNetV3's squeeze-excite gate).
// CHECK-LABEL: dv.kernel @k0_matmul
// CHECK: dv.move_l0c_ub
// CHECK: dv.vmuls %{{.+}}, 2.500000e-01 : f32
// CHECK: dv.vadds %{{.+}}, 5.000000e-01 : f32
// CHECK: dv.vmaxs %{{.+}}, 0.000000e+00 : f32
// CHECK: dv.vmins %{{.+}}, 1.000000e+00 : f32
// CHECK: dv.copy_nz2nd
func.func @cube_hard_sigmoid(%x: tensor<16x64xf32>) -> tensor<16x32xf32> {
  %w = vg.constant dense_resource<w> : tensor<64x32xf32>
  %0 = call @k0_matmul(%x, %w) : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}
func.func private @k0_matmul(%arg0: tensor<16x64xf32>, %arg1: tensor<64x32xf32>) -> tensor<16x32xf32>
    attributes {vinci.kernel = "cube", vinci.source_nodes = ["fc", "gate"]} {
  %0 = vg.matmul %arg0, %arg1 : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  %1 = vg.hard_sigmoid %0 {alpha = 0.25 : f32, beta = 0.5 : f32} : tensor<16x32xf32>
  return %1 : tensor<16x32xf32>
}

// -----

// Near miss: hard_swish needs x beside hard_sigmoid(x), a second tile
// buffer the epilogue does not have; no template lowers this kernel (the
// partition does not form it).
// CHECK-LABEL: func.func @cube_hard_swish
// CHECK: call @k0_matmul
// CHECK: func.func private @k0_matmul
func.func @cube_hard_swish(%x: tensor<16x64xf32>) -> tensor<16x32xf32> {
  %w = vg.constant dense_resource<w> : tensor<64x32xf32>
  %0 = call @k0_matmul(%x, %w) : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}
func.func private @k0_matmul(%arg0: tensor<16x64xf32>, %arg1: tensor<64x32xf32>) -> tensor<16x32xf32>
    attributes {vinci.kernel = "cube", vinci.source_nodes = ["fc", "act"]} {
  %0 = vg.matmul %arg0, %arg1 : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  %1 = vg.hard_swish %0 : tensor<16x32xf32>
  return %1 : tensor<16x32xf32>
}
