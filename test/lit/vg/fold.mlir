// RUN: vinci-opt %s --split-input-file --canonicalize | FileCheck %s

// The vg folders under --canonicalize: shape arithmetic on small constants
// becomes constants (what makes torch's Shape -> Gather -> Concat -> Reshape
// chains static), no-op ops disappear, and the near misses stay put: operands
// that are not constants, and constants above kMaxFoldElements (16384)
// elements, which are never evaluated on the host.

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @shape_static
func.func @shape_static(%x: tensor<1x128x768xf32>) -> (tensor<3xi64>, tensor<2xi64>, tensor<1xi64>) {
  // CHECK-DAG: [[ALL:%.+]] = vg.constant dense<[1, 128, 768]> : tensor<3xi64>
  // CHECK-DAG: [[TAIL:%.+]] = vg.constant dense<[128, 768]> : tensor<2xi64>
  // CHECK-DAG: [[MID:%.+]] = vg.constant dense<128> : tensor<1xi64>
  // CHECK-NOT: vg.shape
  // CHECK: return [[ALL]], [[TAIL]], [[MID]]
  %0 = vg.shape %x : (tensor<1x128x768xf32>) -> tensor<3xi64>
  %1 = vg.shape %x {start = 1 : i64} : (tensor<1x128x768xf32>) -> tensor<2xi64>
  %2 = vg.shape %x {start = -2 : i64, end = -1 : i64} : (tensor<1x128x768xf32>) -> tensor<1xi64>
  return %0, %1, %2 : tensor<3xi64>, tensor<2xi64>, tensor<1xi64>
}

// -----

// A dynamic dim keeps the shape op, unless start/end leave it out.
// CHECK-LABEL: func @shape_dynamic
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<?x128xf32>)
func.func @shape_dynamic(%x: tensor<?x128xf32>) -> (tensor<2xi64>, tensor<1xi64>) {
  // CHECK-DAG: [[DIMS:%.+]] = vg.shape [[X]] : (tensor<?x128xf32>) -> tensor<2xi64>
  // CHECK-DAG: [[LAST:%.+]] = vg.constant dense<128> : tensor<1xi64>
  // CHECK: return [[DIMS]], [[LAST]]
  %0 = vg.shape %x : (tensor<?x128xf32>) -> tensor<2xi64>
  %1 = vg.shape %x {start = 1 : i64} : (tensor<?x128xf32>) -> tensor<1xi64>
  return %0, %1 : tensor<2xi64>, tensor<1xi64>
}

// -----

//===----------------------------------------------------------------------===//
// Gather, Unsqueeze, Squeeze, Flatten, Concat on constants
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @gather_constant
func.func @gather_constant() -> (tensor<i64>, tensor<i64>, tensor<2xi64>, tensor<2x1xi32>) {
  // CHECK-DAG: [[D1:%.+]] = vg.constant dense<128> : tensor<i64>
  // CHECK-DAG: [[DLAST:%.+]] = vg.constant dense<64> : tensor<i64>
  // CHECK-DAG: [[PAIR:%.+]] = vg.constant dense<[64, 1]> : tensor<2xi64>
  // CHECK-DAG: [[COL:%.+]] = vg.constant dense<{{\[}}[2], [5]]> : tensor<2x1xi32>
  // CHECK-NOT: vg.gather
  // CHECK: return [[D1]], [[DLAST]], [[PAIR]], [[COL]]
  %shape = vg.constant dense<[1, 128, 12, 64]> : tensor<4xi64>
  %one = vg.constant dense<1> : tensor<i64>
  %last = vg.constant dense<-1> : tensor<i64>
  %pair = vg.constant dense<[3, 0]> : tensor<2xi32>
  %0 = vg.gather %shape, %one : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  // Negative indices count from the end.
  %1 = vg.gather %shape, %last : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  %2 = vg.gather %shape, %pair : (tensor<4xi64>, tensor<2xi32>) -> tensor<2xi64>
  // Along axis 1 of a matrix.
  %m = vg.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %i = vg.constant dense<[1]> : tensor<1xi64>
  %3 = vg.gather %m, %i {axis = 1 : i64} : (tensor<2x3xi32>, tensor<1xi64>) -> tensor<2x1xi32>
  return %0, %1, %2, %3 : tensor<i64>, tensor<i64>, tensor<2xi64>, tensor<2x1xi32>
}

// -----

