#!/usr/bin/python3
"""End to end: the safe softmax in fp16, proven on logits that overflow.

A model computes Softmax(x * 2) over rows of 64, compiled with
SoftmaxPrologueFusion off: the product is then an fp16 intermediate in GM
(force_fp16), so logits past 65504 arrive at the softmax as +inf (with the
prologue on, the default, the product is f32 inside the softmax kernel:
test/e2e/softmax_prologue.py). Rows: raw logits 100 and 90 (exp(100) overflows even in fp32, and
the two must stay 0.99995 / 0.0000454, not a tie), a logit of 70000 (+inf in
fp16), a row masked entirely with -inf, and ordinary logits. Compiled and run
on the simulator (hazards fatal):

  - protected (the default): every output finite and within 2e-3 of the
    fp32 reference; the fully masked row gives zeros (documented choice);
  - --softmax_clip 5: the tail below the max by more than 5 is lifted to
    exp(-5) (the bound matters: the reference no longer matches);
  - SoftmaxProtection off (--fusion_switch_file): the first two rows are
    NaN, so the test shows the protection does something.

Prints 'N passed, N failed'.

  safe_softmax.py --bin build/bin
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper
from e2e_common import summarize  # noqa: E402

COLS = 64


def make_model(path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, COLS])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, COLS])
    two = helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])
    nodes = [helper.make_node("Mul", ["x", "two"], ["logits"], name="/Mul"),
             helper.make_node("Softmax", ["logits"], ["y"], axis=-1, name="/Softmax")]
    graph = helper.make_graph(nodes, "safe_softmax", [x], [y], initializer=[two])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, path)


def inputs():
    rng = np.random.default_rng(0)
    logits = np.zeros((4, COLS), np.float64)
    logits[0, :2] = [100.0, 90.0]          # finite in fp16, exp overflows in fp32
    logits[1, 0], logits[1, 1] = 70000.0, 1000.0  # +inf once stored in fp16
    logits[2, :] = -np.inf                 # a row masked entirely
    logits[3, :] = rng.normal(0.0, 3.0, COLS)
    return (logits / 2).astype(np.float32)


def reference(x):
    """fp32 softmax of the fp32 logits (computed shifted in float64); a row
    of -inf gives zeros, Vinci's documented choice (numpy would give NaN)."""
    logits = x.astype(np.float64) * 2
    out = np.zeros_like(logits)
    for r, row in enumerate(logits):
        if np.all(np.isneginf(row)):
            continue
        e = np.exp(row - row.max())
        out[r] = e / e.sum()
    return out


def run(bin_dir, work, name, model, x, extra):
    om = os.path.join(work, name + ".om")
    feed = os.path.join(work, "x.npy")
    np.save(feed, x)
    out_dir = os.path.join(work, name + ".out")
    for step in ([os.path.join(bin_dir, "vinci-compile"), "--model", model, "--emit=om",
                  "--output", om] + extra,
                 [os.path.join(bin_dir, "vinci-run"), "--model", om, "--hazards", "fatal",
                  "--input", feed, "--output_dir", out_dir]):
        proc = subprocess.run(step, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            return None, (proc.stderr.strip().splitlines() or ["failed"])[0]
    return np.load(os.path.join(out_dir, "output_0.npy")).astype(np.float64), ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    args = parser.parse_args()
    x = inputs()
    want = reference(x)
    results = []
    with tempfile.TemporaryDirectory() as work:
        model = os.path.join(work, "safe_softmax.onnx")
        make_model(model)
        fp16_logits = os.path.join(work, "fp16_logits.json")
        with open(fp16_logits, "w") as f:
            json.dump({"Switch": {"UBFusion": {"SoftmaxPrologueFusion": "off"}}}, f)
        switches = os.path.join(work, "unprotected.json")
        with open(switches, "w") as f:
            json.dump({"Switch": {"GraphFusion": {"SoftmaxProtection": "off"},
                                  "UBFusion": {"SoftmaxPrologueFusion": "off"}}}, f)

        y, why = run(args.bin, work, "protected", model, x, ["--fusion_switch_file", fp16_logits])
        if not why:
            error = np.abs(y - want).max()
            if not np.all(np.isfinite(y)):
                why = "non-finite outputs with the protection on"
            elif error > 2e-3:
                why = f"max error {error:.2e} vs the fp32 reference"
            elif abs(y[0, 1] - 4.54e-5) > 1e-5:
                why = f"logits 100 and 90 gave {y[0, :2]}, want 0.99995 / 0.0000454"
            elif np.any(y[2] != 0):
                why = "the fully masked row is not zeros"
        results.append(("protected_matches_fp32", why))

        y, why = run(args.bin, work, "clip5", model, x,
                     ["--softmax_clip", "5", "--fusion_switch_file", fp16_logits])
        if not why:
            # exp(-5) / (1 + 0.0000454 + 62 exp(-5)) in the zero tail of row 0.
            tail = np.exp(-5.0) / (1 + np.exp(-10.0) + 62 * np.exp(-5.0))
            if abs(y[0, 5] - tail) > 1e-4:
                why = f"row 0's tail is {y[0, 5]:.3e} with --softmax_clip 5, want {tail:.3e}"
        results.append(("softmax_clip_option", why))

        y, why = run(args.bin, work, "unprotected", model, x,
                     ["--fusion_switch_file", switches])
        if not why and np.all(np.isfinite(y[:2])):
            why = "rows 0 and 1 are finite without the protection: the test proves nothing"
        results.append(("unprotected_overflows", why))

    return summarize(results)


if __name__ == "__main__":
    sys.exit(main())
