// RUN: vinci-opt %s --split-input-file --vinci-unfold-windows | FileCheck %s

// The convs the Cube conv template takes (KernelRules' convCubeTemplateMismatch)
// keep their window: img2col happens on chip (backend/lower/Conv.cpp). The
// unfolding cases below run under must_keep_origin_dtype (the 310P Cube takes
// no fp32, so the template refuses them), with a computed weight, or with
// groups.

// A constant weight and bias, f32 storage narrowed to f16: the template's.
// CHECK-LABEL: func.func @cube_template_keeps_window
// CHECK: vg.conv
// CHECK-NOT: vg.slice
// CHECK-NOT: vg.matmul
func.func @cube_template_keeps_window(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x2x2xf32> {
  %w = vg.constant dense<1.0> : tensor<3x2x3x3xf32>
  %b = vg.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %y = vg.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
  return %y : tensor<1x3x2x2xf32>
}

// -----

// The pools the pooling template takes (poolTemplateMismatch: f16 in GM,
// here between two ReLUs) keep their window too; the average that does not
// count its pads (a divisor per position) unfolds beside it.
// CHECK-LABEL: func.func @pool_template_keeps_window
// CHECK: vg.max_pool
// CHECK-NOT: vg.average_pool
// CHECK: vg.pad
// CHECK-NOT: vg.max_pool
// CHECK: return
func.func @pool_template_keeps_window(%x: tensor<1x2x6x6xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x6x6xf32>) {
  %r = vg.relu %x : tensor<1x2x6x6xf32>
  %m = vg.max_pool %r {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
  %a = vg.average_pool %r {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  %y = vg.relu %m : tensor<1x2x3x3xf32>
  %z = vg.relu %a : tensor<1x2x6x6xf32>
  return %y, %z : tensor<1x2x3x3xf32>, tensor<1x2x6x6xf32>
}

// -----


// 3x3, stride 2, pad 1, bias (a tiny output: the bias stays an add): pad; the four phases of the stride-2 grid
// decimated once; nine taps (ki, kj) row-major as unit-step slices of their
// phase ((0,0) of phase (0,0), (0,1) of phase (0,1), (0,2) = phase (0,0)
// one column on, ..., (2,2) = phase (0,0) one row and column on); each
// viewed as [1, C, 1, OH, OW] and stacked on dim 2 (rows C-major, like the
// weight); one matmul by the weight as a [OC, C * 9] matrix; the bias at the
// output's shape (3 channels: too few for a kernel argument).
// CHECK-LABEL: func.func @conv3x3
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x2x4x4xf32>)
// CHECK: [[W:%.+]] = vg.constant dense<1.000000e+00> : tensor<3x18xf32>
// CHECK: [[P:%.+]] = vg.pad [[X]] {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
// CHECK: [[P00:%.+]] = vg.slice [[P]] {axes = array<i64: 2, 3>, ends = array<i64: 6, 6>, starts = array<i64: 0, 0>, steps = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
// CHECK: [[P01:%.+]] = vg.slice [[P]] {axes = array<i64: 2, 3>, ends = array<i64: 6, 6>, starts = array<i64: 0, 1>, steps = array<i64: 2, 2>}
// CHECK: [[P10:%.+]] = vg.slice [[P]] {axes = array<i64: 2, 3>, ends = array<i64: 6, 6>, starts = array<i64: 1, 0>, steps = array<i64: 2, 2>}
// CHECK: [[P11:%.+]] = vg.slice [[P]] {axes = array<i64: 2, 3>, ends = array<i64: 6, 6>, starts = array<i64: 1, 1>, steps = array<i64: 2, 2>}
// CHECK: [[T0:%.+]] = vg.slice [[P00]] {axes = array<i64: 2, 3>, ends = array<i64: 2, 2>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x2x2xf32>
// CHECK: [[T1:%.+]] = vg.slice [[P01]] {axes = array<i64: 2, 3>, ends = array<i64: 2, 2>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>}
// CHECK: [[T2:%.+]] = vg.slice [[P00]] {axes = array<i64: 2, 3>, ends = array<i64: 2, 3>, starts = array<i64: 0, 1>, steps = array<i64: 1, 1>}
// CHECK: [[T8:%.+]] = vg.slice [[P00]] {axes = array<i64: 2, 3>, ends = array<i64: 3, 3>, starts = array<i64: 1, 1>, steps = array<i64: 1, 1>}
// CHECK: [[S0:%.+]] = vg.reshape [[T0]] {shape = array<i64: 1, 2, 1, 2, 2>}
// CHECK: [[S8:%.+]] = vg.reshape [[T8]] {shape = array<i64: 1, 2, 1, 2, 2>}
// CHECK: [[C:%.+]] = vg.concat [[S0]], {{.*}}, [[S8]] {axis = 2 : i64} {{.*}} -> tensor<1x2x9x2x2xf32>
// CHECK: [[M:%.+]] = vg.reshape [[C]] {shape = array<i64: 18, 4>}
// CHECK: [[Y:%.+]] = vg.matmul [[W]], [[M]] : (tensor<3x18xf32>, tensor<18x4xf32>) -> tensor<3x4xf32>
// CHECK: [[Y4:%.+]] = vg.reshape [[Y]] {shape = array<i64: 1, 3, 2, 2>}
// CHECK: [[B:%.+]] = vg.constant dense<{{.*}}3.000000e+00, 3.000000e+00]]]]> : tensor<1x3x2x2xf32>
// CHECK: [[R:%.+]] = vg.add [[Y4]], [[B]]
// CHECK-NOT: vg.conv
// CHECK: return [[R]]
module attributes {vinci.precision_mode = "must_keep_origin_dtype"} {
  func.func @conv3x3(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x2x2xf32> {
    %w = vg.constant dense<1.0> : tensor<3x2x3x3xf32>
    %b = vg.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %y = vg.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
    return %y : tensor<1x3x2x2xf32>
  }
}

// -----

// A weight and bias that are graph inputs (ONNX node tests) are views: the
// weight as [OC, C * kh * kw], the bias as [1, OC, 1, 1].
// CHECK-LABEL: func.func @weight_not_constant
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x2x3x3xf32>, [[W:%[a-z0-9_]+]]: tensor<1x2x1x2xf32>, [[B:%[a-z0-9_]+]]: tensor<1xf32>)
// CHECK: [[WM:%.+]] = vg.reshape [[W]] {shape = array<i64: 1, 4>}
// CHECK: vg.matmul [[WM]], %{{.+}} : (tensor<1x4xf32>, tensor<4x6xf32>) -> tensor<1x6xf32>
// CHECK: [[B4:%.+]] = vg.reshape [[B]] {shape = array<i64: 1, 1, 1, 1>}
// CHECK: vg.add %{{.+}}, [[B4]]
func.func @weight_not_constant(%x: tensor<1x2x3x3xf32>, %w: tensor<1x2x1x2xf32>, %b: tensor<1xf32>) -> tensor<1x1x3x2xf32> {
  %y = vg.conv %x, %w, %b : (tensor<1x2x3x3xf32>, tensor<1x2x1x2xf32>, tensor<1xf32>) -> tensor<1x1x3x2xf32>
  return %y : tensor<1x1x3x2xf32>
}

// -----

// 1x1, stride 1, no pad, a constant bias over 64 positions: the bias is one
// more weight column times a row of ones after the input's rows (no
// Vector pass for it); the input is the only tap.
// CHECK-LABEL: func.func @conv1x1
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x4x8x8xf32>)
// Each row [1 1 1 1 0.5] (printed as hex: 0x3F800000 x 4, 0x3F000000).
// CHECK: [[W:%.+]] = vg.constant dense<"0x0000803F0000803F0000803F0000803F0000003F0000803F{{[0-9A-F]+}}"> : tensor<32x5xf32>
// CHECK-NOT: vg.slice
// CHECK: [[M:%.+]] = vg.reshape [[X]] {shape = array<i64: 4, 64>}
// CHECK: [[ONES:%.+]] = vg.constant dense<1.000000e+00> : tensor<1x64xf32>
// CHECK: [[C:%.+]] = vg.concat [[M]], [[ONES]] {axis = 0 : i64} {{.*}} -> tensor<5x64xf32>
// CHECK: [[Y:%.+]] = vg.matmul [[W]], [[C]] : (tensor<32x5xf32>, tensor<5x64xf32>) -> tensor<32x64xf32>
// CHECK: [[R:%.+]] = vg.reshape [[Y]] {shape = array<i64: 1, 32, 8, 8>}
// CHECK-NOT: vg.add
// CHECK: return [[R]]
module attributes {vinci.precision_mode = "must_keep_origin_dtype"} {
  func.func @conv1x1(%x: tensor<1x4x8x8xf32>) -> tensor<1x32x8x8xf32> {
    %w = vg.constant dense<1.0> : tensor<32x4x1x1xf32>
    %b = vg.constant dense<0.5> : tensor<32xf32>
    %y = vg.conv %x, %w, %b : (tensor<1x4x8x8xf32>, tensor<32x4x1x1xf32>, tensor<32xf32>) -> tensor<1x32x8x8xf32>
    return %y : tensor<1x32x8x8xf32>
  }
}

// -----

// With a constant bias the rows are tap-major (the taps as [C, P] pieces,
// then the ones), so the weight is permuted to [OC, kh, kw, C] with the
// bias last: W[o, c, 0, k] -> row o = [W[o,0,0,0], W[o,1,0,0], W[o,0,0,1],
// W[o,1,0,1], b[o]] = [0 10 1 11 5] and [2 12 3 13 7].
// CHECK-LABEL: func.func @bias_in_matmul
// CHECK: [[W:%.+]] = vg.constant dense<{{\[\[}}0.000000e+00, 1.000000e+01, 1.000000e+00, 1.100000e+01, 5.000000e+00], [2.000000e+00, 1.200000e+01, 3.000000e+00, 1.300000e+01, 7.000000e+00]]> : tensor<2x5xf32>
// CHECK: [[T0:%.+]] = vg.slice %{{.+}} {axes = array<i64: 2, 3>, ends = array<i64: 5, 4>, starts = array<i64: 0, 0>
// CHECK: [[T1:%.+]] = vg.slice %{{.+}} {axes = array<i64: 2, 3>, ends = array<i64: 5, 5>, starts = array<i64: 0, 1>
// CHECK: [[R0:%.+]] = vg.reshape [[T0]] {shape = array<i64: 2, 20>}
// CHECK: [[R1:%.+]] = vg.reshape [[T1]] {shape = array<i64: 2, 20>}
// CHECK: [[ONES:%.+]] = vg.constant dense<1.000000e+00> : tensor<1x20xf32>
// CHECK: [[C:%.+]] = vg.concat [[R0]], [[R1]], [[ONES]] {axis = 0 : i64}
// CHECK: vg.matmul [[W]], [[C]] : (tensor<2x5xf32>, tensor<5x20xf32>) -> tensor<2x20xf32>
// CHECK-NOT: vg.add
module attributes {vinci.precision_mode = "must_keep_origin_dtype"} {
  func.func @bias_in_matmul(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x5x4xf32> {
    %w = vg.constant dense<[[[[0.0, 1.0]], [[10.0, 11.0]]], [[[2.0, 3.0]], [[12.0, 13.0]]]]> : tensor<2x2x1x2xf32>
    %b = vg.constant dense<[5.0, 7.0]> : tensor<2xf32>
    %y = vg.conv %x, %w, %b : (tensor<1x2x5x5xf32>, tensor<2x2x1x2xf32>, tensor<2xf32>) -> tensor<1x2x5x4xf32>
    return %y : tensor<1x2x5x4xf32>
  }
}

// -----

// Depthwise (groups = C = 4) kept in fp32 (must_keep_origin_dtype: the
// depthwise template computes in f16): the C-major im2col [1, C, 9, OH, OW] is a
// batch of one [9, OH * OW] matrix a group; the weight a batch of [1, 9]
// rows; the batched matmul gives [C, 1, OH * OW], NCHW again.
// CHECK-LABEL: func.func @depthwise
// CHECK: [[W:%.+]] = vg.constant dense<1.000000e+00> : tensor<4x1x9xf32>
// CHECK: [[C:%.+]] = vg.concat {{.*}} {axis = 2 : i64} {{.*}} -> tensor<1x4x9x6x6xf32>
// CHECK: [[M:%.+]] = vg.reshape [[C]] {shape = array<i64: 4, 9, 36>}
// CHECK: [[Y:%.+]] = vg.matmul [[W]], [[M]] : (tensor<4x1x9xf32>, tensor<4x9x36xf32>) -> tensor<4x1x36xf32>
// CHECK: vg.reshape [[Y]] {shape = array<i64: 1, 4, 6, 6>}
// CHECK-NOT: vg.conv
module attributes {vinci.precision_mode = "must_keep_origin_dtype"} {
  func.func @depthwise(%x: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
    %w = vg.constant dense<1.0> : tensor<4x1x3x3xf32>
    %y = vg.conv %x, %w {group = 4 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
    return %y : tensor<1x4x6x6xf32>
  }
}

// -----

// The depthwise convs the Vector depthwise template takes
// (depthwiseTemplateMismatch: f16 in GM, here between two ReLUs, a constant
// weight) keep their window; the one whose weight is a graph input unfolds
// beside it, and the module lists it with the template's reason (the
// compile report's unfolded_windows).
// CHECK: module attributes {vinci.unfolded_windows = [{node = "dw_runtime_weight", op = "conv", reason = "the weight is computed at run time: the depthwise template reads a constant weight{{.*}}"}]}
// CHECK-LABEL: func.func @depthwise_template_keeps_window
// CHECK: vg.conv %{{.+}} {group = 4 : i64
// CHECK-NOT: vg.conv
// CHECK: vg.matmul
// CHECK-NOT: vg.conv
// CHECK: return
module {
  func.func @depthwise_template_keeps_window(%x: tensor<1x4x6x6xf32>, %wx: tensor<4x1x3x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
    %w = vg.constant dense<1.0> : tensor<4x1x3x3xf32>
    %r = vg.relu %x : tensor<1x4x6x6xf32>
    %d = vg.conv %r, %w {group = 4 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32> loc("dw_kept")
    %e = vg.conv %r, %wx {group = 4 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32> loc("dw_runtime_weight")
    %y = vg.relu %d : tensor<1x4x6x6xf32>
    %z = vg.relu %e : tensor<1x4x6x6xf32>
    return %y, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
  }
}

// -----

// Groups 2 of a 1x1 conv: the input itself as [2, C / 2, P], the weight as
// [2, OC / 2, C / 2].
// CHECK-LABEL: func.func @grouped
// CHECK: [[W:%.+]] = vg.constant dense<1.000000e+00> : tensor<2x3x2xf32>
// CHECK: [[M:%.+]] = vg.reshape %{{.+}} {shape = array<i64: 2, 2, 16>}
// CHECK: vg.matmul [[W]], [[M]] : (tensor<2x3x2xf32>, tensor<2x2x16xf32>) -> tensor<2x3x16xf32>
func.func @grouped(%x: tensor<1x4x4x4xf32>) -> tensor<1x6x4x4xf32> {
  %w = vg.constant dense<1.0> : tensor<6x2x1x1xf32>
  %y = vg.conv %x, %w {group = 2 : i64} : (tensor<1x4x4x4xf32>, tensor<6x2x1x1xf32>) -> tensor<1x6x4x4xf32>
  return %y : tensor<1x6x4x4xf32>
}

// -----

// Near misses: batch 2 and a 1-D conv stay convs.
// CHECK-LABEL: func.func @not_unfolded
// CHECK-COUNT-2: vg.conv
// CHECK-NOT: vg.matmul
func.func @not_unfolded(%x2: tensor<2x4x8x8xf32>, %x1: tensor<1x4x8xf32>) -> (tensor<2x4x8x8xf32>, tensor<1x4x8xf32>) {
  %w = vg.constant dense<1.0> : tensor<4x4x1x1xf32>
  %w1 = vg.constant dense<1.0> : tensor<4x4x1xf32>
  %b = vg.conv %x2, %w : (tensor<2x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<2x4x8x8xf32>
  %c = vg.conv %x1, %w1 : (tensor<1x4x8xf32>, tensor<4x4x1xf32>) -> tensor<1x4x8xf32>
  return %b, %c : tensor<2x4x8x8xf32>, tensor<1x4x8xf32>
}

// -----

// Max pool: pad with -inf (begin pads only), a max chain over the taps.
// 2x2 stride 2: each tap is its own phase, so the taps are strided slices
// of the padded input (decimating first would save nothing).
// CHECK-LABEL: func.func @max_pool
// CHECK: [[P:%.+]] = vg.pad %{{.+}} {constant_value = 0xFFF0000000000000 : f64, pads = array<i64: 0, 0, 1, 1, 0, 0, 0, 0>}
// CHECK-COUNT-4: vg.slice [[P]]
// CHECK: [[M0:%.+]] = vg.max
// CHECK: [[M1:%.+]] = vg.max [[M0]]
// CHECK: [[M2:%.+]] = vg.max [[M1]]
// CHECK-NOT: vg.max_pool
// CHECK: return [[M2]]
func.func @max_pool(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y = vg.max_pool %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// Average pool without pads: a sum chain times the scalar 1 / 4.
// CHECK-LABEL: func.func @average_pool
// CHECK-NOT: vg.pad
// CHECK-COUNT-3: vg.add
// CHECK: [[S:%.+]] = vg.constant dense<2.500000e-01> : tensor<f32>
// CHECK: vg.mul %{{.+}}, [[S]]
func.func @average_pool(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %y = vg.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// Pads excluded from the count: 1 / count per position (corner 1/4, edge
// 1/6, centre 1/9), stored at the output's shape since it is small.
// CHECK-LABEL: func.func @average_pool_excluding_pads
// CHECK: vg.pad
// CHECK: [[F:%.+]] = vg.constant dense<{{\[\[\[\[}}2.500000e-01, 0.166666672, 2.500000e-01], [0.166666672, 0.111111112, 0.166666672]
// CHECK: vg.mul %{{.+}}, [[F]]
func.func @average_pool_excluding_pads(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %y = vg.average_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  return %y : tensor<1x1x3x3xf32>
}

// -----

// Global average pool: a mean over the spatial axes, dims kept.
// CHECK-LABEL: func.func @global_average_pool
// CHECK: [[M:%.+]] = vg.reduce_mean %{{.+}} {axes = array<i64: 2, 3>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
// CHECK: return [[M]]
func.func @global_average_pool(%x: tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32> {
  %y = vg.global_average_pool %x : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
  return %y : tensor<1x8x1x1xf32>
}

// -----

// A 1-D window is the 2-D one over the view [N, C, 1, L] (kernel 1 x 3,
// stride 1 x 2, pads on L only); the taps are viewed back as [N, C, OL]
// before the max chain, so the pool's result is an op, not a view.
// Stride 2 with three taps: phases 0 and 1 decimated once.
// CHECK-LABEL: func.func @max_pool_1d
// CHECK: [[V:%.+]] = vg.reshape %{{.+}} {shape = array<i64: 1, 3, 1, 8>}
// CHECK: [[P:%.+]] = vg.pad [[V]] {constant_value = 0xFFF0000000000000 : f64, pads = array<i64: 0, 0, 0, 1, 0, 0, 0, 0>}
// CHECK: [[P0:%.+]] = vg.slice [[P]] {axes = array<i64: 2, 3>, ends = array<i64: 1, 9>, starts = array<i64: 0, 0>, steps = array<i64: 1, 2>}
// CHECK: [[P1:%.+]] = vg.slice [[P]] {axes = array<i64: 2, 3>, ends = array<i64: 1, 9>, starts = array<i64: 0, 1>, steps = array<i64: 1, 2>}
// CHECK-COUNT-3: vg.reshape {{.*}} -> tensor<1x3x4xf32>
// CHECK: [[M:%.+]] = vg.max
// CHECK: [[M2:%.+]] = vg.max [[M]], {{.*}} -> tensor<1x3x4xf32>
// CHECK: return [[M2]]
func.func @max_pool_1d(%x: tensor<1x3x8xf32>) -> tensor<1x3x4xf32> {
  %y = vg.max_pool %x {kernel_shape = array<i64: 3>, pads = array<i64: 1, 0>, strides = array<i64: 2>} : (tensor<1x3x8xf32>) -> tensor<1x3x4xf32>
  return %y : tensor<1x3x4xf32>
}
