#!/usr/bin/python3
"""End-to-end ONNX node tests: compile to .om, run on the simulator, compare.

Every node test of Debian's libonnx-testdata (one folder each under DATA) is
compiled with vinci-compile --emit=om in one precision mode, run with
vinci-run (hazards fatal) on its test_data_set_0 inputs, and each output is
compared with the expected one:

  must_keep_origin_dtype  (the default)
      at ONNX's backend tolerances: the backend test runner
      (onnx/backend/test/runner) asserts the same dtype, then
      numpy.testing.assert_allclose(actual, expected, rtol, atol) with the
      loader's rtol 1e-3 and atol 1e-7; node tests carry no per-test
      override (only downloaded model tests do, through data.json).
  force_fp16  (ATC's default on 310P; every tensor stored as fp16)
      at fp16 tolerance: rtol = atol = 2e-3. The dtype is compared here
      too: fp16 storage inside the model never changes the dtype of a graph
      output.

Tests that use what Vinci does not compile (training operators, control
flow, sequences and optionals, strings, random sampling) are classified as
out of scope by a rule over the model's ops and types (out_of_scope()), and
are reported with the reason, not run. The loss operators
(NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss) are inference ops
like any other and count in scope.

Graph inputs the compiler needs as constants are bound from the test's own
data (--const_input) only when they are shape parameters (SHAPE_PARAMETERS:
the inputs ONNX uses to set an output's shape, such as Reshape's shape or
Slice's starts); a value input (Clip's min, Pad's value, Trilu's k, Range's
start) is always fed at run time, so a test whose kernel cannot take it
fails. The support table lists every test that binds an input.

Prints one line per test and 'N passed, N failed, N out of scope'. Exits 1
when a test of the must-pass list (LOWERED, and ORIGIN_DTYPE_ONLY in
must_keep_origin_dtype), or any test named with --tests, does not pass, and
refuses to run when a name on either list is not a node test of DATA.

  node_tests.py --bin build/bin [--tests test_add,test_relu] [--must-pass]
                [--precision_mode force_fp16] [--doc FILE | --write-doc]
  node_tests.py --check-doc GENERATED COMMITTED

--doc writes the operator support table of a full run (every test, the
default mode) to FILE; --write-doc writes it to docs/onnx-support.md, which
scripts/update-onnx-support.sh does; --check-doc fails when the committed doc
differs from the one a run generated.
"""
import argparse
import collections
import concurrent.futures
import difflib
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper

DATA = "/usr/share/libonnx-testdata/data/node"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "onnx-support.md")

