"""Writes a model whose intermediate overflows fp16 storage (docs/precision.md).

x [8, 4096] -> ReduceSum over axis 1 -> s [8, 1] -> ReduceMean over axis 0
-> [1, 1]. With x = 50 everywhere each row sums to 204800, past fp16's
65504: stored as fp16 (force_fp16) s is inf; kept fp32 (allow_mix_precision
keeps sum-like reductions) the result is 204800. Also writes the input
(--input) beside the model when given a second path.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROWS, COLS = 8, 4096


def main(path, input_path=None):
    axes1 = numpy_helper.from_array(np.array([1], dtype=np.int64), "axes1")
    axes0 = numpy_helper.from_array(np.array([0], dtype=np.int64), "axes0")
    nodes = [
        helper.make_node("ReduceSum", ["x", "axes1"], ["row_sums"], name="/row_sums", keepdims=1),
        helper.make_node("ReduceMean", ["row_sums", "axes0"], ["y"], name="/mean", keepdims=1),
    ]
    graph = helper.make_graph(
        nodes, "precision_overflow",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [ROWS, COLS])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1])],
        initializer=[axes1, axes0])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    onnx.save(model, path)
    if input_path:
        x = np.full((ROWS, COLS), 50.0, dtype=np.float32)
        onnx.save_tensor(numpy_helper.from_array(x, "x"), input_path)


if __name__ == "__main__":
    main(*sys.argv[1:])
