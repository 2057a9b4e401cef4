// RUN: vinci-opt %s --split-input-file --vinci-partition-kernels | FileCheck %s

// The partition asks the templates: a join KernelRules allows is made only
// when a template lowers the kernel with the new op.

// MobileNetV3's classifier: the Cube epilogue has no hard_swish form (it
// needs a second tile buffer), so the Gemm and its activation are two
// kernels instead of one that no template lowers.
// CHECK-LABEL: func.func @matmul_hard_swish
// CHECK: call @k0_matmul
// CHECK: call @k1_hard_swish
// CHECK: func.func private @k0_matmul{{.+}}vinci.source_nodes = ["gemm", "bias"]
func.func @matmul_hard_swish(%x: tensor<1x576xf32>) -> tensor<1x1024xf32> {
  %w = vg.constant dense<0.5> : tensor<576x1024xf32>
  %b = vg.constant dense<0.25> : tensor<1024xf32>
  %0 = vg.matmul %x, %w : (tensor<1x576xf32>, tensor<576x1024xf32>) -> tensor<1x1024xf32> loc("gemm")
  %1 = vg.add %0, %b : (tensor<1x1024xf32>, tensor<1024xf32>) -> tensor<1x1024xf32> loc("bias")
  %2 = vg.hard_swish %1 : tensor<1x1024xf32> loc("act")
  return %2 : tensor<1x1024xf32>
}

// -----

// Near miss: hard_sigmoid has an epilogue form (in place: vmuls, vadds,
// vmaxs, vmins), so it joins (MobileNetV3's squeeze-excite gate).
// CHECK-LABEL: func.func @matmul_hard_sigmoid
// CHECK: call @k0_matmul
// CHECK-NOT: call
// CHECK: func.func private @k0_matmul{{.+}}vinci.source_nodes = ["fc", "gate"]
func.func @matmul_hard_sigmoid(%x: tensor<1x64xf32>) -> tensor<1x256xf32> {
  %w = vg.constant dense<0.5> : tensor<64x256xf32>
  %0 = vg.matmul %x, %w : (tensor<1x64xf32>, tensor<64x256xf32>) -> tensor<1x256xf32> loc("fc")
  %1 = vg.hard_sigmoid %0 {alpha = 0.1666666 : f32, beta = 0.5 : f32} : tensor<1x256xf32> loc("gate")
  return %1 : tensor<1x256xf32>
}

// -----

// Each op broadcasts alone, but not together: a [5] row and a per-channel
// [1, 2, 1, 1] over [96, 2, 33, 5] have no common [rows, row] view (the
// elementwise template's geometry), so the chain is cut between them.
// CHECK-LABEL: func.func @incompatible_broadcasts
// CHECK: call @k0_equal
// CHECK: call @k1_where
// CHECK-NOT: call
// CHECK: return
func.func @incompatible_broadcasts(%x: tensor<96x2x33x5xf32>, %r: tensor<5xf32>, %c: tensor<1x2x1x1xf32>) -> tensor<96x2x33x5xf32> {
  %0 = vg.equal %x, %r : (tensor<96x2x33x5xf32>, tensor<5xf32>) -> tensor<96x2x33x5xi1> loc("eq")
  %1 = vg.where %0, %x, %c : (tensor<96x2x33x5xi1>, tensor<96x2x33x5xf32>, tensor<1x2x1x1xf32>) -> tensor<96x2x33x5xf32> loc("sel")
  return %1 : tensor<96x2x33x5xf32>
}

// -----

// Near miss: two row broadcasts share the view, one kernel.
// CHECK-LABEL: func.func @compatible_broadcasts
// CHECK: call @k0_equal
// CHECK-NOT: call
// CHECK: return
func.func @compatible_broadcasts(%x: tensor<96x2x33x5xf32>, %r: tensor<5xf32>, %s: tensor<33x5xf32>) -> tensor<96x2x33x5xf32> {
  %0 = vg.equal %x, %r : (tensor<96x2x33x5xf32>, tensor<5xf32>) -> tensor<96x2x33x5xi1> loc("eq")
  %1 = vg.where %0, %x, %s : (tensor<96x2x33x5xi1>, tensor<96x2x33x5xf32>, tensor<33x5xf32>) -> tensor<96x2x33x5xf32> loc("sel")
  return %1 : tensor<96x2x33x5xf32>
}