# The must-pass list, the regression guard: a failure among these fails CI
# (in either precision mode); other failures are reported, not fatal.
LOWERED = """
test_abs test_acosh test_acosh_example test_add test_add_bcast test_add_uint8 test_and2d test_and3d
test_and4d test_and_bcast3v1d test_and_bcast3v2d test_and_bcast4v2d test_and_bcast4v3d
test_argmax_default_axis_example test_argmax_default_axis_example_select_last_index
test_argmax_default_axis_random test_argmax_default_axis_random_select_last_index
test_argmax_keepdims_example test_argmax_keepdims_example_select_last_index
test_argmax_keepdims_random test_argmax_keepdims_random_select_last_index
test_argmax_negative_axis_keepdims_example
test_argmax_negative_axis_keepdims_example_select_last_index
test_argmax_negative_axis_keepdims_random
test_argmax_negative_axis_keepdims_random_select_last_index test_argmax_no_keepdims_example
test_argmax_no_keepdims_example_select_last_index test_argmax_no_keepdims_random
test_argmax_no_keepdims_random_select_last_index test_argmin_default_axis_example
test_argmin_default_axis_example_select_last_index test_argmin_default_axis_random
test_argmin_default_axis_random_select_last_index test_argmin_keepdims_example
test_argmin_keepdims_example_select_last_index test_argmin_keepdims_random
test_argmin_keepdims_random_select_last_index test_argmin_negative_axis_keepdims_example
test_argmin_negative_axis_keepdims_example_select_last_index
test_argmin_negative_axis_keepdims_random
test_argmin_negative_axis_keepdims_random_select_last_index test_argmin_no_keepdims_example
test_argmin_no_keepdims_example_select_last_index test_argmin_no_keepdims_random
test_argmin_no_keepdims_random_select_last_index test_asinh test_asinh_example test_atanh
test_atanh_example test_averagepool_1d_default test_averagepool_2d_ceil test_averagepool_2d_default
test_averagepool_2d_pads test_averagepool_2d_pads_count_include_pad
test_averagepool_2d_precomputed_pads test_averagepool_2d_precomputed_pads_count_include_pad
test_averagepool_2d_precomputed_same_upper test_averagepool_2d_precomputed_strides
test_averagepool_2d_same_lower test_averagepool_2d_same_upper test_averagepool_2d_strides
test_basic_conv_with_padding test_basic_conv_without_padding test_batchnorm_epsilon
test_batchnorm_example test_cast_FLOAT16_to_FLOAT test_cast_FLOAT_to_FLOAT16
test_castlike_FLOAT16_to_FLOAT test_castlike_FLOAT16_to_FLOAT_expanded
test_castlike_FLOAT_to_FLOAT16 test_castlike_FLOAT_to_FLOAT16_expanded test_ceil test_ceil_example
test_celu test_celu_expanded test_clip_default_inbounds test_clip_default_int8_inbounds
test_concat_1d_axis_0 test_concat_1d_axis_negative_1 test_concat_2d_axis_0 test_concat_2d_axis_1
test_concat_2d_axis_negative_1 test_concat_2d_axis_negative_2 test_concat_3d_axis_0
test_concat_3d_axis_1 test_concat_3d_axis_2 test_concat_3d_axis_negative_1
test_concat_3d_axis_negative_2 test_concat_3d_axis_negative_3 test_constant
test_constantofshape_float_ones test_constantofshape_int_shape_zero test_constantofshape_int_zeros
test_conv_with_autopad_same test_conv_with_strides_and_asymmetric_padding
test_conv_with_strides_no_padding test_conv_with_strides_padding test_convtranspose
test_convtranspose_autopad_same test_convtranspose_dilations test_convtranspose_kernel_shape
test_convtranspose_output_shape test_convtranspose_pad test_convtranspose_pads
test_convtranspose_with_kernel test_cos test_cos_example test_cosh test_cosh_example
test_depthtospace_crd_mode test_depthtospace_crd_mode_example test_depthtospace_dcr_mode
test_depthtospace_example test_dequantizelinear test_dequantizelinear_axis test_div test_div_bcast
test_div_example test_div_uint8 test_dropout_default test_dropout_default_mask
test_dropout_default_mask_ratio test_dropout_default_old test_dropout_default_ratio
test_dropout_random_old test_dynamicquantizelinear_max_adjusted_expanded
test_dynamicquantizelinear_min_adjusted_expanded test_elu test_elu_default test_elu_example
test_equal test_equal_bcast test_erf test_exp test_exp_example test_expand_dim_changed
test_expand_dim_unchanged test_eyelike_populate_off_main_diagonal test_eyelike_without_dtype
test_flatten_axis0 test_flatten_axis1 test_flatten_axis2 test_flatten_axis3
test_flatten_default_axis test_flatten_negative_axis1 test_flatten_negative_axis2
test_flatten_negative_axis3 test_flatten_negative_axis4 test_floor test_floor_example test_gather_0
test_gather_1 test_gather_2d_indices test_gather_elements_0 test_gather_elements_1
test_gather_elements_negative_indices test_gather_negative_indices test_gemm_all_attributes
test_gemm_alpha test_gemm_beta test_gemm_default_matrix_bias test_gemm_default_no_bias
test_gemm_default_scalar_bias test_gemm_default_single_elem_vector_bias
test_gemm_default_vector_bias test_gemm_default_zero_bias test_gemm_transposeA test_gemm_transposeB
test_globalaveragepool test_globalaveragepool_precomputed test_globalmaxpool
test_globalmaxpool_precomputed test_greater test_greater_bcast test_greater_equal
test_greater_equal_bcast test_greater_equal_bcast_expanded test_greater_equal_expanded
test_hardmax_axis_0 test_hardmax_axis_1 test_hardmax_axis_2 test_hardmax_default_axis
test_hardmax_example test_hardmax_negative_axis test_hardmax_one_hot test_hardsigmoid
test_hardsigmoid_default test_hardsigmoid_example test_hardswish test_hardswish_expanded
test_identity test_instancenorm_epsilon test_instancenorm_example test_layer_normalization_2d_axis0
test_layer_normalization_2d_axis0_expanded test_layer_normalization_2d_axis1
test_layer_normalization_2d_axis1_expanded test_layer_normalization_2d_axis_negative_1
test_layer_normalization_2d_axis_negative_1_expanded test_layer_normalization_2d_axis_negative_2
test_layer_normalization_2d_axis_negative_2_expanded test_layer_normalization_3d_axis0_epsilon
test_layer_normalization_3d_axis0_epsilon_expanded test_layer_normalization_3d_axis1_epsilon
test_layer_normalization_3d_axis1_epsilon_expanded test_layer_normalization_3d_axis2_epsilon
test_layer_normalization_3d_axis2_epsilon_expanded
test_layer_normalization_3d_axis_negative_1_epsilon
test_layer_normalization_3d_axis_negative_1_epsilon_expanded
test_layer_normalization_3d_axis_negative_2_epsilon
test_layer_normalization_3d_axis_negative_2_epsilon_expanded
test_layer_normalization_3d_axis_negative_3_epsilon
test_layer_normalization_3d_axis_negative_3_epsilon_expanded test_layer_normalization_4d_axis0
test_layer_normalization_4d_axis0_expanded test_layer_normalization_4d_axis1
test_layer_normalization_4d_axis1_expanded test_layer_normalization_4d_axis2
test_layer_normalization_4d_axis2_expanded test_layer_normalization_4d_axis3
test_layer_normalization_4d_axis3_expanded test_layer_normalization_4d_axis_negative_1
test_layer_normalization_4d_axis_negative_1_expanded test_layer_normalization_4d_axis_negative_2
test_layer_normalization_4d_axis_negative_2_expanded test_layer_normalization_4d_axis_negative_3
test_layer_normalization_4d_axis_negative_3_expanded test_layer_normalization_4d_axis_negative_4
test_layer_normalization_4d_axis_negative_4_expanded test_layer_normalization_default_axis
test_layer_normalization_default_axis_expanded test_leakyrelu test_leakyrelu_default
test_leakyrelu_example test_less test_less_bcast test_less_equal test_less_equal_bcast
test_less_equal_bcast_expanded test_less_equal_expanded test_log test_log_example
test_logsoftmax_axis_0 test_logsoftmax_axis_0_expanded test_logsoftmax_axis_1
test_logsoftmax_axis_1_expanded test_logsoftmax_axis_2 test_logsoftmax_axis_2_expanded
test_logsoftmax_default_axis test_logsoftmax_default_axis_expanded test_logsoftmax_example_1
test_logsoftmax_example_1_expanded test_logsoftmax_large_number test_logsoftmax_negative_axis
test_logsoftmax_negative_axis_expanded test_lrn test_lrn_default test_matmul_2d test_matmul_3d
test_matmul_4d test_matmulinteger test_max_example test_max_float16 test_max_float32 test_max_int32
test_max_int64 test_max_int8 test_max_one_input test_max_two_inputs test_max_uint8
test_maxpool_1d_default test_maxpool_2d_ceil test_maxpool_2d_default test_maxpool_2d_dilations
test_maxpool_2d_pads test_maxpool_2d_precomputed_pads test_maxpool_2d_precomputed_same_upper
test_maxpool_2d_precomputed_strides test_maxpool_2d_same_lower test_maxpool_2d_same_upper
test_maxpool_2d_strides test_mean_example test_mean_one_input test_mean_two_inputs test_min_example
test_min_float16 test_min_float32 test_min_int32 test_min_int64 test_min_int8 test_min_one_input
test_min_two_inputs test_min_uint8 test_mod_broadcast test_mod_int64_fmod
test_mod_mixed_sign_float16 test_mod_mixed_sign_float32 test_mod_mixed_sign_int32
test_mod_mixed_sign_int64 test_mod_mixed_sign_int8 test_mod_uint8 test_mul test_mul_bcast
test_mul_example test_mul_uint8 test_mvn test_neg test_neg_example test_nllloss_NC_expanded
test_nllloss_NCd1_expanded test_nllloss_NCd1_ii_expanded
test_nllloss_NCd1_mean_weight_negative_ii_expanded test_nllloss_NCd1_weight_expanded
test_nllloss_NCd1_weight_ii_expanded test_nllloss_NCd1d2_expanded
test_nllloss_NCd1d2_no_weight_reduction_mean_ii_expanded test_nllloss_NCd1d2_reduction_mean_expanded
test_nllloss_NCd1d2_reduction_sum_expanded test_nllloss_NCd1d2_with_weight_expanded
test_nllloss_NCd1d2_with_weight_reduction_mean_expanded
test_nllloss_NCd1d2_with_weight_reduction_sum_expanded
test_nllloss_NCd1d2_with_weight_reduction_sum_ii_expanded
test_nllloss_NCd1d2d3_none_no_weight_negative_ii_expanded
test_nllloss_NCd1d2d3_sum_weight_high_ii_expanded test_nllloss_NCd1d2d3d4d5_mean_weight_expanded
test_nllloss_NCd1d2d3d4d5_none_no_weight_expanded test_not_2d test_not_3d test_not_4d test_or2d
test_or3d test_or4d test_or_bcast3v1d test_or_bcast3v2d test_or_bcast4v2d test_or_bcast4v3d
test_pow_bcast_array test_pow_bcast_scalar test_pow_types_float test_pow_types_float32_int32
test_pow_types_float32_int64 test_pow_types_int test_pow_types_int32_float32
test_pow_types_int32_int32 test_pow_types_int64_float32 test_pow_types_int64_int64
test_prelu_broadcast test_prelu_example test_qlinearmatmul_2D test_qlinearmatmul_3D
test_quantizelinear test_quantizelinear_axis test_reciprocal test_reciprocal_example
test_reduce_l1_default_axes_keepdims_example test_reduce_l1_default_axes_keepdims_random
test_reduce_l1_do_not_keepdims_example test_reduce_l1_do_not_keepdims_random
test_reduce_l1_keep_dims_example test_reduce_l1_keep_dims_random
test_reduce_l1_negative_axes_keep_dims_example test_reduce_l1_negative_axes_keep_dims_random
test_reduce_l2_default_axes_keepdims_example test_reduce_l2_default_axes_keepdims_random
test_reduce_l2_do_not_keepdims_example test_reduce_l2_do_not_keepdims_random
test_reduce_l2_keep_dims_example test_reduce_l2_keep_dims_random
test_reduce_l2_negative_axes_keep_dims_example test_reduce_l2_negative_axes_keep_dims_random
test_reduce_log_sum test_reduce_log_sum_asc_axes test_reduce_log_sum_default
test_reduce_log_sum_desc_axes test_reduce_log_sum_negative_axes
test_reduce_max_default_axes_keepdim_example test_reduce_max_default_axes_keepdims_random
test_reduce_max_do_not_keepdims_example test_reduce_max_do_not_keepdims_random
test_reduce_max_keepdims_example test_reduce_max_keepdims_random
test_reduce_max_negative_axes_keepdims_example test_reduce_max_negative_axes_keepdims_random
test_reduce_mean_default_axes_keepdims_example test_reduce_mean_default_axes_keepdims_random
test_reduce_mean_do_not_keepdims_example test_reduce_mean_do_not_keepdims_random
test_reduce_mean_keepdims_example test_reduce_mean_keepdims_random
test_reduce_mean_negative_axes_keepdims_example test_reduce_mean_negative_axes_keepdims_random
test_reduce_min_default_axes_keepdims_example test_reduce_min_default_axes_keepdims_random
test_reduce_min_do_not_keepdims_example test_reduce_min_do_not_keepdims_random
test_reduce_min_keepdims_example test_reduce_min_keepdims_random
test_reduce_min_negative_axes_keepdims_example test_reduce_min_negative_axes_keepdims_random
test_reduce_prod_default_axes_keepdims_example test_reduce_prod_default_axes_keepdims_random
test_reduce_prod_do_not_keepdims_example test_reduce_prod_do_not_keepdims_random
test_reduce_prod_keepdims_example test_reduce_prod_keepdims_random
test_reduce_prod_negative_axes_keepdims_example test_reduce_prod_negative_axes_keepdims_random
test_reduce_sum_default_axes_keepdims_example test_reduce_sum_default_axes_keepdims_random
test_reduce_sum_do_not_keepdims_example test_reduce_sum_do_not_keepdims_random
test_reduce_sum_empty_axes_input_noop_example test_reduce_sum_empty_axes_input_noop_random
test_reduce_sum_keepdims_example test_reduce_sum_keepdims_random
test_reduce_sum_negative_axes_keepdims_example test_reduce_sum_negative_axes_keepdims_random
test_reduce_sum_square_default_axes_keepdims_example
test_reduce_sum_square_default_axes_keepdims_random test_reduce_sum_square_do_not_keepdims_example
test_reduce_sum_square_do_not_keepdims_random test_reduce_sum_square_keepdims_example
test_reduce_sum_square_keepdims_random test_reduce_sum_square_negative_axes_keepdims_example
test_reduce_sum_square_negative_axes_keepdims_random test_relu test_reshape_allowzero_reordered
test_reshape_extended_dims test_reshape_negative_dim test_reshape_negative_extended_dims
test_reshape_one_dim test_reshape_reduced_dims test_reshape_reordered_all_dims
test_reshape_reordered_last_dims test_reshape_zero_and_negative_dim test_reshape_zero_dim
test_resize_downsample_scales_linear test_resize_downsample_scales_linear_align_corners
test_resize_downsample_scales_nearest test_resize_downsample_sizes_linear_pytorch_half_pixel
test_resize_downsample_sizes_nearest test_resize_downsample_sizes_nearest_tf_half_pixel_for_nn
test_resize_upsample_scales_linear test_resize_upsample_scales_linear_align_corners
test_resize_upsample_scales_nearest test_resize_upsample_sizes_nearest
test_resize_upsample_sizes_nearest_ceil_half_pixel
test_resize_upsample_sizes_nearest_floor_align_corners
test_resize_upsample_sizes_nearest_round_prefer_ceil_asymmetric test_round test_selu
test_selu_default test_selu_example test_shape test_shape_clip_end test_shape_clip_start
test_shape_end_1 test_shape_end_negative_1 test_shape_example test_shape_start_1
test_shape_start_1_end_2 test_shape_start_1_end_negative_1 test_shape_start_negative_1
test_shrink_hard test_shrink_soft test_sigmoid test_sigmoid_example test_sign test_sin
test_sin_example test_sinh test_sinh_example test_size test_size_example test_slice
test_slice_default_axes test_slice_default_steps test_slice_end_out_of_bounds test_slice_neg
test_slice_neg_steps test_slice_negative_axes test_slice_start_out_of_bounds test_softmax_axis_0
test_softmax_axis_0_expanded test_softmax_axis_1 test_softmax_axis_1_expanded test_softmax_axis_2
test_softmax_axis_2_expanded test_softmax_default_axis test_softmax_default_axis_expanded
test_softmax_example test_softmax_example_expanded test_softmax_large_number
test_softmax_negative_axis test_softmax_negative_axis_expanded test_softplus test_softplus_example
test_softsign test_softsign_example test_spacetodepth test_spacetodepth_example
test_split_equal_parts_1d test_split_equal_parts_2d test_split_equal_parts_default_axis
test_split_variable_parts_1d test_split_variable_parts_2d test_split_variable_parts_default_axis
test_split_zero_size_splits test_sqrt test_sqrt_example test_squeeze test_squeeze_negative_axes
test_sub test_sub_bcast test_sub_example test_sub_uint8 test_sum_example test_sum_one_input
test_sum_two_inputs test_tanh test_tanh_example test_thresholdedrelu test_thresholdedrelu_default
test_thresholdedrelu_example test_tile test_tile_precomputed test_transpose_all_permutations_0
test_transpose_all_permutations_1 test_transpose_all_permutations_2
test_transpose_all_permutations_3 test_transpose_all_permutations_4
test_transpose_all_permutations_5 test_transpose_default test_tril test_tril_one_row_neg
test_tril_square test_triu test_triu_square test_unsqueeze_axis_0 test_unsqueeze_axis_1
test_unsqueeze_axis_2 test_unsqueeze_axis_3 test_unsqueeze_negative_axes test_unsqueeze_three_axes
test_unsqueeze_two_axes test_unsqueeze_unsorted_axes test_upsample_nearest test_where_example
test_where_long_example test_xor2d test_xor3d test_xor4d test_xor_bcast3v1d test_xor_bcast3v2d
test_xor_bcast4v2d test_xor_bcast4v3d
""".split()

