// RUN: vinci-opt %s --split-input-file --vinci-partition-kernels --vinci-assign-layouts | FileCheck %s

// vinci-assign-layouts stores a kernel result NC1HWC0 when its producer's
// template writes it so and every user's template reads it so.

// A ResNet-style block: stem conv -> max pool -> conv -> conv + residual
// (the pool's output) -> flatten. The pool's output is read by a conv and
// by the second conv's residual, which the conv template reads in its own
// layout: NC1HWC0, though the second conv's output is a graph output
// through a view and stays ND (the chain between them is not pulled to ND
// by the residual, as ResNet-18's layer 4 was by the mean).
// CHECK-LABEL: func.func @block
// CHECK: %[[STEM:.+]] = call @k0_conv(%{{.+}}, %{{.+}}) {vinci.layouts = ["nd", "nd", "nc1hwc0"]}
// CHECK: %[[POOL:.+]] = call @k1_max_pool(%[[STEM]]) {vinci.layouts = ["nc1hwc0", "nc1hwc0"]}
// CHECK: %[[C1:.+]] = call @k2_conv(%[[POOL]], %{{.+}}) {vinci.layouts = ["nc1hwc0", "nd", "nc1hwc0"]}
// CHECK: %[[C2:.+]] = call @k3_conv(%[[C1]], %{{.+}}, %[[POOL]]) {vinci.layouts = ["nc1hwc0", "nd", "nc1hwc0", "nd"]}
// CHECK: vg.reshape %[[C2]]
func.func @block(%x: tensor<1x3x32x32xf16>) -> tensor<1x16384xf16> {
  %w0 = vg.constant dense<0.5> : tensor<64x3x3x3xf16>
  %w1 = vg.constant dense<0.25> : tensor<64x64x3x3xf16>
  %w2 = vg.constant dense<0.125> : tensor<64x64x3x3xf16>
  %0 = vg.conv %x, %w0 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x32x32xf16>, tensor<64x3x3x3xf16>) -> tensor<1x64x32x32xf16>
  %1 = vg.relu %0 : tensor<1x64x32x32xf16>
  %2 = vg.max_pool %1 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x64x32x32xf16>) -> tensor<1x64x16x16xf16>
  %3 = vg.conv %2, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x16x16xf16>, tensor<64x64x3x3xf16>) -> tensor<1x64x16x16xf16>
  %4 = vg.relu %3 : tensor<1x64x16x16xf16>
  %5 = vg.conv %4, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x16x16xf16>, tensor<64x64x3x3xf16>) -> tensor<1x64x16x16xf16>
  %6 = vg.add %5, %2 : (tensor<1x64x16x16xf16>, tensor<1x64x16x16xf16>) -> tensor<1x64x16x16xf16>
  %7 = vg.relu %6 : tensor<1x64x16x16xf16>
  %8 = vg.reshape %7 {shape = array<i64: 1, 16384>} : (tensor<1x64x16x16xf16>) -> tensor<1x16384xf16>
  return %8 : tensor<1x16384xf16>
}

// -----

// The same block followed by a conv: the second conv's output is read by a
// conv alone, so it is NC1HWC0 too, and only the last conv, a graph output,
// writes ND.
// CHECK-LABEL: func.func @residual_between_convs
// CHECK: call @k0_conv(%{{.+}}, %{{.+}}) {vinci.layouts = ["nd", "nd", "nc1hwc0"]}
// CHECK: %[[POOL:.+]] = call @k1_max_pool(%{{.+}}) {vinci.layouts = ["nc1hwc0", "nc1hwc0"]}
// CHECK: call @k2_conv(%[[POOL]], %{{.+}}) {vinci.layouts = ["nc1hwc0", "nd", "nc1hwc0"]}
// CHECK: call @k3_conv(%{{.+}}, %{{.+}}, %[[POOL]]) {vinci.layouts = ["nc1hwc0", "nd", "nc1hwc0", "nc1hwc0"]}
// CHECK: call @k4_conv(%{{.+}}, %{{.+}}) {vinci.layouts = ["nc1hwc0", "nd", "nd"]}
func.func @residual_between_convs(%x: tensor<1x3x32x32xf16>) -> tensor<1x64x16x16xf16> {
  %w0 = vg.constant dense<0.5> : tensor<64x3x3x3xf16>
  %w1 = vg.constant dense<0.25> : tensor<64x64x3x3xf16>
  %w2 = vg.constant dense<0.125> : tensor<64x64x3x3xf16>
  %w3 = vg.constant dense<0.0625> : tensor<64x64x1x1xf16>
  %0 = vg.conv %x, %w0 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x32x32xf16>, tensor<64x3x3x3xf16>) -> tensor<1x64x32x32xf16>
  %2 = vg.max_pool %0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x64x32x32xf16>) -> tensor<1x64x16x16xf16>
  %3 = vg.conv %2, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x16x16xf16>, tensor<64x64x3x3xf16>) -> tensor<1x64x16x16xf16>
  %5 = vg.conv %3, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x16x16xf16>, tensor<64x64x3x3xf16>) -> tensor<1x64x16x16xf16>
  %6 = vg.add %5, %2 : (tensor<1x64x16x16xf16>, tensor<1x64x16x16xf16>) -> tensor<1x64x16x16xf16>
  %7 = vg.conv %6, %w3 : (tensor<1x64x16x16xf16>, tensor<64x64x1x1xf16>) -> tensor<1x64x16x16xf16>
  return %7 : tensor<1x64x16x16xf16>
}

// -----

// Near miss: a conv whose output feeds a conv and a reduction (the rows
// template reads ND only) stays ND; the next conv's output, read by a conv
// alone, is NC1HWC0.
// CHECK-LABEL: func.func @mixed_users
// CHECK: %[[A:.+]] = call @k0_conv(%{{.+}}, %{{.+}}) :
// CHECK: call @k1_conv(%[[A]], %{{.+}}) {vinci.layouts = ["nd", "nd", "nc1hwc0"]}
// CHECK: call @k2_conv(%{{.+}}, %{{.+}}) {vinci.layouts = ["nc1hwc0", "nd", "nd"]}
// CHECK: call @k3_reduce_mean(%[[A]]) :
func.func @mixed_users(%x: tensor<1x16x8x8xf16>) -> (tensor<1x16x8x8xf16>, tensor<1x16x1x1xf16>) {
  %w = vg.constant dense<0.5> : tensor<16x16x3x3xf16>
  %0 = vg.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x8x8xf16>
  %1 = vg.conv %0, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x8x8xf16>
  %2 = vg.conv %1, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x8x8xf16>
  %3 = vg.reduce_mean %0 {axes = array<i64: 2, 3>} : (tensor<1x16x8x8xf16>) -> tensor<1x16x1x1xf16>
  return %2, %3 : tensor<1x16x8x8xf16>, tensor<1x16x1x1xf16>
}

// -----

// Near miss: an f32 tensor between kernels (a model kept in fp32 stores
// f32; the templates' pixels are f16) stays ND, and no call gets layouts.
// CHECK-LABEL: func.func @f32_between
// CHECK-NOT: vinci.layouts
// CHECK: return
func.func @f32_between(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32> {
  %w = vg.constant dense<0.5> : tensor<16x16x3x3xf32>
  %0 = vg.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %1 = vg.max_pool %0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
  return %1 : tensor<1x16x4x4xf32>
}
