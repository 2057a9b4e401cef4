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