# Tests that must pass in must_keep_origin_dtype (fp32 stays fp32) but not in
# force_fp16: there, logits of 1e4 collapse in fp16 before the max shift
# (softmax/logsoftmax_large_number_expanded) and e^(6 ln 3) rounds (pow).
ORIGIN_DTYPE_ONLY = """
test_dynamicquantizelinear_expanded test_logsoftmax_large_number_expanded test_pow
test_pow_example test_softmax_large_number_expanded
""".split()

# (rtol, atol) per precision mode; see the module docstring.
TOLERANCES = {
    "must_keep_origin_dtype": (1e-3, 1e-7),
    "force_fp16": (2e-3, 2e-3),
}

# The inputs that set an output's shape (and, for Slice, which elements it
# reads), by op and input index: the only graph inputs a test may bind at
# compile time. A static-shape compiler needs them constant, as ATC and
# TensorRT (shape tensors) do; every other input is a value, fed at run time.
REDUCTIONS = ("ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
              "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare")
SHAPE_PARAMETERS = {
    "Reshape": {1: "shape"}, "Expand": {1: "shape"}, "Tile": {1: "repeats"},
    "Slice": {1: "starts", 2: "ends", 3: "axes", 4: "steps"}, "Split": {1: "split"},
    "Squeeze": {1: "axes"}, "Unsqueeze": {1: "axes"}, "Pad": {1: "pads", 3: "axes"},
    "ConstantOfShape": {0: "input"}, "Resize": {2: "scales", 3: "sizes"},
    "Upsample": {1: "scales"}, "TopK": {1: "K"}, "OneHot": {1: "depth"},
    "CenterCropPad": {1: "shape"}, **{op: {1: "axes"} for op in REDUCTIONS},
}

