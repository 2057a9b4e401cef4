#!/usr/bin/python3
"""ResNet-18 (torchvision, weights=None, Nx3x224x224, opset 14) through Vinci
at batch 1 and 8; prints a JSON array, one object a batch size.

  /usr/bin/python3 bench/resnet18/run.py [--batch N ...]

bench/mobilenet_v2/run.py runs MobileNetV2 through the same figures.

Figures:
  compile_seconds          vinci-compile wall time to the .om (best of 2)
  simulated_us             the simulator's latency on Ascend310P3 (a timing
                           model of the 310P from published numbers, not a
                           hardware measurement)
  roofline_us              max(Cube FLOPs / Cube peak, GM bytes / GM bandwidth)
                           over the same kernels (the compile report's flops
                           and gm_bytes: each kernel reads its inputs and
                           writes its outputs once)
  simulated_over_roofline  their ratio (1.0 would be perfect)
  model_lower_bound_us     the model's own bound, from its ONNX graph alone
                           (bench/model_bound.py: conv and linear FLOPs at
                           70 TFLOPS fp16; fp16 weights, input, output and
                           each conv's input and output once at 204.8 GB/s),
                           which a worse partition cannot raise; and
                           simulated_over_model_lower_bound
  conv_cube_utilisation    the convolutions' Cube FLOPs over (their simulated
                           time x Cube peak): "matmul_kernels" counts the
                           Cube kernels only, "with_im2col" adds the pad,
                           slice, concat and bias kernels the convolutions
                           unfold into (vinci-unfold-windows)
  nc1hwc0_tensors, layout_conversions  from the compile report: kernel
                           results stored NC1HWC0 (vinci-assign-layouts),
                           and the conv-family arguments still ND, converted
                           on chip
  simulated_us_by_kernel_kind  simulated time per kind of kernel
  simulated_us_by_kernel   each kernel's simulated span and its source nodes
  simulated_us_per_image   simulated_us / batch
  rel_l2_vs_torch, cosine_vs_torch, same_top1  against torch fp32 on the
                           same input

The model is exported here from torchvision with fixed seeds (weights and
input), so the torch reference is the same module. A benchmark, not a test.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from common import (compile_with_report, cosine, cube_peak_flops,  # noqa: E402
                    kernel_spans, model_bound_figures, relative_l2, roofline, simulate)


def resnet18():
    """torchvision's ResNet-18 with fixed-seed random weights."""
    import torch
    import torchvision
    torch.manual_seed(0)
    return torchvision.models.resnet18(weights=None).eval()


def export(model, batch, path):
    """`model` exported at `batch` x 3 x 224 x 224, and its fp32 output."""
    import torch
    x = torch.randn(batch, 3, 224, 224, generator=torch.Generator().manual_seed(1))
    torch.onnx.export(model, x, path, opset_version=14, input_names=["x"], output_names=["y"])
    with torch.no_grad():
        return x.numpy(), model(x).numpy()


def measure(name, model, batch):
    result = {"benchmark": name, "batch": batch, "soc_version": "Ascend310P3",
              "precision_mode": "force_fp16",
              "note": "simulated figures model a 310P from published numbers (the timing table "
                      "in runtime/soc/soc.cpp, no L2); not a hardware measurement"}
    with tempfile.TemporaryDirectory() as work:
        onnx_path = os.path.join(work, name + ".onnx")
        x, expected = export(model, batch, onnx_path)
        om = os.path.join(work, name + ".om")
        try:
            figures, report = compile_with_report(onnx_path, om, os.path.join(work, "report.json"))
        except subprocess.CalledProcessError as failure:
            # A model the compiler cannot take yet is a figure too: its
            # first error line (MobileNetV2's depthwise convs at batch > 1).
            lines = failure.stderr.decode(errors="replace").strip().splitlines()
            result["status"] = "compile_failed"
            result["compile_error"] = lines[0] if lines else "vinci-compile failed"
            return result
        result.update(figures)
        np.save(os.path.join(work, "x.npy"), x)
        trace = os.path.join(work, "trace.json")
        simulated = simulate(om, [os.path.join(work, "x.npy")], os.path.join(work, "out"),
                             trace=trace)
        spans = kernel_spans(trace)
        model_bound = model_bound_figures(onnx_path, simulated["simulated_us"])
    actual = simulated.pop("output")
    simulated.pop("host_ms")

    kernels = report["kernels"]
    if len(spans) != len(kernels):
        raise RuntimeError(f"the trace has {len(spans)} launches, the report {len(kernels)} kernels")
    span_us = {k["name"]: span for k, span in zip(kernels, spans)}

    cube_peak = cube_peak_flops(simulated)
    bound = roofline(report, simulated)

    def is_conv(k):
        return any("Conv" in node for node in k.get("source_nodes", []))

    conv_matmuls = [k for k in kernels if is_conv(k) and k["kind"] == "cube"]
    conv_all = [k for k in kernels if is_conv(k)]
    conv_flops = sum(k["flops"] for k in conv_matmuls)

    def utilisation(group):
        seconds = sum(span_us.get(k["name"], 0.0) for k in group) * 1e-6
        return round(conv_flops / (seconds * cube_peak), 4) if seconds else None

    by_kind = collections.Counter()
    for k in kernels:
        by_kind[k["name"].split("_", 1)[1]] += span_us.get(k["name"], 0.0)
    result.update(simulated)
    result.update(bound)
    result.update(model_bound)
    result.update({
        "conv_cube_flops": conv_flops,
        "conv_cube_utilisation": {"matmul_kernels": utilisation(conv_matmuls),
                                  "with_im2col": utilisation(conv_all)},
        "simulated_us_by_kernel_kind": {kind: round(us, 1) for kind, us in by_kind.most_common()},
        "kernels_by_kind": dict(collections.Counter(k["name"].split("_", 1)[1] for k in kernels)),
        "simulated_us_by_kernel": [
            {"kernel": k["name"], "us": round(span_us.get(k["name"], 0.0), 1),
             "source_nodes": k.get("source_nodes", [])} for k in kernels],
        "simulated_us_per_image": round(simulated["simulated_us"] / batch, 3),
        "rel_l2_vs_torch": float(f"{relative_l2(expected, actual):.3g}"),
        "cosine_vs_torch": round(cosine(expected, actual), 7),
        "same_top1": bool((actual.argmax(axis=-1) == expected.argmax(axis=-1)).all()),
    })
    return result


def run(name, factory, argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 8])
    args = parser.parse_args(argv)
    model = factory()
    # A batch size that does not compile is reported in its object
    # ("status": "compile_failed"), not as a failed benchmark: it is a figure.
    print(json.dumps([measure(name, model, batch) for batch in args.batch], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(run("resnet18", resnet18, sys.argv[1:]))
