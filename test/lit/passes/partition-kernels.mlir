// RUN: vinci-opt %s --split-input-file --vinci-partition-kernels | FileCheck %s

// A matmul carries its epilogue (bias, activation): one Cube kernel; the
// weights are arguments, the graph keeps one call.
// CHECK-LABEL: func.func @matmul_epilogue
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<8x64xf32>)
// CHECK-DAG: [[W:%.+]] = vg.constant dense_resource<w> : tensor<64x32xf32>
// CHECK-DAG: [[B:%.+]] = vg.constant dense_resource<b> : tensor<32xf32>
// CHECK: [[R:%.+]] = call @k0_matmul([[X]], [[W]], [[B]])
// CHECK-NEXT: return [[R]]
// Each result is named node:index after the op and result that produce it
// (the .om's per-task outputs, vinci-run --dump).
// CHECK: func.func private @k0_matmul
// CHECK-SAME: attributes {vinci.kernel = "cube", vinci.output_nodes = ["act:0"], vinci.source_nodes = ["mm", "bias", "act"]}
// CHECK: vg.matmul
// CHECK-NEXT: vg.add
// CHECK-NEXT: vg.relu
// CHECK-NEXT: return
func.func @matmul_epilogue(%x: tensor<8x64xf32>) -> tensor<8x32xf32> {
  %w = vg.constant dense_resource<w> : tensor<64x32xf32>
  %b = vg.constant dense_resource<b> : tensor<32xf32>
  %0 = vg.matmul %x, %w : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32> loc("mm")
  %1 = vg.add %0, %b : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32> loc("bias")
  %2 = vg.relu %1 : tensor<8x32xf32> loc("act")
  return %2 : tensor<8x32xf32>
}

// -----

// A chain of elementwise ops is one Vector kernel; a scalar constant is
// cloned inside as an immediate, not passed, and leaves the graph.
// CHECK-LABEL: func.func @elementwise_chain
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<4x16xf32>, [[Y:%[a-z0-9_]+]]: tensor<4x16xf32>)
// CHECK-NOT: vg.constant
// CHECK: [[R:%.+]] = call @k0_add([[X]], [[Y]])
// CHECK: func.func private @k0_add
// CHECK-SAME: vinci.kernel = "vector"
// CHECK: vg.add
// CHECK-NEXT: vg.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT: vg.mul
// CHECK: vg.tanh
func.func @elementwise_chain(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %half = vg.constant dense<0.5> : tensor<f32>
  %0 = vg.add %x, %y : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = vg.mul %0, %half : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %2 = vg.tanh %1 : tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}

// -----

// A reduction ends a kernel: softmax is a Vector kernel of its own and the
// scale after it starts another.
// CHECK-LABEL: func.func @softmax_then_scale
// CHECK: [[S:%.+]] = call @k0_softmax
// CHECK: call @k1_mul([[S]])
// CHECK: func.func private @k0_softmax
// CHECK-SAME: vinci.kernel = "vector"
// CHECK: func.func private @k1_mul
func.func @softmax_then_scale(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %two = vg.constant dense<2.0> : tensor<f32>
  %0 = vg.softmax %x {axis = -1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = vg.mul %0, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}

// -----

// Near-miss: the matmul result has a second user, so the add may not absorb
// it (the value must reach GM anyway): two kernels, two results.
// CHECK-LABEL: func.func @shared_result_is_not_fused
// CHECK: [[M:%.+]] = call @k0_matmul
// CHECK: [[A:%.+]] = call @k1_add([[M]]
// CHECK: return [[M]], [[A]]
func.func @shared_result_is_not_fused(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>, %b: tensor<32xf32>)
    -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %0 = vg.matmul %x, %w : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  %1 = vg.add %0, %b : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  return %0, %1 : tensor<8x32xf32>, tensor<8x32xf32>
}

// -----

// A reshape is a view and stays in the graph; the op after it does not join
// the matmul's kernel through it.
// CHECK-LABEL: func.func @reshape_stays_in_graph
// CHECK: [[M:%.+]] = call @k0_matmul
// CHECK: [[V:%.+]] = vg.reshape [[M]]
// CHECK: call @k1_sigmoid([[V]])
func.func @reshape_stays_in_graph(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>) -> tensor<8x4x8xf32> {
  %0 = vg.matmul %x, %w : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  %1 = vg.reshape %0 {shape = array<i64: 8, 4, 8>} : (tensor<8x32xf32>) -> tensor<8x4x8xf32>
  %2 = vg.sigmoid %1 : tensor<8x4x8xf32>
  return %2 : tensor<8x4x8xf32>
}