TRAINING_DOMAIN = "ai.onnx.preview.training"
RANDOM_OPS = {"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike",
              "Multinomial", "Bernoulli"}
SEQUENCE_OPS = {"SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase",
                "SequenceInsert", "SequenceLength", "SequenceMap", "SplitToSequence",
                "ConcatFromSequence", "Optional", "OptionalGetElement", "OptionalHasElement"}
STRING_OPS = {"StringNormalizer"}


def load_pb(path):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


def data_files(folder, prefix):
    data = os.path.join(folder, "test_data_set_0")
    return sorted((f for f in os.listdir(data) if f.startswith(prefix)),
                  key=lambda f: int(f[len(prefix):-len(".pb")]))


def constant_value(model, folder, name):
    """The value of `name` when it is an initializer, a Constant's output or
    a graph input with test data; None otherwise."""
    for init in model.graph.initializer:
        if init.name == name:
            return numpy_helper.to_array(init)
    for node in model.graph.node:
        if node.op_type == "Constant" and name in node.output:
            for attr in node.attribute:
                if attr.name == "value":
                    return numpy_helper.to_array(attr.t)
    names = [i.name for i in model.graph.input]
    if name in names:
        inputs = data_files(folder, "input_")
        if names.index(name) < len(inputs):
            return load_pb(os.path.join(folder, "test_data_set_0", inputs[names.index(name)]))
    return None


