#!/usr/bin/python3
"""End to end: ATC's typing options on the simulator.

  - --out_nodes on BERT-tiny (2 layers, exported from torch at opset 14, the
    LayerNorm decomposed): the output of layer 0's attention LayerNorm (the
    last ONNX node of /layers.0/attention_norm/) and the model's own output,
    in that order, each against torch fp32 by relative L2 (<= 5e-3, BERT's
    bound in bert_models.py); the inner tensor must differ from the final
    one by far more than that (the test can see a wrong tensor);
  - --output_type FP16 (every output) and "node:index:FP16" (one of two):
    fp16 outputs in the .om's descriptors and in vinci-run's .npy, the
    others fp32, values as the fp32 build's within fp16 rounding;
  - --input_fp16_nodes: the input descriptor is fp16, vinci-run takes an
    fp16 array (and refuses an fp32 one), and the output matches numpy.

Prints 'N passed, N failed'.

  typing_options.py --bin build/bin
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "models"))
import export_models  # noqa: E402
from e2e_common import error_figures, mismatch, relative_l2, summarize  # noqa: E402

SEQ = 32
MAX_REL_L2 = 5e-3


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return proc.returncode, (proc.stderr.strip() or proc.stdout.strip())


class Tools:
    def __init__(self, bin_dir, work):
        self.bin, self.work = bin_dir, work

    def compile(self, model, tag, *options):
        om = os.path.join(self.work, tag + ".om")
        code, message = run([os.path.join(self.bin, "vinci-compile"), "--model", model,
                             "--output", om, *options])
        return (om, "") if code == 0 else (None, message.splitlines()[-1])

    def describe(self, om):
        proc = subprocess.run([os.path.join(self.bin, "vinci-info"), om, "--json"],
                              capture_output=True, text=True, timeout=60)
        return json.loads(proc.stdout)

    def simulate(self, om, tag, *arrays):
        paths = []
        for i, array in enumerate(arrays):
            paths.append(os.path.join(self.work, f"{tag}.in{i}.npy"))
            np.save(paths[-1], array)
        out = os.path.join(self.work, tag + ".out")
        code, message = run([os.path.join(self.bin, "vinci-run"), "--model", om, "--hazards",
                             "fatal", "--input", *paths, "--output_dir", out])
        if code != 0:
            return None, message.splitlines()[-1]
        outputs, i = [], 0
        while os.path.exists(os.path.join(out, f"output_{i}.npy")):
            outputs.append(np.load(os.path.join(out, f"output_{i}.npy")))
            i += 1
        return outputs, ""


def bert_out_nodes(tools):
    results = []
    cfg = export_models.BERT_TINY
    torch.manual_seed(0)
    model = export_models.BertEncoder(cfg, SEQ).eval()
    ids = torch.randint(0, cfg.vocab_size, (1, SEQ), dtype=torch.int64,
                        generator=torch.Generator().manual_seed(1))
    mask = torch.ones(1, SEQ, dtype=torch.int64)
    path = os.path.join(tools.work, "bert.onnx")
    export_models._export(model, (ids, mask), path, ["input_ids", "attention_mask"],
                          ["last_hidden_state"])
    graph = onnx.load(path).graph
    inner = [n for n in graph.node if n.name.startswith("/layers.0/attention_norm/")]
    if not inner:
        return [("bert_out_nodes", "no /layers.0/attention_norm/ node in the export")]
    node = inner[-1].name
    captured = {}
    model.layers[0].attention_norm.register_forward_hook(
        lambda module, inputs, output: captured.update(norm=output.detach().numpy()))
    with torch.no_grad():
        final = model(ids, mask).numpy()
    om, why = tools.compile(path, "bert", "--out_nodes", f"{node}:0;last_hidden_state")
    outputs = None
    if not why:
        outputs, why = tools.simulate(om, "bert", ids.numpy(), mask.numpy())
    if not why and len(outputs) != 2:
        why = f"{len(outputs)} outputs, want 2 ({node}:0, last_hidden_state)"
    if not why:
        why = mismatch(outputs[0], captured["norm"], MAX_REL_L2)
        if not why and relative_l2(final, captured["norm"]) < 10 * MAX_REL_L2:
            why = "the inner LayerNorm and the final output are too alike to tell apart"
        why = why or mismatch(outputs[1], final, MAX_REL_L2)
        if not why:
            print(f"  {node}:0: {error_figures(outputs[0], captured['norm'])}; "
                  f"last_hidden_state: {error_figures(outputs[1], final)}")
    results.append(("bert_out_nodes_inner_layernorm", why))
    return results


def small_model(path):
    """y = relu(x @ w) and z = y * 2: two float outputs (fc, double)."""
    rng = np.random.default_rng(0)
    w = rng.standard_normal((64, 48)).astype(np.float32) / 8
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["h"], name="fc"),
         helper.make_node("Relu", ["h"], ["y"], name="relu"),
         helper.make_node("Mul", ["y", "two"], ["z"], name="double")],
        "typing", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 48]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [8, 48])],
        initializer=[numpy_helper.from_array(w, "w"),
                     helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return w


def types_and_inputs(tools):
    results = []
    path = os.path.join(tools.work, "small.onnx")
    w = small_model(path)
    x = np.random.default_rng(1).uniform(-1, 1, (8, 64)).astype(np.float32)
    y = np.maximum(x.astype(np.float64) @ w, 0)
    want = [y, 2 * y]

    def check(tag, options, want_types, feed):
        om, why = tools.compile(path, tag, *options)
        if why:
            return why
        described = [o["dtype"] for o in tools.describe(om)["outputs"]]
        if described != want_types:
            return f"the .om's outputs are {described}, want {want_types}"
        outputs, why = tools.simulate(om, tag, feed)
        if why:
            return why
        got = [str(o.dtype) for o in outputs]
        if got != want_types:
            return f"vinci-run wrote {got}, want {want_types}"
        for actual, expected in zip(outputs, want):
            why = mismatch(actual.astype(np.float64), expected, 5e-3)
            if why:
                return why
        return ""

    results.append(("output_type_fp16_all",
                    check("fp16_all", ["--output_type", "FP16"], ["float16", "float16"], x)))
    results.append(("output_type_per_output",
                    check("fp16_one", ["--output_type", "double:0:FP16"], ["float32", "float16"],
                          x)))
    # --input_fp16_nodes: the descriptor and vinci-run take fp16.
    om, why = tools.compile(path, "in16", "--input_fp16_nodes", "x")
    if not why:
        inputs = [i["dtype"] for i in tools.describe(om)["inputs"]]
        if inputs != ["float16"]:
            why = f"the .om's input is {inputs}, want ['float16']"
    if not why:
        x16 = x.astype(np.float16)
        outputs, why = tools.simulate(om, "in16", x16)
        if not why:
            y16 = np.maximum(x16.astype(np.float64) @ w, 0)
            why = mismatch(outputs[0].astype(np.float64), y16, 5e-3)
    if not why:
        refused, message = tools.simulate(om, "in16_f32", x)
        if refused is not None:
            why = "vinci-run took an fp32 array for the fp16 input"
        else:
            print(f"  an fp32 array for the fp16 input: {message}")
    results.append(("input_fp16_nodes", why))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        tools = Tools(args.bin, work)
        results = bert_out_nodes(tools) + types_and_inputs(tools)
    return summarize(results)


if __name__ == "__main__":
    sys.exit(main())