// -----

// A depthwise conv (MobileNetV2's): its ReLU6 (clip) joins, the depthwise
// template having an epilogue form for it; the residual add after it stays
// out (the template takes no tensor operand in its epilogue), though
// KernelRules would let a Cube kernel absorb it.
// CHECK-LABEL: func.func @depthwise_clip_residual
// CHECK: call @k0_relu
// CHECK: call @k1_conv
// CHECK: call @k2_add
// CHECK: func.func private @k1_conv{{.+}}vinci.source_nodes = ["dw", "relu6"]
func.func @depthwise_clip_residual(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %w = vg.constant dense<0.5> : tensor<16x1x3x3xf32>
  %r = vg.relu %x : tensor<1x16x8x8xf32> loc("in")
  %0 = vg.conv %r, %w {group = 16 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x8x8xf32> loc("dw")
  %1 = vg.clip %0 {max = 6.0 : f64, min = 0.0 : f64} : tensor<1x16x8x8xf32> loc("relu6")
  %2 = vg.add %1, %r : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> loc("skip")
  return %2 : tensor<1x16x8x8xf32>
}

// -----

// ResNet's stem at batch 2: the max pool (3x3, stride 2, pad 1) after the
// conv and its ReLU joins the conv kernel (pooled in UB, tile by tile).
// CHECK-LABEL: func.func @conv_max_pool
// CHECK: call @k0_conv
// CHECK-NOT: call
// CHECK: func.func private @k0_conv{{.+}}vinci.source_nodes = ["stem", "relu", "pool"]
func.func @conv_max_pool(%x: tensor<2x3x32x32xf32>) -> tensor<2x16x8x8xf32> {
  %w = vg.constant dense<0.5> : tensor<16x3x7x7xf32>
  %0 = vg.conv %x, %w {pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<2x3x32x32xf32>, tensor<16x3x7x7xf32>) -> tensor<2x16x16x16xf32> loc("stem")
  %1 = vg.relu %0 : tensor<2x16x16x16xf32> loc("relu")
  %2 = vg.max_pool %1 {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x16x16x16xf32>) -> tensor<2x16x8x8xf32> loc("pool")
  return %2 : tensor<2x16x8x8xf32>
}

// -----

// Near misses: at batch 1 (the conv's rows split over the cores: a block's
// first pooled row would need the previous block's last conv row) and
// with a 2x2 window the pool stays a kernel of its own.
// CHECK-LABEL: func.func @conv_max_pool_batch1
// CHECK: call @k0_conv
// CHECK: call @k1_max_pool
func.func @conv_max_pool_batch1(%x: tensor<1x3x32x32xf32>) -> tensor<1x16x8x8xf32> {
  %w = vg.constant dense<0.5> : tensor<16x3x7x7xf32>
  %0 = vg.conv %x, %w {pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>, tensor<16x3x7x7xf32>) -> tensor<1x16x16x16xf32> loc("stem")
  %1 = vg.max_pool %0 {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x16x16x16xf32>) -> tensor<1x16x8x8xf32> loc("pool")
  return %1 : tensor<1x16x8x8xf32>
}
// CHECK-LABEL: func.func @conv_max_pool_2x2
// CHECK: call @k0_conv
// CHECK: call @k1_max_pool
func.func @conv_max_pool_2x2(%x: tensor<2x3x32x32xf32>) -> tensor<2x16x8x8xf32> {
  %w = vg.constant dense<0.5> : tensor<16x3x7x7xf32>
  %0 = vg.conv %x, %w {pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<2x3x32x32xf32>, tensor<16x3x7x7xf32>) -> tensor<2x16x16x16xf32> loc("stem")
  %1 = vg.max_pool %0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<2x16x16x16xf32>) -> tensor<2x16x8x8xf32> loc("pool")
  return %1 : tensor<2x16x8x8xf32>
}