// -----

// Two matmuls never share a kernel, even on the same activations (horizontal
// QKV fusion is a separate graph rewrite); data movement is a Vector kernel.
// CHECK-LABEL: func.func @two_matmuls_and_a_transpose
// CHECK: call @k0_matmul
// CHECK: call @k1_matmul
// CHECK: call @k2_transpose
// CHECK: func.func private @k0_matmul
// CHECK-SAME: "cube"
// CHECK: func.func private @k1_matmul
// CHECK-SAME: "cube"
// CHECK: func.func private @k2_transpose
// CHECK-SAME: "vector"
func.func @two_matmuls_and_a_transpose(%x: tensor<8x64xf32>, %wq: tensor<64x64xf32>, %wk: tensor<64x64xf32>)
    -> (tensor<8x64xf32>, tensor<64x8xf32>) {
  %q = vg.matmul %x, %wq : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
  %k = vg.matmul %x, %wk : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
  %kt = vg.transpose %k {perm = array<i64: 1, 0>} : (tensor<8x64xf32>) -> tensor<64x8xf32>
  return %q, %kt : tensor<8x64xf32>, tensor<64x8xf32>
}

// -----

// Attention's head merge: the transpose [0, 2, 1, 3] of a batched matmul's
// [1, H, S, D] result joins the Cube kernel as its store addressing; the
// reshape after it stays a view and nothing joins after the transpose.
// CHECK-LABEL: func.func @head_merge_joins_matmul
// CHECK: [[M:%.+]] = call @k0_matmul
// CHECK: [[V:%.+]] = vg.reshape [[M]]
// CHECK: call @k1_relu([[V]])
// CHECK: func.func private @k0_matmul
// CHECK-SAME: "cube"
// CHECK: vg.matmul
// CHECK-NEXT: vg.transpose
// CHECK-NEXT: return
func.func @head_merge_joins_matmul(%p: tensor<1x4x8x8xf32>, %v: tensor<1x4x8x16xf32>) -> tensor<1x8x64xf32> {
  %0 = vg.matmul %p, %v : (tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %1 = vg.transpose %0 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x8x16xf32>) -> tensor<1x8x4x16xf32>
  %2 = vg.reshape %1 {shape = array<i64: 1, 8, 64>} : (tensor<1x8x4x16xf32>) -> tensor<1x8x64xf32>
  %3 = vg.relu %2 : tensor<1x8x64xf32>
  return %3 : tensor<1x8x64xf32>
}

// -----

