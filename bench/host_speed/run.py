#!/usr/bin/python3
"""Host speed of the simulator: vinci-run's wall time per inference beside
onnxruntime-node's on the same ONNX model, both on this host, in one run;
prints one JSON object.

  /usr/bin/python3 bench/host_speed/run.py [--runs N] [--only NAME,...]

Models (random weights, fixed seeds, batch 1, exported on first use into
bench/out/host_speed/):
  bert_base     examples/models/export_models.py's BERT-base, seq 128
  bert_tiny     the same architecture, 2 layers, hidden 128
  gpt2_block    one GPT-2-small block (pre-LN, hidden 768, 12 heads, seq 128,
                causal mask, tanh GELU)
  resnet18      torchvision ResNet-18, 1x3x224x224
  mobilenet_v2  torchvision MobileNetV2, 1x3x224x224 (BatchNorm statistics
                measured on random inputs, as test/e2e/conv_models.py does)

Figures per model:
  vinci_run_ms          vinci-run's host wall time per run, best of --runs
                        (the simulator executing the .om: functional model,
                        timing model and hazard detector, hazards fatal)
  vinci_run_first_ms    the first run of the context (it checks hazards and
                        allocates what later runs reuse)
  onnxruntime_node_ms   onnxruntime-node CPU fp32, 2 intra-op threads, best of
                        --runs after a warm-up (npm, installed on first use
                        into bench/out/node with ONNXRUNTIME_NODE_INSTALL=skip)
  ratio                 vinci_run_ms / onnxruntime_node_ms, the best round's;
  ratios                every round's (--rounds: vinci-run then onnxruntime-node,
                        again and again, so that both see the same load)
  target_ratio, met     the simulator issue's targets (5x, 10x for BERT-tiny
                        and MobileNetV2)
  reference_paths_ms    vinci-run --reference-paths (every instruction through
                        the simulator's scalar reference code), best of 2 runs
  fast_equals_reference the outputs and every simulated line of the two
                        are byte for byte the same
  load_average          the host's 1-minute load average before and after
                        (the figures are wall times on a shared host)
  simulated_us          the simulated latency on Ascend310P3 (a timing model of
                        the 310P from published numbers, not a hardware
                        measurement), with its low and high bounds

A benchmark, not a test: nothing here fails on a figure.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from common import BIN, ROOT, run_onnxruntime_node  # noqa: E402

OUT = os.path.join(ROOT, "bench", "out", "host_speed")
TARGETS = {"bert_base": 5, "bert_tiny": 10, "gpt2_block": 5, "resnet18": 5, "mobilenet_v2": 10}


def log(message):
    print("host_speed: " + message, file=sys.stderr, flush=True)


# ---- Models -------------------------------------------------------------------

def bert(name):
    sys.path.insert(0, os.path.join(ROOT, "examples", "models"))
    import export_models
    import torch
    cfg = export_models.BERT_BASE if name == "bert_base" else export_models.BERT_TINY
    torch.manual_seed(0)
    model = export_models.BertEncoder(cfg, 128).eval()
    ids = torch.randint(0, cfg.vocab_size, (1, 128), dtype=torch.int64,
                        generator=torch.Generator().manual_seed(0))
    return model, {"input_ids": ids, "attention_mask": torch.ones(1, 128, dtype=torch.int64)}


def gpt2_block(_):
    import torch
    sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))
    import gpt2_blocks
    torch.manual_seed(0)
    dim, seq = 768, 128
    block = gpt2_blocks.Block(dim, 12, seq).eval()
    return block, {"x": torch.randn(1, seq, dim, generator=torch.Generator().manual_seed(1))}


def vision(name):
    import torch
    import torchvision
    sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))
    import conv_models
    torch.manual_seed(0)
    model = (torchvision.models.resnet18(weights=None).eval() if name == "resnet18"
             else conv_models.mobilenet_v2())
    return model, {"x": torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(1))}


MODELS = {"bert_base": bert, "bert_tiny": bert, "gpt2_block": gpt2_block, "resnet18": vision,
          "mobilenet_v2": vision}


def ensure_model(name):
    """bench/out/host_speed/<name>.onnx and its inputs (.npy), exported once."""
    onnx_path = os.path.join(OUT, name + ".onnx")
    inputs_path = os.path.join(OUT, name + ".inputs.json")
    if not (os.path.exists(onnx_path) and os.path.exists(inputs_path)):
        import torch
        log(f"exporting {name} to {onnx_path}")
        os.makedirs(OUT, exist_ok=True)
        model, feeds = MODELS[name](name)
        tmp = onnx_path + ".tmp"
        with torch.no_grad():
            torch.onnx.export(model, tuple(feeds.values()), tmp, opset_version=14,
                              input_names=list(feeds), output_names=["y"],
                              do_constant_folding=True)
        names = []
        for key, value in feeds.items():
            np.save(os.path.join(OUT, f"{name}.{key}.npy"), value.numpy())
            names.append(key)
        os.replace(tmp, onnx_path)
        with open(inputs_path, "w") as f:
            json.dump(names, f)
    with open(inputs_path) as f:
        names = json.load(f)
    return onnx_path, [(n, os.path.join(OUT, f"{name}.{n}.npy")) for n in names]


# ---- Runs ---------------------------------------------------------------------

def compile_om(onnx_path, work):
    om = os.path.join(work, "model.om")
    subprocess.run([os.path.join(BIN, "vinci-compile"), "--model", onnx_path, "--output", om],
                   check=True, capture_output=True)
    return om


# vinci-run's lines that depend on the host, not on the simulation.
HOST_LINES = re.compile(r"^(host wall time|output \d+ ').*$", re.M)


def run_vinci(om, inputs, runs, work, *extra):
    """(figures, output bytes, simulated stdout lines) of `runs` runs."""
    out = os.path.join(work, "out" + "".join(extra).replace("-", "_"))
    proc = subprocess.run([os.path.join(BIN, "vinci-run"), "--model", om, "--hazards", "fatal",
                           "--loop", str(runs), "--input", ",".join(p for _, p in inputs),
                           "--output_dir", out, *extra],
                          check=True, capture_output=True, text=True)
    text = proc.stdout
    best, first = re.search(r"host wall time: [\d.]+ ms per run \(best ([\d.]+) ms, first "
                            r"([\d.]+) ms", text).groups()
    micros = float(re.search(r"simulated: \d+ cycles = ([\d.]+) us", text).group(1))
    figures = {"vinci_run_ms": float(best), "vinci_run_first_ms": float(first),
               "simulated_us": micros}
    bounds = re.search(r"simulated bounds: ([\d.]+) us to ([\d.]+) us", text)
    if bounds:
        figures["simulated_us_low"], figures["simulated_us_high"] = map(float, bounds.groups())
    outputs = {f: open(os.path.join(out, f), "rb").read() for f in sorted(os.listdir(out))}
    return figures, outputs, HOST_LINES.sub("", text).replace(str(runs) + " run(s)", "")


def measure(name, runs, rounds):
    onnx_path, inputs = ensure_model(name)
    with tempfile.TemporaryDirectory() as work:
        om = compile_om(onnx_path, work)
        figures, ratios, ort_version = {}, [], None
        for r in range(rounds):
            log(f"{name}: round {r + 1}: vinci-run")
            fast, outputs, simulated = run_vinci(om, inputs, runs, work)
            if r == 0 or fast["vinci_run_ms"] < figures["vinci_run_ms"]:
                figures.update(fast)
            log(f"{name}: round {r + 1}: onnxruntime-node")
            ort = run_onnxruntime_node(onnx_path, inputs, runs)
            if "error" in ort:
                figures["onnxruntime_node_error"] = ort["error"]
                continue
            ort_version = ort["version"]
            ratios.append(round(fast["vinci_run_ms"] / ort["best_ms"], 2))
            best_ort = min(ort["best_ms"], figures.get("onnxruntime_node_ms", ort["best_ms"]))
            figures["onnxruntime_node_ms"] = round(best_ort, 3)
        if ratios:
            figures["ratio"] = min(ratios)
            figures["ratios"] = ratios
            figures["target_ratio"] = TARGETS[name]
            figures["met"] = figures["ratio"] <= TARGETS[name]
        log(f"{name}: vinci-run --reference-paths")
        reference, ref_outputs, ref_simulated = run_vinci(om, inputs, 2, work, "--reference-paths")
        figures["reference_paths_ms"] = reference["vinci_run_ms"]
        figures["fast_equals_reference"] = outputs == ref_outputs and simulated == ref_simulated
    return figures, ort_version


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per runtime and round")
    parser.add_argument("--rounds", type=int, default=2,
                        help="vinci-run / onnxruntime-node alternations per model")
    parser.add_argument("--only", default="", help="comma-separated subset of: " + ", ".join(MODELS))
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error("unknown model(s): " + ", ".join(unknown))
    result = {"benchmark": "host_speed", "soc_version": "Ascend310P3",
              "precision_mode": "force_fp16", "threads": "vinci-run all host threads; "
              "onnxruntime-node 2 intra-op threads", "host_cpus": os.cpu_count(),
              "note": "simulated figures model a 310P from published numbers (the SoC's default "
                      "timing table); not a hardware measurement",
              "load_average": [round(os.getloadavg()[0], 2)], "models": {}}
    for name in names:
        figures, version = measure(name, args.runs, args.rounds)
        if version:
            result["onnxruntime_node_version"] = version
        result["models"][name] = figures
    result["load_average"].append(round(os.getloadavg()[0], 2))
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