def out_of_scope(model, folder):
    """Why Vinci does not compile this test's model, or None. A rule over
    the model's ops, attributes and value types, in this order."""
    nodes = list(model.graph.node)
    ops = {n.op_type for n in nodes}
    if any(n.domain == TRAINING_DOMAIN for n in nodes):
        return "training operator (ai.onnx.preview.training): Vinci compiles inference graphs"
    for n in nodes:
        attrs = {a.name: a for a in n.attribute}
        if n.op_type == "BatchNormalization" and (
                "training_mode" in attrs and attrs["training_mode"].i or len(n.output) > 1):
            return "BatchNormalization in training mode (batch statistics): Vinci compiles inference graphs"
        if n.op_type == "Dropout" and len(n.input) > 2 and n.input[2]:
            value = constant_value(model, folder, n.input[2])
            if value is None or bool(np.all(value)):
                return "Dropout in training mode (random mask): Vinci compiles inference graphs"
    values = list(model.graph.input) + list(model.graph.output) + list(model.graph.value_info)
    if ops & SEQUENCE_OPS or any(v.type.WhichOneof("value") != "tensor_type" for v in values):
        return "sequence or optional values: Vinci's graphs carry tensors only"
    if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
           for n in nodes for a in n.attribute):
        return "control flow (If / Loop / Scan subgraphs): Vinci compiles static dataflow graphs"
    tensors = [v.type.tensor_type.elem_type for v in values] + \
        [t.data_type for t in model.graph.initializer] + \
        [a.t.data_type for n in nodes for a in n.attribute if a.type == onnx.AttributeProto.TENSOR] + \
        [a.i for n in nodes if n.op_type == "Cast" for a in n.attribute if a.name == "to"]
    if ops & STRING_OPS or onnx.TensorProto.STRING in tensors:
        return "string tensors: the NPU has no string type"
    if ops & RANDOM_OPS:
        return "random sampling: the expected output is one draw of numpy's generator"
    return None


def op_under_test(name, model):
    """The operator a node test is about: its model's op when it has one,
    for an _expanded test the op of the test it expands, else the op its
    name starts with."""
    if name.endswith("_expanded"):
        base = os.path.join(DATA, name[:-len("_expanded")], "model.onnx")
        if os.path.exists(base):
            model = onnx.load(base, load_external_data=False)
    ops = [n.op_type for n in model.graph.node]
    if len(set(ops)) == 1:
        return ops[0]
    key = name[len("test_"):].lower().replace("_", "")
    named = [op for op in set(ops) if key.startswith(op.lower())]
    return max(named, key=len) if named else (ops[0] if ops else "(none)")


def one_line(text, work):
    """A failure's first line without the machine's paths (the doc must not
    depend on where the run happened)."""
    line = (text.strip().splitlines() or [""])[0]
    line = line.replace(work + os.sep, "").replace(DATA + os.sep, "")
    line = re.sub(r"^vinci-(compile|run): error: ", "", line)
    line = re.sub(r"^test_\w+/model\.onnx: ", "", line)
    return re.sub(r'^loc\("[^"]*"\): error: ', "", line)


def compare(actual, expected, rtol, atol):
    """ONNX's check: same dtype, same shape, then
    |actual - expected| <= atol + rtol * |expected| with NaNs equal."""
    if actual.dtype != expected.dtype:
        return f"dtype {actual.dtype}, expected {expected.dtype}"
    if actual.shape != expected.shape:
        return f"shape {actual.shape}, expected {expected.shape}"
    if expected.dtype == bool or actual.dtype == bool:
        bad = int(np.count_nonzero(actual.astype(bool) != expected.astype(bool)))
        return f"{bad} of {expected.size} booleans differ" if bad else ""
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    close = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
    if close.all():
        return ""
    finite = np.isfinite(a) & np.isfinite(e)
    err = np.abs(a - e)[finite & ~close]
    worst = f", max abs error {err.max():.3g}" if err.size else ", non-finite values differ"
    return f"{np.count_nonzero(~close)} of {e.size} values off{worst} (rtol {rtol:g}, atol {atol:g})"


def execute(cmd, timeout):
    """subprocess.run, waiting out a binary that is being relinked (a shared
    build tree: 'Text file busy' or 'Permission denied' for a few seconds)."""
    for attempt in range(20):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except OSError:
            if attempt == 19:
                raise
            time.sleep(3)


