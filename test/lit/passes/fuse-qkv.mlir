// RUN: vinci-opt %s --split-input-file --vinci-fuse-qkv | FileCheck %s

// Q, K and V as an exported BERT has them: x @ W + b with [K, N] weight
// blobs and [N] biases. One matmul over [K, 3N], one bias add, three slices.
// CHECK-LABEL: func.func @qkv_bias
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x4x2xf32>)
// CHECK-NEXT: [[W:%.+]] = vg.constant dense_resource<wq.wk.wv.fused> : tensor<2x6xf32>
// CHECK-NEXT: [[Y:%.+]] = vg.matmul [[X]], [[W]] : (tensor<1x4x2xf32>, tensor<2x6xf32>) -> tensor<1x4x6xf32>
// CHECK-NEXT: [[B:%.+]] = vg.constant dense_resource<wq.wk.wv.fused_bias> : tensor<6xf32>
// CHECK-NEXT: [[YB:%.+]] = vg.add [[Y]], [[B]] : (tensor<1x4x6xf32>, tensor<6xf32>) -> tensor<1x4x6xf32>
// CHECK-NEXT: [[Q:%.+]] = vg.slice [[YB]] {axes = array<i64: 2>, ends = array<i64: 2>, starts = array<i64: 0>, steps = array<i64: 1>} : (tensor<1x4x6xf32>) -> tensor<1x4x2xf32>
// CHECK-NEXT: [[K:%.+]] = vg.slice [[YB]] {axes = array<i64: 2>, ends = array<i64: 4>, starts = array<i64: 2>, steps = array<i64: 1>}
// CHECK-NEXT: [[V:%.+]] = vg.slice [[YB]] {axes = array<i64: 2>, ends = array<i64: 6>, starts = array<i64: 4>, steps = array<i64: 1>}
// CHECK-NOT: vg.matmul
// CHECK: return [[Q]], [[K]], [[V]]
// The weights join row by row ([1 2 | 5 6 | 9 10], [3 4 | 7 8 | 11 12]),
// the biases end to end; the separate blobs are gone.
// CHECK: dialect_resources
// CHECK-NOT: wq:
// CHECK-DAG: wq.wk.wv.fused_bias: "0x{{[0-9A-F]+}}0000803F000000400000404000008040000000410000C040"
// CHECK-DAG: wq.wk.wv.fused: "0x{{[0-9A-F]+}}0000803F000000400000A0400000C040000010410000204100004040000080400000E040000000410000304100004041"
func.func @qkv_bias(%x: tensor<1x4x2xf32>) -> (tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>) {
  %wq = vg.constant dense_resource<wq> : tensor<2x2xf32>
  %wk = vg.constant dense_resource<wk> : tensor<2x2xf32>
  %wv = vg.constant dense_resource<wv> : tensor<2x2xf32>
  %bq = vg.constant dense_resource<bq> : tensor<2xf32>
  %bk = vg.constant dense_resource<bk> : tensor<2xf32>
  %bv = vg.constant dense_resource<bv> : tensor<2xf32>
  %q = vg.matmul %x, %wq : (tensor<1x4x2xf32>, tensor<2x2xf32>) -> tensor<1x4x2xf32>
  %qb = vg.add %bq, %q : (tensor<2xf32>, tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  %k = vg.matmul %x, %wk : (tensor<1x4x2xf32>, tensor<2x2xf32>) -> tensor<1x4x2xf32>
  %kb = vg.add %k, %bk : (tensor<1x4x2xf32>, tensor<2xf32>) -> tensor<1x4x2xf32>
  %v = vg.matmul %x, %wv : (tensor<1x4x2xf32>, tensor<2x2xf32>) -> tensor<1x4x2xf32>
  %vb = vg.add %bv, %v : (tensor<2xf32>, tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  return %qb, %kb, %vb : tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      wq: "0x040000000000803F000000400000404000008040",
      wk: "0x040000000000A0400000C0400000E04000000041",
      wv: "0x0400000000001041000020410000304100004041",
      bq: "0x040000000000803F00000040",
      bk: "0x040000000000404000008040",
      bv: "0x04000000000000410000C040"
    }
  }
#-}

// -----

// Gemm with transB (torch Linear without a transpose in the graph): [N, K]
// weights join end to end; dense weights give a dense constant. Widths
// differ (3 and 1).
// CHECK-LABEL: func.func @gemm_transposed
// CHECK: [[W:%.+]] = vg.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00], [7.000000e+00, 8.000000e+00]]> : tensor<4x2xf32>
// CHECK-NEXT: [[Y:%.+]] = vg.matmul %{{.+}}, [[W]] {transpose_b = true} : (tensor<8x2xf32>, tensor<4x2xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: [[A:%.+]] = vg.slice [[Y]] {axes = array<i64: 1>, ends = array<i64: 3>, starts = array<i64: 0>, steps = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<8x3xf32>
// CHECK-NEXT: [[B:%.+]] = vg.slice [[Y]] {axes = array<i64: 1>, ends = array<i64: 4>, starts = array<i64: 3>, steps = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<8x1xf32>
// CHECK-NEXT: return [[A]], [[B]]
func.func @gemm_transposed(%x: tensor<8x2xf32>) -> (tensor<8x3xf32>, tensor<8x1xf32>) {
  %wa = vg.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %wb = vg.constant dense<[[7.0, 8.0]]> : tensor<1x2xf32>
  %a = vg.matmul %x, %wa {transpose_b = true} : (tensor<8x2xf32>, tensor<3x2xf32>) -> tensor<8x3xf32>
  %b = vg.matmul %x, %wb {transpose_b = true} : (tensor<8x2xf32>, tensor<1x2xf32>) -> tensor<8x1xf32>
  return %a, %b : tensor<8x3xf32>, tensor<8x1xf32>
}

// -----

// Only one projection has a bias: the matmuls fuse, the bias add stays on
// its slice (a zero bias for the other would cost a pass over its output).
// CHECK-LABEL: func.func @partial_bias
// CHECK: [[Y:%.+]] = vg.matmul %{{.+}}, %{{.+}} : (tensor<8x2xf32>, tensor<2x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: [[A:%.+]] = vg.slice [[Y]] {{.+}} -> tensor<8x2xf32>
// CHECK-NEXT: [[B:%.+]] = vg.slice [[Y]] {{.+}} -> tensor<8x2xf32>
// CHECK-NEXT: [[AB:%.+]] = vg.add [[A]], %{{.+}} : (tensor<8x2xf32>, tensor<2xf32>)
// CHECK-NEXT: return [[AB]], [[B]]
func.func @partial_bias(%x: tensor<8x2xf32>) -> (tensor<8x2xf32>, tensor<8x2xf32>) {
  %wa = vg.constant dense<1.0> : tensor<2x2xf32>
  %wb = vg.constant dense<2.0> : tensor<2x2xf32>
  %ba = vg.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %a = vg.matmul %x, %wa : (tensor<8x2xf32>, tensor<2x2xf32>) -> tensor<8x2xf32>
  %ab = vg.add %a, %ba : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8x2xf32>
  %b = vg.matmul %x, %wb : (tensor<8x2xf32>, tensor<2x2xf32>) -> tensor<8x2xf32>
  return %ab, %b : tensor<8x2xf32>, tensor<8x2xf32>
}

// -----

// A matmul result with an extra user besides its bias add: the biases stay
// separate (the raw product is needed), the matmuls still fuse.
// CHECK-LABEL: func.func @extra_user
// CHECK: [[Y:%.+]] = vg.matmul {{.+}} -> tensor<8x4xf32>
// CHECK-NOT: vg.matmul
// CHECK: [[A:%.+]] = vg.slice [[Y]]
// CHECK: [[B:%.+]] = vg.slice [[Y]]
// CHECK: vg.add [[A]]
// CHECK: vg.add [[B]]
// CHECK: vg.relu [[A]]
func.func @extra_user(%x: tensor<8x2xf32>) -> (tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>) {
  %wa = vg.constant dense<1.0> : tensor<2x2xf32>
  %wb = vg.constant dense<2.0> : tensor<2x2xf32>
  %ba = vg.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %bb = vg.constant dense<[1.5, 1.25]> : tensor<2xf32>
  %a = vg.matmul %x, %wa : (tensor<8x2xf32>, tensor<2x2xf32>) -> tensor<8x2xf32>
  %ab = vg.add %a, %ba : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8x2xf32>
  %b = vg.matmul %x, %wb : (tensor<8x2xf32>, tensor<2x2xf32>) -> tensor<8x2xf32>
  %bbb = vg.add %b, %bb : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8x2xf32>
  %r = vg.relu %a : tensor<8x2xf32>
  return %ab, %bbb, %r : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>
}

// -----

// Near-miss: different left operands.
// CHECK-LABEL: func.func @different_inputs
// CHECK-NOT: vg.slice
// CHECK: vg.matmul %arg0
// CHECK: vg.matmul %arg1
func.func @different_inputs(%x: tensor<8x2xf32>, %y: tensor<8x2xf32>) -> (tensor<8x2xf32>, tensor<8x2xf32>) {
  %wa = vg.constant dense<1.0> : tensor<2x2xf32>
  %wb = vg.constant dense<2.0> : tensor<2x2xf32>
  %a = vg.matmul %x, %wa : (tensor<8x2xf32>, tensor<2x2xf32>) -> tensor<8x2xf32>
  %b = vg.matmul %y, %wb : (tensor<8x2xf32>, tensor<2x2xf32>) -> tensor<8x2xf32>
  return %a, %b : tensor<8x2xf32>, tensor<8x2xf32>
}

// -----

// Near-miss: one weight is not a constant (attention's x @ K^T); the two
// constant ones still fuse with each other.
// CHECK-LABEL: func.func @non_constant_weight
// CHECK: vg.matmul %arg0, %arg1
// CHECK-SAME: -> tensor<8x2xf32>
// CHECK: vg.matmul %arg0, %{{.+}} : (tensor<8x2xf32>, tensor<2x4xf32>) -> tensor<8x4xf32>
// CHECK-COUNT-2: vg.slice
// CHECK-NOT: vg.matmul
func.func @non_constant_weight(%x: tensor<8x2xf32>, %w: tensor<2x2xf32>) -> (tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>) {
  %wa = vg.constant dense<1.0> : tensor<2x2xf32>
  %wb = vg.constant dense<2.0> : tensor<2x2xf32>
  %n = vg.matmul %x, %w : (tensor<8x2xf32>, tensor<2x2xf32>) -> tensor<8x2xf32>
  %a = vg.matmul %x, %wa : (tensor<8x2xf32>, tensor<2x2xf32>) -> tensor<8x2xf32>
  %b = vg.matmul %x, %wb : (tensor<8x2xf32>, tensor<2x2xf32>) -> tensor<8x2xf32>
  return %n, %a, %b : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>
}

// -----

// Near-miss: different transposes of the weights (one [K, N], one [N, K])
// and a single matmul are left alone.
// CHECK-LABEL: func.func @mixed_transposes
// CHECK-NOT: vg.slice
// CHECK: vg.matmul %arg0, %{{.+}} :
// CHECK: vg.matmul %arg0, %{{.+}} {transpose_b = true}
func.func @mixed_transposes(%x: tensor<8x2xf32>) -> (tensor<8x2xf32>, tensor<8x2xf32>) {
  %wa = vg.constant dense<1.0> : tensor<2x2xf32>
  %wb = vg.constant dense<2.0> : tensor<2x2xf32>
  %a = vg.matmul %x, %wa : (tensor<8x2xf32>, tensor<2x2xf32>) -> tensor<8x2xf32>
  %b = vg.matmul %x, %wb {transpose_b = true} : (tensor<8x2xf32>, tensor<2x2xf32>) -> tensor<8x2xf32>
  return %a, %b : tensor<8x2xf32>, tensor<8x2xf32>
}

// -----

// Near-miss: batched (3-D) constant weights are not projections.
// CHECK-LABEL: func.func @batched_weights
// CHECK-NOT: vg.slice
// CHECK-COUNT-2: vg.matmul
func.func @batched_weights(%x: tensor<2x8x2xf32>) -> (tensor<2x8x2xf32>, tensor<2x8x2xf32>) {
  %wa = vg.constant dense<1.0> : tensor<2x2x2xf32>
  %wb = vg.constant dense<2.0> : tensor<2x2x2xf32>
  %a = vg.matmul %x, %wa : (tensor<2x8x2xf32>, tensor<2x2x2xf32>) -> tensor<2x8x2xf32>
  %b = vg.matmul %x, %wb : (tensor<2x8x2xf32>, tensor<2x2x2xf32>) -> tensor<2x8x2xf32>
  return %a, %b : tensor<2x8x2xf32>, tensor<2x8x2xf32>
}

// -----

// Each projection then splits heads (reshape [.., h, D] + transpose, as
// BERT's Q, K, V do): the transpose moves before the split, one for all
// projections, and one vg.split hands each projection its heads.
// CHECK-LABEL: func.func @head_split
// CHECK: [[Y:%.+]] = vg.matmul {{.+}} -> tensor<1x8x8xf32>
// CHECK-NEXT: [[H:%.+]] = vg.reshape [[Y]] {shape = array<i64: 1, 8, 4, 2>} : (tensor<1x8x8xf32>) -> tensor<1x8x4x2xf32>
// CHECK-NEXT: [[T:%.+]] = vg.transpose [[H]] {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x2xf32>) -> tensor<1x4x8x2xf32>
// CHECK-NEXT: [[S:%.+]]:2 = vg.split [[T]] {axis = 1 : i64, split = array<i64: 2, 2>} : (tensor<1x4x8x2xf32>) -> (tensor<1x2x8x2xf32>, tensor<1x2x8x2xf32>)
// CHECK-NOT: vg.transpose
// CHECK-NOT: vg.slice
// CHECK: return [[S]]#0, [[S]]#1
func.func @head_split(%x: tensor<1x8x4xf32>) -> (tensor<1x2x8x2xf32>, tensor<1x2x8x2xf32>) {
  %wq = vg.constant dense<1.0> : tensor<4x4xf32>
  %wk = vg.constant dense<2.0> : tensor<4x4xf32>
  %q = vg.matmul %x, %wq : (tensor<1x8x4xf32>, tensor<4x4xf32>) -> tensor<1x8x4xf32>
  %qr = vg.reshape %q {shape = array<i64: 1, 8, 2, 2>} : (tensor<1x8x4xf32>) -> tensor<1x8x2x2xf32>
  %qt = vg.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x2xf32>) -> tensor<1x2x8x2xf32>
  %k = vg.matmul %x, %wk : (tensor<1x8x4xf32>, tensor<4x4xf32>) -> tensor<1x8x4xf32>
  %kr = vg.reshape %k {shape = array<i64: 1, 8, 2, 2>} : (tensor<1x8x4xf32>) -> tensor<1x8x2x2xf32>
  %kt = vg.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x2xf32>) -> tensor<1x2x8x2xf32>
  return %qt, %kt : tensor<1x2x8x2xf32>, tensor<1x2x8x2xf32>
}

