// RUN: vinci-opt %s --split-input-file --vinci-partition-kernels | FileCheck %s

// A split whose pieces are contiguous ranges of a kernel result (every dim
// before the axis is 1) is a view: it stays in the graph, no kernel copies
// the pieces, and each consumer reads its piece where it lies.
// CHECK-LABEL: func.func @split_of_kernel_result_is_view
// CHECK: [[S:%.+]] = call @k0_sigmoid
// CHECK: [[P:%.+]]:3 = vg.split [[S]]
// CHECK: call @k1_relu([[P]]#0)
// CHECK: call @k2_tanh([[P]]#2)
// CHECK-NOT: func.func private @{{.*}}split
func.func @split_of_kernel_result_is_view(%x: tensor<1x6x4x8xf32>)
    -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) {
  %0 = vg.sigmoid %x : tensor<1x6x4x8xf32>
  %1:3 = vg.split %0 {axis = 1 : i64, split = array<i64: 2, 2, 2>}
      : (tensor<1x6x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>)
  %2 = vg.relu %1#0 : tensor<1x2x4x8xf32>
  %3 = vg.tanh %1#2 : tensor<1x2x4x8xf32>
  return %2, %3 : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
}

// -----

// Near miss: a dim before the axis is 2, so each piece interleaves with the
// others in the input: the split stays a data-movement kernel.
// CHECK-LABEL: func.func @split_after_a_wide_dim_is_a_kernel
// CHECK: [[S:%.+]] = call @k0_sigmoid
// CHECK: [[P:%.+]]:2 = call @k1_split([[S]])
// CHECK: func.func private @k1_split
// CHECK-SAME: "vector"
func.func @split_after_a_wide_dim_is_a_kernel(%x: tensor<2x6x8xf32>)
    -> (tensor<2x2x8xf32>, tensor<2x4x8xf32>) {
  %0 = vg.sigmoid %x : tensor<2x6x8xf32>
  %1:2 = vg.split %0 {axis = 1 : i64, split = array<i64: 2, 4>}
      : (tensor<2x6x8xf32>) -> (tensor<2x2x8xf32>, tensor<2x4x8xf32>)
  %2 = vg.relu %1#0 : tensor<2x2x8xf32>
  %3 = vg.relu %1#1 : tensor<2x4x8xf32>
  return %2, %3 : tensor<2x2x8xf32>, tensor<2x4x8xf32>
}

// -----

// Near miss: the input is a graph input (the caller's buffer, not an arena
// buffer a view could point into): a kernel.
// CHECK-LABEL: func.func @split_of_graph_input_is_a_kernel
// CHECK: call @k0_split
func.func @split_of_graph_input_is_a_kernel(%x: tensor<1x6x8xf32>)
    -> (tensor<1x2x8xf32>, tensor<1x4x8xf32>) {
  %0:2 = vg.split %x {axis = 1 : i64, split = array<i64: 2, 4>}
      : (tensor<1x6x8xf32>) -> (tensor<1x2x8xf32>, tensor<1x4x8xf32>)
  %1 = vg.relu %0#0 : tensor<1x2x8xf32>
  %2 = vg.relu %0#1 : tensor<1x4x8xf32>
  return %1, %2 : tensor<1x2x8xf32>, tensor<1x4x8xf32>
}

// -----

// Near miss: a piece is (a reshape of) a graph output, which a kernel must
// write into the caller's buffer: a kernel.
// CHECK-LABEL: func.func @split_piece_returned_is_a_kernel
// CHECK: call @k0_sigmoid
// CHECK: call @k1_split
func.func @split_piece_returned_is_a_kernel(%x: tensor<1x6x8xf32>)
    -> (tensor<16xf32>, tensor<1x4x8xf32>) {
  %0 = vg.sigmoid %x : tensor<1x6x8xf32>
  %1:2 = vg.split %0 {axis = 1 : i64, split = array<i64: 2, 4>}
      : (tensor<1x6x8xf32>) -> (tensor<1x2x8xf32>, tensor<1x4x8xf32>)
  %2 = vg.reshape %1#0 {shape = array<i64: 16>} : (tensor<1x2x8xf32>) -> tensor<16xf32>
  %3 = vg.relu %1#1 : tensor<1x4x8xf32>
  return %2, %3 : tensor<16xf32>, tensor<1x4x8xf32>
}

// -----

// A split along the leading axis, through a reshape of a matmul result, is
// a view too (nothing comes before axis 0).
// CHECK-LABEL: func.func @split_on_axis_zero_through_reshape_is_view
// CHECK: [[M:%.+]] = call @k0_matmul
// CHECK: [[R:%.+]] = vg.reshape [[M]]
// CHECK: [[P:%.+]]:2 = vg.split [[R]]
// CHECK: [[P0:%.+]] = vg.reshape [[P]]#0
// CHECK: [[P1:%.+]] = vg.reshape [[P]]#1
// CHECK: call @k1_relu([[P0]])
// CHECK: call @k2_relu([[P1]])
// CHECK-NOT: func.func private @{{.*}}split
func.func @split_on_axis_zero_through_reshape_is_view(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>)
    -> (tensor<4x32xf32>, tensor<4x32xf32>) {
  %0 = vg.matmul %x, %w : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  %1 = vg.reshape %0 {shape = array<i64: 2, 4, 32>} : (tensor<8x32xf32>) -> tensor<2x4x32xf32>
  %2:2 = vg.split %1 {axis = 0 : i64, split = array<i64: 1, 1>}
      : (tensor<2x4x32xf32>) -> (tensor<1x4x32xf32>, tensor<1x4x32xf32>)
  %3 = vg.reshape %2#0 {shape = array<i64: 4, 32>} : (tensor<1x4x32xf32>) -> tensor<4x32xf32>
  %4 = vg.reshape %2#1 {shape = array<i64: 4, 32>} : (tensor<1x4x32xf32>) -> tensor<4x32xf32>
  %5 = vg.relu %3 : tensor<4x32xf32>
  %6 = vg.relu %4 : tensor<4x32xf32>
  return %5, %6 : tensor<4x32xf32>, tensor<4x32xf32>
}