def check_compare():
    """compare() must reject what ONNX's runner rejects, in every mode (an
    fp16 output of an fp32 test fails at fp16 tolerance too); checked every
    run so that a pass can never come from a comparison that accepts
    anything."""
    e = np.array([1.0, -2.0, 0.0, np.nan], np.float32)
    for actual, (rtol, atol), ok in [
            (e.copy(), TOLERANCES["must_keep_origin_dtype"], True),
            (e * np.float32(1.0009), TOLERANCES["must_keep_origin_dtype"], True),
            (e * np.float32(1.0011), TOLERANCES["must_keep_origin_dtype"], False),
            (e + np.float32(2e-7), TOLERANCES["must_keep_origin_dtype"], False),
            (e.astype(np.float16), TOLERANCES["must_keep_origin_dtype"], False),
            (e.astype(np.float16), TOLERANCES["force_fp16"], False),
            (e * np.float32(1.0019), TOLERANCES["force_fp16"], True),
            (e * np.float32(1.003), TOLERANCES["force_fp16"], False),
            (e[:3], TOLERANCES["must_keep_origin_dtype"], False),
            (np.array([1.0, -2.0, 0.0, 0.0], np.float32), TOLERANCES["force_fp16"], False)]:
        assert (compare(actual, e, rtol, atol) == "") == ok, (actual, rtol, atol)
    b = np.array([True, False])
    assert compare(b, b, 1e-3, 1e-7) == "" and compare(~b, b, 1e-3, 1e-7)
    assert compare(b.astype(np.uint8), b, 2e-3, 2e-3)


def value_uses(model, name):
    """How the graph uses input `name` other than as a shape parameter: a
    list of 'Op input k' (empty when every use is one of SHAPE_PARAMETERS)."""
    uses = []
    for node in model.graph.node:
        for slot, used in enumerate(node.input):
            if used == name and slot not in SHAPE_PARAMETERS.get(node.op_type, {}):
                uses.append(f"{node.op_type} input {slot}")
    return uses


def shape_parameter_uses(model, name):
    """'Op's param' for each use of input `name` as a shape parameter."""
    return [f"{node.op_type}'s {SHAPE_PARAMETERS[node.op_type][slot]}"
            for node in model.graph.node for slot, used in enumerate(node.input)
            if used == name and slot in SHAPE_PARAMETERS.get(node.op_type, {})]


def check_binding_rule():
    """value_uses() must call a value input a value: checked every run on
    real node tests, so that binding can never drift back to value inputs."""
    def uses(test, name):
        return value_uses(onnx.load(os.path.join(DATA, test, "model.onnx"),
                                    load_external_data=False), name)
    for test, name, value in [("test_reshape_extended_dims", "shape", False),
                              ("test_slice", "starts", False),
                              ("test_constant_pad", "pads", False),
                              ("test_constant_pad", "value", True),
                              ("test_clip", "min", True),
                              ("test_tril_neg", "k", True),
                              ("test_range_float_type_positive_delta", "start", True),
                              ("test_reshape_extended_dims", "data", True)]:
        assert bool(uses(test, name)) == value, (test, name, uses(test, name))


def compile_node_test(bin_dir, model, model_path, output, precision_mode, timeout, emit="om",
                      bound=None, extra=()):
    """Compiles a node test's model with vinci-compile --emit=EMIT. Shape
    parameters the importer needs as constants (Slice starts/ends/axes/steps,
    Split sizes, Reshape shapes, reduction axes, ...) are bound from the test
    data, as the compiler's message tells a user to do with --const_input
    (or exactly `bound` when given); everything else is fed at run time.
    `extra` are more vinci-compile arguments.
    Returns (the last vinci-compile's CompletedProcess, the bound input
    names, '' or why a value input the compiler wants constant was not
    bound)."""
    folder = os.path.dirname(model_path)
    data = os.path.join(folder, "test_data_set_0")
    inputs = data_files(folder, "input_")
    graph_inputs = [i.name for i in model.graph.input]
    fixed = bound is not None
    bound = list(bound or [])
    for _ in range(len(graph_inputs) + 1):
        cmd = [os.path.join(bin_dir, "vinci-compile"), "--model", model_path, "--emit=" + emit,
               "--output", output, "--precision_mode", precision_mode, *extra]
        if bound:
            cmd += ["--const_input", ";".join(
                f"{n}:{os.path.join(data, inputs[graph_inputs.index(n)])}" for n in bound)]
        proc = execute(cmd, timeout)
        named = [n for n in re.findall(r"'([^']+)' is a graph input", proc.stderr)
                 if n in graph_inputs and n not in bound and graph_inputs.index(n) < len(inputs)]
        if proc.returncode == 0 or not named or fixed:
            break
        values = [n for n in named if value_uses(model, n)]
        if values:
            return proc, bound, (f"not bound: '{values[0]}' is a value input, "
                                 f"{value_uses(model, values[0])[0]}")
        bound += named
    return proc, bound, ""


def const_input_option(name, model, bound):
    """The --const_input option compile_node_test used for `bound`, or []."""
    if not bound:
        return []
    folder = os.path.join(DATA, name)
    inputs = data_files(folder, "input_")
    graph_inputs = [i.name for i in model.graph.input]
    return ["--const_input", ";".join(
        f"{n}:{os.path.join(folder, 'test_data_set_0', inputs[graph_inputs.index(n)])}"
        for n in bound)]


