// RUN: vinci-opt %s --split-input-file --vinci-narrow-int64 --verify-diagnostics | FileCheck %s

// An embedding lookup: the int64 ids argument becomes i32 for the kernels
// and is tagged with the caller's type; the gather follows.
// CHECK-LABEL: func.func @ids_argument
// CHECK-SAME: (%[[IDS:.+]]: tensor<1x8xi32> {vg.name = "input_ids", vinci.io_element_type = i64})
// CHECK: %[[TABLE:.+]] = vg.constant
// CHECK: vg.gather %[[TABLE]], %[[IDS]] : (tensor<16x4xf32>, tensor<1x8xi32>) -> tensor<1x8x4xf32>
func.func @ids_argument(%ids: tensor<1x8xi64> {vg.name = "input_ids"}) -> tensor<1x8x4xf32> {
  %table = vg.constant dense<1.0> : tensor<16x4xf32>
  %0 = vg.gather %table, %ids : (tensor<16x4xf32>, tensor<1x8xi64>) -> tensor<1x8x4xf32>
  return %0 : tensor<1x8x4xf32>
}

// -----

// Constant indices are narrowed at compile time, values kept (negative
// ones too); a cast to int64 now casts to int32, and an int64 result is
// tagged for the runtime to widen.
// CHECK-LABEL: func.func @constant_and_cast
// CHECK-SAME: -> (tensor<3xi32> {vinci.io_element_type = i64}, tensor<2x4xf32>)
// CHECK: %[[POS:.+]] = vg.constant dense<[0, -1]> : tensor<2xi32>
// CHECK: vg.gather %{{.+}}, %[[POS]] : (tensor<16x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
// CHECK: %[[CAST:.+]] = vg.cast %{{.+}} {to = i32} : (tensor<3xf32>) -> tensor<3xi32>
// CHECK: return %[[CAST]], %{{.+}} : tensor<3xi32>, tensor<2x4xf32>
func.func @constant_and_cast(%x: tensor<3xf32>) -> (tensor<3xi64>, tensor<2x4xf32>) {
  %table = vg.constant dense<1.0> : tensor<16x4xf32>
  %pos = vg.constant dense<[0, -1]> : tensor<2xi64>
  %0 = vg.gather %table, %pos : (tensor<16x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %1 = vg.cast %x {to = i64} : (tensor<3xf32>) -> tensor<3xi64>
  return %1, %0 : tensor<3xi64>, tensor<2x4xf32>
}

// -----

// Near-miss: i32 and float tensors are left alone, no tag is added.
// CHECK-LABEL: func.func @already_narrow
// CHECK-SAME: (%{{.+}}: tensor<4xi32>) -> tensor<4xi32>
// CHECK-NOT: vinci.io_element_type
func.func @already_narrow(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = vg.add %x, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// A constant outside int32 cannot be narrowed: an error that names it.
func.func @out_of_range() -> tensor<2xi64> {
  // expected-error @+1 {{a constant holds 4294967296 at element 1, outside int32}}
  %big = vg.constant dense<[1, 4294967296]> : tensor<2xi64>
  %0 = vg.add %big, %big : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// ArgMax's int64 indices become int32 too (vg accepts either for index
// results); the tag tells the runtime to widen the output.
// CHECK-LABEL: func.func @arg_max
// CHECK-SAME: -> (tensor<8x1xi32> {vinci.io_element_type = i64})
// CHECK: vg.arg_max %{{.+}} {axis = 1 : i64} : (tensor<8x1000xf32>) -> tensor<8x1xi32>
func.func @arg_max(%x: tensor<8x1000xf32>) -> tensor<8x1xi64> {
  %0 = vg.arg_max %x {axis = 1 : i64} : (tensor<8x1000xf32>) -> tensor<8x1xi64>
  return %0 : tensor<8x1xi64>
}
