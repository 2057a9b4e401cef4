#!/usr/bin/python3
"""End-to-end ONNX node tests: compile to .om, run on the simulator, compare.

Each selected node test from Debian's libonnx-testdata is compiled with
vinci-compile --emit=om (force_fp16), run with vinci-run (hazards fatal) on
its test_data_set_0 inputs, and each output is compared with the expected
one at fp16 tolerances. Tests whose kernels have no lowering template yet
are reported as such. Prints 'N passed, N failed'; exits 1 on a failure.

  node_tests.py --bin build/bin [--tests test_add,test_relu] [--keep DIR]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

DATA = "/usr/share/libonnx-testdata/data/node"

# The node tests the backend lowers today; a failure among these fails CI.
LOWERED = """
test_abs test_add test_add_bcast test_averagepool_1d_default test_averagepool_2d_default
test_averagepool_2d_pads test_averagepool_2d_pads_count_include_pad
test_averagepool_2d_precomputed_pads test_averagepool_2d_precomputed_pads_count_include_pad
test_averagepool_2d_precomputed_strides test_averagepool_2d_same_lower
test_averagepool_2d_same_upper test_averagepool_2d_strides test_basic_conv_with_padding
test_basic_conv_without_padding test_batchnorm_epsilon test_batchnorm_example
test_cast_FLOAT16_to_FLOAT test_cast_FLOAT_to_FLOAT16 test_castlike_FLOAT16_to_FLOAT_expanded
test_castlike_FLOAT_to_FLOAT16_expanded test_celu_expanded test_clip test_clip_default_inbounds
test_clip_default_max test_clip_default_min test_clip_example test_clip_inbounds test_clip_outbounds
test_clip_splitbounds test_concat_1d_axis_0 test_concat_1d_axis_negative_1 test_concat_2d_axis_0
test_concat_2d_axis_1 test_concat_2d_axis_negative_1 test_concat_2d_axis_negative_2
test_concat_3d_axis_0 test_concat_3d_axis_1 test_concat_3d_axis_2 test_concat_3d_axis_negative_1
test_concat_3d_axis_negative_2 test_concat_3d_axis_negative_3 test_constant test_constant_pad
test_constantofshape_float_ones test_constantofshape_int_zeros test_conv_with_autopad_same
test_conv_with_strides_and_asymmetric_padding test_conv_with_strides_no_padding
test_conv_with_strides_padding test_div test_div_bcast test_div_example test_dropout_default
test_dropout_default_old test_dropout_default_ratio test_dropout_random_old test_elu
test_elu_default test_elu_example test_exp test_exp_example test_flatten_axis0 test_flatten_axis1
test_flatten_axis2 test_flatten_axis3 test_flatten_default_axis test_flatten_negative_axis1
test_flatten_negative_axis2 test_flatten_negative_axis3 test_flatten_negative_axis4 test_gather_0
test_gather_1 test_gather_2d_indices test_gather_negative_indices test_gemm_all_attributes
test_gemm_alpha test_gemm_beta test_gemm_default_matrix_bias test_gemm_default_no_bias
test_gemm_default_scalar_bias test_gemm_default_single_elem_vector_bias
test_gemm_default_vector_bias test_gemm_default_zero_bias test_gemm_transposeA test_gemm_transposeB
test_globalaveragepool test_globalaveragepool_precomputed test_globalmaxpool
test_globalmaxpool_precomputed test_hardsigmoid test_hardsigmoid_default test_hardsigmoid_example
test_hardswish test_hardswish_expanded test_identity test_layer_normalization_2d_axis0
test_layer_normalization_2d_axis1 test_layer_normalization_2d_axis_negative_1
test_layer_normalization_2d_axis_negative_2 test_layer_normalization_3d_axis0_epsilon
test_layer_normalization_3d_axis1_epsilon test_layer_normalization_3d_axis2_epsilon
test_layer_normalization_3d_axis_negative_1_epsilon
test_layer_normalization_3d_axis_negative_2_epsilon
test_layer_normalization_3d_axis_negative_3_epsilon test_layer_normalization_4d_axis0
test_layer_normalization_4d_axis1 test_layer_normalization_4d_axis2
test_layer_normalization_4d_axis3 test_layer_normalization_4d_axis_negative_1
test_layer_normalization_4d_axis_negative_2 test_layer_normalization_4d_axis_negative_3
test_layer_normalization_4d_axis_negative_4 test_layer_normalization_default_axis test_leakyrelu
test_leakyrelu_default test_leakyrelu_example test_log test_log_example test_logsoftmax_axis_0
test_logsoftmax_axis_0_expanded test_logsoftmax_axis_1 test_logsoftmax_axis_1_expanded
test_logsoftmax_axis_2 test_logsoftmax_axis_2_expanded test_logsoftmax_default_axis
test_logsoftmax_default_axis_expanded test_logsoftmax_example_1 test_logsoftmax_example_1_expanded
test_logsoftmax_large_number test_logsoftmax_negative_axis test_logsoftmax_negative_axis_expanded
test_matmul_2d test_matmul_3d test_matmul_4d test_max_example test_max_float16 test_max_float32
test_max_int32 test_max_int64 test_max_one_input test_max_two_inputs test_maxpool_1d_default
test_maxpool_2d_ceil test_maxpool_2d_default test_maxpool_2d_dilations test_maxpool_2d_pads
test_maxpool_2d_precomputed_pads test_maxpool_2d_precomputed_same_upper
test_maxpool_2d_precomputed_strides test_maxpool_2d_same_lower test_maxpool_2d_same_upper
test_maxpool_2d_strides test_mean_example test_mean_one_input test_mean_two_inputs test_min_example
test_min_float16 test_min_float32 test_min_int32 test_min_int64 test_min_one_input
test_min_two_inputs test_mul test_mul_bcast test_mul_example test_neg test_neg_example
test_pow_bcast_array test_pow_bcast_scalar test_prelu_broadcast test_prelu_example
test_range_float_type_positive_delta test_range_int32_type_negative_delta test_reciprocal
test_reciprocal_example test_reduce_l2_default_axes_keepdims_example
test_reduce_l2_default_axes_keepdims_random test_reduce_l2_do_not_keepdims_example
test_reduce_l2_do_not_keepdims_random test_reduce_l2_keep_dims_example
test_reduce_l2_keep_dims_random test_reduce_l2_negative_axes_keep_dims_example
test_reduce_l2_negative_axes_keep_dims_random test_reduce_max_default_axes_keepdim_example
test_reduce_max_default_axes_keepdims_random test_reduce_max_do_not_keepdims_example
test_reduce_max_do_not_keepdims_random test_reduce_max_keepdims_example
test_reduce_max_keepdims_random test_reduce_max_negative_axes_keepdims_example
test_reduce_max_negative_axes_keepdims_random test_reduce_mean_default_axes_keepdims_example
test_reduce_mean_default_axes_keepdims_random test_reduce_mean_do_not_keepdims_example
test_reduce_mean_do_not_keepdims_random test_reduce_mean_keepdims_example
test_reduce_mean_keepdims_random test_reduce_mean_negative_axes_keepdims_example
test_reduce_mean_negative_axes_keepdims_random test_reduce_min_default_axes_keepdims_example
test_reduce_min_default_axes_keepdims_random test_reduce_min_do_not_keepdims_example
test_reduce_min_do_not_keepdims_random test_reduce_min_keepdims_example
test_reduce_min_keepdims_random test_reduce_min_negative_axes_keepdims_example
test_reduce_min_negative_axes_keepdims_random test_reduce_prod_default_axes_keepdims_example
test_reduce_prod_default_axes_keepdims_random test_reduce_prod_do_not_keepdims_example
test_reduce_prod_do_not_keepdims_random test_reduce_prod_keepdims_example
test_reduce_prod_keepdims_random test_reduce_prod_negative_axes_keepdims_example
test_reduce_prod_negative_axes_keepdims_random test_reduce_sum_default_axes_keepdims_example
test_reduce_sum_default_axes_keepdims_random test_reduce_sum_do_not_keepdims_example
test_reduce_sum_do_not_keepdims_random test_reduce_sum_keepdims_example
test_reduce_sum_keepdims_random test_reduce_sum_negative_axes_keepdims_example test_relu
test_reshape_extended_dims test_reshape_negative_dim test_reshape_negative_extended_dims
test_reshape_one_dim test_reshape_reduced_dims test_reshape_reordered_all_dims
test_reshape_reordered_last_dims test_reshape_zero_and_negative_dim test_reshape_zero_dim test_selu
test_selu_default test_selu_example test_shape test_shape_clip_end test_shape_clip_start
test_shape_end_1 test_shape_end_negative_1 test_shape_example test_shape_start_1
test_shape_start_1_end_2 test_shape_start_1_end_negative_1 test_shape_start_negative_1 test_sigmoid
test_sigmoid_example test_slice test_slice_default_axes test_slice_default_steps
test_slice_end_out_of_bounds test_slice_neg test_slice_neg_steps test_slice_negative_axes
test_softmax_axis_0 test_softmax_axis_0_expanded test_softmax_axis_1 test_softmax_axis_1_expanded
test_softmax_axis_2 test_softmax_axis_2_expanded test_softmax_default_axis
test_softmax_default_axis_expanded test_softmax_example test_softmax_example_expanded
test_softmax_large_number test_softmax_negative_axis test_softmax_negative_axis_expanded
test_softplus test_softplus_example test_split_equal_parts_1d test_split_equal_parts_2d
test_split_equal_parts_default_axis test_split_variable_parts_1d test_split_variable_parts_2d
test_split_variable_parts_default_axis test_sqrt test_sqrt_example test_squeeze
test_squeeze_negative_axes test_sub test_sub_bcast test_sub_example test_sum_example
test_sum_one_input test_sum_two_inputs test_tanh test_tanh_example test_transpose_all_permutations_0
test_unsqueeze_axis_0 test_unsqueeze_axis_1 test_unsqueeze_axis_2 test_unsqueeze_axis_3
test_unsqueeze_negative_axes test_unsqueeze_three_axes test_unsqueeze_two_axes
test_unsqueeze_unsorted_axes
""".split()

# force_fp16 stores every tensor as fp16 and computes in fp16.
RTOL, ATOL = 2e-3, 2e-3


def load_pb(path):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


def run_test(bin_dir, name, work):
    folder = os.path.join(DATA, name)
    model = os.path.join(folder, "model.onnx")
    om = os.path.join(work, name + ".om")
    data = os.path.join(folder, "test_data_set_0")
    inputs = sorted((f for f in os.listdir(data) if f.startswith("input_")),
                    key=lambda f: int(f[len("input_"):-len(".pb")]))
    # Parameter inputs the importer needs as constants (Slice starts/ends/
    # axes/steps, Split sizes, Reshape shapes, reduction axes, ...) are bound
    # from the test data, as the compiler's message tells a user to do with
    # --const_input; the rest are fed at run time.
    graph_inputs = [i.name for i in onnx.load(model, load_external_data=False).graph.input]
    bound = []
    for _ in range(len(graph_inputs) + 1):
        compile_cmd = [os.path.join(bin_dir, "vinci-compile"), "--model", model, "--emit=om",
                       "--output", om]
        if bound:
            compile_cmd += ["--const_input", ";".join(
                f"{n}:{os.path.join(data, inputs[graph_inputs.index(n)])}" for n in bound)]
        proc = subprocess.run(compile_cmd, capture_output=True, text=True, timeout=300)
        named = [n for n in re.findall(r"'([^']+)' is a graph input", proc.stderr)
                 if n in graph_inputs and n not in bound]
        if proc.returncode == 0 or not named:
            break
        bound += named
    if proc.returncode != 0:
        return False, "compile: " + proc.stderr.strip().splitlines()[0]
    inputs = [f for k, f in enumerate(inputs) if graph_inputs[k] not in bound]
    outputs = sorted((f for f in os.listdir(data) if f.startswith("output_")),
                     key=lambda f: int(f[len("output_"):-len(".pb")]))
    out_dir = os.path.join(work, name + ".out")
    run_cmd = [os.path.join(bin_dir, "vinci-run"), "--model", om, "--hazards", "fatal",
               "--output_dir", out_dir]
    if inputs:
        run_cmd += ["--input", ",".join(os.path.join(data, f) for f in inputs)]
    proc = subprocess.run(run_cmd, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        return False, "run: " + (proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])[0]
    for index, expected_file in enumerate(outputs):
        expected = load_pb(os.path.join(data, expected_file))
        actual = np.load(os.path.join(out_dir, f"output_{index}.npy"))
        if actual.shape != expected.shape:
            return False, f"output {index}: shape {actual.shape}, expected {expected.shape}"
        if not np.allclose(actual.astype(np.float64), expected.astype(np.float64),
                           rtol=RTOL, atol=ATOL, equal_nan=True):
            err = np.max(np.abs(actual.astype(np.float64) - expected.astype(np.float64)))
            return False, f"output {index}: max abs error {err:.3g} above fp16 tolerance"
    return True, ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="folder with vinci-compile and vinci-run")
    parser.add_argument("--tests", help="comma-separated node test names (default: the lowered set)")
    parser.add_argument("--keep", help="keep the .om files and outputs here")
    args = parser.parse_args()
    tests = args.tests.split(",") if args.tests else LOWERED
    work = args.keep or tempfile.mkdtemp(prefix="vinci-e2e-")
    os.makedirs(work, exist_ok=True)
    failed = 0
    for name in tests:
        ok, why = run_test(args.bin, name, work)
        print(f"{'PASS' if ok else 'FAIL'}: {name}{'' if ok else ': ' + why}")
        failed += not ok
    print(f"{len(tests) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