def run_test(args, name, work):
    """(status, reason, bound): status is 'pass', 'fail' or 'out of scope';
    bound names the inputs bound at compile time and what they set."""
    folder = os.path.join(DATA, name)
    model_path = os.path.join(folder, "model.onnx")
    model = onnx.load(model_path, load_external_data=False)
    reason = out_of_scope(model, folder)
    if reason:
        return "out of scope", reason, []
    om = os.path.join(work, name + ".om")
    data = os.path.join(folder, "test_data_set_0")
    inputs = data_files(folder, "input_")
    graph_inputs = [i.name for i in model.graph.input]
    bound = []

    def bound_text():
        return [f"{n} ({', '.join(shape_parameter_uses(model, n))})" for n in bound]
    try:
        proc, bound, unbound = compile_node_test(args.bin, model, model_path, om,
                                                 args.precision_mode, args.timeout)
        if unbound:
            return "fail", "compile: " + one_line(proc.stderr, work) + f" ({unbound})", \
                bound_text()
        if proc.returncode != 0:
            return "fail", "compile: " + one_line(proc.stderr or f"exit {proc.returncode}",
                                                  work), bound_text()
        run_inputs = [f for k, f in enumerate(inputs) if graph_inputs[k] not in bound]
        out_dir = os.path.join(work, name + ".out")
        os.makedirs(out_dir, exist_ok=True)
        for stale in os.listdir(out_dir):
            os.remove(os.path.join(out_dir, stale))
        cmd = [os.path.join(args.bin, "vinci-run"), "--model", om, "--hazards", "fatal",
               "--threads", "1", "--output_dir", out_dir]
        if run_inputs:
            cmd += ["--input"] + [os.path.join(data, f) for f in run_inputs]
        proc = execute(cmd, args.timeout)
    except subprocess.TimeoutExpired as e:
        return "fail", f"{os.path.basename(e.cmd[0])}: timed out after {args.timeout} s", \
            bound_text()
    if proc.returncode != 0:
        return "fail", "run: " + one_line(proc.stderr or f"exit {proc.returncode}", work), \
            bound_text()
    outputs = data_files(folder, "output_")
    produced = [f for f in os.listdir(out_dir) if re.fullmatch(r"output_\d+\.npy", f)]
    if len(produced) != len(outputs):
        return "fail", f"{len(produced)} outputs, expected {len(outputs)}", bound_text()
    rtol, atol = TOLERANCES[args.precision_mode]
    for index, expected_file in enumerate(outputs):
        expected = load_pb(os.path.join(data, expected_file))
        actual = np.load(os.path.join(out_dir, f"output_{index}.npy"))
        why = compare(actual, expected, rtol, atol)
        if why:
            return "fail", f"output {index}: {why}", bound_text()
    return "pass", "", bound_text()


def table_cell(text):
    return text.replace("|", "\\|")


def doc_text(results, mode):
    """The generated docs/onnx-support.md."""
    rtol, atol = TOLERANCES[mode]
    counts = collections.Counter(status for _, _, status, _, _ in results)
    binding = [(name, status, bound) for name, _, status, _, bound in results if bound]
    per_op = collections.defaultdict(lambda: {"pass": 0, "fail": 0, "out of scope": 0, "note": ""})
    for name, op, status, why, _ in results:
        row = per_op[op]
        row[status] += 1
        if status == "fail" and row["fail"] == 1:
            row["note"] = f"{name}: {why}"
        elif status == "out of scope" and not row["fail"] and not row["note"]:
            row["note"] = f"out of scope: {why}"
    lines = [
        "# ONNX operator support",
        "",
        "Generated by `test/e2e/node_tests.py --write-doc` from the end-to-end run of",
        "Debian's libonnx-testdata node tests (ONNX 1.12); do not edit by hand.",
        "Regenerate with `scripts/update-onnx-support.sh`; the ctest",
        "`onnx_support_doc_current` fails while this file differs from the run.",
        "",
        f"Each node test is compiled with `vinci-compile --precision_mode {mode}`, run on",
        "the AI Core simulator (a model of the 310P, not a device) with pipe hazards",
        "fatal, and every output is compared with the expected one at ONNX's backend",
        f"tolerances (same dtype, rtol {rtol:g}, atol {atol:g}).",
        "A test counts under the operator it tests (an `_expanded` test under the",
        "operator whose function body it runs). Tests outside Vinci's scope are not run;",
        "the list at the end gives each one's reason. The loss operators",
        "(NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss) are in scope.",
        "",
        "A graph input is bound at compile time (`--const_input`, from the test's data)",
        "only when it is a shape parameter (Reshape's shape, Slice's starts, a",
        "reduction's axes, ...: `SHAPE_PARAMETERS` in the runner); value inputs (Clip's",
        "min and max, Pad's value, Trilu's k, Range's start) are fed at run time, so a",
        "test whose kernel needs one constant fails. The section",
        "[Inputs bound at compile time](#inputs-bound-at-compile-time) lists every test",
        "that binds one.",
        "",
        f"**{counts['pass']} passed, {counts['fail']} failed, {counts['out of scope']} out of scope** "
        f"of {len(results)} node tests; "
        f"{sum(status == 'pass' for _, status, _ in binding)} of the passes bind shape parameters.",
        "",
        "| op | passed | failed | out of scope | notes (the first failure) |",
        "|---|---|---|---|---|",
    ]
    for op in sorted(per_op, key=str.lower):
        row = per_op[op]
        lines.append(f"| {op} | {row['pass']} | {row['fail']} | {row['out of scope']} "
                     f"| {table_cell(row['note'])} |")
    lines += ["", "## Inputs bound at compile time", "",
              "| test | result | inputs bound (what each sets) |", "|---|---|---|"]
    lines += [f"| {name} | {status} | {table_cell('; '.join(bound))} |"
              for name, status, bound in binding]
    lines += ["", "## Out of scope", "", "| test | reason |", "|---|---|"]
    lines += [f"| {name} | {table_cell(why)} |"
              for name, _, status, why, _ in results if status == "out of scope"]
    lines.append("")
    return "\n".join(lines)


def listed_tests(names, every, what):
    """`names` when each is a node test of DATA; a list naming a test that
    is not there would silently shrink the set it guards, so it is an error."""
    missing = sorted(set(names) - set(every))
    if missing:
        raise ValueError(f"{what} names {len(missing)} test(s) not in {DATA}: "
                         + " ".join(missing))
    return names


def check_rules(every):
    """The runner's own rules, on real node tests: the ctest e2e_node_rules
    runs these alone (node_tests.py --self-test), every run runs them first."""
    check_compare()
    check_binding_rule()
    try:
        listed_tests(["test_add", "test_no_such_node_test"], every, "the must-pass list")
        raise AssertionError("a must-pass name missing from the data was accepted")
    except ValueError as error:
        assert "test_no_such_node_test" in str(error), error

    def scope(test):
        folder = os.path.join(DATA, test)
        return out_of_scope(onnx.load(os.path.join(folder, "model.onnx"),
                                      load_external_data=False), folder)
    for test in ("test_nllloss_NC", "test_sce_mean", "test_sce_mean_expanded"):
        assert scope(test) is None, (test, scope(test))
    assert scope("test_adagrad") and scope("test_bernoulli"), "training and random stay out"


