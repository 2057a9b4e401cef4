// RUN: vinci-opt %s --split-input-file --vinci-partition-kernels | FileCheck %s
// RUN: vinci-opt %s --split-input-file --vinci-partition-kernels=cube-epilogues=false | FileCheck %s --check-prefix=NO-EPI
// RUN: vinci-opt %s --split-input-file --vinci-partition-kernels=elementwise-chains=false | FileCheck %s --check-prefix=NO-CHAIN
// RUN: vinci-opt %s --split-input-file --vinci-partition-kernels=attention=false | FileCheck %s --check-prefix=NO-ATT

// BERT's attention scores: the scale and the [1, 1, 1, S] padding mask (a
// row of the scores' last dim) are the QK^T matmul's epilogue.
// CHECK-LABEL: func.func @row_mask
// CHECK: call @k0_matmul
// CHECK: call @k1_softmax
// CHECK: func.func private @k0_matmul{{.+}}vinci.source_nodes = ["qk", "scale", "mask"]
// Switched off (CubeEpilogueFusion off), the scale and the mask add are a
// Vector kernel after the matmul.
// NO-EPI-LABEL: func.func @row_mask
// NO-EPI: call @k0_matmul
// NO-EPI: call @k1_div
// NO-EPI: call @k2_softmax
// NO-EPI: func.func private @k1_div{{.+}}vinci.source_nodes = ["scale", "mask"]
func.func @row_mask(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %m: tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32> {
  %s = vg.constant dense<2.0> : tensor<f32>
  %0 = vg.matmul %q, %k {transpose_b = true} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x8xf32> loc("qk")
  %1 = vg.div %0, %s : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32> loc("scale")
  %2 = vg.add %1, %m : (tensor<1x2x8x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x2x8x8xf32> loc("mask")
  %3 = vg.softmax %2 : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> loc("softmax")
  return %3 : tensor<1x2x8x8xf32>
}

// -----

// GPT-2's causal mask [1, 1, S, S] broadcasts over the heads: one matrix
// of the scores' last two dims, which the Cube epilogue reads per tile at
// the tile's rows and columns for every head, so the scale and the mask add
// are both the QK^T matmul's epilogue.
// CHECK-LABEL: func.func @causal_mask
// CHECK: call @k0_matmul
// CHECK: call @k1_softmax
// CHECK: func.func private @k0_matmul{{.+}}vinci.source_nodes = ["qk", "scale", "mask"]
// Without elementwise chains nothing changes here (the epilogue is no chain).
// NO-CHAIN-LABEL: func.func @causal_mask
// NO-CHAIN: call @k0_matmul
// NO-CHAIN: call @k1_softmax
func.func @causal_mask(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %m: tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %s = vg.constant dense<2.0> : tensor<f32>
  %0 = vg.matmul %q, %k {transpose_b = true} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x8xf32> loc("qk")
  %1 = vg.div %0, %s : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32> loc("scale")
  %2 = vg.add %1, %m : (tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32> loc("mask")
  %3 = vg.softmax %2 : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> loc("softmax")
  return %3 : tensor<1x2x8x8xf32>
}

// -----

// Near-miss: a [1, H, 1, S] mask (a row per head) is neither a row of the
// last dim nor one matrix for every batch: a Vector kernel of its own.
// CHECK-LABEL: func.func @per_head_row_mask
// CHECK: call @k0_matmul
// CHECK: call @k1_add
// CHECK: func.func private @k0_matmul{{.+}}vinci.source_nodes = ["qk", "scale"]
// CHECK: func.func private @k1_add{{.+}}vinci.source_nodes = ["mask"]
func.func @per_head_row_mask(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %m: tensor<1x2x1x8xf32>) -> tensor<1x2x8x8xf32> {
  %s = vg.constant dense<2.0> : tensor<f32>
  %0 = vg.matmul %q, %k {transpose_b = true} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x8xf32> loc("qk")
  %1 = vg.div %0, %s : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32> loc("scale")
  %2 = vg.add %1, %m : (tensor<1x2x8x8xf32>, tensor<1x2x1x8xf32>) -> tensor<1x2x8x8xf32> loc("mask")
  %3 = vg.softmax %2 : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> loc("softmax")
  return %3 : tensor<1x2x8x8xf32>
}

// -----

// ElementwiseFusion off: a chain of elementwise ops is one kernel per op.
// CHECK-LABEL: func.func @chain
// CHECK: call @k0_mul
// CHECK-NOT: call
// CHECK: return
// NO-CHAIN-LABEL: func.func @chain
// NO-CHAIN: call @k0_mul
// NO-CHAIN: call @k1_relu
func.func @chain(%x: tensor<8x64xf32>, %y: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = vg.mul %x, %y : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %1 = vg.relu %0 : tensor<8x64xf32>
  return %1 : tensor<8x64xf32>
}

// -----

// A softmax over the last axis of at most 128 columns (a multiple of 16)
// ends the QK^T kernel's epilogue: every output tile holds whole rows, so
// the scores never reach GM. What follows the softmax is a kernel of its own.
// CHECK-LABEL: func.func @softmax_epilogue
// CHECK: %[[P:.+]] = call @k0_matmul
// CHECK: call @k1_mul(%[[P]]
// CHECK: func.func private @k0_matmul{{.+}}vinci.source_nodes = ["qk", "scale", "mask", "softmax"]
// CubeEpilogueFusion off: the scale and the mask are a Vector kernel that
// the softmax joins as its prologue (SoftmaxPrologueFusion).
// NO-EPI-LABEL: func.func @softmax_epilogue
// NO-EPI: call @k0_matmul
// NO-EPI-NEXT: call @k1_div
// NO-EPI-NEXT: call @k2_mul
// NO-EPI: func.func private @k1_div{{.+}}vinci.source_nodes = ["scale", "mask", "softmax"]
func.func @softmax_epilogue(%q: tensor<1x2x16x4xf32>, %k: tensor<1x2x16x4xf32>, %m: tensor<1x1x1x16xf32>, %w: tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32> {
  %s = vg.constant dense<2.0> : tensor<f32>
  %0 = vg.matmul %q, %k {transpose_b = true} : (tensor<1x2x16x4xf32>, tensor<1x2x16x4xf32>) -> tensor<1x2x16x16xf32> loc("qk")
  %1 = vg.div %0, %s : (tensor<1x2x16x16xf32>, tensor<f32>) -> tensor<1x2x16x16xf32> loc("scale")
  %2 = vg.add %1, %m : (tensor<1x2x16x16xf32>, tensor<1x1x1x16xf32>) -> tensor<1x2x16x16xf32> loc("mask")
  %3 = vg.softmax %2 : (tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32> loc("softmax")
  %4 = vg.mul %3, %w : (tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32> loc("after")
  return %4 : tensor<1x2x16x16xf32>
}

// -----

// Near-misses: a softmax over a middle axis, over rows wider than one N
// tile (256 columns), and a log_softmax stay Vector kernels.
// CHECK-LABEL: func.func @softmax_not_epilogue
// CHECK: call @k0_matmul
// CHECK: call @k1_softmax
// CHECK: call @k2_matmul
// CHECK: call @k3_softmax
// CHECK: call @k4_matmul
// CHECK: call @k5_log_softmax
func.func @softmax_not_epilogue(%a: tensor<32x4xf32>, %b: tensor<4x32xf32>, %c: tensor<4x256xf32>) -> (tensor<32x32xf32>, tensor<32x256xf32>, tensor<32x32xf32>) {
  %0 = vg.matmul %a, %b : (tensor<32x4xf32>, tensor<4x32xf32>) -> tensor<32x32xf32>
  %1 = vg.softmax %0 {axis = 0 : i64} : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %2 = vg.matmul %a, %c : (tensor<32x4xf32>, tensor<4x256xf32>) -> tensor<32x256xf32>
  %3 = vg.softmax %2 : (tensor<32x256xf32>) -> tensor<32x256xf32>
  %4 = vg.matmul %a, %b : (tensor<32x4xf32>, tensor<4x32xf32>) -> tensor<32x32xf32>
  %5 = vg.log_softmax %4 : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %1, %3, %5 : tensor<32x32xf32>, tensor<32x256xf32>, tensor<32x32xf32>
}

// -----

// Attention with the probabilities on chip: PV joins the QK^T kernel whose
// softmax epilogue produced its A operand, and the head merge after it is
// the kernel's store: one kernel for softmax(QK^T / s + mask) x V.
// CHECK-LABEL: func.func @attention
// CHECK: %[[O:.+]] = call @k0_matmul
// CHECK-NEXT: return %[[O]]
// CHECK: func.func private @k0_matmul{{.+}}vinci.source_nodes = ["qk", "scale", "mask", "softmax", "pv", "merge"]
// NO-EPI-LABEL: func.func @attention
// NO-EPI: call @k0_matmul
// NO-EPI-NEXT: call @k1_div
// NO-EPI-NEXT: call @k2_matmul
// NO-EPI-NEXT: call @k3_transpose
// AttentionFusion off: the softmax is a Vector kernel, PV a Cube kernel
// with the head merge as its store.
// NO-ATT-LABEL: func.func @attention
// NO-ATT: call @k0_matmul
// NO-ATT-NEXT: call @k1_softmax
// NO-ATT-NEXT: call @k2_matmul
// NO-ATT-NEXT: return
// NO-ATT: func.func private @k0_matmul{{.+}}vinci.source_nodes = ["qk", "scale", "mask"]
// NO-ATT: func.func private @k2_matmul{{.+}}vinci.source_nodes = ["pv", "merge"]
func.func @attention(%q: tensor<1x2x16x16xf32>, %k: tensor<1x2x16x16xf32>, %v: tensor<1x2x16x16xf32>, %m: tensor<1x1x1x16xf32>) -> tensor<1x16x2x16xf32> {
  %s = vg.constant dense<4.0> : tensor<f32>
  %0 = vg.matmul %q, %k {transpose_b = true} : (tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32> loc("qk")
  %1 = vg.div %0, %s : (tensor<1x2x16x16xf32>, tensor<f32>) -> tensor<1x2x16x16xf32> loc("scale")
  %2 = vg.add %1, %m : (tensor<1x2x16x16xf32>, tensor<1x1x1x16xf32>) -> tensor<1x2x16x16xf32> loc("mask")
  %3 = vg.softmax %2 : (tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32> loc("softmax")
  %4 = vg.matmul %3, %v : (tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32> loc("pv")
  %5 = vg.transpose %4 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x16x16xf32>) -> tensor<1x16x2x16xf32> loc("merge")
  return %5 : tensor<1x16x2x16xf32>
}

// -----

// Near-misses: probabilities that are also returned (they must reach GM),
// a transposed V, and an elementwise op after PV (the attention kernel takes
// only the head-merge store after its second matmul) leave PV, or what
// follows it, to kernels of their own.
// CHECK-LABEL: func.func @attention_not_fused
// CHECK: %[[P:.+]] = call @k0_matmul
// CHECK: call @k1_matmul(%[[P]]
// CHECK: %[[P2:.+]] = call @k2_matmul
// CHECK: call @k3_matmul(%[[P2]]
// CHECK: %[[O:.+]] = call @k4_matmul
// CHECK: call @k5_relu(%[[O]])
func.func @attention_not_fused(%q: tensor<1x2x16x16xf32>, %k: tensor<1x2x16x16xf32>, %v: tensor<1x2x16x16xf32>) -> (tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>) {
  %0 = vg.matmul %q, %k {transpose_b = true} : (tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %1 = vg.softmax %0 : (tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %2 = vg.matmul %1, %v : (tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %3 = vg.matmul %q, %k {transpose_b = true} : (tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %4 = vg.softmax %3 : (tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %5 = vg.matmul %4, %v {transpose_b = true} : (tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %6 = vg.matmul %q, %k {transpose_b = true} : (tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %7 = vg.softmax %6 : (tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %8 = vg.matmul %7, %v : (tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %9 = vg.relu %8 : tensor<1x2x16x16xf32>
  return %1, %2, %5, %9 : tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>
}

// -----

// Near-miss: under must_keep_origin_dtype an f32 matmul runs on the Vector
// unit (the 310P Cube takes no fp32), whose template has no softmax
// epilogue and no attention form: softmax and PV stay kernels of their own.
// CHECK-LABEL: func.func @attention_keeps_f32
// CHECK: %[[S:.+]] = call @k0_matmul
// CHECK: %[[P:.+]] = call @k1_softmax(%[[S]])
// CHECK: call @k2_matmul(%[[P]]
module attributes {vinci.precision_mode = "must_keep_origin_dtype"} {
func.func @attention_keeps_f32(%q: tensor<1x2x16x16xf32>, %k: tensor<1x2x16x16xf32>, %v: tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32> {
  %0 = vg.matmul %q, %k {transpose_b = true} : (tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %1 = vg.softmax %0 : (tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %2 = vg.matmul %1, %v : (tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  return %2 : tensor<1x2x16x16xf32>
}
}
