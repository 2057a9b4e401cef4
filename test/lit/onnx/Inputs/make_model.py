"""Writes small ONNX models for the importer tests: make_model.py NAME OUT.onnx

The models hold the patterns that exporters emit and that Debian's
libonnx-testdata lacks (shape arithmetic chains, torch's expand(-1),
pre-opset-13 Softmax on an inner axis, external weight data, symbolic dims).
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def const(name, values, dtype=np.int64):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(np.array(values, dtype=dtype), name))


def model(nodes, inputs, outputs, opset, initializers=(), ir_version=8):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="vinci-lit")
    m.ir_version = ir_version
    onnx.checker.check_model(m)
    return m


def shape_chain():
    # x.view(x.size(0), x.size(1), 12, -1) as torch exports it (opset 13),
    # with a symbolic batch dim.
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 128, 768])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 128, 12, "head_dim"])
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        const("i0", 0), const("i1", 1), const("ax", [0]),
        helper.make_node("Gather", ["s", "i0"], ["d0"], name="gather0", axis=0),
        helper.make_node("Gather", ["s", "i1"], ["d1"], name="gather1", axis=0),
        helper.make_node("Unsqueeze", ["d0", "ax"], ["u0"], name="unsqueeze0"),
        helper.make_node("Unsqueeze", ["d1", "ax"], ["u1"], name="unsqueeze1"),
        const("rest", [12, -1]),
        helper.make_node("Concat", ["u0", "u1", "rest"], ["target"], name="concat", axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"], name="view"),
    ]
    return model(nodes, [x], [y], 13)


def torch_expand():
    # x.expand(2, -1, 4): Where(Equal(shape, -1), ConstantOfShape(Shape(shape), 1), shape).
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])
    one = numpy_helper.from_array(np.array([1], dtype=np.int64), "one")
    nodes = [
        const("shape", [2, -1, 4]),
        const("minus1", -1),
        helper.make_node("Equal", ["shape", "minus1"], ["is_keep"], name="equal"),
        helper.make_node("Shape", ["shape"], ["rank"], name="rank"),
        helper.make_node("ConstantOfShape", ["rank"], ["ones"], name="ones", value=one),
        helper.make_node("Where", ["is_keep", "ones", "shape"], ["target"], name="where"),
        helper.make_node("Expand", ["x", "target"], ["y"], name="expand"),
    ]
    return model(nodes, [x], [y], 13)


def softmax_opset11():
    # Before opset 13 Softmax(axis=1) on 3-D input means softmax over the
    # flattened dims [1, 3).
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3, 4])
    nodes = [helper.make_node("Softmax", ["x"], ["y"], name="inner", axis=1),
             helper.make_node("LogSoftmax", ["x"], ["z"], name="last", axis=2)]
    return model(nodes, [x], [y, z], 11)


def legacy_broadcast():
    # Opset 6 Add with broadcast=1, axis=1: B (C) aligns with A's dim 1, so it
    # acts as a per-channel bias.
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3, 4, 5])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, [3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4, 5])
    node = helper.make_node("Add", ["a", "b"], ["y"], name="bias", broadcast=1, axis=1)
    return model([node], [a, b], [y], 6, ir_version=3)


def external_weights():
    # A MatMul whose 64x32 weight lives in a side file, weights.bin.
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32])
    w = numpy_helper.from_array(np.arange(64 * 32, dtype=np.float32).reshape(64, 32), "fc.weight")
    m = model([helper.make_node("MatMul", ["x", "fc.weight"], ["y"], name="fc")], [x], [y], 13,
              [w])
    onnx.external_data_helper.convert_model_to_external_data(
        m, all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
    return m


def two_inputs():
    # Two inputs with symbolic dims, for the --input_shape checks.
    a = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"])
    b = helper.make_tensor_value_info("mask", TensorProto.INT64, ["batch", "seq"])
    y = helper.make_tensor_value_info("y", TensorProto.INT64, ["batch", "seq"])
    return model([helper.make_node("Mul", ["input_ids", "mask"], ["y"], name="mul")], [a, b], [y],
                 14)


def einsum_contraction():
    # abc,cad->bd: a summed from both operands, c contracted, b and d kept.
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3, 4])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, [4, 2, 5])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 5])
    return model([helper.make_node("Einsum", ["a", "b"], ["y"], name="einsum",
                                   equation="abc,cad->bd")], [a, b], [y], 12)


def einsum_three_operands():
    xs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 2]) for n in "abc"]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])
    return model([helper.make_node("Einsum", ["a", "b", "c"], ["y"], name="chain",
                                   equation="ij,jk,kl->il")], xs, [y], 12)


def gear_mlp():
    # relu(x @ w1) @ w2 over x [batch, seq, 64] with both leading dims
    # symbolic: the model the gear tests compile at several shapes. The
    # weights are large enough (16 KiB) to stay in the mapped file.
    rng = np.random.default_rng(0)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 64])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", 32])
    w1 = numpy_helper.from_array(rng.standard_normal((64, 64)).astype(np.float32) / 8, "w1")
    w2 = numpy_helper.from_array(rng.standard_normal((64, 32)).astype(np.float32) / 8, "w2")
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
        helper.make_node("Relu", ["h"], ["r"], name="relu"),
        helper.make_node("MatMul", ["r", "w2"], ["y"], name="fc2"),
    ]
    return model(nodes, [x], [y], 14, initializers=[w1, w2])


def scatter_nd_negative():
    # A mask as exporters write it: ConstantOfShape zeros, then a row
    # written at index -1 (the last), all constant.
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 3])
    zero = numpy_helper.from_array(np.zeros(1, np.float32), "zero")
    nodes = [const("shape", [3, 3]),
             helper.make_node("ConstantOfShape", ["shape"], ["zeros"], value=zero),
             const("index", [[-1]]), const("row", [[1, 2, 3]], np.float32),
             helper.make_node("ScatterND", ["zeros", "index", "row"], ["y"], name="scatter")]
    return model(nodes, [], [y], 14)


MODELS = {f.__name__: f for f in
          [shape_chain, torch_expand, softmax_opset11, legacy_broadcast, external_weights,
           two_inputs, einsum_contraction, einsum_three_operands, gear_mlp,
           scatter_nd_negative]}

if __name__ == "__main__":
    name, out = sys.argv[1], sys.argv[2]
    onnx.save(MODELS[name](), out)
