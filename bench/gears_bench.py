#!/usr/bin/python3
"""Gears benchmark: what compiling several shapes into one .om costs next to
one shape, and how much memory a compile needs next to the model file.

    /usr/bin/python3 bench/gears_bench.py [--only bert_base|encoder_24] [--skip-run]

Two encoders from examples/models/export_models.py, exported with a dynamic
sequence dim into bench/out/ (gitignored; reused while newer than the export
script and this file):
  bert_base   12 layers, hidden 768 (BERT-base, about 0.44 GB of ONNX)
  encoder_24  24 layers, hidden 1024 (BERT-large's shape, about 1.3 GB)

Each is compiled by vinci-compile, in a fresh child process, once for the
single gear seq 128 (--input_shape at 128) and once with --dynamic_dims
seq 32;64;128. Figures per model:
  file_bytes                the ONNX file
  single / gears            compile_seconds (wall), peak_rss_bytes (the
                            child's ru_maxrss from os.wait4, so no other
                            child mixes in), om_bytes, and their
                            rss_over_file ratio
  om_bytes_ratio            gears .om over single .om (one copy of the
                            weights: the issue's bound is 1.05)
  compile_seconds_ratio     gears over single (bound 2.5)
  per_gear (bert_base only) each gear's simulated_us on the Ascend310P3
                            timing model (a 310P modelled from published
                            numbers, not a hardware measurement), and its
                            output against torch fp32 on the same weights
                            and inputs: rel_l2, max_abs next to the
                            reference's max_abs, cosine

A benchmark, not a test: one JSON object on stdout; it compares nothing with
the bounds (they are printed beside the figures).
"""
import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples",
                                "models"))
from common import BIN, ROOT, cosine, relative_l2  # noqa: E402
import export_models  # noqa: E402

OUT = os.path.join(ROOT, "bench", "out")
GEARS = (32, 64, 128)
BOUNDS = {"om_bytes_ratio_max": 1.05, "compile_seconds_ratio_max": 2.5,
          "rss_over_file_max": 1.5, "cosine_min": 0.9999}


def configs():
    large = export_models.BertConfig(vocab_size=30522, hidden=1024, layers=24, heads=16, ffn=4096)
    return {"bert_base": export_models.BERT_BASE, "encoder_24": large}


def export(name, cfg):
    """The encoder with a dynamic sequence dim, cached in bench/out/."""
    path = os.path.join(OUT, f"{name}_dynamic_seq.onnx")
    sources = [export_models.__file__, os.path.abspath(__file__)]
    if os.path.exists(path) and os.path.getmtime(path) > max(map(os.path.getmtime, sources)):
        return path
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    model = export_models.BertEncoder(cfg, max(GEARS)).eval()
    ids = torch.zeros(1, max(GEARS), dtype=torch.int64)
    mask = torch.ones(1, max(GEARS), dtype=torch.int64)
    with torch.no_grad():
        torch.onnx.export(model, (ids, mask), path + ".tmp", input_names=["input_ids", "attention_mask"],
                          output_names=["last_hidden_state"], opset_version=export_models.OPSET,
                          dynamic_axes={"input_ids": {1: "seq"}, "attention_mask": {1: "seq"},
                                        "last_hidden_state": {1: "seq"}})
    os.replace(path + ".tmp", path)
    return path


def compile_in_child(args):
    """vinci-compile in a child of its own: wall seconds and its peak RSS."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            os.execv(args[0], args)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(args)} failed with {os.waitstatus_to_exitcode(status)}")
    return seconds, usage.ru_maxrss * 1024


def compile_figures(onnx, om, extra):
    seconds, rss = compile_in_child([os.path.join(BIN, "vinci-compile"), "--model", onnx,
                                     "--output", om] + extra)
    file_bytes = os.path.getsize(onnx)
    return {"compile_seconds": round(seconds, 2), "peak_rss_bytes": rss,
            "rss_over_file": round(rss / file_bytes, 3), "om_bytes": os.path.getsize(om)}


def run_gears(cfg, onnx, om_path):
    """Every gear on the simulator against torch fp32 (the same weights: the
    ONNX file's, read back with onnx into the torch module's state)."""
    import vinci
    torch.manual_seed(0)
    model = export_models.BertEncoder(cfg, max(GEARS)).eval()  # the weights export() used
    om = vinci.load(om_path)
    figures = []
    rng = np.random.default_rng(0)
    for seq in GEARS:
        ids = rng.integers(0, cfg.vocab_size, (1, seq)).astype(np.int64)
        mask = np.ones((1, seq), np.int64)
        mask[0, seq * 3 // 4:] = 0  # padded positions, as a server pads requests
        with torch.no_grad():
            want = model(torch.from_numpy(ids), torch.from_numpy(mask)).numpy()
        (got,) = om.run([ids, mask])
        figures.append({
            "seq": seq, "simulated_us": round(om.profile()["simulated_us"], 1),
            "rel_l2": float(f"{relative_l2(want, got):.3g}"),
            "max_abs": float(f"{np.abs(got.astype(np.float64) - want).max():.3g}"),
            "reference_max_abs": float(f"{np.abs(want).max():.3g}"),
            "cosine": round(cosine(want, got), 6)})
    return figures


def bench(name, cfg, skip_run):
    onnx = export(name, cfg)
    with tempfile.TemporaryDirectory() as work:
        single_om, gears_om = os.path.join(work, "single.om"), os.path.join(work, "gears.om")
        single = compile_figures(onnx, single_om,
                                 ["--input_shape", f"input_ids:1,{max(GEARS)};attention_mask:1,"
                                  f"{max(GEARS)}"])
        gears = compile_figures(onnx, gears_om,
                                ["--input_shape", "input_ids:1,-1;attention_mask:1,-1",
                                 "--dynamic_dims", ";".join(f"{s},{s}" for s in GEARS)])
        result = {"model": name, "file_bytes": os.path.getsize(onnx),
                  "gears": ";".join(str(s) for s in GEARS), "single_gear": f"seq {max(GEARS)}",
                  "single": single, "with_gears": gears,
                  "om_bytes_ratio": round(gears["om_bytes"] / single["om_bytes"], 4),
                  "compile_seconds_ratio": round(gears["compile_seconds"] /
                                                 single["compile_seconds"], 2)}
        if name == "bert_base" and not skip_run:
            result["per_gear"] = run_gears(cfg, onnx, gears_om)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["bert_base", "encoder_24"])
    parser.add_argument("--skip-run", action="store_true", help="compile only")
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))
    results = [bench(name, cfg, args.skip_run) for name, cfg in configs().items()
               if args.only in (None, name)]
    print(json.dumps({"benchmark": "gears", "bounds": BOUNDS,
                      "note": "simulated_us: the Ascend310P3 timing model (a 310P from published "
                              "numbers), not a hardware measurement; peak RSS and seconds are "
                              "this host's", "models": results}, indent=1))


if __name__ == "__main__":
    main()