// -----

// Near-miss for the head split: the projections split heads differently
// (permutations differ), so each keeps its own transpose after its slice.
// CHECK-LABEL: func.func @head_split_mismatch
// CHECK: [[Y:%.+]] = vg.matmul {{.+}} -> tensor<1x8x8xf32>
// CHECK-NEXT: [[A:%.+]] = vg.slice [[Y]] {{.+}} -> tensor<1x8x4xf32>
// CHECK-NEXT: [[B:%.+]] = vg.slice [[Y]] {{.+}} -> tensor<1x8x4xf32>
// CHECK: vg.reshape [[A]]
// CHECK: vg.transpose {{.+}} {perm = array<i64: 0, 2, 1, 3>}
// CHECK: vg.reshape [[B]]
// CHECK: vg.transpose {{.+}} {perm = array<i64: 2, 0, 1, 3>}
func.func @head_split_mismatch(%x: tensor<1x8x4xf32>) -> (tensor<1x2x8x2xf32>, tensor<2x1x8x2xf32>) {
  %wq = vg.constant dense<1.0> : tensor<4x4xf32>
  %wk = vg.constant dense<2.0> : tensor<4x4xf32>
  %q = vg.matmul %x, %wq : (tensor<1x8x4xf32>, tensor<4x4xf32>) -> tensor<1x8x4xf32>
  %qr = vg.reshape %q {shape = array<i64: 1, 8, 2, 2>} : (tensor<1x8x4xf32>) -> tensor<1x8x2x2xf32>
  %qt = vg.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x2xf32>) -> tensor<1x2x8x2xf32>
  %k = vg.matmul %x, %wk : (tensor<1x8x4xf32>, tensor<4x4xf32>) -> tensor<1x8x4xf32>
  %kr = vg.reshape %k {shape = array<i64: 1, 8, 2, 2>} : (tensor<1x8x4xf32>) -> tensor<1x8x2x2xf32>
  %kt = vg.transpose %kr {perm = array<i64: 2, 0, 1, 3>} : (tensor<1x8x2x2xf32>) -> tensor<2x1x8x2xf32>
  return %qt, %kt : tensor<1x2x8x2xf32>, tensor<2x1x8x2xf32>
}

