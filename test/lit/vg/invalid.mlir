// RUN: vinci-opt %s --split-input-file --verify-diagnostics

// The verifiers of the vg ops. Shape inference doubles as the verifier: its
// message names the op and what is wrong, and MLIR then adds its own
// "failed to infer returned types". Element-type rules come from ODS.

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

func.func @add_broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{vg.add: operand shapes do not broadcast: tensor<2x3xf32>, tensor<4xf32>}}
  // expected-error @below {{'vg.add' op failed to infer returned types}}
  %0 = vg.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Two non-1 dims that differ, with the rank gap in between.
func.func @sub_broadcast_mismatch_inner(%a: tensor<8x1x6x1xf32>, %b: tensor<7x2x5xf32>) -> tensor<8x7x6x5xf32> {
  // expected-error @below {{vg.sub: operand shapes do not broadcast: tensor<8x1x6x1xf32>, tensor<7x2x5xf32>}}
  // expected-error @below {{'vg.sub' op failed to infer returned types}}
  %0 = vg.sub %a, %b : (tensor<8x1x6x1xf32>, tensor<7x2x5xf32>) -> tensor<8x7x6x5xf32>
  return %0 : tensor<8x7x6x5xf32>
}

// -----

func.func @mul_element_types_differ(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @below {{vg.mul: operands must have the same element type, got tensor<4xf32> and tensor<4xf16>}}
  // expected-error @below {{'vg.mul' op failed to infer returned types}}
  %0 = vg.mul %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @equal_broadcast_mismatch(%a: tensor<3xi64>, %b: tensor<2xi64>) -> tensor<3xi1> {
  // expected-error @below {{vg.equal: operand shapes do not broadcast: tensor<3xi64>, tensor<2xi64>}}
  // expected-error @below {{'vg.equal' op failed to infer returned types}}
  %0 = vg.equal %a, %b : (tensor<3xi64>, tensor<2xi64>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// A comparison gives i1, not the operands' element type.
func.func @less_result_not_bool(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @below {{'vg.less' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = vg.less %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// The result type in the IR must be the inferred one.
func.func @add_wrong_result_shape(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<3x3xf32> {
  // expected-error @below {{'vg.add' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x3xf32>'}}
  // expected-error @below {{'vg.add' op failed to infer returned types}}
  %0 = vg.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// The IR may be more static than inference, never less.
func.func @add_result_less_static(%a: tensor<?x4xf32>, %b: tensor<3x?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{'vg.add' op inferred type(s) 'tensor<3x4xf32>' are incompatible with return type(s) of operation 'tensor<?x?xf32>'}}
  // expected-error @below {{'vg.add' op failed to infer returned types}}
  %0 = vg.add %a, %b : (tensor<?x4xf32>, tensor<3x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @where_branch_types_differ(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @below {{vg.where: x and y must have the same element type, got 'f32' and 'f16'}}
  // expected-error @below {{'vg.where' op failed to infer returned types}}
  %0 = vg.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @where_broadcast_mismatch(%c: tensor<2x4xi1>, %x: tensor<4xf32>, %y: tensor<3x1xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{vg.where: operand shapes do not broadcast: tensor<2x4xi1>, tensor<4xf32>, tensor<3x1xf32>}}
  // expected-error @below {{'vg.where' op failed to infer returned types}}
  %0 = vg.where %c, %x, %y : (tensor<2x4xi1>, tensor<4xf32>, tensor<3x1xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @where_condition_not_bool(%c: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'vg.where' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = vg.where %c, %x, %x : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Float-only ops reject integers.
func.func @exp_on_integers(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @below {{'vg.exp' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = vg.exp %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @relu_on_integers(%a: tensor<2x8xi8>) -> tensor<2x8xi8> {
  // expected-error @below {{'vg.relu' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<2x8xi8>'}}
  %0 = vg.relu %a : tensor<2x8xi8>
  return %0 : tensor<2x8xi8>
}

// -----

func.func @softmax_on_integers(%a: tensor<2x8xi32>) -> tensor<2x8xi32> {
  // expected-error @below {{'vg.softmax' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<2x8xi32>'}}
  %0 = vg.softmax %a : (tensor<2x8xi32>) -> tensor<2x8xi32>
  return %0 : tensor<2x8xi32>
}

// -----

func.func @not_on_floats(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'vg.not' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = vg.not %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Arithmetic on bools is not numeric.
func.func @add_on_bools(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @below {{'vg.add' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values, but got 'tensor<4xi1>'}}
  %0 = vg.add %a, %a : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @identity_changes_type(%a: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @below {{'vg.identity' op requires the same type for all operands and results}}
  %0 = "vg.identity"(%a) : (tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @cast_result_not_to(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'vg.cast' op inferred type(s) 'tensor<4xf16>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @below {{'vg.cast' op failed to infer returned types}}
  %0 = vg.cast %a {to = f16} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @constant_type_differs() -> tensor<3xi64> {
  // expected-error @below {{'vg.constant' op inferred type(s) 'tensor<2xi64>' are incompatible with return type(s) of operation 'tensor<3xi64>'}}
  // expected-error @below {{'vg.constant' op failed to infer returned types}}
  %0 = "vg.constant"() {value = dense<1> : tensor<2xi64>} : () -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

//===----------------------------------------------------------------------===//
// MatMul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_contraction_mismatch(%a: tensor<8x768xf32>, %b: tensor<512x3072xf32>) -> tensor<8x3072xf32> {
  // expected-error @below {{vg.matmul: contraction dims differ (768 vs 512) for 'tensor<8x768xf32>' x 'tensor<512x3072xf32>'}}
  // expected-error @below {{'vg.matmul' op failed to infer returned types}}
  %0 = vg.matmul %a, %b : (tensor<8x768xf32>, tensor<512x3072xf32>) -> tensor<8x3072xf32>
  return %0 : tensor<8x3072xf32>
}

// -----

// nn.Linear's weight is N x K: without transpose_b the dims do not meet.
func.func @matmul_transpose_mismatch(%a: tensor<8x768xf32>, %w: tensor<768x3072xf32>) -> tensor<8x768xf32> {
  // expected-error @below {{vg.matmul: contraction dims differ (768 vs 3072) for 'tensor<8x768xf32>' x 'tensor<768x3072xf32>' after the transposes}}
  // expected-error @below {{'vg.matmul' op failed to infer returned types}}
  %0 = vg.matmul %a, %w {transpose_b = true} : (tensor<8x768xf32>, tensor<768x3072xf32>) -> tensor<8x768xf32>
  return %0 : tensor<8x768xf32>
}

// -----

func.func @matmul_vector_mismatch(%a: tensor<64xf32>, %b: tensor<3x32x5xf32>) -> tensor<3x5xf32> {
  // expected-error @below {{vg.matmul: contraction dims differ (64 vs 32) for 'tensor<64xf32>' x 'tensor<3x32x5xf32>'}}
  // expected-error @below {{'vg.matmul' op failed to infer returned types}}
  %0 = vg.matmul %a, %b : (tensor<64xf32>, tensor<3x32x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @matmul_batch_mismatch(%a: tensor<2x12x128x64xf32>, %b: tensor<3x12x64x128xf32>) -> tensor<2x12x128x128xf32> {
  // expected-error @below {{vg.matmul: batch dims do not broadcast: 'tensor<2x12x128x64xf32>' x 'tensor<3x12x64x128xf32>'}}
  // expected-error @below {{'vg.matmul' op failed to infer returned types}}
  %0 = vg.matmul %a, %b : (tensor<2x12x128x64xf32>, tensor<3x12x64x128xf32>) -> tensor<2x12x128x128xf32>
  return %0 : tensor<2x12x128x128xf32>
}

// -----

func.func @matmul_element_types_differ(%a: tensor<16x32xf16>, %b: tensor<32x16xf32>) -> tensor<16x16xf16> {
  // expected-error @below {{vg.matmul: operands must have the same element type, got 'tensor<16x32xf16>' and 'tensor<32x16xf32>'}}
  // expected-error @below {{'vg.matmul' op failed to infer returned types}}
  %0 = vg.matmul %a, %b : (tensor<16x32xf16>, tensor<32x16xf32>) -> tensor<16x16xf16>
  return %0 : tensor<16x16xf16>
}

// -----

func.func @matmul_scalar_operand(%a: tensor<f32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{vg.matmul: operands must have rank >= 1, got 'tensor<f32>' and 'tensor<4xf32>'}}
  // expected-error @below {{'vg.matmul' op failed to infer returned types}}
  %0 = vg.matmul %a, %b : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Conv and pooling
//===----------------------------------------------------------------------===//

// -----

func.func @conv_channel_mismatch(%x: tensor<1x3x32x32xf32>, %w: tensor<16x4x3x3xf32>) -> tensor<1x16x30x30xf32> {
  // expected-error @below {{vg.conv: input has 3 channels but weight expects 4 x group 1}}
  // expected-error @below {{'vg.conv' op failed to infer returned types}}
  %0 = vg.conv %x, %w : (tensor<1x3x32x32xf32>, tensor<16x4x3x3xf32>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// -----

// A depthwise weight (C_in / group = 1) without group = C.
func.func @conv_depthwise_without_group(%x: tensor<1x32x56x56xf32>, %w: tensor<32x1x3x3xf32>) -> tensor<1x32x54x54xf32> {
  // expected-error @below {{vg.conv: input has 32 channels but weight expects 1 x group 1}}
  // expected-error @below {{'vg.conv' op failed to infer returned types}}
  %0 = vg.conv %x, %w : (tensor<1x32x56x56xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x54x54xf32>
  return %0 : tensor<1x32x54x54xf32>
}

// -----

func.func @conv_out_channels_not_multiple_of_group(%x: tensor<1x8x32x32xf32>, %w: tensor<30x2x3x3xf32>) -> tensor<1x30x30x30xf32> {
  // expected-error @below {{vg.conv: output channels 30 are not a multiple of group 4}}
  // expected-error @below {{'vg.conv' op failed to infer returned types}}
  %0 = vg.conv %x, %w {group = 4 : i64} : (tensor<1x8x32x32xf32>, tensor<30x2x3x3xf32>) -> tensor<1x30x30x30xf32>
  return %0 : tensor<1x30x30x30xf32>
}

// -----

func.func @conv_group_zero(%x: tensor<1x8x32x32xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<1x8x30x30xf32> {
  // expected-error @below {{vg.conv: group must be positive, got 0}}
  // expected-error @below {{'vg.conv' op failed to infer returned types}}
  %0 = vg.conv %x, %w {group = 0 : i64} : (tensor<1x8x32x32xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x30x30xf32>
  return %0 : tensor<1x8x30x30xf32>
}

// -----

func.func @conv_bad_auto_pad(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32> {
  // expected-error @below {{vg.conv: auto_pad 'SAME' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID}}
  // expected-error @below {{'vg.conv' op failed to infer returned types}}
  %0 = vg.conv %x, %w {auto_pad = "SAME"} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32>
  return %0 : tensor<1x16x32x32xf32>
}

// -----

func.func @conv_bias_size(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x16x30x30xf32> {
  // expected-error @below {{vg.conv: bias must be 1-D of size 16, got 'tensor<3xf32>'}}
  // expected-error @below {{'vg.conv' op failed to infer returned types}}
  %0 = vg.conv %x, %w, %b : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<3xf32>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// -----

func.func @conv_kernel_shape_differs(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32> {
  // expected-error @below {{vg.conv: kernel_shape [5, 5] does not match the weight 'tensor<16x3x3x3xf32>'}}
  // expected-error @below {{'vg.conv' op failed to infer returned types}}
  %0 = vg.conv %x, %w {kernel_shape = array<i64: 5, 5>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// -----

func.func @conv_strides_length(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x15x15xf32> {
  // expected-error @below {{vg.conv: strides has 1 entries, expected 2 for 2 spatial dims}}
  // expected-error @below {{'vg.conv' op failed to infer returned types}}
  %0 = vg.conv %x, %w {strides = array<i64: 2>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x15x15xf32>
  return %0 : tensor<1x16x15x15xf32>
}

// -----

// pads is begin and end for each spatial dim: 4 entries in 2-D, not 2.
func.func @conv_pads_length(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32> {
  // expected-error @below {{vg.conv: pads has 2 entries, expected 4 for 2 spatial dims}}
  // expected-error @below {{'vg.conv' op failed to infer returned types}}
  %0 = vg.conv %x, %w {pads = array<i64: 1, 1>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32>
  return %0 : tensor<1x16x32x32xf32>
}

// -----

func.func @conv_zero_stride(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32> {
  // expected-error @below {{vg.conv: kernel_shape, strides and dilations must be positive}}
  // expected-error @below {{'vg.conv' op failed to infer returned types}}
  %0 = vg.conv %x, %w {strides = array<i64: 1, 0>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// -----

func.func @conv_negative_pads(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32> {
  // expected-error @below {{vg.conv: pads must not be negative, got [0, -1, 0, 0]}}
  // expected-error @below {{'vg.conv' op failed to infer returned types}}
  %0 = vg.conv %x, %w {pads = array<i64: 0, -1, 0, 0>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// -----

func.func @conv_input_rank(%x: tensor<3x32xf32>, %w: tensor<16x3xf32>) -> tensor<3x16xf32> {
  // expected-error @below {{vg.conv: input must be N x C x spatial..., got 'tensor<3x32xf32>'}}
  // expected-error @below {{'vg.conv' op failed to infer returned types}}
  %0 = vg.conv %x, %w : (tensor<3x32xf32>, tensor<16x3xf32>) -> tensor<3x16xf32>
  return %0 : tensor<3x16xf32>
}

// -----

func.func @conv_weight_rank(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3xf32>) -> tensor<1x16x30x30xf32> {
  // expected-error @below {{vg.conv: weight rank 3 differs from input rank 4}}
  // expected-error @below {{'vg.conv' op failed to infer returned types}}
  %0 = vg.conv %x, %w : (tensor<1x3x32x32xf32>, tensor<16x3x3xf32>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// -----

func.func @conv_element_types_differ(%x: tensor<1x3x32x32xf16>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf16> {
  // expected-error @below {{vg.conv: input and weight element types differ: 'tensor<1x3x32x32xf16>' and 'tensor<16x3x3x3xf32>'}}
  // expected-error @below {{'vg.conv' op failed to infer returned types}}
  %0 = vg.conv %x, %w : (tensor<1x3x32x32xf16>, tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf16>
  return %0 : tensor<1x16x30x30xf16>
}

// -----

func.func @conv_on_integers(%x: tensor<1x3x4x4xi8>, %w: tensor<1x3x1x1xi8>) -> tensor<1x1x4x4xi8> {
  // expected-error @below {{'vg.conv' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<1x3x4x4xi8>'}}
  %0 = vg.conv %x, %w : (tensor<1x3x4x4xi8>, tensor<1x3x1x1xi8>) -> tensor<1x1x4x4xi8>
  return %0 : tensor<1x1x4x4xi8>
}

// -----

func.func @max_pool_kernel_rank(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x28x28xf32> {
  // expected-error @below {{vg.max_pool: kernel_shape has 1 entries, expected 2}}
  // expected-error @below {{'vg.max_pool' op failed to infer returned types}}
  %0 = vg.max_pool %x {kernel_shape = array<i64: 2>} : (tensor<1x64x56x56xf32>) -> tensor<1x64x28x28xf32>
  return %0 : tensor<1x64x28x28xf32>
}

// -----

func.func @average_pool_bad_auto_pad(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x28x28xf32> {
  // expected-error @below {{vg.average_pool: auto_pad 'same_upper' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID}}
  // expected-error @below {{'vg.average_pool' op failed to infer returned types}}
  %0 = vg.average_pool %x {auto_pad = "same_upper", kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : (tensor<1x64x56x56xf32>) -> tensor<1x64x28x28xf32>
  return %0 : tensor<1x64x28x28xf32>
}

// -----

func.func @max_pool_dilations_length(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x54x54xf32> {
  // expected-error @below {{vg.max_pool: dilations has 3 entries, expected 2 for 2 spatial dims}}
  // expected-error @below {{'vg.max_pool' op failed to infer returned types}}
  %0 = vg.max_pool %x {dilations = array<i64: 1, 1, 1>, kernel_shape = array<i64: 3, 3>} : (tensor<1x64x56x56xf32>) -> tensor<1x64x54x54xf32>
  return %0 : tensor<1x64x54x54xf32>
}

// -----

// The pooled shape in the IR must be the inferred one (floor mode: 27, not 28).
func.func @max_pool_wrong_result(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x28x28xf32> {
  // expected-error @below {{'vg.max_pool' op inferred type(s) 'tensor<1x64x27x27xf32>' are incompatible with return type(s) of operation 'tensor<1x64x28x28xf32>'}}
  // expected-error @below {{'vg.max_pool' op failed to infer returned types}}
  %0 = vg.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x64x56x56xf32>) -> tensor<1x64x28x28xf32>
  return %0 : tensor<1x64x28x28xf32>
}

// -----

func.func @global_average_pool_rank(%x: tensor<8x512xf32>) -> tensor<8x512xf32> {
  // expected-error @below {{vg.global_average_pool: input must be N x C x spatial..., got 'tensor<8x512xf32>'}}
  // expected-error @below {{'vg.global_average_pool' op failed to infer returned types}}
  %0 = vg.global_average_pool %x : (tensor<8x512xf32>) -> tensor<8x512xf32>
  return %0 : tensor<8x512xf32>
}

//===----------------------------------------------------------------------===//
// Normalisation, softmax, reductions
//===----------------------------------------------------------------------===//

// -----

func.func @batch_norm_param_size(%x: tensor<1x64x56x56xf32>, %s: tensor<64xf32>, %m: tensor<32xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error @below {{vg.batch_norm: mean must be 1-D of size 64 (the channel dim), got 'tensor<32xf32>'}}
  // expected-error @below {{'vg.batch_norm' op failed to infer returned types}}
  %0 = vg.batch_norm %x, %s, %s, %m, %s
      : (tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<32xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
  return %0 : tensor<1x64x56x56xf32>
}

// -----

func.func @batch_norm_rank_one(%x: tensor<64xf32>, %s: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{vg.batch_norm: input must be N x C x ..., got 'tensor<64xf32>'}}
  // expected-error @below {{'vg.batch_norm' op failed to infer returned types}}
  %0 = vg.batch_norm %x, %s, %s, %s, %s : (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @layer_norm_scale_shape(%x: tensor<1x128x768xf32>, %s: tensor<512xf32>) -> tensor<1x128x768xf32> {
  // expected-error @below {{vg.layer_norm: scale and bias must broadcast to the normalised dims [768], got 'tensor<512xf32>'}}
  // expected-error @below {{'vg.layer_norm' op failed to infer returned types}}
  %0 = vg.layer_norm %x, %s : (tensor<1x128x768xf32>, tensor<512xf32>) -> tensor<1x128x768xf32>
  return %0 : tensor<1x128x768xf32>
}

// -----

// A scale of rank 2 cannot apply to one normalised dim.
func.func @layer_norm_scale_rank(%x: tensor<1x128x768xf32>, %s: tensor<1x768xf32>) -> tensor<1x128x768xf32> {
  // expected-error @below {{vg.layer_norm: scale and bias must broadcast to the normalised dims [768], got 'tensor<1x768xf32>'}}
  // expected-error @below {{'vg.layer_norm' op failed to infer returned types}}
  %0 = vg.layer_norm %x, %s : (tensor<1x128x768xf32>, tensor<1x768xf32>) -> tensor<1x128x768xf32>
  return %0 : tensor<1x128x768xf32>
}

// -----

func.func @layer_norm_axis(%x: tensor<1x128x768xf32>, %s: tensor<768xf32>) -> tensor<1x128x768xf32> {
  // expected-error @below {{vg.layer_norm: axis 3 is out of range for rank 3 (valid: [-3, 2])}}
  // expected-error @below {{'vg.layer_norm' op failed to infer returned types}}
  %0 = vg.layer_norm %x, %s {axis = 3 : i64} : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  return %0 : tensor<1x128x768xf32>
}

// -----

func.func @softmax_axis(%x: tensor<1x12x128x128xf32>) -> tensor<1x12x128x128xf32> {
  // expected-error @below {{vg.softmax: axis 4 is out of range for rank 4 (valid: [-4, 3])}}
  // expected-error @below {{'vg.softmax' op failed to infer returned types}}
  %0 = vg.softmax %x {axis = 4 : i64} : (tensor<1x12x128x128xf32>) -> tensor<1x12x128x128xf32>
  return %0 : tensor<1x12x128x128xf32>
}

// -----

func.func @log_softmax_negative_axis(%x: tensor<8x10xf32>) -> tensor<8x10xf32> {
  // expected-error @below {{vg.log_softmax: axis -3 is out of range for rank 2 (valid: [-2, 1])}}
  // expected-error @below {{'vg.log_softmax' op failed to infer returned types}}
  %0 = vg.log_softmax %x {axis = -3 : i64} : (tensor<8x10xf32>) -> tensor<8x10xf32>
  return %0 : tensor<8x10xf32>
}

// -----

func.func @softmax_scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @below {{vg.softmax: input must have rank >= 1}}
  // expected-error @below {{'vg.softmax' op failed to infer returned types}}
  %0 = vg.softmax %x : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @reduce_axis_out_of_range(%x: tensor<2x3x4xf32>) -> tensor<2x3x1xf32> {
  // expected-error @below {{vg.reduce_mean: axis 3 is out of range for rank 3 (valid: [-3, 2])}}
  // expected-error @below {{'vg.reduce_mean' op failed to infer returned types}}
  %0 = vg.reduce_mean %x {axes = array<i64: 3>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  return %0 : tensor<2x3x1xf32>
}

// -----

// -1 and 2 are the same axis of a rank-3 tensor.
func.func @reduce_axis_twice(%x: tensor<2x3x4xf32>) -> tensor<2x3x1xf32> {
  // expected-error @below {{vg.reduce_sum: axis 2 is listed twice in [-1, 2]}}
  // expected-error @below {{'vg.reduce_sum' op failed to infer returned types}}
  %0 = vg.reduce_sum %x {axes = array<i64: -1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  return %0 : tensor<2x3x1xf32>
}

// -----

func.func @arg_max_axis(%x: tensor<8x1000xf32>) -> tensor<8x1xi64> {
  // expected-error @below {{vg.arg_max: axis 2 is out of range for rank 2 (valid: [-2, 1])}}
  // expected-error @below {{'vg.arg_max' op failed to infer returned types}}
  %0 = vg.arg_max %x {axis = 2 : i64} : (tensor<8x1000xf32>) -> tensor<8x1xi64>
  return %0 : tensor<8x1xi64>
}

// -----

// Indices are int64, or int32 once vinci-narrow-int64 ran; never float.
func.func @arg_max_result_not_index(%x: tensor<8x1000xf32>) -> tensor<8x1xf32> {
  // expected-error @below {{'vg.arg_max' op result #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8x1xf32>'}}
  %0 = vg.arg_max %x {axis = 1 : i64} : (tensor<8x1000xf32>) -> tensor<8x1xf32>
  return %0 : tensor<8x1xf32>
}

//===----------------------------------------------------------------------===//
// Data movement and shape
//===----------------------------------------------------------------------===//

// -----

func.func @transpose_not_permutation(%x: tensor<2x3x4xf32>) -> tensor<2x3x3xf32> {
  // expected-error @below {{vg.transpose: perm [0, 1, 1] is not a permutation of the 3 dims of 'tensor<2x3x4xf32>'}}
  // expected-error @below {{'vg.transpose' op failed to infer returned types}}
  %0 = vg.transpose %x {perm = array<i64: 0, 1, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  return %0 : tensor<2x3x3xf32>
}

// -----

func.func @transpose_perm_length(%x: tensor<2x3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @below {{vg.transpose: perm [1, 0] is not a permutation of the 3 dims of 'tensor<2x3x4xf32>'}}
  // expected-error @below {{'vg.transpose' op failed to infer returned types}}
  %0 = vg.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_perm_out_of_range(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @below {{vg.transpose: perm [1, 2] is not a permutation of the 2 dims of 'tensor<2x3xf32>'}}
  // expected-error @below {{'vg.transpose' op failed to infer returned types}}
  %0 = vg.transpose %x {perm = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @reshape_element_count(%x: tensor<2x3xf32>) -> tensor<4x2xf32> {
  // expected-error @below {{vg.reshape: cannot reshape 'tensor<2x3xf32>' (6 elements) to [4, 2] (8 elements)}}
  // expected-error @below {{'vg.reshape' op failed to infer returned types}}
  %0 = vg.reshape %x {shape = array<i64: 4, 2>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @reshape_two_inferred_dims(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  // expected-error @below {{vg.reshape: shape [-1, -1] has more than one -1}}
  // expected-error @below {{'vg.reshape' op failed to infer returned types}}
  %0 = vg.reshape %x {shape = array<i64: -1, -1>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// 24 elements do not split into rows of 5.
func.func @reshape_inferred_dim_not_divisible(%x: tensor<2x3x4xf32>) -> tensor<5x5xf32> {
  // expected-error @below {{vg.reshape: cannot reshape 'tensor<2x3x4xf32>' to [-1, 5]}}
  // expected-error @below {{'vg.reshape' op failed to infer returned types}}
  %0 = vg.reshape %x {shape = array<i64: -1, 5>} : (tensor<2x3x4xf32>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}

// -----

func.func @reshape_negative_dim(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @below {{vg.reshape: shape [-2, 3] has a negative dim other than -1}}
  // expected-error @below {{'vg.reshape' op failed to infer returned types}}
  %0 = vg.reshape %x {shape = array<i64: -2, 3>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @reshape_copy_beyond_rank(%x: tensor<6xf32>) -> tensor<6x1xf32> {
  // expected-error @below {{vg.reshape: shape [-1, 0] copies dim 1 (0) but the input 'tensor<6xf32>' has rank 1}}
  // expected-error @below {{'vg.reshape' op failed to infer returned types}}
  %0 = vg.reshape %x {shape = array<i64: -1, 0>} : (tensor<6xf32>) -> tensor<6x1xf32>
  return %0 : tensor<6x1xf32>
}

// -----

func.func @flatten_axis(%x: tensor<2x3x4xf32>) -> tensor<24x1xf32> {
  // expected-error @below {{vg.flatten: axis 4 is out of range for rank 3 (valid: [-3, 3])}}
  // expected-error @below {{'vg.flatten' op failed to infer returned types}}
  %0 = vg.flatten %x {axis = 4 : i64} : (tensor<2x3x4xf32>) -> tensor<24x1xf32>
  return %0 : tensor<24x1xf32>
}

// -----

func.func @squeeze_non_one_dim(%x: tensor<1x3x1xf32>) -> tensor<1x1xf32> {
  // expected-error @below {{vg.squeeze: dim 1 of 'tensor<1x3x1xf32>' is not 1 and cannot be squeezed}}
  // expected-error @below {{'vg.squeeze' op failed to infer returned types}}
  %0 = vg.squeeze %x {axes = array<i64: 1>} : (tensor<1x3x1xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

func.func @squeeze_axis(%x: tensor<1x3x1xf32>) -> tensor<3x1xf32> {
  // expected-error @below {{vg.squeeze: axis -4 is out of range for rank 3 (valid: [-3, 2])}}
  // expected-error @below {{'vg.squeeze' op failed to infer returned types}}
  %0 = vg.squeeze %x {axes = array<i64: -4>} : (tensor<1x3x1xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

// Unsqueeze axes index the output, whose rank here is 3: 3 is out of range.
func.func @unsqueeze_axis(%x: tensor<3x4xf32>) -> tensor<3x4x1xf32> {
  // expected-error @below {{vg.unsqueeze: axis 3 is out of range for rank 3 (valid: [-3, 2])}}
  // expected-error @below {{'vg.unsqueeze' op failed to infer returned types}}
  %0 = vg.unsqueeze %x {axes = array<i64: 3>} : (tensor<3x4xf32>) -> tensor<3x4x1xf32>
  return %0 : tensor<3x4x1xf32>
}

// -----

func.func @unsqueeze_axis_twice(%x: tensor<3x4xf32>) -> tensor<1x1x3x4xf32> {
  // expected-error @below {{vg.unsqueeze: axis -4 is listed twice in [0, -4]}}
  // expected-error @below {{'vg.unsqueeze' op failed to infer returned types}}
  %0 = vg.unsqueeze %x {axes = array<i64: 0, -4>} : (tensor<3x4xf32>) -> tensor<1x1x3x4xf32>
  return %0 : tensor<1x1x3x4xf32>
}

// -----

func.func @concat_dim_mismatch(%a: tensor<1x64x56x56xf32>, %b: tensor<1x32x28x28xf32>) -> tensor<1x96x56x56xf32> {
  // expected-error @below {{vg.concat: dim 2 differs between 'tensor<1x64x56x56xf32>' and 'tensor<1x32x28x28xf32>' (only the concat axis 1 may)}}
  // expected-error @below {{'vg.concat' op failed to infer returned types}}
  %0 = vg.concat %a, %b {axis = 1 : i64} : (tensor<1x64x56x56xf32>, tensor<1x32x28x28xf32>) -> tensor<1x96x56x56xf32>
  return %0 : tensor<1x96x56x56xf32>
}

// -----

func.func @concat_rank_mismatch(%a: tensor<2xi64>, %b: tensor<1x2xi64>) -> tensor<4xi64> {
  // expected-error @below {{vg.concat: inputs must share rank and element type, got 'tensor<2xi64>' and 'tensor<1x2xi64>'}}
  // expected-error @below {{'vg.concat' op failed to infer returned types}}
  %0 = vg.concat %a, %b {axis = 0 : i64} : (tensor<2xi64>, tensor<1x2xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @concat_element_type_mismatch(%a: tensor<2xi64>, %b: tensor<2xi32>) -> tensor<4xi64> {
  // expected-error @below {{vg.concat: inputs must share rank and element type, got 'tensor<2xi64>' and 'tensor<2xi32>'}}
  // expected-error @below {{'vg.concat' op failed to infer returned types}}
  %0 = vg.concat %a, %b {axis = 0 : i64} : (tensor<2xi64>, tensor<2xi32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @below {{vg.concat: axis 2 is out of range for rank 2 (valid: [-2, 1])}}
  // expected-error @below {{'vg.concat' op failed to infer returned types}}
  %0 = vg.concat %a, %a {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_no_inputs() -> tensor<3xf32> {
  // expected-error @below {{vg.concat: needs at least one input}}
  // expected-error @below {{'vg.concat' op failed to infer returned types}}
  %0 = vg.concat {axis = 0 : i64} : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @split_sizes_sum(%x: tensor<1x128x2304xf32>) -> tensor<1x128x768xf32> {
  // expected-error @below {{vg.split: split sizes [768, 768, 512] sum to 2048 but dim 2 of 'tensor<1x128x2304xf32>' is 2304}}
  // expected-error @below {{'vg.split' op failed to infer returned types}}
  %0:3 = vg.split %x {axis = 2 : i64, split = array<i64: 768, 768, 512>}
      : (tensor<1x128x2304xf32>) -> (tensor<1x128x768xf32>, tensor<1x128x768xf32>, tensor<1x128x512xf32>)
  return %0#0 : tensor<1x128x768xf32>
}

// -----

func.func @split_negative_size(%x: tensor<6xf32>) -> tensor<8xf32> {
  // expected-error @below {{vg.split: split sizes must not be negative, got [8, -2]}}
  // expected-error @below {{'vg.split' op failed to infer returned types}}
  %0:2 = vg.split %x {split = array<i64: 8, -2>} : (tensor<6xf32>) -> (tensor<8xf32>, tensor<0xf32>)
  return %0#0 : tensor<8xf32>
}

// -----

func.func @split_axis(%x: tensor<6xf32>) -> tensor<3xf32> {
  // expected-error @below {{vg.split: axis 1 is out of range for rank 1 (valid: [-1, 0])}}
  // expected-error @below {{'vg.split' op failed to infer returned types}}
  %0:2 = vg.split %x {axis = 1 : i64, split = array<i64: 3, 3>} : (tensor<6xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0#0 : tensor<3xf32>
}

// -----

// The number of results must match the number of pieces.
func.func @split_result_count(%x: tensor<6xf32>) -> tensor<3xf32> {
  // expected-error @below {{'vg.split' op inferred type(s) 'tensor<2xf32>', 'tensor<2xf32>', 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>', 'tensor<3xf32>'}}
  // expected-error @below {{'vg.split' op failed to infer returned types}}
  %0:2 = vg.split %x {split = array<i64: 2, 2, 2>} : (tensor<6xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0#0 : tensor<3xf32>
}

// -----

func.func @slice_lengths_differ(%x: tensor<1x512x768xf32>) -> tensor<1x128x768xf32> {
  // expected-error @below {{vg.slice: starts, ends, axes and steps must have the same length, got 1, 2, 1, 1}}
  // expected-error @below {{'vg.slice' op failed to infer returned types}}
  %0 = vg.slice %x {starts = array<i64: 0>, ends = array<i64: 128, 768>, axes = array<i64: 1>, steps = array<i64: 1>}
      : (tensor<1x512x768xf32>) -> tensor<1x128x768xf32>
  return %0 : tensor<1x128x768xf32>
}

// -----

func.func @slice_zero_step(%x: tensor<1x512x768xf32>) -> tensor<1x128x768xf32> {
  // expected-error @below {{vg.slice: step must not be 0}}
  // expected-error @below {{'vg.slice' op failed to infer returned types}}
  %0 = vg.slice %x {starts = array<i64: 0>, ends = array<i64: 128>, axes = array<i64: 1>, steps = array<i64: 0>}
      : (tensor<1x512x768xf32>) -> tensor<1x128x768xf32>
  return %0 : tensor<1x128x768xf32>
}

// -----

func.func @slice_axis(%x: tensor<1x512x768xf32>) -> tensor<1x128x768xf32> {
  // expected-error @below {{vg.slice: axis 3 is out of range for rank 3 (valid: [-3, 2])}}
  // expected-error @below {{'vg.slice' op failed to infer returned types}}
  %0 = vg.slice %x {starts = array<i64: 0>, ends = array<i64: 128>, axes = array<i64: 3>, steps = array<i64: 1>}
      : (tensor<1x512x768xf32>) -> tensor<1x128x768xf32>
  return %0 : tensor<1x128x768xf32>
}

// -----

func.func @slice_axis_twice(%x: tensor<1x512x768xf32>) -> tensor<1x128x768xf32> {
  // expected-error @below {{vg.slice: axis -2 is listed twice in [1, -2]}}
  // expected-error @below {{'vg.slice' op failed to infer returned types}}
  %0 = vg.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 128, 64>, axes = array<i64: 1, -2>, steps = array<i64: 1, 1>}
      : (tensor<1x512x768xf32>) -> tensor<1x128x768xf32>
  return %0 : tensor<1x128x768xf32>
}

// -----

func.func @gather_axis(%x: tensor<4xi64>, %i: tensor<i64>) -> tensor<i64> {
  // expected-error @below {{vg.gather: axis 1 is out of range for rank 1 (valid: [-1, 0])}}
  // expected-error @below {{'vg.gather' op failed to infer returned types}}
  %0 = vg.gather %x, %i {axis = 1 : i64} : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @gather_scalar_data(%x: tensor<i64>, %i: tensor<i64>) -> tensor<i64> {
  // expected-error @below {{vg.gather: data must have rank >= 1}}
  // expected-error @below {{'vg.gather' op failed to infer returned types}}
  %0 = vg.gather %x, %i : (tensor<i64>, tensor<i64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @gather_float_indices(%x: tensor<4xf32>, %i: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @below {{'vg.gather' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = vg.gather %x, %i : (tensor<4xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @expand_not_broadcastable(%x: tensor<3x1xf32>) -> tensor<2x6xf32> {
  // expected-error @below {{vg.expand: 'tensor<3x1xf32>' does not broadcast to [2, 6]}}
  // expected-error @below {{'vg.expand' op failed to infer returned types}}
  %0 = vg.expand %x {shape = array<i64: 2, 6>} : (tensor<3x1xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// Expand takes -1 in neither ONNX nor vg (torch's -1 folds away before).
func.func @expand_negative_dim(%x: tensor<3x1xf32>) -> tensor<3x4xf32> {
  // expected-error @below {{vg.expand: shape [-1, 4] has a negative dim}}
  // expected-error @below {{'vg.expand' op failed to infer returned types}}
  %0 = vg.expand %x {shape = array<i64: -1, 4>} : (tensor<3x1xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @tile_repeats_length(%x: tensor<3x4xf32>) -> tensor<6x4xf32> {
  // expected-error @below {{vg.tile: repeats has 1 entries, expected one per dim of 'tensor<3x4xf32>'}}
  // expected-error @below {{'vg.tile' op failed to infer returned types}}
  %0 = vg.tile %x {repeats = array<i64: 2>} : (tensor<3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

func.func @tile_negative_repeat(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @below {{vg.tile: repeats must not be negative}}
  // expected-error @below {{'vg.tile' op failed to infer returned types}}
  %0 = vg.tile %x {repeats = array<i64: 1, -1>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Pads for the spatial dims only (as Conv takes them) are not Pad's pads.
func.func @pad_wrong_length(%x: tensor<1x3x32x32xf32>) -> tensor<1x3x34x34xf32> {
  // expected-error @below {{vg.pad: pads has 4 entries, expected 8 (begin and end for each dim of 'tensor<1x3x32x32xf32>')}}
  // expected-error @below {{'vg.pad' op failed to infer returned types}}
  %0 = vg.pad %x {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x34x34xf32>
  return %0 : tensor<1x3x34x34xf32>
}

// -----

func.func @pad_bad_mode(%x: tensor<1x3x32x32xf32>) -> tensor<1x3x34x34xf32> {
  // expected-error @below {{vg.pad: mode 'wrap' is not one of constant, reflect, edge}}
  // expected-error @below {{'vg.pad' op failed to infer returned types}}
  %0 = vg.pad %x {mode = "wrap", pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x3x32x32xf32>) -> tensor<1x3x34x34xf32>
  return %0 : tensor<1x3x34x34xf32>
}

// -----

func.func @pad_crop_below_zero(%x: tensor<2x3xf32>) -> tensor<2x0xf32> {
  // expected-error @below {{vg.pad: pads [0, -2, 0, -2] crop dim 1 of 'tensor<2x3xf32>' below zero}}
  // expected-error @below {{'vg.pad' op failed to infer returned types}}
  %0 = vg.pad %x {pads = array<i64: 0, -2, 0, -2>} : (tensor<2x3xf32>) -> tensor<2x0xf32>
  return %0 : tensor<2x0xf32>
}

// -----

func.func @resize_cubic(%x: tensor<1x3x20x20xf32>) -> tensor<1x3x40x40xf32> {
  // expected-error @below {{vg.resize: mode 'cubic' is not supported (supported: nearest, linear)}}
  // expected-error @below {{'vg.resize' op failed to infer returned types}}
  %0 = vg.resize %x {mode = "cubic", scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x3x20x20xf32>) -> tensor<1x3x40x40xf32>
  return %0 : tensor<1x3x40x40xf32>
}

// -----

func.func @resize_scales_length(%x: tensor<1x3x20x20xf32>) -> tensor<1x3x40x40xf32> {
  // expected-error @below {{vg.resize: scales has 2 entries, expected one per dim of 'tensor<1x3x20x20xf32>'}}
  // expected-error @below {{'vg.resize' op failed to infer returned types}}
  %0 = vg.resize %x {scales = array<f32: 2.0, 2.0>} : (tensor<1x3x20x20xf32>) -> tensor<1x3x40x40xf32>
  return %0 : tensor<1x3x40x40xf32>
}

// -----

func.func @resize_sizes_length(%x: tensor<1x3x20x20xf32>) -> tensor<1x3x40x40xf32> {
  // expected-error @below {{vg.resize: sizes has 2 entries, expected 4}}
  // expected-error @below {{'vg.resize' op failed to infer returned types}}
  %0 = vg.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 40, 40>} : (tensor<1x3x20x20xf32>) -> tensor<1x3x40x40xf32>
  return %0 : tensor<1x3x40x40xf32>
}

// -----

func.func @resize_zero_scale(%x: tensor<1x3x20x20xf32>) -> tensor<1x3x0x40xf32> {
  // expected-error @below {{vg.resize: scales must be positive}}
  // expected-error @below {{'vg.resize' op failed to infer returned types}}
  %0 = vg.resize %x {scales = array<f32: 1.0, 1.0, 0.0, 2.0>} : (tensor<1x3x20x20xf32>) -> tensor<1x3x0x40xf32>
  return %0 : tensor<1x3x0x40xf32>
}

// -----

func.func @resize_coordinate_mode(%x: tensor<1x3x20x20xf32>) -> tensor<1x3x40x40xf32> {
  // expected-error @below {{vg.resize: coordinate_transformation_mode 'half_pixel_symmetric' is not supported}}
  // expected-error @below {{'vg.resize' op failed to infer returned types}}
  %0 = vg.resize %x {coordinate_transformation_mode = "half_pixel_symmetric", scales = array<f32: 1.0, 1.0, 2.0, 2.0>}
      : (tensor<1x3x20x20xf32>) -> tensor<1x3x40x40xf32>
  return %0 : tensor<1x3x40x40xf32>
}

// -----

func.func @resize_tf_crop_and_resize(%x: tensor<1x3x20x20xf32>) -> tensor<1x3x40x40xf32> {
  // expected-error @below {{vg.resize: tf_crop_and_resize (with roi) is not supported}}
  // expected-error @below {{'vg.resize' op failed to infer returned types}}
  %0 = vg.resize %x {coordinate_transformation_mode = "tf_crop_and_resize", mode = "linear", scales = array<f32: 1.0, 1.0, 2.0, 2.0>}
      : (tensor<1x3x20x20xf32>) -> tensor<1x3x40x40xf32>
  return %0 : tensor<1x3x40x40xf32>
}

// -----

func.func @resize_nearest_mode(%x: tensor<1x3x20x20xf32>) -> tensor<1x3x40x40xf32> {
  // expected-error @below {{vg.resize: nearest_mode 'round' is not supported}}
  // expected-error @below {{'vg.resize' op failed to infer returned types}}
  %0 = vg.resize %x {nearest_mode = "round", scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x3x20x20xf32>) -> tensor<1x3x40x40xf32>
  return %0 : tensor<1x3x40x40xf32>
}

// -----

func.func @resize_on_integers(%x: tensor<1x3x20x20xui8>) -> tensor<1x3x40x40xui8> {
  // expected-error @below {{'vg.resize' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<1x3x20x20xui8>'}}
  %0 = vg.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x3x20x20xui8>) -> tensor<1x3x40x40xui8>
  return %0 : tensor<1x3x40x40xui8>
}

// -----

func.func @constant_of_shape_value_not_scalar() -> tensor<2x3xf32> {
  // expected-error @below {{vg.constant_of_shape: value must hold one element}}
  // expected-error @below {{'vg.constant_of_shape' op failed to infer returned types}}
  %0 = vg.constant_of_shape {shape = array<i64: 2, 3>, value = dense<1.0> : tensor<2xf32>} : () -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @constant_of_shape_negative_dim() -> tensor<2x3xf32> {
  // expected-error @below {{vg.constant_of_shape: shape [2, -1] has a negative dim}}
  // expected-error @below {{'vg.constant_of_shape' op failed to infer returned types}}
  %0 = vg.constant_of_shape {shape = array<i64: 2, -1>, value = dense<1.0> : tensor<1xf32>} : () -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @range_not_scalars() -> tensor<4xi64> {
  // expected-error @below {{vg.range: start, limit and delta must be scalars}}
  // expected-error @below {{'vg.range' op failed to infer returned types}}
  %0 = vg.range {start = dense<[0, 1]> : tensor<2xi64>, limit = dense<4> : tensor<i64>, delta = dense<1> : tensor<i64>} : () -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @range_mixed_types() -> tensor<4xi64> {
  // expected-error @below {{vg.range: start, limit and delta must share a type}}
  // expected-error @below {{'vg.range' op failed to infer returned types}}
  %0 = vg.range {start = dense<0> : tensor<i64>, limit = dense<4> : tensor<i32>, delta = dense<1> : tensor<i64>} : () -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @range_zero_delta() -> tensor<4xi64> {
  // expected-error @below {{vg.range: delta must not be 0}}
  // expected-error @below {{'vg.range' op failed to infer returned types}}
  %0 = vg.range {start = dense<0> : tensor<i64>, limit = dense<4> : tensor<i64>, delta = dense<0> : tensor<i64>} : () -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
