#!/usr/bin/python3
"""Transformer shapes through Vinci: BERT-base at seq 128 / 384 / 512 and at
batch 8, and one GPT-2-small block (pre-LN, causal mask); prints one JSON
object per case (JSON Lines).

  /usr/bin/python3 bench/transformer/run.py [--only bert_s128_b1,...]

Figures per case (a case that does not compile or run says why, and the
others still run):
  simulated_us            the simulator's latency on Ascend310P3 (a timing
                          model of the 310P from published numbers, not a
                          hardware measurement; the no-L2 figure), and
                          simulated_us_per_sequence for batch > 1
  num_kernels, attention_kernels_per_layer
                          kernels in the .om; kernels that hold a node of an
                          attention (a Softmax, the scale and mask ops and
                          the QK^T MatMul before it, the PV MatMul after
                          it), over the layers
  kernels                 per kernel kind (the kernels of one role in every
                          layer: the first source node with the layer index
                          dropped, plus the template): count, simulated us
                          (each launch's span in the simulator's timeline),
                          its roofline us and their ratio. The roofline of a
                          kernel is the largest of its Cube FLOPs at the
                          Cube's peak, its Vector work at the Vector unit's
                          peak (8 cores x 128 fp16 lanes a cycle) and its
                          compulsory GM bytes at full bandwidth (the compile
                          report's flops and gm_bytes)
  model_lower_bound_us    the model's bound from its ONNX graph alone
                          (bench/model_bound.py)
  cosine_vs_torch, rel_l2_vs_torch
                          against torch fp32 on the same inputs

Models are exported into bench/out on first use (BERT-base: about 440 MB
each). A benchmark, not a test: nothing compares a figure with a target.
"""
import argparse
import collections
import json
import math
import os
import re
import sys
import tempfile

import numpy as np
import onnx
import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from common import (ROOT, compile_with_report, cosine, kernel_spans, model_bound_figures,  # noqa: E402
                    relative_l2, simulate)

OUT = os.path.join(ROOT, "bench", "out")
sys.path.insert(0, os.path.join(ROOT, "examples", "models"))
import export_models  # noqa: E402

# The SoC table's Ascend310P3 peaks (runtime/soc/soc.cpp): 8 AI cores, one
# 16^3 fp16 fractal a cycle each, 128 fp16 vector lanes a cycle each, 204.8
# GB/s of GM for the chip.
CORES, FRACTAL_FLOPS, VECTOR_LANES, GM_BANDWIDTH = 8, 16 * 16 * 16 * 2, 128, 204.8e9


def log(message):
    print("transformer: " + message, file=sys.stderr, flush=True)