// -----

// Q and K split heads, V is used whole: Q and K share the hoisted transpose
// and take their heads with slices; V keeps its last-dim slice.
// CHECK-LABEL: func.func @head_split_partial
// CHECK: [[Y:%.+]] = vg.matmul {{.+}} -> tensor<1x8x12xf32>
// CHECK: [[T:%.+]] = vg.transpose {{.+}} -> tensor<1x6x8x2xf32>
// CHECK-NEXT: [[Q:%.+]] = vg.slice [[T]] {axes = array<i64: 1>, ends = array<i64: 2>, starts = array<i64: 0>, steps = array<i64: 1>}
// CHECK-NEXT: [[K:%.+]] = vg.slice [[T]] {axes = array<i64: 1>, ends = array<i64: 4>, starts = array<i64: 2>, steps = array<i64: 1>}
// CHECK-NEXT: [[V:%.+]] = vg.slice [[Y]] {axes = array<i64: 2>, ends = array<i64: 12>, starts = array<i64: 8>, steps = array<i64: 1>}
// CHECK-NOT: vg.transpose
// CHECK: return [[Q]], [[K]], [[V]]
func.func @head_split_partial(%x: tensor<1x8x4xf32>) -> (tensor<1x2x8x2xf32>, tensor<1x2x8x2xf32>, tensor<1x8x4xf32>) {
  %wq = vg.constant dense<1.0> : tensor<4x4xf32>
  %wk = vg.constant dense<2.0> : tensor<4x4xf32>
  %wv = vg.constant dense<3.0> : tensor<4x4xf32>
  %q = vg.matmul %x, %wq : (tensor<1x8x4xf32>, tensor<4x4xf32>) -> tensor<1x8x4xf32>
  %qr = vg.reshape %q {shape = array<i64: 1, 8, 2, 2>} : (tensor<1x8x4xf32>) -> tensor<1x8x2x2xf32>
  %qt = vg.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x2xf32>) -> tensor<1x2x8x2xf32>
  %k = vg.matmul %x, %wk : (tensor<1x8x4xf32>, tensor<4x4xf32>) -> tensor<1x8x4xf32>
  %kr = vg.reshape %k {shape = array<i64: 1, 8, 2, 2>} : (tensor<1x8x4xf32>) -> tensor<1x8x2x2xf32>
  %kt = vg.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x2xf32>) -> tensor<1x2x8x2xf32>
  %v = vg.matmul %x, %wv : (tensor<1x8x4xf32>, tensor<4x4xf32>) -> tensor<1x8x4xf32>
  return %qt, %kt, %v : tensor<1x2x8x2xf32>, tensor<1x2x8x2xf32>, tensor<1x8x4xf32>
}