def check_doc(generated, committed):
    if not os.path.exists(generated):
        print(f"{generated} is missing: the e2e_node_tests run writes it")
        return 1
    with open(generated) as f:
        new = f.read().splitlines()
    with open(committed) as f:
        old = f.read().splitlines()
    if new == old:
        print(f"{committed} matches the node test run")
        return 0
    diff = list(difflib.unified_diff(old, new, "committed", "generated", lineterm="", n=0))
    print("\n".join(diff[:40]))
    print(f"{committed} is stale ({sum(l[:1] in '+-' for l in diff[2:])} lines differ): "
          "regenerate it with scripts/update-onnx-support.sh")
    return 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", help="folder with vinci-compile and vinci-run")
    parser.add_argument("--tests", help="comma-separated node test names; each must pass")
    parser.add_argument("--must-pass", action="store_true",
                        help="run the must-pass list only (default: every node test)")
    parser.add_argument("--precision_mode", choices=sorted(TOLERANCES),
                        default="must_keep_origin_dtype",
                        help="vinci-compile's mode, which sets the tolerances "
                             "(default must_keep_origin_dtype)")
    parser.add_argument("--jobs", type=int, default=2, help="tests run at once (default 2)")
    parser.add_argument("--timeout", type=int, default=60,
                        help="seconds for each compile and each run (default 60)")
    parser.add_argument("--keep", help="keep the .om files and outputs here "
                                       "(default: a temporary folder, removed at the end)")
    parser.add_argument("--doc", help="write the operator support table here (full run only)")
    parser.add_argument("--write-doc", action="store_true", help="--doc " + DOC)
    parser.add_argument("--check-doc", nargs=2, metavar=("GENERATED", "COMMITTED"))
    parser.add_argument("--self-test", action="store_true",
                        help="check the runner's rules on the node test data, run nothing")
    args = parser.parse_args()
    if args.check_doc:
        return check_doc(*args.check_doc)
    every = sorted(t for t in os.listdir(DATA) if os.path.isfile(os.path.join(DATA, t, "model.onnx")))
    check_rules(every)
    if args.self_test:
        print("node test rules: ok (comparison, binding, must-pass names, scope)")
        return 0
    if not args.bin:
        parser.error("--bin is required")
    if args.write_doc:
        args.doc = DOC

    mode = args.precision_mode
    try:
        must_pass = listed_tests(LOWERED, every, "the must-pass list (LOWERED)") + (
            listed_tests(ORIGIN_DTYPE_ONLY, every, "ORIGIN_DTYPE_ONLY")
            if mode == "must_keep_origin_dtype" else [])
    except ValueError as error:
        parser.error(str(error))
    if args.tests:
        tests, required = args.tests.split(","), set(args.tests.split(","))
    elif args.must_pass:
        tests, required = must_pass, set(must_pass)
    else:
        tests, required = every, set(must_pass)
    if args.doc and (tests != every):
        parser.error("--doc needs the full run (no --tests, no --must-pass)")
    unknown = sorted(set(tests) - set(every))
    if unknown:
        parser.error("no such node test: " + ", ".join(unknown))

    # Without --keep the .om files and outputs go to a fresh folder, removed
    # at the end: two runs at once (one build tree, several users) never share one.
    scratch = None if args.keep else tempfile.TemporaryDirectory(prefix="vinci-e2e-")
    work = os.path.abspath(args.keep or scratch.name)
    os.makedirs(work, exist_ok=True)

    def one(name):
        start = time.monotonic()
        status, why, bound = run_test(args, name, work)
        model = onnx.load(os.path.join(DATA, name, "model.onnx"), load_external_data=False)
        return name, op_under_test(name, model), status, why, bound, time.monotonic() - start

    results, seconds = [], {}
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name, op, status, why, bound, took in pool.map(one, tests):
            tag = {"pass": "PASS", "fail": "FAIL", "out of scope": "OUT OF SCOPE"}[status]
            binds = f" [bound: {'; '.join(bound)}]" if bound else ""
            print(f"{tag}: {name}{': ' + why if why else ''}{binds}", flush=True)
            results.append((name, op, status, why, bound))
            seconds[name] = took
    slowest = sorted(seconds, key=seconds.get, reverse=True)[:5]
    print(f"node tests: {time.monotonic() - start:.0f} s wall with {args.jobs} jobs; slowest: "
          + ", ".join(f"{n} {seconds[n]:.1f} s" for n in slowest))

    counts = collections.Counter(status for _, _, status, _, _ in results)
    # A must-pass test fails the run, also when the rule calls it out of scope.
    broken = [name for name, _, status, _, _ in results if name in required and status != "pass"]
    print(f"node tests ({mode}): {len(required & set(tests)) - len(broken)} of "
          f"{len(required & set(tests))} must-pass tests pass"
          + (f"; failing: {' '.join(broken)}" if broken else ""))
    extra = [name for name, _, status, _, _ in results if status == "pass" and name not in must_pass]
    if extra and not args.tests:
        print(f"node tests ({mode}): {len(extra)} pass that are not on the must-pass list: "
              + " ".join(extra))
    if args.doc:
        with open(args.doc + ".tmp", "w") as f:
            f.write(doc_text(results, mode))
        os.replace(args.doc + ".tmp", args.doc)
        print(f"wrote {args.doc}")
    print(f"node tests ({mode}): {counts['pass']} passed, {counts['fail']} failed, "
          f"{counts['out of scope']} out of scope")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
