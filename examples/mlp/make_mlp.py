#!/usr/bin/python3
"""Regenerate examples/mlp/mlp.onnx, the bundled example model.

    /usr/bin/python3 examples/mlp/make_mlp.py            # rewrites mlp.onnx
    /usr/bin/python3 examples/mlp/make_mlp.py --out x.onnx

A small classifier for 16x16 single-channel images:

    input [1,1,16,16] -> flatten -> Gemm 256x96 -> Relu -> Gemm 96x48 -> Relu
                      -> Gemm 48x10 -> Softmax -> probs [1,10]

The flatten is written the way most exported models write it,
x.view(x.size(0), -1), and the model is exported with a dynamic batch so that
torch keeps the shape arithmetic in the graph: Shape -> Gather -> Unsqueeze
-> Concat -> Reshape. The batch dim of the graph's input and output is then
pinned to 1, as a deployment would pin it (ATC's --input_shape does the same),
so the file has static shapes and the compiler folds the chain to a constant
shape. Random weights from torch.manual_seed(0); the output is byte-identical
on every run with the same torch/onnx versions (torch 1.13, onnx 1.12).
"""

import argparse
import os
import sys

import torch
from torch import nn

OPSET = 14
HERE = os.path.dirname(os.path.abspath(__file__))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16 * 16, 96)
        self.fc2 = nn.Linear(96, 48)
        self.fc3 = nn.Linear(48, 10)

    def forward(self, x):
        x = x.view(x.size(0), -1)
        x = torch.relu(self.fc1(x))
        x = torch.relu(self.fc2(x))
        return torch.softmax(self.fc3(x), dim=1)


def pin_batch(model, batch=1):
    """Replace the symbolic batch dim of inputs/outputs by a fixed value."""
    for vi in list(model.graph.input) + list(model.graph.output):
        dim0 = vi.type.tensor_type.shape.dim[0]
        if dim0.HasField("dim_param"):
            dim0.Clear()
            dim0.dim_value = batch
    # Intermediate value_info would still carry the symbolic dim: drop it.
    del model.graph.value_info[:]


def main(argv=None):
    import onnx

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "mlp.onnx"))
    args = ap.parse_args(argv)

    torch.manual_seed(0)
    model = MLP().eval()
    x = torch.randn(1, 1, 16, 16)
    tmp = args.out + ".tmp"
    with torch.no_grad():
        torch.onnx.export(
            model, (x,), tmp,
            input_names=["input"], output_names=["probs"],
            dynamic_axes={"input": {0: "batch"}, "probs": {0: "batch"}},
            opset_version=OPSET, do_constant_folding=True,
            training=torch.onnx.TrainingMode.EVAL)
    m = onnx.load(tmp)
    os.remove(tmp)
    pin_batch(m)
    m.doc_string = "Vinci example: 3-layer MLP classifier (random weights)"
    onnx.checker.check_model(m)
    ops = [n.op_type for n in m.graph.node]
    for needed in ("Shape", "Gather", "Concat", "Reshape", "Gemm", "Relu",
                   "Softmax"):
        assert needed in ops, "export lost %s: %s" % (needed, ops)
    onnx.save(m, args.out)
    print("wrote %s (%d bytes): %s"
          % (args.out, os.path.getsize(args.out), " ".join(ops)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
