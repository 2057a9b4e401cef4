#!/usr/bin/python3
"""End to end: a scale, temperature or mask in front of a softmax is computed
in f32 inside the softmax kernel (SoftmaxPrologueFusion).

Under force_fp16 every intermediate is an fp16 tensor in GM, so a
Mul -> Softmax of two kernels rounds the scaled logits to fp16 before the
softmax sees them: softmax(300 x) with |x| <= 1 then misses fp32 by about
4e-3, softmax(1e5 x) by about 0.95 (max abs). With the prologue the softmax
kernel loads x (an fp32 graph input) and scales it in f32 in UB. Each case
is compiled with --precision_mode force_fp16, run on the simulator (hazards
fatal) and compared with numpy in fp32 by max abs error (bound 2e-3); each
also checks that the softmax joined its prologue (one kernel), and the two
cases of the issue are run once more with SoftmaxPrologueFusion off, where
the error must exceed the bound (the control: the test can fail).

Cases: scalar Mul (300, 1e5), Div by a temperature, Mul then a full-shape
mask Add (a graph input), a row mask (an fp16 weight of the last dim),
log_softmax, a row longer than a tile (segments), and a softmax over a
middle axis (column mode). Prints 'N passed, N failed'.

  softmax_prologue.py --bin build/bin
"""
import argparse
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from e2e_common import compile_and_run, summarize  # noqa: E402

BOUND = 2e-3
FP16 = ["--precision_mode", "force_fp16"]
PROLOGUE_OFF = {"Switch": {"UBFusion": {"SoftmaxPrologueFusion": "off"}}}


def f32(value):
    return np.float32(value)


class Case:
    """One model: x (and an optional full-shape mask input) -> prologue ->
    softmax; `reference` computes it in numpy fp32."""

    def __init__(self, name, shape, steps, axis=-1, log=False, mask_input=False, row_mask=False):
        self.name, self.shape, self.steps, self.axis, self.log = name, shape, steps, axis, log
        self.mask_input, self.row_mask = mask_input, row_mask

    def inputs(self, rng):
        feeds = [rng.uniform(-1.0, 1.0, self.shape).astype(np.float32)]
        if self.mask_input:
            feeds.append(np.where(rng.random(self.shape) < 0.25, f32(-1e4), f32(0)))
        return feeds

    def row(self, rng):
        # A padding mask over the last dim: -1e4 is exact in fp16.
        return np.where(rng.random(self.shape[-1]) < 0.25, f32(-1e4), f32(0)).astype(np.float32)

    def model(self, path, row):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, self.shape)
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, self.shape)
        inputs, nodes, inits, current = [x], [], [], "x"
        for i, (op, value) in enumerate(self.steps):
            name = f"c{i}"
            inits.append(helper.make_tensor(name, TensorProto.FLOAT, [], [value]))
            nodes.append(helper.make_node(op, [current, name], [f"t{i}"], name=f"/{op}_{i}"))
            current = f"t{i}"
        if self.mask_input:
            inputs.append(helper.make_tensor_value_info("mask", TensorProto.FLOAT, self.shape))
            nodes.append(helper.make_node("Add", [current, "mask"], ["masked"], name="/AddMask"))
            current = "masked"
        if self.row_mask:
            inits.append(numpy_helper.from_array(row, "row_mask"))
            nodes.append(helper.make_node("Add", ["row_mask", current], ["masked"],
                                          name="/AddRowMask"))
            current = "masked"
        nodes.append(helper.make_node("LogSoftmax" if self.log else "Softmax", [current], ["y"],
                                      axis=self.axis, name="/Softmax"))
        graph = helper.make_graph(nodes, self.name, inputs, [y], initializer=inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        onnx.checker.check_model(model)
        onnx.save(model, path)

    def reference(self, feeds, row):
        """The ONNX graph in numpy fp32: each step an fp32 op, then the
        softmax of the fp32 logits (shifted, in float64)."""
        logits = feeds[0]
        for op, value in self.steps:
            logits = logits * f32(value) if op == "Mul" else logits / f32(value)
        if self.mask_input:
            logits = logits + feeds[1]
        if self.row_mask:
            logits = row + logits
        shifted = logits.astype(np.float64) - logits.max(axis=self.axis, keepdims=True)
        total = np.exp(shifted).sum(axis=self.axis, keepdims=True)
        return shifted - np.log(total) if self.log else np.exp(shifted) / total


CASES = [
    Case("mul_300", [8, 256], [("Mul", 300.0)]),
    Case("mul_1e5", [8, 256], [("Mul", 1e5)]),
    Case("div_temperature", [16, 100], [("Div", 0.004)]),
    Case("mul_mask_input", [4, 8, 64], [("Mul", 300.0)], mask_input=True),
    Case("row_mask", [6, 320], [("Mul", 300.0)], row_mask=True),
    Case("log_softmax_mul_300", [8, 256], [("Mul", 300.0)], log=True),
    Case("segments_mul_1e5", [2, 40000], [("Mul", 1e5)]),
    Case("segments_row_mask", [2, 40000], [("Mul", 300.0)], row_mask=True),
    Case("columns_mul_300", [2, 64, 24], [("Mul", 300.0)], axis=1),
]
# The two cases, with the prologue switched off: two kernels, the
# scaled logits rounded to fp16 in GM between them.
CONTROLS = ["mul_300", "mul_1e5"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as work:
        for case in CASES:
            rng = np.random.default_rng(len(case.name))
            feeds, row = case.inputs(rng), case.row(rng)
            model = os.path.join(work, case.name + ".onnx")
            case.model(model, row)
            paths = []
            for i, feed in enumerate(feeds):
                paths.append(os.path.join(work, f"{case.name}.in{i}.npy"))
                np.save(paths[-1], feed)
            want = case.reference(feeds, row)
            runs = [("", None)] + ([("_prologue_off", PROLOGUE_OFF)]
                                   if case.name in CONTROLS else [])
            for suffix, switches in runs:
                y, kernels, why = compile_and_run(args.bin, work, model, case.name + suffix,
                                                  switches, paths, FP16)
                if not why:
                    error = float(np.abs(y.astype(np.float64) - want).max())
                    figure = f"max abs {error:.2e} vs numpy fp32, {len(kernels)} kernel(s)"
                    if switches is None:
                        if not np.isfinite(y).all() or not error <= BOUND:
                            why = f"{figure} > {BOUND:g}"
                        elif len(kernels) != 1:
                            why = f"{figure}: the softmax did not take its prologue"
                    elif error <= BOUND:
                        why = (f"{figure} with the prologue off: within the bound, so the "
                               "test cannot see fp16 logits")
                    print(f"  {case.name}{suffix}: {figure}")
                results.append((case.name + suffix, why))
    return summarize(results)


if __name__ == "__main__":
    sys.exit(main())
