"""Writes a small transformer-block fragment for the fusion switch tests:
make_fusion_block.py OUT.onnx (or make_fusion_block.py --conv-bn OUT.onnx:
Conv -> BatchNormalization -> Relu)

x -> LayerNorm as torch decomposes it (ReduceMean, Sub, Pow, ReduceMean, Add
eps, Sqrt, Div, Mul gamma, Add beta) -> Q, K, V projections (MatMul + Add
bias, separate weights) -> GELU in its erf form on V -> Relu on Q. Every
GraphFusion and UBFusion switch changes what vinci-compile makes of it.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main(out):
    rng = np.random.default_rng(0)
    d = 16
    inits = []

    def weight(name, shape):
        inits.append(numpy_helper.from_array(rng.normal(0, 0.1, shape).astype(np.float32), name))
        return name

    def scalar(name, value):
        inits.append(numpy_helper.from_array(np.array(value, np.float32), name))
        return name

    n = helper.make_node
    nodes = [
        n("ReduceMean", ["x"], ["m"], axes=[-1], name="/ln/ReduceMean"),
        n("Sub", ["x", "m"], ["c"], name="/ln/Sub"),
        n("Pow", ["c", scalar("two", 2.0)], ["c2"], name="/ln/Pow"),
        n("ReduceMean", ["c2"], ["v"], axes=[-1], name="/ln/ReduceMean_1"),
        n("Add", ["v", scalar("eps", 1e-5)], ["ve"], name="/ln/Add"),
        n("Sqrt", ["ve"], ["s"], name="/ln/Sqrt"),
        n("Div", ["c", "s"], ["nrm"], name="/ln/Div"),
        n("Mul", ["nrm", weight("gamma", [d])], ["g"], name="/ln/Mul"),
        n("Add", ["g", weight("beta", [d])], ["h"], name="/ln/Add_1"),
    ]
    for p in "qkv":
        nodes += [n("MatMul", ["h", weight(f"w{p}", [d, d])], [f"{p}0"], name=f"/{p}/MatMul"),
                  n("Add", [weight(f"b{p}", [d]), f"{p}0"], [f"{p}1"], name=f"/{p}/Add")]
    nodes += [
        n("Relu", ["q1"], ["q"], name="/q/Relu"),
        n("Div", ["v1", scalar("sqrt2", 1.4142135)], ["gd"], name="/gelu/Div"),
        n("Erf", ["gd"], ["ge"], name="/gelu/Erf"),
        n("Add", ["ge", scalar("one", 1.0)], ["gp"], name="/gelu/Add"),
        n("Mul", ["v1", "gp"], ["gm"], name="/gelu/Mul"),
        n("Mul", ["gm", scalar("half", 0.5)], ["vg"], name="/gelu/Mul_1"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, d])
    outs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, 8, d])
            for name in ("q", "k1", "vg")]
    graph = helper.make_graph(nodes, "block", [x], outs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, out)


def conv_bn(out):
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.normal(0, 0.1, shape).astype(np.float32), name)
             for name, shape in (("w", [4, 3, 3, 3]), ("gamma", [4]), ("beta", [4]),
                                 ("mean", [4]))]
    inits.append(numpy_helper.from_array(rng.uniform(0.5, 1.5, [4]).astype(np.float32), "var"))
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="/conv"),
             helper.make_node("BatchNormalization", ["c", "gamma", "beta", "mean", "var"], ["b"],
                              name="/bn"),
             helper.make_node("Relu", ["b"], ["y"], name="/relu")]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])
    model = helper.make_model(helper.make_graph(nodes, "conv_bn", [x], [y], initializer=inits),
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, out)


if __name__ == "__main__":
    if sys.argv[1] == "--conv-bn":
        conv_bn(sys.argv[2])
    else:
        main(sys.argv[1])
