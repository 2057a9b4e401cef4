"""Writes calibration folders for make_precision_model.py's model (input x,
f32 [8, 4096]): make_calibration_set.py DIR KIND.

KIND: overflow (3 sample folders, x = 50 + k: the row sums pass fp16's
65504), fits (3 files, x = 1: row sums 4096), onnx_names (sample folders in
ONNX test-data style, input_0.pb), and the faults: empty, wrong_shape,
wrong_dtype, unknown_file, missing_input, mixed, twice.
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

SHAPE = (8, 4096)


def sample(value, dtype=np.float32, shape=SHAPE):
    return np.full(shape, value, dtype=dtype)


def main(root, kind):
    os.makedirs(root, exist_ok=True)
    folder = lambda name: os.makedirs(os.path.join(root, name), exist_ok=True) or \
        os.path.join(root, name)
    if kind == "overflow":
        for k in range(3):
            np.save(os.path.join(folder(f"sample_{k}"), "x.npy"), sample(50 + k))
    elif kind == "fits":
        for k in range(3):
            np.save(os.path.join(root, f"{k}.npy"), sample(1))
    elif kind == "onnx_names":
        for k in range(2):
            onnx.save_tensor(numpy_helper.from_array(sample(50), "x"),
                             os.path.join(folder(f"test_data_set_{k}"), "input_0.pb"))
    elif kind == "wrong_shape":
        np.save(os.path.join(root, "0.npy"), sample(1, shape=(8, 4095)))
    elif kind == "wrong_dtype":
        np.save(os.path.join(root, "0.npy"), sample(1, dtype=np.float64))
    elif kind == "unknown_file":
        np.save(os.path.join(folder("s0"), "y.npy"), sample(1))
    elif kind == "missing_input":
        with open(os.path.join(folder("s0"), "notes.txt"), "w") as f:
            f.write("no tensor here\n")
    elif kind == "mixed":
        np.save(os.path.join(folder("s0"), "x.npy"), sample(1))
        np.save(os.path.join(root, "1.npy"), sample(1))
    elif kind == "twice":
        np.save(os.path.join(folder("s0"), "x.npy"), sample(1))
        onnx.save_tensor(numpy_helper.from_array(sample(1), "x"),
                         os.path.join(root, "s0", "input_0.pb"))
    elif kind != "empty":
        sys.exit(f"unknown kind {kind}")


if __name__ == "__main__":
    main(*sys.argv[1:])
