#!/usr/bin/python3
"""End to end: ONNX Gather on every axis, with indices known when compiling
(a constant: strided copies) and at run time (a graph input: the indexed
copy), scalar and tensor index shapes, negative indices, rows longer than
UB, and a gather whose output is stored in another type (an f32 input
gathered into an fp16 intermediate). Each model is compiled in both
precision modes, run on the simulator (hazards fatal) and compared with
numpy.take: exactly where the gather only copies, at fp16 rounding where it
also converts. Prints 'N passed, N failed'.

  gather_models.py --bin build/bin
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import summarize  # noqa: E402


def gather_model(shape, axis, indices, constant, then_add):
    """x[shape] -> Gather(x, indices, axis) [-> + 1]; indices an initializer
    (constant) or a second input."""
    idx = np.asarray(indices, np.int64)
    out_shape = list(shape[:axis % len(shape)]) + list(idx.shape) + \
        list(shape[axis % len(shape) + 1:])
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))]
    initializers = []
    if constant:
        initializers.append(numpy_helper.from_array(idx, "indices"))
    else:
        inputs.append(helper.make_tensor_value_info("indices", TensorProto.INT64, list(idx.shape)))
    nodes = [helper.make_node("Gather", ["x", "indices"], ["g" if then_add else "y"], axis=axis)]
    if then_add:
        initializers.append(numpy_helper.from_array(np.ones((), np.float32), "one"))
        nodes.append(helper.make_node("Add", ["g", "one"], ["y"]))
    graph = helper.make_graph(nodes, "gather", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
                              initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


CASES = [  # name, data shape, axis, indices, constant indices, then add 1
    ("axis0_tensor", (5, 4, 3), 0, [3, 0, -1], False, False),
    ("axis1_tensor_2d", (3, 6, 5), 1, [[0, 5], [-6, 2]], False, False),
    ("axis2_scalar", (3, 4, 7), 2, -3, False, False),
    ("last_axis_tensor", (2, 3, 9), -1, [8, 0, 4, 4], False, False),
    ("axis0_const_run", (6, 5), 0, [1, 2, 3], True, False),
    ("axis1_const_stride", (3, 8, 5), 1, [0, 2, 4, 6], True, False),
    ("axis1_const_two_runs", (3, 8, 5), 1, [5, 1, 2], True, False),
    ("axis2_const_negative", (2, 3, 10), 2, [-1, -10], True, False),
    ("vit_class_token", (1, 197, 96), 1, 0, True, False),
    ("const_many_runs", (4, 30, 3), 1, [7, 3, 29, 0, 11, 11, 5, 2, 19, 8, 1], True, False),
    ("const_repeated", (4, 6), 0, [2, 2, 2], True, False),
    ("converts_tensor", (5, 16), 0, [4, 1], False, True),
    ("converts_const", (3, 5, 16), 1, [4, 1, 0], True, True),
    ("long_rows_tensor", (3, 70000), 0, [2, 0], False, False),
    ("long_rows_const", (3, 70000), 0, [2], True, False),
    ("long_rows_converts", (2, 3, 40000), 1, [1], False, True),
]


def run_case(bin_dir, work, case, precision):
    name, shape, axis, indices, constant, then_add = case
    tag = f"{name}_{precision}"
    model_path = os.path.join(work, tag + ".onnx")
    onnx.save(gather_model(shape, axis, indices, constant, then_add), model_path)
    rng = np.random.default_rng(len(name))
    x = rng.standard_normal(shape).astype(np.float32)
    inputs = [os.path.join(work, tag + ".x.npy")]
    np.save(inputs[0], x)
    if not constant:
        inputs.append(os.path.join(work, tag + ".i.npy"))
        np.save(inputs[1], np.asarray(indices, np.int64))
    om, out_dir = os.path.join(work, tag + ".om"), os.path.join(work, tag + ".out")
    for step in ([os.path.join(bin_dir, "vinci-compile"), "--model", model_path, "--output", om,
                  "--precision_mode", precision],
                 [os.path.join(bin_dir, "vinci-run"), "--model", om, "--hazards", "fatal",
                  "--input", *inputs, "--output_dir", out_dir]):
        proc = subprocess.run(step, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            return f"{tag}: " + (proc.stderr.strip().splitlines() or ["failed"])[-1]
    got = np.load(os.path.join(out_dir, "output_0.npy"))
    want = np.take(x, np.asarray(indices), axis=axis) + (1 if then_add else 0)
    if got.shape != want.shape:
        return f"{tag}: shape {got.shape}, numpy {want.shape}"
    # A gather copies; only the fp16 intermediate of a gather + add rounds.
    rounds = then_add and precision == "force_fp16"
    tolerance = 2e-3 * np.abs(want).max() if rounds else 0.0
    error = float(np.abs(got.astype(np.float64) - want).max())
    if error > tolerance:
        return f"{tag}: max error {error:.3g} (allowed {tolerance:.3g})"
    return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as work:
        for case in CASES:
            for precision in ("must_keep_origin_dtype", "force_fp16"):
                why = run_case(args.bin, work, case, precision)
                results.append((f"{case[0]} ({precision})", why))
    return summarize(results)


if __name__ == "__main__":
    sys.exit(main())