// Near misses: a batch dim of 2 before the heads (head h of batch b is not
// at an affine offset of the flat batch index), a transpose of the last two
// dims, and a matmul whose 2-D weight folds the heads into its rows: each
// transpose stays a kernel of its own, and an op after a transpose never
// joins it.
// CHECK-LABEL: func.func @head_merge_near_misses
// CHECK: call @k0_matmul
// CHECK-NEXT: call @k1_transpose
// CHECK: call @k2_matmul
// CHECK-NEXT: call @k3_transpose
// CHECK: call @k4_matmul
// CHECK-NEXT: call @k5_transpose
// CHECK-NEXT: call @k6_relu
func.func @head_merge_near_misses(%p2: tensor<2x4x8x8xf32>, %v2: tensor<2x4x8x16xf32>,
                                  %p: tensor<1x4x8x8xf32>, %v: tensor<1x4x8x16xf32>, %w: tensor<8x16xf32>)
    -> (tensor<2x8x4x16xf32>, tensor<1x4x16x8xf32>, tensor<1x8x4x16xf32>) {
  %0 = vg.matmul %p2, %v2 : (tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  %1 = vg.transpose %0 {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x8x16xf32>) -> tensor<2x8x4x16xf32>
  %2 = vg.matmul %p, %v : (tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %3 = vg.transpose %2 {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x4x8x16xf32>) -> tensor<1x4x16x8xf32>
  %4 = vg.matmul %p, %w : (tensor<1x4x8x8xf32>, tensor<8x16xf32>) -> tensor<1x4x8x16xf32>
  %5 = vg.transpose %4 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x8x16xf32>) -> tensor<1x8x4x16xf32>
  %6 = vg.relu %5 : tensor<1x8x4x16xf32>
  return %1, %3, %6 : tensor<2x8x4x16xf32>, tensor<1x4x16x8xf32>, tensor<1x8x4x16xf32>
}

// -----

// The fused QKV projection's head split: matmul + bias, reshape of the last
// dim [1, 8, 96] -> [1, 8, 3, 32], transpose [0, 2, 1, 3] to [1, 3, 8, 32].
// The reshape and the transpose join the Cube kernel as its store
// addressing (no transpose kernel); the split of the heads stays a view.
// CHECK-LABEL: func.func @head_split_joins_matmul
// CHECK: [[QKV:%.+]] = call @k0_matmul(%{{.+}}, %{{.+}}, %{{.+}})
// CHECK-NEXT: [[P:%.+]]:3 = vg.split [[QKV]]
// CHECK-NEXT: call @k1_add([[P]]#0, [[P]]#1, [[P]]#2)
// CHECK: func.func private @k0_matmul
// CHECK-SAME: -> tensor<1x3x8x32xf32>
// CHECK-SAME: "cube"
// CHECK: [[MM:%.+]] = vg.matmul
// CHECK-NEXT: [[BIAS:%.+]] = vg.add [[MM]]
// CHECK-NEXT: [[HEADS:%.+]] = vg.reshape [[BIAS]]
// CHECK-NEXT: [[T:%.+]] = vg.transpose [[HEADS]]
// CHECK-NEXT: return [[T]]
func.func @head_split_joins_matmul(%x: tensor<1x8x64xf32>, %w: tensor<64x96xf32>, %b: tensor<96xf32>)
    -> tensor<1x1x8x32xf32> {
  %0 = vg.matmul %x, %w : (tensor<1x8x64xf32>, tensor<64x96xf32>) -> tensor<1x8x96xf32>
  %1 = vg.add %0, %b : (tensor<1x8x96xf32>, tensor<96xf32>) -> tensor<1x8x96xf32>
  %2 = vg.reshape %1 {shape = array<i64: 1, 8, 3, 32>} : (tensor<1x8x96xf32>) -> tensor<1x8x3x32xf32>
  %3 = vg.transpose %2 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x3x32xf32>) -> tensor<1x3x8x32xf32>
  %q, %k, %v = vg.split %3 {axis = 1 : i64, split = array<i64: 1, 1, 1>} : (tensor<1x3x8x32xf32>) -> (tensor<1x1x8x32xf32>, tensor<1x1x8x32xf32>, tensor<1x1x8x32xf32>)
  %qk = vg.add %q, %k : (tensor<1x1x8x32xf32>, tensor<1x1x8x32xf32>) -> tensor<1x1x8x32xf32>
  %qkv = vg.add %qk, %v : (tensor<1x1x8x32xf32>, tensor<1x1x8x32xf32>) -> tensor<1x1x8x32xf32>
  return %qkv : tensor<1x1x8x32xf32>
}

// -----