// Near misses: data or indices that are not constants, an index out of range.
// CHECK-LABEL: func @gather_no_fold
// CHECK-SAME: ([[DATA:%[a-z0-9_]+]]: tensor<4xi64>, [[IDX:%[a-z0-9_]+]]: tensor<i64>)
func.func @gather_no_fold(%data: tensor<4xi64>, %idx: tensor<i64>) -> (tensor<i64>, tensor<i64>, tensor<i64>) {
  // CHECK-DAG: [[SHAPE:%.+]] = vg.constant dense<[1, 128, 12, 64]> : tensor<4xi64>
  // CHECK-DAG: [[FOUR:%.+]] = vg.constant dense<4> : tensor<i64>
  // CHECK-DAG: [[ONE:%.+]] = vg.constant dense<1> : tensor<i64>
  // CHECK-DAG: [[A:%.+]] = vg.gather [[DATA]], [[ONE]] : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  // CHECK-DAG: [[B:%.+]] = vg.gather [[SHAPE]], [[IDX]] : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  // CHECK-DAG: [[C:%.+]] = vg.gather [[SHAPE]], [[FOUR]] : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  // CHECK: return [[A]], [[B]], [[C]]
  %shape = vg.constant dense<[1, 128, 12, 64]> : tensor<4xi64>
  %one = vg.constant dense<1> : tensor<i64>
  %four = vg.constant dense<4> : tensor<i64>
  %0 = vg.gather %data, %one : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  %1 = vg.gather %shape, %idx : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  %2 = vg.gather %shape, %four : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  return %0, %1, %2 : tensor<i64>, tensor<i64>, tensor<i64>
}

// -----

