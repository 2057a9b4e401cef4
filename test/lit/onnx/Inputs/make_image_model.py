"""Writes a model with image inputs for the --insert_op_conf tests:

    make_image_model.py OUT.onnx SHAPE [SHAPE ...]

Each SHAPE (e.g. 1,3,8,8) is a float input in0, in1, ...; the model returns
relu(in_i) for each. An input shape with a letter ('n,3,8,8') keeps that dim
symbolic.
"""
import sys

import onnx
from onnx import TensorProto, helper


def main():
    out, shapes = sys.argv[1], sys.argv[2:]
    inputs, outputs, nodes = [], [], []
    for i, text in enumerate(shapes):
        dims = [int(d) if d.isdigit() else d for d in text.split(",")]
        inputs.append(helper.make_tensor_value_info(f"in{i}", TensorProto.FLOAT, dims))
        outputs.append(helper.make_tensor_value_info(f"out{i}", TensorProto.FLOAT, dims))
        nodes.append(helper.make_node("Relu", [f"in{i}"], [f"out{i}"], name=f"relu{i}"))
    graph = helper.make_graph(nodes, "images", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, out)


if __name__ == "__main__":
    main()