// Near misses, each transpose a kernel of its own: a head dim of 24 (not a
// multiple of 16), a leading dim of 2 before S, a transpose that swaps the
// last two dims, and a head dim of 48 (a multiple of 16 that does not
// divide the 128-column N tile).
// CHECK-LABEL: func.func @head_split_near_misses
// CHECK: call @k0_matmul
// CHECK-NEXT: vg.reshape
// CHECK-NEXT: call @k1_transpose
// CHECK: call @k2_matmul
// CHECK-NEXT: vg.reshape
// CHECK-NEXT: call @k3_transpose
// CHECK: call @k4_matmul
// CHECK-NEXT: vg.reshape
// CHECK-NEXT: call @k5_transpose
// CHECK: call @k6_matmul
// CHECK-NEXT: vg.reshape
// CHECK-NEXT: call @k7_transpose
func.func @head_split_near_misses(%x: tensor<1x8x64xf32>, %w72: tensor<64x72xf32>,
                                  %x2: tensor<2x8x64xf32>, %w: tensor<64x96xf32>, %w144: tensor<64x144xf32>)
    -> (tensor<1x3x8x24xf32>, tensor<2x3x8x32xf32>, tensor<1x8x32x3xf32>, tensor<1x3x8x48xf32>) {
  %0 = vg.matmul %x, %w72 : (tensor<1x8x64xf32>, tensor<64x72xf32>) -> tensor<1x8x72xf32>
  %1 = vg.reshape %0 {shape = array<i64: 1, 8, 3, 24>} : (tensor<1x8x72xf32>) -> tensor<1x8x3x24xf32>
  %2 = vg.transpose %1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x3x24xf32>) -> tensor<1x3x8x24xf32>
  %3 = vg.matmul %x2, %w : (tensor<2x8x64xf32>, tensor<64x96xf32>) -> tensor<2x8x96xf32>
  %4 = vg.reshape %3 {shape = array<i64: 2, 8, 3, 32>} : (tensor<2x8x96xf32>) -> tensor<2x8x3x32xf32>
  %5 = vg.transpose %4 {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x8x3x32xf32>) -> tensor<2x3x8x32xf32>
  %6 = vg.matmul %x, %w : (tensor<1x8x64xf32>, tensor<64x96xf32>) -> tensor<1x8x96xf32>
  %7 = vg.reshape %6 {shape = array<i64: 1, 8, 3, 32>} : (tensor<1x8x96xf32>) -> tensor<1x8x3x32xf32>
  %8 = vg.transpose %7 {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x8x3x32xf32>) -> tensor<1x8x32x3xf32>
  %9 = vg.matmul %x, %w144 : (tensor<1x8x64xf32>, tensor<64x144xf32>) -> tensor<1x8x144xf32>
  %10 = vg.reshape %9 {shape = array<i64: 1, 8, 3, 48>} : (tensor<1x8x144xf32>) -> tensor<1x8x3x48xf32>
  %11 = vg.transpose %10 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x3x48xf32>) -> tensor<1x3x8x48xf32>
  return %2, %5, %8, %11 : tensor<1x3x8x24xf32>, tensor<2x3x8x32xf32>, tensor<1x8x32x3xf32>, tensor<1x3x8x48xf32>
}

// -----

// A row op reads every operand from GM: a norm scale small enough to be an
// immediate (InstanceNormalization's unit scale over 3 spatial elements) is
// still a kernel argument.
// CHECK-LABEL: func.func @small_norm_scale
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x2x1x3xf32>)
// CHECK: [[ONES:%.+]] = vg.constant dense<1.000000e+00> : tensor<1x3xf32>
// CHECK: call @k0_layer_norm([[X]], [[ONES]])
// CHECK: func.func private @k0_layer_norm
// CHECK-NOT: vg.constant
// CHECK: vg.layer_norm
func.func @small_norm_scale(%x: tensor<1x2x1x3xf32>) -> tensor<1x2x1x3xf32> {
  %ones = vg.constant dense<1.0> : tensor<1x3xf32>
  %0 = vg.layer_norm %x, %ones {axis = 2 : i64} : (tensor<1x2x1x3xf32>, tensor<1x3xf32>) -> tensor<1x2x1x3xf32>
  return %0 : tensor<1x2x1x3xf32>
}

// -----

// An elementwise op takes one-element constants as immediates only: a small
// mask (Trilu's, 3 x 3) is an argument, the scalar stays inside.
// CHECK-LABEL: func.func @small_mask
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<2x3x3xf32>)
// CHECK: [[MASK:%.+]] = vg.constant dense<{{.*}}> : tensor<3x3xf32>
// CHECK: call @k0_mul([[X]], [[MASK]])
// CHECK: func.func private @k0_mul
// CHECK-NOT: vg.constant dense<{{\[}}
// CHECK: vg.constant dense<2.000000e+00> : tensor<f32>
func.func @small_mask(%x: tensor<2x3x3xf32>) -> tensor<2x3x3xf32> {
  %mask = vg.constant dense<[[1.0, 1.0, 1.0], [0.0, 1.0, 1.0], [0.0, 0.0, 1.0]]> : tensor<3x3xf32>
  %two = vg.constant dense<2.0> : tensor<f32>
  %0 = vg.mul %x, %mask : (tensor<2x3x3xf32>, tensor<3x3xf32>) -> tensor<2x3x3xf32>
  %1 = vg.mul %0, %two : (tensor<2x3x3xf32>, tensor<f32>) -> tensor<2x3x3xf32>
  return %1 : tensor<2x3x3xf32>
}