// CHECK-LABEL: func @reshaping_constants
func.func @reshaping_constants() -> (tensor<1xi64>, tensor<3xi64>, tensor<1x6xi32>, tensor<3x2xi32>) {
  // CHECK-DAG: [[U:%.+]] = vg.constant dense<12> : tensor<1xi64>
  // CHECK-DAG: [[S:%.+]] = vg.constant dense<[7, 8, 9]> : tensor<3xi64>
  // CHECK-DAG: [[F:%.+]] = vg.constant dense<{{\[}}[1, 2, 3, 4, 5, 6]]> : tensor<1x6xi32>
  // CHECK-DAG: [[R:%.+]] = vg.constant dense<{{\[}}[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  // CHECK-NOT: vg.unsqueeze
  // CHECK-NOT: vg.squeeze
  // CHECK-NOT: vg.flatten
  // CHECK-NOT: vg.reshape
  // CHECK: return [[U]], [[S]], [[F]], [[R]]
  %scalar = vg.constant dense<12> : tensor<i64>
  %0 = vg.unsqueeze %scalar {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %row = vg.constant dense<[[7, 8, 9]]> : tensor<1x3xi64>
  %1 = vg.squeeze %row {axes = array<i64: 0>} : (tensor<1x3xi64>) -> tensor<3xi64>
  %m = vg.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %2 = vg.flatten %m {axis = 0 : i64} : (tensor<2x3xi32>) -> tensor<1x6xi32>
  %3 = vg.reshape %m {shape = array<i64: -1, 2>} : (tensor<2x3xi32>) -> tensor<3x2xi32>
  return %0, %1, %2, %3 : tensor<1xi64>, tensor<3xi64>, tensor<1x6xi32>, tensor<3x2xi32>
}

// -----

// A weight blob reshapes in place: the new constant shares the blob's handle,
// and no bytes are copied (the resource section keeps one entry).
// CHECK-LABEL: func @reshape_resource
func.func @reshape_resource() -> tensor<4xf32> {
  // CHECK: [[W:%.+]] = vg.constant dense_resource<fc.weight> : tensor<4xf32>
  // CHECK-NOT: vg.reshape
  // CHECK: return [[W]]
  %w = vg.constant dense_resource<fc.weight> : tensor<2x2xf32>
  %0 = vg.reshape %w {shape = array<i64: 4>} : (tensor<2x2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK: dialect_resources
// CHECK-NEXT: builtin
// CHECK-NEXT: fc.weight: "0x040000000000803F000000400000404000008040"
// CHECK-NEXT: }
{-#
  dialect_resources: {
    builtin: {
      fc.weight: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// CHECK-LABEL: func @concat_constants
func.func @concat_constants() -> (tensor<4xi64>, tensor<2x3xf32>) {
  // CHECK-DAG: [[SHAPE:%.+]] = vg.constant dense<[1, 128, 12, 64]> : tensor<4xi64>
  // CHECK-DAG: [[M:%.+]] = vg.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 5.000000e+00], [3.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
  // CHECK-NOT: vg.concat
  // CHECK: return [[SHAPE]], [[M]]
  %a = vg.constant dense<[1]> : tensor<1xi64>
  %b = vg.constant dense<[128]> : tensor<1xi64>
  %c = vg.constant dense<[12, 64]> : tensor<2xi64>
  %0 = vg.concat %a, %b, %c {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<4xi64>
  // Along the inner axis of a matrix, pieces interleave row by row.
  %l = vg.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %r = vg.constant dense<[[5.0], [6.0]]> : tensor<2x1xf32>
  %1 = vg.concat %l, %r {axis = -1 : i64} : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<4xi64>, tensor<2x3xf32>
}

// -----

// One operand that is not a constant keeps the concat; a lone input is itself.
// CHECK-LABEL: func @concat_no_fold
// CHECK-SAME: ([[D:%[a-z0-9_]+]]: tensor<1xi64>, [[X:%[a-z0-9_]+]]: tensor<2x3xf32>)
func.func @concat_no_fold(%d: tensor<1xi64>, %x: tensor<2x3xf32>) -> (tensor<4xi64>, tensor<2x3xf32>) {
  // CHECK-DAG: [[A:%.+]] = vg.constant dense<1> : tensor<1xi64>
  // CHECK-DAG: [[C:%.+]] = vg.constant dense<[12, 64]> : tensor<2xi64>
  // CHECK: [[CAT:%.+]] = vg.concat [[A]], [[D]], [[C]] {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<4xi64>
  // CHECK: return [[CAT]], [[X]]
  %a = vg.constant dense<[1]> : tensor<1xi64>
  %c = vg.constant dense<[12, 64]> : tensor<2xi64>
  %0 = vg.concat %a, %d, %c {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<4xi64>
  %1 = vg.concat %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<4xi64>, tensor<2x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

// ONNX Cast: float to int truncates toward zero, to bool is x != 0.
// CHECK-LABEL: func @cast_constants
func.func @cast_constants() -> (tensor<3xf32>, tensor<4xi32>, tensor<3xi1>, tensor<2xf16>) {
  // CHECK-DAG: [[F:%.+]] = vg.constant dense<[1.000000e+00, -2.000000e+00, 1.280000e+02]> : tensor<3xf32>
  // CHECK-DAG: [[I:%.+]] = vg.constant dense<[2, -2, 0, 3]> : tensor<4xi32>
  // CHECK-DAG: [[B:%.+]] = vg.constant dense<[true, false, true]> : tensor<3xi1>
  // CHECK-DAG: [[H:%.+]] = vg.constant dense<[1.000000e+00, 6.550400e+04]> : tensor<2xf16>
  // CHECK-NOT: vg.cast
  // CHECK: return [[F]], [[I]], [[B]], [[H]]
  %i64 = vg.constant dense<[1, -2, 128]> : tensor<3xi64>
  %0 = vg.cast %i64 {to = f32} : (tensor<3xi64>) -> tensor<3xf32>
  %f = vg.constant dense<[2.7, -2.7, -0.5, 3.0]> : tensor<4xf32>
  %1 = vg.cast %f {to = i32} : (tensor<4xf32>) -> tensor<4xi32>
  %z = vg.constant dense<[2.0, 0.0, -1.0]> : tensor<3xf32>
  %2 = vg.cast %z {to = i1} : (tensor<3xf32>) -> tensor<3xi1>
  %w = vg.constant dense<[1.0, 65504.0]> : tensor<2xf32>
  %3 = vg.cast %w {to = f16} : (tensor<2xf32>) -> tensor<2xf16>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<4xi32>, tensor<3xi1>, tensor<2xf16>
}

// -----

// A cast to the input's own type is the input; a cast of an argument stays.
// CHECK-LABEL: func @cast_no_fold
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x128xi64>)
func.func @cast_no_fold(%x: tensor<1x128xi64>) -> (tensor<1x128xi64>, tensor<1x128xf32>) {
  // CHECK: [[C:%.+]] = vg.cast [[X]] {to = f32} : (tensor<1x128xi64>) -> tensor<1x128xf32>
  // CHECK: return [[X]], [[C]]
  %0 = vg.cast %x {to = i64} : (tensor<1x128xi64>) -> tensor<1x128xi64>
  %1 = vg.cast %x {to = f32} : (tensor<1x128xi64>) -> tensor<1x128xf32>
  return %0, %1 : tensor<1x128xi64>, tensor<1x128xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Slice
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @slice_constants
func.func @slice_constants() -> (tensor<2xi64>, tensor<2xi64>, tensor<4xi64>, tensor<2x1xi32>) {
  // CHECK-DAG: [[HEAD:%.+]] = vg.constant dense<[1, 128]> : tensor<2xi64>
  // CHECK-DAG: [[EVEN:%.+]] = vg.constant dense<[1, 12]> : tensor<2xi64>
  // CHECK-DAG: [[REV:%.+]] = vg.constant dense<[64, 12, 128, 1]> : tensor<4xi64>
  // CHECK-DAG: [[COL:%.+]] = vg.constant dense<{{\[}}[3], [6]]> : tensor<2x1xi32>
  // CHECK-NOT: vg.slice
  // CHECK: return [[HEAD]], [[EVEN]], [[REV]], [[COL]]
  %shape = vg.constant dense<[1, 128, 12, 64]> : tensor<4xi64>
  %0 = vg.slice %shape {starts = array<i64: 0>, ends = array<i64: 2>, axes = array<i64: 0>, steps = array<i64: 1>}
      : (tensor<4xi64>) -> tensor<2xi64>
  %1 = vg.slice %shape {starts = array<i64: 0>, ends = array<i64: 9223372036854775807>, axes = array<i64: 0>, steps = array<i64: 2>}
      : (tensor<4xi64>) -> tensor<2xi64>
  %2 = vg.slice %shape {starts = array<i64: -1>, ends = array<i64: -9223372036854775807>, axes = array<i64: 0>, steps = array<i64: -1>}
      : (tensor<4xi64>) -> tensor<4xi64>
  %m = vg.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %3 = vg.slice %m {starts = array<i64: -1>, ends = array<i64: 3>, axes = array<i64: 1>, steps = array<i64: 1>}
      : (tensor<2x3xi32>) -> tensor<2x1xi32>
  return %0, %1, %2, %3 : tensor<2xi64>, tensor<2xi64>, tensor<4xi64>, tensor<2x1xi32>
}

// -----

// A slice that takes everything is its input; other slices of arguments stay.
// CHECK-LABEL: func @slice_no_fold
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x512x768xf32>)
func.func @slice_no_fold(%x: tensor<1x512x768xf32>) -> (tensor<1x512x768xf32>, tensor<1x128x768xf32>, tensor<1x512x768xf32>) {
  // CHECK: [[HEAD:%.+]] = vg.slice [[X]] {axes = array<i64: 1>, ends = array<i64: 128>, starts = array<i64: 0>, steps = array<i64: 1>}
  // A reversing slice keeps the type but not the data.
  // CHECK: [[REV:%.+]] = vg.slice [[X]] {axes = array<i64: 1>, ends = array<i64: -9223372036854775807>, starts = array<i64: -1>, steps = array<i64: -1>}
  // CHECK: return [[X]], [[HEAD]], [[REV]]
  %0 = vg.slice %x {starts = array<i64: 0>, ends = array<i64: 9223372036854775807>, axes = array<i64: 1>, steps = array<i64: 1>}
      : (tensor<1x512x768xf32>) -> tensor<1x512x768xf32>
  %1 = vg.slice %x {starts = array<i64: 0>, ends = array<i64: 128>, axes = array<i64: 1>, steps = array<i64: 1>}
      : (tensor<1x512x768xf32>) -> tensor<1x128x768xf32>
  %2 = vg.slice %x {starts = array<i64: -1>, ends = array<i64: -9223372036854775807>, axes = array<i64: 1>, steps = array<i64: -1>}
      : (tensor<1x512x768xf32>) -> tensor<1x512x768xf32>
  return %0, %1, %2 : tensor<1x512x768xf32>, tensor<1x128x768xf32>, tensor<1x512x768xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Reshape, Transpose, Expand
//===----------------------------------------------------------------------===//

// reshape(reshape(x)) -> reshape(x) with the final static shape.
// CHECK-LABEL: func @reshape_of_reshape
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x128x768xf32>)
func.func @reshape_of_reshape(%x: tensor<1x128x768xf32>) -> tensor<1x12x128x64xf32> {
  // CHECK: [[R:%.+]] = vg.reshape [[X]] {shape = array<i64: 1, 12, 128, 64>} : (tensor<1x128x768xf32>) -> tensor<1x12x128x64xf32>
  // CHECK-NOT: vg.reshape
  // CHECK: return [[R]]
  %0 = vg.reshape %x {shape = array<i64: 0, 0, 12, -1>} : (tensor<1x128x768xf32>) -> tensor<1x128x12x64xf32>
  %1 = vg.reshape %0 {shape = array<i64: 1, 12, 128, 64>} : (tensor<1x128x12x64xf32>) -> tensor<1x12x128x64xf32>
  return %1 : tensor<1x12x128x64xf32>
}

// -----

// A chain of three reshapes that ends where it began is the input.
// CHECK-LABEL: func @reshape_round_trip
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<2x3x4xf32>)
func.func @reshape_round_trip(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // CHECK-NOT: vg.reshape
  // CHECK: return [[X]]
  %0 = vg.reshape %x {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = vg.reshape %0 {shape = array<i64: 24>} : (tensor<6x4xf32>) -> tensor<24xf32>
  %2 = vg.reshape %1 {shape = array<i64: 2, 3, 4>} : (tensor<24xf32>) -> tensor<2x3x4xf32>
  return %2 : tensor<2x3x4xf32>
}

// -----

// A reshape whose other user keeps the inner one alive still folds through it.
// CHECK-LABEL: func @reshape_of_reshape_shared
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<4x6xf32>)
func.func @reshape_of_reshape_shared(%x: tensor<4x6xf32>) -> (tensor<24xf32>, tensor<2x12xf32>) {
  // CHECK-DAG: [[FLAT:%.+]] = vg.reshape [[X]] {shape = array<i64: 24>} : (tensor<4x6xf32>) -> tensor<24xf32>
  // CHECK-DAG: [[WIDE:%.+]] = vg.reshape [[X]] {shape = array<i64: 2, 12>} : (tensor<4x6xf32>) -> tensor<2x12xf32>
  // CHECK: return [[FLAT]], [[WIDE]]
  %0 = vg.reshape %x {shape = array<i64: 24>} : (tensor<4x6xf32>) -> tensor<24xf32>
  %1 = vg.reshape %0 {shape = array<i64: 2, 12>} : (tensor<24xf32>) -> tensor<2x12xf32>
  return %0, %1 : tensor<24xf32>, tensor<2x12xf32>
}

// -----

// CHECK-LABEL: func @transpose_fold
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<2x3xf32>)
func.func @transpose_fold(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xi32>, tensor<3x2xf32>) {
  // CHECK-DAG: [[T:%.+]] = vg.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
  // CHECK-DAG: [[KEEP:%.+]] = vg.transpose [[X]] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK: return [[X]], [[T]], [[KEEP]]
  // The identity permutation is the input.
  %0 = vg.transpose %x {perm = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = vg.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %1 = vg.transpose %m : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %2 = vg.transpose %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<3x2xi32>, tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func @expand_fold
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<3x4xf32>)
func.func @expand_fold(%x: tensor<3x4xf32>) -> (tensor<2x3xi64>, tensor<3x4xf32>, tensor<2x3x4xf32>) {
  // CHECK-DAG: [[E:%.+]] = vg.constant dense<{{\[}}[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi64>
  // CHECK-DAG: [[KEEP:%.+]] = vg.expand [[X]] {shape = array<i64: 2, 1, 1>} : (tensor<3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK: return [[E]], [[X]], [[KEEP]]
  %c = vg.constant dense<[1, 2, 3]> : tensor<3xi64>
  %0 = vg.expand %c {shape = array<i64: 2, 1>} : (tensor<3xi64>) -> tensor<2x3xi64>
  // Expanding to the input's own shape is the input.
  %1 = vg.expand %x {shape = array<i64: 1, 4>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %2 = vg.expand %x {shape = array<i64: 2, 1, 1>} : (tensor<3x4xf32>) -> tensor<2x3x4xf32>
  return %0, %1, %2 : tensor<2x3xi64>, tensor<3x4xf32>, tensor<2x3x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Identity and Dropout
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @identity_dropout
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x128x768xf32>)
func.func @identity_dropout(%x: tensor<1x128x768xf32>) -> tensor<1x128x768xf32> {
  // CHECK-NOT: vg.identity
  // CHECK-NOT: vg.dropout
  // CHECK: [[R:%.+]] = vg.relu [[X]] : tensor<1x128x768xf32>
  // CHECK-NOT: vg.identity
  // CHECK-NOT: vg.dropout
  // CHECK: return [[R]]
  %0 = vg.identity %x : tensor<1x128x768xf32>
  %1 = vg.dropout %0 {ratio = 1.000000e-01 : f32} : tensor<1x128x768xf32>
  %2 = vg.relu %1 : tensor<1x128x768xf32>
  %3 = vg.dropout %2 : tensor<1x128x768xf32>
  %4 = vg.identity %3 : tensor<1x128x768xf32>
  return %4 : tensor<1x128x768xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Where / Equal: torch's expand(-1) pattern
//===----------------------------------------------------------------------===//

// x.expand(2, -1, 4) exports Where(Equal(shape, -1), ones, shape): with a
// constant shape the whole pattern is one constant, [2, 1, 4].
// CHECK-LABEL: func @torch_expand_pattern
func.func @torch_expand_pattern() -> tensor<3xi64> {
  // CHECK: [[S:%.+]] = vg.constant dense<[2, 1, 4]> : tensor<3xi64>
  // CHECK-NOT: vg.equal
  // CHECK-NOT: vg.where
  // CHECK-NOT: vg.constant_of_shape
  // CHECK: return [[S]]
  %shape = vg.constant dense<[2, -1, 4]> : tensor<3xi64>
  %minus1 = vg.constant dense<-1> : tensor<i64>
  %eq = vg.equal %shape, %minus1 : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %ones = vg.constant_of_shape {shape = array<i64: 3>, value = dense<1> : tensor<1xi64>} : () -> tensor<3xi64>
  %0 = vg.where %eq, %ones, %shape : (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// where with a broadcast condition and scalar branches.
// CHECK-LABEL: func @where_broadcast
func.func @where_broadcast() -> tensor<2x3xf32> {
  // CHECK: [[W:%.+]] = vg.constant dense<{{\[}}[1.000000e+00, 0.000000e+00, 1.000000e+00], [1.000000e+00, 0.000000e+00, 1.000000e+00]]> : tensor<2x3xf32>
  // CHECK: return [[W]]
  %c = vg.constant dense<[true, false, true]> : tensor<3xi1>
  %one = vg.constant dense<1.0> : tensor<f32>
  %zero = vg.constant dense<0.0> : tensor<2x1xf32>
  %0 = vg.where %c, %one, %zero : (tensor<3xi1>, tensor<f32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A branch that is not a constant keeps the where, even with a constant condition.
// CHECK-LABEL: func @where_no_fold
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<3xi64>, [[Y:%[a-z0-9_]+]]: tensor<3xi64>)
func.func @where_no_fold(%x: tensor<3xi64>, %y: tensor<3xi64>) -> (tensor<3xi64>, tensor<3xi1>) {
  // CHECK-DAG: [[C:%.+]] = vg.constant dense<[true, false, true]> : tensor<3xi1>
  // CHECK-DAG: [[M1:%.+]] = vg.constant dense<-1> : tensor<i64>
  // CHECK-DAG: [[W:%.+]] = vg.where [[C]], [[X]], [[Y]] : (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  // CHECK-DAG: [[E:%.+]] = vg.equal [[X]], [[M1]] : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  // CHECK: return [[W]], [[E]]
  %c = vg.constant dense<[true, false, true]> : tensor<3xi1>
  %0 = vg.where %c, %x, %y : (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %minus1 = vg.constant dense<-1> : tensor<i64>
  %1 = vg.equal %x, %minus1 : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  return %0, %1 : tensor<3xi64>, tensor<3xi1>
}

// -----

//===----------------------------------------------------------------------===//
// The whole chain
//===----------------------------------------------------------------------===//

// What torch emits for x.view(x.size(0), x.size(1), 12, x.size(2) // 12):
// Shape, Gather, Unsqueeze, Div, Concat feeding Reshape's shape. With a
// static x every step folds and the shape is the constant [1, 128, 12, 64],
// which is what lets the importer give Reshape a static shape attribute.
// CHECK-LABEL: func @shape_gather_concat_chain
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x128x768xf32>)
func.func @shape_gather_concat_chain(%x: tensor<1x128x768xf32>) -> (tensor<4xi64>, tensor<1x128x12x64xf32>) {
  // CHECK-DAG: [[SHAPE:%.+]] = vg.constant dense<[1, 128, 12, 64]> : tensor<4xi64>
  // CHECK-DAG: [[R:%.+]] = vg.reshape [[X]] {shape = array<i64: 0, 0, 12, -1>} : (tensor<1x128x768xf32>) -> tensor<1x128x12x64xf32>
  // CHECK-NOT: vg.shape
  // CHECK-NOT: vg.gather
  // CHECK-NOT: vg.unsqueeze
  // CHECK-NOT: vg.concat
  // CHECK: return [[SHAPE]], [[R]]
  %s = vg.shape %x : (tensor<1x128x768xf32>) -> tensor<3xi64>
  %i0 = vg.constant dense<0> : tensor<i64>
  %i1 = vg.constant dense<1> : tensor<i64>
  %d0 = vg.gather %s, %i0 {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %d1 = vg.gather %s, %i1 {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %u0 = vg.unsqueeze %d0 {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %u1 = vg.unsqueeze %d1 {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %heads = vg.constant dense<[12]> : tensor<1xi64>
  %rest = vg.constant dense<[-1]> : tensor<1xi64>
  %cat = vg.concat %u0, %u1, %heads, %rest {axis = 0 : i64}
      : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  // The -1 of the concat resolved by arithmetic on the dims: 768 / 12.
  %d2 = vg.gather %s, %i1 {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %hidden = vg.shape %x {start = 2 : i64} : (tensor<1x128x768xf32>) -> tensor<1xi64>
  %twelve = vg.constant dense<12> : tensor<1xi64>
  %head_dim = vg.div %hidden, %twelve : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %u2 = vg.unsqueeze %d2 {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %shape = vg.concat %u0, %u2, %heads, %head_dim {axis = 0 : i64}
      : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  %r = vg.reshape %x {shape = array<i64: 0, 0, 12, -1>} : (tensor<1x128x768xf32>) -> tensor<1x128x12x64xf32>
  return %shape, %r : tensor<4xi64>, tensor<1x128x12x64xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Arithmetic on constants
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @integer_arithmetic
func.func @integer_arithmetic() -> (tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) {
  // CHECK-DAG: [[ADD:%.+]] = vg.constant dense<[9, -4, 20]> : tensor<3xi64>
  // CHECK-DAG: [[MUL:%.+]] = vg.constant dense<[7, -100, 50]> : tensor<3xi64>
  // Division truncates toward zero.
  // CHECK-DAG: [[DIV:%.+]] = vg.constant dense<[7, -3, 2]> : tensor<3xi64>
  // Mod takes the divisor's sign; fmod = 1 the dividend's.
  // CHECK-DAG: [[MOD:%.+]] = vg.constant dense<[0, 2, 0]> : tensor<3xi64>
  // CHECK-DAG: [[FMOD:%.+]] = vg.constant dense<[0, -1, 0]> : tensor<3xi64>
  // CHECK-NOT: vg.add
  // CHECK-NOT: vg.mul
  // CHECK-NOT: vg.div
  // CHECK-NOT: vg.mod
  // CHECK: return [[ADD]], [[MUL]], [[DIV]], [[MOD]], [[FMOD]]
  %a = vg.constant dense<[7, -10, 10]> : tensor<3xi64>
  %b = vg.constant dense<[1, 3, 5]> : tensor<3xi64>
  %c = vg.constant dense<[1, 10, 5]> : tensor<3xi64>
  %ab = vg.add %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %0 = vg.add %ab, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %1 = vg.mul %a, %c : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %2 = vg.div %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %3 = vg.mod %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %4 = vg.mod %a, %b {fmod = 1 : i64} : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %0, %1, %2, %3, %4 : tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>
}

// -----

// CHECK-LABEL: func @float_arithmetic
func.func @float_arithmetic() -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  // A broadcast operand.
  // CHECK-DAG: [[SUB:%.+]] = vg.constant dense<{{\[}}[0.000000e+00, 1.500000e+00], [2.000000e+00, 3.500000e+00]]> : tensor<2x2xf32>
  // CHECK-DAG: [[DIV:%.+]] = vg.constant dense<[5.000000e-01, 8.000000e+00]> : tensor<2xf32>
  // CHECK-DAG: [[POW:%.+]] = vg.constant dense<[1.000000e+00, 6.400000e+01]> : tensor<2xf32>
  // CHECK-DAG: [[MAXMIN:%.+]] = vg.constant dense<[2.000000e+00, 2.500000e+00]> : tensor<2xf32>
  // CHECK: return [[SUB]], [[DIV]], [[POW]], [[MAXMIN]]
  %m = vg.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %v = vg.constant dense<[1.0, 0.5]> : tensor<2xf32>
  %0 = vg.sub %m, %v : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %x = vg.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %y = vg.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %1 = vg.div %x, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %three = vg.constant dense<3.0> : tensor<f32>
  %2 = vg.pow %x, %three : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %two = vg.constant dense<2.0> : tensor<f32>
  %hi = vg.constant dense<2.5> : tensor<f32>
  %lo = vg.max %x, %two : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %3 = vg.min %lo, %hi : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Integer division by zero is left for run time.
// CHECK-LABEL: func @div_by_zero_no_fold
func.func @div_by_zero_no_fold() -> tensor<2xi32> {
  // CHECK-DAG: [[A:%.+]] = vg.constant dense<[6, 7]> : tensor<2xi32>
  // CHECK-DAG: [[B:%.+]] = vg.constant dense<[2, 0]> : tensor<2xi32>
  // CHECK: [[D:%.+]] = vg.div [[A]], [[B]] : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  // CHECK: return [[D]]
  %a = vg.constant dense<[6, 7]> : tensor<2xi32>
  %b = vg.constant dense<[2, 0]> : tensor<2xi32>
  %0 = vg.div %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// CHECK-LABEL: func @unary_constants
func.func @unary_constants() -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  // CHECK-DAG: [[NEG:%.+]] = vg.constant dense<[3, 0, -5]> : tensor<3xi32>
  // CHECK-DAG: [[ABS:%.+]] = vg.constant dense<[3, 0, 5]> : tensor<3xi32>
  // CHECK-DAG: [[SIGN:%.+]] = vg.constant dense<[-1, 0, 1]> : tensor<3xi32>
  // CHECK-DAG: [[RELU:%.+]] = vg.constant dense<[0.000000e+00, 0.000000e+00, 4.000000e+00]> : tensor<3xf32>
  // CHECK-DAG: [[SQRT:%.+]] = vg.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<3xf32>
  // CHECK-DAG: [[CLIP:%.+]] = vg.constant dense<[0.000000e+00, 0.000000e+00, 2.000000e+00]> : tensor<3xf32>
  // CHECK: return [[NEG]], [[ABS]], [[SIGN]], [[RELU]], [[SQRT]], [[CLIP]]
  %i = vg.constant dense<[-3, 0, 5]> : tensor<3xi32>
  %0 = vg.neg %i : tensor<3xi32>
  %1 = vg.abs %i : tensor<3xi32>
  %2 = vg.sign %i : tensor<3xi32>
  %f = vg.constant dense<[-1.0, 0.0, 4.0]> : tensor<3xf32>
  %3 = vg.relu %f : tensor<3xf32>
  %g = vg.constant dense<[0.0, 1.0, 4.0]> : tensor<3xf32>
  %4 = vg.sqrt %g : tensor<3xf32>
  %5 = vg.clip %f {min = 0.0 : f64, max = 2.0 : f64} : tensor<3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func @compare_and_logic
func.func @compare_and_logic() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  // CHECK-DAG: [[LT:%.+]] = vg.constant dense<[true, false, false]> : tensor<3xi1>
  // CHECK-DAG: [[GE:%.+]] = vg.constant dense<[false, true, true]> : tensor<3xi1>
  // CHECK-DAG: [[AND:%.+]] = vg.constant dense<false> : tensor<3xi1>
  // CHECK-DAG: [[OR:%.+]] = vg.constant dense<true> : tensor<3xi1>
  // CHECK-DAG: [[EQF:%.+]] = vg.constant dense<[false, true, false]> : tensor<3xi1>
  // CHECK: return [[LT]], [[GE]], [[AND]], [[OR]], [[EQF]]
  %a = vg.constant dense<[1, 2, 3]> : tensor<3xi64>
  %two = vg.constant dense<2> : tensor<i64>
  %0 = vg.less %a, %two : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %1 = vg.greater_or_equal %a, %two : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %n = vg.not %0 : tensor<3xi1>
  %2 = vg.and %0, %n : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %3 = vg.or %0, %1 : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %f = vg.constant dense<[0.5, 2.0, 3.5]> : tensor<3xf32>
  %ftwo = vg.constant dense<2.0> : tensor<f32>
  %4 = vg.equal %f, %ftwo : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  return %0, %1, %2, %3, %4 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

// CHECK-LABEL: func @constant_of_shape_and_range
func.func @constant_of_shape_and_range() -> (tensor<2x3xf32>, tensor<5xi64>, tensor<4xf32>) {
  // CHECK-DAG: [[FILL:%.+]] = vg.constant dense<1.000000e+00> : tensor<2x3xf32>
  // CHECK-DAG: [[POS:%.+]] = vg.constant dense<[0, 1, 2, 3, 4]> : tensor<5xi64>
  // CHECK-DAG: [[STEPS:%.+]] = vg.constant dense<[2.500000e-01, 7.500000e-01, 1.250000e+00, 1.750000e+00]> : tensor<4xf32>
  // CHECK-NOT: vg.constant_of_shape
  // CHECK-NOT: vg.range
  // CHECK: return [[FILL]], [[POS]], [[STEPS]]
  %0 = vg.constant_of_shape {shape = array<i64: 2, 3>, value = dense<1.0> : tensor<1xf32>} : () -> tensor<2x3xf32>
  %1 = vg.range {start = dense<0> : tensor<i64>, limit = dense<5> : tensor<i64>, delta = dense<1> : tensor<i64>} : () -> tensor<5xi64>
  %2 = vg.range {start = dense<0.25> : tensor<f32>, limit = dense<2.0> : tensor<f32>, delta = dense<0.5> : tensor<f32>} : () -> tensor<4xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<5xi64>, tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Near misses: operands that are not constants, and constants too large
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @arithmetic_no_fold
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<3xi64>)
func.func @arithmetic_no_fold(%x: tensor<3xi64>) -> (tensor<3xi64>, tensor<3xi64>) {
  // CHECK-DAG: [[ONE:%.+]] = vg.constant dense<1> : tensor<i64>
  // CHECK-DAG: [[ADD:%.+]] = vg.add [[X]], [[ONE]] : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  // CHECK-DAG: [[NEG:%.+]] = vg.neg [[X]] : tensor<3xi64>
  // CHECK: return [[ADD]], [[NEG]]
  %one = vg.constant dense<1> : tensor<i64>
  %0 = vg.add %x, %one : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  %1 = vg.neg %x : tensor<3xi64>
  return %0, %1 : tensor<3xi64>, tensor<3xi64>
}

// -----

// 16384 elements is the limit: that many fold, one more does not.
// CHECK-LABEL: func @fold_size_limit
func.func @fold_size_limit() -> (tensor<16384xf32>, tensor<16385xf32>) {
  // CHECK-DAG: [[SMALL:%.+]] = vg.constant dense<2.000000e+00> : tensor<16384xf32>
  // CHECK-DAG: [[BIG:%.+]] = vg.constant dense<1.000000e+00> : tensor<16385xf32>
  // CHECK-DAG: [[SUM:%.+]] = vg.add [[BIG]], [[BIG]] : (tensor<16385xf32>, tensor<16385xf32>) -> tensor<16385xf32>
  // CHECK: return [[SMALL]], [[SUM]]
  %a = vg.constant dense<1.0> : tensor<16384xf32>
  %0 = vg.add %a, %a : (tensor<16384xf32>, tensor<16384xf32>) -> tensor<16384xf32>
  %b = vg.constant dense<1.0> : tensor<16385xf32>
  %1 = vg.add %b, %b : (tensor<16385xf32>, tensor<16385xf32>) -> tensor<16385xf32>
  return %0, %1 : tensor<16384xf32>, tensor<16385xf32>
}

// -----

// A small constant broadcast to a result above the limit is not folded either.
// CHECK-LABEL: func @fold_size_limit_result
func.func @fold_size_limit_result() -> (tensor<128x129xf32>, tensor<128x129xf32>) {
  // CHECK-DAG: [[ROW:%.+]] = vg.constant dense<1.000000e+00> : tensor<129xf32>
  // CHECK-DAG: [[COL:%.+]] = vg.constant dense<2.000000e+00> : tensor<128x1xf32>
  // CHECK-DAG: [[MUL:%.+]] = vg.mul [[COL]], [[ROW]] : (tensor<128x1xf32>, tensor<129xf32>) -> tensor<128x129xf32>
  // CHECK-DAG: [[EXP:%.+]] = vg.expand [[ROW]] {shape = array<i64: 128, 1>} : (tensor<129xf32>) -> tensor<128x129xf32>
  // CHECK: return [[MUL]], [[EXP]]
  %row = vg.constant dense<1.0> : tensor<129xf32>
  %col = vg.constant dense<2.0> : tensor<128x1xf32>
  %0 = vg.mul %col, %row : (tensor<128x1xf32>, tensor<129xf32>) -> tensor<128x129xf32>
  %1 = vg.expand %row {shape = array<i64: 128, 1>} : (tensor<129xf32>) -> tensor<128x129xf32>
  return %0, %1 : tensor<128x129xf32>, tensor<128x129xf32>
}

// -----

// Weight blobs are never evaluated on the host, whatever their size.
// CHECK-LABEL: func @resource_no_fold
func.func @resource_no_fold() -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  // CHECK-DAG: [[W:%.+]] = vg.constant dense_resource<w> : tensor<2x2xf32>
  // CHECK-DAG: [[T:%.+]] = vg.transpose [[W]] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  // CHECK-DAG: [[N:%.+]] = vg.neg [[W]] : tensor<2x2xf32>
  // CHECK: return [[T]], [[N]]
  %w = vg.constant dense_resource<w> : tensor<2x2xf32>
  %0 = vg.transpose %w : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = vg.neg %w : tensor<2x2xf32>
  return %0, %1 : tensor<2x2xf32>, tensor<2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
