#!/usr/bin/python3
"""BERT-base (12 layers, hidden 768, 12 heads, seq 128) through Vinci beside
torch and onnxruntime on the same model, measured in the same run; prints one
JSON object.

  /usr/bin/python3 bench/bert_base/run.py [--runs N]

Figures:
  compile_seconds         vinci-compile wall time to the .om (best of 2)
  simulated_us            the simulator's latency on Ascend310P3 (a timing
                          model of the 310P from published numbers, not a
                          hardware measurement)
  roofline_us             max(Cube FLOPs / Cube peak, GM bytes / GM bandwidth)
                          over the same kernels (the compile report's flops
                          and gm_bytes: each kernel reads its inputs and writes
                          its outputs once)
  simulated_over_roofline their ratio (1.0 would be perfect)
  model_lower_bound_us    the model's own bound, from its ONNX graph alone
                          (bench/model_bound.py: matmul FLOPs at 70 TFLOPS
                          fp16; fp16 weights, inputs and output once at
                          204.8 GB/s), which a worse partition cannot raise;
                          and simulated_over_model_lower_bound
  host_ms                 wall time per run on this host: vinci-run (the
                          simulator executing the .om), torch CPU fp32
                          (Debian's python3-torch) and onnxruntime-node CPU
                          fp32 (npm, installed on first use into bench/out/node
                          with ONNXRUNTIME_NODE_INSTALL=skip), best of --runs
  rel_l2_vs_torch         Vinci's output against torch's fp32 output
                          (relative L2 error), and cosine_vs_torch

The model is bench/out/bert_base.onnx (exported by
examples/models/export_models.py on first use). A benchmark, not a test.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from common import (ROOT, compile_with_report, cosine, model_bound_figures,  # noqa: E402
                    relative_l2, roofline, run_onnxruntime_node, simulate)

OUT = os.path.join(ROOT, "bench", "out")
sys.path.insert(0, os.path.join(ROOT, "examples", "models"))
import export_models  # noqa: E402

SEQ = 128
def log(message):
    print("bert_base: " + message, file=sys.stderr, flush=True)


def ensure_model():
    path = os.path.join(OUT, "bert_base.onnx")
    if not os.path.exists(path):
        log("exporting BERT-base to " + path)
        subprocess.run([sys.executable, os.path.join(ROOT, "examples", "models", "export_models.py"),
                        "--out", OUT, "--only", "bert_base"], check=True, stdout=sys.stderr)
    return path


def reference_inputs():
    """The inputs and the torch model export_models.py exported (same seeds)."""
    cfg = export_models.BERT_BASE
    torch.manual_seed(0)
    model = export_models.BertEncoder(cfg, SEQ).eval()
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(0, cfg.vocab_size, (1, SEQ), dtype=torch.int64, generator=generator)
    return model, ids, torch.ones(1, SEQ, dtype=torch.int64)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per runtime")
    args = parser.parse_args()
    onnx_path = ensure_model()
    torch.set_num_threads(2)
    model, ids, mask = reference_inputs()
    result = {"benchmark": "bert_base", "model": os.path.relpath(onnx_path, ROOT),
              "soc_version": "Ascend310P3", "precision_mode": "force_fp16",
              "note": "simulated figures model a 310P from published numbers; not a hardware "
                      "measurement"}

    with tempfile.TemporaryDirectory() as work:
        om = os.path.join(work, "bert_base.om")
        figures, report = compile_with_report(onnx_path, om, os.path.join(work, "report.json"))
        result.update(figures)
        np.save(os.path.join(work, "ids.npy"), ids.numpy())
        np.save(os.path.join(work, "mask.npy"), mask.numpy())
        simulated = simulate(om, [os.path.join(work, "ids.npy"), os.path.join(work, "mask.npy")],
                             os.path.join(work, "out"), runs=args.runs)
    actual = simulated.pop("output")
    host_ms = simulated.pop("host_ms")
    result.update(simulated)
    result.update(roofline(report, simulated))
    result.update(model_bound_figures(onnx_path, simulated["simulated_us"]))

    with torch.no_grad():
        expected = model(ids, mask).numpy()
        model(ids, mask)  # warm-up
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            model(ids, mask)
            times.append(time.perf_counter() - start)
    result["rel_l2_vs_torch"] = float(f"{relative_l2(expected, actual):.3g}")
    result["cosine_vs_torch"] = round(cosine(expected, actual), 6)
    result["finite"] = bool(np.isfinite(actual).all())
    host = {"vinci_run_simulator": host_ms, "torch_cpu_fp32": round(min(times) * 1e3, 2)}

    with tempfile.TemporaryDirectory() as work:
        feeds = [("input_ids", os.path.join(work, "ids.npy")),
                 ("attention_mask", os.path.join(work, "mask.npy"))]
        np.save(feeds[0][1], ids.numpy())
        np.save(feeds[1][1], mask.numpy())
        ort = run_onnxruntime_node(onnx_path, feeds, args.runs)
    if "error" in ort:
        result["onnxruntime_node_error"] = ort["error"]
    else:
        host["onnxruntime_node_cpu_fp32"] = round(ort["best_ms"], 2)
        result["onnxruntime_node_version"] = ort["version"]
    result["host_ms"] = host
    result["host_ratio_vinci_over_torch"] = round(host_ms / host["torch_cpu_fp32"], 2)
    if "onnxruntime_node_cpu_fp32" in host:
        result["host_ratio_vinci_over_onnxruntime"] = round(
            host_ms / host["onnxruntime_node_cpu_fp32"], 2)
    result["torch_version"] = torch.__version__
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
