#!/usr/bin/python3
"""PyTorch front end on a BERT-base encoder (12 layers, hidden 768, seq 128).

    /usr/bin/python3 bench/torch_import_bench.py     (from the repository root, after the build)

Prints one JSON object: wall seconds of make_fx capture, of the torch route
(capture + aten -> vg + graph passes + partition, vinci.compile with
emit=vg-opt and a report) and of the ONNX route (torch.onnx.export, then the
same compile of the .onnx), and the kernel count of each route. Host wall
times on this machine; nothing is simulated here.
"""
import json
import os
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "build", "python"))
sys.path.insert(0, os.path.join(ROOT, "test", "python"))

import torch  # noqa: E402

import vinci  # noqa: E402
from vinci import torch_import  # noqa: E402
from test_torch_import import BertBaseEncoder  # noqa: E402


def main():
    torch.manual_seed(0)
    model = BertBaseEncoder().eval()
    inputs = (torch.rand(1, 128, 768), torch.zeros(1, 1, 1, 128))
    names = ["hidden_states", "attention_mask"]
    work = tempfile.mkdtemp(prefix="vinci-torch-bench-")

    start = time.perf_counter()
    torch_import.capture(model, inputs)
    capture_s = time.perf_counter() - start

    start = time.perf_counter()
    vinci.compile(model, inputs, output=None, emit="vg-opt", input_names=names,
                  report=os.path.join(work, "torch.json"))
    torch_route_s = time.perf_counter() - start

    start = time.perf_counter()
    onnx_path = os.path.join(work, "bert_base.onnx")
    torch.onnx.export(model, inputs, onnx_path, input_names=names, opset_version=14,
                      do_constant_folding=True)
    export_s = time.perf_counter() - start
    start = time.perf_counter()
    vinci.compile(onnx_path, output=None, emit="vg-opt", report=os.path.join(work, "onnx.json"))
    onnx_compile_s = time.perf_counter() - start

    kernels = {}
    for route in ("torch", "onnx"):
        with open(os.path.join(work, route + ".json")) as report:
            kernels[route] = json.load(report)["num_kernels"]
    shutil.rmtree(work)
    print(json.dumps({
        "benchmark": "torch_import_bert_base",
        "model": "BERT-base encoder, 12 layers, hidden 768, seq 128, fp32 weights",
        "make_fx_capture_s": round(capture_s, 3),
        "torch_route_s": round(torch_route_s, 3),
        "onnx_export_s": round(export_s, 3),
        "onnx_compile_s": round(onnx_compile_s, 3),
        "onnx_route_s": round(export_s + onnx_compile_s, 3),
        "kernels_torch_route": kernels["torch"],
        "kernels_onnx_route": kernels["onnx"],
        "note": "host wall seconds on this machine (compile to vg-opt with the kernel report)",
    }))


if __name__ == "__main__":
    main()
