// RUN: vinci-opt %s --split-input-file --vinci-materialize-outputs | FileCheck %s

// A reshape of the graph input has no kernel: the output becomes a
// whole-tensor slice (one data-movement kernel copies it).
// CHECK-LABEL: func.func @reshape_of_input
// CHECK: %[[VIEW:.+]] = vg.reshape %{{.+}}
// CHECK: %[[COPY:.+]] = vg.slice %[[VIEW]] {axes = array<i64: 0, 1>, ends = array<i64: 6, 4>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : (tensor<6x4xf32>) -> tensor<6x4xf32>
// CHECK: return %[[COPY]]
func.func @reshape_of_input(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %0 = vg.reshape %x {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// The input itself and a constant, each returned: both copied.
// CHECK-LABEL: func.func @input_and_constant
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK: %[[C:.+]] = vg.constant
// CHECK-DAG: %[[CX:.+]] = vg.slice %[[X]]
// CHECK-DAG: %[[CC:.+]] = vg.slice %[[C]]
// CHECK: return %[[CX]], %[[CC]]
func.func @input_and_constant(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<3xi32>) {
  %c = vg.constant dense<[1, 2, 3]> : tensor<3xi32>
  return %x, %c : tensor<4xf32>, tensor<3xi32>
}

// -----

// Near-misses: a kernel's result, and a reshape of one, are written by
// that kernel; nothing is added.
// CHECK-LABEL: func.func @computed
// CHECK-NOT: vg.slice
// CHECK: return
func.func @computed(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<6xf32>) {
  %0 = vg.relu %x : tensor<2x3xf32>
  %1 = vg.reshape %0 {shape = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<6xf32>
}

// -----

// An empty output, constant or a view of the input, has no bytes to copy.
// CHECK-LABEL: func.func @empty
// CHECK-NOT: vg.slice
// CHECK: return
func.func @empty(%x: tensor<0x3xf32>) -> (tensor<3x0xf32>, tensor<0xi64>) {
  %0 = vg.reshape %x {allowzero = 1 : i64, shape = array<i64: 3, 0>} : (tensor<0x3xf32>) -> tensor<3x0xf32>
  %c = vg.constant dense<> : tensor<0xi64>
  return %0, %c : tensor<3x0xf32>, tensor<0xi64>
}
