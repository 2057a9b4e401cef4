// RUN: vinci-opt %s --split-input-file | vinci-opt --split-input-file | FileCheck %s
// RUN: vinci-opt %s --split-input-file --mlir-print-op-generic | vinci-opt --split-input-file | FileCheck %s

// Round trip of every vg op: parse, print, parse the printed form again (and
// the generic form), with the types that real models carry. The second half
// holds valid edge cases next to the verifier's error paths in invalid.mlir.

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @constant_dense
func.func @constant_dense() -> (tensor<4xi64>, tensor<f32>, tensor<2x2xi1>) {
  // CHECK: vg.constant dense<[1, 128, 12, 64]> : tensor<4xi64>
  %0 = vg.constant dense<[1, 128, 12, 64]> : tensor<4xi64>
  // CHECK: vg.constant dense<1.000000e+00> : tensor<f32>
  %1 = vg.constant dense<1.0> : tensor<f32>
  // CHECK: vg.constant dense<{{\[}}[true, false], [false, true]]> : tensor<2x2xi1>
  %2 = vg.constant dense<[[true, false], [false, true]]> : tensor<2x2xi1>
  return %0, %1, %2 : tensor<4xi64>, tensor<f32>, tensor<2x2xi1>
}

// -----

// A weight blob: the bytes live in the resource section, not in the op.
// CHECK-LABEL: func @constant_resource
func.func @constant_resource() -> tensor<2x2xf32> {
  // CHECK: vg.constant dense_resource<fc1.weight> : tensor<2x2xf32>
  %0 = vg.constant dense_resource<fc1.weight> : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// CHECK: {-#
// CHECK: dialect_resources: {
// CHECK: builtin: {
// CHECK: fc1.weight: "0x040000000000803F000000400000404000008040"
{-#
  dialect_resources: {
    builtin: {
      fc1.weight: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @float_unary
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<2x3x4xf32>)
func.func @float_unary(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // CHECK: [[SQRT:%.+]] = vg.sqrt [[X]] : tensor<2x3x4xf32>
  %0 = vg.sqrt %x : tensor<2x3x4xf32>
  // CHECK: [[RECIP:%.+]] = vg.reciprocal [[SQRT]] : tensor<2x3x4xf32>
  %1 = vg.reciprocal %0 : tensor<2x3x4xf32>
  // CHECK: [[EXP:%.+]] = vg.exp [[RECIP]] : tensor<2x3x4xf32>
  %2 = vg.exp %1 : tensor<2x3x4xf32>
  // CHECK: [[LOG:%.+]] = vg.log [[EXP]] : tensor<2x3x4xf32>
  %3 = vg.log %2 : tensor<2x3x4xf32>
  // CHECK: [[TANH:%.+]] = vg.tanh [[LOG]] : tensor<2x3x4xf32>
  %4 = vg.tanh %3 : tensor<2x3x4xf32>
  // CHECK: [[ERF:%.+]] = vg.erf [[TANH]] : tensor<2x3x4xf32>
  %5 = vg.erf %4 : tensor<2x3x4xf32>
  // CHECK: [[SIG:%.+]] = vg.sigmoid [[ERF]] : tensor<2x3x4xf32>
  %6 = vg.sigmoid %5 : tensor<2x3x4xf32>
  // CHECK: [[RELU:%.+]] = vg.relu [[SIG]] : tensor<2x3x4xf32>
  %7 = vg.relu %6 : tensor<2x3x4xf32>
  // CHECK: [[HSWISH:%.+]] = vg.hard_swish [[RELU]] : tensor<2x3x4xf32>
  %8 = vg.hard_swish %7 : tensor<2x3x4xf32>
  // CHECK: [[FLOOR:%.+]] = vg.floor [[HSWISH]] : tensor<2x3x4xf32>
  %9 = vg.floor %8 : tensor<2x3x4xf32>
  // CHECK: [[CEIL:%.+]] = vg.ceil [[FLOOR]] : tensor<2x3x4xf32>
  %10 = vg.ceil %9 : tensor<2x3x4xf32>
  // CHECK: [[SIN:%.+]] = vg.sin [[CEIL]] : tensor<2x3x4xf32>
  %11 = vg.sin %10 : tensor<2x3x4xf32>
  // CHECK: [[COS:%.+]] = vg.cos [[SIN]] : tensor<2x3x4xf32>
  %12 = vg.cos %11 : tensor<2x3x4xf32>
  // CHECK: [[SOFTPLUS:%.+]] = vg.softplus [[COS]] : tensor<2x3x4xf32>
  %13 = vg.softplus %12 : tensor<2x3x4xf32>
  // CHECK: return [[SOFTPLUS]] : tensor<2x3x4xf32>
  return %13 : tensor<2x3x4xf32>
}

// -----

// Float-only ops take every float width.
// CHECK-LABEL: func @float_unary_widths
func.func @float_unary_widths(%h: tensor<8xf16>, %b: tensor<8xbf16>, %d: tensor<8xf64>)
    -> (tensor<8xf16>, tensor<8xbf16>, tensor<8xf64>) {
  // CHECK: vg.exp %{{.+}} : tensor<8xf16>
  %0 = vg.exp %h : tensor<8xf16>
  // CHECK: vg.sigmoid %{{.+}} : tensor<8xbf16>
  %1 = vg.sigmoid %b : tensor<8xbf16>
  // CHECK: vg.tanh %{{.+}} : tensor<8xf64>
  %2 = vg.tanh %d : tensor<8xf64>
  return %0, %1, %2 : tensor<8xf16>, tensor<8xbf16>, tensor<8xf64>
}

// -----

// CHECK-LABEL: func @numeric_unary
// CHECK-SAME: ([[F:%[a-z0-9_]+]]: tensor<4x8xf16>, [[I:%[a-z0-9_]+]]: tensor<4x8xi32>, [[U:%[a-z0-9_]+]]: tensor<4x8xui8>)
func.func @numeric_unary(%f: tensor<4x8xf16>, %i: tensor<4x8xi32>, %u: tensor<4x8xui8>)
    -> (tensor<4x8xf16>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xui8>, tensor<4x8xi32>) {
  // CHECK: vg.neg [[F]] : tensor<4x8xf16>
  %0 = vg.neg %f : tensor<4x8xf16>
  // CHECK: vg.neg [[I]] : tensor<4x8xi32>
  %1 = vg.neg %i : tensor<4x8xi32>
  // CHECK: vg.abs [[I]] : tensor<4x8xi32>
  %2 = vg.abs %i : tensor<4x8xi32>
  // CHECK: vg.abs [[U]] : tensor<4x8xui8>
  %3 = vg.abs %u : tensor<4x8xui8>
  // CHECK: vg.sign [[I]] : tensor<4x8xi32>
  %4 = vg.sign %i : tensor<4x8xi32>
  return %0, %1, %2, %3, %4 : tensor<4x8xf16>, tensor<4x8xi32>, tensor<4x8xi32>, tensor<4x8xui8>, tensor<4x8xi32>
}

// -----

// CHECK-LABEL: func @not_identity_dropout
// CHECK-SAME: ([[M:%[a-z0-9_]+]]: tensor<1x128xi1>, [[X:%[a-z0-9_]+]]: tensor<1x128x768xf32>)
func.func @not_identity_dropout(%m: tensor<1x128xi1>, %x: tensor<1x128x768xf32>)
    -> (tensor<1x128xi1>, tensor<1x128x768xf32>, tensor<1x128x768xf32>, tensor<1x128x768xf32>) {
  // CHECK: vg.not [[M]] : tensor<1x128xi1>
  %0 = vg.not %m : tensor<1x128xi1>
  // CHECK: vg.identity [[X]] : tensor<1x128x768xf32>
  %1 = vg.identity %x : tensor<1x128x768xf32>
  // The default ratio is not printed.
  // CHECK: vg.dropout [[X]] : tensor<1x128x768xf32>
  %2 = vg.dropout %x {ratio = 5.000000e-01 : f32} : tensor<1x128x768xf32>
  // CHECK: vg.dropout [[X]] {ratio = 1.000000e-01 : f32} : tensor<1x128x768xf32>
  %3 = vg.dropout %x {ratio = 1.000000e-01 : f32} : tensor<1x128x768xf32>
  return %0, %1, %2, %3 : tensor<1x128xi1>, tensor<1x128x768xf32>, tensor<1x128x768xf32>, tensor<1x128x768xf32>
}

// -----

// CHECK-LABEL: func @unary_with_attributes
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x64x56x56xf32>)
func.func @unary_with_attributes(%x: tensor<1x64x56x56xf32>)
    -> (tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>,
        tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>) {
  // CHECK: vg.leaky_relu [[X]] {alpha = 1.000000e-01 : f32} : tensor<1x64x56x56xf32>
  %0 = vg.leaky_relu %x {alpha = 1.000000e-01 : f32} : tensor<1x64x56x56xf32>
  // CHECK: vg.hard_sigmoid [[X]] {alpha = 0.166666672 : f32} : tensor<1x64x56x56xf32>
  %1 = vg.hard_sigmoid %x {alpha = 0.166666672 : f32, beta = 5.000000e-01 : f32} : tensor<1x64x56x56xf32>
  // CHECK: vg.elu [[X]] {alpha = 2.000000e+00 : f32} : tensor<1x64x56x56xf32>
  %2 = vg.elu %x {alpha = 2.000000e+00 : f32} : tensor<1x64x56x56xf32>
  // CHECK: vg.selu [[X]] : tensor<1x64x56x56xf32>
  %3 = vg.selu %x : tensor<1x64x56x56xf32>
  // CHECK: vg.clip [[X]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<1x64x56x56xf32>
  %4 = vg.clip %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x64x56x56xf32>
  // A missing bound is no bound.
  // CHECK: vg.clip [[X]] {min = -1.000000e+00 : f64} : tensor<1x64x56x56xf32>
  %5 = vg.clip %x {min = -1.0 : f64} : tensor<1x64x56x56xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>,
      tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>
}

// -----

// CHECK-LABEL: func @clip_integer
func.func @clip_integer(%x: tensor<16xi8>) -> tensor<16xi8> {
  // CHECK: vg.clip %{{.+}} {max = 1.270000e+02 : f64, min = -1.280000e+02 : f64} : tensor<16xi8>
  %0 = vg.clip %x {min = -128.0 : f64, max = 127.0 : f64} : tensor<16xi8>
  return %0 : tensor<16xi8>
}

// -----

// CHECK-LABEL: func @cast
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x3x224x224xf32>, [[I:%[a-z0-9_]+]]: tensor<1x128xi64>)
func.func @cast(%x: tensor<1x3x224x224xf32>, %i: tensor<1x128xi64>)
    -> (tensor<1x3x224x224xf16>, tensor<1x128xf32>, tensor<1x128xi1>, tensor<1x128xi32>) {
  // CHECK: vg.cast [[X]] {to = f16} : (tensor<1x3x224x224xf32>) -> tensor<1x3x224x224xf16>
  %0 = vg.cast %x {to = f16} : (tensor<1x3x224x224xf32>) -> tensor<1x3x224x224xf16>
  // CHECK: vg.cast [[I]] {to = f32} : (tensor<1x128xi64>) -> tensor<1x128xf32>
  %1 = vg.cast %i {to = f32} : (tensor<1x128xi64>) -> tensor<1x128xf32>
  // CHECK: vg.cast [[I]] {to = i1} : (tensor<1x128xi64>) -> tensor<1x128xi1>
  %2 = vg.cast %i {to = i1} : (tensor<1x128xi64>) -> tensor<1x128xi1>
  // CHECK: vg.cast [[I]] {to = i32} : (tensor<1x128xi64>) -> tensor<1x128xi32>
  %3 = vg.cast %i {to = i32} : (tensor<1x128xi64>) -> tensor<1x128xi32>
  return %0, %1, %2, %3 : tensor<1x3x224x224xf16>, tensor<1x128xf32>, tensor<1x128xi1>, tensor<1x128xi32>
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise binary and ternary
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @arithmetic
// CHECK-SAME: ([[A:%[a-z0-9_]+]]: tensor<1x128x768xf32>, [[B:%[a-z0-9_]+]]: tensor<768xf32>)
func.func @arithmetic(%a: tensor<1x128x768xf32>, %b: tensor<768xf32>) -> tensor<1x128x768xf32> {
  // CHECK: [[ADD:%.+]] = vg.add [[A]], [[B]] : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  %0 = vg.add %a, %b : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  // CHECK: [[SUB:%.+]] = vg.sub [[ADD]], [[B]] : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  %1 = vg.sub %0, %b : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  // CHECK: [[MUL:%.+]] = vg.mul [[B]], [[SUB]] : (tensor<768xf32>, tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
  %2 = vg.mul %b, %1 : (tensor<768xf32>, tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
  // CHECK: [[DIV:%.+]] = vg.div [[MUL]], [[A]] : (tensor<1x128x768xf32>, tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
  %3 = vg.div %2, %a : (tensor<1x128x768xf32>, tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
  // CHECK: [[MAX:%.+]] = vg.max [[DIV]], [[B]] : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  %4 = vg.max %3, %b : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  // CHECK: [[MIN:%.+]] = vg.min [[MAX]], [[B]] : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  %5 = vg.min %4, %b : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  // CHECK: [[PRELU:%.+]] = vg.prelu [[MIN]], [[B]] : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  %6 = vg.prelu %5, %b : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  // CHECK: return [[PRELU]]
  return %6 : tensor<1x128x768xf32>
}

// -----

// Pow is the one binary op whose exponent may have another element type.
// CHECK-LABEL: func @pow_mixed_types
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<2x3xf32>, [[E:%[a-z0-9_]+]]: tensor<i64>)
func.func @pow_mixed_types(%x: tensor<2x3xf32>, %e: tensor<i64>) -> tensor<2x3xf32> {
  // CHECK: vg.pow [[X]], [[E]] : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  %0 = vg.pow %x, %e : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @mod
func.func @mod(%a: tensor<6xi32>, %b: tensor<6xi32>, %f: tensor<6xf32>) -> (tensor<6xi32>, tensor<6xf32>) {
  // The default fmod = 0 is not printed.
  // CHECK: vg.mod %{{.+}}, %{{.+}} : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  %0 = vg.mod %a, %b : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  // CHECK: vg.mod %{{.+}}, %{{.+}} {fmod = 1 : i64} : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %1 = vg.mod %f, %f {fmod = 1 : i64} : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  return %0, %1 : tensor<6xi32>, tensor<6xf32>
}

// -----

// CHECK-LABEL: func @comparisons
// CHECK-SAME: ([[A:%[a-z0-9_]+]]: tensor<2x1xi64>, [[B:%[a-z0-9_]+]]: tensor<3xi64>)
func.func @comparisons(%a: tensor<2x1xi64>, %b: tensor<3xi64>)
    -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>) {
  // CHECK: vg.equal [[A]], [[B]] : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  %0 = vg.equal %a, %b : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  // CHECK: vg.less [[A]], [[B]] : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  %1 = vg.less %a, %b : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  // CHECK: vg.less_or_equal [[A]], [[B]] : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  %2 = vg.less_or_equal %a, %b : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  // CHECK: vg.greater [[A]], [[B]] : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  %3 = vg.greater %a, %b : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  // CHECK: vg.greater_or_equal [[A]], [[B]] : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  %4 = vg.greater_or_equal %a, %b : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  return %0, %1, %2, %3, %4 : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>
}

// -----

// CHECK-LABEL: func @equal_on_floats
func.func @equal_on_floats(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xi1> {
  // CHECK: vg.equal %{{.+}}, %{{.+}} : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xi1>
  %0 = vg.equal %a, %b : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// CHECK-LABEL: func @logical
// CHECK-SAME: ([[A:%[a-z0-9_]+]]: tensor<1x1x128x128xi1>, [[B:%[a-z0-9_]+]]: tensor<128xi1>)
func.func @logical(%a: tensor<1x1x128x128xi1>, %b: tensor<128xi1>)
    -> (tensor<1x1x128x128xi1>, tensor<1x1x128x128xi1>, tensor<1x1x128x128xi1>) {
  // CHECK: vg.and [[A]], [[B]] : (tensor<1x1x128x128xi1>, tensor<128xi1>) -> tensor<1x1x128x128xi1>
  %0 = vg.and %a, %b : (tensor<1x1x128x128xi1>, tensor<128xi1>) -> tensor<1x1x128x128xi1>
  // CHECK: vg.or [[A]], [[B]] : (tensor<1x1x128x128xi1>, tensor<128xi1>) -> tensor<1x1x128x128xi1>
  %1 = vg.or %a, %b : (tensor<1x1x128x128xi1>, tensor<128xi1>) -> tensor<1x1x128x128xi1>
  // CHECK: vg.xor [[A]], [[B]] : (tensor<1x1x128x128xi1>, tensor<128xi1>) -> tensor<1x1x128x128xi1>
  %2 = vg.xor %a, %b : (tensor<1x1x128x128xi1>, tensor<128xi1>) -> tensor<1x1x128x128xi1>
  return %0, %1, %2 : tensor<1x1x128x128xi1>, tensor<1x1x128x128xi1>, tensor<1x1x128x128xi1>
}

// -----

// The attention-mask pattern: where(mask, scores, -inf) over three shapes.
// CHECK-LABEL: func @where
// CHECK-SAME: ([[C:%[a-z0-9_]+]]: tensor<1x1x128x128xi1>, [[X:%[a-z0-9_]+]]: tensor<1x12x128x128xf32>, [[Y:%[a-z0-9_]+]]: tensor<f32>)
func.func @where(%c: tensor<1x1x128x128xi1>, %x: tensor<1x12x128x128xf32>, %y: tensor<f32>) -> tensor<1x12x128x128xf32> {
  // CHECK: vg.where [[C]], [[X]], [[Y]] : (tensor<1x1x128x128xi1>, tensor<1x12x128x128xf32>, tensor<f32>) -> tensor<1x12x128x128xf32>
  %0 = vg.where %c, %x, %y : (tensor<1x1x128x128xi1>, tensor<1x12x128x128xf32>, tensor<f32>) -> tensor<1x12x128x128xf32>
  return %0 : tensor<1x12x128x128xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Linear algebra and convolution
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @matmul
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x128x768xf32>, [[W:%[a-z0-9_]+]]: tensor<768x3072xf32>)
func.func @matmul(%x: tensor<1x128x768xf32>, %w: tensor<768x3072xf32>) -> tensor<1x128x3072xf32> {
  // CHECK: vg.matmul [[X]], [[W]] : (tensor<1x128x768xf32>, tensor<768x3072xf32>) -> tensor<1x128x3072xf32>
  %0 = vg.matmul %x, %w : (tensor<1x128x768xf32>, tensor<768x3072xf32>) -> tensor<1x128x3072xf32>
  return %0 : tensor<1x128x3072xf32>
}

// -----

// Gemm(A, B^T) as ONNX exports nn.Linear; the default transposes are not printed.
// CHECK-LABEL: func @matmul_transposes
func.func @matmul_transposes(%x: tensor<8x768xf32>, %w: tensor<3072x768xf32>, %t: tensor<768x8xf32>)
    -> (tensor<8x3072xf32>, tensor<8x3072xf32>, tensor<8x3072xf32>) {
  // CHECK: vg.matmul %{{.+}}, %{{.+}} {transpose_b = true} : (tensor<8x768xf32>, tensor<3072x768xf32>) -> tensor<8x3072xf32>
  %0 = vg.matmul %x, %w {transpose_b = true} : (tensor<8x768xf32>, tensor<3072x768xf32>) -> tensor<8x3072xf32>
  // CHECK: vg.matmul %{{.+}}, %{{.+}} {transpose_a = true, transpose_b = true} : (tensor<768x8xf32>, tensor<3072x768xf32>) -> tensor<8x3072xf32>
  %1 = vg.matmul %t, %w {transpose_a = true, transpose_b = true} : (tensor<768x8xf32>, tensor<3072x768xf32>) -> tensor<8x3072xf32>
  // CHECK: vg.matmul %{{.+}}, %{{.+}} {transpose_b = true} : (tensor<8x768xf32>, tensor<3072x768xf32>) -> tensor<8x3072xf32>
  %2 = vg.matmul %x, %w {transpose_a = false, transpose_b = true} : (tensor<8x768xf32>, tensor<3072x768xf32>) -> tensor<8x3072xf32>
  return %0, %1, %2 : tensor<8x3072xf32>, tensor<8x3072xf32>, tensor<8x3072xf32>
}

// -----

// Batch dims broadcast; 1-D operands are promoted and the promoted dim dropped.
// CHECK-LABEL: func @matmul_batch_and_vectors
func.func @matmul_batch_and_vectors(%q: tensor<1x12x128x64xf32>, %k: tensor<12x64x128xf32>,
                                    %v: tensor<64xf32>, %m: tensor<3x64x5xf32>)
    -> (tensor<1x12x128x128xf32>, tensor<3x5xf32>, tensor<1x12x128xf32>, tensor<f32>) {
  // CHECK: vg.matmul %{{.+}}, %{{.+}} : (tensor<1x12x128x64xf32>, tensor<12x64x128xf32>) -> tensor<1x12x128x128xf32>
  %0 = vg.matmul %q, %k : (tensor<1x12x128x64xf32>, tensor<12x64x128xf32>) -> tensor<1x12x128x128xf32>
  // CHECK: vg.matmul %{{.+}}, %{{.+}} : (tensor<64xf32>, tensor<3x64x5xf32>) -> tensor<3x5xf32>
  %1 = vg.matmul %v, %m : (tensor<64xf32>, tensor<3x64x5xf32>) -> tensor<3x5xf32>
  // CHECK: vg.matmul %{{.+}}, %{{.+}} : (tensor<1x12x128x64xf32>, tensor<64xf32>) -> tensor<1x12x128xf32>
  %2 = vg.matmul %q, %v : (tensor<1x12x128x64xf32>, tensor<64xf32>) -> tensor<1x12x128xf32>
  // CHECK: vg.matmul %{{.+}}, %{{.+}} : (tensor<64xf32>, tensor<64xf32>) -> tensor<f32>
  %3 = vg.matmul %v, %v : (tensor<64xf32>, tensor<64xf32>) -> tensor<f32>
  return %0, %1, %2, %3 : tensor<1x12x128x128xf32>, tensor<3x5xf32>, tensor<1x12x128xf32>, tensor<f32>
}

// -----

// CHECK-LABEL: func @matmul_int8
func.func @matmul_int8(%a: tensor<16x32xi8>, %b: tensor<32x16xi8>) -> tensor<16x16xi8> {
  // CHECK: vg.matmul %{{.+}}, %{{.+}} : (tensor<16x32xi8>, tensor<32x16xi8>) -> tensor<16x16xi8>
  %0 = vg.matmul %a, %b : (tensor<16x32xi8>, tensor<32x16xi8>) -> tensor<16x16xi8>
  return %0 : tensor<16x16xi8>
}

// -----

// ResNet's stem: 7x7/2, pad 3.
// CHECK-LABEL: func @conv
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x3x224x224xf32>, [[W:%[a-z0-9_]+]]: tensor<64x3x7x7xf32>, [[B:%[a-z0-9_]+]]: tensor<64xf32>)
func.func @conv(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %b: tensor<64xf32>)
    -> (tensor<1x64x112x112xf32>, tensor<1x64x218x218xf32>) {
  // CHECK: vg.conv [[X]], [[W]], [[B]] {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 7, 7>, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>}
  // CHECK-SAME: : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
  %0 = vg.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 7, 7>,
                           pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>}
      : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
  // No bias, no attributes: stride 1, no padding.
  // CHECK: vg.conv [[X]], [[W]] : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x218x218xf32>
  %1 = vg.conv %x, %w : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x218x218xf32>
  return %0, %1 : tensor<1x64x112x112xf32>, tensor<1x64x218x218xf32>
}

// -----

// Depthwise (group = C) and grouped convolutions, dilation, 1-D and 3-D.
// CHECK-LABEL: func @conv_groups_and_ranks
func.func @conv_groups_and_ranks(%x: tensor<1x32x112x112xf16>, %dw: tensor<32x1x3x3xf16>,
                                 %gw: tensor<64x8x3x3xf16>, %s: tensor<2x4x50xf32>,
                                 %sw: tensor<6x4x3xf32>, %v: tensor<1x2x8x8x8xf32>,
                                 %vw: tensor<4x2x3x3x3xf32>)
    -> (tensor<1x32x112x112xf16>, tensor<1x64x108x108xf16>, tensor<2x6x24xf32>, tensor<1x4x6x6x6xf32>) {
  // CHECK: vg.conv %{{.+}}, %{{.+}} {group = 32 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x112x112xf16>, tensor<32x1x3x3xf16>) -> tensor<1x32x112x112xf16>
  %0 = vg.conv %x, %dw {group = 32 : i64, pads = array<i64: 1, 1, 1, 1>}
      : (tensor<1x32x112x112xf16>, tensor<32x1x3x3xf16>) -> tensor<1x32x112x112xf16>
  // CHECK: vg.conv %{{.+}}, %{{.+}} {dilations = array<i64: 2, 2>, group = 4 : i64} : (tensor<1x32x112x112xf16>, tensor<64x8x3x3xf16>) -> tensor<1x64x108x108xf16>
  %1 = vg.conv %x, %gw {dilations = array<i64: 2, 2>, group = 4 : i64}
      : (tensor<1x32x112x112xf16>, tensor<64x8x3x3xf16>) -> tensor<1x64x108x108xf16>
  // CHECK: vg.conv %{{.+}}, %{{.+}} {strides = array<i64: 2>} : (tensor<2x4x50xf32>, tensor<6x4x3xf32>) -> tensor<2x6x24xf32>
  %2 = vg.conv %s, %sw {strides = array<i64: 2>} : (tensor<2x4x50xf32>, tensor<6x4x3xf32>) -> tensor<2x6x24xf32>
  // CHECK: vg.conv %{{.+}}, %{{.+}} : (tensor<1x2x8x8x8xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x4x6x6x6xf32>
  %3 = vg.conv %v, %vw : (tensor<1x2x8x8x8xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x4x6x6x6xf32>
  return %0, %1, %2, %3 : tensor<1x32x112x112xf16>, tensor<1x64x108x108xf16>, tensor<2x6x24xf32>, tensor<1x4x6x6x6xf32>
}

// -----

// auto_pad: SAME keeps ceil(in / stride), VALID drops the pads.
// CHECK-LABEL: func @conv_auto_pad
func.func @conv_auto_pad(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %y: tensor<1x1x7x5xf32>, %k: tensor<1x1x3x3xf32>)
    -> (tensor<1x64x112x112xf32>, tensor<1x64x112x112xf32>, tensor<1x64x109x109xf32>, tensor<1x1x4x3xf32>) {
  // CHECK: vg.conv %{{.+}}, %{{.+}} {auto_pad = "SAME_UPPER", strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32>
  %0 = vg.conv %x, %w {auto_pad = "SAME_UPPER", strides = array<i64: 2, 2>}
      : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32>
  // CHECK: vg.conv %{{.+}}, %{{.+}} {auto_pad = "SAME_LOWER", strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32>
  %1 = vg.conv %x, %w {auto_pad = "SAME_LOWER", strides = array<i64: 2, 2>}
      : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32>
  // VALID ignores the given pads.
  // CHECK: vg.conv %{{.+}}, %{{.+}} {auto_pad = "VALID", pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x109x109xf32>
  %2 = vg.conv %x, %w {auto_pad = "VALID", pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>}
      : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x109x109xf32>
  // The ONNX node test conv_with_autopad_same: 7x5 input, 3x3 kernel, stride 2.
  // CHECK: vg.conv %{{.+}}, %{{.+}} {auto_pad = "SAME_LOWER", strides = array<i64: 2, 2>} : (tensor<1x1x7x5xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x4x3xf32>
  %3 = vg.conv %y, %k {auto_pad = "SAME_LOWER", strides = array<i64: 2, 2>}
      : (tensor<1x1x7x5xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x4x3xf32>
  return %0, %1, %2, %3 : tensor<1x64x112x112xf32>, tensor<1x64x112x112xf32>, tensor<1x64x109x109xf32>, tensor<1x1x4x3xf32>
}

// -----

// A window larger than the input gives an empty output, not an error.
// CHECK-LABEL: func @conv_empty_output
func.func @conv_empty_output(%x: tensor<1x1x2x2xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x0x0xf32> {
  // CHECK: vg.conv %{{.+}}, %{{.+}} : (tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x0x0xf32>
  %0 = vg.conv %x, %w : (tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x0x0xf32>
  return %0 : tensor<1x1x0x0xf32>
}

// -----

// CHECK-LABEL: func @pools
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x64x112x112xf32>)
func.func @pools(%x: tensor<1x64x112x112xf32>)
    -> (tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>, tensor<1x64x1x1xf32>, tensor<1x64x1x1xf32>) {
  // CHECK: vg.max_pool [[X]] {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
  %0 = vg.max_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
      : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
  // CHECK: vg.average_pool [[X]] {count_include_pad = 1 : i64, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
  %1 = vg.average_pool %x {count_include_pad = 1 : i64, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
  // CHECK: vg.global_average_pool [[X]] : (tensor<1x64x112x112xf32>) -> tensor<1x64x1x1xf32>
  %2 = vg.global_average_pool %x : (tensor<1x64x112x112xf32>) -> tensor<1x64x1x1xf32>
  // CHECK: vg.global_max_pool [[X]] : (tensor<1x64x112x112xf32>) -> tensor<1x64x1x1xf32>
  %3 = vg.global_max_pool %x : (tensor<1x64x112x112xf32>) -> tensor<1x64x1x1xf32>
  return %0, %1, %2, %3 : tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>, tensor<1x64x1x1xf32>, tensor<1x64x1x1xf32>
}

// -----

// ceil_mode rounds the last window up, unless it would start in the end padding.
// CHECK-LABEL: func @pool_ceil_mode
func.func @pool_ceil_mode(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x3x3xf32>, %y: tensor<1x3x32x32xf32>, %z: tensor<1x8x10xf32>)
    -> (tensor<1x1x2x2xf32>, tensor<1x1x4x4xf32>, tensor<1x3x16x16xf32>, tensor<1x8x4xf32>) {
  // CHECK: vg.max_pool %{{.+}} {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x1x1xf32>
  // CHECK: vg.max_pool %{{.+}} {ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %floor = vg.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>}
      : (tensor<1x1x4x4xf32>) -> tensor<1x1x1x1xf32>
  %0 = vg.max_pool %x {ceil_mode = 1 : i64, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>}
      : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  // The window that would start in the end padding is dropped: 3 -> 2, not 3.
  // CHECK: vg.max_pool %{{.+}} {ceil_mode = 1 : i64, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  %last = vg.max_pool %w {ceil_mode = 1 : i64, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
      : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  // CHECK: vg.max_pool %{{.+}} {dilations = array<i64: 2, 2>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, storage_order = 1 : i64} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %1 = vg.max_pool %x {dilations = array<i64: 2, 2>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, storage_order = 1 : i64}
      : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  // CHECK: vg.average_pool %{{.+}} {auto_pad = "SAME_UPPER", kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x16x16xf32>
  %2 = vg.average_pool %y {auto_pad = "SAME_UPPER", kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>}
      : (tensor<1x3x32x32xf32>) -> tensor<1x3x16x16xf32>
  // CHECK: vg.average_pool %{{.+}} {kernel_shape = array<i64: 3>, strides = array<i64: 2>} : (tensor<1x8x10xf32>) -> tensor<1x8x4xf32>
  %3 = vg.average_pool %z {kernel_shape = array<i64: 3>, strides = array<i64: 2>} : (tensor<1x8x10xf32>) -> tensor<1x8x4xf32>
  return %0, %1, %2, %3 : tensor<1x1x2x2xf32>, tensor<1x1x4x4xf32>, tensor<1x3x16x16xf32>, tensor<1x8x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Normalisation and softmax
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @batch_norm
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x64x56x56xf32>, [[S:%[a-z0-9_]+]]: tensor<64xf32>, [[B:%[a-z0-9_]+]]: tensor<64xf32>, [[M:%[a-z0-9_]+]]: tensor<64xf32>, [[V:%[a-z0-9_]+]]: tensor<64xf32>)
func.func @batch_norm(%x: tensor<1x64x56x56xf32>, %s: tensor<64xf32>, %b: tensor<64xf32>, %m: tensor<64xf32>, %v: tensor<64xf32>)
    -> (tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>) {
  // CHECK: vg.batch_norm [[X]], [[S]], [[B]], [[M]], [[V]] : (tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
  %0 = vg.batch_norm %x, %s, %b, %m, %v
      : (tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
  // CHECK: vg.batch_norm [[X]], [[S]], [[B]], [[M]], [[V]] {epsilon = 1.000000e-03 : f32}
  %1 = vg.batch_norm %x, %s, %b, %m, %v {epsilon = 1.000000e-03 : f32}
      : (tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
  return %0, %1 : tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>
}

// -----

// BatchNorm1d on N x C.
// CHECK-LABEL: func @batch_norm_2d
func.func @batch_norm_2d(%x: tensor<8x16xf32>, %p: tensor<16xf32>) -> tensor<8x16xf32> {
  // CHECK: vg.batch_norm %{{.+}} : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %0 = vg.batch_norm %x, %p, %p, %p, %p : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// CHECK-LABEL: func @layer_norm
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x128x768xf32>, [[S:%[a-z0-9_]+]]: tensor<768xf32>, [[B:%[a-z0-9_]+]]: tensor<768xf32>, [[S2:%[a-z0-9_]+]]: tensor<128x768xf32>)
func.func @layer_norm(%x: tensor<1x128x768xf32>, %s: tensor<768xf32>, %b: tensor<768xf32>, %s2: tensor<128x768xf32>)
    -> (tensor<1x128x768xf32>, tensor<1x128x768xf32>, tensor<1x128x768xf32>) {
  // CHECK: vg.layer_norm [[X]], [[S]], [[B]] {epsilon = 9.99999996E-13 : f32} : (tensor<1x128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  %0 = vg.layer_norm %x, %s, %b {epsilon = 9.99999996E-13 : f32}
      : (tensor<1x128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  // The bias is optional.
  // CHECK: vg.layer_norm [[X]], [[S]] : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  %1 = vg.layer_norm %x, %s : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  // Normalising over the last two dims.
  // CHECK: vg.layer_norm [[X]], [[S2]] {axis = -2 : i64} : (tensor<1x128x768xf32>, tensor<128x768xf32>) -> tensor<1x128x768xf32>
  %2 = vg.layer_norm %x, %s2 {axis = -2 : i64} : (tensor<1x128x768xf32>, tensor<128x768xf32>) -> tensor<1x128x768xf32>
  return %0, %1, %2 : tensor<1x128x768xf32>, tensor<1x128x768xf32>, tensor<1x128x768xf32>
}

// -----

// CHECK-LABEL: func @softmax
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x12x128x128xf32>)
func.func @softmax(%x: tensor<1x12x128x128xf32>)
    -> (tensor<1x12x128x128xf32>, tensor<1x12x128x128xf32>, tensor<1x12x128x128xf32>) {
  // CHECK: vg.softmax [[X]] : (tensor<1x12x128x128xf32>) -> tensor<1x12x128x128xf32>
  %0 = vg.softmax %x : (tensor<1x12x128x128xf32>) -> tensor<1x12x128x128xf32>
  // CHECK: vg.softmax [[X]] {axis = 1 : i64} : (tensor<1x12x128x128xf32>) -> tensor<1x12x128x128xf32>
  %1 = vg.softmax %x {axis = 1 : i64} : (tensor<1x12x128x128xf32>) -> tensor<1x12x128x128xf32>
  // CHECK: vg.log_softmax [[X]] {axis = -4 : i64} : (tensor<1x12x128x128xf32>) -> tensor<1x12x128x128xf32>
  %2 = vg.log_softmax %x {axis = -4 : i64} : (tensor<1x12x128x128xf32>) -> tensor<1x12x128x128xf32>
  return %0, %1, %2 : tensor<1x12x128x128xf32>, tensor<1x12x128x128xf32>, tensor<1x12x128x128xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @reductions
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<2x128x768xf32>)
func.func @reductions(%x: tensor<2x128x768xf32>)
    -> (tensor<2x128x1xf32>, tensor<2x768xf32>, tensor<1x1x1xf32>, tensor<f32>, tensor<2x1x1xf32>, tensor<128xf32>) {
  // CHECK: vg.reduce_mean [[X]] {axes = array<i64: -1>} : (tensor<2x128x768xf32>) -> tensor<2x128x1xf32>
  %0 = vg.reduce_mean %x {axes = array<i64: -1>} : (tensor<2x128x768xf32>) -> tensor<2x128x1xf32>
  // CHECK: vg.reduce_sum [[X]] {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<2x128x768xf32>) -> tensor<2x768xf32>
  %1 = vg.reduce_sum %x {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<2x128x768xf32>) -> tensor<2x768xf32>
  // No axes: every dim reduces.
  // CHECK: vg.reduce_max [[X]] : (tensor<2x128x768xf32>) -> tensor<1x1x1xf32>
  %2 = vg.reduce_max %x : (tensor<2x128x768xf32>) -> tensor<1x1x1xf32>
  // CHECK: vg.reduce_min [[X]] {keepdims = 0 : i64} : (tensor<2x128x768xf32>) -> tensor<f32>
  %3 = vg.reduce_min %x {keepdims = 0 : i64} : (tensor<2x128x768xf32>) -> tensor<f32>
  // CHECK: vg.reduce_prod [[X]] {axes = array<i64: 2, 1>} : (tensor<2x128x768xf32>) -> tensor<2x1x1xf32>
  %4 = vg.reduce_prod %x {axes = array<i64: 2, 1>} : (tensor<2x128x768xf32>) -> tensor<2x1x1xf32>
  // CHECK: vg.reduce_l2 [[X]] {axes = array<i64: 0, -1>, keepdims = 0 : i64} : (tensor<2x128x768xf32>) -> tensor<128xf32>
  %5 = vg.reduce_l2 %x {axes = array<i64: 0, -1>, keepdims = 0 : i64} : (tensor<2x128x768xf32>) -> tensor<128xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x128x1xf32>, tensor<2x768xf32>, tensor<1x1x1xf32>, tensor<f32>, tensor<2x1x1xf32>, tensor<128xf32>
}

// -----

// noop_with_empty_axes: empty axes leave the input as it is.
// CHECK-LABEL: func @reduce_noop_with_empty_axes
func.func @reduce_noop_with_empty_axes(%x: tensor<3x4xi32>) -> (tensor<3x4xi32>, tensor<3x4xi32>) {
  // CHECK: vg.reduce_sum %{{.+}} {noop_with_empty_axes = 1 : i64} : (tensor<3x4xi32>) -> tensor<3x4xi32>
  %0 = vg.reduce_sum %x {noop_with_empty_axes = 1 : i64} : (tensor<3x4xi32>) -> tensor<3x4xi32>
  // CHECK: vg.reduce_sum %{{.+}} {axes = array<i64>, noop_with_empty_axes = 1 : i64} : (tensor<3x4xi32>) -> tensor<3x4xi32>
  %1 = vg.reduce_sum %x {axes = array<i64>, noop_with_empty_axes = 1 : i64} : (tensor<3x4xi32>) -> tensor<3x4xi32>
  return %0, %1 : tensor<3x4xi32>, tensor<3x4xi32>
}

// -----

// CHECK-LABEL: func @arg_reductions
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<8x1000xf32>)
func.func @arg_reductions(%x: tensor<8x1000xf32>) -> (tensor<8xi64>, tensor<1x1000xi64>) {
  // CHECK: vg.arg_max [[X]] {axis = 1 : i64, keepdims = 0 : i64} : (tensor<8x1000xf32>) -> tensor<8xi64>
  %0 = vg.arg_max %x {axis = 1 : i64, keepdims = 0 : i64} : (tensor<8x1000xf32>) -> tensor<8xi64>
  // CHECK: vg.arg_min [[X]] {select_last_index = 1 : i64} : (tensor<8x1000xf32>) -> tensor<1x1000xi64>
  %1 = vg.arg_min %x {select_last_index = 1 : i64} : (tensor<8x1000xf32>) -> tensor<1x1000xi64>
  return %0, %1 : tensor<8xi64>, tensor<1x1000xi64>
}

// -----

//===----------------------------------------------------------------------===//
// Data movement and shape
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func @transpose
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x128x12x64xf32>)
func.func @transpose(%x: tensor<1x128x12x64xf32>) -> (tensor<1x12x128x64xf32>, tensor<64x12x128x1xf32>) {
  // CHECK: vg.transpose [[X]] {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x128x12x64xf32>) -> tensor<1x12x128x64xf32>
  %0 = vg.transpose %x {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x128x12x64xf32>) -> tensor<1x12x128x64xf32>
  // No perm: the dims reverse.
  // CHECK: vg.transpose [[X]] : (tensor<1x128x12x64xf32>) -> tensor<64x12x128x1xf32>
  %1 = vg.transpose %x : (tensor<1x128x12x64xf32>) -> tensor<64x12x128x1xf32>
  return %0, %1 : tensor<1x12x128x64xf32>, tensor<64x12x128x1xf32>
}

// -----

// CHECK-LABEL: func @reshape
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x128x768xf32>)
func.func @reshape(%x: tensor<1x128x768xf32>) -> (tensor<1x128x12x64xf32>, tensor<128x768xf32>, tensor<98304xf32>) {
  // 0 copies the input dim, -1 is inferred.
  // CHECK: vg.reshape [[X]] {shape = array<i64: 0, 0, 12, -1>} : (tensor<1x128x768xf32>) -> tensor<1x128x12x64xf32>
  %0 = vg.reshape %x {shape = array<i64: 0, 0, 12, -1>} : (tensor<1x128x768xf32>) -> tensor<1x128x12x64xf32>
  // CHECK: vg.reshape [[X]] {shape = array<i64: -1, 768>} : (tensor<1x128x768xf32>) -> tensor<128x768xf32>
  %1 = vg.reshape %x {shape = array<i64: -1, 768>} : (tensor<1x128x768xf32>) -> tensor<128x768xf32>
  // CHECK: vg.reshape [[X]] {shape = array<i64: -1>} : (tensor<1x128x768xf32>) -> tensor<98304xf32>
  %2 = vg.reshape %x {shape = array<i64: -1>} : (tensor<1x128x768xf32>) -> tensor<98304xf32>
  return %0, %1, %2 : tensor<1x128x12x64xf32>, tensor<128x768xf32>, tensor<98304xf32>
}

// -----

// allowzero = 1: 0 is a real zero-sized dim; empty tensors reshape to empty.
// CHECK-LABEL: func @reshape_allowzero
func.func @reshape_allowzero(%x: tensor<0x3x4xf32>) -> (tensor<3x4x0xf32>, tensor<0x3x4xf32>) {
  // CHECK: vg.reshape %{{.+}} {allowzero = 1 : i64, shape = array<i64: 3, 4, 0>} : (tensor<0x3x4xf32>) -> tensor<3x4x0xf32>
  %0 = vg.reshape %x {allowzero = 1 : i64, shape = array<i64: 3, 4, 0>} : (tensor<0x3x4xf32>) -> tensor<3x4x0xf32>
  // Without allowzero, 0 copies dim 0 (itself 0).
  // CHECK: vg.reshape %{{.+}} {shape = array<i64: 0, 3, 4>} : (tensor<0x3x4xf32>) -> tensor<0x3x4xf32>
  %1 = vg.reshape %x {shape = array<i64: 0, 3, 4>} : (tensor<0x3x4xf32>) -> tensor<0x3x4xf32>
  return %0, %1 : tensor<3x4x0xf32>, tensor<0x3x4xf32>
}

// -----

// CHECK-LABEL: func @flatten
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<2x512x7x7xf32>)
func.func @flatten(%x: tensor<2x512x7x7xf32>) -> (tensor<2x25088xf32>, tensor<1x50176xf32>, tensor<7168x7xf32>, tensor<50176x1xf32>) {
  // CHECK: vg.flatten [[X]] : (tensor<2x512x7x7xf32>) -> tensor<2x25088xf32>
  %0 = vg.flatten %x : (tensor<2x512x7x7xf32>) -> tensor<2x25088xf32>
  // CHECK: vg.flatten [[X]] {axis = 0 : i64} : (tensor<2x512x7x7xf32>) -> tensor<1x50176xf32>
  %1 = vg.flatten %x {axis = 0 : i64} : (tensor<2x512x7x7xf32>) -> tensor<1x50176xf32>
  // CHECK: vg.flatten [[X]] {axis = -1 : i64} : (tensor<2x512x7x7xf32>) -> tensor<7168x7xf32>
  %2 = vg.flatten %x {axis = -1 : i64} : (tensor<2x512x7x7xf32>) -> tensor<7168x7xf32>
  // axis = rank is valid for Flatten (unlike most axes).
  // CHECK: vg.flatten [[X]] {axis = 4 : i64} : (tensor<2x512x7x7xf32>) -> tensor<50176x1xf32>
  %3 = vg.flatten %x {axis = 4 : i64} : (tensor<2x512x7x7xf32>) -> tensor<50176x1xf32>
  return %0, %1, %2, %3 : tensor<2x25088xf32>, tensor<1x50176xf32>, tensor<7168x7xf32>, tensor<50176x1xf32>
}

// -----

// CHECK-LABEL: func @squeeze_unsqueeze
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x3x1x5xf32>, [[S:%[a-z0-9_]+]]: tensor<i64>)
func.func @squeeze_unsqueeze(%x: tensor<1x3x1x5xf32>, %s: tensor<i64>)
    -> (tensor<3x1x5xf32>, tensor<3x5xf32>, tensor<1x3x5xf32>, tensor<1xi64>, tensor<1x1x3x1x5x1xf32>) {
  // CHECK: vg.squeeze [[X]] {axes = array<i64: 0>} : (tensor<1x3x1x5xf32>) -> tensor<3x1x5xf32>
  %0 = vg.squeeze %x {axes = array<i64: 0>} : (tensor<1x3x1x5xf32>) -> tensor<3x1x5xf32>
  // No axes: every size-1 dim goes.
  // CHECK: vg.squeeze [[X]] : (tensor<1x3x1x5xf32>) -> tensor<3x5xf32>
  %1 = vg.squeeze %x : (tensor<1x3x1x5xf32>) -> tensor<3x5xf32>
  // CHECK: vg.squeeze [[X]] {axes = array<i64: -2>} : (tensor<1x3x1x5xf32>) -> tensor<1x3x5xf32>
  %2 = vg.squeeze %x {axes = array<i64: -2>} : (tensor<1x3x1x5xf32>) -> tensor<1x3x5xf32>
  // A scalar unsqueezes to a 1-element vector, as torch emits for Concat of dims.
  // CHECK: vg.unsqueeze [[S]] {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %3 = vg.unsqueeze %s {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  // Axes index the output; negative ones count from its end.
  // CHECK: vg.unsqueeze [[X]] {axes = array<i64: 1, -1>} : (tensor<1x3x1x5xf32>) -> tensor<1x1x3x1x5x1xf32>
  %4 = vg.unsqueeze %x {axes = array<i64: 1, -1>} : (tensor<1x3x1x5xf32>) -> tensor<1x1x3x1x5x1xf32>
  return %0, %1, %2, %3, %4 : tensor<3x1x5xf32>, tensor<3x5xf32>, tensor<1x3x5xf32>, tensor<1xi64>, tensor<1x1x3x1x5x1xf32>
}

// -----

// CHECK-LABEL: func @concat
// CHECK-SAME: ([[A:%[a-z0-9_]+]]: tensor<1x64x56x56xf32>, [[B:%[a-z0-9_]+]]: tensor<1x32x56x56xf32>, [[D:%[a-z0-9_]+]]: tensor<1xi64>)
func.func @concat(%a: tensor<1x64x56x56xf32>, %b: tensor<1x32x56x56xf32>, %d: tensor<1xi64>)
    -> (tensor<1x160x56x56xf32>, tensor<4xi64>, tensor<1x64x56x56xf32>) {
  // CHECK: vg.concat [[A]], [[B]], [[A]] {axis = 1 : i64} : (tensor<1x64x56x56xf32>, tensor<1x32x56x56xf32>, tensor<1x64x56x56xf32>) -> tensor<1x160x56x56xf32>
  %0 = vg.concat %a, %b, %a {axis = 1 : i64}
      : (tensor<1x64x56x56xf32>, tensor<1x32x56x56xf32>, tensor<1x64x56x56xf32>) -> tensor<1x160x56x56xf32>
  // CHECK: vg.concat [[D]], [[D]], [[D]], [[D]] {axis = -1 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  %1 = vg.concat %d, %d, %d, %d {axis = -1 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  // One input is a valid concat.
  // CHECK: vg.concat [[A]] {axis = 0 : i64} : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  %2 = vg.concat %a {axis = 0 : i64} : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  return %0, %1, %2 : tensor<1x160x56x56xf32>, tensor<4xi64>, tensor<1x64x56x56xf32>
}

// -----

// The QKV split of a fused projection; a zero-sized piece is allowed.
// CHECK-LABEL: func @split
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x128x2304xf32>)
func.func @split(%x: tensor<1x128x2304xf32>)
    -> (tensor<1x128x768xf32>, tensor<1x128x768xf32>, tensor<1x128x768xf32>, tensor<1x0x2304xf32>) {
  // CHECK: [[QKV:%.+]]:3 = vg.split [[X]] {axis = -1 : i64, split = array<i64: 768, 768, 768>} : (tensor<1x128x2304xf32>) -> (tensor<1x128x768xf32>, tensor<1x128x768xf32>, tensor<1x128x768xf32>)
  %0:3 = vg.split %x {axis = -1 : i64, split = array<i64: 768, 768, 768>}
      : (tensor<1x128x2304xf32>) -> (tensor<1x128x768xf32>, tensor<1x128x768xf32>, tensor<1x128x768xf32>)
  // CHECK: [[PIECES:%.+]]:2 = vg.split [[X]] {axis = 1 : i64, split = array<i64: 0, 128>} : (tensor<1x128x2304xf32>) -> (tensor<1x0x2304xf32>, tensor<1x128x2304xf32>)
  %1:2 = vg.split %x {axis = 1 : i64, split = array<i64: 0, 128>}
      : (tensor<1x128x2304xf32>) -> (tensor<1x0x2304xf32>, tensor<1x128x2304xf32>)
  // CHECK: return [[QKV]]#0, [[QKV]]#1, [[QKV]]#2, [[PIECES]]#0
  return %0#0, %0#1, %0#2, %1#0 : tensor<1x128x768xf32>, tensor<1x128x768xf32>, tensor<1x128x768xf32>, tensor<1x0x2304xf32>
}

// -----

// CHECK-LABEL: func @slice
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x512x768xf32>)
func.func @slice(%x: tensor<1x512x768xf32>)
    -> (tensor<1x128x768xf32>, tensor<1x512x384xf32>, tensor<1x256x768xf32>, tensor<1x512x768xf32>, tensor<1x0x768xf32>) {
  // CHECK: vg.slice [[X]] {axes = array<i64: 1>, ends = array<i64: 128>, starts = array<i64: 0>, steps = array<i64: 1>} : (tensor<1x512x768xf32>) -> tensor<1x128x768xf32>
  %0 = vg.slice %x {starts = array<i64: 0>, ends = array<i64: 128>, axes = array<i64: 1>, steps = array<i64: 1>}
      : (tensor<1x512x768xf32>) -> tensor<1x128x768xf32>
  // INT64_MAX means "to the end"; negative starts count from the end.
  // CHECK: vg.slice [[X]] {axes = array<i64: -1>, ends = array<i64: 9223372036854775807>, starts = array<i64: -384>, steps = array<i64: 1>} : (tensor<1x512x768xf32>) -> tensor<1x512x384xf32>
  %1 = vg.slice %x {starts = array<i64: -384>, ends = array<i64: 9223372036854775807>, axes = array<i64: -1>, steps = array<i64: 1>}
      : (tensor<1x512x768xf32>) -> tensor<1x512x384xf32>
  // Step 2, and a negative step that walks the whole dim backwards.
  // CHECK: vg.slice [[X]] {axes = array<i64: 1>, ends = array<i64: 512>, starts = array<i64: 0>, steps = array<i64: 2>} : (tensor<1x512x768xf32>) -> tensor<1x256x768xf32>
  %2 = vg.slice %x {starts = array<i64: 0>, ends = array<i64: 512>, axes = array<i64: 1>, steps = array<i64: 2>}
      : (tensor<1x512x768xf32>) -> tensor<1x256x768xf32>
  // CHECK: vg.slice [[X]] {axes = array<i64: 1>, ends = array<i64: -9223372036854775807>, starts = array<i64: -1>, steps = array<i64: -1>} : (tensor<1x512x768xf32>) -> tensor<1x512x768xf32>
  %3 = vg.slice %x {starts = array<i64: -1>, ends = array<i64: -9223372036854775807>, axes = array<i64: 1>, steps = array<i64: -1>}
      : (tensor<1x512x768xf32>) -> tensor<1x512x768xf32>
  // An empty range is an empty dim, not an error.
  // CHECK: vg.slice [[X]] {axes = array<i64: 1>, ends = array<i64: 10>, starts = array<i64: 20>, steps = array<i64: 1>} : (tensor<1x512x768xf32>) -> tensor<1x0x768xf32>
  %4 = vg.slice %x {starts = array<i64: 20>, ends = array<i64: 10>, axes = array<i64: 1>, steps = array<i64: 1>}
      : (tensor<1x512x768xf32>) -> tensor<1x0x768xf32>
  return %0, %1, %2, %3, %4 : tensor<1x128x768xf32>, tensor<1x512x384xf32>, tensor<1x256x768xf32>, tensor<1x512x768xf32>, tensor<1x0x768xf32>
}

// -----

// CHECK-LABEL: func @slice_multi_axis
func.func @slice_multi_axis(%x: tensor<20x10x5xf32>) -> tensor<3x10x2xf32> {
  // CHECK: vg.slice %{{.+}} {axes = array<i64: 0, 2>, ends = array<i64: 3, 5>, starts = array<i64: 0, 1>, steps = array<i64: 1, 2>} : (tensor<20x10x5xf32>) -> tensor<3x10x2xf32>
  %0 = vg.slice %x {starts = array<i64: 0, 1>, ends = array<i64: 3, 5>, axes = array<i64: 0, 2>, steps = array<i64: 1, 2>}
      : (tensor<20x10x5xf32>) -> tensor<3x10x2xf32>
  return %0 : tensor<3x10x2xf32>
}

// -----

// CHECK-LABEL: func @gather
// CHECK-SAME: ([[E:%[a-z0-9_]+]]: tensor<30522x768xf32>, [[IDS:%[a-z0-9_]+]]: tensor<1x128xi64>, [[S:%[a-z0-9_]+]]: tensor<4xi64>, [[I:%[a-z0-9_]+]]: tensor<i64>, [[J:%[a-z0-9_]+]]: tensor<2xi32>)
func.func @gather(%e: tensor<30522x768xf32>, %ids: tensor<1x128xi64>, %s: tensor<4xi64>, %i: tensor<i64>, %j: tensor<2xi32>)
    -> (tensor<1x128x768xf32>, tensor<i64>, tensor<30522x2xf32>) {
  // An embedding lookup.
  // CHECK: vg.gather [[E]], [[IDS]] : (tensor<30522x768xf32>, tensor<1x128xi64>) -> tensor<1x128x768xf32>
  %0 = vg.gather %e, %ids : (tensor<30522x768xf32>, tensor<1x128xi64>) -> tensor<1x128x768xf32>
  // A scalar index drops the axis: one dim of a shape.
  // CHECK: vg.gather [[S]], [[I]] : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  %1 = vg.gather %s, %i {axis = 0 : i64} : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  // CHECK: vg.gather [[E]], [[J]] {axis = -1 : i64} : (tensor<30522x768xf32>, tensor<2xi32>) -> tensor<30522x2xf32>
  %2 = vg.gather %e, %j {axis = -1 : i64} : (tensor<30522x768xf32>, tensor<2xi32>) -> tensor<30522x2xf32>
  return %0, %1, %2 : tensor<1x128x768xf32>, tensor<i64>, tensor<30522x2xf32>
}

// -----

// CHECK-LABEL: func @expand_tile
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x1x128xi1>, [[Y:%[a-z0-9_]+]]: tensor<3x1xf32>)
func.func @expand_tile(%x: tensor<1x1x128xi1>, %y: tensor<3x1xf32>)
    -> (tensor<1x128x128xi1>, tensor<2x3x6xf32>, tensor<3x4xf32>, tensor<6x0xf32>) {
  // CHECK: vg.expand [[X]] {shape = array<i64: 1, 128, 128>} : (tensor<1x1x128xi1>) -> tensor<1x128x128xi1>
  %0 = vg.expand %x {shape = array<i64: 1, 128, 128>} : (tensor<1x1x128xi1>) -> tensor<1x128x128xi1>
  // Broadcasting goes both ways: the shape may be shorter or hold 1s.
  // CHECK: vg.expand [[Y]] {shape = array<i64: 2, 1, 6>} : (tensor<3x1xf32>) -> tensor<2x3x6xf32>
  %1 = vg.expand %y {shape = array<i64: 2, 1, 6>} : (tensor<3x1xf32>) -> tensor<2x3x6xf32>
  // CHECK: vg.tile [[Y]] {repeats = array<i64: 1, 4>} : (tensor<3x1xf32>) -> tensor<3x4xf32>
  %2 = vg.tile %y {repeats = array<i64: 1, 4>} : (tensor<3x1xf32>) -> tensor<3x4xf32>
  // CHECK: vg.tile [[Y]] {repeats = array<i64: 2, 0>} : (tensor<3x1xf32>) -> tensor<6x0xf32>
  %3 = vg.tile %y {repeats = array<i64: 2, 0>} : (tensor<3x1xf32>) -> tensor<6x0xf32>
  return %0, %1, %2, %3 : tensor<1x128x128xi1>, tensor<2x3x6xf32>, tensor<3x4xf32>, tensor<6x0xf32>
}

// -----

// CHECK-LABEL: func @pad
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x3x32x32xf32>)
func.func @pad(%x: tensor<1x3x32x32xf32>)
    -> (tensor<1x3x34x34xf32>, tensor<1x3x36x35xf32>, tensor<1x3x33x32xf32>, tensor<1x3x30x30xf32>) {
  // CHECK: vg.pad [[X]] {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x34x34xf32>
  %0 = vg.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x34x34xf32>
  // CHECK: vg.pad [[X]] {mode = "reflect", pads = array<i64: 0, 0, 2, 1, 0, 0, 2, 2>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x36x35xf32>
  %1 = vg.pad %x {mode = "reflect", pads = array<i64: 0, 0, 2, 1, 0, 0, 2, 2>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x36x35xf32>
  // CHECK: vg.pad [[X]] {constant_value = -1.000000e+00 : f64, mode = "edge", pads = array<i64: 0, 0, 1, 0, 0, 0, 0, 0>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x33x32xf32>
  %2 = vg.pad %x {constant_value = -1.0 : f64, mode = "edge", pads = array<i64: 0, 0, 1, 0, 0, 0, 0, 0>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x33x32xf32>
  // Negative pads crop.
  // CHECK: vg.pad [[X]] {pads = array<i64: 0, 0, -1, -1, 0, 0, -1, -1>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x30x30xf32>
  %3 = vg.pad %x {pads = array<i64: 0, 0, -1, -1, 0, 0, -1, -1>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x30x30xf32>
  return %0, %1, %2, %3 : tensor<1x3x34x34xf32>, tensor<1x3x36x35xf32>, tensor<1x3x33x32xf32>, tensor<1x3x30x30xf32>
}

// -----

// CHECK-LABEL: func @resize
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x256x20x20xf32>)
func.func @resize(%x: tensor<1x256x20x20xf32>)
    -> (tensor<1x256x40x40xf32>, tensor<1x256x30x15xf32>, tensor<1x256x50x10xf32>) {
  // YOLO's upsample.
  // CHECK: vg.resize [[X]] {coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : (tensor<1x256x20x20xf32>) -> tensor<1x256x40x40xf32>
  %0 = vg.resize %x {coordinate_transformation_mode = "asymmetric", nearest_mode = "floor",
                     scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x256x20x20xf32>) -> tensor<1x256x40x40xf32>
  // The output dim is floor(in * scale): 20 * 1.5 and 20 * 0.75.
  // CHECK: vg.resize [[X]] {coordinate_transformation_mode = "align_corners", mode = "linear", scales = array<f32: 1.000000e+00, 1.000000e+00, 1.500000e+00, 7.500000e-01>} : (tensor<1x256x20x20xf32>) -> tensor<1x256x30x15xf32>
  %1 = vg.resize %x {coordinate_transformation_mode = "align_corners", mode = "linear",
                     scales = array<f32: 1.0, 1.0, 1.5, 0.75>} : (tensor<1x256x20x20xf32>) -> tensor<1x256x30x15xf32>
  // sizes, when present, fix the output shape.
  // CHECK: vg.resize [[X]] {mode = "linear", scales = array<f32: 1.000000e+00, 1.000000e+00, 2.500000e+00, 5.000000e-01>, sizes = array<i64: 1, 256, 50, 10>} : (tensor<1x256x20x20xf32>) -> tensor<1x256x50x10xf32>
  %2 = vg.resize %x {mode = "linear", scales = array<f32: 1.0, 1.0, 2.5, 0.5>, sizes = array<i64: 1, 256, 50, 10>}
      : (tensor<1x256x20x20xf32>) -> tensor<1x256x50x10xf32>
  return %0, %1, %2 : tensor<1x256x40x40xf32>, tensor<1x256x30x15xf32>, tensor<1x256x50x10xf32>
}

// -----

// CHECK-LABEL: func @shape
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<1x128x768xf32>, [[D:%[a-z0-9_]+]]: tensor<?x128xf32>)
func.func @shape(%x: tensor<1x128x768xf32>, %d: tensor<?x128xf32>)
    -> (tensor<3xi64>, tensor<2xi64>, tensor<1xi64>, tensor<0xi64>, tensor<2xi64>) {
  // CHECK: vg.shape [[X]] : (tensor<1x128x768xf32>) -> tensor<3xi64>
  %0 = vg.shape %x : (tensor<1x128x768xf32>) -> tensor<3xi64>
  // CHECK: vg.shape [[X]] {start = 1 : i64} : (tensor<1x128x768xf32>) -> tensor<2xi64>
  %1 = vg.shape %x {start = 1 : i64} : (tensor<1x128x768xf32>) -> tensor<2xi64>
  // CHECK: vg.shape [[X]] {end = -1 : i64, start = -2 : i64} : (tensor<1x128x768xf32>) -> tensor<1xi64>
  %2 = vg.shape %x {start = -2 : i64, end = -1 : i64} : (tensor<1x128x768xf32>) -> tensor<1xi64>
  // Out-of-range start and end clamp (opset 15).
  // CHECK: vg.shape [[X]] {end = 1 : i64, start = 10 : i64} : (tensor<1x128x768xf32>) -> tensor<0xi64>
  %3 = vg.shape %x {start = 10 : i64, end = 1 : i64} : (tensor<1x128x768xf32>) -> tensor<0xi64>
  // A dynamic input still has a static-length shape.
  // CHECK: vg.shape [[D]] : (tensor<?x128xf32>) -> tensor<2xi64>
  %4 = vg.shape %d : (tensor<?x128xf32>) -> tensor<2xi64>
  return %0, %1, %2, %3, %4 : tensor<3xi64>, tensor<2xi64>, tensor<1xi64>, tensor<0xi64>, tensor<2xi64>
}

// -----

// CHECK-LABEL: func @constant_of_shape
func.func @constant_of_shape() -> (tensor<2x3xf32>, tensor<4xi64>, tensor<f16>) {
  // CHECK: vg.constant_of_shape {shape = array<i64: 2, 3>, value = dense<1.000000e+00> : tensor<1xf32>} : () -> tensor<2x3xf32>
  %0 = vg.constant_of_shape {shape = array<i64: 2, 3>, value = dense<1.0> : tensor<1xf32>} : () -> tensor<2x3xf32>
  // CHECK: vg.constant_of_shape {shape = array<i64: 4>, value = dense<-1> : tensor<1xi64>} : () -> tensor<4xi64>
  %1 = vg.constant_of_shape {shape = array<i64: 4>, value = dense<-1> : tensor<1xi64>} : () -> tensor<4xi64>
  // An empty shape is a scalar.
  // CHECK: vg.constant_of_shape {shape = array<i64>, value = dense<0.000000e+00> : tensor<1xf16>} : () -> tensor<f16>
  %2 = vg.constant_of_shape {shape = array<i64>, value = dense<0.0> : tensor<1xf16>} : () -> tensor<f16>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<4xi64>, tensor<f16>
}

// -----

// CHECK-LABEL: func @range
func.func @range() -> (tensor<128xi64>, tensor<4xf32>, tensor<3xi32>, tensor<0xi64>) {
  // CHECK: vg.range {delta = dense<1> : tensor<i64>, limit = dense<128> : tensor<i64>, start = dense<0> : tensor<i64>} : () -> tensor<128xi64>
  %0 = vg.range {start = dense<0> : tensor<i64>, limit = dense<128> : tensor<i64>, delta = dense<1> : tensor<i64>} : () -> tensor<128xi64>
  // ceil((limit - start) / delta) elements.
  // CHECK: vg.range {delta = dense<5.000000e-01> : tensor<f32>, limit = dense<2.000000e+00> : tensor<f32>, start = dense<2.500000e-01> : tensor<f32>} : () -> tensor<4xf32>
  %1 = vg.range {start = dense<0.25> : tensor<f32>, limit = dense<2.0> : tensor<f32>, delta = dense<0.5> : tensor<f32>} : () -> tensor<4xf32>
  // CHECK: vg.range {delta = dense<-3> : tensor<i32>, limit = dense<1> : tensor<i32>, start = dense<10> : tensor<i32>} : () -> tensor<3xi32>
  %2 = vg.range {start = dense<10> : tensor<i32>, limit = dense<1> : tensor<i32>, delta = dense<-3> : tensor<i32>} : () -> tensor<3xi32>
  // A limit behind the start gives an empty range.
  // CHECK: vg.range {delta = dense<1> : tensor<i64>, limit = dense<0> : tensor<i64>, start = dense<5> : tensor<i64>} : () -> tensor<0xi64>
  %3 = vg.range {start = dense<5> : tensor<i64>, limit = dense<0> : tensor<i64>, delta = dense<1> : tensor<i64>} : () -> tensor<0xi64>
  return %0, %1, %2, %3 : tensor<128xi64>, tensor<4xf32>, tensor<3xi32>, tensor<0xi64>
}

//===----------------------------------------------------------------------===//
// Dynamic dims: an inferred dim may be less static than the IR's, and
// broadcasting a dynamic dim against a static one takes the static one.
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func @dynamic_dims
func.func @dynamic_dims(%a: tensor<?x4xf32>, %b: tensor<3x?xf32>, %c: tensor<?x768xf32>, %w: tensor<768x256xf32>)
    -> (tensor<3x4xf32>, tensor<?x256xf32>, tensor<8x256xf32>, tensor<?x768xf32>) {
  // CHECK: vg.add %{{.+}}, %{{.+}} : (tensor<?x4xf32>, tensor<3x?xf32>) -> tensor<3x4xf32>
  %0 = vg.add %a, %b : (tensor<?x4xf32>, tensor<3x?xf32>) -> tensor<3x4xf32>
  // CHECK: vg.matmul %{{.+}}, %{{.+}} : (tensor<?x768xf32>, tensor<768x256xf32>) -> tensor<?x256xf32>
  %1 = vg.matmul %c, %w : (tensor<?x768xf32>, tensor<768x256xf32>) -> tensor<?x256xf32>
  // CHECK: vg.matmul %{{.+}}, %{{.+}} : (tensor<?x768xf32>, tensor<768x256xf32>) -> tensor<8x256xf32>
  %2 = vg.matmul %c, %w : (tensor<?x768xf32>, tensor<768x256xf32>) -> tensor<8x256xf32>
  // CHECK: vg.relu %{{.+}} : tensor<?x768xf32>
  %3 = vg.relu %c : tensor<?x768xf32>
  return %0, %1, %2, %3 : tensor<3x4xf32>, tensor<?x256xf32>, tensor<8x256xf32>, tensor<?x768xf32>
}
