#!/usr/bin/python3
"""End to end: vinci-run --dump and vinci.compare find the first divergent
node.

A model of four kernels (fc1 + bias + relu on the Cube, a transpose, mul by
3 + tanh, a row sum), compiled force_fp16; the golden is numpy fp32, one
.npy per ONNX tensor. Cases:

  - the model as it is: every dumped tensor within the thresholds (cosine
    >= 0.99, relative L2 <= 0.01) of numpy, exit 0;
  - the same model with one kernel deliberately perturbed (the Mul's
    constant 3 -> 3.3, in the third kernel): vinci.compare names that
    kernel's output (act2:0, the kernel whose source nodes hold /mul3) as
    the first divergent tensor, the two kernels before it are fine, exit 1;
  - a must_keep_origin_dtype build's dump as the golden of the fp16 build:
    no tensor diverges;
  - two convs of 20 channels: the first one's output is stored NC1HWC0
    between them (vinci-assign-layouts) and is dumped as the NCHW tensor it
    is, matching torch's conv;
  - bad input: a golden directory matching nothing is a one-line error,
    exit 2.

Prints 'N passed, N failed'.

  dump_compare.py --bin build/bin --python build/python
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from e2e_common import summarize  # noqa: E402


def make_model(path, scale):
    rng = np.random.default_rng(0)
    w1 = (rng.standard_normal((64, 32)) / 8).astype(np.float32)
    b1 = (rng.standard_normal(32) / 4).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="/fc1"),
        helper.make_node("Add", ["h", "b1"], ["hb"], name="/bias1"),
        helper.make_node("Relu", ["hb"], ["r1"], name="/relu1"),
        helper.make_node("Transpose", ["r1"], ["t"], name="/tr", perm=[1, 0]),
        helper.make_node("Mul", ["t", "three"], ["m"], name="/mul3"),
        helper.make_node("Tanh", ["m"], ["a"], name="/act2"),
        helper.make_node("ReduceSum", ["a", "axes"], ["y"], name="/rsum", keepdims=0),
    ]
    graph = helper.make_graph(
        nodes, "dump_compare", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [32])],
        initializer=[numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(b1, "b1"),
                     helper.make_tensor("three", TensorProto.FLOAT, [], [scale]),
                     numpy_helper.from_array(np.array([1], np.int64), "axes")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return w1, b1


def make_conv_model(path, golden_dir, input_path):
    """conv 3 -> 20 + relu, conv 20 -> 20 + relu, 1x3x8x8; its golden from
    torch fp32, one .npy per ONNX tensor."""
    import torch
    rng = np.random.default_rng(2)
    w1 = (rng.standard_normal((20, 3, 3, 3)) / 4).astype(np.float32)
    w2 = (rng.standard_normal((20, 20, 3, 3)) / 8).astype(np.float32)
    x = rng.uniform(-1, 1, (1, 3, 8, 8)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], name="/conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="/relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], name="/conv2", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["y"], name="/relu2"),
    ]
    graph = helper.make_graph(
        nodes, "dump_conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 20, 8, 8])],
        initializer=[numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    onnx.checker.check_model(model)
    onnx.save(model, path)
    np.save(input_path, x)
    os.makedirs(golden_dir)
    conv = torch.nn.functional.conv2d
    tensors = {"c1": conv(torch.from_numpy(x), torch.from_numpy(w1), padding=1)}
    tensors["r1"] = tensors["c1"].clamp(min=0)
    tensors["c2"] = conv(tensors["r1"], torch.from_numpy(w2), padding=1)
    tensors["y"] = tensors["c2"].clamp(min=0)
    for name, value in tensors.items():
        np.save(os.path.join(golden_dir, name + ".npy"), value.numpy().astype(np.float32))


def golden(directory, x, w1, b1):
    """numpy fp32, one .npy per ONNX tensor name."""
    os.makedirs(directory)
    tensors = {"h": x @ w1}
    tensors["hb"] = tensors["h"] + b1
    tensors["r1"] = np.maximum(tensors["hb"], 0)
    tensors["t"] = tensors["r1"].T
    tensors["m"] = tensors["t"] * np.float32(3)
    tensors["a"] = np.tanh(tensors["m"])
    tensors["y"] = tensors["a"].sum(axis=1)
    for name, value in tensors.items():
        np.save(os.path.join(directory, name + ".npy"), value.astype(np.float32))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--python", required=True, help="the build's python/ directory")
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=args.python)
    results = []
    with tempfile.TemporaryDirectory() as work:
        x = np.random.default_rng(1).uniform(-1, 1, (16, 64)).astype(np.float32)
        np.save(os.path.join(work, "x.npy"), x)
        exact, perturbed = os.path.join(work, "exact.onnx"), os.path.join(work, "perturbed.onnx")
        w1, b1 = make_model(exact, 3.0)
        make_model(perturbed, 3.3)
        golden(os.path.join(work, "golden"), x, w1, b1)

        def dump(model, tag, *options, model_input=os.path.join(work, "x.npy")):
            om, out = os.path.join(work, tag + ".om"), os.path.join(work, tag + ".dump")
            for step in ([os.path.join(args.bin, "vinci-compile"), "--model", model, "--output",
                          om, *options],
                         [os.path.join(args.bin, "vinci-run"), "--model", om, "--hazards",
                          "fatal", "--input", model_input, "--output_dir",
                          os.path.join(work, tag + ".out"), "--dump", out]):
                proc = subprocess.run(step, capture_output=True, text=True, timeout=300)
                if proc.returncode != 0:
                    return None, None, (proc.stderr.strip().splitlines() or ["failed"])[-1]
            info = subprocess.run([os.path.join(args.bin, "vinci-info"), om, "--json"],
                                  capture_output=True, text=True, timeout=60)
            return out, json.loads(info.stdout), ""

        def compare(dump_dir, golden_dir, *options):
            report = os.path.join(work, "report.json")
            proc = subprocess.run([sys.executable, "-m", "vinci.compare", "--dump", dump_dir,
                                   "--golden", golden_dir, "--json", report, *options],
                                  capture_output=True, text=True, timeout=120, env=env)
            print("\n".join("  " + line for line in proc.stdout.splitlines()))
            loaded = None
            if proc.returncode in (0, 1):
                with open(report) as f:
                    loaded = json.load(f)
            return proc.returncode, loaded, proc.stderr.strip()

        model_option = ["--model", exact]
        out, _, why = dump(exact, "exact", "--precision_mode", "force_fp16")
        if not why:
            code, report, err = compare(out, os.path.join(work, "golden"), *model_option)
            if code != 0:
                why = f"exit {code}, first divergent {report and report['first_divergent']} {err}"
            elif sum("cosine" in t for t in report["tensors"]) != 4:
                why = f"{sum('cosine' in t for t in report['tensors'])} tensors compared, want 4"
        results.append(("exact_build_matches_numpy", why))

        out, info, why = dump(perturbed, "perturbed", "--precision_mode", "force_fp16")
        if not why:
            code, report, err = compare(out, os.path.join(work, "golden"), *model_option)
            first = report and report["first_divergent"]
            kernels = {k["name"]: k["source_nodes"] for k in info["kernels"]}
            row = report and next((t for t in report["tensors"] if t["tensor"] == first), None)
            if code != 1 or first != "/act2:0":
                why = f"exit {code}, first divergent {first}, want /act2:0 {err}"
            elif "/mul3" not in kernels.get(row["kernel"], []):
                why = f"kernel {row['kernel']} of the first divergent holds {kernels.get(row['kernel'])}"
            elif [t["status"] for t in report["tensors"][:2]] != ["ok", "ok"]:
                why = f"the kernels before the perturbed one: {report['tensors'][:2]}"
        results.append(("perturbed_kernel_is_first_divergent", why))

        fp32, _, why = dump(exact, "fp32", "--precision_mode", "must_keep_origin_dtype")
        if not why:
            code, report, err = compare(os.path.join(work, "exact.dump"), fp32)
            if code != 0:
                why = f"exit {code} against the fp32 build's dump {err}"
        results.append(("fp32_build_as_golden", why))

        conv_model, conv_golden = os.path.join(work, "conv.onnx"), os.path.join(work, "conv_golden")
        conv_input = os.path.join(work, "conv_x.npy")
        make_conv_model(conv_model, conv_golden, conv_input)
        conv_report = os.path.join(work, "conv_report.json")
        out, _, why = dump(conv_model, "conv", "--precision_mode", "force_fp16", "--report",
                           conv_report, model_input=conv_input)
        if not why:
            code, report, err = compare(out, conv_golden, "--model", conv_model)
            with open(os.path.join(out, "index.json")) as f:
                shapes = [t["shape"] for t in json.load(f)["tensors"]]
            compared = [t for t in report["tensors"] if "cosine" in t] if report else []
            if code != 0:
                why = f"exit {code}, first divergent {report and report['first_divergent']} {err}"
            elif shapes != [[1, 20, 8, 8], [1, 20, 8, 8]] or len(compared) != 2:
                why = f"dumped shapes {shapes}, {len(compared)} tensors compared, want 2 of 1x20x8x8"
            else:
                with open(conv_report) as f:
                    stored = json.load(f)["nc1hwc0_tensors"]
                if stored != 1:
                    why = f"{stored} tensors stored NC1HWC0, want 1 (conv1's output)"
        results.append(("nc1hwc0_activation_dumped_dense", why))

        empty = os.path.join(work, "empty")
        os.makedirs(empty)
        code, _, err = compare(os.path.join(work, "exact.dump"), empty)
        why = "" if code == 2 and len(err.splitlines()) == 1 and "no dumped tensor" in err else \
            f"exit {code}: {err}"
        results.append(("no_golden_is_one_line_error", why))
    return summarize(results)


if __name__ == "__main__":
    sys.exit(main())