class Gpt2Block(nn.Module):
    """One GPT-2-small block: pre-LN, causal self-attention, tanh GELU MLP."""

    def __init__(self, dim=768, heads=12, seq=128):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.up, self.down = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), -1e4), 1)[None, None])

    def forward(self, x):
        b, s, d = x.shape
        hd = d // self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (t.view(b, s, self.heads, hd).transpose(1, 2) for t in (q, k, v))
        a = (q @ k.transpose(-1, -2)) / math.sqrt(hd) + self.mask
        a = (a.softmax(-1) @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(a)
        return x + self.down(nn.functional.gelu(self.up(self.ln2(x)), approximate="tanh"))


def bert_case(seq, batch):
    cfg = export_models.BERT_BASE
    torch.manual_seed(0)
    model = export_models.BertEncoder(cfg, seq).eval()
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(0, cfg.vocab_size, (batch, seq), dtype=torch.int64, generator=generator)
    mask = torch.ones(batch, seq, dtype=torch.int64)
    return model, (ids, mask), ["input_ids", "attention_mask"], cfg.layers


def gpt2_case():
    torch.manual_seed(0)
    model = Gpt2Block().eval()
    x = torch.randn(1, 128, 768, generator=torch.Generator().manual_seed(0))
    return model, (x,), ["x"], 1


CASES = {
    "bert_s128_b1": lambda: bert_case(128, 1),
    "bert_s384_b1": lambda: bert_case(384, 1),
    "bert_s512_b1": lambda: bert_case(512, 1),
    "bert_s128_b8": lambda: bert_case(128, 8),
    "gpt2_block_s128": gpt2_case,
}


def attention_nodes(onnx_path):
    """The nodes of each attention: every Softmax, the MatMul its scores
    come from (through the scale and mask ops) and the MatMul it feeds."""
    graph = onnx.load(onnx_path, load_external_data=False).graph
    producer = {out: node for node in graph.node for out in node.output}
    names = set()
    for node in graph.node:
        if node.op_type != "Softmax":
            continue
        names.add(node.name)
        up = producer.get(node.input[0])
        while up is not None and up.op_type in ("Add", "Div", "Mul", "Where", "Sub"):
            names.add(up.name)
            up = producer.get(up.input[0])
        if up is not None and up.op_type == "MatMul":
            names.add(up.name)
        names.update(n.name for n in graph.node
                     if n.op_type == "MatMul" and node.output[0] in n.input)
    return names


def kernel_kinds(report, spans, clock_hz):
    cube_peak = CORES * FRACTAL_FLOPS * clock_hz
    vector_peak = CORES * VECTOR_LANES * clock_hz
    kinds = collections.OrderedDict()
    if len(spans) != len(report["kernels"]):
        raise RuntimeError(f"the trace has {len(spans)} launches, the report "
                           f"{len(report['kernels'])} kernels")
    for k, span in zip(report["kernels"], spans):
        template = re.sub(r"^k\d+_", "", k["name"])
        first = re.sub(r"\.\d+/|/\d+/", "/", k["source_nodes"][0].split("+")[0])
        key = template + " " + first
        roof = max(k["flops"] / (cube_peak if k["kind"] == "cube" else vector_peak),
                   k["gm_bytes"] / GM_BANDWIDTH) * 1e6
        entry = kinds.setdefault(key, {"count": 0, "simulated_us": 0.0, "roofline_us": 0.0})
        entry["count"] += 1
        entry["simulated_us"] += span
        entry["roofline_us"] += roof
    for entry in kinds.values():
        entry["simulated_us"] = round(entry["simulated_us"], 1)
        entry["roofline_us"] = round(entry["roofline_us"], 1)
        entry["over_roofline"] = (round(entry["simulated_us"] / entry["roofline_us"], 2)
                                  if entry["roofline_us"] else None)
    return dict(sorted(kinds.items(), key=lambda kv: -kv[1]["simulated_us"]))


def run_case(name):
    model, inputs, input_names, layers = CASES[name]()
    result = {"benchmark": "transformer", "case": name, "soc_version": "Ascend310P3",
              "precision_mode": "force_fp16",
              "note": "simulated figures model a 310P from published numbers (no L2); not a "
                      "hardware measurement"}
    onnx_path = os.path.join(OUT, name + ".onnx")
    if not os.path.exists(onnx_path):
        log("exporting " + onnx_path)
        os.makedirs(OUT, exist_ok=True)
        with torch.no_grad():
            torch.onnx.export(model, inputs, onnx_path, input_names=input_names,
                              output_names=["y"], opset_version=14, do_constant_folding=True)
    with torch.no_grad():
        expected = model(*inputs).numpy()
    with tempfile.TemporaryDirectory() as work:
        om = os.path.join(work, name + ".om")
        try:
            figures, report = compile_with_report(onnx_path, om, os.path.join(work, "r.json"),
                                                  attempts=1)
        except Exception as e:  # a compile error is a figure of this case
            result["error"] = "compile: " + (getattr(e, "stderr", b"") or b"").decode()[-400:]
            return result
        result["num_kernels"] = figures["num_kernels"]
        paths = []
        for i, tensor in enumerate(inputs):
            paths.append(os.path.join(work, f"in{i}.npy"))
            np.save(paths[-1], tensor.numpy())
        trace = os.path.join(work, "trace.json")
        try:
            simulated = simulate(om, paths, os.path.join(work, "out"), trace=trace)
        except Exception as e:
            result["error"] = "run: " + (getattr(e, "stderr", "") or "")[-400:]
            return result
        spans = kernel_spans(trace)
    actual = simulated.pop("output")
    simulated.pop("host_ms")
    clock_hz = simulated["simulated_cycles"] / (simulated["simulated_us"] * 1e-6)
    batch = inputs[0].shape[0]
    result["simulated_us"] = simulated["simulated_us"]
    if batch > 1:
        result["simulated_us_per_sequence"] = round(simulated["simulated_us"] / batch, 1)
    attention = attention_nodes(onnx_path)
    kernels = [k for k in report["kernels"]
               if any(n in attention for s in k["source_nodes"] for n in s.split("+"))]
    result["attention_kernels_per_layer"] = round(len(kernels) / layers, 2)
    result.update(model_bound_figures(onnx_path, simulated["simulated_us"]))
    result["cosine_vs_torch"] = round(cosine(expected, actual), 6)
    result["rel_l2_vs_torch"] = float(f"{relative_l2(expected, actual):.3g}")
    result["kernels"] = kernel_kinds(report, spans, clock_hz)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated cases: " + ", ".join(CASES))
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        print("transformer: unknown case(s) " + ", ".join(unknown) + "; cases: " +
              ", ".join(CASES), file=sys.stderr)
        return 2
    torch.set_num_threads(2)
    for name in names:
        log(name + " ...")
        print(json.dumps(run_case(name), separators=(",", ":")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
